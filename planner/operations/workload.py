"""The labelling operation as a discrete-event simulation (SimPy): from items to calendar.

A team of annotators works the same shifts (``hours_per_day`` on ``days_per_week`` days).
Each item is labelled by ``labels_per_item`` distinct annotators (assigned round-robin, so
work is balanced and no annotator labels an item twice); a share of extra attention-check
items is interleaved; an annotator who fails a check stops for requalification. Items whose
labels disagree go to an adjudicator once all their labels are in. Times per item are
lognormal around the mean seconds (``time_spread`` is the log-scale sigma; the mean is kept).

The simulation runs on the *working clock* (seconds of shift time); since everyone shares
the shifts, calendar time follows exactly: ``w`` working seconds take
``ceil(w / shift)`` working days, which the week pattern turns into calendar days.

An annotator never waits for anyone: their tasks are fixed in advance, so the time each
label is finished is the running sum of their task times (with numpy, as SimPy would step
through them one timeout at a time). The adjudicators share one queue of contested items
that arrive as their last label is in; that queue, where people do wait, is the SimPy
model. Each run gets a fresh :class:`simpy.Environment` and its own random stream spawned
from the seed, and is reduced at once to a few numbers and its burn-down on a common grid
of at most :data:`BURNDOWN_POINTS` calendar days, so memory is O(runs + items); results
over runs give medians and 90th percentiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from planner.data.scenario import TEAM_DEFAULTS, TEAM_KEYS
from planner.errors import InvalidInput
from planner.operations.budget import (
    SECONDS_PER_HOUR,
    adjudication_hours,
    contested_items,
    labelling_hours,
)
from planner.validation import RULES, RngLike, check, seed_from, shown

if TYPE_CHECKING:
    from planner.operations.team_outcome import TeamOutcome

MAX_LABELS_PER_RUN = 20_000_000
"""Items x labels per item one run may hold (its task times are in memory together)."""
MAX_STEPS = 500_000_000
"""Runs x steps per run one schedule may simulate (its time is linear in them, ~0.2 us a
step): a label is one step, an adjudicated item :data:`ADJUDICATION_STEPS` (SimPy events)
and, with attention checks, an annotator :data:`ANNOTATOR_STEPS` (drawn one at a time)."""
ADJUDICATION_STEPS = 20
ANNOTATOR_STEPS = 200
MAX_WORKING_DAYS = 1_000_000
"""Longest operation simulated, in expected working days of one annotator or adjudicator."""
BURNDOWN_POINTS = 512
"""Most calendar days kept per burn-down curve; longer schedules use a coarser step."""

_SCALARS = (
    *(key for key in TEAM_KEYS if key != "runs"),
    "adjudication_seconds",
    "labels_per_item",
)
_PER_STRATUM = ("items_per_stratum", "seconds_per_item", "contested_rate")


@dataclass(frozen=True)
class Operation:
    """Parameters of the labelling operation, validated (and converted) on creation.

    Attributes
    ----------
    items_per_stratum, seconds_per_item, contested_rate
        Items to label, mean seconds per label and share of contested items, per stratum.
    labels_per_item
        Distinct annotators per item.
    annotators, hours_per_day, days_per_week
        The team and its shifts.
    time_spread
        Sigma of the lognormal time per label (0: fixed times).
    attention_check_share, attention_fail_rate, requalification_hours
        Extra check items (as a share of labels), the chance of failing one, and the time
        an annotator then spends requalifying.
    adjudicators, adjudication_seconds
        Adjudicators and mean seconds per contested item (0 adjudicators: none).
    hourly_rate
        Cost of a person-hour (all roles), or None.

    Raises
    ------
    InvalidInput
        A value outside its rule (:data:`planner.validation.RULES`, named by the parameter),
        per-stratum tuples of different lengths, fewer annotators than labels per item, or
        an operation too large to simulate (:data:`MAX_LABELS_PER_RUN`,
        :data:`MAX_WORKING_DAYS`).
    """

    items_per_stratum: tuple[int, ...]
    seconds_per_item: tuple[float, ...]
    contested_rate: tuple[float, ...]
    labels_per_item: int = 2
    annotators: int = int(TEAM_DEFAULTS["annotators"])
    hours_per_day: float = TEAM_DEFAULTS["hours_per_day"]
    days_per_week: int = int(TEAM_DEFAULTS["days_per_week"])
    time_spread: float = TEAM_DEFAULTS["time_spread"]
    attention_check_share: float = TEAM_DEFAULTS["attention_check_share"]
    attention_fail_rate: float = TEAM_DEFAULTS["attention_fail_rate"]
    requalification_hours: float = TEAM_DEFAULTS["requalification_hours"]
    adjudicators: int = int(TEAM_DEFAULTS["adjudicators"])
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None

    def __post_init__(self) -> None:
        for name, value in _checked_fields(self).items():
            object.__setattr__(self, name, value)
        _check_size(self)

    @property
    def shift_seconds(self) -> float:
        return self.hours_per_day * SECONDS_PER_HOUR


def _checked_fields(op: Operation) -> dict[str, Any]:
    """Every field checked against its rule in :data:`RULES`, converted to int/float."""
    out: dict[str, Any] = {}
    for name in _PER_STRATUM:
        values = getattr(op, name)
        if isinstance(values, str) or not isinstance(values, tuple | list | np.ndarray):
            raise InvalidInput(
                f"{name} must be a sequence with one value per stratum, got {shown(values)}",
                parameter=name,
            )
        out[name] = tuple(check(name, v, RULES[name]) for v in values)
    lengths = {name: len(out[name]) for name in _PER_STRATUM}
    if len(set(lengths.values())) != 1 or not lengths["items_per_stratum"]:
        raise InvalidInput(
            "items_per_stratum, seconds_per_item and contested_rate need one value per "
            "stratum each, got " + ", ".join(f"{n} values" for n in lengths.values())
        )
    check("items_per_stratum in total", sum(out["items_per_stratum"]), RULES["items"])
    for name in _SCALARS:
        out[name] = check(name, getattr(op, name), RULES[name])
    if op.hourly_rate is not None:
        out["hourly_rate"] = check("hourly_rate", op.hourly_rate, RULES["hourly_rate"])
    if out["labels_per_item"] > out["annotators"]:
        raise InvalidInput(
            f"annotators must be at least the {out['labels_per_item']} distinct annotators "
            f"each item needs, got {out['annotators']}",
            parameter="annotators",
        )
    contested = any(rate > 0 for rate in op.contested_rate)
    if out["adjudicators"] == 0 and out["adjudication_seconds"] > 0 and contested:
        raise InvalidInput(
            f"adjudicators must be at least 1 when contested items take "
            f"{out['adjudication_seconds']:g} s each to adjudicate, got 0 (or give no "
            "adjudication time)",
            parameter="adjudicators",
        )
    return out


# what an operation's working days depend on, named in the message that bounds them
_TIME_PARAMETERS = (
    "seconds_per_item", "adjudication_seconds", "requalification_hours", "annotators",
    "adjudicators", "hours_per_day",
)  # fmt: skip


def _check_size(op: Operation) -> None:
    """Refuse an operation one run could not hold in memory or finish in bounded time."""
    n_items = sum(op.items_per_stratum)
    labels = n_items * op.labels_per_item
    if labels > MAX_LABELS_PER_RUN:
        raise InvalidInput(
            f"items x annotators per item must be at most {MAX_LABELS_PER_RUN:,} (the labels "
            f"one run holds), got {n_items:,} x {op.labels_per_item} = {labels:,}"
        )
    hours = _hours(op)
    per_person = max(
        (hours["labels"] + hours["checks"] + hours["requalification"]) / op.annotators,
        hours["adjudication"] / max(op.adjudicators, 1),
    )
    days = per_person / op.hours_per_day
    if not days <= MAX_WORKING_DAYS:
        raise InvalidInput(
            f"the operation would take about {days:.3g} working days of one person, more than "
            f"the {MAX_WORKING_DAYS:,} the schedule simulates; check seconds_per_item, "
            "adjudication_seconds, requalification_hours, annotators, adjudicators and "
            "hours_per_day",
            parameters=_TIME_PARAMETERS,
        )
    if op.hourly_rate is not None and not math.isfinite(100 * sum(hours.values()) * op.hourly_rate):
        raise InvalidInput(
            f"hourly_rate {shown(op.hourly_rate)} makes the cost of the operation overflow",
            parameter="hourly_rate",
        )


@dataclass(frozen=True)
class RunRecord:
    """One simulated run, reduced to its totals (its burn-down goes to the common grid)."""

    working_seconds: float
    calendar_days: float
    annotator_busy_seconds: float
    adjudicator_busy_seconds: float
    requalification_seconds: float


@dataclass(frozen=True)
class ScheduleResult:
    """Summary over runs.

    ``burndown_days`` are calendar days 0, s, 2s, ... (step s = 1 unless the schedule is
    longer than :data:`BURNDOWN_POINTS` days); the curves give the share of items still
    open on each. ``notes`` say which given options had no effect. A named team's schedule
    (:func:`planner.operations.team_outcome.simulate_team`) carries its dates, people and
    costs in ``team``; its ``operation`` holds the team's averages.
    """

    operation: Operation
    runs: int
    calendar_days_median: float
    calendar_days_p90: float
    person_hours_median: float
    person_hours_p90: float
    annotator_utilisation: float
    adjudicator_utilisation: float
    cost_median: float | None
    analytic_person_hours: float
    burndown_days: list[float]
    burndown_median: list[float]
    burndown_p10: list[float]
    burndown_p90: list[float]
    seed: int
    records: list[RunRecord] = field(default_factory=list, repr=False)
    notes: tuple[str, ...] = ()
    team: TeamOutcome | None = None
    """A named team's outcome (:class:`planner.operations.team_outcome.TeamOutcome`), or None."""

    def with_notes(self, notes: list[str] | tuple[str, ...]) -> ScheduleResult:
        """The same result with ``notes`` added."""
        return replace(self, notes=self.notes + tuple(notes))


def calendar_days(working_seconds: float, shift_seconds: float, days_per_week: int) -> float:
    """Calendar days to put in ``working_seconds`` of shift time.

    Working days ``d = ceil(w / shift)``; the last is a partial day counted whole. Calendar
    days are ``7 * floor((d - 1) / days_per_week) + (d - 1) % days_per_week + 1``.

    >>> calendar_days(9000, 4 * 3600, 5), calendar_days(6 * 4 * 3600, 4 * 3600, 5)
    (1, 8)
    """
    if working_seconds <= 0:
        return 0
    worked = max(1, math.ceil(working_seconds / shift_seconds - 1e-9))  # any work: a day
    weeks, rest = divmod(worked - 1, days_per_week)
    return 7 * weeks + rest + 1


def _calendar_days_of(working_seconds: np.ndarray, op: Operation) -> np.ndarray:
    """:func:`calendar_days` of each working-clock time, as int64."""
    worked = np.ceil(working_seconds / op.shift_seconds - 1e-9).astype(np.int64)
    weeks, rest = np.divmod(np.maximum(worked, 1) - 1, op.days_per_week)
    return np.where(worked > 0, 7 * weeks + rest + 1, 0)


def _hours(op: Operation) -> dict[str, float]:
    """Expected person-hours by kind: labels, checks, requalification, adjudication.

    Labels and adjudication are counted by :mod:`planner.operations.budget`; attention
    checks take the mean label time, a failed check ``requalification_hours``.
    """
    n_items = sum(op.items_per_stratum)
    labels = labelling_hours(op.items_per_stratum, op.seconds_per_item, op.labels_per_item)
    mean_label = labels * SECONDS_PER_HOUR / (n_items * op.labels_per_item)
    checks = op.attention_check_share * n_items * op.labels_per_item
    contested = contested_items(op.items_per_stratum, op.contested_rate)
    return {
        "labels": labels,
        "checks": checks * mean_label / SECONDS_PER_HOUR,
        "requalification": checks * op.attention_fail_rate * op.requalification_hours,
        "adjudication": (
            adjudication_hours(contested, op.adjudication_seconds) if op.adjudicators else 0.0
        ),
    }


def analytic_person_hours(op: Operation) -> float:
    """Expected person-hours: labels, checks, requalification and adjudication."""
    return float(sum(_hours(op).values()))


def _lognormal(
    rng: np.random.Generator, mean: np.ndarray, sigma: float, size: tuple[int, ...] | None = None
) -> np.ndarray:
    """Lognormal draws with the given means (``mu = log(mean) - sigma^2 / 2``).

    ``mean`` is broadcast to ``size`` (default its own shape) without being copied first.
    """
    mean = np.asarray(mean, dtype=float)
    size = mean.shape if size is None else size
    if sigma == 0:
        return np.broadcast_to(mean, size).copy()
    return rng.lognormal(np.log(mean) - sigma**2 / 2, sigma, size=size)


def _annotator_timeline(
    op: Operation, rng: np.random.Generator, durations: np.ndarray, mean_label: float
) -> tuple[np.ndarray, float, float]:
    """One annotator's label finish times, busy seconds and requalification seconds.

    Checks are interleaved at random positions; after a failed check the annotator
    requalifies. The clock is the running sum of the steps, in the order SimPy takes them.
    """
    n_checks = rng.binomial(durations.size, op.attention_check_share) if durations.size else 0
    steps, is_label = durations, np.ones(durations.size, dtype=bool)
    if n_checks:
        check_times = _lognormal(rng, np.full(n_checks, mean_label), op.time_spread)
        positions = np.sort(rng.integers(0, durations.size + 1, n_checks))
        steps = np.insert(durations, positions, check_times)
        is_label = np.insert(is_label, positions, False)
    failed = (rng.random(steps.size) < op.attention_fail_rate) & ~is_label
    busy = float(steps.sum())
    requal_seconds = op.requalification_hours * SECONDS_PER_HOUR
    n_failed = int(failed.sum()) if requal_seconds > 0 else 0
    if n_failed:
        after = np.flatnonzero(failed) + 1
        steps = np.insert(steps, after, requal_seconds)
        is_label = np.insert(is_label, after, False)
    return np.cumsum(steps)[is_label], busy, n_failed * requal_seconds


def _label_finish_times(
    op: Operation, rng: np.random.Generator, flat: np.ndarray, mean_label: float
) -> tuple[np.ndarray, float, float]:
    """Finish time of every label (flat, item-major), busy and requalification seconds.

    Annotator ``p`` holds the flat labels ``p, p + a, p + 2a, ...``. Without attention
    checks their clocks are the columns' running sums of the labels laid out ``a`` to a
    row, all at once; with checks each annotator's tasks are drawn in turn.
    """
    a = op.annotators
    if op.attention_check_share == 0:
        for start in range(0, flat.size, 1 << 20):  # the check-failure draws each annotator
            rng.random(min(1 << 20, flat.size - start))  # would make, unused, a block at a time
        rows = -(-flat.size // a)
        table = np.zeros((rows, a))
        table.reshape(-1)[: flat.size] = flat
        np.cumsum(table, axis=0, out=table)
        return table.reshape(-1)[: flat.size], float(flat.sum()), 0.0
    done = np.empty(flat.size)
    busy = requal = 0.0
    for person in range(a):
        mine, person_busy, person_requal = _annotator_timeline(op, rng, flat[person::a], mean_label)
        done[person::a] = mine
        busy += person_busy
        requal += person_requal
    return done, busy, requal


def _adjudicator(
    env: simpy.Environment,
    arrivals: np.ndarray,
    durations: np.ndarray,
    queue: dict[str, Any],
) -> Generator[Any, Any, None]:
    """Adjudicate contested items in arrival order; wait when the next is not in yet.

    The adjudicators share ``queue`` (the next item's index, busy seconds, finish times):
    whoever is free first takes the next item, as from a first-in first-out queue.
    """
    while queue["next"] < arrivals.size:
        item = queue["next"]
        queue["next"] += 1
        wait = arrivals[item] - env.now
        if wait > 0:
            yield env.timeout(wait)
        seconds = float(durations[item])
        yield env.timeout(seconds)
        queue["busy"] += seconds
        queue["finished"].append(env.now)


def _adjudicate(op: Operation, arrivals: np.ndarray, durations: np.ndarray) -> tuple[list, float]:
    """Finish times of contested items arriving at ``arrivals`` (sorted) and busy seconds."""
    env = simpy.Environment()
    queue: dict[str, Any] = {"next": 0, "busy": 0.0, "finished": []}
    for _ in range(op.adjudicators):
        env.process(_adjudicator(env, arrivals, durations, queue))
    env.run()
    return queue["finished"], queue["busy"]


def _simulate(op: Operation, rng: np.random.Generator) -> tuple[RunRecord, np.ndarray]:
    """One run: its record and the sorted working-clock times at which items were finished.

    Label ``j`` of item ``i`` goes to annotator ``(i * k + j) mod a`` (distinct for
    ``k <= a``), so annotator ``p`` holds the flat labels ``p, p + a, p + 2a, ...``.
    """
    n_items = int(sum(op.items_per_stratum))
    stratum = np.repeat(np.arange(len(op.items_per_stratum)), op.items_per_stratum)
    mean_seconds = np.asarray(op.seconds_per_item, dtype=float)[stratum]
    contested = rng.random(n_items) < np.asarray(op.contested_rate)[stratum]
    k = op.labels_per_item
    durations = _lognormal(rng, mean_seconds[:, None], op.time_spread, size=(n_items, k))
    del stratum
    label_done, busy, requal = _label_finish_times(
        op, rng, durations.reshape(-1), float(mean_seconds.mean())
    )
    del durations
    ready = label_done.reshape(n_items, k).max(axis=1)
    del label_done
    adjudication_times = _lognormal(
        rng,
        np.full(max(1, int(contested.sum())), max(op.adjudication_seconds, 1e-9)),
        op.time_spread,
    )
    adjudicated = contested if op.adjudicators > 0 and op.adjudication_seconds > 0 else None
    if adjudicated is None or not adjudicated.any():
        finished, adjudication = np.sort(ready), 0.0
    else:
        adjudged, adjudication = _adjudicate(
            op, np.sort(ready[adjudicated], kind="stable"), adjudication_times
        )
        finished = np.sort(np.concatenate([ready[~adjudicated], adjudged]))
    end = float(finished[-1])
    record = RunRecord(
        working_seconds=end,
        calendar_days=calendar_days(end, op.shift_seconds, op.days_per_week),
        annotator_busy_seconds=busy,
        adjudicator_busy_seconds=adjudication,
        requalification_seconds=requal,
    )
    return record, finished


class _Burndown:
    """Runs' burn-downs on one grid of calendar days ``0, step, 2 * step, ...``.

    Each run keeps the items done by each grid day (at most :data:`BURNDOWN_POINTS` + 2
    counts); when a run ends later than the grid reaches, the step doubles and every kept
    curve drops every other point (an exact subset: the grid always starts at day 0). A
    curve shorter than the final grid is complete beyond its end.
    """

    def __init__(self, n_items: int) -> None:
        self.n_items = n_items
        self.step = 1
        self.rows: list[np.ndarray] = []

    def add(self, finished_days: np.ndarray) -> None:
        """Add one run, given the sorted calendar day on which each item was finished."""
        last = int(finished_days[-1]) + 1
        while -(-last // self.step) > BURNDOWN_POINTS:
            self.step *= 2
            self.rows = [row[::2] for row in self.rows]
        grid = np.arange(0, -(-last // self.step) + 1, dtype=np.int64) * self.step
        dtype = np.int32 if self.n_items < 2**31 else np.int64
        self.rows.append(np.searchsorted(finished_days, grid, side="right").astype(dtype))

    def summary(self) -> dict[str, list[float]]:
        """Grid days and the median, 10th and 90th percentile of the open share."""
        width = max(row.size for row in self.rows)
        quantiles: list[list[np.ndarray]] = [[], [], []]
        for start in range(0, width, 64):  # a block of days at a time bounds the memory
            stop = min(start + 64, width)
            done = np.full((len(self.rows), stop - start), self.n_items, dtype=float)
            for i, row in enumerate(self.rows):
                part = row[start:stop]
                done[i, : part.size] = part
            curves = 1.0 - done / self.n_items
            for out, q in zip(quantiles, (0.5, 0.1, 0.9), strict=True):
                out.append(np.quantile(curves, q, axis=0))
        median, p10, p90 = (np.concatenate(parts).tolist() for parts in quantiles)
        days = (np.arange(width, dtype=float) * self.step).tolist()
        return {
            "burndown_days": days,
            "burndown_median": median,
            "burndown_p10": p10,
            "burndown_p90": p90,
        }


def steps_per_run(op: Operation) -> int:
    """The work of one run in label steps (see :data:`MAX_STEPS`), expected."""
    labels = sum(op.items_per_stratum) * op.labels_per_item
    adjudicated = float(np.dot(op.items_per_stratum, op.contested_rate))
    if not (op.adjudicators and op.adjudication_seconds):
        adjudicated = 0.0
    annotators = op.annotators if op.attention_check_share > 0 else 0
    return math.ceil(labels + ADJUDICATION_STEPS * adjudicated + ANNOTATOR_STEPS * annotators)


def simulate_schedule(
    op: Operation,
    *,
    runs: int = 200,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScheduleResult:
    """Simulate ``runs`` independent runs and summarise calendar time, hours and cost.

    Parameters
    ----------
    op
        The operation.
    runs
        Independent runs (:data:`RULES` ``runs``); ``runs x steps_per_run(op)`` is at most
        :data:`MAX_STEPS`, which bounds the time taken.
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed
        (:func:`planner.validation.seed_from`, fresh entropy for None, never a fixed seed) is
        the root stream's and is recorded as ``ScheduleResult.seed``; run ``i`` uses the
        root's ``i``-th spawned child.
    progress
        Called as ``progress(done, runs)`` after each run.

    Notes
    -----
    Memory is O(runs + items): each run is reduced to its :class:`RunRecord` and its
    burn-down on the common grid before the next starts.
    """
    runs = check("runs", runs, RULES["runs"])
    seed = seed_from(rng)
    per_run = steps_per_run(op)
    if runs * per_run > MAX_STEPS:
        raise InvalidInput(
            f"runs x steps per run must be at most {MAX_STEPS:,}, got {runs:,} x {per_run:,} = "
            f"{runs * per_run:,} (a label is one step, an adjudicated item "
            f"{ADJUDICATION_STEPS}, an annotator with attention checks {ANNOTATOR_STEPS}); "
            "lower the runs or the items"
        )
    n_items = sum(op.items_per_stratum)
    root = np.random.default_rng(seed)
    records = []
    burndown = _Burndown(n_items)
    for i in range(runs):
        record, finished = _simulate(op, root.spawn(1)[0])  # the i-th child of spawn(runs)
        records.append(record)
        burndown.add(_calendar_days_of(finished, op))
        del finished
        if progress is not None:
            progress(i + 1, runs)
    return _summarise(op, records, burndown, seed)


def _summarise(
    op: Operation, records: list[RunRecord], burndown: _Burndown, seed: int
) -> ScheduleResult:
    days = np.array([r.calendar_days for r in records], dtype=float)
    hours = np.array(
        [
            (r.annotator_busy_seconds + r.adjudicator_busy_seconds + r.requalification_seconds)
            / SECONDS_PER_HOUR
            for r in records
        ]
    )
    makespan = np.array([max(r.working_seconds, 1e-9) for r in records])
    annotator_busy = np.array([r.annotator_busy_seconds for r in records])
    adjudicator_busy = np.array([r.adjudicator_busy_seconds for r in records])
    ann_util = float(np.mean(annotator_busy / (makespan * op.annotators)))
    adj_util = (
        float(np.mean(adjudicator_busy / (makespan * op.adjudicators)))
        if op.adjudicators
        else float("nan")
    )
    curves = burndown.summary()
    return ScheduleResult(
        operation=op,
        runs=len(records),
        calendar_days_median=float(np.median(days)),
        calendar_days_p90=float(np.quantile(days, 0.9)),
        person_hours_median=float(np.median(hours)),
        person_hours_p90=float(np.quantile(hours, 0.9)),
        annotator_utilisation=ann_util,
        adjudicator_utilisation=adj_util,
        cost_median=None if op.hourly_rate is None else float(np.median(hours) * op.hourly_rate),
        analytic_person_hours=analytic_person_hours(op),
        burndown_days=curves["burndown_days"],
        burndown_median=curves["burndown_median"],
        burndown_p10=curves["burndown_p10"],
        burndown_p90=curves["burndown_p90"],
        seed=seed,
        records=records,
    )
