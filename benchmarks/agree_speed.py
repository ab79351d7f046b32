"""Speed and memory of ``agree``, against the peer packages in the same run.

    python benchmarks/agree_speed.py            # needs the test extras (krippendorff, statsmodels)
    python benchmarks/agree_speed.py --rows 10000000   # the 10^7-row file of the issue

Prints medians of several runs and ratios (targets: alpha from the raw matrix at least 20x
the ``krippendorff`` package, Fleiss' kappa from it at least 22x statsmodels, 10x elsewhere):

1. 10^6 items x 10 annotators (4 categories, 10 % missing) in memory: Krippendorff's alpha
   (nominal and interval) against the ``krippendorff`` package, both from the same raw
   matrix; Fleiss' kappa against statsmodels (``aggregate_raters`` + ``fleiss_kappa`` from
   the raw matrix, and ``fleiss_kappa`` alone on a ready count table).
2. Interval and ratio alpha on data with 10^5 distinct values: peak memory (tracemalloc)
   against the size of the input; the ``krippendorff`` package builds V x V matrices.
3. Reading a long label file: ``pandas.read_csv`` (types guessed, and every cell as text)
   against ``read_labels``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from timing import median_time

#: Speed-up targets against the peer package (10x where not named).
TARGETS = {"alpha nominal, raw matrix": 20, "Fleiss kappa, raw matrix": 22}


def ratings_matrix(n: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n)
    data = np.where(rng.random((n, m)) < 0.8, truth[:, None], rng.integers(0, 4, (n, m)))
    data = data.astype(float)
    data[rng.random((n, m)) < 0.1] = np.nan
    return data


def in_memory(runs: int) -> None:
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from planner.data.labels import counts_from_values, patterns_from_values
    from planner.statistics.alpha import interval_alpha_from_values, krippendorff_alpha
    from planner.statistics.multirater import chance_corrected, compress

    data = ratings_matrix(1_000_000, 10)
    complete = np.where(np.isnan(data), 0, data)

    def our_nominal() -> float:
        rows, mult, values = patterns_from_values(data)
        return float(krippendorff_alpha(rows, values, multiplicity=mult))

    def our_fleiss_raw() -> float:
        rows, mult, _ = patterns_from_values(complete)
        return float(chance_corrected(rows, "fleiss", multiplicity=mult).estimate)

    counts, values = counts_from_values(data)
    table, _ = aggregate_raters(complete.astype(int))

    def our_from_counts(level: str):  # type: ignore[no-untyped-def]
        def run() -> float:
            rows, mult = compress(counts)
            return float(krippendorff_alpha(rows, values, level, multiplicity=mult))

        return run

    def our_fleiss_table() -> float:
        rows, mult = compress(table)
        return float(chance_corrected(rows, "fleiss", multiplicity=mult).estimate)

    checks = {
        "alpha nominal, raw matrix": (
            our_nominal,
            lambda: krippendorff.alpha(reliability_data=data.T, level_of_measurement="nominal"),
        ),
        "alpha interval, raw matrix": (
            lambda: float(interval_alpha_from_values(data)),
            lambda: krippendorff.alpha(reliability_data=data.T, level_of_measurement="interval"),
        ),
        "alpha nominal, count matrix": (
            our_from_counts("nominal"),
            lambda: krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"),
        ),
        "alpha interval, count matrix": (
            our_from_counts("interval"),
            lambda: krippendorff.alpha(
                value_counts=counts, value_domain=values, level_of_measurement="interval"
            ),
        ),
        "Fleiss kappa, raw matrix": (
            our_fleiss_raw,
            lambda: fleiss_kappa(aggregate_raters(complete.astype(int))[0]),
        ),
        "Fleiss kappa, count table": (our_fleiss_table, lambda: fleiss_kappa(table)),
    }
    print("1. 10^6 items x 10 annotators in memory (medians):")
    for name, (ours, peer) in checks.items():
        a, b = ours(), peer()
        assert abs(a - b) < 1e-9, (name, a, b)
        t_ours = median_time(ours, runs)
        t_peer = median_time(peer, max(1, runs // 2))
        ratio = t_peer / t_ours
        target = TARGETS.get(name, 10)
        verdict = "met" if ratio >= target else "not met"
        print(
            f"   {name:30s} planner {t_ours:7.3f} s   peer {t_peer:7.3f} s   "
            f"{ratio:6.1f}x  (target >= {target}x: {verdict})"
        )


def memory(n: int = 200_000, m: int = 5) -> None:
    from planner.statistics.alpha import interval_alpha_from_values, ratio_alpha_from_values

    rng = np.random.default_rng(1)
    base = rng.integers(1, 100_001, n).astype(float)
    data = base[:, None] + rng.integers(-50, 51, (n, m))
    data = np.abs(data) + 1
    data[rng.random((n, m)) < 0.1] = np.nan
    distinct = len(np.unique(data[~np.isnan(data)]))
    print(
        f"2. {n:,} items x {m} annotators, {distinct:,} distinct values "
        f"(input {data.nbytes / 1e6:.0f} MB); the krippendorff package would need "
        f"{distinct**2 * 8 / 1e9:.0f} GB for one V x V matrix:"
    )
    for name, fn in (
        ("interval", lambda: interval_alpha_from_values(data)),
        ("ratio", lambda: ratio_alpha_from_values(data)),
    ):
        tracemalloc.start()
        start = time.perf_counter()
        value = float(fn())
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"   {name:8s} alpha {value:.4f}: peak extra memory {peak / 1e6:6.0f} MB "
            f"({peak / data.nbytes:.1f}x the input), {elapsed:.2f} s"
        )


def reading(rows: int, runs: int) -> None:
    import pandas as pd

    from planner.data.reading import read_labels

    rng = np.random.default_rng(2)
    items = -(-rows // 3)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.csv"
        frame = pd.DataFrame(
            {
                "item": np.repeat(np.arange(items), 3)[:rows],
                "annotator": np.tile(np.array(["ann", "bob", "cyd"]), items + 1)[:rows],
                "label": rng.integers(0, 2, rows),
            }
        )
        frame.to_csv(path, index=False)
        del frame
        t_pandas = median_time(lambda: pd.read_csv(path), runs)
        t_text = median_time(lambda: pd.read_csv(path, dtype=str, keep_default_na=False), runs)
        t_ours = median_time(lambda: read_labels(path), runs)
    print(
        f"3. reading a {rows:,}-row long CSV: pandas.read_csv {t_pandas:.2f} s (types "
        f"guessed), {t_text:.2f} s (every cell as the text written, as the value rule reads "
        f"it); read_labels {t_ours:.2f} s ({t_ours / t_pandas:.1f}x / {t_ours / t_text:.1f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000, help="rows of the label file")
    parser.add_argument("--runs", type=int, default=5, help="runs per median")
    parser.add_argument(
        "--sections", default="1,2,3", help="which parts to run, e.g. 1 (in memory only)"
    )
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "1" in sections:
        in_memory(args.runs)
    if "2" in sections:
        memory()
    if "3" in sections:
        reading(args.rows, max(1, args.runs // 2))


if __name__ == "__main__":
    main()
