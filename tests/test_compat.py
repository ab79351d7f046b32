"""kappaSize and irr reproduced (planner.sizing.compat_*), their simulated verdicts, the CLI.

Reference values: kappaSize 1.2 and irr 0.84.1 (CRAN mirrors github:cran/kappaSize and
github:cran/irr), their ``man/*.Rd`` examples. kappaSize's Rd files print no output; the
values 397 and 190.456 / 191 are R's, as run for METHODS.md 2.3. The
other kappaSize examples are checked against an independent computation: kappaSize's own
polynomial tables (``R/*.R``), transcribed below, with a plain loop over n = 11, 12, ...
(and kappaL = kappa0 - 0.001, ...) exactly as R runs it.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import beta as beta_fn
from scipy.stats import binom, chi2, ncx2, norm
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.sizing import compat_irr as irr
from planner.sizing import compat_kappasize as ks
from planner.sizing.compat_check import (
    check_ci,
    check_fixed_n,
    check_irr,
    check_power,
    kappasize_patterns,
)

runner = CliRunner()

# ------------------------------------------------------------------ kappaSize's polynomials
# Transcribed from kappaSize 1.2 R/CIBinary.R, R/FixedNBinary.R and R/CI3Cats.R (the tables
# are the same in every file of a kind): binary cells "k of R raters say positive"; for
# K categories "all R raters agree on category j" (the remaining cell is 1 - their sum).


def _binary_r2(r, p):
    return [(1 - p) ** 2 + r * p * (1 - p), 2 * (1 - r) * p * (1 - p), p**2 + r * p * (1 - p)]


def _binary_r4(r, p):
    return [
        p**4 - r * p**4 - 4 * p**3 + 4 * r * p**3 + 6 * p**2 - 6 * r * p**2 - 4 * p + 3 * r * p + 1,
        4 * (1 - 3 * p - r + 3 * r * p + 3 * p**2 - 3 * r * p**2 - p**3 + r * p**3) * p,
        -(6 * (-1 + r + 2 * p - 2 * r * p - p**2 + r * p**2)) * p**2,
        4 * (1 - r - p + r * p) * p**3,
        -(-(p**3) - r + r * p**3) * p,
    ]


def _agree_r2(k, p):
    return p**2 * (-(-p - k + k * p) / p)


def _agree_r3(k, p):
    poly = p**2 + 3 * k * p - 2 * k * p**2 + 2 * k**2 - 3 * k**2 * p + k**2 * p**2
    return p**3 * (poly / p**2) / (1 + k)


def _agree_r5(k, p):
    poly = (
        p**4 + 10 * k * p**3 - 4 * k * p**4 + 35 * k**2 * p**2 - 30 * k**2 * p**3
        + 6 * k**2 * p**4 + 50 * k**3 * p - 70 * k**3 * p**2 + 30 * k**3 * p**3
        - 4 * k**3 * p**4 + 24 * k**4 - 50 * k**4 * p + 35 * k**4 * p**2 - 10 * k**4 * p**3
        + k**4 * p**4
    )  # fmt: skip
    return p * poly / ((1 + k) * (1 + 2 * k) * (1 + 3 * k))


def _categories(agree):
    def cells(k, props):
        a = [agree(k, p) for p in props]
        return [1 - sum(a), *a]

    return cells


def _r_gof(cells, k0, k1, props, n):
    """kappaSize's .CalcIT: sum((n P(k0) - n P(k1))^2 / (n P(k1)))."""
    return sum(
        (n * a - n * b) ** 2 / (n * b)
        for a, b in zip(cells(k0, props), cells(k1, props), strict=True)
    )


def _r_ci(cells, kappa0, kappaL, kappaU, props, alpha):
    crit = chi2.ppf(1 - alpha if kappaU is not None else 1 - 2 * alpha, 1)
    n, low, up = 10, 0.0, 0.0
    while abs(low - 0.001) < crit or (kappaU is not None and abs(up - 0.001) < crit):
        n += 1
        low = _r_gof(cells, kappa0, kappaL, props, n)
        up = _r_gof(cells, kappa0, kappaU, props, n) if kappaU is not None else 0.0
    return n


def _r_fixed(cells, kappa0, n, props, alpha):
    crit = chi2.ppf(1 - 2 * alpha, 1)
    rho, stat = kappa0, 0.0
    while abs(stat - 0.001) < crit:
        rho -= 0.001
        stat = _r_gof(cells, kappa0, rho, props, n)
    return rho


def test_cibinary_documented_example_is_397():
    # kappaSize man/CIBinary.Rd: CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.30,
    # alpha=0.05); R gives 397 (METHODS.md 2.3)
    assert ks.CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.30, alpha=0.05).n == 397
    assert ks.CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=[0.3, 0.7]).n == 397
    assert _r_ci(lambda k, p: _binary_r2(k, p[0]), 0.4, 0.3, 0.5, [0.3], 0.05) == 397


def test_powerbinary_documented_example_is_190_456():
    # kappaSize man/powerBinary.Rd: PowerBinary(kappa0=0.4, kappa1=0.6, props=0.30,
    # alpha=0.05, power=0.80); R: N = 190.456, printed as 191
    result = ks.PowerBinary(kappa0=0.4, kappa1=0.6, props=0.30, alpha=0.05, power=0.80)
    assert round(result.N, 3) == 190.456 and result.N_ceiling == 191
    # the exact non-centrality gives 190.455 (METHODS.md 2.3): R's bisection stops at 1e-5
    exact = brentq(lambda lam: ncx2.cdf(chi2.ppf(0.95, 1), 1, lam) - 0.2, 1, 30)
    per_item = sum(
        (a - b) ** 2 / b for a, b in zip(_binary_r2(0.6, 0.3), _binary_r2(0.4, 0.3), strict=True)
    )
    assert exact / per_item == pytest.approx(190.455, abs=5e-4)
    assert result.N == pytest.approx(exact / per_item, rel=1e-4)


@pytest.mark.parametrize(
    ("function", "kwargs", "cells"),
    [
        # man/CI3Cats.Rd, CI4Cats.Rd, CI5Cats.Rd examples
        (
            ks.CI3Cats,
            dict(kappa0=0.4, kappaL=0.3, kappaU=0.6, props=(0.30, 0.2, 0.5), raters=3),
            _categories(_agree_r3),
        ),
        (
            ks.CI4Cats,
            dict(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=(0.30, 0.2, 0.2, 0.3)),
            _categories(_agree_r2),
        ),
        (
            ks.CI5Cats,
            dict(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=(0.13, 0.17, 0.2, 0.2, 0.3)),
            _categories(_agree_r2),
        ),
        (  # one-sided: kappaU omitted
            ks.CIBinary,
            dict(kappa0=0.6, kappaL=0.4, props=0.2, raters=4),
            lambda k, p: _binary_r4(k, p[0]),
        ),
    ],
)
def test_ci_examples_match_kappasize_tables_and_search(function, kwargs, cells):
    props = kwargs["props"] if not isinstance(kwargs["props"], float) else [kwargs["props"]]
    expected = _r_ci(cells, kwargs["kappa0"], kwargs["kappaL"], kwargs.get("kappaU"), props, 0.05)
    assert function(**kwargs).n == expected


@pytest.mark.parametrize(
    ("function", "kwargs", "cells"),
    [
        # man/FixedN3Cats.Rd, FixedN4Cats.Rd, FixedN5Cats.Rd, FixedNBinary.Rd examples
        (
            ks.FixedN3Cats,
            dict(kappa0=0.7, n=80, props=(0.33, 0.34, 0.33), raters=5),
            _categories(_agree_r5),
        ),
        (
            ks.FixedN4Cats,
            dict(kappa0=0.7, n=80, props=(0.4, 0.4, 0.1, 0.1), raters=5),
            _categories(_agree_r5),
        ),
        (
            ks.FixedN5Cats,
            dict(kappa0=0.6, n=150, props=(0.4, 0.2, 0.2, 0.1, 0.1), raters=2),
            _categories(_agree_r2),
        ),
        (
            ks.FixedNBinary,
            dict(kappa0=0.7, n=100, props=0.5, raters=4),
            lambda k, p: _binary_r4(k, p[0]),
        ),
    ],
)
def test_fixed_n_examples_walk_down_as_r_does(function, kwargs, cells):
    props = kwargs["props"] if not isinstance(kwargs["props"], float) else [kwargs["props"]]
    expected = _r_fixed(cells, kwargs["kappa0"], kwargs["n"], props, 0.05)
    got = function(**kwargs).kappaL
    assert got == expected  # the same float: 0.001 subtracted the same number of times
    assert got == pytest.approx(round(got, 3), abs=1e-12)


@pytest.mark.parametrize(
    ("function", "props"),
    [
        # man/power3Cats.Rd, power4Cats.Rd, power5Cats.Rd examples (2 raters)
        (ks.Power3Cats, (0.30, 0.60, 0.10)),
        (ks.Power4Cats, (0.30, 0.30, 0.30, 0.10)),
        (ks.Power5Cats, (0.30, 0.20, 0.10, 0.30, 0.10)),
    ],
)
def test_power_examples_match_the_chi_square_formula(function, props):
    result = function(kappa0=0.4, kappa1=0.6, props=props, alpha=0.05, power=0.80)
    cells = _categories(_agree_r2)
    per_item = sum(
        (a - b) ** 2 / b for a, b in zip(cells(0.6, props), cells(0.4, props), strict=True)
    )
    exact = brentq(lambda lam: ncx2.cdf(chi2.ppf(0.95, 1), 1, lam) - 0.2, 1, 30)
    assert result.N == pytest.approx(exact / per_item, rel=1e-4)
    assert result.N_ceiling == math.ceil(result.N)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    kappa0=st.floats(0.3, 0.8),
    gap=st.floats(0.06, 0.2),
    upper=st.booleans(),
    raters=st.integers(2, 6),
    k=st.integers(2, 5),
    seed=st.integers(0, 10**6),
)
def test_ci_search_equals_rs_plain_loop(kappa0, gap, upper, raters, k, seed):
    props = tuple(np.random.default_rng(seed).dirichlet(np.full(k, 3.0)).clip(0.02))
    props = tuple(p / sum(props) for p in props)
    function = {2: ks.CIBinary, 3: ks.CI3Cats, 4: ks.CI4Cats, 5: ks.CI5Cats}[k]
    given_props = props[:1] if k == 2 else props
    kappaU = min(kappa0 + gap, 0.95) if upper else None

    def cells(kappa, p):
        return list(ks.agreement_cells(kappa, p, raters))

    expected = _r_ci(cells, kappa0, kappa0 - gap, kappaU, list(given_props), 0.05)
    got = function(kappa0, kappa0 - gap, kappaU, props=given_props, raters=raters)
    assert got.n == expected


def test_cells_are_the_beta_binomial_for_two_raters_and_dirichlet_all_agree():
    # two raters: kappaSize's binary cells are the beta-binomial with ICC kappa (METHODS 6.3)
    p, k = 0.3, 0.4
    a, b = p * (1 - k) / k, (1 - p) * (1 - k) / k
    bb = [math.comb(2, x) * beta_fn(a + x, b + 2 - x) / beta_fn(a, b) for x in range(3)]
    np.testing.assert_allclose(ks.agreement_cells(k, [p], 2), bb, rtol=1e-12)
    # with kappa = 0 the raters are independent
    np.testing.assert_allclose(ks.agreement_cells(0.0, [p], 5), binom.pmf(range(6), 5, p))
    # K categories: the all-agree patterns of the Dirichlet-multinomial are kappaSize's cells
    setting = ks.KappaSizeSetting("CI3Cats", 0.4, (0.3, 0.2, 0.5), 4, 0.05)
    rows, probs = kappasize_patterns(setting, 0.55)
    assert probs.sum() == pytest.approx(1, abs=1e-12)
    cells = ks.agreement_cells(0.55, setting.props, 4)
    for j in range(3):
        assert probs[rows[:, j] == 4][0] == pytest.approx(cells[1 + j], rel=1e-12)


def test_kappasize_cells_agree_with_r_tables_everywhere():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k, p = rng.uniform(-0.1, 0.95), rng.uniform(0.05, 0.95)
        np.testing.assert_allclose(ks.agreement_cells(k, [p], 4), _binary_r4(k, p), atol=1e-13)
        props = rng.dirichlet(np.ones(4))
        for raters, agree in ((2, _agree_r2), (3, _agree_r3), (5, _agree_r5)):
            mine = ks.agreement_cells(k, props, raters)
            np.testing.assert_allclose(mine, _categories(agree)(k, props), atol=1e-13)


# ------------------------------------------------------------------ irr


def test_n_cohen_kappa_documented_example_is_96():
    # irr man/N.cohen.kappa.Rd: N.cohen.kappa(0.5, 0.5, 0.7, 0.85) -> 96 (R: 95.7, METHODS 2.3)
    result = irr.N_cohen_kappa(0.5, 0.5, 0.7, 0.85)
    assert result.N == 96 and result.N_raw == pytest.approx(95.716, abs=1e-3)


def test_n_cohen_kappa_matches_cantors_closed_form():
    # Cantor (1996) Q(kappa), written out as in irr's R/N.cohen.kappa.R
    def q(r1, r2, kappa):
        pie = r1 * r2 + (1 - r1) * (1 - r2)
        pi0 = kappa * (1 - pie) + pie
        p22 = (pi0 - r1 + 1 - r2) / 2
        p11 = pi0 - p22
        p12, p21 = r1 - p11, r2 - p11
        return (1 - pie) ** -4 * (
            p11 * (1 - pie - (r2 + r1) * (1 - pi0)) ** 2
            + p22 * (1 - pie - (2 - r2 - r1) * (1 - pi0)) ** 2
            + (1 - pi0) ** 2 * (p12 * (r2 + 1 - r1) ** 2 + p21 * (1 - r2 + r1) ** 2)
            - (pi0 * pie - 2 * pie + pi0) ** 2
        )

    for r1, r2, k1, k0, sides in ((0.3, 0.4, 0.6, 0.4, 1), (0.2, 0.15, 0.5, 0.3, 2)):
        z = (norm.ppf(1 - 0.05 / sides), norm.ppf(0.8))
        raw = ((z[0] * q(r1, r2, k0) ** 0.5 + z[1] * q(r1, r2, k1) ** 0.5) / (k1 - k0)) ** 2
        got = irr.N_cohen_kappa(r1, r2, k1, k0, twosided=sides == 2)
        assert got.N_raw == pytest.approx(raw, rel=1e-9) and got.N == math.ceil(raw)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # irr man/N2.cohen.kappa.Rd examples
        (dict(mrg=[0.2, 0.25, 0.55], k1=0.6, k0=0.4), 101),
        (dict(mrg=[0.2, 0.25, 0.55], k1=0.6, k0=0.4, power=0.9), 136),
        (dict(mrg=[0.2, 0.05, 0.2, 0.05, 0.2, 0.3], k1=0.5, k0=0.1), 18),
    ],
)
def test_n2_cohen_kappa_documented_examples(kwargs, expected):
    assert irr.N2_cohen_kappa(**kwargs).N == expected


def test_n2_worst_case_is_the_largest_variance_and_the_binary_table_is_unique():
    # two categories: margins and kappa fix the table, so Flack's maximum is Cantor's tau
    tau, table = irr.max_tau([0.3, 0.7], 0.5)
    cantor = irr.binary_cells(0.3, 0.3, 0.5)
    np.testing.assert_allclose(table, cantor, atol=1e-9)
    assert tau == pytest.approx(irr._tau(cantor), rel=1e-9)
    # three categories: no table with the margins and kappa has a larger FCE variance
    m = np.array([0.2, 0.25, 0.55])
    tau_max, worst = irr.max_tau(m, 0.6)
    assert np.allclose(worst.sum(0), m) and np.allclose(worst.sum(1), m)
    flat = 0.4 * np.outer(m, m) + 0.6 * np.diag(m)
    rng = np.random.default_rng(5)
    for _ in range(200):  # mixtures of the worst and the proportional table keep margins, kappa
        w = rng.uniform()
        assert irr._tau(w * worst + (1 - w) * flat) <= tau_max + 1e-12


# ------------------------------------------------------------------ simulated verdicts


def test_ci_answer_is_an_expected_limit_not_a_guarantee():
    # METHODS.md 2.3 / 7.5: at n = 397 simulated limits average about 0.299 / 0.492 and about
    # half of the studies reach each limit (2,000 studies: MC SE of a share 0.011)
    result = ks.CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.3)
    verdict = check_ci(result, replicates=2000, rng=20261201)
    assert verdict.mean_lower == pytest.approx(0.3, abs=0.01)
    assert verdict.mean_upper == pytest.approx(0.5, abs=0.015)
    assert 0.44 <= verdict.share_lower_ok <= 0.56
    assert 0.44 <= verdict.share_upper_ok <= 0.62
    assert verdict.assurance < 0.15  # both limits at once: rare
    assert verdict.coverage == pytest.approx(0.95, abs=0.015)
    assert "goodness-of-fit" in verdict.method


def test_ci_three_raters_three_categories_reaches_kappa_l_about_half_the_time():
    result = ks.CI3Cats(kappa0=0.4, kappaL=0.3, kappaU=0.6, props=(0.3, 0.2, 0.5), raters=3)
    verdict = check_ci(result, replicates=2000, rng=11)
    assert 0.40 <= verdict.share_lower_ok <= 0.60
    assert verdict.coverage == pytest.approx(0.95, abs=0.02)
    assert "Fleiss" in verdict.method


def test_one_sided_ci_covers_with_the_one_sided_level():
    result = ks.CIBinary(kappa0=0.6, kappaL=0.4, props=0.2, raters=4)
    verdict = check_ci(result, replicates=2000, rng=4)
    assert verdict.share_upper_ok is None and verdict.nominal_coverage == pytest.approx(0.95)
    assert verdict.coverage == pytest.approx(0.95, abs=0.02)


def test_fixed_n_lower_limit_is_reached_by_about_half():
    result = ks.FixedNBinary(kappa0=0.7, n=100, props=0.5, raters=4)
    verdict = check_fixed_n(result, replicates=2000, rng=7)
    assert 0.42 <= verdict.share_at_least <= 0.6
    q10, q50, q90 = verdict.lower_quantiles
    assert q10 < result.kappaL < q90 and q50 == pytest.approx(result.kappaL, abs=0.02)


def test_power_answers_deliver_about_their_power():
    for result in (
        ks.PowerBinary(kappa0=0.4, kappa1=0.6, props=0.3),
        ks.Power3Cats(kappa0=0.4, kappa1=0.6, props=(0.3, 0.6, 0.1)),
    ):
        assert check_power(result, replicates=2000, rng=9).power == pytest.approx(0.8, abs=0.05)


def test_irr_answers_deliver_about_their_power():
    cantor = check_irr(irr.N_cohen_kappa(0.5, 0.5, 0.7, 0.85), replicates=2000, rng=1)
    assert cantor.power == pytest.approx(0.8, abs=0.05)
    flack = check_irr(irr.N2_cohen_kappa([0.2, 0.25, 0.55], 0.6, 0.4), replicates=2000, rng=1)
    assert flack.power == pytest.approx(0.8, abs=0.05)
    assert flack.power_proportional >= flack.power - 0.02  # the worst case is conservative


def test_verdicts_are_reproducible_from_their_seed():
    result = ks.CI4Cats(kappa0=0.5, kappaL=0.35, props=(0.25, 0.25, 0.25, 0.25), raters=3)
    first = check_ci(result, replicates=200, rng=np.random.default_rng(2))
    again = check_ci(result, replicates=200, rng=first.seed)
    assert first == again
    assert check_ci(result, replicates=200).seed != check_ci(result, replicates=200).seed


# ------------------------------------------------------------------ bad input (library)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: ks.CI3Cats(0.4, 0.3, props=(0.3, 0.3, 0.3)), "props must sum to 1"),
        (lambda: ks.CIBinary(0.4, 0.45, props=0.3), "kappaL must be below kappa0"),
        (lambda: ks.CIBinary(0.4, 0.3, 0.35, props=0.3), "kappaU must be above kappa0"),
        (lambda: ks.CIBinary(0.4, 0.3, props=0.3, raters=1), "raters must be a whole number"),
        (lambda: ks.FixedN4Cats(0.4, 50, props=(0.5, 0.5)), "props must have 4 values"),
        (lambda: ks.CI3Cats(0.4, 0.3), "props is required by CI3Cats"),  # no default, as in R
        (lambda: ks.CIBinary(0.4, 0.3, props=1.0), "props must be a number in (0, 1)"),
        (lambda: ks.FixedNBinary(0.4, 10, props=0.5), "n must be a whole number in [11"),
        (lambda: ks.PowerBinary(0.4, 0.4, props=0.5), "kappa1 must differ from kappa0"),
        (lambda: ks.kappasize("CIbinary", kappa0=0.4), "FUNCTION must be one of"),
        (
            lambda: ks.kappasize("CIBinary", kappa0=0.4, kappaL=0.3, props=0.3, n=50),
            "n is not an argument of CIBinary",
        ),
        (lambda: irr.N_cohen_kappa(0.5, 0.1, 0.9, 0.2), "k1 must be a kappa that positive rates"),
        (lambda: irr.N2_cohen_kappa([0.5, 0.4], 0.6, 0.4), "mrg must sum to 1"),
        (lambda: irr.N2_cohen_kappa([0.5, 0.5], 0.4, 0.4), "k1 must differ from k0"),
        (lambda: irr.irr("N3.cohen.kappa"), "FUNCTION must be one of"),
    ],
)
def test_bad_input_names_the_argument(call, needle):
    with pytest.raises(InvalidInput) as info:
        call()
    assert needle in str(info.value)


# ------------------------------------------------------------------ CLI


def _run(*args):
    return runner.invoke(app, ["compat", *args])


def test_cli_kappasize_json_carries_r_answer_and_verdict():
    result = _run(
        "kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3", "--kappaU", "0.5",
        "--props", "0.3", "--seed", "1", "--replicates", "500", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "compat-kappasize"
    assert doc["n"] == 397 and doc["seed"] == 1
    assert doc["simulation"]["replicates"] == 500 and doc["simulation"]["n_items"] == 397
    assert "expected-limit" in doc["verdict"] and "%" in doc["verdict"]
    assert doc["simulation"]["confidence_level"] == 0.95
    assert "goodness-of-fit" in doc["simulation"]["interval_method"]


@pytest.mark.parametrize(
    ("args", "key", "value"),
    [
        (["PowerBinary", "--kappa0", "0.4", "--kappa1", "0.6", "--props", "0.3"], "N_ceiling", 191),
        (["FixedNBinary", "--kappa0", "0.7", "--n", "100", "--props", "0.5", "--raters", "4"],
         "kappaL", 0.61),
    ],
)  # fmt: skip
def test_cli_kappasize_other_kinds(args, key, value):
    result = _run("kappasize", *args, "--seed", "2", "--replicates", "200", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[key] == value


def test_cli_irr_both_functions():
    one = _run(
        "irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7", "--k0",
        "0.85", "--seed", "3", "--replicates", "200", "--json",
    )  # fmt: skip
    assert one.exit_code == 0, one.output
    doc = json.loads(one.stdout)
    assert doc["N"] == 96 and doc["N_raw"] == pytest.approx(95.716, abs=1e-3)
    two = _run(
        "irr", "N2.cohen.kappa", "--mrg", "0.2,0.05,0.2,0.05,0.2,0.3", "--k1", "0.5", "--k0",
        "0.1", "--seed", "3", "--replicates", "200",
    )  # fmt: skip
    assert two.exit_code == 0, two.output
    assert "N = 18" in two.stdout and "verdict:" in two.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["kappasize", "CI3Cats", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "0.3,0.3,0.3"],
         "--props must sum to 1"),
        (["kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.5", "--props", "0.3"],
         "--kappaL must be below --kappa0"),
        (["kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "0.3",
          "--raters", "7"], "--raters must be a whole number in [2, 6]"),
        (["kappasize", "CI4Cats", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "0.5,0.5"],
         "--props must have 4 values"),
        (["kappasize", "CIbinary", "--kappa0", "0.4"], "FUNCTION must be one of"),
        (["kappasize", "PowerBinary", "--kappa0", "0.4", "--props", "0.3"],
         "--kappa1 is required by PowerBinary"),
        (["kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "a"],
         "--props takes a number"),
        (["irr", "N2.cohen.kappa", "--mrg", "0.5,0.4", "--k1", "0.6", "--k0", "0.4"],
         "--mrg must sum to 1"),
        (["irr", "N.cohen.kappa", "--mrg", "0.5,0.5", "--k1", "0.6", "--k0", "0.4"],
         "--mrg is not an argument of N.cohen.kappa"),
        (["irr", "cohen.kappa"], "FUNCTION must be one of"),
        (["kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "0.3",
          "--power", "0.9"], "--power is not an argument of CIBinary"),
    ],
)  # fmt: skip
def test_cli_bad_input_is_one_line_exit_2(args, needle):
    result = _run(*args)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ bounds and edges


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["PowerBinary", "--kappa0", "0.4", "--kappa1", "0.6", "--props", "0.3", "--power", "0.04"],
        ["Power3Cats", "--kappa0", "0.4", "--kappa1", "0.6", "--props", "0.3,0.3,0.4",
         "--power", "0.04"],
        ["PowerBinary", "--kappa0", "0.4", "--kappa1", "0.6", "--props", "0.3", "--power", "0.3",
         "--alpha", "0.5"],
    ],
)  # fmt: skip
def test_power_at_or_below_alpha_is_refused_at_once(args):
    # power <= alpha has no non-centrality (the test rejects with probability alpha at
    # lambda = 0): kappaSize's bracketing would halve lambda forever. A subprocess with a
    # timeout, so that a search without a bound fails the test instead of hanging it.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "planner", "compat", "kappasize", *args, "--replicates", "100"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: --power must exceed --alpha")
    assert len(done.stderr.strip().splitlines()) == 1


def test_power_at_alpha_is_invalid_in_the_library():
    with pytest.raises(InvalidInput) as info:
        ks.noncentrality(0.05, 0.05)
    assert info.value.parameter == "power" and info.value.value == 0.05


@settings(max_examples=60, deadline=None)
@given(
    alpha=st.floats(0.001, 0.6),
    gap=st.floats(0.002, 0.99),
)
def test_noncentrality_settles_wherever_power_exceeds_alpha(alpha, gap):
    # scipy's noncentral chi-square (independent of the code's erfc form): the lambda found
    # gives the wanted power to within kappaSize's tolerance 1e-5 on the CDF
    power = alpha + gap * (1 - alpha) * 0.999
    lam = ks.noncentrality(alpha, power)
    cdf = ncx2.cdf(chi2.ppf(1 - alpha, 1), 1, lam) if lam > 0 else 1 - alpha
    assert abs(cdf - (1 - power)) <= 1.5e-5


def test_power_past_the_item_cap_is_one_planner_error():
    # kappa1 a hair from kappa0: N would be ~1e24 items (was an OverflowError in the
    # simulation); every compat answer shares the cap ks.N_MAX
    result = _run(
        "kappasize", "PowerBinary", "--kappa0", "0.4", "--kappa1", "0.400000000001",
        "--props", "0.3", "--replicates", "100",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == f"error: more than {ks.N_MAX:,} items would be needed"
    irr_result = _run(
        "irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7",
        "--k0", "0.7000000001", "--replicates", "100",
    )  # fmt: skip
    assert irr_result.exit_code == 1, irr_result.output
    assert irr_result.stderr.strip() == f"error: more than {ks.N_MAX:,} items would be needed"


@pytest.mark.parametrize(
    "args",
    [
        ["kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3", "--props", "0.3",
         "--alpha", "0.5"],
        ["kappasize", "FixedNBinary", "--kappa0", "0.4", "--n", "100", "--props", "0.3",
         "--alpha", "0.6"],
        ["irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7", "--k0",
         "0.85", "--alpha", "0.5"],
    ],
)  # fmt: skip
def test_one_sided_alpha_of_half_or_more_is_a_usage_error(args):
    # a one-sided limit's level is 1 - 2 alpha: at alpha >= 0.5 there is none (was an
    # internal error "confidence_level must be in (0, 1), got 0.0")
    result = _run(*args, "--replicates", "100")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --alpha must be below 0.5 for a one-sided")


def test_two_sided_irr_takes_alpha_one_half():
    result = _run(
        "irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7", "--k0",
        "0.85", "--alpha", "0.5", "--twosided", "--replicates", "100", "--seed", "1", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # N = ((z_{0.75} tau0 + z_{0.8} tau1) / (k1 - k0))^2, Cantor's formula with irr's roles
    doc = json.loads(result.stdout)
    assert doc["simulation"]["confidence_level"] == 0.5


def test_compat_quiet_is_accepted_and_changes_nothing_on_stdout():
    args = ["kappasize", "PowerBinary", "--kappa0", "0.4", "--kappa1", "0.6", "--props", "0.3",
            "--seed", "4", "--replicates", "200"]  # fmt: skip
    loud, quiet = _run(*args), _run(*args, "--quiet")
    assert loud.exit_code == quiet.exit_code == 0, quiet.output
    assert quiet.stdout == loud.stdout
    irr_quiet = _run("irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7",
                     "--k0", "0.85", "--replicates", "100", "--quiet")  # fmt: skip
    assert irr_quiet.exit_code == 0, irr_quiet.output


@pytest.mark.parametrize(
    "args",
    [
        ["compat", "kappasize", "Power5Cats", "--kappa0", "0.134", "--raters", "2", "--props",
         "0.301067,0.240481,0.043448,0.127178,0.287826", "--kappa1", "0.277", "--power",
         "0.6758", "--alpha", "1e-200"],
        ["compat", "irr", "N.cohen.kappa", "--k0", "0.308", "--k1", "0.482", "--rate1", "0.5",
         "--rate2", "0.5", "--alpha", "1.1754943508222875e-38"],
    ],
)  # fmt: skip
def test_an_alpha_too_small_for_a_normal_quantile_is_refused_in_one_line(args):
    # found by the CLI fuzz: 1 - alpha rounds to 1.0, whose normal quantile is infinite
    result = CliRunner().invoke(app, [*args, "--seed", "1"])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: --alpha must be a number in [1e-12, 1), got ")
