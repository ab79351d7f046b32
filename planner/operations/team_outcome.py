"""What a named team's schedule answers: finish dates, the odds of a deadline, who does what,
what it costs, who the bottleneck is (:func:`simulate_team`).

Over the runs: the finish (the calendar day of the last task) at its 10th, 50th and 90th
percentiles, as ISO dates when the team has a ``start``; ``P(finish by deadline)`` is the share
of runs whose finish day is on or before the deadline. Per person (means over runs): items
labelled (adjudicated), labels (items plus attention checks), hours (busy time: labels, checks,
requalification), utilisation (hours over the working hours their calendar offered from the
start to the finish day) and cost (hours times their rate). The total cost is the sum over
people of hours times rate, per run (median reported). The bottleneck is the person whose task
ended last, in most runs (with that share of runs).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from planner.errors import InvalidInput, PlannerError
from planner.operations.calendar import date_of, day_of
from planner.operations.team import Person
from planner.operations.team_schedule import (
    BATCH_RUNS,
    MAX_HORIZON_DAYS,
    BatchRuns,
    Labelling,
    People,
    TeamOperation,
    horizon_guess,
    rate_of,
    reduce_block,
)
from planner.operations.workload import Operation, ScheduleResult, _Burndown
from planner.validation import RULES, RngLike, check, check_choice, seed_from


def _check_people(op: TeamOperation, ann: People, adj: People, horizon: int) -> None:
    """Refuse a person with no working day in the horizon (days, absences, start and end)."""
    for role, people in (("annotators", ann), ("adjudicators", adj)):
        if not people.people:
            continue
        worked = people.day_seconds(op.team, horizon).sum(axis=1)
        for person, seconds in zip(people.people, worked, strict=True):
            if seconds <= 0:
                raise InvalidInput(
                    f"{role}: {person.name} has no working day in the first {horizon:,} days "
                    "(check their days, absent, start and end, and the holidays)",
                    parameter=role,
                )


def simulate_team_blocks(
    op: TeamOperation,
    runs: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "auto",
) -> tuple[list[BatchRuns], int]:
    """Every block of runs (:data:`BATCH_RUNS` each, :data:`FAST_BATCH_RUNS` for the fast
    computation) and the horizon they needed.

    ``engine``: ``events`` (the step-by-step event model), ``fast`` (the calendar-time
    computation, :mod:`planner.operations.team_fast`) or ``auto``: the event model up to
    :data:`EVENT_STEPS` label steps per block of runs, else the fast one (a balanced team has
    no interaction between annotators, and takes the event model).

    Block ``b`` draws from the ``b``-th child of ``SeedSequence(seed)``; a block that runs past
    the horizon is simulated again, with the same draws, over twice the days.

    Raises
    ------
    InvalidInput
        A person with no working day, or a team that cannot finish within
        :data:`MAX_HORIZON_DAYS` (fewer than ``labels_per_item`` annotators left).
    PlannerError
        People left with items still open and fewer than ``labels_per_item`` stay to the
        end (the message names who left when).
    """
    ann = People.of(op.team.annotators, op.budget_seconds, op.budget_seconds)
    adj = People.of(op.team.adjudicators, op.adjudication_seconds, 1.0)
    horizon = horizon_guess(op, ann)
    _check_people(op, ann, adj, horizon)
    check_choice("engine", engine, ENGINES)
    labels = op.n_items * op.labels_per_item
    fast = engine == "fast" or (
        engine == "auto" and op.team.assignment == "next-free" and labels > EVENT_STEPS
    )
    block = FAST_BATCH_RUNS if fast else BATCH_RUNS
    streams = np.random.SeedSequence(seed).spawn(-(-runs // block))
    blocks: list[BatchRuns] = []
    for b, stream in enumerate(streams):
        size = min(block, runs - b * block)

        def tick(share: float, b: int = b, size: int = size) -> None:
            if progress is not None:
                progress(b * block + int(share * size), runs)

        retried = False
        while True:
            rng = np.random.default_rng(stream)
            labelled = _label_block(op, ann, size, horizon, rng, fast, tick)
            out = None if labelled is None else reduce_block(labelled, op, adj, horizon, rng)
            if out is not None:
                break
            if retried:
                _refuse_when_too_few_stay(op)
            retried = True
            if horizon >= MAX_HORIZON_DAYS:
                raise InvalidInput(
                    f"the team cannot finish the {op.n_items:,} items within "
                    f"{MAX_HORIZON_DAYS:,} days: each item needs {op.labels_per_item} distinct "
                    "annotators, and too few remain available (check the end dates, the "
                    "absences and the annotators per item)"
                )
            horizon = min(MAX_HORIZON_DAYS, 2 * horizon)
        blocks.append(out)
        tick(1.0)
    return blocks, horizon


def _refuse_when_too_few_stay(op: TeamOperation) -> None:
    """Refuse, naming who left when, a run that did not finish over twice the days it should
    have taken while fewer than ``labels_per_item`` annotators stay to the end: the items the
    leavers did not label cannot get their distinct annotators."""
    k = op.labels_per_item
    people = op.team.annotators
    stay = [p.name for p in people if p.end is None]
    left = [f"{p.name} (last day {p.end})" for p in people if p.end is not None]
    if len(stay) >= k or not left:
        return
    verb = "stays" if len(stay) == 1 else "stay"
    rest = f"only {', '.join(stay)} {verb}" if stay else "no one stays"
    raise PlannerError(
        f"the team cannot finish the {op.n_items:,} items: each needs {k} distinct annotators, "
        f"{' and '.join(left) if len(left) < 3 else ', '.join(left)} left with items still "
        f"open, and {rest} (give later end dates, more people, or fewer annotators per item)"
    )


ENGINES = ("auto", "events", "fast")
FAST_BATCH_RUNS = 100
"""Runs the fast computation steps through together (its steps cost little more for more)."""
EVENT_STEPS = 20_000
"""Label steps per block up to which ``auto`` takes the step-by-step event model."""


def _label_block(op, ann, size, horizon, rng, fast, tick):  # type: ignore[no-untyped-def]
    """One block's labelling by the chosen engine (None: the horizon was too short)."""
    if fast:
        from planner.operations.team_fast import fast_block

        return fast_block(op, ann, size, horizon, rng, tick)
    lab = Labelling(op, ann, size, horizon, rng)
    return lab.labelled() if lab.run(tick) else None


@dataclass(frozen=True)
class PersonRow:
    """One person's share of the work, means over runs (``cost`` None: no rate)."""

    name: str
    role: str
    items: float
    labels: float
    hours: float
    utilisation: float
    cost: float | None


@dataclass(frozen=True)
class TeamOutcome:
    """A named team's schedule over runs (see the module's description).

    ``finish_days`` are calendar days from the first (day 1) to the finish day, at p10, p50
    and p90; ``finish_dates`` the same as ISO dates (None without ``start``).
    """

    start: dt.date | None
    finish_days: dict[str, float]
    finish_dates: dict[str, str] | None
    deadline: dt.date | None
    p_deadline: float | None
    annotators: tuple[PersonRow, ...]
    adjudicators: tuple[PersonRow, ...]
    cost_median: float | None
    cost_p90: float | None
    bottleneck: str
    bottleneck_share: float
    assignment: str
    min_shared_items: int
    min_shared_reached: int
    finish_by_run: np.ndarray = field(repr=False)
    shifts: dict[str, tuple[float, ...]] = field(default_factory=dict, repr=False)
    """Each annotator's working hours on each day up to the latest finish (their calendar:
    weekdays, absences, holidays, own start and end; attrition not included)."""
    short_pairs: tuple[tuple[str, str, int], ...] = ()
    """The pairs that share fewer than ``min_shared_items`` items in some run, with the
    fewest they share (a leaver gave back overlap-block items before labelling them)."""


_QUANTILES = {"p10": 0.1, "p50": 0.5, "p90": 0.9}


def _rows(
    people: tuple[Person, ...],
    role: str,
    op: TeamOperation,
    busy: np.ndarray,
    items: np.ndarray,
    labels: np.ndarray,
    available: np.ndarray,
) -> tuple[PersonRow, ...]:
    rows = []
    for j, person in enumerate(people):
        hours = float(busy[:, j].mean()) / 3600
        rate = rate_of(person, op)
        offered = available[:, j]
        use = np.where(offered > 0, busy[:, j] / np.maximum(offered, 1e-9), np.nan)
        rows.append(
            PersonRow(
                name=person.name,
                role=role,
                items=float(items[:, j].mean()),
                labels=float(labels[:, j].mean()),
                hours=hours,
                utilisation=float(np.nanmean(use)) if np.isfinite(use).any() else float("nan"),
                cost=None if rate is None else hours * rate,
            )
        )
    return tuple(rows)


def _costs(op: TeamOperation, busy: np.ndarray, adj_busy: np.ndarray) -> np.ndarray | None:
    """Each run's total cost, or None when someone who worked has no rate."""
    rates = [rate_of(p, op) for p in (*op.team.annotators, *op.team.adjudicators)]
    seconds = np.concatenate([busy, adj_busy], axis=1)
    worked = seconds.sum(axis=0) > 0
    if any(r is None and w for r, w in zip(rates, worked, strict=True)):
        return None
    prices = np.array([0.0 if r is None else r for r in rates])
    return np.asarray(seconds @ prices / 3600)


def _representative(op: TeamOperation) -> Operation:
    """The uniform operation with the team's averages (the JSON ``operation`` keys)."""
    people = op.team.annotators
    return Operation(
        items_per_stratum=op.items_per_stratum,
        seconds_per_item=op.seconds_per_item,
        contested_rate=op.contested_rate,
        labels_per_item=op.labels_per_item,
        annotators=len(people),
        hours_per_day=float(np.mean([p.hours_per_day for p in people])),
        days_per_week=int(round(float(np.mean([len(p.days) for p in people])))),
        time_spread=float(np.mean([p.time_spread for p in people])),
        adjudicators=len(op.team.adjudicators),
        adjudication_seconds=op.adjudication_seconds if op.team.adjudicators else 0.0,
        hourly_rate=op.hourly_rate,
    )


def _deadline_share(
    op: TeamOperation, finish_day: np.ndarray, deadline: dt.date | None
) -> float | None:
    if deadline is None:
        return None
    start = op.team.start
    if start is None:
        raise InvalidInput(
            "deadline needs the team's start date (team.start) to count days to it",
            parameter="deadline",
        )
    if deadline < start:
        raise InvalidInput(
            f"deadline must be on or after the start {start}, got {deadline}",
            parameter="deadline",
        )
    return float(np.mean(finish_day <= day_of(start, deadline)))


def simulate_team(
    op: TeamOperation,
    *,
    runs: int = 200,
    rng: RngLike = None,
    deadline: dt.date | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "auto",
) -> ScheduleResult:
    """Simulate a named team's operation ``runs`` times; the schedule with its team outcome.

    Parameters
    ----------
    op
        The work and the team.
    runs
        Independent runs (:data:`planner.validation.RULES` ``runs``).
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed is recorded.
    deadline
        A date: ``P(finish by deadline)`` is the share of runs whose finish day is on or
        before it (needs the team's start; a deadline before it is refused).
    progress
        Called as ``progress(done, runs)``.
    engine
        ``auto``, ``events`` or ``fast`` (:func:`simulate_team_blocks`).
    """
    runs = check("runs", runs, RULES["runs"])
    seed = seed_from(rng)
    if deadline is not None:
        _deadline_share(op, np.zeros(1), deadline)  # refuse a bad deadline before the work
    blocks, _ = simulate_team_blocks(op, runs, seed, progress, engine)
    return _summarise(op, blocks, seed, deadline)


def _shifts(op: TeamOperation, days: int) -> dict[str, tuple[float, ...]]:
    """Each annotator's shift hours on days ``0 .. days - 1``."""
    from planner.operations.team_schedule import People

    people = People.of(op.team.annotators, op.budget_seconds, op.budget_seconds)
    hours = people.day_seconds(op.team, days) / 3600
    return {
        p.name: tuple(float(h) for h in row) for p, row in zip(people.people, hours, strict=True)
    }


def _stack(blocks: list[BatchRuns], name: str) -> np.ndarray:
    return np.concatenate([getattr(b, name) for b in blocks])


def _summarise(
    op: TeamOperation, blocks: list[BatchRuns], seed: int, deadline: dt.date | None
) -> ScheduleResult:
    finish = _stack(blocks, "finish")
    day = np.ceil(finish).astype(np.int64) - 1
    days = (day + 1).astype(float)
    busy, adj_busy = _stack(blocks, "busy"), _stack(blocks, "adjudicator_busy")
    items, checks = _stack(blocks, "items"), _stack(blocks, "checks")
    hours = (busy.sum(axis=1) + adj_busy.sum(axis=1)) / 3600
    available = _stack(blocks, "available")
    adj_available = _stack(blocks, "adjudicator_available")
    costs = _costs(op, busy, adj_busy)
    last = [name for b in blocks for name in b.last_person]
    (bottleneck, count), *_ = Counter(last).most_common(1)
    burndown = _Burndown(op.n_items)
    for b in blocks:
        for curve in b.finished_days:
            burndown.add(curve)
    start = op.team.start
    outcome = TeamOutcome(
        start=start,
        finish_days={
            k: float(np.quantile(days, q, method="inverted_cdf")) for k, q in _QUANTILES.items()
        },
        finish_dates=None
        if start is None
        else {
            k: date_of(start, np.quantile(day, q, method="inverted_cdf")).isoformat()
            for k, q in _QUANTILES.items()
        },
        deadline=deadline,
        p_deadline=_deadline_share(op, day, deadline),
        annotators=_rows(
            op.team.annotators, "annotator", op, busy, items, items + checks, available
        ),
        adjudicators=_rows(
            op.team.adjudicators,
            "adjudicator",
            op,
            adj_busy,
            _stack(blocks, "adjudicator_items"),
            _stack(blocks, "adjudicator_items"),
            adj_available,
        ),
        cost_median=None if costs is None else float(np.median(costs)),
        cost_p90=None if costs is None else float(np.quantile(costs, 0.9)),
        bottleneck=bottleneck,
        bottleneck_share=count / len(last),
        assignment=op.team.assignment,
        min_shared_items=op.team.min_shared_items,
        min_shared_reached=int(_stack(blocks, "min_shared").min()),
        finish_by_run=day,
        shifts=_shifts(op, int(day.max()) + 1),
        short_pairs=_short_pairs(op, blocks),
    )
    util = busy.sum(axis=1) / np.maximum(available.sum(axis=1), 1e-9)
    adj_util = (
        float(np.mean(adj_busy.sum(axis=1) / np.maximum(adj_available.sum(axis=1), 1e-9)))
        if op.team.adjudicators
        else float("nan")
    )
    curves = burndown.summary()
    return ScheduleResult(
        operation=_representative(op),
        runs=len(finish),
        calendar_days_median=float(np.median(days)),
        calendar_days_p90=float(np.quantile(days, 0.9)),
        person_hours_median=float(np.median(hours)),
        person_hours_p90=float(np.quantile(hours, 0.9)),
        annotator_utilisation=float(np.mean(util)),
        adjudicator_utilisation=adj_util,
        cost_median=outcome.cost_median,
        analytic_person_hours=float("nan"),
        burndown_days=curves["burndown_days"],
        burndown_median=curves["burndown_median"],
        burndown_p10=curves["burndown_p10"],
        burndown_p90=curves["burndown_p90"],
        seed=seed,
        team=outcome,
    ).with_notes(_short_note(outcome, any(p.end for p in op.team.annotators)))


def _short_pairs(op: TeamOperation, blocks: list[BatchRuns]) -> tuple[tuple[str, str, int], ...]:
    """Pairs sharing fewer than the asked items in some run, fewest first, with that fewest."""
    asked, people = op.team.min_shared_items, op.team.annotators
    if asked <= 0 or op.labels_per_item >= len(people) or op.labels_per_item < 2:
        return ()  # no overlap block: every pair shares every item, or no pair
    fewest = np.min(np.stack([b.pair_min for b in blocks]), axis=0)
    a, b = np.nonzero(np.triu(fewest < asked, 1))
    pairs = sorted(zip(fewest[a, b].tolist(), a.tolist(), b.tolist(), strict=True))
    return tuple((people[i].name, people[j].name, int(c)) for c, i, j in pairs)


def _short_note(outcome: TeamOutcome, left: bool) -> list[str]:
    """One note naming the pairs short of the asked shared items (none when all reach it);
    ``left``: someone has an end date (else the items were too few for the overlap block)."""
    if not outcome.short_pairs:
        return []
    why = (
        "someone left before labelling their overlap-block items (they went back to the "
        "queue for the others)"
        if left
        else "the items are too few for the overlap block"
    )
    shown = [f"{a}-{b} {c:,}" for a, b, c in outcome.short_pairs[:6]]
    more = len(outcome.short_pairs) - len(shown)
    tail = f" and {more} more pair(s)" if more > 0 else ""
    return [
        f"items shared: {len(outcome.short_pairs)} pair(s) share fewer than the "
        f"{outcome.min_shared_items:,} asked in some run (fewest: {', '.join(shown)}{tail}); "
        f"the minimum reached is {outcome.min_shared_reached:,}, since {why}"
    ]
