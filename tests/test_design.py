"""Stratified designs: docs/methods/stratified-sampling.md 3.5 values, optimal allocation,
estimator coverage."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sizing.design import (
    linearised_variance,
    metric_value,
    optimal_allocation,
    residual_sd,
    split_items,
    stratified_bootstrap_interval,
    weighted_estimate,
)
from planner.sizing.studies import simulate_tables

# docs/methods/stratified-sampling.md 3.5: three strata, cells (a, b, c, d) per stratum.
SHARES = np.array([0.80, 0.15, 0.05])
CELLS = np.array([[0.002, 0.006, 0.004, 0.988], [0.04, 0.05, 0.04, 0.87], [0.40, 0.12, 0.10, 0.38]])
POPULATION = (SHARES[:, None] * CELLS).sum(axis=0)


def test_methods_3_5_population_and_stratum_values():
    assert metric_value("psa", POPULATION) == pytest.approx(0.6294, abs=1e-4)
    assert metric_value("kappa", POPULATION) == pytest.approx(0.6125, abs=1e-4)
    np.testing.assert_allclose(metric_value("psa", CELLS), [0.286, 0.471, 0.784], atol=1e-3)


@pytest.mark.parametrize(
    ("metric", "costs", "expected_n", "expected_sd"),
    [
        ("psa", [1, 1, 1], [715, 451, 334], 0.0351),
        ("psa", [1, 1, 3], [615, 387, 166], 0.0408),
        ("kappa", [1, 1, 1], [722, 450, 328], 0.0367),
    ],
)
def test_methods_3_5_optimal_allocation(metric, costs, expected_n, expected_sd):
    sds = residual_sd(metric, CELLS, POPULATION)
    n = optimal_allocation(SHARES, sds, costs, 1500)
    np.testing.assert_allclose(n, expected_n, atol=1)
    assert np.sqrt(linearised_variance(SHARES, sds, n)) == pytest.approx(expected_sd, abs=1e-4)


def test_proportional_and_equal_allocations_are_worse():
    sds = residual_sd("psa", CELLS, POPULATION)
    assert np.sqrt(linearised_variance(SHARES, sds, [1200, 225, 75])) == pytest.approx(
        0.0481, abs=1e-4
    )
    assert np.sqrt(linearised_variance(SHARES, sds, [500, 500, 500])) == pytest.approx(
        0.0368, abs=1e-4
    )


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.05, 1), min_size=3, max_size=3),
    st.lists(st.floats(0.1, 3), min_size=3, max_size=3),
    st.lists(st.integers(1, 4), min_size=3, max_size=3),
)
def test_allocation_beats_a_brute_force_grid(raw_shares, sds, costs):
    shares = np.array(raw_shares) / sum(raw_shares)
    budget = 120
    best = optimal_allocation(shares, sds, costs, budget)
    v_best = linearised_variance(shares, sds, best)
    assert np.dot(best, costs) == pytest.approx(budget)
    for n1, n2 in itertools.product(range(1, 120), range(1, 120)):
        n3 = (budget - costs[0] * n1 - costs[1] * n2) / costs[2]
        if n3 < 1:
            continue
        assert linearised_variance(shares, sds, [n1, n2, n3]) >= v_best - 1e-12


def test_allocation_floor_is_respected_and_budget_kept():
    sds = np.array([0.0, 2.0, 4.0])  # a stratum believed empty still gets its floor
    n = optimal_allocation([0.5, 0.3, 0.2], sds, [1, 1, 1], 1000, floor=25)
    assert n[0] == 25 and n.sum() == pytest.approx(1000)
    # the other 975 split as W_h S_h: 0.6 : 0.8
    assert split_items(1000, n / n.sum(), floor=25) == [25, 418, 557]


def test_gradient_form_equals_the_closed_form_psa_residual():
    # docs/methods/stratified-sampling.md 3.2:
    # S^2_{z,h} = 4(1-R)^2 p_a + R^2 q - (2(1-R) p_a - R q)^2, u = z / X
    r = metric_value("psa", POPULATION)
    x = 2 * POPULATION[0] + POPULATION[1] + POPULATION[2]
    p_a, q = CELLS[:, 0], CELLS[:, 1] + CELLS[:, 2]
    closed = np.sqrt(4 * (1 - r) ** 2 * p_a + r**2 * q - (2 * (1 - r) * p_a - r * q) ** 2) / x
    np.testing.assert_allclose(residual_sd("psa", CELLS, POPULATION), closed, rtol=1e-10)


@pytest.mark.parametrize("metric", ["psa", "kappa"])
def test_weighted_estimator_bias_sd_and_coverage_by_simulation(metric):
    # docs/methods/stratified-sampling.md 3.5: at the Neyman allocation the simulated SD matches
    # the analytic one
    # and the analysis's logit-t interval (weighted_estimate) covers about 0.947.
    sds = residual_sd(metric, CELLS, POPULATION)
    n = np.round(optimal_allocation(SHARES, sds, [1, 1, 1], 1500)).astype(int)
    reps = 8000
    tables = np.stack(
        [simulate_tables(CELLS[h], n[h], reps, rng=100 + h) for h in range(3)], axis=1
    )
    estimate, low, high = weighted_estimate(metric, tables, SHARES)
    truth = metric_value(metric, POPULATION)
    analytic = np.sqrt(linearised_variance(SHARES, sds, n))
    assert abs(np.mean(estimate) - truth) < 0.2 * analytic  # bias small next to the SD
    assert np.std(estimate) == pytest.approx(analytic, rel=0.04)
    coverage = np.mean((low <= truth) & (truth <= high))
    assert abs(coverage - 0.95) < 0.015  # MC SE 0.0024


def test_stratified_bootstrap_coverage_by_simulation():
    n = [715, 451, 334]
    truth = metric_value("psa", POPULATION)
    rng = np.random.default_rng(5)
    reps, covered = 300, 0
    for _ in range(reps):
        tables = np.stack([rng.multinomial(n[h], CELLS[h]) for h in range(3)]).reshape(3, 2, 2)
        lo, hi = stratified_bootstrap_interval("psa", tables, SHARES, n_boot=400, rng=rng)
        covered += lo <= truth <= hi
    # docs/methods/stratified-sampling.md reports 0.940-0.942; MC SE 0.013
    assert 0.91 <= covered / reps <= 0.98


@pytest.mark.parametrize(
    ("field", "value", "parameter"),
    [
        ("width", 0.0, "width"),
        ("assurance", 1.0, "assurance"),
        ("replicates", 10, "replicates"),
        ("max_items", 5, "max_items"),
        ("floor", -1, "floor_items"),
        ("start", 0, "start"),
    ],
)
def test_a_stratified_search_outside_its_range_names_the_parameter(field, value, parameter):
    from planner.errors import InvalidInput
    from planner.sizing.design import StratifiedSearch

    given = {"width": 0.05, "assurance": 0.5, "replicates": 200, "max_items": 1000, field: value}
    with pytest.raises(InvalidInput) as caught:
        StratifiedSearch(**given)
    assert caught.value.parameter == parameter


def test_a_stratified_search_takes_the_plan_s_target_and_effort():
    from planner.sizing.design import StratifiedSearch
    from planner.sizing.plan import PlanSettings

    settings = PlanSettings(width=0.06, assurance=0.8, replicates=500, max_items=20_000)
    search = StratifiedSearch.of(settings, floor=30, start=250)
    assert search == StratifiedSearch(0.06, 0.8, 500, 20_000, 30, 250)
