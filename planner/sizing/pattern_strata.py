"""Traffic strata as label patterns: what every stratified design of any study reads.

A stratified study over ``H`` strata (docs/methods/stratified-sampling.md section 3) is, for
the designs, each stratum's share of traffic ``W_h``, its seconds per item and the
probabilities ``p_h`` of ``P`` label patterns an item can show; a study of ``n_h`` items of
stratum ``h`` is one multinomial draw over those patterns. A pair's patterns are its four
ordered cells (both flag, only A, only B, neither:
:class:`~planner.sizing.pair_strata.PairStrata`), so that its Cohen's kappa and its
intervals keep the order of the two annotators; several annotators' patterns are how many
of an item's ``k`` labels say positive (:class:`~planner.sizing.raters_strata.RatersStrata`).
:class:`PatternStrata` holds what both share and names what each study answers in its own
way; the designs of :mod:`planner.sizing.strata_designs` read nothing else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from planner.sizing.design import DesignResult
    from planner.sizing.plan_settings import PlanSettings

FloatArray = NDArray[np.float64]
#: ``(R, H, P)`` pattern counts of ``R`` studies to their half-widths and estimates
Statistic = Callable[[NDArray], tuple[NDArray, NDArray]]
#: ``(R, H, P)`` pattern counts to the estimates and the limits of their intervals
Interval = Callable[[NDArray], tuple[NDArray, NDArray, NDArray]]


@dataclass(frozen=True)
class PatternStrata(ABC):
    """Strata of traffic and each stratum's label-pattern probabilities.

    Attributes
    ----------
    names, shares, seconds
        Each stratum's name, share of traffic ``W_h`` and seconds per item.
    patterns
        ``(P, 2)``: how many of an item's labels say negative and positive in each pattern
        (a pair's ordered cells are ``(0, 2), (1, 1), (1, 1), (2, 0)``).
    probabilities
        ``(H, P)`` each stratum's pattern probabilities.

    A study sets :attr:`keep_every_size` (how its nested studies keep their sizes, so that
    its figures stay the draws they were) and answers the abstract methods below.
    """

    names: tuple[str, ...]
    shares: FloatArray
    seconds: FloatArray
    patterns: NDArray[np.int64]
    probabilities: FloatArray

    #: nested studies keep every size read (True) or only the neighbours of the last
    keep_every_size: ClassVar[bool] = False

    def mixture(self, weights: FloatArray) -> FloatArray:
        """The pattern probabilities of the strata pooled at ``weights``,
        ``sum_h w_h p_h``."""
        return np.asarray(np.asarray(weights, dtype=float) @ self.probabilities)

    @property
    def population(self) -> FloatArray:
        """Traffic's pattern probabilities ``sum_h W_h p_h``."""
        return self.mixture(self.shares)

    def union_of(self, probabilities: FloatArray) -> float | FloatArray:
        """Share of items some label flags, ``(P,)`` or ``(H, P)`` probabilities."""
        flagged = self.patterns[:, 1] > 0
        return np.asarray(probabilities)[..., flagged].sum(axis=-1)

    @property
    def union(self) -> FloatArray:
        """Each stratum's union rate: the share of its items some label flags."""
        return np.asarray(self.union_of(self.probabilities))

    def contested(self, probabilities: FloatArray) -> float | FloatArray:
        """Share of items whose labels do not all agree (``(P,)`` or ``(H, P)``)."""
        unanimous = (self.patterns == self.patterns.sum(axis=1, keepdims=True)).any(axis=1)
        return np.asarray(probabilities)[..., ~unanimous].sum(axis=-1)

    @property
    def labels_per_item(self) -> int:
        """``k``, the labels each item gets."""
        return int(self.patterns[0].sum())

    def positive_label_rate(self, probabilities: FloatArray) -> float:
        """The share of labels that say positive, ``sum_p p_p positives_p / k``."""
        return float(np.asarray(probabilities) @ self.patterns[:, 1]) / self.labels_per_item

    # ----------------------------------------------------------------- each study's own

    @abstractmethod
    def check_metric(self, settings: PlanSettings) -> str:
        """The metric of ``settings`` that this study's designs size, checked."""

    @abstractmethod
    def value(self, metric: str, probabilities: FloatArray) -> FloatArray:
        """The coefficient of ``(..., P)`` pattern probabilities."""

    @abstractmethod
    def residual_sds(self, metric: str) -> FloatArray:
        """Each stratum's SD ``S_h`` of the linearised residual at traffic's value."""

    @abstractmethod
    def pooled_statistic(self, metric: str, settings: PlanSettings) -> Statistic:
        """The strata pooled as one unweighted sample: its half-widths and estimates."""

    @abstractmethod
    def weighted_interval(self, metric: str, confidence_level: float) -> Interval:
        """The population-weighted analysis (combined ratio estimator, linearised t
        interval with Satterthwaite df), as ``agree --stratum-col`` reports it."""

    @abstractmethod
    def plug_in_start(self, probabilities: FloatArray, metric: str, s: PlanSettings) -> int:
        """The delta-method size of one sample with ``probabilities``: a search's start."""

    @abstractmethod
    def uniform_design(
        self, metric: str, settings: PlanSettings, rng: np.random.Generator
    ) -> DesignResult:
        """The uniform design: one sample of traffic."""

    @abstractmethod
    def billed(self, settings: PlanSettings) -> PlanSettings:
        """The settings whose labels per item the designs' costs bill."""

    @abstractmethod
    def strata_rows(self, sds: FloatArray, options: Any) -> list[dict[str, Any]]:
        """The comparison's table of the strata."""

    @abstractmethod
    def per_stratum_rows(self, items: list[int], settings: PlanSettings) -> list[dict[str, Any]]:
        """Each stratum's PSA and the half-width its enriched items give."""

    @abstractmethod
    def population_summary(self) -> dict[str, float]:
        """Traffic's union rate, PSA, kappa and negative specific agreement."""

    def notes(self) -> list[str]:
        """What this study's comparison says about itself besides the designs."""
        return []
