"""Population-weighted agreement of a stratified sample (``agree --stratum-col``).

Every expected value is computed here independently: by hand from per-stratum 2 x 2 tables,
by a finite-difference delta method over the multinomial covariance, by a stratified bootstrap
written out in this file, and by the pooled Fleiss' kappa of planner.statistics.multirater.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.labels import ratings_from_matrix
from planner.errors import InvalidInput
from planner.measuring.stratified import measure_stratified
from planner.statistics import multirater as mr
from planner.statistics.stratified import weighted_from_patterns, weighted_from_tables

ROOT = Path(__file__).parent.parent
# two strata: (both, a only, b only, neither)
TABLES = np.array([[[8, 2], [3, 87]], [[20, 5], [5, 20]]])
SHARES = np.array([0.9, 0.1])


def _psa(p):
    return 2 * p[0] / (2 * p[0] + p[1] + p[2])


def _kappa(p):
    p_o = p[0] + p[3]
    ra, rb = p[0] + p[1], p[0] + p[2]
    p_e = ra * rb + (1 - ra) * (1 - rb)
    return (p_o - p_e) / (1 - p_e)


def test_weighted_psa_kappa_and_observed_agreement_by_hand():
    # by hand: p1 = (.08, .02, .03, .87), p2 = (.4, .1, .1, .4); P = .9 p1 + .1 p2
    # = (.112, .028, .037, .823); PSA = .224 / .289; p_o = .935;
    # rater A positive .14, rater B .149: p_e = .14 * .149 + .86 * .851 = .75272
    psa = weighted_from_tables("psa", TABLES, SHARES)
    assert float(psa.estimate) == pytest.approx(0.224 / 0.289, abs=1e-12)
    agree = weighted_from_tables("observed_agreement", TABLES, SHARES)
    assert float(agree.estimate) == pytest.approx(0.935, abs=1e-12)
    kappa = weighted_from_tables("cohen_kappa", TABLES, SHARES)
    assert float(kappa.estimate) == pytest.approx((0.935 - 0.75272) / (1 - 0.75272), abs=1e-12)


@pytest.mark.parametrize("name", ["psa", "observed_agreement", "cohen_kappa"])
def test_linearised_se_matches_a_finite_difference_delta_method(name):
    """SE^2 = sum_h W_h^2 grad' Sigma_h grad / n_h, Sigma_h = (diag p - p p') n/(n-1),
    the gradient by central differences of the hand-written coefficient."""
    f = {"psa": _psa, "cohen_kappa": _kappa, "observed_agreement": lambda p: p[0] + p[3]}[name]
    cells = TABLES.reshape(2, 4).astype(float)
    n = cells.sum(axis=1)
    p = cells / n[:, None]
    pooled = SHARES @ p
    step = 1e-6
    grad = np.array([(f(pooled + step * e) - f(pooled - step * e)) / (2 * step) for e in np.eye(4)])
    var = sum(
        SHARES[h] ** 2
        * grad
        @ ((np.diag(p[h]) - np.outer(p[h], p[h])) * n[h] / (n[h] - 1))
        @ grad
        / n[h]
        for h in range(2)
    )
    got = weighted_from_tables(name, TABLES, SHARES)
    assert float(got.se) == pytest.approx(np.sqrt(var), rel=1e-6)


def test_linearised_se_matches_a_stratified_bootstrap():
    """On a large sample the bootstrap SD (items resampled within each stratum) agrees."""
    tables = np.array([[[160, 40], [60, 1740]], [[400, 100], [100, 400]], [[30, 20], [10, 440]]])
    shares = np.array([0.7, 0.1, 0.2])
    rng = np.random.default_rng(5)
    cells = tables.reshape(3, 4)
    n = cells.sum(axis=1)
    pooled = sum(
        shares[h] * rng.multinomial(n[h], cells[h] / n[h], size=20000) / n[h] for h in range(3)
    )
    for name, f in (("psa", _psa), ("cohen_kappa", _kappa)):
        boot_sd = np.std(f(pooled.T))
        se = float(weighted_from_tables(name, tables, shares).se)
        assert se == pytest.approx(boot_sd, rel=0.03), name


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(*[st.integers(0, 40)] * 4).filter(lambda t: t[0] >= 1 and sum(t) >= 3),
        min_size=2,
        max_size=5,
    )
)
def test_sample_shares_give_the_pooled_coefficients(cells):
    """Weighted by the sample's own shares, each coefficient is the pooled table's."""
    tables = np.array(cells, dtype=float).reshape(-1, 2, 2)
    n = tables.sum(axis=(1, 2))
    pooled = tables.sum(axis=0).reshape(4) / n.sum()
    for name, f in (("psa", _psa), ("cohen_kappa", _kappa)):
        got = float(weighted_from_tables(name, tables, n / n.sum()).estimate)
        want = f(pooled)
        assert got == pytest.approx(want, abs=1e-9) or (np.isnan(got) and np.isnan(want))


def test_weighted_fleiss_at_sample_shares_is_the_pooled_fleiss_kappa():
    rng = np.random.default_rng(3)
    counts = [rng.multinomial(3, [0.2, 0.8], size=n) for n in (40, 70)]
    strata = [mr.compress(c) for c in counts]
    n = np.array([40, 70])
    got = weighted_from_patterns("fleiss_kappa", strata, n / n.sum())
    assert float(got.estimate) == pytest.approx(float(mr.fleiss_kappa(np.vstack(counts))), 1e-12)


def _ratings(tables, names):
    """Two annotators' labels (1 positive) of the items of each stratum's 2 x 2 table."""
    rows, strata = [], []
    for table, name in zip(tables, names, strict=True):
        (a, b), (c, d) = table
        rows += [(1, 1)] * a + [(1, 0)] * b + [(0, 1)] * c + [(0, 0)] * d
        strata += [name] * (a + b + c + d)
    return rows, strata


def _write(path, tables, names):
    rows, strata = _ratings(tables, names)
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["item", "stratum", "annotator", "label"])
        for i, ((x, y), s) in enumerate(zip(rows, strata, strict=True)):
            out.writerow([f"i{i}", s, "a", x])
            out.writerow([f"i{i}", s, "b", y])


def test_library_reads_strata_from_the_ratings():
    rows, strata = _ratings(TABLES, ["low, risk", "high"])
    ratings = ratings_from_matrix(np.array(rows), annotators=["a", "b"])
    ratings = type(ratings)(**{**ratings.__dict__, "groups": {"stratum": np.array(strata)}})
    report = measure_stratified(ratings, "stratum", {"low, risk": 0.9, "high": 0.1}, positive=1)
    assert report.coefficients["psa"].estimate == pytest.approx(0.224 / 0.289, abs=1e-12)
    # unweighted: the pooled table (28, 7, 8, 107) of 150 items
    assert report.coefficients["psa"].unweighted == pytest.approx(56 / 71, abs=1e-12)
    assert [(s.n_items, s.union_positives) for s in report.strata] == [(100, 13), (50, 30)]
    assert report.decision is not None and report.decision.metric == "psa"
    with pytest.raises(InvalidInput, match="population_shares has no share for 'high'"):
        measure_stratified(ratings, "stratum", {"low, risk": 1.0}, positive=1)


def _agree(*args, cwd):
    argv = [sys.executable, "-m", "planner", "agree", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_cli_weighted_psa_on_both_engines(tmp_path, engine):
    _write(tmp_path / "l.csv", TABLES, ["low", "high"])
    out = _agree("l.csv", "--stratum-col", "stratum", "--population-shares", "low=0.9,high=0.1",
                 "--engine", engine, "--json", cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    psa = body["stratified"]["coefficients"]["psa"]
    assert psa["estimate"] == pytest.approx(0.224 / 0.289, abs=1e-12)
    assert psa["interval"]["lower"] < psa["estimate"] < psa["interval"]["upper"]
    assert body["decision"] is None and body["stratified"]["decision"]["metric"] == "psa"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--population-shares", "low=0.8,high=0.1"],
         "error: --population-shares must sum to 1 (within 1e-06), got 0.9"),
        (["--population-shares", "low=1"],
         "error: --population-shares has no share for 'high' of column 'stratum' in l.csv "
         "(every stratum in the data needs a share)"),
        (["--population-shares", "low=0.5,high=0.25,mid=0.25"],
         "error: --population-shares names 'mid', not a value of column 'stratum' in l.csv "
         "(values: 'low', 'high')"),
        (["--population-shares", "low=0.9,high"],
         "error: --population-shares takes NAME=SHARE pairs, comma-separated "
         "(e.g. 'flagged=0.2,rest=0.8'); got 'high'"),
        ([], "error: --stratum-col needs the population shares: --population-shares "
             "NAME=SHARE,... or --population-shares-from SCENARIO.toml (one of them)"),
        (["--population-shares", "low=0.9,high=0.1", "--population-shares-from",
          "unsupported-claims-enriched"],
         "error: --stratum-col needs the population shares: --population-shares "
         "NAME=SHARE,... or --population-shares-from SCENARIO.toml (one of them)"),
        (["--population-shares-from", "unsupported-claims-enriched"],
         "error: --population-shares has no share for 'high', 'low' of column 'stratum' in "
         "l.csv (every stratum in the data needs a share)"),
    ],
)  # fmt: skip
def test_refusals_name_the_option_in_one_line(tmp_path, args, line):
    _write(tmp_path / "l.csv", TABLES, ["low", "high"])
    out = _agree("l.csv", "--stratum-col", "stratum", *args, cwd=tmp_path)
    assert out.returncode in (1, 2)
    assert out.stderr.strip().splitlines() == [line]
    assert out.stdout == ""


@pytest.mark.slow
def test_refusals_without_stratum_col_or_with_an_unknown_column(tmp_path):
    _write(tmp_path / "l.csv", TABLES, ["low", "high"])
    out = _agree("l.csv", "--population-shares", "low=0.9,high=0.1", cwd=tmp_path)
    assert out.stderr.strip().splitlines() == [
        "error: --population-shares and --population-shares-from need --stratum-col COLUMN "
        "(the column naming each item's stratum)"
    ]
    out = _agree("l.csv", "--stratum-col", "tier", "--population-shares", "a=1", cwd=tmp_path)
    assert out.returncode in (1, 2)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "tier" in lines[0], out.stderr


def test_three_category_kappa_se_matches_a_finite_difference_delta_method():
    tables = np.array([[[30, 4, 1], [5, 40, 3], [0, 2, 15]], [[5, 1, 0], [2, 60, 8], [1, 3, 20]]])
    shares = np.array([0.3, 0.7])

    def kappa(p):
        t = p.reshape(3, 3)
        p_e = t.sum(axis=1) @ t.sum(axis=0)
        return (np.trace(t) - p_e) / (1 - p_e)

    cells = tables.reshape(2, 9).astype(float)
    n = cells.sum(axis=1)
    p = cells / n[:, None]
    pooled = shares @ p
    grad = np.array(
        [(kappa(pooled + 1e-6 * e) - kappa(pooled - 1e-6 * e)) / 2e-6 for e in np.eye(9)]
    )
    var = sum(
        shares[h] ** 2
        * grad
        @ ((np.diag(p[h]) - np.outer(p[h], p[h])) * n[h] / (n[h] - 1))
        @ grad
        / n[h]
        for h in range(2)
    )
    got = weighted_from_tables("cohen_kappa", tables, shares)
    assert float(got.estimate) == pytest.approx(kappa(pooled), abs=1e-12)
    assert float(got.se) == pytest.approx(np.sqrt(var), rel=1e-6)


def _stratified(tables, names, shares):
    rows, strata = _ratings(tables, names)
    ratings = ratings_from_matrix(np.array(rows), annotators=["a", "b"])
    ratings = type(ratings)(**{**ratings.__dict__, "groups": {"s": np.array(strata)}})
    return measure_stratified(ratings, "s", dict(zip(names, shares, strict=True)), positive=1)


def test_the_note_names_a_large_stratum_with_few_union_positives():
    # 'rest': share 0.85 and 2 + 1 + 1 = 4 union positives; 'flagged': share 0.15, 40
    few = _stratified([[[2, 1], [1, 60]], [[30, 5], [5, 20]]], ["rest", "flagged"], [0.85, 0.15])
    assert any("'rest' (4, share 0.85)" in n and "0.86 to 0.93" in n for n in few.notes)
    # the same 4 union positives in a stratum of share 0.05: no note
    small = _stratified([[[2, 1], [1, 60]], [[30, 5], [5, 20]]], ["rare", "main"], [0.05, 0.95])
    assert small.notes == []


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(*[st.integers(0, 6)] * 4).filter(lambda t: sum(t) >= 2), min_size=2,
             max_size=4),
    st.floats(0.05, 0.95),
)  # fmt: skip
def test_limits_stay_in_range_and_hold_the_estimate(cells, first):
    tables = np.array(cells, dtype=float).reshape(-1, 2, 2)
    rest = (1 - first) / (len(cells) - 1)
    shares = np.array([first] + [rest] * (len(cells) - 1))
    for name, low_bound in (("psa", 0), ("observed_agreement", 0), ("cohen_kappa", -1)):
        e = weighted_from_tables(name, tables, shares)
        if np.isfinite(e.low):
            assert low_bound <= e.low <= e.estimate + 1e-12 <= e.high + 2e-12 <= 1 + 2e-12


def test_per_stratum_counts_equal_each_strata_own_ratings():
    """One bincount / unique over the rows gives each stratum's own pair table and patterns."""
    from planner.measuring.stratified import stratum_pair_tables, stratum_patterns

    rng = np.random.default_rng(9)
    labels = rng.integers(0, 3, size=(300, 3)).astype(float)
    labels[rng.random((300, 3)) < 0.2] = np.nan
    ratings = ratings_from_matrix(labels)
    code = rng.integers(0, 4, size=ratings.n_rows)
    tables = stratum_pair_tables(ratings, code, 4)
    patterns = stratum_patterns(ratings, code, 4)
    for h in range(4):
        own = ratings.select_items(code == h)
        assert (tables[h] == own.pair_table(0, 1)).all()
        rows, mult = own.patterns()
        keep = rows.sum(axis=1) >= 2
        want = sorted(zip(map(tuple, rows[keep]), mult[keep], strict=True))
        got = sorted(zip(map(tuple, patterns[h][0]), patterns[h][1], strict=True))
        assert got == want


def test_se_equals_the_sizing_codes_linearised_se():
    """The sizing code's residual SD per stratum (planner.sizing.design.residual_sd, its own
    gradients) gives the same linearised variance, and the plan's weighted design reports
    the analysis's limits (planner.sizing.design.weighted_estimate)."""
    from planner.sizing.design import residual_sd, weighted_estimate

    rng = np.random.default_rng(4)
    tables = rng.integers(1, 60, size=(50, 3, 2, 2))
    shares = np.array([0.6, 0.3, 0.1])
    cells = tables.reshape(50, 3, 4).astype(float)
    n_h = cells.sum(axis=-1)
    p_h = cells / n_h[..., None]
    pooled = (shares[:, None] * p_h).sum(axis=-2)
    for metric, name in (("psa", "psa"), ("kappa", "cohen_kappa")):
        sd = residual_sd(metric, p_h, pooled) * np.sqrt(n_h / (n_h - 1))
        ours = weighted_from_tables(name, tables, shares)
        np.testing.assert_allclose(ours.se, np.sqrt((shares**2 * sd**2 / n_h).sum(-1)), rtol=1e-9)
        estimate, low, high = weighted_estimate(metric, tables, shares)
        np.testing.assert_allclose(ours.estimate, estimate, rtol=1e-12)
        np.testing.assert_allclose(np.c_[ours.low, ours.high], np.c_[low, high], rtol=1e-12)
