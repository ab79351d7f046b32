"""Speed of ``plan --pilot FILE``: a 500-item pilot, uncertainty included.

Run from the repository root (the package is run as ``python -m planner`` with this
interpreter, so the checkout's code is what is timed):

    python benchmarks/pilot_speed.py

Prints the median wall time of several whole-process runs of
``plan --pilot examples/labels.csv --positive unsupported --width 0.08`` (reading the file,
the plug-in plan and the plan under pilot uncertainty, 880 posterior draws in 16 randomised
lattices, grown until the answer's Monte Carlo SE is at most 0.5 % of it) against the
target of 1.5 s, the same for ``--pilot-counts 6,21,14,459`` (the same counts, no file) and
their ratio, and the library's ``items_under_uncertainty`` alone, in process, with the
answer's Monte Carlo SE.
"""

from __future__ import annotations

import subprocess
import sys

from timing import median_time

from planner.sizing.plan import PlanSettings
from planner.sizing.uncertainty import items_under_uncertainty

PILOT = ["--pilot", "examples/labels.csv", "--positive", "unsupported", "--width", "0.08"]
COUNTS = ["--pilot-counts", "6,21,14,459", "--width", "0.08"]
RUNS = 7
TARGET = 1.5


def main() -> None:
    command = [sys.executable, "-m", "planner", "plan", "--seed", "1"]

    def timed(args: list[str]) -> float:
        run = lambda: subprocess.run(command + args, check=True, capture_output=True)  # noqa: E731
        run()  # warm the file cache
        return median_time(run, RUNS)

    pilot, counts = timed(PILOT), timed(COUNTS)
    print(
        f"plan {' '.join(PILOT)}: median {pilot:.3f} s over {RUNS} runs "
        f"(target < {TARGET} s: {'met' if pilot < TARGET else 'MISSED'}, "
        f"{pilot / TARGET:.2f} of the budget)"
    )
    print(
        f"plan {' '.join(COUNTS)}: median {counts:.3f} s; --pilot / --pilot-counts = "
        f"{pilot / counts:.2f}"
    )
    for assurance in (0.5, 0.9):
        alone = median_time(
            lambda a=assurance: items_under_uncertainty(
                (6, 21, 14, 459), PlanSettings(assurance=a)
            ),
            RUNS,
        )
        u = items_under_uncertainty((6, 21, 14, 459), PlanSettings(assurance=assurance), rng=1)
        print(
            f"items_under_uncertainty, assurance {assurance}: median {alone:.3f} s; "
            f"{u.items:,} ± {u.items_mc_se:.1f} items (Monte Carlo SE, {u.draws:,} draws)"
        )


if __name__ == "__main__":
    main()
