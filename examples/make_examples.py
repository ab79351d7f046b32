"""Rebuild the example label files the README uses (run from the repository root).

* ``labels.csv``: long layout (item, annotator, label), two annotators, the 500-item pilot of the
  unsupported-claims scenario: 6 items both flag, 21 only ``ann_a`` flags, 14 only ``ann_b``
  flags, 459 neither (the counts ``--pilot-counts 6,21,14,459`` stands for).
* ``pilot.csv``: the same pilot with labels 1 (unsupported claim) and 0, so that
  ``plan --pilot examples/pilot.csv`` needs no ``--positive``.
* ``wide.csv`` and ``wide.parquet``: wide layout, one row per item with ``item``, ``week`` and one
  column per annotator (``alice``, ``bob``, ``carol``); 600 items, true prevalence 0.1, each
  annotator errs on 5 % of items, ``carol`` leaves 10 % unrated.

The files are committed; this script documents how they were made and rebuilds them exactly
(fixed seed).

``anesthesia.csv`` is not generated: it is Dawid & Skene's (1979) Table 1 (45 patients, 5
observers, observer 1 three times), the copy in tests/data (see tests/data/README.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent


def pilot_long() -> pd.DataFrame:
    pattern = [("unsupported", "unsupported")] * 6 + [("unsupported", "supported")] * 21
    pattern += [("supported", "unsupported")] * 14 + [("supported", "supported")] * 459
    order = np.random.default_rng(20261201).permutation(len(pattern))
    rows = []
    for item, index in enumerate(order, start=1):
        a, b = pattern[index]
        rows += [(f"claim-{item:03d}", "ann_a", a), (f"claim-{item:03d}", "ann_b", b)]
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def pilot_binary() -> pd.DataFrame:
    frame = pilot_long()
    frame["label"] = (frame["label"] == "unsupported").astype(int)
    return frame


def three_annotators_wide() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 600
    truth = rng.random(n) < 0.1
    frame = pd.DataFrame({"item": [f"doc-{i:04d}" for i in range(1, n + 1)]})
    frame["week"] = np.repeat([f"2026-W{w:02d}" for w in range(40, 46)], n // 6)
    for name in ("alice", "bob", "carol"):
        flips = rng.random(n) < 0.05
        frame[name] = np.where(truth ^ flips, "unsupported", "supported")
    frame["carol"] = frame["carol"].where(rng.random(n) >= 0.1, None)
    return frame


if __name__ == "__main__":
    pilot_long().to_csv(HERE / "labels.csv", index=False)
    pilot_binary().to_csv(HERE / "pilot.csv", index=False)
    wide = three_annotators_wide()
    wide.to_csv(HERE / "wide.csv", index=False)
    wide.to_parquet(HERE / "wide.parquet", index=False)
