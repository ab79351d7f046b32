"""Sample sizes: published values, exact checks and independent simulations."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from planner.cli.common import flag_message
from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing.exact import (
    _binomial_pmf,
    binomial_at_least,
    exact_half_width_quantiles,
    exact_psa_assurance,
    reaches_width,
)
from planner.sizing.model import (
    PairModel,
    pair_from_annotators,
    pair_from_counts,
    pair_from_union_rate,
)
from planner.sizing.plan import PlanSettings, make_plan
from planner.sizing.search import SearchSettings, find_sample_size
from planner.sizing.search_criteria import analytic_items
from planner.sizing.studies import simulate_tables
from planner.sizing.union_positives import (
    inverse_sampling_items,
    items_for_union_positives,
    union_positives_for_assurance,
    worst_case_union_positives,
)
from planner.statistics import intervals as iv
from tests.conftest import cells_from_margins


def _model(cells) -> PairModel:
    return PairModel(cells=tuple(cells), source="test", assumptions={})


@pytest.mark.parametrize(("width", "delta", "wilson"), [(0.08, 186, 182), (0.05, 477, 472)])
def test_worst_case_union_positives(width, delta, wilson):
    # docs/methods/sample-size.md 2.2: delta 186 / 477, Wilson guarantee for every outcome 182 /
    # 472.
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
    # docs/methods/sample-size.md 2.2: at r = 0.082, U = 186 needs 2 268 items on average (p90 2
    # 475),
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
    # docs/methods/sample-size.md 2.3: n = z^2 Q / w^2 at w = 0.10 with no rater bias.
    model = _model(cells_from_margins(prevalence, prevalence, kappa))
    assert np.ceil(analytic_items(model, "kappa", 0.10, 0.95)) == n


def test_kappa_analytic_start_on_the_example_margins():
    # docs/methods/sample-size.md 2.3: the example margins (kappa 0.219) need 1 429 items for w =
    # 0.10 and
    # 5 716 for w = 0.05.
    model = pair_from_counts([6, 21, 14, 459])
    assert np.ceil(analytic_items(model, "kappa", 0.10, 0.95)) == 1429
    assert np.ceil(analytic_items(model, "kappa", 0.05, 0.95)) == 5716


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["psa", "kappa"])
@pytest.mark.parametrize("assurance", [0.5, 0.9])
@pytest.mark.parametrize(
    "model",
    [pair_from_annotators(0.08), pair_from_counts([6, 21, 14, 459])],
    ids=["prevalence-0.08", "chapter-pilot"],
)
def test_planned_n_checked_by_independent_simulation(metric, assurance, model):
    width = 0.08 if metric == "psa" else 0.1
    res = find_sample_size(
        model,
        SearchSettings(metric=metric, width=width, assurance=assurance, replicates=3000),
        rng=8,
    )
    reps = 6000
    se = np.sqrt(assurance * (1 - assurance) / reps)
    at_n = _share_narrow(model, metric, res.method, res.items, width, reps, seed=1234)
    below = _share_narrow(model, metric, res.method, int(0.9 * res.items), width, reps, seed=99)
    assert at_n >= assurance - 3.5 * se - 3.5 * res.assurance_mc_se
    assert below < assurance - 0.1
    if res.exact_items is not None:
        assert abs(res.items - res.exact_items) <= 4 * res.items_mc_se + 2


@pytest.mark.slow
def test_search_is_reproducible_and_reports_its_precision():
    model = pair_from_annotators(0.08)
    a = find_sample_size(model, SearchSettings(metric="kappa", width=0.1), rng=5)
    b = find_sample_size(model, SearchSettings(metric="kappa", width=0.1), rng=5)
    assert a == b
    assert a.basis == "monte-carlo"
    # the reported assurance comes from fresh studies: near the target, not above it by design
    assert abs(a.assurance - 0.5) < 4 * a.assurance_mc_se + 0.02
    assert 0 < a.items_mc_se < 0.05 * a.items
    assert a.union_positives == pytest.approx(a.items * model.union_rate)
    # the evaluated curve rises with n (common random numbers)
    shares = [s for _, s in a.curve]
    assert shares[0] < 0.5 <= shares[-1]


def test_psa_headline_is_the_exact_n():
    # README / docs/methods/sample-size.md: plan --prevalence 0.08 --width 0.08 needs exactly 1,280
    # items.
    model = pair_from_annotators(0.08)
    res = find_sample_size(model, SearchSettings(metric="psa", width=0.08), rng=5)
    assert res.basis == "exact" and res.items_mc_se == 0.0
    assert res.items == res.exact_items == 1280
    # exact assurance by an independent double sum (scipy.stats) on each side of 1,280
    assert _scipy_exact_assurance(model, 1280, 0.08, "wilson") >= 0.5
    assert _scipy_exact_assurance(model, 1279, 0.08, "wilson") < 0.5
    # the Monte Carlo check on fresh studies agrees with the exact value
    assert abs(res.assurance - res.exact_assurance) < 4 * res.assurance_mc_se


def test_unreachable_target_raises():
    with pytest.raises(TargetUnreachable, match="max_items 1000"):
        find_sample_size(
            pair_from_annotators(0.08),
            SearchSettings(metric="psa", width=0.01, max_items=1000),
            rng=1,
        )


def _scipy_exact_assurance(model, n, width, method, level=0.95):
    """Independent double sum (scipy.stats, statsmodels); zero-width intervals count as wide."""
    from statsmodels.stats.proportion import proportion_confint

    r, j = model.union_rate, model.jaccard
    z = stats.norm.ppf(0.5 + level / 2)
    total = 0.0
    for u in range(1, n + 1):
        w_u = stats.binom.pmf(u, n, r)
        if w_u < 1e-13:
            continue
        a = np.arange(u + 1)
        if method == "wald":
            psa = 2 * a / (a + u)
            se = np.sqrt(4 * a * (u - a) * u) / (a + u) ** 2
            hw = (np.clip(psa + z * se, 0, 1) - np.clip(psa - z * se, 0, 1)) / 2
        else:
            low, high = proportion_confint(a, u, alpha=1 - level, method="wilson")
            hw = (2 * high / (1 + high) - 2 * low / (1 + low)) / 2
        narrow = (hw > 0) & (hw <= width)
        total += w_u * float(np.sum(stats.binom.pmf(a, u, j) * narrow))
    return total


def _share_narrow_nondegenerate(model, metric, method, n, width, reps, seed):
    """Fresh multinomial studies; an interval counts only if defined and of positive width."""
    tables = simulate_tables(model.cells, n, reps, rng=seed)
    fn = iv.psa_interval if metric == "psa" else iv.kappa_interval
    hw = np.asarray(fn(tables, 0.95, method).half_width)
    return float(np.mean(np.isfinite(hw) & (hw > 0) & (hw <= width)))


NEAR_PERFECT = pair_from_union_rate(0.025, 0.95)  # PSA 0.95: a = U or b + c = 0 is common


def test_reaches_width_refuses_degenerate_intervals():
    hw = np.array([0.0, np.nan, 0.05, 0.2, -0.0])
    assert reaches_width(hw, 0.1).tolist() == [False, False, True, False, False]


def test_wald_plan_not_cut_by_zero_width_intervals():
    # Regression: a zero-width Wald interval (a = U) counted as narrow, so the plan
    # was 31 items where about 520 are needed. Checked by an independent exact double sum.
    res = find_sample_size(
        NEAR_PERFECT, SearchSettings(metric="psa", width=0.1, method="wald"), rng=3
    )
    assert res.basis == "exact"
    assert _scipy_exact_assurance(NEAR_PERFECT, res.items, 0.1, "wald") >= 0.5
    assert _scipy_exact_assurance(NEAR_PERFECT, int(0.9 * res.items), 0.1, "wald") < 0.45
    assert res.items > 400


def test_fce_kappa_plan_not_cut_by_zero_width_intervals():
    # Regression: FCE kappa planned 32 items for this model (zero-width intervals
    # when b + c = 0 counted as narrow); an independent simulation finds about 620 needed.
    res = find_sample_size(
        NEAR_PERFECT,
        SearchSettings(metric="kappa", width=0.1, method="fce", replicates=3000),
        rng=3,
    )
    reps = 6000
    se = np.sqrt(0.25 / reps)
    at_n = _share_narrow_nondegenerate(NEAR_PERFECT, "kappa", "fce", res.items, 0.1, reps, 41)
    below = _share_narrow_nondegenerate(
        NEAR_PERFECT, "kappa", "fce", int(0.85 * res.items), 0.1, reps, 42
    )
    assert at_n >= 0.5 - 3.5 * se - 3.5 * res.assurance_mc_se
    assert below < 0.45


@pytest.mark.parametrize("probability", [0.5, 0.8, 0.9])
def test_items_for_union_positives_is_a_binomial_quantile(probability):
    # Independent: smallest n with P(Bin(n, r) >= U) >= probability, by scipy.stats.binom.
    u, r = 182, 0.1146
    ns = np.arange(1200, 2200)
    reach = stats.binom.sf(u - 1, ns, r)
    expected = int(ns[np.argmax(reach >= probability)])
    assert items_for_union_positives(u, r, probability) == expected


def test_worst_case_items_reach_the_union_positives_with_the_assurance():
    # Regression: the worst-case line gave the expected items U / r, which reach
    # U union positives only about half the time whatever --assurance says.
    model = pair_from_annotators(0.08)
    plan = make_plan(model, PlanSettings(assurance=0.9, replicates=500), rng=1)
    wc = plan.worst_case
    u, n = wc.union_positives_wilson_every_outcome, wc.items_at_model_union_rate
    assert stats.binom.sf(u - 1, n, model.union_rate) >= 0.9
    assert stats.binom.sf(u - 1, n - 1, model.union_rate) < 0.9
    assert n > wc.items_expected


@pytest.mark.slow
def test_exact_half_width_quantiles_match_an_independent_double_sum():
    model = pair_from_annotators(0.08)
    n, assurance = 1402, 0.8
    median, at_assurance = exact_half_width_quantiles(model, n, (0.5, assurance))
    for q, p in ((median, 0.5), (at_assurance, assurance)):
        assert _scipy_exact_assurance(model, n, q + 1e-12, "wilson") >= p
        assert _scipy_exact_assurance(model, n, q - 1e-9, "wilson") < p


@pytest.mark.parametrize(("n", "p"), [(50, 0.3), (1280, 0.1146), (10**6, 0.01), (10**7, 0.5)])
def test_binomial_pmf_without_scipy_matches_scipy(n, p):
    k = np.arange(max(0, int(n * p) - 400), int(n * p) + 400)
    ours = _binomial_pmf(k, np.full(k.shape, n), p)
    # log-gamma differences lose about n * 1e-15 relative: 1e-8 at ten million items
    assert np.allclose(ours, stats.binom.pmf(k, n, p), rtol=max(1e-9, n * 1e-14), atol=1e-13)
    assert binomial_at_least(int(n * p), n, p) == pytest.approx(
        stats.binom.sf(int(n * p) - 1, n, p), abs=max(1e-10, n * 1e-14)
    )


def test_degenerate_models_are_refused_or_named():
    # --prevalence 0.03 --error-rate 0.01,0.03 --bias 1,-1 gives annotator B
    # sensitivity 0 and PSA 0; a plan was printed without a word.
    model = pair_from_annotators(0.03, error_rate=(0.01, 0.03), bias=(1, -1))
    assert model.cells[0] == 0.0
    with pytest.raises(InvalidInput, match="PSA 0.*check error_rate and bias") as refused:
        make_plan(model, PlanSettings(replicates=200), rng=1)
    assert flag_message(refused.value).endswith("check --error-rate and --bias")
    weak = PairModel(
        cells=(0.01, 0.05, 0.02, 0.92),
        source="annotators",
        assumptions={"sensitivity": [0.9, 0.0], "specificity": [0.95, 0.97]},
    )
    notes = make_plan(weak, PlanSettings(replicates=200), rng=1).notes
    assert any(n.startswith("annotator B has sensitivity 0") for n in notes)


def test_plan_notes_a_method_that_undercovers_at_the_planned_union_positives():
    # NEAR_PERFECT at width 0.1 needs about 13 union positives: Wald covers about 0.88 there
    # (docs/methods/two-annotators.md 1.4: 0.880 at 20 union positives).
    plan = make_plan(
        NEAR_PERFECT, PlanSettings(width=0.1, psa_method="wald", replicates=500), rng=2
    )
    assert plan.results["psa"].union_positives < 35
    assert any("wald interval for psa covers as little as" in n for n in plan.notes)
    quiet = make_plan(NEAR_PERFECT, PlanSettings(width=0.1, replicates=500), rng=2)
    assert not any("covers as little as" in n for n in quiet.notes)


def test_cli_headline_plan_is_the_exact_n():
    from typer.testing import CliRunner

    from planner.cli.commands import app

    result = CliRunner().invoke(
        app, ["plan", "--prevalence", "0.08", "--width", "0.08", "--json", "--seed", "4"]
    )
    assert result.exit_code == 0, result.output
    psa = json.loads(result.stdout)["results"]["psa"]
    # README / docs/methods/sample-size.md: the exact n is 1,280; the Monte Carlo check is a fresh
    # estimate.
    assert (psa["items"], psa["exact_items"], psa["basis"]) == (1280, 1280, "exact")
    assert psa["items_mc_se"] == 0.0
    assert abs(psa["assurance"] - psa["exact_assurance"]) < 4 * psa["assurance_mc_se"]
