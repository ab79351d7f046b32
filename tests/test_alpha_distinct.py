"""Krippendorff's alpha with many distinct values: the O(V Q) ratio sums against the exact ones."""

from __future__ import annotations

import numpy as np
import pytest

from planner.data.labels import ratings_from_matrix
from planner.measuring.measure_settings import MeasureSettings
from planner.statistics import alpha as ka


def _scores(items: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.lognormal(1.0, 1.0, items)[:, None] * rng.lognormal(0.0, 0.3, (items, 3))
    data[rng.random(data.shape) < 0.1] = np.nan
    return data


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ratio_expected_equals_the_direct_double_sum(seed):
    rng = np.random.default_rng(seed)
    values = np.sort(rng.lognormal(0.0, [0.5, 2.0, 4.0][seed], 400))
    values[:3] = 0.0  # zeros: distance 0 to each other, 1 to any positive value
    weights = rng.integers(0, 6, (4, values.size)).astype(float)
    d2 = ka.squared_distances("ratio", values, values)
    exact = np.einsum("bc,ck,bk->b", weights, d2, weights)
    # stated bound: the trapezoid rule is below 1e-17; floating point leaves about 1e-14
    np.testing.assert_allclose(ka.ratio_expected(weights, values), exact, rtol=1e-13)


@pytest.mark.slow
def test_ratio_alpha_above_the_direct_limit_equals_the_dense_coincidences():
    data = _scores(900, seed=3)
    ratings = ratings_from_matrix(data)
    assert ratings.n_categories > ka.RATIO_DIRECT_LIMIT
    patterns = ratings.count_patterns()
    x = ratings.numeric_values("ratio")
    dense = ka.krippendorff_alpha(patterns.dense(), x, "ratio", patterns.multiplicity)
    fast = ka.krippendorff_alpha_patterns(patterns, x, "ratio")
    assert float(fast) == pytest.approx(float(dense), abs=1e-12)
    assert ka.ratio_alpha_from_values(data) == pytest.approx(float(dense), abs=1e-12)
    # a batch of resamples gives the same alphas as one at a time
    rng = np.random.default_rng(0)
    mult = rng.multinomial(ratings.n_items, patterns.multiplicity / ratings.n_items, size=3)
    batch = ka.krippendorff_alpha_patterns(patterns, x, "ratio", mult)
    one = [float(ka.krippendorff_alpha_patterns(patterns, x, "ratio", m)) for m in mult]
    np.testing.assert_allclose(batch, one, rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_fast_sums_agree_with_the_krippendorff_package(level, monkeypatch):
    krippendorff = pytest.importorskip("krippendorff")
    monkeypatch.setattr(ka, "RATIO_DIRECT_LIMIT", 0)  # the quadrature on data the package runs
    data = np.round(_scores(80, seed=4), 2)
    ratings = ratings_from_matrix(data)
    patterns = ratings.count_patterns()
    mine = ka.krippendorff_alpha_patterns(patterns, ratings.numeric_values(level), level)
    ref = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
    assert float(mine) == pytest.approx(ref, abs=1e-10)
    assert ka.ratio_alpha_from_values(data) == pytest.approx(
        krippendorff.alpha(reliability_data=data.T, level_of_measurement="ratio"), abs=1e-10
    )


def test_ratio_alpha_with_many_values_gets_a_bootstrap_interval():
    # before: more than 2,000 distinct ratio values gave no interval (the bootstrap was
    # quadratic in the values); now each resample costs O(V Q)
    from planner.measuring.measure import measure_agreement

    ratings = ratings_from_matrix(_scores(800, seed=6))
    assert ratings.n_categories > ka.RATIO_DIRECT_LIMIT
    alpha = measure_agreement(
        ratings, MeasureSettings(level="ratio", n_boot=100), rng=1
    ).coefficients["krippendorff_alpha"]
    assert alpha.method.startswith("bootstrap")
    assert alpha.ci_low < alpha.estimate < alpha.ci_high


def test_one_ratio_estimate_streams_its_table_and_a_bootstrap_batch_keeps_it(monkeypatch):
    # a single estimate's memory stays one block of the (K, Q) table; a batch of resampled
    # weights (a bootstrap) keeps the whole table for its next batch; the sums agree either way
    monkeypatch.setattr(ka, "_RATIO_CACHE", {})
    rng = np.random.default_rng(3)
    values = np.sort(rng.lognormal(0.0, 1.0, 3000))
    weights = rng.integers(1, 4, (5, values.size)).astype(float)
    single = ka.ratio_pair_kernel_sum(weights[0], values)
    assert ka._RATIO_CACHE == {}
    batch = ka.ratio_pair_kernel_sum(weights, values)
    assert len(ka._RATIO_CACHE) == 1
    again = ka.ratio_pair_kernel_sum(weights[0], values)  # the kept table, reused
    np.testing.assert_allclose([single, again], [batch[0], batch[0]], rtol=1e-12)
