"""The several-annotator plan's budget with a named team: each person's time and rate.

With ``[[team.annotator]]`` people in the scenario, ``schedule`` gives the next item to the
next free annotator who has not labelled it, so faster people label more. The plan bills the
same way on average: person ``j`` works ``h_j`` hours a day on ``d_j`` days a week at
``s_j`` seconds a label (the budget's seconds when they give none), a throughput
``t_j = 3600 h_j d_j / s_j`` labels a week; every item needs ``k`` labels from ``k``
different people, so nobody labels an item twice. The ``k n`` labels are shared in proportion
to throughput with that cap (water-filling):

``L_j = min(n, c t_j)``, with ``c`` such that ``sum_j L_j = k n``.

Person-hours are ``sum_j L_j s_j / 3600`` and the cost ``sum_j L_j s_j r_j / 3600``, with
``r_j`` their ``hourly_rate`` (the budget's when they give none). Absences, holidays, start and
end dates and the time spread move who labels what in a schedule run; this is the steady
state, and ``schedule`` simulates the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_HOUR, Budget


@dataclass(frozen=True)
class PersonShare:
    """One annotator's share of the plan's labels, hours and cost."""

    name: str
    labels: float
    seconds_per_item: float
    hours: float
    hourly_rate: float | None
    cost: float | None


def label_shares(throughput: list[float], items: int, labels_per_item: int) -> list[float]:
    """``L_j = min(n, c t_j)`` with ``sum L_j = k n`` (water-filling; module docstring).

    >>> label_shares([1.0, 1.0, 2.0], 100, 2)   # the fast one labels every item
    [50.0, 50.0, 100.0]
    """
    n, k = float(items), int(labels_per_item)
    if k > len(throughput):
        raise InvalidInput(
            f"the team has {len(throughput)} annotators, fewer than the {k} labels each item "
            "needs from different people",
            parameter="team",
        )
    capped: set[int] = set()
    while True:
        free = [j for j in range(len(throughput)) if j not in capped]
        left = k * n - n * len(capped)
        c = left / sum(throughput[j] for j in free)
        over = {j for j in free if c * throughput[j] > n}
        if not over:
            return [n if j in capped else c * throughput[j] for j in range(len(throughput))]
        capped |= over


def team_budget(
    budget: Budget, people: tuple[Any, ...], labels_per_item: int, seconds_per_item: float,
    hourly_rate: float | None,
) -> tuple[Budget, list[PersonShare]]:  # fmt: skip
    """``budget`` with its labelling hours and cost from each person's time and rate
    (adjudication at the budget's rate), and each person's share."""
    seconds = [p.seconds_per_item or seconds_per_item for p in people]
    throughput = [
        SECONDS_PER_HOUR * p.hours_per_day * len(p.days) / s
        for p, s in zip(people, seconds, strict=True)
    ]
    labels = label_shares(throughput, budget.items, labels_per_item)
    shares = []
    for person, s, count in zip(people, seconds, labels, strict=True):
        hours = count * s / SECONDS_PER_HOUR
        rate = person.hourly_rate if person.hourly_rate is not None else hourly_rate
        cost = None if rate is None else hours * rate
        shares.append(PersonShare(person.name, count, s, hours, rate, cost))
    labelling = sum(x.hours for x in shares)
    parts = [x.cost for x in shares]
    if budget.adjudication_hours:
        parts.append(None if hourly_rate is None else budget.adjudication_hours * hourly_rate)
    cost = None if any(c is None for c in parts) else float(sum(c for c in parts if c))
    priced = replace(
        budget,
        labelling_hours=labelling,
        person_hours=labelling + budget.adjudication_hours,
        cost=cost,
    )
    return priced, shares
