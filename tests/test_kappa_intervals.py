"""Cohen's kappa intervals under annotator bias, and the calibrated intraclass GOF interval.

Independent checks only: statsmodels' FCE standard error at hypothesised cells, exact
multinomial enumeration (scipy.stats), a numerical delta method, and simulation with
literal seeds and tolerances from the Monte Carlo error.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.sizing.studies import simulate_tables
from planner.statistics import agreement as ag
from planner.statistics import intervals as iv
from tests.conftest import cells_from_margins

ISSUE_TABLE = np.array([[333, 667], [0, 2333]])  # B's positives inside A's


def _coverage(cells, n, method, reps, seed):
    truth = float(ag.cohen_kappa(np.array(cells).reshape(2, 2)))
    ci = iv.kappa_interval(simulate_tables(cells, n, reps, rng=seed), 0.95, method)
    return float(np.mean((ci.low <= truth) & (truth <= ci.high)))


def test_issue_table_interval_contains_cohens_kappa_and_is_not_capped_at_it():
    # Regression: the GOF interval was 0.336-0.412 around kappa 0.4114, the
    # estimate on its own upper limit. The default now targets Cohen's kappa.
    kappa = float(ag.cohen_kappa(ISSUE_TABLE))
    ci = iv.kappa_interval(ISSUE_TABLE)
    assert float(ci.low) < kappa < float(ci.high)
    assert float(ci.high) - kappa > 0.02
    low, high = iv.kappa_range(1000 / 3333, 333 / 3333)
    assert kappa == pytest.approx(float(high))  # the estimate sits on the margins' bound


def test_score_limits_solve_the_score_equation_with_statsmodels_variance():
    # At each open limit L: n (k_hat - L)^2 = z^2 n Var_FCE(cells with the observed rates and
    # kappa L), the variance taken from statsmodels' cohens_kappa on those cells.
    from statsmodels.stats.inter_rater import cohens_kappa

    table = np.array([[6, 21], [14, 459]])
    n = table.sum()
    p_a, p_b = table[0].sum() / n, table[:, 0].sum() / n
    k_hat = float(ag.cohen_kappa(table))
    z = stats.norm.ppf(0.975)
    ci = iv.kappa_score_interval(table)
    for limit in (float(ci.low), float(ci.high)):
        cells = np.array(cells_from_margins(p_a, p_b, limit)).reshape(2, 2)
        var = cohens_kappa(cells * 1e6).std_kappa ** 2 * 1e6 / n  # Var at n items
        assert (k_hat - limit) ** 2 == pytest.approx(z * z * var, rel=1e-6)


def _all_tables(n):
    for a in range(n + 1):
        for b in range(n + 1 - a):
            for c in range(n + 1 - a - b):
                yield a, b, c, n - a - b - c


@pytest.mark.slow
@pytest.mark.parametrize(
    ("p_a", "p_b", "kappa", "n"),
    [(0.30, 0.10, 0.2, 60), (0.15, 0.05, 0.2, 70), (0.3, 0.3, 0.5, 50)],
    ids=["bias-0.30/0.10", "bias-0.15/0.05", "unbiased-0.3"],
)
def test_score_coverage_by_exact_enumeration(p_a, p_b, kappa, n):
    # Every table of n items, weighted by its multinomial probability (no simulation).
    cells = np.array(cells_from_margins(p_a, p_b, kappa))
    tables = np.array(list(_all_tables(n)), dtype=float)
    log_w = special.gammaln(n + 1) - special.gammaln(tables + 1).sum(axis=1)
    weights = np.exp(log_w + (tables * np.log(cells)).sum(axis=1))  # multinomial pmf
    ci = iv.kappa_score_interval(tables.reshape(-1, 2, 2))
    covered = (ci.low <= kappa) & (kappa <= ci.high)
    coverage = float(np.sum(weights * covered))
    assert weights.sum() == pytest.approx(1.0)
    assert 0.935 <= coverage <= 0.965


@pytest.mark.parametrize(
    ("cells", "n"),
    [
        (cells_from_margins(0.30, 0.10, 0.2), 2976),  # 1,000 union positives, strong bias
        (cells_from_margins(0.08, 0.02, 0.2), 1691),  # 150 union positives
        ((0.05, 0.10, 0.0, 0.85), 1000),  # B positive only where A is: the largest kappa
        (cells_from_margins(0.02, 0.02, 0.5), 1678),  # rare labels, 50 union positives
    ],
    ids=["0.30/0.10", "0.08/0.02", "0.15/0.05-bound", "rare-unbiased"],
)
def test_score_interval_covers_cohens_kappa_under_bias(cells, n):
    reps = 4000  # MC SE 0.0034
    assert abs(_coverage(cells, n, "score", reps, seed=8) - 0.95) < 0.015


def test_gof_misses_cohens_kappa_under_bias_and_says_so():
    # at positive rates 0.30/0.10 and 1,000 union positives GOF covers about 0.3.
    cells = cells_from_margins(0.30, 0.10, 0.2)
    assert _coverage(cells, 2976, "gof", 2000, seed=9) < 0.6
    assert iv.KAPPA_ESTIMANDS["gof"] == "intraclass kappa"
    assert iv.KAPPA_ESTIMANDS["score"] == "Cohen's kappa"


def _numerical_delta_variance(cells, statistic, step=1e-6):
    """n Var of statistic(p_hat) by a finite-difference gradient and the multinomial Sigma."""
    p = np.asarray(cells, dtype=float)
    grad = np.empty(4)
    for i in range(4):
        e = np.zeros(4)
        e[i] = step
        grad[i] = (statistic(p + e) - statistic(p - e)) / (2 * step)
    sigma = np.diag(p) - np.outer(p, p)
    return float(grad @ sigma @ grad)


@pytest.mark.parametrize(("prevalence", "kappa"), [(0.02, 0.5), (0.05, 0.2), (0.3, 0.8)])
def test_bloch_kraemer_variance_matches_numerical_delta_method(prevalence, kappa):
    def intraclass(p):
        p = p / p.sum()
        pi = p[0] + (p[1] + p[2]) / 2
        return 1 - (p[1] + p[2]) / (2 * pi * (1 - pi))

    cells = cells_from_margins(prevalence, prevalence, kappa)
    expected = _numerical_delta_variance(cells, intraclass)
    assert float(iv.intraclass_kappa_variance(kappa, prevalence)) == pytest.approx(
        expected, rel=1e-5
    )


def test_calibrated_gof_keeps_coverage_for_rare_labels():
    # with prevalence <= 0.05 the plain GOF statistic tends to c chi2_1 (c ~ 1.11
    # here), so it converges to about 0.94; the calibrated one covers 0.95.
    cells = cells_from_margins(0.02, 0.02, 0.5)
    truth = 0.5  # intraclass kappa equals Cohen's kappa without bias
    tables = simulate_tables(cells, 5034, 6000, rng=17)  # 150 union positives; MC SE 0.0028
    plain = iv.kappa_gof_interval(tables, calibrated=False)
    calibrated = iv.kappa_gof_interval(tables)
    cover_plain = np.mean((plain.low <= truth) & (truth <= plain.high))
    cover_calibrated = np.mean((calibrated.low <= truth) & (truth <= calibrated.high))
    assert abs(cover_calibrated - 0.95) < 0.01
    assert cover_plain < cover_calibrated - 0.01


def test_calibrated_gof_limits_solve_the_bloch_kraemer_equation(chapter_table):
    a, b, c, d = chapter_table.ravel().astype(float)
    n = a + b + c + d
    pi = (2 * a + b + c) / (2 * n)
    k_i = 1 - (b + c) / (2 * n * pi * (1 - pi))
    z2 = stats.chi2.ppf(0.95, 1)
    ci = iv.kappa_gof_interval(chapter_table)
    for k in (float(ci.low), float(ci.high)):
        var = (1 - k) * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * pi * (1 - pi)))
        assert n * (k_i - k) ** 2 == pytest.approx(z2 * var, rel=1e-6)


tables_2x2 = st.lists(st.integers(0, 60), min_size=4, max_size=4).map(
    lambda v: np.array(v, dtype=float).reshape(2, 2)
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(tables_2x2)
def test_score_interval_contains_estimate_and_ignores_annotator_order(table):
    ci = iv.kappa_score_interval(table)
    swapped = iv.kappa_score_interval(table.T)
    kappa = float(ag.cohen_kappa(table))
    if np.isfinite(ci.low):
        assert float(ci.low) - 1e-9 <= kappa <= float(ci.high) + 1e-9
        assert -1.0 <= float(ci.low) <= float(ci.high) <= 1.0
    assert np.allclose([ci.low, ci.high], [swapped.low, swapped.high], equal_nan=True)


def test_score_interval_is_vectorised_and_nan_where_uninformative():
    stack = np.array(
        [[[6, 21], [14, 459]], [[0, 0], [0, 100]], [[10, 0], [0, 90]], [[0, 5], [0, 95]]]
    )
    ci = iv.kappa_score_interval(stack)
    looped = [iv.kappa_score_interval(t) for t in stack]
    assert np.allclose(ci.low, [float(x.low) for x in looped], equal_nan=True)
    assert np.isnan(ci.low[1]) and np.isnan(ci.low[3])  # one annotator uses one category
    assert float(ci.high[2]) == 1.0 and float(ci.low[2]) < 1.0  # perfect agreement
    assert iv.kappa_interval(stack[0]) == iv.kappa_score_interval(stack[0])  # the default


@pytest.mark.parametrize(
    ("metric", "method", "u", "expected"),
    [
        ("psa", "wald", 22, 0.878),
        ("kappa", "fce", 60, 0.913),
        ("kappa", "fce", 150, None),
        ("psa", "wilson", 20, None),
        ("kappa", "score", 12, 0.882),
        ("kappa", "score", 40, None),
    ],
)
def test_coverage_note(metric, method, u, expected):
    note = iv.coverage_note(metric, method, u)
    if expected is None:
        assert note is None
    else:
        assert f"covers as little as {expected:.2f}" in note and f"with {u} union" in note


runner = CliRunner()


def test_agree_labels_each_kappa_interval_with_its_estimand():
    counts = ",".join(str(v) for v in ISSUE_TABLE.ravel())
    out = {}
    for method in ("score", "gof"):
        res = runner.invoke(app, ["agree", "--counts", counts, "--kappa-method", method, "--json"])
        assert res.exit_code == 0, res.output
        out[method] = json.loads(res.stdout)["coefficients"]["cohen_kappa"]
    assert "Cohen's kappa" in out["score"]["interval"]["method"]
    assert "intraclass kappa" in out["gof"]["interval"]["method"]
    interval = out["score"]["interval"]
    assert interval["lower"] < out["score"]["estimate"] < interval["upper"]


def test_agree_notes_undercoverage_with_few_union_positives():
    res = runner.invoke(app, ["agree", "--counts", "2,8,6,200", "--kappa-method", "fce", "--json"])
    assert res.exit_code == 0, res.output
    notes = json.loads(res.stdout)["notes"]
    assert any("with 16 union positives" in n and "--kappa-method score" in n for n in notes)


def test_enumeration_helper_is_complete():
    assert sum(1 for _ in _all_tables(5)) == len(
        [t for t in itertools.product(range(6), repeat=4) if sum(t) == 5]
    )


# --------------------------------------------------------------------------- profile likelihood


def _profile_lr_by_slsqp(table, k0):
    """2 [l(n/N) - max l(p) subject to kappa(p) = k0], by scipy's SLSQP on the four cells
    (independent of planner's parametrisation by the two positive rates)."""
    from scipy import optimize

    counts = np.asarray(table, dtype=float).ravel()
    n = counts.sum()

    def kappa(p):
        r1, c1 = p[0] + p[1], p[0] + p[2]
        pe = r1 * c1 + (1 - r1) * (1 - c1)
        return (p[0] + p[3] - pe) / (1 - pe)

    def negloglik(p):
        return -float(np.sum(np.where(counts > 0, counts * np.log(np.maximum(p, 1e-300)), 0)))

    best = np.inf
    for start in (counts / n, np.full(4, 0.25), (counts + 0.5) / (n + 2)):
        res = optimize.minimize(
            negloglik,
            start,
            method="SLSQP",
            bounds=[(1e-12, 1)] * 4,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": lambda p: kappa(p) - k0},
            ],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        # SLSQP often ends at the optimum reporting a failed line search: any point on the
        # constraint bounds the constrained maximum from below, so the best such point is kept
        on_constraint = abs(res.x.sum() - 1) < 1e-8 and abs(kappa(res.x) - k0) < 1e-7
        if on_constraint:
            best = min(best, res.fun)
    top = -negloglik(counts / n)
    return 2 * (best + top)


@pytest.mark.slow
@pytest.mark.parametrize(
    "table",
    [[[6, 21], [14, 459]], [[10, 90], [0, 900]], [[4, 36], [0, 360]], [[30, 5], [12, 53]]],
    ids=["chapter", "nested-10", "nested-4", "common"],
)
def test_profile_limits_are_where_the_likelihood_ratio_reaches_the_squared_t_quantile(table):
    # at each limit the likelihood-ratio statistic, maximised by SLSQP over the four cells
    # (an independent optimiser and parametrisation), equals t_nu(0.975)^2 with
    # nu = min(a + b + c, b + c + d, 4 x the smallest margin) - 1, written out here
    ci = iv.kappa_interval(np.array(table), 0.95, "profile")
    (a, b), (c, d) = table
    smallest = min(a + b, a + c, b + d, c + d)
    nu = max(min(a + b + c, b + c + d, 4 * smallest) - 1, 1)
    crit = float(stats.t.ppf(0.975, nu)) ** 2
    k_hat = float(ag.cohen_kappa(np.array(table, dtype=float)))
    for limit in (float(ci.low), float(ci.high)):
        # a hair inside the limit (SLSQP can stall exactly on it when a cell is empty)
        near = limit + 1e-7 * np.sign(k_hat - limit)
        assert _profile_lr_by_slsqp(table, near) == pytest.approx(crit, abs=2e-3)
    assert ci.low < k_hat < ci.high
    inside = (ci.low + k_hat) / 2
    assert _profile_lr_by_slsqp(table, float(inside)) < crit


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cells", "n"),
    [
        ((0.01, 0.09, 0.0, 0.90), 1000),  # rates 10 %/1 %, nested: 10 expected rarer positives
        ((0.01, 0.09, 0.0, 0.90), 2000),  # 20
        ((0.005, 0.065, 0.0, 0.93), 2000),  # rates 7 %/0.5 %, nested: 10
        (cells_from_margins(0.10, 0.01, 0.1), 1000),  # kappa 0.1 below the bound
        (cells_from_margins(0.08, 0.02, 0.2), 1691),  # the grid's biased cell, 150 union pos.
    ],
    ids=["10/1-nested-R10", "10/1-nested-R20", "7/0.5-nested-R10", "10/1-k0.1", "8/2"],
)
def test_profile_interval_covers_under_extreme_bias(cells, n):
    # 4,000 multinomial studies (MC SE 0.0034): a coverage of 0.935 or less (a 1.5-point
    # miss) fails this test with probability about 0.5, 0.95 passes with 1 - 1e-5
    truth = float(ag.cohen_kappa(np.array(cells).reshape(2, 2)))
    tables = np.random.default_rng(19).multinomial(n, cells, size=4000).reshape(-1, 2, 2)
    ci = iv.kappa_interval(tables.astype(float), 0.95, "profile")
    coverage = float(np.mean((ci.low <= truth + 1e-9) & (truth - 1e-9 <= ci.high)))
    assert 0.935 <= coverage <= 0.965


def test_score_interval_under_covers_where_the_profile_does_not():
    # the regime that motivated the profile interval: rates 10 %/1 %, nested, 100 union
    # positives; 4,000 studies
    cells, n = (0.01, 0.09, 0.0, 0.90), 1000
    truth = float(ag.cohen_kappa(np.array(cells).reshape(2, 2)))
    tables = np.random.default_rng(23).multinomial(n, cells, size=4000).reshape(-1, 2, 2)
    score = iv.kappa_interval(tables.astype(float), 0.95, "score")
    assert float(np.mean((score.low <= truth) & (truth <= score.high))) < 0.935


@pytest.mark.slow
def test_profile_interval_is_vectorised_and_nan_where_undefined():
    tables = np.array([[[6, 21], [14, 459]], [[0, 0], [10, 90]], [[10, 90], [0, 900]]], float)
    ci = iv.kappa_interval(tables, 0.95, "profile")
    assert np.isnan(ci.low[1]) and np.isnan(ci.high[1])  # A never flags: kappa undefined
    for i in (0, 2):
        one = iv.kappa_interval(tables[i], 0.95, "profile")
        assert float(one.low) == pytest.approx(ci.low[i], abs=1e-9)
        assert float(one.high) == pytest.approx(ci.high[i], abs=1e-9)


@pytest.mark.slow
def test_agree_adds_no_profile_note_where_the_study_found_no_under_coverage():
    # rates 10 %/1 % nested at 4 expected rarer positives: the study's profile row
    # (coverage_study/coverage.json) is within or above the nominal band, so agree's profile
    # interval carries no coverage note for data like it
    rows = json.load(open("coverage_study/coverage.json"))["rows"]  # noqa: SIM115
    measured = [
        r["coverage"]
        for r in rows
        if r["cell"] == "rates=0.1/0.01 nested R=4" and r["method"] == "profile"
    ]
    assert measured and measured[0] >= 0.935
    out = CliRunner().invoke(app, ["agree", "--counts", "4,36,0,360"], env={"COLUMNS": "200"})
    assert out.exit_code == 0
    assert "profile-likelihood interval for Cohen's kappa covered" not in out.output


def _rarer_band_coverage(rows, method, low, high, strong_bias_only):
    """Worst and best coverage of ``method`` over the study's pair cells whose expected
    rarer-annotator positives are in [low, high)."""
    from coverage_study.grid import grid

    cells = {c.label: c for c in grid("two")[0]}
    found = []
    for row in rows:
        cell = cells.get(row["cell"])
        if cell is None or row["coefficient"] != "cohen_kappa" or row["method"] != method:
            continue
        a, b, c, _ = cell.probabilities
        rates = sorted((a + b, a + c))
        if strong_bias_only and rates[1] < 3 * rates[0]:
            continue
        if low <= cell.n_items * rates[0] < high:
            found.append(row["coverage"])
    return min(found), max(found)


@pytest.mark.slow
def test_kappa_notes_state_the_coverage_the_study_measured():
    # each band of small_counts.KAPPA_RARER_BANDS is the worst and best coverage the study
    # found for cells with that many expected positives of the rarer annotator
    from planner.measuring.small_counts import KAPPA_RARER_BANDS, STRONG_BIAS_RATIO

    assert STRONG_BIAS_RATIO == 3.0
    rows = json.load(open("coverage_study/coverage.json"))["rows"]  # noqa: SIM115
    for method, bands in KAPPA_RARER_BANDS.items():
        low = 0.0
        for below, worst, best in bands:
            measured = _rarer_band_coverage(rows, method, low, below, method == "score")
            assert (worst, best) == pytest.approx(measured, abs=5e-4), (method, below)
            low = below


@pytest.mark.slow
def test_kappa_plan_reports_the_coverage_an_independent_simulation_finds():
    # the plan's coverage line (score interval, strong bias) against 4,000 fresh
    # multinomial studies at the planned n, with Cohen's kappa of the model's cells computed here
    from planner.sizing.model import pair_from_annotators
    from planner.sizing.search import SearchSettings, find_sample_size

    model = pair_from_annotators(0.02, (0.05, 0.015), (1.0, -1.0))
    res = find_sample_size(model, SearchSettings(metric="kappa", width=0.1), rng=1)
    a, b, c, d = model.cells
    pe = (a + b) * (a + c) + (c + d) * (b + d)
    truth = (a + d - pe) / (1 - pe)
    tables = np.random.default_rng(31).multinomial(res.items, model.cells, size=4000)
    ci = iv.kappa_interval(tables.reshape(-1, 2, 2).astype(float), 0.95, "score")
    mine = float(np.mean((ci.low <= truth) & (truth <= ci.high)))
    assert abs(res.coverage - mine) < 4 * np.hypot(res.coverage_mc_se, 0.006)
    assert res.coverage < 0.9  # the regime where the score interval falls short
    undefined = float(np.mean(np.isnan(ci.low)))
    assert abs(res.share_undefined - undefined) < 0.012
