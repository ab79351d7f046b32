"""Distinct count patterns straight from a raw ratings matrix (planner.data.labels).

The block-by-block pattern coder must give exactly what counting every item and
compressing the counts gives, and alpha and Fleiss' kappa from its patterns must equal the
peer packages (``krippendorff``, statsmodels) on the same raw matrix.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.labels import patterns_from_values
from planner.statistics.alpha import krippendorff_alpha
from planner.statistics.multirater import chance_corrected, compress


def counted_patterns(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent reference: one column of counts per distinct label, then compress()."""
    present = values[~np.isnan(values)]
    categories = np.unique(present)
    counts = (values[:, :, None] == categories[None, None, :]).sum(axis=1)
    rows, mult = compress(counts)
    return rows, mult, categories


def ratings(n: int, m: int, low: int, span: int, missing: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(low, low + span, n)
    values = np.where(
        rng.random((n, m)) < 0.6, truth[:, None], rng.integers(low, low + span, (n, m))
    )
    values = values.astype(float)
    values[rng.random((n, m)) < missing] = np.nan
    return values


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 400),
    m=st.integers(1, 30),
    low=st.sampled_from([0, 1, -7, 2**31 - 70, -(2**31) + 1, 10**12]),
    span=st.integers(1, 70),
    missing=st.sampled_from([0.0, 0.1, 0.6, 1.0]),
    fractional=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_patterns_equal_counting_every_item(n, m, low, span, missing, fractional, seed):
    values = ratings(n, m, low, span, missing, seed)
    if fractional:  # one label a hair off an integer: no pattern code may round it away
        values[seed % n, seed % m] = np.nextafter(float(low + span // 2), np.inf)
    if np.isnan(values).all():
        return
    rows, mult, categories = patterns_from_values(values)
    ref_rows, ref_mult, ref_categories = counted_patterns(values)
    np.testing.assert_array_equal(categories, ref_categories)
    np.testing.assert_array_equal(rows, ref_rows)
    np.testing.assert_array_equal(mult, ref_mult)
    assert rows.dtype == np.int64 and mult.dtype == np.int64
    assert int(mult.sum()) == n


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 300),
    m=st.integers(2, 12),
    span=st.integers(2, 9),
    missing=st.sampled_from([0.0, 0.2, 0.5]),
    seed=st.integers(0, 10_000),
)
def test_alpha_from_patterns_equals_the_krippendorff_package(n, m, span, missing, seed):
    krippendorff = pytest.importorskip("krippendorff")
    values = ratings(n, m, 1, span, missing, seed)
    pairable = (~np.isnan(values)).sum(axis=1) >= 2
    if len(np.unique(values[pairable][~np.isnan(values[pairable])])) < 2:
        return  # no variation: both sides are undefined
    rows, mult, categories = patterns_from_values(values)
    for level in ("nominal", "interval"):
        ours = float(krippendorff_alpha(rows, categories, level, multiplicity=mult))
        peer = krippendorff.alpha(reliability_data=values.T, level_of_measurement=level)
        assert ours == pytest.approx(peer, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 300),
    m=st.integers(2, 12),
    span=st.integers(2, 9),
    seed=st.integers(0, 10_000),
)
def test_fleiss_from_patterns_equals_statsmodels(n, m, span, seed):
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    values = ratings(n, m, 0, span, 0.0, seed)
    if len(np.unique(values)) < 2:
        return
    rows, mult, _ = patterns_from_values(values)
    ours = float(chance_corrected(rows, "fleiss", multiplicity=mult).estimate)
    table, _ = inter_rater.aggregate_raters(values.astype(int))
    assert ours == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)
