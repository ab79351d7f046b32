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
from planner.sizing.simulation import simulate_tables
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
