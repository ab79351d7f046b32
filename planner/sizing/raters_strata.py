"""Several annotators over traffic strata: the strata, their models and their statistics.

A :class:`RatersStrata` holds each stratum's share of traffic, seconds per item and annotator
model (:func:`planner.sizing.annotator_model.raters_model`: the stratum's prevalence, error
rates, bias and ambiguity over the ``[annotators]`` section's) over two categories, every item
labelled by all ``M`` annotators or by ``k`` of them drawn at random (``per_item``, the
pattern probabilities averaged over the ``C(M, k)`` subsets); a study of a stratum is then
its counts of the ``k + 1`` label patterns (how many of its labels said positive). The
coefficients are specific positive agreement (``psa``, Uebersax) and Fleiss' kappa, as smooth
functions of the means of the item features of
:func:`planner.statistics.stratified.multirater_features`: traffic's value, the residual SDs
the cost-optimal allocation weighs, the weighted analysis of ``agree --stratum-col``
(combined ratio estimator, linearised t interval with Satterthwaite df; logit
scale for PSA, ``log(1 - kappa)`` for Fleiss' kappa) and the pooled single-sample interval.
The designs built on them are :mod:`planner.sizing.raters_strata_designs`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.annotator_model import RatersModel, check_per_item, raters_model
from planner.sizing.design import (
    check_strata,
)
from planner.sizing.model import renamed
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.study_intervals import plug_in_items, study_intervals
from planner.statistics.stratified import (
    multirater_coefficient,
    multirater_features,
    weighted_from_pattern_counts,
)

FloatArray = NDArray[np.float64]

#: the metrics a stratified design of several annotators sizes, as the analysis names them
STRATA_METRICS = {"psa": "psa", "fleiss": "fleiss_kappa"}
#: category 1 of two is the positive label
POSITIVE = 1


@dataclass(frozen=True)
class RatersStrata:
    """The strata of a scenario of several annotators as the designs use them.

    Attributes
    ----------
    names, shares, seconds
        Each stratum's name, share of traffic ``W_h`` and seconds per item.
    models
        Each stratum's annotator model (same annotators, two categories).
    patterns
        ``(P, 2)`` count patterns (negatives, positives), the same for every stratum.
    probabilities
        ``(H, P)`` each stratum's pattern probabilities.
    per_item
        ``k``: each item labelled by ``k`` of the ``M`` annotators, drawn at random; ``None``:
        by all of them.
    """

    names: tuple[str, ...]
    shares: FloatArray
    seconds: FloatArray
    models: tuple[RatersModel, ...]
    patterns: NDArray[np.int64]
    probabilities: FloatArray
    per_item: int | None = None

    @property
    def population(self) -> FloatArray:
        """Traffic's pattern probabilities ``sum_h W_h p_h``."""
        return np.asarray(self.shares @ self.probabilities)

    def mixture(self, weights: FloatArray) -> FloatArray:
        """The pattern probabilities of strata pooled at ``weights``."""
        return np.asarray(weights @ self.probabilities)

    @property
    def union(self) -> FloatArray:
        """Each stratum's union rate: the share of items some annotator flags."""
        none = self.patterns[:, POSITIVE] == 0
        return np.asarray(1.0 - self.probabilities[:, none].sum(axis=1))

    def contested(self, probabilities: FloatArray) -> float | FloatArray:
        """Share of items whose labels do not all agree (``(P,)`` or ``(H, P)``)."""
        unanimous = (self.patterns == self.patterns.sum(axis=1, keepdims=True)).any(axis=1)
        return 1.0 - probabilities[..., unanimous].sum(axis=-1)

    @property
    def n_annotators(self) -> int:
        """``M``, the annotators of the study's pool."""
        return self.models[0].n_annotators

    @property
    def labels_per_item(self) -> int:
        """``k``, the labels each item gets (``M`` unless ``per_item``)."""
        return int(self.patterns[0].sum())


def stratum_raters_models(
    strata: Any,
    count: int,
    defaults: dict[str, Any],
    key: Callable[[str, int], str],
    prefix: Callable[[int], str],
) -> list[RatersModel]:
    """One model of ``count`` annotators per stratum: its prevalence, and its error rates,
    bias and ambiguity over ``defaults`` (the ``[annotators]`` section's).

    An infeasible stratum is one error: ``prefix(i)``, the stratum's name, and every model
    parameter the message mentions as ``key(name, i)`` names it (``strata[2].error_rate``
    for the stratum's own value, ``annotators.error_rate`` for the default it took;
    :func:`planner.sizing.model.renamed`).
    """
    models = []
    for i, s in enumerate(strata, start=1):
        own = {"error_rate": s.error_rate, "bias": s.bias, "ambiguity": s.ambiguity}
        values: dict[str, Any] = {
            k: v if v is not None else defaults.get(k) for k, v in own.items()
        }
        bias = values["bias"] if values["bias"] is not None else 0.0
        try:
            models.append(
                raters_model(
                    s.prevalence, count, error_rate=values["error_rate"], bias=bias,
                    ambiguity=values["ambiguity"] or 0.0,
                )
            )  # fmt: skip
        except InvalidInput as exc:
            raise renamed(exc, _key_of(key, i), f"{prefix(i)}stratum {s.name!r}: ") from None
    return models


def _key_of(key: Callable[[str, int], str], i: int) -> Callable[[str], str]:
    """How stratum ``i``'s error names a model parameter."""
    return lambda name: key(name, i)


def raters_strata(
    names: list[str],
    shares: list[float],
    seconds: list[float],
    models: list[RatersModel],
    per_item: int | None = None,
) -> RatersStrata:
    """The strata, checked: two to :data:`~planner.validation.MAX_STRATA`, shares summing to
    1, the same annotators over two categories in every stratum; with ``per_item`` ``k``
    (2 to ``M - 1``), each item labelled by ``k`` of them drawn at random."""
    check_strata(list(models), shares)
    shapes = {(m.n_annotators, m.n_categories) for m in models}
    if len(shapes) != 1 or next(iter(shapes))[1] != 2:
        raise InvalidInput(
            "a stratified design of several annotators takes the same annotators over two "
            "categories in every stratum",
            parameter="strata",
        )
    if per_item is not None:
        check_per_item(per_item, models[0].n_annotators)
    spaces = [m.count_patterns(per_item) for m in models]
    patterns = spaces[0][0]
    if any(not np.array_equal(rows, patterns) for rows, _ in spaces):
        raise InvalidInput("the strata's label patterns differ", parameter="strata")
    return RatersStrata(
        names=tuple(names),
        shares=np.asarray(shares, dtype=float),
        seconds=np.asarray(seconds, dtype=float),
        models=tuple(models),
        patterns=patterns,
        probabilities=np.array([p for _, p in spaces]),
        per_item=per_item,
    )


# --------------------------------------------------------------------------- statistics


def traffic_value(strata: RatersStrata, metric: str, positive: int = POSITIVE) -> float:
    """The coefficient of traffic, ``g(sum_h W_h E_h[y])`` on the features of
    :func:`~planner.statistics.stratified.multirater_features`."""
    y = multirater_features(strata.patterns, positive)
    value, _ = multirater_coefficient(STRATA_METRICS[metric], 2)(strata.population @ y)
    return float(value)


def residual_sds(strata: RatersStrata, metric: str) -> FloatArray:
    """Each stratum's SD ``S_h`` of the linearised residual ``u = grad g(Y) . y`` at traffic's
    means ``Y``: what the cost-optimal allocation weighs."""
    y = multirater_features(strata.patterns, POSITIVE)
    _, grad = multirater_coefficient(STRATA_METRICS[metric], 2)(strata.population @ y)
    u = y @ grad
    mean = strata.probabilities @ u
    return np.asarray(np.sqrt(np.maximum(strata.probabilities @ (u * u) - mean**2, 0.0)))


def weighted_fit(
    strata: RatersStrata, metric: str, confidence_level: float
) -> Callable[[NDArray], tuple[NDArray, NDArray, NDArray]]:
    """``(R, H, P)`` counts -> estimate, low, high of the weighted analysis."""

    def fit(counts: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        name = STRATA_METRICS[metric]
        found = weighted_from_pattern_counts(
            name, strata.patterns, counts, strata.shares, confidence_level, POSITIVE
        )
        return found.estimate, found.low, found.high

    return fit


def pooled_fit(
    strata: RatersStrata, metric: str, confidence_level: float
) -> Callable[[NDArray], tuple[NDArray, NDArray]]:
    """``(R, H, P)`` counts -> half-width and estimate of the strata pooled as one sample."""

    def fit(counts: NDArray) -> tuple[NDArray, NDArray]:
        ci = study_intervals(
            metric, strata.patterns, counts.sum(axis=1), confidence_level=confidence_level
        )
        return ci.half_width, ci.estimate

    return fit


def plug_in_start(
    strata: RatersStrata, probabilities: FloatArray, metric: str, s: PlanSettings
) -> int:
    """The plug-in size of one sample with ``probabilities`` (the search's first total)."""
    return plug_in_items(
        metric, strata.patterns, probabilities, s.width, confidence_level=s.confidence_level
    )


def specific_agreement(strata: RatersStrata, probabilities: FloatArray, positive: int) -> float:
    y = multirater_features(strata.patterns, positive)
    value, _ = multirater_coefficient("psa", 2)(probabilities @ y)
    return float(value)


def fleiss_kappa(strata: RatersStrata, probabilities: FloatArray) -> float:
    y = multirater_features(strata.patterns, POSITIVE)
    value, _ = multirater_coefficient("fleiss_kappa", 2)(probabilities @ y)
    return float(value)
