"""Every interval lies in its parameter's range: kappa-type in [-1, 1], proportions in [0, 1].

Wald limits ``estimate -/+ z SE`` pass the range with few items or extreme tables (a Wald
Cohen's kappa of a table with almost only disagreements reaches below -1); the intervals
are clipped where they are built (:func:`planner.statistics.intervals.within`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.statistics.intervals import (
    KAPPA_METHODS,
    PSA_METHODS,
    kappa_interval,
    psa_interval,
    within,
)
from planner.statistics.multirater import chance_corrected

tables = st.lists(st.integers(0, 40), min_size=4, max_size=4).filter(lambda c: sum(c) >= 2)


def _inside(ci, low, high):
    lo, hi = np.asarray(ci[0], dtype=float), np.asarray(ci[1], dtype=float)
    ok = np.isnan(lo) | ((lo >= low) & (lo <= high))
    ok &= np.isnan(hi) | ((hi >= low) & (hi <= high))
    return bool(np.all(ok))


def test_wald_kappa_of_a_disagreeing_table_is_clipped_at_minus_one():
    # a = d = 0, b = 3, c = 1: kappa = -0.6 with FCE SE 0.37, so -0.6 - 1.96 SE < -1
    table = np.array([[0.0, 3.0], [1.0, 0.0]])
    ci = kappa_interval(table, 0.95, "fce")
    assert float(ci.low) == -1.0 and float(ci.high) <= 1.0


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(cells=tables, level=st.sampled_from([0.5, 0.9, 0.95, 0.999]))
def test_pair_intervals_stay_in_range(cells, level):
    table = np.array(cells, dtype=float).reshape(2, 2)
    for method in KAPPA_METHODS:
        if method != "bootstrap":
            assert _inside(kappa_interval(table, level, method), -1, 1), method
    for method in PSA_METHODS:
        if method != "bootstrap":
            assert _inside(psa_interval(table, level, method), 0, 1), method


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), min_size=2, max_size=8),
    chance=st.sampled_from(["fleiss", "gwet", "brennan-prediger"]),
    scale=st.sampled_from(["linear", "log1m"]),
)
def test_multirater_intervals_stay_in_range(rows, chance, scale):
    counts = np.array(rows, dtype=float)
    res = chance_corrected(counts, chance)
    with np.errstate(all="ignore"):
        ci = res.confidence_interval(0.99, scale)
    assert _inside(ci, -1, 1)


def test_within_keeps_nan_and_clips_both_ends():
    ci = within(np.array([-3.0, 0.2, np.nan]), np.array([0.5, 7.0, np.nan]), (0.0, 1.0))
    assert ci.low.tolist()[:2] == [0.0, 0.2] and ci.high.tolist()[:2] == [0.5, 1.0]
    assert np.isnan(ci.low[2]) and np.isnan(ci.high[2])
