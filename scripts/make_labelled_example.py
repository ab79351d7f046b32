"""Rebuild examples/labelled-600.csv: the first 600 items of a study of the headline model.

The headline model is ``plan --prevalence 0.08 --width 0.08``'s: true prevalence 0.08 and two
annotators who each err on 4 % of items, errors balanced (sensitivity 0.75, specificity
0.97826 each) and independent given the truth. Each item's truth and both labels are drawn
item by item from a fixed seed, in the long layout (item, annotator, label) with labels 1
(positive) and 0, so that ``plan --labelled examples/labelled-600.csv`` needs no
``--positive``. Run from the repository root; the file is committed, and this script rebuilds
it exactly. A copy ships as package data (planner/example_files, see pyproject.toml).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from planner.sizing.model import pair_from_annotators

ROOT = Path(__file__).resolve().parent.parent
ITEMS = 600
SEED = 20261202


def labels(items: int = ITEMS, seed: int = SEED) -> list[tuple[str, str, int]]:
    """Rows (item, annotator, label) of ``items`` items drawn from the headline model."""
    model = pair_from_annotators(0.08)
    sensitivity = model.assumptions["sensitivity"]
    specificity = model.assumptions["specificity"]
    rng = np.random.default_rng(seed)
    truth = rng.random(items) < model.assumptions["prevalence"]
    rows = []
    draws = rng.random((items, 2))
    for i in range(items):
        for j, name in enumerate(("ann_a", "ann_b")):
            says_yes = sensitivity[j] if truth[i] else 1 - specificity[j]
            rows.append((f"item-{i + 1:04d}", name, int(draws[i, j] < says_yes)))
    return rows


if __name__ == "__main__":
    with open(ROOT / "examples" / "labelled-600.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "annotator", "label"])
        writer.writerows(labels())
