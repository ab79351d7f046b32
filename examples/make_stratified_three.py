"""Rebuild ``stratified-labels-three.csv``, a stratified study of three annotators so far.

Long layout (``item``, ``stratum``, ``annotator``, ``label``), three annotators (``ann_a``,
``ann_b``, ``ann_c``), labels ``unsupported``/``supported``: 600 items from the four strata of
``scenarios/unsupported-claims-three-annotators-strata.toml`` at an enriched allocation (120
flagged by an automated check, 150 historically risky query types, 40 user complaints, 290 rest
of traffic). Each stratum's ordered labels are one multinomial draw from its annotator model's
probabilities of the eight label triples (fixed seed), so the file is rebuilt exactly:

    python examples/make_stratified_three.py
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from planner.sizing.annotator_model import raters_model

HERE = Path(__file__).parent
ITEMS = (120, 150, 40, 290)
#: the scenario's strata: name, prevalence, error rate
STRATA = (
    ("flagged by an automated check", 0.40, 0.08),
    ("historically risky query types", 0.15, 0.05),
    ("user complaints", 0.50, 0.10),
    ("rest of traffic", 0.04, 0.02),
)
LABELS = ("supported", "unsupported")  # category 1 is positive
ANNOTATORS = ("ann_a", "ann_b", "ann_c")


def stratified_labels_three(seed: int = 20261206) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    triples = list(itertools.product(range(2), repeat=3))
    items = []
    for (name, prevalence, error), n in zip(STRATA, ITEMS, strict=True):
        probs = raters_model(prevalence, 3, error_rate=error).ordered_probabilities().ravel()
        counts = rng.multinomial(n, probs / probs.sum())
        cells = np.repeat(np.arange(len(triples)), counts)
        items += [(name, triples[c]) for c in rng.permutation(cells)]
    rows = []
    for number, index in enumerate(rng.permutation(len(items)), start=1):
        stratum, labels = items[index]
        item = f"answer-{number:03d}"
        rows += [(item, stratum, a, LABELS[x]) for a, x in zip(ANNOTATORS, labels, strict=True)]
    return pd.DataFrame(rows, columns=["item", "stratum", "annotator", "label"])


if __name__ == "__main__":
    stratified_labels_three().to_csv(HERE / "stratified-labels-three.csv", index=False)
