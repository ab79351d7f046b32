"""Speed of the multi-rater plan: ``plan --annotators 5 --metric fleiss``.

Run from the repository root (the package runs as ``python -m planner`` with this
interpreter, so the checkout's code is what is timed):

    python benchmarks/raters_speed.py

Prints the median whole-process wall time of five runs against the 3 s target, for the
headline five-annotator Fleiss plan and, for scale, a few other multi-rater plans (the
machine is shared and noisy: medians, not minima).
"""

from __future__ import annotations

import subprocess
import sys

from timing import median_time

TARGET_SECONDS = 3.0
HEADLINE = ["--annotators", "5", "--metric", "fleiss", "--prevalence", "0.3", "--width", "0.05"]
OTHERS = {
    "psa, 3 annotators, prevalence 0.05, width 0.05": [
        "--annotators", "3", "--metric", "psa", "--prevalence", "0.05", "--width", "0.05",
    ],
    "alpha ordinal, 6 annotators, 5 categories": [
        "--annotators", "6", "--metric", "alpha", "--level", "ordinal",
        "--prevalence", "0.1,0.2,0.3,0.2,0.2", "--width", "0.05",
    ],
    "alpha, 2 of 5 annotators per item, 3 categories": [
        "--annotators", "5", "--per-item", "2", "--metric", "alpha",
        "--prevalence", "0.3,0.4,0.3", "--width", "0.05",
    ],
    "conger, 4 annotators, 3 categories": [
        "--annotators", "4", "--metric", "conger", "--prevalence", "0.3,0.4,0.3", "--width", "0.05",
    ],
}  # fmt: skip


def _timed(args: list[str], runs: int = 5) -> float:
    command = [sys.executable, "-m", "planner", "plan", *args, "--seed", "1"]
    return median_time(lambda: subprocess.run(command, check=True, capture_output=True), runs)


def main() -> None:
    headline = _timed(HEADLINE)
    verdict = "meets" if headline < TARGET_SECONDS else "MISSES"
    print(
        f"plan {' '.join(HEADLINE)}: median {headline:.2f} s over 5 runs "
        f"({verdict} the {TARGET_SECONDS:g} s target)"
    )
    for name, args in OTHERS.items():
        print(f"  {name}: median {_timed(args, 3):.2f} s")


if __name__ == "__main__":
    main()
