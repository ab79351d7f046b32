"""Sample sizes: published values, exact checks and independent simulations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from planner import intervals as iv
from planner.errors import TargetUnreachable
from planner.model import PairModel, pair_from_annotators, pair_from_counts
from planner.search import (
    analytic_items,
    exact_psa_assurance,
    find_sample_size,
    inverse_sampling_items,
    union_positives_for_assurance,
    worst_case_union_positives,
)
from planner.simulation import simulate_tables
from tests.conftest import cells_from_margins


def _model(cells) -> PairModel:
    return PairModel(cells=tuple(cells), source="test", assumptions={})


@pytest.mark.parametrize(("width", "delta", "wilson"), [(0.08, 186, 182), (0.05, 477, 472)])
def test_worst_case_union_positives(width, delta, wilson):
    # METHODS.md 2.2: delta 186 / 477, Wilson guarantee for every outcome 182 / 472.
    assert worst_case_union_positives(width) == {"delta": delta, "wilson": wilson}


def test_wilson_guarantee_holds_for_every_outcome_and_fails_just_below():
    u = worst_case_union_positives(0.08)["wilson"]
    for trial, expect in [(u, True), (u - 3, False)]:
        a = np.arange(trial + 1)
        hw = iv.psa_conditional_interval(a, trial).half_width
        assert bool(np.all(hw <= 0.08)) is expect


@pytest.mark.parametrize(
    ("width", "psa", "u80", "u90"),
    [
        (0.08, 0.25, 176, 178),
        (0.08, 0.65, 132, 138),
        (0.05, 0.25, 449, 456),
        (0.05, 0.65, 335, 344),
    ],
)
def test_stop_rule_union_positives_match_methods_table(width, psa, u80, u90):
    j = float(iv.jaccard_from_psa(psa))
    assert union_positives_for_assurance(j, width, assurance=0.8) == u80
    assert union_positives_for_assurance(j, width, assurance=0.9) == u90


def test_inverse_sampling_items_match_methods():
    # METHODS.md 2.2: at r = 0.082, U = 186 needs 2 268 items on average (p90 2 475),
    # U = 477 needs 5 817 (p90 6 147).
    out = inverse_sampling_items(186, 0.082)
    assert round(out["expected"]) == 2268 and out["p90"] == 2475
    out = inverse_sampling_items(477, 0.082)
    assert round(out["expected"]) == 5817 and out["p90"] == 6147
    # independent: scipy.stats' negative binomial quantile
    assert out["p90"] == 477 + stats.nbinom.ppf(0.9, 477, 0.082)


@pytest.mark.parametrize(
    ("prevalence", "kappa", "n"),
    [(0.05, 0.2, 1313), (0.05, 0.8, 768), (0.10, 0.6, 705), (0.30, 0.6, 296), (0.50, 0.8, 139)],
)
def test_kappa_analytic_start_matches_methods_fce_table(prevalence, kappa, n):
    # METHODS.md 2.3: n = z^2 Q / w^2 at w = 0.10 with no rater bias.
    model = _model(cells_from_margins(prevalence, prevalence, kappa))
    assert np.ceil(analytic_items(model, "kappa", 0.10, 0.95)) == n


def test_kappa_analytic_start_on_the_example_margins():
    # METHODS.md 2.3: the example margins (kappa 0.219) need 1 429 items for w = 0.10 and
    # 5 716 for w = 0.05.
    model = pair_from_counts([6, 21, 14, 459])
    assert np.ceil(analytic_items(model, "kappa", 0.10, 0.95)) == 1429
    assert np.ceil(analytic_items(model, "kappa", 0.05, 0.95)) == 5716


def test_exact_assurance_matches_scipy_double_sum():
    model = pair_from_counts([6, 21, 14, 459])
    n, width = 1500, 0.08
    r, j = model.union_rate, model.jaccard
    total = 0.0
    for u in range(1, n + 1):
        a = np.arange(u + 1)
        hw = iv.psa_conditional_interval(a, u).half_width
        total += stats.binom.pmf(u, n, r) * np.sum(stats.binom.pmf(a, u, j) * (hw <= width))
    assert exact_psa_assurance(model, n, width) == pytest.approx(total, abs=1e-9)


def _share_narrow(model, metric, method, n, width, reps, seed):
    """Independent simulation: fresh multinomial tables, no nested studies, no search."""
    tables = simulate_tables(model.cells, n, reps, rng=seed)
    fn = iv.psa_interval if metric == "psa" else iv.kappa_interval
    hw = fn(tables, 0.95, method).half_width
    return float(np.mean(np.nan_to_num(hw, nan=np.inf) <= width))


@pytest.mark.parametrize("metric", ["psa", "kappa"])
@pytest.mark.parametrize("assurance", [0.5, 0.9])
@pytest.mark.parametrize(
    "model",
    [pair_from_annotators(0.08), pair_from_counts([6, 21, 14, 459])],
    ids=["prevalence-0.08", "chapter-pilot"],
)
def test_planned_n_checked_by_independent_simulation(metric, assurance, model):
    width = 0.08 if metric == "psa" else 0.1
    res = find_sample_size(model, metric, width, assurance=assurance, n_reps=3000, rng=8)
    reps = 6000
    se = np.sqrt(assurance * (1 - assurance) / reps)
    at_n = _share_narrow(model, metric, res.method, res.items, width, reps, seed=1234)
    below = _share_narrow(model, metric, res.method, int(0.9 * res.items), width, reps, seed=99)
    assert at_n >= assurance - 3.5 * se - 3.5 * res.assurance_mc_se
    assert below < assurance - 0.1
    if res.exact_items is not None:
        assert abs(res.items - res.exact_items) <= 4 * res.items_mc_se + 2


def test_search_is_reproducible_and_reports_its_precision():
    model = pair_from_annotators(0.08)
    a = find_sample_size(model, "psa", 0.08, rng=5)
    b = find_sample_size(model, "psa", 0.08, rng=5)
    assert a == b
    assert a.assurance >= 0.5
    assert 0 < a.items_mc_se < 0.05 * a.items
    assert a.union_positives == pytest.approx(a.items * model.union_rate)
    assert a.half_width_median <= 0.08
    # the evaluated curve rises with n (common random numbers)
    shares = [s for _, s in a.curve]
    assert shares[0] < 0.5 <= shares[-1]


def test_unreachable_target_raises():
    with pytest.raises(TargetUnreachable, match="--max-items 1000"):
        find_sample_size(pair_from_annotators(0.08), "psa", 0.01, max_items=1000, rng=1)
