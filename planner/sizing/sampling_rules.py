"""PSA without trusting the model: the worst case over every agreement, and the stop rule.

Beside the fixed-``n`` plan, :func:`~planner.sizing.plan.make_plan` gives a pair's PSA two
answers that lean less on the model:

* the **worst case** (:class:`WorstCase`): the union positives ``U`` that reach the width
  whatever the true agreement (the delta method at the worst Jaccard ``J = 1/2``, and the
  Wilson-for-``J`` interval checked at every outcome ``0..U``), and the fewest items whose
  union positives ``Bin(n, r)`` reach that ``U`` with probability at least the assurance (a
  negative binomial quantile, not the expected ``U / r``, which reaches ``U`` only about half
  the time);
* the **stop rule** (:class:`StopRule`): label until ``U`` union positives, with ``U`` the
  smallest count whose conditional (exact) interval reaches the width with the assurance at
  the model's ``J``; the items it takes are negative binomial (expected and 90th percentile).

Both are frozen results; their JSON form is :func:`planner.output.jsonout.plan_document`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from planner.operations.budget import Budget
from planner.sizing.model import PairModel
from planner.sizing.search import (
    inverse_sampling_items,
    items_for_union_positives,
    union_positives_for_assurance,
    worst_case_union_positives,
)

BudgetFor = Callable[[float], Budget]

WORST_CASE_DESCRIPTION = (
    "union positives that reach the width for PSA whatever the agreement: "
    "delta method at the worst J, and the Wilson-for-J interval for every outcome; "
    "items: the fewest whose union positives reach that many with probability "
    "at least the assurance"
)
STOP_RULE_DESCRIPTION = "label items until this many union positives, then stop"


@dataclass(frozen=True)
class WorstCase:
    """Union positives that reach the width for PSA whatever the agreement, and the items
    that get them.

    Attributes
    ----------
    union_positives_delta
        ``U`` from the delta method at the worst ``J = 1/2``.
    union_positives_wilson_every_outcome
        The smallest ``U`` whose Wilson-for-``J`` half-width is at most the width for every
        outcome ``0..U``.
    items_at_model_union_rate
        The fewest items whose union positives reach that ``U`` with probability at least
        ``items_probability``, at the model's union rate.
    items_probability
        That probability (the plan's assurance).
    items_expected
        ``U / r``: the items that give ``U`` union positives on average.
    person_hours, cost
        The budget of ``items_at_model_union_rate`` items (``cost`` ``None`` without a rate).
    description
        What the numbers are, in one sentence.
    """

    union_positives_delta: int
    union_positives_wilson_every_outcome: int
    items_at_model_union_rate: int
    items_probability: float
    items_expected: float
    person_hours: float
    cost: float | None
    description: str = WORST_CASE_DESCRIPTION


@dataclass(frozen=True)
class StopRule:
    """The stop rule "label until ``union_positives`` union positives" for PSA.

    Attributes
    ----------
    union_positives
        The count to label until.
    expected_items, items_p90
        Items the rule takes: expected, and the 90th percentile (negative binomial).
    person_hours_expected, person_hours_p90
        Their person-hours.
    method
        The PSA interval the count is exact for (Wilson when the plan's has no exact
        conditional form).
    description
        What the rule is, in one sentence.
    cost_expected, cost_p90
        Their cost with a named team (priced person by person), else ``None`` (hours times
        the one rate).
    """

    union_positives: int
    expected_items: float
    items_p90: int
    person_hours_expected: float
    person_hours_p90: float
    method: str
    description: str = STOP_RULE_DESCRIPTION
    cost_expected: float | None = None
    cost_p90: float | None = None


def worst_case(
    model: PairModel, width: float, confidence_level: float, assurance: float, budget_for: BudgetFor
) -> WorstCase:
    """The :class:`WorstCase` of a pair's PSA at this width, confidence and assurance."""
    worst = worst_case_union_positives(width, confidence_level)
    u = worst["wilson"]
    items = items_for_union_positives(u, model.union_rate, assurance)
    budget = budget_for(items)
    return WorstCase(
        union_positives_delta=worst["delta"],
        union_positives_wilson_every_outcome=u,
        items_at_model_union_rate=items,
        items_probability=assurance,
        items_expected=u / model.union_rate,
        person_hours=budget.person_hours,
        cost=budget.cost,
    )


def stop_rule(
    model: PairModel,
    method: str,
    width: float,
    confidence_level: float,
    assurance: float,
    budget_for: BudgetFor,
    priced_by_person: bool,
) -> StopRule:
    """The :class:`StopRule` for a pair's PSA with the interval ``method`` (one of
    :data:`planner.sizing.exact.EXACT_PSA_METHODS`); ``priced_by_person``: a named team's
    cost is carried (it is not hours times one rate)."""
    u_stop = union_positives_for_assurance(
        model.jaccard, width, confidence_level, assurance, method
    )
    items = inverse_sampling_items(u_stop, model.union_rate)
    expected, p90 = budget_for(items["expected"]), budget_for(items["p90"])
    return StopRule(
        union_positives=u_stop,
        expected_items=items["expected"],
        items_p90=items["p90"],
        person_hours_expected=expected.person_hours,
        person_hours_p90=p90.person_hours,
        method=method,
        cost_expected=expected.cost if priced_by_person else None,
        cost_p90=p90.cost if priced_by_person else None,
    )
