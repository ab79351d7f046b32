"""``agree`` with many categories: alpha's bootstrap no longer costs ``K^2``.

    python benchmarks/agree_categories.py                  # 800 and 5,000 categories
    python benchmarks/agree_categories.py --categories 800 --dense-resamples 3

For each number of categories it writes a long label file of 20,000 items x 3 annotators
with random integer labels, then prints

1. the wall time of ``python -m planner agree FILE --level nominal --json`` (the whole
   command, in a subprocess: reading, every coefficient, 1,000 bootstrap resamples,
   diagnostics);
2. the time of alpha's 1,000-resample bootstrap alone on the sparse patterns, and of a few
   resamples through the dense coincidence-matrix form it replaced (``O(P K^2)`` each),
   extrapolated to 1,000 (skipped where one dense resample would pass ``--dense-limit``
   seconds, estimated from the work ``P K^2``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import median_time


def label_file(folder: Path, k: int, n: int = 20_000, m: int = 3, seed: int = 0) -> Path:
    import pandas as pd

    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, (n, m))
    path = folder / f"labels_{k}.csv"
    pd.DataFrame(
        {
            "item": np.repeat(np.arange(n), m),
            "annotator": np.tile([f"a{j}" for j in range(m)], n),
            "label": labels.ravel(),
        }
    ).to_csv(path, index=False)
    return path


def whole_command(path: Path) -> float:
    command = [sys.executable, "-m", "planner", "agree", str(path), "--level", "nominal"]
    start = time.perf_counter()
    subprocess.run([*command, "--json", "--seed", "1"], check=True, capture_output=True)
    return time.perf_counter() - start


def alpha_bootstrap(k: int, dense_resamples: int, dense_limit: float) -> None:
    from planner.statistics import alpha as ka
    from planner.statistics import multirater as mr

    rng = np.random.default_rng(0)
    codes = rng.integers(0, k, (20_000, 3))
    patterns = mr.patterns_from_codes(codes, k)
    mult = patterns.multiplicity
    total = int(mult.sum())
    draws = rng.multinomial(total, mult / total, size=1000)

    def sparse() -> None:
        for chunk in np.array_split(draws, 10):
            ka.krippendorff_alpha_patterns(patterns, None, "nominal", chunk)

    t_sparse = median_time(sparse, 3)
    line = f"   alpha bootstrap, 1,000 resamples: patterns {t_sparse:6.2f} s"
    work = patterns.n_patterns * k * k  # multiply-adds of one dense coincidence matrix
    rate = 8e9  # multiply-adds per second of the dense form, as measured at 800 categories
    if work / rate > dense_limit:
        print(f"{line}; dense form skipped (estimated {work / rate:,.0f} s per resample)")
        return
    rows = patterns.dense()
    start = time.perf_counter()
    for b in range(dense_resamples):
        ka.krippendorff_alpha(rows, None, "nominal", multiplicity=draws[b])
    per = (time.perf_counter() - start) / dense_resamples
    check = ka.krippendorff_alpha(rows, None, "nominal", multiplicity=draws[0])
    assert (
        abs(
            float(check)
            - float(ka.krippendorff_alpha_patterns(patterns, None, "nominal", draws[0]))
        )
        < 1e-12
    )
    print(f"{line}; dense form {per:.2f} s per resample = {1000 * per:,.0f} s for 1,000")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--categories", type=int, nargs="+", default=[800, 5000])
    parser.add_argument("--dense-resamples", type=int, default=3)
    parser.add_argument("--dense-limit", type=float, default=30.0, help="seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for k in args.categories:
            path = label_file(Path(folder), k)
            print(f"{k:,} categories, 20,000 items x 3 annotators:")
            print(f"   planner agree --level nominal: {whole_command(path):6.2f} s (whole command)")
            alpha_bootstrap(k, args.dense_resamples, args.dense_limit)


if __name__ == "__main__":
    main()
