"""Which critical value the several-annotator profile interval needs: coverage by calibration.

Run from the repository root::

    python coverage_study/profile_calibration.py                  # U = 10-180, 2,000 studies
    python coverage_study/profile_calibration.py --reps 500 \
        --json coverage_study/profile_calibration.json

The profile interval of Fleiss' kappa covers the true value exactly when the profile
likelihood-ratio statistic ``W`` at the true value is at most the critical value
(:func:`planner.statistics.multirater_profile.likelihood_ratio`), so one evaluation per
simulated study gives the coverage of every calibration at once, on the studies
:mod:`coverage_study.coverage` draws for the cell (the same random streams). Calibrations:

* ``t`` (agree's): ``W <= t_nu^2``, ``nu`` the items with any rating in the rarer category
  less one;
* ``t-ratings``: ``W <= t_nu^2`` with ``nu`` the *ratings* in the rarer category less one
  (more degrees of freedom with more annotators per item);
* ``chi2``: ``W <= chi2_1(0.95) = 3.84``, the first-order calibration;
* ``bartlett-oracle``: ``W / E[W] <= chi2_1(0.95)``, with ``E[W]`` the cell's simulated mean
  (of the studies with ``W`` finite): the best any Bartlett correction (a rescaling of ``W``
  by its mean, Bartlett 1937; for empirical likelihood DiCiccio, Hall and Romano 1991) can
  do, since a real one estimates that mean from the data;

and for each the share of studies whose miss is on the low side (true value below the lower
limit: the signed root ``sign(estimate - truth) sqrt(W)`` above the critical root) and on the
high side. A Bartlett correction rescales both tails alike, so it cannot mend a cell whose
misses are all on one side.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: import this checkout's planner
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from coverage_study.coverage import stream  # noqa: E402
from coverage_study.grid import Cell, grid  # noqa: E402
from coverage_study.methods import multi_estimands  # noqa: E402
from coverage_study.models import category_rows, compress_patterns  # noqa: E402
from planner.statistics import multirater_profile as mp  # noqa: E402
from planner.statistics.multirater import chance_corrected  # noqa: E402

CHI2 = float(stats.chi2.ppf(0.95, 1))
CALIBRATIONS = ("t", "t-ratings", "chi2", "bartlett-oracle")


def cell_statistics(
    cell: Cell, reps: int, seed: int
) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """``W`` at the true Fleiss' kappa, the critical values of ``t`` and ``t-ratings`` and
    the sign of ``estimate - truth`` for each of the cell's simulated studies."""
    key = zlib.crc32(cell.label.encode())
    probs = np.asarray(cell.probabilities)
    patterns = stream(seed, key, 0).multinomial(cell.n_items, probs / probs.sum(), size=reps)
    truth = multi_estimands(cell.n_annotators)["fleiss_kappa"](probs)
    rows = category_rows(cell.n_annotators)
    mult = compress_patterns(patterns, cell.n_annotators).astype(float)
    stat, crit = mp.likelihood_ratio(rows, mult, np.full(reps, truth))
    estimate = chance_corrected(rows, "fleiss", multiplicity=mult).estimate
    rarer = np.minimum(mult @ rows[:, 0], mult @ rows[:, 1])
    by_ratings = stats.t.ppf(0.975, np.maximum(rarer - 1, 1)) ** 2
    return stat, {"t": crit, "t-ratings": by_ratings}, np.sign(estimate - truth)


def calibrate(stat: np.ndarray, crit: dict[str, np.ndarray], sign: np.ndarray) -> dict[str, Any]:
    """Coverage and the low / high miss shares of each calibration (NaN ``W`` is a miss)."""
    finite = np.isfinite(stat)
    mean_w = float(np.mean(stat[finite])) if finite.any() else float("nan")
    critical = {**crit, "chi2": np.full_like(stat, CHI2), "bartlett-oracle": CHI2 * mean_w}
    out: dict[str, Any] = {"mean_w": mean_w}
    for name in CALIBRATIONS:
        miss = ~(finite & (stat <= critical[name]))
        out[name] = {
            "coverage": float(1 - miss.mean()),
            "miss_low": float((miss & finite & (sign > 0)).mean()),
            "miss_high": float((miss & finite & (sign <= 0)).mean()),
        }
    return out


def run(reps: int, seed: int, slices: Sequence[str] = ("multi", "multi-few")) -> list[dict]:
    """One row per cell: its label, annotators, union positives and :func:`calibrate`."""
    rows = []
    for slice_name in slices:
        for cell in grid(slice_name)[0]:
            stat, crit, sign = cell_statistics(cell, reps, seed)
            rows.append(
                {
                    "cell": cell.label,
                    "regime": cell.regime,
                    "n_annotators": cell.n_annotators,
                    "union_positives": cell.union_positives,
                    "reps": reps,
                    **calibrate(stat, crit, sign),
                }
            )
    return rows


def summary(rows: list[dict]) -> list[str]:
    """Per union positives and annotators (2 or 3-5): each calibration's coverage range."""
    lines = ["U   M    " + "  ".join(f"{c:>22}" for c in CALIBRATIONS)]
    for u in sorted({r["union_positives"] for r in rows}):
        for several in (False, True):
            part = [
                r for r in rows if r["union_positives"] == u and (r["n_annotators"] > 2) == several
            ]
            if not part:
                continue
            ranges = []
            for c in CALIBRATIONS:
                cov = [r[c]["coverage"] for r in part]
                ranges.append(f"{min(cov):.3f}-{max(cov):.3f} ({len(cov)})")
            lines.append(
                f"{u:<4}{'3-5' if several else '2':<5}" + "  ".join(f"{x:>22}" for x in ranges)
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the summary, write the rows as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = run(args.reps, args.seed)
    print("\n".join(summary(rows)))
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
