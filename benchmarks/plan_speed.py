"""Speed of ``plan``: whole-process wall time and the vectorised bootstrap.

Run from the repository root (the package is run as ``python -m planner`` with this
interpreter, so the checkout's code is what is timed):

    python benchmarks/plan_speed.py

Prints medians of several runs (the machine is shared and noisy) and ratios against the
targets: the headline command under 0.5 s as a whole process, shown beside the
bare ``python -c "import numpy"`` start-up that no command can beat; the PSA bootstrap of
the chapter's 500-item table with 5,000 resamples at least 500x faster than the per-item
Python bootstrap printed in the chapter (the baseline, timed in the same run); and
a 4-stratum scenario plan, three designs compared, under 3 s as a whole process;
and the exact PSA plan at widths 0.01, 0.003 and 0.001 (the floor) in seconds.
"""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
from timing import median_time

from planner.statistics.intervals import psa_interval

HEADLINE = ["--prevalence", "0.08", "--width", "0.08"]
SMALL_WIDTHS = ("0.001", "0.003", "0.01")
CHAPTER_TABLE = np.array([[6, 21], [14, 459]])


def chapter_bootstrap_psa(labels, iters=5000):
    """The per-item bootstrap printed in the chapter (seed 001), verbatim."""
    out = []
    for _ in range(iters):
        s = [random.choice(labels) for _ in labels]
        both = sum(1 for a, b in s if a and b)
        only = sum(1 for a, b in s if a != b)
        out.append(2 * both / (2 * both + only) if both or only else 1.0)
    out.sort()
    return out[int(0.025 * iters)], out[int(0.975 * iters)]


def main() -> None:
    command = [sys.executable, "-m", "planner", "plan"]
    run = lambda: subprocess.run(command + HEADLINE, check=True, capture_output=True)  # noqa: E731
    bare = lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)  # noqa: E731
    numpy_only = lambda: subprocess.run([sys.executable, "-c", "import numpy"], check=True)  # noqa: E731
    run()  # warm the file cache
    whole = median_time(run, 11)
    python = median_time(bare, 11)
    with_numpy = median_time(numpy_only, 11)
    print(
        f"plan {' '.join(HEADLINE)}: median {whole:.3f} s over 11 runs "
        f"(target < 0.5 s: {'met' if whole < 0.5 else 'MISSED'}, {whole / 0.5:.2f} of the "
        f"budget); python -c 'import numpy' {with_numpy:.3f} s, bare python {python:.3f} s"
    )

    # exact PSA sizing at small widths (95-173 s at width 0.001 before the
    # threshold path in planner.sizing.exact); every width down to the floor within a few seconds
    for width in SMALL_WIDTHS:
        args = ["--prevalence", "0.08", "--width", width, "--seed", "1"]
        small = lambda args=args: subprocess.run(command + args, check=True, capture_output=True)  # noqa: E731
        seconds = median_time(small, 3)
        print(
            f"plan {' '.join(args)}: median {seconds:.2f} s over 3 runs "
            f"(target < 5 s: {'met' if seconds < 5 else 'MISSED'})"
        )

    scenario = ["scenarios/unsupported-claims-enriched.toml"]
    run_scenario = lambda: subprocess.run(command + scenario, check=True, capture_output=True)  # noqa: E731
    run_scenario()
    stratified = median_time(run_scenario, 7)
    print(
        f"plan {scenario[0]} (4 strata, three designs): median {stratified:.3f} s over 7 runs "
        f"(target < 3 s: {'met' if stratified < 3 else 'MISSED'})"
    )

    labels = [(1, 1)] * 6 + [(1, 0)] * 21 + [(0, 1)] * 14 + [(0, 0)] * 459
    random.seed(1)
    baseline = median_time(lambda: chapter_bootstrap_psa(labels, 5000), 3)
    ours = median_time(
        lambda: psa_interval(CHAPTER_TABLE, method="bootstrap", n_boot=5000, rng=1), 21
    )
    ratio = baseline / ours
    print(
        f"PSA bootstrap, 500 items, 5,000 resamples: chapter's per-item Python "
        f"{baseline:.3f} s, planner {ours * 1e3:.2f} ms; {ratio:,.0f}x faster "
        f"(target >= 500x: {'met' if ratio >= 500 else 'MISSED'})"
    )


if __name__ == "__main__":
    main()
