"""Rebuild ``stratified-labels.csv``, the example of a stratified study (run from the root).

Long layout (``item``, ``stratum``, ``annotator``, ``label``), two annotators (``ann_a`` and
``ann_b``), labels ``unsupported``/``supported``: 600 items drawn from the four strata of
``scenarios/unsupported-claims-enriched.toml`` at an enriched allocation (120 flagged by an
automated check, 150 historically risky query types, 40 user complaints, 290 rest of traffic;
the population shares are 0.04, 0.10, 0.01, 0.85). Each stratum's 2 x 2 table is one multinomial
draw from the scenario's cell probabilities for that stratum (fixed seed), so the file is rebuilt
exactly:

    python examples/make_stratified.py

``planner agree examples/stratified-labels.csv --stratum-col stratum --population-shares-from
scenarios/unsupported-claims-enriched.toml`` weights it back to traffic.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from planner.data.scenario import load_scenario
from planner.sizing.pair_strata import stratum_models

HERE = Path(__file__).parent
ITEMS = (120, 150, 40, 290)
CELLS = (("unsupported", "unsupported"), ("unsupported", "supported"))
CELLS += (("supported", "unsupported"), ("supported", "supported"))


def stratified_labels(seed: int = 20261202) -> pd.DataFrame:
    scenario = load_scenario(HERE.parent / "scenarios" / "unsupported-claims-enriched.toml")
    rng = np.random.default_rng(seed)
    items = []
    for stratum, model, n in zip(scenario.strata, stratum_models(scenario), ITEMS, strict=True):
        counts = rng.multinomial(n, np.asarray(model.cells, dtype=float).reshape(4))
        cells = np.repeat(np.arange(4), counts)
        items += [(stratum.name, CELLS[c]) for c in rng.permutation(cells)]
    order = rng.permutation(len(items))
    rows = []
    for number, index in enumerate(order, start=1):
        stratum, (a, b) = items[index]
        item = f"answer-{number:03d}"
        rows += [(item, stratum, "ann_a", a), (item, stratum, "ann_b", b)]
    return pd.DataFrame(rows, columns=["item", "stratum", "annotator", "label"])


if __name__ == "__main__":
    stratified_labels().to_csv(HERE / "stratified-labels.csv", index=False)
