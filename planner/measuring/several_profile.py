"""Which several-annotator intervals ``agree`` takes from the profile likelihood, and how.

For binary labels, no agreement weights and three or more annotators, Fleiss' kappa,
Krippendorff's alpha (nominal), specific positive agreement and Conger's kappa get the
t-calibrated profile-likelihood interval of
:mod:`planner.statistics.multirater_profile` (Conger's: Fleiss' interval moved by the
Conger - Fleiss difference). coverage_study/ measured them at 0.942-0.981 at 20 union
positives and 0.933-0.971 at 50 and 180 (3-5 annotators), where the Gwet-variance t
interval and alpha's item bootstrap covered as little as 0.85
(docs/methods/several-annotator-intervals.md). A pair's alpha gets it too
(``fewest_annotators=2``): 0.942-0.976 from 10 union positives, where the item bootstrap
covered 0.874-0.933 (docs/checks.md). With more categories, weights or ``--bootstrap`` the
previous intervals stay; a pair's Fleiss' kappa keeps the intraclass score interval and its
specific agreement is PSA with the Wilson interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.statistics import multirater_profile as mp
from planner.statistics.multirater import Patterns

IntervalAt = Callable[[float], tuple[Any, Any]]
#: the method label ``agree`` prints for these intervals
PROFILE_METHOD = "profile likelihood, t-calibrated"
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
