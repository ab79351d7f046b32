"""An independent population-weighted PSA interval for tests (no planner code).

Uebersax's specific positive agreement of ``r`` labels an item, ``S = sum W_h mean_h x /
sum W_h mean_h y`` with ``x = j (j - 1)`` and ``y = j (r - 1)`` for an item with ``j`` of its
``r`` labels positive (a pair: ``2 a / (2 a + b + c)``); the linearised residual
``u = (x - S y) / Y`` with stratum variances ``s_h^2`` (``n_h - 1`` in the denominator), the
variance ``sum W_h^2 s_h^2 / n_h``, Satterthwaite's df, and a t interval on the logit scale.
It reproduces ``agree --stratum-col``'s interval on the shipped example files to 1e-12.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: the strata of ``scenarios/unsupported-claims-three-annotators-strata.toml`` (and of
#: ``examples/stratified-labels-three.csv``) and their traffic shares
THREE_ANNOTATOR_STRATA = (
    "flagged by an automated check",
    "historically risky query types",
    "user complaints",
    "rest of traffic",
)
THREE_ANNOTATOR_SHARES = np.array([0.04, 0.10, 0.01, 0.85])
#: the shipped scenario of those strata and its example labels (three annotators an item)
THREE_ANNOTATOR_SCENARIO = "unsupported-claims-three-annotators-strata"
THREE_ANNOTATOR_FILE = "examples/stratified-labels-three.csv"


def weighted_psa(
    counts: np.ndarray, shares: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimate, lower and upper limit of ``(..., H, r + 1)`` counts of items with
    ``0 .. r`` positive labels in each stratum (vectorised over the leading axes)."""
    r = counts.shape[-1] - 1
    j = np.arange(r + 1.0)
    x, y = j * (j - 1), j * (r - 1)
    n = counts.sum(axis=-1)
    big_x = (shares * (counts @ x) / n).sum(axis=-1)
    big_y = (shares * (counts @ y) / n).sum(axis=-1)
    psa = big_x / big_y
    u = (x - np.asarray(psa)[..., None, None] * y) / np.asarray(big_y)[..., None, None]
    mean = (counts * u).sum(axis=-1) / n
    s2 = (counts * (u - mean[..., None]) ** 2).sum(axis=-1) / (n - 1)
    a = shares**2 / n
    var = (a * s2).sum(axis=-1)
    df = var**2 / ((a * s2) ** 2 / (n - 1)).sum(axis=-1)
    t = stats.t.ppf(0.5 + level / 2, df)
    logit, se = np.log(psa / (1 - psa)), np.sqrt(var) / (psa * (1 - psa))
    low = 1 / (1 + np.exp(-(logit - t * se)))
    high = 1 / (1 + np.exp(-(logit + t * se)))
    return psa, low, high


#: a [team] of three named people at their own seconds and rates (ana 60 s at 30 an hour,
#: bo 120 s at 40, cy 90 s at 35), appended to a scenario
NAMED_TEAM = """
[team]
start = "2027-01-04"

[[team.annotator]]
name = "ana"
seconds_per_item = 60
hourly_rate = 30.0

[[team.annotator]]
name = "bo"
seconds_per_item = 120
hourly_rate = 40.0

[[team.annotator]]
name = "cy"
seconds_per_item = 90
hourly_rate = 35.0
"""
