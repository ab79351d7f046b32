"""An independent SimPy model of the next-free team, against the library's two computations.

Each annotator is a SimPy process in wall-clock seconds: at a task's start they take the first
item after their last that still needs a label, then work its lognormal time through their
shifts (00:00 to hours_per_day on their weekdays), waiting overnight and over weekends.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
import simpy

from planner.operations.team import Person, Team
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import TeamOperation

pytestmark = pytest.mark.slow  # every test here takes over 0.3 s alone

DAY = 86_400.0
MONDAY = dt.date(2027, 1, 4)
PEOPLE = (
    ("a", 50.0, 6.0, (0, 1, 2, 3, 4)),
    ("b", 80.0, 4.0, (0, 1, 2)),
    ("c", 120.0, 8.0, (0, 2, 4)),
)
SIGMA, ITEMS, K = 0.6, 1500, 2


def _next_shift(now: float, hours: float, weekdays: tuple[int, ...]) -> tuple[float, float]:
    """The shift containing ``now`` or the next one: (start, end) in seconds."""
    day = int(now // DAY)
    while True:
        start, end = day * DAY, day * DAY + hours * 3600
        if day % 7 in weekdays and now < end:
            return max(start, now), end
        day += 1


def _reference_run(rng: np.random.Generator) -> tuple[int, list[int]]:
    env = simpy.Environment()
    filled = np.zeros(ITEMS, dtype=int)
    last = [-1] * len(PEOPLE)
    done = np.zeros(ITEMS)
    counts = [0] * len(PEOPLE)

    def annotator(i: int, seconds: float, hours: float, weekdays: tuple[int, ...]):
        while True:
            start, _ = _next_shift(env.now, hours, weekdays)
            if start > env.now:
                yield env.timeout(start - env.now)
            j = last[i] + 1
            while j < ITEMS and filled[j] >= K:
                j += 1
            if j >= ITEMS:
                return
            filled[j] += 1
            last[i] = j
            counts[i] += 1
            left = seconds * rng.lognormal(-(SIGMA**2) / 2, SIGMA)
            while left > 0:
                start, end = _next_shift(env.now, hours, weekdays)
                if start > env.now:
                    yield env.timeout(start - env.now)
                step = min(left, end - env.now)
                yield env.timeout(step)
                left -= step
            done[j] = max(done[j], env.now)

    for i, (_, seconds, hours, weekdays) in enumerate(PEOPLE):
        env.process(annotator(i, seconds, hours, weekdays))
    env.run()
    return int(np.ceil(done.max() / DAY)) - 1, counts


def _ours(engine: str, runs: int) -> tuple[np.ndarray, list[float]]:
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    people = tuple(
        Person(
            n,
            seconds_per_item=s,
            hours_per_day=h,
            days=tuple(names[d] for d in w),
            time_spread=SIGMA,
        )
        for n, s, h, w in PEOPLE
    )
    team = Team(people, start=MONDAY, min_shared_items=0)
    op = TeamOperation((ITEMS,), (90.0,), (0.0,), K, team, budget_seconds=90.0)
    result = simulate_team(op, runs=runs, rng=8, engine=engine)
    return result.team.finish_by_run, [row.items for row in result.team.annotators]


@pytest.mark.parametrize("engine", ["events", "fast"])
def test_finish_days_and_shares_match_an_independent_simpy_model(engine):
    rng = np.random.default_rng(123)
    runs = 100
    reference = [_reference_run(rng) for _ in range(runs)]
    ref_days = np.array([r[0] for r in reference])
    ref_items = np.mean([r[1] for r in reference], axis=0)
    days, items = _ours(engine, runs)
    assert abs(np.median(days) - np.median(ref_days)) <= 1
    assert (
        abs(days.mean() - ref_days.mean())
        <= 4 * np.hypot(days.std(), ref_days.std()) / np.sqrt(runs) + 0.5
    )
    assert items == pytest.approx(ref_items, rel=0.05)
    assert sum(items) == pytest.approx(ITEMS * K)
