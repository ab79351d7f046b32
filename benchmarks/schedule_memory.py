"""Peak memory and wall time of ``planner schedule`` at scale.

Run from the repository root:

    python benchmarks/schedule_memory.py [ITEMS] [RUNS]

Runs ``python -m planner schedule --items ITEMS --runs RUNS --seed 1 --json`` (defaults
150,000 items and 200 runs) as a child process and prints its wall time and peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``), with the medians it printed so
that runs before and after a change can be compared for the same seed.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time


def main() -> None:
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 150_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    command = [sys.executable, "-m", "planner", "schedule", "--items", str(items)]
    command += ["--runs", str(runs), "--seed", "1", "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    doc = json.loads(done.stdout)
    print(
        f"schedule --items {items:,} --runs {runs}: {wall:.1f} s, peak memory {peak_mb:,.0f} MB; "
        f"calendar days median {doc['calendar_days_median']:g} (p90 "
        f"{doc['calendar_days_p90']:g}), person-hours median {doc['person_hours_median']:,.2f}"
    )


if __name__ == "__main__":
    main()
