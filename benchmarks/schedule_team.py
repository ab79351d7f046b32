"""Benchmark: a named team of 20 annotators, 50,000 items, 3 of 20 per item, 200 runs.

Target: under 30 s here, memory O(block x items + runs) (the peak resident size is printed).

    python benchmarks/schedule_team.py [runs]
"""

from __future__ import annotations

import datetime as dt
import resource
import sys
import time

from planner.operations.team import Person, Team
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import TeamOperation


def main(runs: int = 200) -> None:
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
    op = TeamOperation(
        (50_000,), (90.0,), (0.1,), 3, team, budget_seconds=90.0, adjudication_seconds=120.0
    )
    began = time.perf_counter()
    result = simulate_team(op, runs=runs, rng=1)
    took = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert result.team is not None
    print(f"{runs} runs: {took:.1f} s, peak RSS {peak:.0f} MB")
    print(
        f"finish {result.team.finish_dates}, bottleneck {result.team.bottleneck}, "
        f"min shared {result.team.min_shared_reached}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
