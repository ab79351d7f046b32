"""A plan's budget with a named team: each person's time and rate (pair and several annotators).

With ``[[team.annotator]]`` people in the scenario, ``schedule`` gives the next item to the
next free annotator who has not labelled it, so faster people label more. A plan bills the
same way on average: person ``j`` works ``h_j`` hours a day on ``d_j`` days a week and spends
``e_j`` busy seconds on a label, their ``seconds_per_item`` ``s_j`` (the budget's when they
give none) plus their attention checks, ``e_j = s_j (1 + a_j) + a_j f_j R_j`` (check share
``a_j``, fail rate ``f_j``, requalification seconds ``R_j``, as a schedule run draws them).
Their throughput is ``t_j = 3600 h_j d_j / e_j`` labels a week; every item needs ``k`` labels
from ``k`` different people, so nobody labels an item twice. The ``k`` labels of an item are
shared in proportion to throughput with that cap (water-filling):

``l_j = min(1, c t_j)``, with ``c`` such that ``sum_j l_j = k``,

so ``n`` items cost ``n sum_j l_j e_j / 3600`` labelling hours and
``n sum_j l_j e_j r_j / 3600`` (rate ``r_j``: their ``hourly_rate``, else the budget's,
:func:`~planner.operations.team.person_rate`, the rule a schedule run prices hours by).
The ``n c`` contested items (``c`` the contested share) are shared by the adjudicators in
proportion to theirs (``l_a = t_a / sum t``, at their own seconds, else the adjudication
seconds, and rate); without adjudicators they are billed at the budget's rate. Absences,
holidays, start and end dates and the time spread move who labels what in a schedule run;
this is the steady state, and ``schedule`` simulates the rest (a team where every person
labels every item, ``k = M``, is billed exactly).

:func:`study_budget` is the one budget of a plan's study, a pair's or several annotators':
through :func:`priced_budget`, the team's when the plan's settings carry a
:class:`TeamPricing`, else the single rate (:func:`planner.operations.budget.labelling_budget`);
a plan's budget and its recommendation's, the worst case, the stop rule and the items that
``--hours`` and ``--budget`` buy all use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from planner.errors import InvalidInput
from planner.operations.assignment import overlap_block
from planner.operations.budget import (
    SECONDS_PER_HOUR,
    Budget,
    labelling_budget,
    stratified_budget,
)
from planner.operations.team import Person, person_rate
from planner.sizing.label_patterns import contested_share
from planner.sizing.model import PairModel


@dataclass(frozen=True)
class PersonPrice:
    """One person of a priced team: busy seconds per task, rate and share of each item.

    ``share`` is the labels of an item this person gives (annotators; they add up to ``k``)
    or their share of the adjudicated items (adjudicators; they add up to 1).
    """

    name: str
    seconds_per_item: float
    hourly_rate: float | None
    share: float


@dataclass(frozen=True)
class TeamPricing:
    """A named team's price of items (module description): annotators and adjudicators.

    ``assignment`` is the schedule's policy: ``next-free`` shares the labels by throughput
    (``weekly``, labels a week each), ``balanced`` gives everyone ``k / M`` of them; either
    way the first items of the queue are the ``overlap`` block (rows of annotator indices,
    :func:`planner.operations.assignment.overlap_block`) assigned in advance, as a schedule
    run assigns them, and a person's labels are at least their block's and at most their
    block's plus every other item.
    """

    annotators: tuple[PersonPrice, ...]
    adjudicators: tuple[PersonPrice, ...] = ()
    labels_per_item: int = 2
    weekly: tuple[float, ...] = ()
    assignment: str = "next-free"
    overlap: tuple[tuple[int, ...], ...] = field(default=(), repr=False)

    def labels(self, items: int) -> np.ndarray:
        """Each annotator's labels of ``items`` items (block, then the policy's share)."""
        m, k = len(self.annotators), self.labels_per_item
        n = float(items)
        block = np.array(self.overlap[: int(items)], dtype=np.int64).reshape(-1, k)
        low = np.bincount(block.ravel(), minlength=m).astype(float)
        rest = n - len(block)
        if self.assignment == "balanced":  # round robin: label j of item i to (i k + j) mod M
            total, offset = int(rest) * k, (len(block) * k) % m
            extra = (np.arange(m) - offset) % m < total % m
            return low + total // m + extra
        high = low + rest
        weekly = np.asarray(self.weekly, dtype=float)
        lo, hi = 0.0, float(np.max(high / weekly)) + 1.0
        for _ in range(200):  # bisection on c: sum_j clip(c t_j, low_j, high_j) = k n
            c = (lo + hi) / 2
            if np.clip(c * weekly, low, high).sum() < k * n:
                lo = c
            else:
                hi = c
        return np.clip(hi * weekly, low, high)

    def item_seconds(self, contested_rate: float) -> tuple[float, float]:
        """Labelling and adjudication person-seconds of one item, in the steady state."""
        labelling = sum(p.share * p.seconds_per_item for p in self.annotators)
        adjudication = contested_rate * sum(p.share * p.seconds_per_item for p in self.adjudicators)
        return labelling, adjudication

    def item_cost(self, contested_rate: float) -> float | None:
        """The cost of one item in the steady state (None: someone who works has no rate)."""
        return replace(self, weekly=()).budget(1, self.labels_per_item, contested_rate).cost

    def summary(self) -> dict[str, Any]:
        """The people's seconds, rates and steady-state shares (the plan's JSON inputs)."""

        def rows(people: tuple[PersonPrice, ...]) -> list[dict[str, Any]]:
            return [
                {"name": p.name, "seconds_per_item": p.seconds_per_item,
                 "hourly_rate": p.hourly_rate, "share": p.share}
                for p in people
            ]  # fmt: skip

        return {
            "assignment": self.assignment,
            "overlap_items": len(self.overlap),
            "annotators": rows(self.annotators),
            "adjudicators": rows(self.adjudicators),
        }

    def budget(
        self, items: int, labels_per_item: int, contested_rate: float, time_scale: float = 1.0
    ) -> Budget:
        """The budget of ``items`` items (``labels_per_item`` is the team's ``k``); without
        ``weekly``, each person's steady-state share of every item. ``time_scale`` multiplies
        every label's seconds (a stratified design's mean seconds per item over the
        budget's: :func:`stratified_team_budget`)."""
        labels = self.labels(items) if self.weekly else None
        shares = [p.share * items for p in self.annotators] if labels is None else labels
        seconds = [
            x * p.seconds_per_item * time_scale
            for x, p in zip(shares, self.annotators, strict=True)
        ]
        judged = [items * contested_rate * p.share * p.seconds_per_item for p in self.adjudicators]
        paid = [
            (s, p.hourly_rate)
            for s, p in zip(
                [*seconds, *judged], [*self.annotators, *self.adjudicators], strict=True
            )
            if s > 0
        ]
        unpriced = any(rate is None for _, rate in paid)
        labelling, adjudication = sum(seconds), sum(judged)
        return Budget(
            items=int(items),
            labels=int(items) * int(labels_per_item),
            labelling_hours=labelling / SECONDS_PER_HOUR,
            contested_items=items * contested_rate,
            adjudication_hours=adjudication / SECONDS_PER_HOUR,
            person_hours=(labelling + adjudication) / SECONDS_PER_HOUR,
            cost=None if unpriced else sum(s * (r or 0.0) for s, r in paid) / SECONDS_PER_HOUR,
        )

    def most_items(self, limit: float, unit: str, contested_rate: float, guess: int) -> int:
        """The most items whose ``unit`` (``person_hours`` or ``cost``) stays within ``limit``
        (bisection over items; ``guess`` is the steady state's answer)."""
        lo, hi = 0, max(2 * guess, guess + len(self.overlap)) + 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            value = getattr(self.budget(mid, self.labels_per_item, contested_rate), unit)
            lo, hi = (mid, hi) if value <= limit * (1 + 1e-12) else (lo, mid)
        return lo


def stratified_team_budget(
    pricing: TeamPricing,
    items_per_stratum: list[int],
    seconds_per_item: list[float],
    contested_rate: list[float],
    budget_seconds: float,
) -> Budget:
    """The budget of a stratified design labelled by a named team, person by person.

    The team labels ``N = sum_h n_h`` items, person ``j`` giving ``L_j``
    (:meth:`TeamPricing.labels`: overlap block, then the assignment's share); a stratum's
    time scales by the person's ratio to the budget's seconds ``s`` (as a schedule run scales
    it), and their labels fall on the strata as the items do, so person ``j`` works
    ``L_j e_j (sum_h n_h s_h / N) / s / 3600`` hours at their rate. The ``sum_h n_h c_h``
    contested items are adjudicated as :meth:`TeamPricing.budget` adjudicates them.
    """
    items = [int(n) for n in items_per_stratum]
    total = sum(items)
    if total <= 0:
        return replace(pricing, weekly=()).budget(0, pricing.labels_per_item, 0.0)
    mean_seconds = sum(n * s for n, s in zip(items, seconds_per_item, strict=True)) / total
    contested = sum(n * c for n, c in zip(items, contested_rate, strict=True)) / total
    return pricing.budget(
        total, pricing.labels_per_item, contested, time_scale=mean_seconds / budget_seconds
    )


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
        over = {j for j in free if c * throughput[j] > n * (1 + 1e-12)}
        if not over:
            return [n if j in capped else c * throughput[j] for j in range(len(throughput))]
        capped |= over


def _busy_seconds(person: Person, seconds: float) -> float:
    """Expected busy seconds of one label: the label, attention checks and requalification."""
    check = person.attention_check_share
    requal = person.attention_fail_rate * person.requalification_hours * SECONDS_PER_HOUR
    return seconds * (1 + check) + check * requal


def _weekly(person: Person) -> float:
    return SECONDS_PER_HOUR * person.hours_per_day * len(person.days)


def team_pricing(
    annotators: tuple[Person, ...],
    labels_per_item: int,
    seconds_per_item: float,
    *,
    adjudicators: tuple[Person, ...] = (),
    adjudication_seconds: float = 0.0,
    hourly_rate: float | None = None,
    assignment: str = "next-free",
    min_shared_items: int = 0,
) -> TeamPricing:
    """The price of items by a named team (module description).

    Parameters
    ----------
    annotators, adjudicators
        The people (:class:`~planner.operations.team.Person`); without adjudicators,
        adjudication is billed at ``hourly_rate``.
    labels_per_item
        ``k``, labels from different annotators per item (at most the team's size).
    seconds_per_item, adjudication_seconds
        The budget's seconds, for people who give none.
    hourly_rate
        The budget's rate, for people who give none (None: no cost for them).
    assignment, min_shared_items
        The schedule's policy (``next-free`` or ``balanced``) and the items every pair of
        annotators shares (the overlap block assigned first; 0: none).

    Examples
    --------
    Two people label every item, 30 s at 50 an hour and 60 s at 30 an hour; as a plan's
    ``PlanSettings(team=...)`` this prices every item of the plan, a pair's or several
    annotators':

    >>> from planner import Person
    >>> people = (Person("ana", seconds_per_item=30, hourly_rate=50),
    ...           Person("bo", seconds_per_item=60, hourly_rate=30))
    >>> round(team_pricing(people, 2, 60.0).item_cost(0.0), 4)   # (30 x 50 + 60 x 30) / 3600
    0.9167
    """
    busy = [_busy_seconds(p, p.seconds_per_item or seconds_per_item) for p in annotators]
    weekly = [_weekly(p) / e for p, e in zip(annotators, busy, strict=True)]
    k, m = int(labels_per_item), len(annotators)
    shares = label_shares(weekly, 1, k) if assignment == "next-free" else [k / m] * m
    priced = tuple(
        PersonPrice(p.name, e, person_rate(p, hourly_rate), share)
        for p, e, share in zip(annotators, busy, shares, strict=True)
    )
    block = overlap_block(m, k, int(min_shared_items), 10**9)
    common = {
        "labels_per_item": k,
        "weekly": tuple(weekly),
        "assignment": assignment,
        "overlap": tuple(tuple(int(a) for a in row) for row in block),
    }
    if not adjudicators or adjudication_seconds <= 0:
        judge = PersonPrice("adjudication", adjudication_seconds, hourly_rate, 1.0)
        return TeamPricing(priced, (judge,), **common)  # type: ignore[arg-type]
    seconds = [p.seconds_per_item or adjudication_seconds for p in adjudicators]
    speed = [_weekly(p) / s for p, s in zip(adjudicators, seconds, strict=True)]
    judges = tuple(
        PersonPrice(p.name, s, person_rate(p, hourly_rate), t / sum(speed))
        for p, s, t in zip(adjudicators, seconds, speed, strict=True)
    )
    return TeamPricing(priced, judges, **common)  # type: ignore[arg-type]


def priced_budget(
    settings: Any, items: float, contested_rate: float, labels_per_item: int | None = None
) -> Budget:
    """The budget of ``ceil(items)`` items at ``settings``' costs: its named team's
    (``settings.team``, a :class:`TeamPricing`) or the single rate.

    ``settings`` has ``annotators_per_item``, ``seconds_per_item``, ``adjudication_seconds``,
    ``hourly_rate`` and ``team`` (:class:`planner.sizing.plan.PlanSettings`);
    ``labels_per_item`` replaces its ``annotators_per_item`` (several annotators' ``k``).

    Raises
    ------
    InvalidInput
        ``team`` was priced for another number of labels an item than ``k``.
    """
    n = int(math.ceil(items))
    k = settings.annotators_per_item if labels_per_item is None else int(labels_per_item)
    team = getattr(settings, "team", None)
    if team is not None:
        _check_team_labels(team, k)
        return team.budget(n, k, contested_rate)
    return labelling_budget(
        n,
        annotators_per_item=k,
        seconds_per_item=settings.seconds_per_item,
        contested_rate=contested_rate,
        adjudication_seconds=settings.adjudication_seconds,
        hourly_rate=settings.hourly_rate,
    )


def priced_strata_budget(
    settings: Any,
    items_per_stratum: Any,
    seconds_per_item: Any,
    contested_rate: Any,
) -> Budget:
    """The budget of ``n_h`` items in each stratum at ``settings``' costs: its named team's
    (:func:`stratified_team_budget`) or the single rate
    (:func:`planner.operations.budget.stratified_budget`).

    ``settings`` is as for :func:`priced_budget`, its ``annotators_per_item`` the study's
    ``k``; ``seconds_per_item`` and ``contested_rate`` hold each stratum's seconds per item
    and contested share.

    Raises
    ------
    InvalidInput
        ``team`` was priced for another number of labels an item than ``k``.
    """
    items = [int(n) for n in np.asarray(items_per_stratum).ravel()]
    seconds = [float(x) for x in np.asarray(seconds_per_item).ravel()]
    contested = [float(x) for x in np.asarray(contested_rate).ravel()]
    team = getattr(settings, "team", None)
    if team is not None:
        _check_team_labels(team, settings.annotators_per_item)
        return stratified_team_budget(team, items, seconds, contested, settings.seconds_per_item)
    return stratified_budget(
        items, seconds, contested, annotators_per_item=settings.annotators_per_item,
        adjudication_seconds=settings.adjudication_seconds, hourly_rate=settings.hourly_rate,
    )  # fmt: skip


def _check_team_labels(team: TeamPricing, labels_per_item: int) -> None:
    """Refuse a team priced for another number of labels an item than the study's."""
    if team.labels_per_item != labels_per_item:
        raise InvalidInput(
            f"team is priced for {team.labels_per_item} labels an item but the study gives "
            f"each item {labels_per_item}: price the team with labels_per_item="
            f"{labels_per_item} (team_pricing)",
            parameter="team",
            value=team.labels_per_item,
            rule=f"a team priced for {labels_per_item} labels an item",
        )


def study_budget(model: Any, settings: Any, items: float) -> Budget:
    """The budget of ``ceil(items)`` items of a plan's study, a pair's or several annotators'.

    Every item gets the study's ``k`` labels (a pair's ``settings.annotators_per_item``;
    several annotators' ``settings.per_item``, else all ``M``), and its expected share ``c``
    of contested items is adjudicated: a pair's ``p_b + p_c``, several annotators' share of
    items whose labels do not all agree
    (:func:`planner.sizing.label_patterns.contested_share`). The budget bills them at
    ``settings``' costs, a named team's person by person or the single rate
    (:func:`priced_budget`), so ``contested_items = n c`` whether or not an adjudication
    takes time.
    """
    if isinstance(model, PairModel):
        return priced_budget(settings, items, model.contested_rate)
    per_item = settings.per_item
    k = model.n_annotators if per_item is None else per_item
    return priced_budget(settings, items, contested_share(model, per_item), labels_per_item=k)
