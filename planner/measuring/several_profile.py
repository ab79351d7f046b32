"""Which several-annotator intervals ``agree`` takes from the profile likelihood, and how.

For binary labels, no agreement weights and three or more annotators, Fleiss' kappa,
Krippendorff's alpha (nominal), specific positive agreement and Conger's kappa get the
t-calibrated profile-likelihood interval of
:mod:`planner.statistics.multirater_profile` (Conger's: Fleiss' interval moved by the
Conger - Fleiss difference). coverage_study/ measured them at 0.942-0.981 at 20 union
positives and 0.933-0.971 at 50 and 180 (3-5 annotators), where the Gwet-variance t
interval and alpha's item bootstrap covered as little as 0.85
(docs/methods/several-annotator-intervals.md). A pair's alpha gets it too
(``fewest_annotators=2``) when some item lacks one of the two ratings.

Two annotators who rated every item (binary, unweighted): Fleiss' kappa is Scott's pi, the
intraclass kappa, and Krippendorff's alpha is ``pi + (1 - pi) / (2 n)``, so both estimate the
population intraclass kappa; both get its calibrated Donner-Eliasziw score interval
(:func:`intraclass_at`), which coverage_study/ measured at 0.942-0.957 from 20 union positives
where the profile interval over-covered (up to 0.970). A pair's specific agreement is PSA with
the Wilson interval. With more categories, weights or ``bootstrap`` the previous intervals stay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.statistics import multirater_profile as mp
from planner.statistics.intervals import kappa_interval
from planner.statistics.multirater import Patterns

IntervalAt = Callable[[float], tuple[Any, Any]]
#: the method label ``agree`` prints for these intervals
PROFILE_METHOD = "profile likelihood, t-calibrated"
#: the method label of the intraclass score interval of a complete pair
INTRACLASS_METHOD = "intraclass score"
CONGER_PROFILE_METHOD = "Fleiss' profile likelihood (t-calibrated) + (Conger - Fleiss)"


def profile_applies(data: Any, bootstrap: bool, fewest_annotators: int = 3) -> bool:
    """Binary labels, no weights, no ``--bootstrap``, ``fewest_annotators`` or more annotators
    (a pair's Fleiss' kappa keeps the intraclass score interval, specific agreement of a
    pair is PSA with its Wilson interval)."""
    return bool(
        data.k == 2
        and not data.weights_kind
        and not bootstrap
        and data.ratings.n_annotators >= fewest_annotators
    )


def complete_binary_pair(data: Any) -> bool:
    """Two annotators, two categories, no weights, and every item rated by both."""
    r = data.ratings
    return bool(
        data.two and data.k == 2 and not data.weights_kind and r.n_pairable_items == r.n_items
    )


def intraclass_at(data: Any) -> IntervalAt:
    """``level -> (low, high)``: the calibrated Donner-Eliasziw score interval of the pair's
    intraclass kappa (``kappa_interval(..., "gof")``), for a :func:`complete_binary_pair`.

    For two annotators who rated all ``n`` items, Fleiss' kappa is Scott's pi (the intraclass
    kappa) and Krippendorff's alpha is ``pi + (1 - pi) / (2 n)``: as ``n`` grows both tend to
    the population intraclass kappa, which this interval covers.
    """
    table = data.ratings.pair_table()
    return lambda level: kappa_interval(table, level, "gof")


def profile_at(patterns: Patterns, coefficient: str, category: int = 0) -> IntervalAt:
    """``level -> (low, high)`` of
    :func:`~planner.statistics.multirater_profile.patterns_profile_interval`."""

    def at(level: float) -> tuple[Any, Any]:
        ci = mp.patterns_profile_interval(patterns, coefficient, level, category)
        return float(ci.low), float(ci.high)

    return at


def conger_profile_at(patterns: Patterns, shift: float) -> IntervalAt:
    """Fleiss' profile interval moved by ``shift`` (Conger's minus Fleiss' estimate)."""

    def at(level: float) -> tuple[Any, Any]:
        ci = mp.patterns_profile_interval(patterns, "fleiss_kappa", level)
        moved = mp.shifted_interval(ci, shift)
        return float(moved.low), float(moved.high)

    return at
