"""Which critical value Cohen's kappa profile interval needs: coverage by calibration.

Run from the repository root: ``python coverage_study/kappa_calibration.py [--reps N]``.
As :mod:`coverage_study.profile_calibration` does for several annotators: the profile
likelihood-ratio statistic ``W`` of Cohen's kappa
(:func:`planner.statistics.kappa_profile.profile_loglik`, both positive rates re-estimated)
is evaluated once per simulated study at the cell's true kappa, on the studies
:mod:`coverage_study.coverage` draws for every two-annotator cell (the same random
streams), and the coverage of each calibration is read off: ``chi2`` (agree's: ``W <=
chi2_1(0.95)``), ``t-union`` (``t_nu^2``, ``nu`` the union positives less one) and
``t-rarer`` (``nu`` the rarer annotator's positives less one) and ``planner`` (what
:func:`planner.statistics.kappa_profile.kappa_profile_interval` uses: ``t_nu^2`` with
``nu = min(a + b + c, b + c + d, 4 m) - 1``, ``m`` the smallest margin). It prints, per regime and
union positives (or the rarer annotator's expected positives), each calibration's coverage
range over the cells.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: import this checkout's planner
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from coverage_study.coverage import stream  # noqa: E402
from coverage_study.grid import Cell, grid  # noqa: E402
from coverage_study.methods import PAIR_ESTIMANDS  # noqa: E402
from planner.sizing.studies import simulate_tables  # noqa: E402
from planner.statistics.agreement import binary_cells  # noqa: E402
from planner.statistics.kappa_profile import critical_value, profile_loglik  # noqa: E402

CALIBRATIONS = ("chi2", "t-union", "t-rarer", "planner")
_EMPTY = 1e-6  # kappa_profile's pseudo-count of an empty cell


def cell_coverage(cell: Cell, reps: int, seed: int) -> dict[str, float]:
    """Coverage of each calibration on the cell's studies (an undefined kappa is a miss)."""
    probs = np.asarray(cell.probabilities)
    tables = simulate_tables(
        probs, cell.n_items, reps, rng=stream(seed, zlib.crc32(cell.label.encode()), 0)
    )
    truth = PAIR_ESTIMANDS["cohen_kappa"](probs)
    a, b, c, d = (np.asarray(x, dtype=float).reshape(-1) for x in binary_cells(tables))
    n = a + b + c + d
    pa, pb = (a + b) / n, (a + c) / n
    defined = (pa > 0) & (pa < 1) & (pb > 0) & (pb < 1)
    counts = tuple(np.where(x > 0, x, _EMPTY) for x in (a, b, c, d))
    total = sum(counts)
    top = sum(x * np.log(x / total) for x in counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = 2 * (
            top
            - profile_loglik(
                counts,
                np.where(defined, pa, 0.5),
                np.where(defined, pb, 0.5),
                np.full(n.shape, truth),
            )
        )
    rarer = np.minimum(a + b, a + c)
    crit = {
        "chi2": np.full(n.shape, stats.chi2.ppf(0.95, 1)),
        "t-union": stats.t.ppf(0.975, np.maximum(a + b + c - 1, 1)) ** 2,
        "t-rarer": stats.t.ppf(0.975, np.maximum(rarer - 1, 1)) ** 2,
        "planner": critical_value(a, b, c, d, 0.95),
    }
    return {k: float(np.mean(defined & (w <= v + 1e-9))) for k, v in crit.items()}


def _se(coverage: float, reps: int) -> float:
    return float(np.sqrt(coverage * (1 - coverage) / reps))


def main(argv: Sequence[str] | None = None) -> int:
    """Print each calibration's coverage range per regime and size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args(argv)
    groups: dict[tuple[str, int], list[dict[str, float]]] = {}
    worst: dict[str, tuple[float, str]] = {}
    for cell in grid("two")[0]:
        cov = cell_coverage(cell, args.reps, args.seed)
        size = cell.params.get("rarer_positives", cell.union_positives)
        groups.setdefault((cell.regime, size), []).append(cov)
        for k, v in cov.items():
            if k not in worst or v < worst[k][0]:
                worst[k] = (v, cell.label)
    print("regime        U/R   " + "  ".join(f"{c:>16}" for c in CALIBRATIONS))
    for (regime, size), covs in groups.items():
        cells = "  ".join(
            f"{min(c[k] for c in covs):.3f}-{max(c[k] for c in covs):.3f}".rjust(16)
            for k in CALIBRATIONS
        )
        print(f"{regime:<13} {size:<5} {cells}")
    for k, (v, label) in worst.items():
        print(f"worst {k}: {v:.4f} (MC SE {_se(v, args.reps):.4f}) at {label}")
    print(f"{args.reps:,} studies a cell, seed {args.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
