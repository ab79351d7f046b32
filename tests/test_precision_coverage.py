"""The coverage a pair's fixed-size plan reports for each metric's interval.

PSA's exact coverage is checked against a sum written here from scratch (every ``(U, a)``,
no truncation, statsmodels' binomial intervals mapped to PSA), the Monte Carlo coverage of
kappa against studies drawn here with numpy's multinomial, and the note on an interval that
under-covers against the plan's JSON.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

from planner import PlanSettings, fixed_size_precision
from planner.cli.commands import app
from planner.sizing.exact import exact_psa_coverage
from planner.sizing.model import pair_from_counts
from planner.statistics.agreement import cohen_kappa
from planner.statistics.intervals import kappa_interval

PILOT = [30, 10, 10, 950]  # both, A only, B only, neither
STATSMODELS_METHOD = {"wilson": "wilson", "clopper-pearson": "beta", "jeffreys": "jeffreys"}


def _independent_psa_coverage(cells: list[int], n: int, method: str) -> float:
    """``sum_U sum_a Bin(U; n, r) Bin(a; U, J) 1[L <= PSA <= H]`` over the whole grid, with
    the interval for ``J`` from statsmodels and ``PSA = 2J / (1 + J)`` (monotone)."""
    p = np.asarray(cells, float) / sum(cells)
    r = p[0] + p[1] + p[2]
    jaccard = p[0] / r
    truth = 2 * jaccard / (1 + jaccard)
    u, a = np.meshgrid(np.arange(1, n + 1), np.arange(n + 1), indexing="ij")
    inside = a <= u
    weight = stats.binom.pmf(u, n, r) * stats.binom.pmf(a, u, jaccard) * inside
    low, high = proportion_confint(
        np.where(inside, a, 0), u, alpha=0.05, method=STATSMODELS_METHOD[method]
    )
    low, high = 2 * low / (1 + low), 2 * high / (1 + high)
    return float(np.sum(weight * ((low <= truth) & (truth <= high))))


@pytest.mark.parametrize("method", list(STATSMODELS_METHOD))
def test_exact_psa_coverage_is_the_full_binomial_sum(method: str) -> None:
    model = pair_from_counts(PILOT)
    expected = _independent_psa_coverage(PILOT, 400, method)
    assert exact_psa_coverage(model, 400, 0.95, method) == pytest.approx(expected, abs=1e-9)


def test_clopper_pearson_never_under_covers_and_wald_does_on_few_positives() -> None:
    model = pair_from_counts(PILOT)
    for n in (100, 300, 1000):
        assert exact_psa_coverage(model, n, 0.95, "clopper-pearson") >= 0.95
    assert exact_psa_coverage(model, 300, 0.95, "wald") < 0.94


def test_kappa_coverage_matches_studies_drawn_independently() -> None:
    model = pair_from_counts(PILOT)
    plan_settings = PlanSettings(metric="kappa", width=0.1, replicates=4000)
    m = fixed_size_precision(model, plan_settings, items=500, rng=7).metrics["kappa"]
    rng = np.random.default_rng(2024)
    tables = rng.multinomial(500, model.cells, size=4000).reshape(-1, 2, 2).astype(float)
    ci = kappa_interval(tables, 0.95, m.method)
    truth = float(cohen_kappa(model.table))
    independent = float(np.mean((ci.low <= truth) & (truth <= ci.high)))
    assert m.true_value == pytest.approx(truth)
    assert m.coverage_mc_se == pytest.approx(np.sqrt(m.coverage * (1 - m.coverage) / 4000))
    assert abs(m.coverage - independent) < 4 * np.hypot(m.coverage_mc_se, m.coverage_mc_se)


@settings(max_examples=25, deadline=None)
@given(
    both=st.integers(1, 40),
    one=st.integers(1, 40),
    other=st.integers(0, 40),
    n=st.integers(20, 600),
)
def test_exact_psa_coverage_is_a_probability(both: int, one: int, other: int, n: int) -> None:
    coverage = exact_psa_coverage(pair_from_counts([both, one, other, 500]), n)
    assert coverage is not None and 0.0 <= coverage <= 1.0


def test_an_under_covering_interval_is_a_note_of_the_plan() -> None:
    args = ["plan", "--prevalence", "0.08", "--width", "0.08", "--items", "300", "--json"]
    wald = json.loads(CliRunner().invoke(app, [*args, "--psa-method", "wald"]).stdout)
    psa = wald["precision"]["metrics"]["psa"]
    assert psa["coverage_mc_se"] is None  # exact: Wald's limits depend on (a, U) only
    assert psa["coverage"] < 0.94
    assert any("the PSA interval (wald) holds the true value" in n for n in wald["notes"])
    wilson = json.loads(CliRunner().invoke(app, args).stdout)
    assert abs(wilson["precision"]["metrics"]["psa"]["coverage"] - 0.95) < 0.01
    assert not any("holds the true value" in n for n in wilson["notes"])


def test_several_annotators_under_covering_at_few_items_is_a_note() -> None:
    """Fleiss' kappa of three annotators at 5 % prevalence: 60 items cover far below 95 %
    (the table's coverage row), 1,500 items near it."""
    args = ["plan", "--annotators", "3", "--prevalence", "0.05", "--metric", "fleiss"]
    args += ["--width", "0.1", "--seed", "3", "--json"]
    few = json.loads(CliRunner().invoke(app, [*args, "--items", "60"]).stdout)
    assert few["precision"]["coverage"] < 0.9
    assert any("the fleiss interval" in n and "holds the true value" in n for n in few["notes"])
    many = json.loads(CliRunner().invoke(app, [*args, "--items", "1500"]).stdout)
    assert many["precision"]["coverage"] > 0.93
    assert not any("holds the true value" in n for n in many["notes"])
