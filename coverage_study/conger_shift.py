"""Does the variance of the Conger - Fleiss difference matter for Conger's profile interval?

Run from the repository root: ``python coverage_study/conger_shift.py`` (about a minute).
``agree`` gives Conger's kappa Fleiss' profile interval moved by the estimated difference
``shift = Conger - Fleiss`` (:func:`planner.statistics.multirater_profile.shifted_interval`),
ignoring the sampling error of ``shift``. Since ``Var(C) = Var(F) + Var(shift) + 2 Cov(F,
shift)``, that matters only if ``sd(C)`` exceeds ``sd(F)``. For every cell of the grid with
unequal annotator rates (``multi-biased``: biases alternating +0.8, -0.8, 3-5 annotators) this
prints, over 1,000 of the studies the coverage study draws for the cell (the same random
streams), the true shift, the standard deviations of the Fleiss and Conger estimates and of
the shift, and the correlation of Fleiss' estimate with the shift.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: import this checkout's planner
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from coverage_study.coverage import stream  # noqa: E402
from coverage_study.grid import grid  # noqa: E402
from coverage_study.methods import _PatternRatings, multi_estimands  # noqa: E402
from coverage_study.models import category_rows, compress_patterns  # noqa: E402
from planner.statistics.multirater import chance_corrected  # noqa: E402

REPS = 1000
SEED = 20261201


def main() -> int:
    """Print one line per biased cell (see the module docstring)."""
    for cell in grid("multi")[0]:
        if cell.regime != "multi-biased" or cell.n_annotators < 3:
            continue
        m = cell.n_annotators
        probs = np.asarray(cell.probabilities)
        gen = stream(SEED, zlib.crc32(cell.label.encode()), 0)
        patterns = gen.multinomial(cell.n_items, probs / probs.sum(), size=REPS)
        mult = compress_patterns(patterns, m)
        fleiss = chance_corrected(category_rows(m), "fleiss", multiplicity=mult).estimate
        fit = _PatternRatings(m)
        conger = np.array([float(fit.fit(p).estimate) for p in patterns])
        shift = conger - fleiss
        ok = np.isfinite(conger) & np.isfinite(fleiss)
        truth = multi_estimands(m)
        true_shift = truth["conger_kappa"](probs) - truth["fleiss_kappa"](probs)
        corr = np.corrcoef(fleiss[ok], shift[ok])[0, 1]
        print(
            f"{cell.label:40s} true shift {true_shift:+.4f}  sd F {fleiss[ok].std():.4f}  "
            f"sd C {conger[ok].std():.4f}  sd shift {shift[ok].std():.4f}  "
            f"corr(F, shift) {corr:+.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
