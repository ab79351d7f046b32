"""Benchmark: a named team of 20 annotators, 50,000 items, 3 of 20 per item, 200 runs.

Target: under 30 s of wall time here, memory O(block x items + runs) (the peak resident size
is printed). Prints the medians over ``repeat`` timings of wall and CPU time, the load
average before and after, and the ratios against :data:`BASELINE` (the figures before the
calendar-time engine stepped through items instead of tasks).

    python benchmarks/schedule_team.py [runs] [repeat]
"""

from __future__ import annotations

import datetime as dt
import os
import resource
import statistics
import sys
import time

from planner.operations.team import Person, Team
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import TeamOperation

BASELINE = {"wall": 54.4, "cpu": 19.6}
"""Seconds for 200 runs before the item-by-item pool (2 December 2026, load average 4 to 5
on the 2-core machine; one timing)."""


def _operation() -> TeamOperation:
    people = tuple(
        Person(
            f"annotator {i + 1}",
            seconds_per_item=60 + 5 * i,
            hours_per_day=4 + i % 5,
            time_spread=0.5,
            hourly_rate=30 + i,
        )
        for i in range(20)
    )
    judge = Person("adjudicator", hourly_rate=60)
    team = Team(people, adjudicators=(judge,), start=dt.date(2027, 1, 4))
    return TeamOperation(
        (50_000,), (90.0,), (0.1,), 3, team, budget_seconds=90.0, adjudication_seconds=120.0
    )


def main(runs: int = 200, repeat: int = 3) -> None:
    op = _operation()
    load_before = os.getloadavg()
    walls, cpus = [], []
    for _ in range(repeat):
        began, cpu = time.perf_counter(), time.process_time()
        result = simulate_team(op, runs=runs, rng=1)
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert result.team is not None
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    load = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(load_before, os.getloadavg(), strict=True))
    print(f"{runs} runs, median of {repeat}: wall {wall:.1f} s, CPU {cpu:.1f} s")
    print(f"  peak RSS {peak:.0f} MB")
    each_wall = ", ".join(f"{w:.1f}" for w in walls)
    each_cpu = ", ".join(f"{c:.1f}" for c in cpus)
    print(f"  each: wall {each_wall}; CPU {each_cpu}")
    print(f"  load average (1/5/15 min, before/after): {load}")
    if runs == 200:
        print(
            f"  against the baseline: wall {wall / BASELINE['wall']:.2f}x, "
            f"CPU {cpu / BASELINE['cpu']:.2f}x"
        )
    print(
        f"finish {result.team.finish_dates}, bottleneck {result.team.bottleneck}, "
        f"min shared {result.team.min_shared_reached}"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
