"""Interval and ratio Krippendorff's alpha with many distinct values.

    python benchmarks/alpha_distinct.py                   # 10^5 distinct values
    python benchmarks/alpha_distinct.py --items 300    # small enough for the krippendorff package

Generates continuous scores (``items`` x 3 annotators, 10 % missing, almost every value
distinct), then times, in this process:

1. interval and ratio alpha on the count patterns (``krippendorff_alpha_patterns``: the
   interval sums are moments, O(V log V) for the sort; ratio's expected disagreement by the
   quadrature of ``ratio_expected``, O(V Q));
2. the item bootstrap of each (``--n-boot`` resamples: only the marginals change, so a
   resample costs O(P + V) for interval and O(V Q) for ratio, never V^2);
3. the ``krippendorff`` package on the same matrix where its (items x V x V) arrays fit in
   ``--package-limit`` floats, and the agreement of the two.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def scores(items: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.lognormal(1.0, 1.0, items)
    data = truth[:, None] * rng.lognormal(0.0, 0.3, (items, 3))
    data[rng.random(data.shape) < 0.1] = np.nan
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=37_000, help="items (3 ratings each)")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap resamples")
    parser.add_argument(
        "--package-limit", type=float, default=3e8, help="most items x V^2 floats for the package"
    )
    args = parser.parse_args()

    from planner.data.labels import ratings_from_matrix
    from planner.measuring.agreement_bootstrap import AgreementBootstrap
    from planner.statistics import alpha as ka

    data = scores(args.items)
    start = time.perf_counter()
    ratings = ratings_from_matrix(data)
    patterns = ratings.count_patterns()
    print(f"{ratings.n_categories:,} distinct values, {ratings.n_items:,} items: "
          f"counted in {time.perf_counter() - start:.2f} s")  # fmt: skip
    boot = AgreementBootstrap(np.random.default_rng(1), args.n_boot, 0.95)
    width = 4 * patterns.counts.shape[1] + 1
    for level in ("interval", "ratio"):
        x = ratings.numeric_values(level)
        start = time.perf_counter()
        estimate = float(ka.krippendorff_alpha_patterns(patterns, x, level))
        took = time.perf_counter() - start
        start = time.perf_counter()
        lo, hi = boot.interval(
            patterns.multiplicity,
            lambda m, x=x, level=level: ka.krippendorff_alpha_patterns(patterns, x, level, m),
            width,
        )(boot.confidence_level)  # the interval at any level: here the 95% one
        took_boot = time.perf_counter() - start
        line = (f"{level:8s} alpha {estimate:.12f} in {took:.2f} s; "
                f"bootstrap B={args.n_boot} [{lo:.4f}, {hi:.4f}] in {took_boot:.2f} s")  # fmt: skip
        cells = data.shape[0] * ratings.n_categories**2
        if cells <= args.package_limit:
            import krippendorff

            start = time.perf_counter()
            ref = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
            line += f"; krippendorff {ref:.12f} in {time.perf_counter() - start:.2f} s"
            line += f" (|diff| {abs(ref - estimate):.1e})"
        else:
            line += f"; krippendorff package not run ({cells:.1e} floats of items x V x V)"
        print(line)


if __name__ == "__main__":
    main()
