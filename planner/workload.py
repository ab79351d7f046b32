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

Each run gets a fresh :class:`simpy.Environment` and its own random stream spawned from
the caller's generator; results over runs give medians and 90th percentiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy

from planner.errors import InvalidInput


@dataclass(frozen=True)
class Operation:
    """Parameters of the labelling operation.

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
    """

    items_per_stratum: tuple[int, ...]
    seconds_per_item: tuple[float, ...]
    contested_rate: tuple[float, ...]
    labels_per_item: int = 2
    annotators: int = 5
    hours_per_day: float = 8.0
    days_per_week: int = 5
    time_spread: float = 0.5
    attention_check_share: float = 0.0
    attention_fail_rate: float = 0.0
    requalification_hours: float = 0.0
    adjudicators: int = 1
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None

    def __post_init__(self) -> None:
        if not self.items_per_stratum or sum(self.items_per_stratum) < 1:
            raise InvalidInput("the schedule needs at least one item (--items)")
        if self.labels_per_item > self.annotators:
            raise InvalidInput(
                f"--annotators {self.annotators} is fewer than the {self.labels_per_item} "
                "distinct annotators each item needs"
            )
        if self.hours_per_day <= 0 or self.hours_per_day > 24:
            raise InvalidInput(f"--hours-per-day must be in (0, 24], got {self.hours_per_day}")
        if not 1 <= self.days_per_week <= 7:
            raise InvalidInput(f"--days-per-week must be in [1, 7], got {self.days_per_week}")

    @property
    def shift_seconds(self) -> float:
        return self.hours_per_day * 3600.0


@dataclass(frozen=True)
class RunRecord:
    """One simulated run."""

    working_seconds: float
    calendar_days: float
    annotator_busy_seconds: float
    adjudicator_busy_seconds: float
    requalification_seconds: float
    completions: np.ndarray  # working-clock times at which items were finished, sorted


@dataclass(frozen=True)
class ScheduleResult:
    """Summary over runs."""

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

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        out = {k: v for k, v in asdict(self).items() if k != "records"}
        out["operation"] = asdict(self.operation)
        return out


def calendar_days(working_seconds: float, shift_seconds: float, days_per_week: int) -> float:
    """Calendar days to put in ``working_seconds`` of shift time.

    Working days ``d = ceil(w / shift)``; the last is a partial day counted whole. Calendar
    days are ``7 * floor((d - 1) / days_per_week) + (d - 1) % days_per_week + 1``.

    >>> calendar_days(9000, 4 * 3600, 5), calendar_days(6 * 4 * 3600, 4 * 3600, 5)
    (1, 8)
    """
    if working_seconds <= 0:
        return 0
    worked = math.ceil(working_seconds / shift_seconds - 1e-9)
    weeks, rest = divmod(worked - 1, days_per_week)
    return 7 * weeks + rest + 1


def analytic_person_hours(op: Operation) -> float:
    """Expected person-hours: labels, checks, requalification and adjudication."""
    labels = np.dot(op.items_per_stratum, op.seconds_per_item) * op.labels_per_item
    mean_label = labels / (sum(op.items_per_stratum) * op.labels_per_item)
    checks = op.attention_check_share * sum(op.items_per_stratum) * op.labels_per_item
    checks_seconds = checks * mean_label
    requal = checks * op.attention_fail_rate * op.requalification_hours * 3600
    contested = np.dot(op.items_per_stratum, op.contested_rate)
    adjudication = contested * op.adjudication_seconds if op.adjudicators else 0.0
    return float((labels + checks_seconds + requal + adjudication) / 3600.0)


def _lognormal(rng: np.random.Generator, mean: np.ndarray, sigma: float) -> np.ndarray:
    """Lognormal draws with the given means (``mu = log(mean) - sigma^2 / 2``)."""
    mean = np.asarray(mean, dtype=float)
    if sigma == 0:
        return mean.copy()
    return rng.lognormal(np.log(mean) - sigma**2 / 2, sigma)


def _annotator(
    env: simpy.Environment,
    tasks: list[tuple[int, float, bool]],
    done: Callable[[int], None],
    stats: dict[str, float],
    fail: np.ndarray,
    requal_seconds: float,
) -> Generator[Any, Any, None]:
    """Label the assigned tasks in order; a failed check costs a requalification."""
    for (item, seconds, is_check), failed in zip(tasks, fail, strict=True):
        yield env.timeout(seconds)
        stats["busy"] += seconds
        if is_check:
            if failed and requal_seconds > 0:
                yield env.timeout(requal_seconds)
                stats["requal"] += requal_seconds
            continue
        done(item)


def _adjudicator(
    env: simpy.Environment,
    queue: simpy.Store,
    durations: np.ndarray,
    stats: dict[str, float],
    finished: list[float],
    cursor: list[int],
) -> Generator[Any, Any, None]:
    while True:
        item = yield queue.get()
        seconds = float(durations[cursor[0] % durations.size])
        cursor[0] += 1
        yield env.timeout(seconds)
        stats["adjudication"] += seconds
        finished.append(env.now)
        del item


def simulate_run(op: Operation, rng: np.random.Generator) -> RunRecord:
    """One run of the operation in a fresh environment."""
    env = simpy.Environment()
    n_items = int(sum(op.items_per_stratum))
    stratum = np.repeat(np.arange(len(op.items_per_stratum)), op.items_per_stratum)
    mean_seconds = np.asarray(op.seconds_per_item, dtype=float)[stratum]
    contested = rng.random(n_items) < np.asarray(op.contested_rate)[stratum]
    k, a = op.labels_per_item, op.annotators
    # round-robin: label j of item i goes to annotator (i * k + j) mod a, distinct for k <= a
    owner = (np.arange(n_items)[:, None] * k + np.arange(k)[None, :]) % a
    durations = _lognormal(rng, np.repeat(mean_seconds[:, None], k, axis=1), op.time_spread)
    remaining = np.full(n_items, k)
    finished: list[float] = []
    queue = simpy.Store(env)
    stats = {"busy": 0.0, "requal": 0.0, "adjudication": 0.0}

    def label_done(item: int) -> None:
        remaining[item] -= 1
        if remaining[item] == 0:
            if contested[item] and op.adjudicators > 0 and op.adjudication_seconds > 0:
                queue.put(item)
            else:
                finished.append(env.now)

    mean_label = float(mean_seconds.mean())
    for person in range(a):
        mine = np.argwhere(owner == person)
        tasks = [(int(i), float(durations[i, j]), False) for i, j in mine]
        n_checks = rng.binomial(len(tasks), op.attention_check_share) if tasks else 0
        if n_checks:
            check_times = _lognormal(rng, np.full(n_checks, mean_label), op.time_spread)
            positions = np.sort(rng.integers(0, len(tasks) + 1, n_checks))
            for offset, (pos, secs) in enumerate(zip(positions, check_times, strict=True)):
                tasks.insert(int(pos) + offset, (-1, float(secs), True))
        fail = rng.random(len(tasks)) < op.attention_fail_rate
        env.process(
            _annotator(env, tasks, label_done, stats, fail, op.requalification_hours * 3600.0)
        )
    adjudication_times = _lognormal(
        rng,
        np.full(max(1, int(contested.sum())), max(op.adjudication_seconds, 1e-9)),
        op.time_spread,
    )
    cursor = [0]
    for _ in range(op.adjudicators):
        env.process(_adjudicator(env, queue, adjudication_times, stats, finished, cursor))
    env.run()
    end = max(finished) if finished else 0.0
    return RunRecord(
        working_seconds=end,
        calendar_days=calendar_days(end, op.shift_seconds, op.days_per_week),
        annotator_busy_seconds=stats["busy"],
        adjudicator_busy_seconds=stats["adjudication"],
        requalification_seconds=stats["requal"],
        completions=np.sort(np.asarray(finished)),
    )


def simulate_schedule(
    op: Operation,
    *,
    runs: int = 200,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> ScheduleResult:
    """Simulate ``runs`` independent runs and summarise calendar time, hours and cost."""
    if runs < 1:
        raise InvalidInput(f"--runs must be at least 1, got {runs}")
    streams = np.random.default_rng(seed).spawn(runs)
    records = []
    for i, stream in enumerate(streams):
        records.append(simulate_run(op, stream))
        if progress is not None:
            progress(i + 1)
    days = np.array([r.calendar_days for r in records], dtype=float)
    hours = np.array(
        [
            (r.annotator_busy_seconds + r.adjudicator_busy_seconds + r.requalification_seconds)
            / 3600
            for r in records
        ]
    )
    makespan = np.array([max(r.working_seconds, 1e-9) for r in records])
    ann_util = float(
        np.mean(
            [
                r.annotator_busy_seconds / (m * op.annotators)
                for r, m in zip(records, makespan, strict=True)
            ]
        )
    )
    adj_util = (
        float(
            np.mean(
                [
                    r.adjudicator_busy_seconds / (m * op.adjudicators)
                    for r, m in zip(records, makespan, strict=True)
                ]
            )
        )
        if op.adjudicators
        else float("nan")
    )
    grid = np.arange(0, int(np.max(days)) + 2, dtype=float)  # calendar days 0, 1, ...
    n_items = sum(op.items_per_stratum)
    curves = np.array([_burndown(r, grid, op, n_items) for r in records])
    return ScheduleResult(
        operation=op,
        runs=runs,
        calendar_days_median=float(np.median(days)),
        calendar_days_p90=float(np.quantile(days, 0.9)),
        person_hours_median=float(np.median(hours)),
        person_hours_p90=float(np.quantile(hours, 0.9)),
        annotator_utilisation=ann_util,
        adjudicator_utilisation=adj_util,
        cost_median=None if op.hourly_rate is None else float(np.median(hours) * op.hourly_rate),
        analytic_person_hours=analytic_person_hours(op),
        burndown_days=grid.tolist(),
        burndown_median=np.median(curves, axis=0).tolist(),
        burndown_p10=np.quantile(curves, 0.1, axis=0).tolist(),
        burndown_p90=np.quantile(curves, 0.9, axis=0).tolist(),
        seed=seed,
        records=records,
    )


def _burndown(record: RunRecord, grid_days: np.ndarray, op: Operation, n_items: int) -> np.ndarray:
    """Share of items still open at each calendar day of the grid."""
    if record.completions.size == 0:
        return np.ones_like(grid_days)
    worked = np.ceil(record.completions / op.shift_seconds - 1e-9).astype(int)
    weeks, rest = np.divmod(np.maximum(worked, 1) - 1, op.days_per_week)
    days = np.where(worked > 0, 7 * weeks + rest + 1, 0)
    done = np.searchsorted(np.sort(days), grid_days, side="right")
    return 1.0 - done / n_items
