"""Speed of the Dawid & Skene fit: target < 10 s per fit with 200 refits.

    python benchmarks/fit_speed.py

1. ``fit_latent_classes`` on 10,000 items x 5 annotators with the default 200 bootstrap
   refits, binary and 4 categories (library call, counts in memory).
2. ``planner fit FILE`` end to end (reading a 50,000-row long CSV, the fit, the JSON).
3. Baseline in the same run: the item-by-item loop EM of tests/test_dawid_skene.py on a
   smaller size (one fit, no bootstrap) against ``fit_latent_classes`` on the same counts,
   as a ratio.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import median_time

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.statistics.dawid_skene import fit_latent_classes  # noqa: E402
from planner.statistics.dawid_skene_settings import LatentClassSettings  # noqa: E402
from tests.test_dawid_skene import loop_em, simulate  # noqa: E402


def model(k: int) -> tuple[np.ndarray, np.ndarray]:
    prev = np.array([0.85, 0.15]) if k == 2 else np.array([0.4, 0.3, 0.2, 0.1])
    theta = np.empty((5, k, k))
    for j, accuracy in enumerate([0.92, 0.88, 0.85, 0.8, 0.75]):
        theta[j] = np.where(np.eye(k, dtype=bool), accuracy, (1 - accuracy) / (k - 1))
    return prev, theta


def write_long_csv(counts: np.ndarray, path: Path) -> None:
    items, annotators, labels = np.nonzero(counts)
    with path.open("w") as out:
        out.write("item,annotator,label\n")
        out.writelines(f"{i},a{j},{c}\n" for i, j, c in zip(items, annotators, labels, strict=True))


def main() -> None:
    rng = np.random.default_rng(20261201)
    for k in (2, 4):
        counts = simulate(rng, 10_000, *model(k))
        seconds = median_time(
            lambda c=counts: fit_latent_classes(c, LatentClassSettings(n_boot=200), rng=1), 3
        )
        fit = fit_latent_classes(counts, LatentClassSettings(n_boot=200), rng=1)
        print(
            f"fit_latent_classes, 10,000 items x 5 annotators, K={k}, 200 refits: "
            f"{seconds:.2f} s (median of 3; {len(fit.multiplicity)} patterns, "
            f"{fit.iterations} EM iterations) -> target < 10 s: "
            f"{'met' if seconds < 10 else 'MISSED'}"
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pilot.csv"
            write_long_csv(counts, path)
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "planner", "fit", str(path), "--seed", "1", "--json"],
                cwd=ROOT,
                capture_output=True,
                check=True,
            )
            wall = time.perf_counter() - start
            assert done.stdout.startswith(b"{")
            print(f"planner fit FILE (50,000-row CSV, K={k}, 200 refits), end to end: {wall:.2f} s")
    small = simulate(rng, 300, *model(4))
    loop = median_time(lambda: loop_em(small, tol=1e-8), 1)
    fast = median_time(lambda: fit_latent_classes(small, LatentClassSettings(n_boot=0)), 5)
    print(
        f"baseline, 300 items x 5 annotators, K=4, one fit: item-by-item loop EM {loop:.2f} s, "
        f"fit_latent_classes {fast * 1000:.1f} ms, ratio {loop / fast:,.0f}x"
    )


if __name__ == "__main__":
    main()
