"""The settings of :func:`planner.measuring.measure.measure_agreement`: one frozen dataclass.

Every knob of a measurement (the positive class, Krippendorff's level and the agreement
weights, the intervals' confidence level, the bootstrap and its resample count, alpha's
threshold, the decision's coefficient and thresholds, the kappa interval choices and the
grouping column) lives here with its one default, checked on construction in parameter
names (:class:`~planner.errors.InvalidInput`); ``decide_on`` is checked against the data's
coefficients when the ratings are measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.errors import InvalidInput
from planner.statistics import alpha as ka
from planner.statistics.intervals import KAPPA_METHODS
from planner.validation import RULES, check, check_choice, check_instance, check_text, shown

WEIGHTS = ("quadratic", "linear")
COHEN_MARGINALS = ("complete", "gwet")
WEIGHTED_KAPPA_METHODS = ("bootstrap", "wald")


@dataclass(frozen=True)
class MeasureSettings:
    """What :func:`~planner.measuring.measure.measure_agreement` measures, and how.

    Every value is checked on construction by its rule in :data:`planner.validation.RULES`;
    :class:`~planner.errors.InvalidInput` names the parameter. None means "not given": the
    data choose (and an option given without effect gets a note).

    >>> MeasureSettings(level="ordinal", n_boot=200).n_boot
    200

    Attributes
    ----------
    positive
        Label of the positive class (for PSA/NSA, prevalence and the decision); labels 0/1
        and False/True need none.
    level
        ``nominal``, ``ordinal``, ``interval`` or ``ratio``: Krippendorff's metric.
    weights
        For the last three levels, ``"quadratic"`` (the default) or ``"linear"`` agreement
        weights ``w_ij = 1 - (d_ij / d_max)^2`` or ``1 - |d_ij| / d_max``, for weighted
        kappa, Fleiss and AC2.
    confidence_level
        Two-sided level of every interval, in (0, 1).
    bootstrap
        Whether every interval is the percentile item bootstrap.
    n_boot
        The bootstrap's resample count ``B``, 100 to 100,000 (every bootstrap interval, and
        alpha's, whose Monte Carlo error shrinks as ``1 / sqrt(B)``).
    alpha_min
        Reliability threshold for ``P(alpha < alpha_min)``, in [-1, 1] (None: 0.8).
    decide_on
        The coefficient the decision reads (None: ``psa`` with a positive class, else
        ``krippendorff_alpha``).
    not_demonstrated_below, demonstrated_at
        The decision's thresholds fixed in advance, in [0, 1], in order.
    kappa_method
        Interval for Cohen's kappa: ``profile``, ``score``, ``gof``, ``fce`` or
        ``bootstrap`` (None: ``profile`` for binary labels, else ``fce``).
    by
        Grouping column (kept in ``ratings.groups``) for agreement by group.
    cohen_marginals
        Cohen's kappa with items rated once: ``"complete"`` (items both rated, Cohen 1960)
        or ``"gwet"`` (every rating, Gwet 2014).
    weighted_kappa_method
        Weighted Cohen's kappa's interval: ``"bootstrap"`` or ``"wald"``
        (Fleiss-Cohen-Everitt 1969 SE).
    """

    positive: str | None = None
    level: str = "nominal"
    weights: str | None = None
    confidence_level: float = 0.95
    bootstrap: bool = False
    n_boot: int = 1000
    alpha_min: float | None = None
    decide_on: str | None = None
    not_demonstrated_below: float = 0.40
    demonstrated_at: float = 0.65
    kappa_method: str | None = None
    by: str | None = None
    cohen_marginals: str | None = None
    weighted_kappa_method: str | None = None

    def __post_init__(self) -> None:
        if self.positive is not None:  # a label: text, or a number for numeric labels
            check_instance("positive", self.positive, (str, int, float, np.number), "a label")
        check_text("by", self.by, optional=True)
        check_text("weights", self.weights, optional=True)
        check_text("decide_on", self.decide_on, optional=True)
        check_instance("bootstrap", self.bootstrap, bool, "True or False")
        check_choice("level", self.level, ka.LEVELS)
        _check_optional_choices(self)
        check("confidence_level", self.confidence_level, RULES["confidence_level"])
        check("n_boot", self.n_boot, RULES["n_boot"])
        if self.alpha_min is not None:
            check("alpha_min", self.alpha_min, RULES["alpha_min"])
        _check_thresholds(self.not_demonstrated_below, self.demonstrated_at)


def _check_optional_choices(s: MeasureSettings) -> None:
    """The choices that may be left to the data (None), checked when given."""
    for name, value, choices in (
        ("weights", s.weights, WEIGHTS),
        ("kappa_method", s.kappa_method, KAPPA_METHODS),
        ("cohen_marginals", s.cohen_marginals, COHEN_MARGINALS),
        ("weighted_kappa_method", s.weighted_kappa_method, WEIGHTED_KAPPA_METHODS),
    ):
        if value is not None:
            check_choice(name, value, choices)


def _check_thresholds(not_demonstrated_below: float, demonstrated_at: float) -> None:
    """The decision's thresholds, each in [0, 1], in order."""
    below = check("not_demonstrated_below", not_demonstrated_below, RULES["not_demonstrated_below"])
    at = check("demonstrated_at", demonstrated_at, RULES["demonstrated_at"])
    if below > at:
        raise InvalidInput(
            f"not_demonstrated_below must be at most the demonstrated-at threshold "
            f"({shown(at)}), got {shown(below)}",
            parameter="not_demonstrated_below",
        )


#: The settings every argument left out gives.
DEFAULTS = MeasureSettings()
