"""The ``bought`` section of ``plan --labelled --hours/--budget``: what the remaining budget buys.

The same keys for a pair, several annotators and a stratified study: ``hours`` and ``budget``
(the one given; the other null), ``bought_items`` (the items they buy, floor), ``total_items``
(labelled + bought), ``half_width_expected`` and ``half_width_se`` (the final interval's mean
usable half-width over simulated finished studies, and its Monte Carlo SE), ``assurance``
(of reaching the width at ``total_items``), ``assurance_se`` (its binomial Monte Carlo SE,
``sqrt(A (1 - A) / R)`` over the ``R`` simulated studies or posterior draws),
``budget_spent`` (hours and cost of the bought items, the keys of every budget) and
``by_stratum`` (a stratified study's bought items per stratum by name; null otherwise).
"""

from __future__ import annotations

from typing import Any


def bought_json(bought: Any) -> dict[str, Any] | None:
    """The section of a :class:`planner.sizing.midstudy_budget.BoughtItems` (None: none)."""
    from planner.output.jsonout import budget_json

    if bought is None:
        return None
    return {
        "hours": bought.hours,
        "budget": bought.budget,
        "bought_items": bought.bought_items,
        "total_items": bought.total_items,
        "half_width_expected": bought.half_width_expected,
        "half_width_se": bought.half_width_se,
        "assurance": bought.assurance,
        "assurance_se": bought.assurance_se,
        "budget_spent": budget_json(bought.cost),
        "by_stratum": bought.by_stratum,
    }


def add_bought(body: dict[str, Any], result: Any) -> None:
    """Add ``bought`` to a study in progress's document body when ``--hours``/``--budget``
    bought something (any kind of study: pair, several annotators, strata)."""
    if getattr(result, "bought", None) is not None:
        body["bought"] = bought_json(result.bought)
