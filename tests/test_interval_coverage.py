"""The coverage plans report for their intervals, and the one rule for under-coverage.

PSA's exact coverage (at a fixed size and at the planned size) is checked against a sum
written here from scratch (every ``(U, a)``, no truncation, statsmodels' binomial intervals
mapped to PSA), the Monte Carlo coverage of kappa against studies drawn here with numpy's
multinomial, and the note on an interval that under-covers against the plan's JSON.
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

from planner import PlanSettings, SearchSettings, find_sample_size, fixed_size_precision
from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.sizing.exact import exact_psa_coverage, exact_psa_law
from planner.sizing.interval_coverage import COVERAGE_TOLERANCE, falls_short
from planner.sizing.model import pair_from_annotators, pair_from_counts
from planner.statistics.agreement import cohen_kappa
from planner.statistics.intervals import kappa_interval

PILOT = [30, 10, 10, 950]  # both, A only, B only, neither
STATSMODELS_METHOD = {"wilson": "wilson", "clopper-pearson": "beta", "jeffreys": "jeffreys"}


def _wald_limits(a: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The delta-method Wald limits of PSA = 2a / (a + U), SE = sqrt(4 a (U - a) U) / (a + U)^2,
    clipped to [0, 1]."""
    psa = 2 * a / (a + u)
    se = np.sqrt(4 * a * (u - a) * u) / (a + u) ** 2
    z = stats.norm.ppf(0.975)
    return np.clip(psa - z * se, 0, 1), np.clip(psa + z * se, 0, 1)


def _independent_psa_coverage(cells: list[float], n: int, method: str) -> float:
    """``sum_U sum_a Bin(U; n, r) Bin(a; U, J) 1[L <= PSA <= H]`` over the whole grid, with
    the interval for ``J`` from statsmodels and ``PSA = 2J / (1 + J)`` (monotone), or Wald's
    limits on PSA itself."""
    p = np.asarray(cells, float) / sum(cells)
    r = p[0] + p[1] + p[2]
    jaccard = p[0] / r
    truth = 2 * jaccard / (1 + jaccard)
    u, a = np.meshgrid(np.arange(1, n + 1), np.arange(n + 1), indexing="ij")
    inside = a <= u
    weight = stats.binom.pmf(u, n, r) * stats.binom.pmf(a, u, jaccard) * inside
    a = np.where(inside, a, 0)
    if method == "wald":
        low, high = _wald_limits(a.astype(float), u.astype(float))
    else:
        low, high = proportion_confint(a, u, alpha=0.05, method=STATSMODELS_METHOD[method])
        low, high = 2 * low / (1 + low), 2 * high / (1 + high)
    return float(np.sum(weight * ((low <= truth) & (truth <= high))))


@pytest.mark.parametrize("method", [*STATSMODELS_METHOD, "wald"])
@pytest.mark.parametrize("cells", [PILOT, [6, 21, 14, 459]])
@pytest.mark.parametrize("n", [40, 400])
def test_exact_psa_coverage_is_the_full_binomial_sum(method: str, cells: list[int], n: int) -> None:
    expected = _independent_psa_coverage(cells, n, method)
    got = exact_psa_coverage(pair_from_counts(cells), n, 0.95, method)
    assert got == pytest.approx(expected, abs=1e-9)


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
    assert m.coverage_mc_se is not None
    assert abs(m.coverage - independent) < 4 * np.hypot(m.coverage_mc_se, m.coverage_mc_se)


@settings(max_examples=25, deadline=None)
@given(
    both=st.integers(1, 40),
    one=st.integers(1, 40),
    other=st.integers(0, 40),
    n=st.integers(20, 600),
)
def test_clopper_pearson_covers_at_least_its_level_wherever_there_is_an_interval(
    both: int, one: int, other: int, n: int
) -> None:
    """Clopper-Pearson is exact for J given U, and PSA is monotone in J: given U > 0 it
    covers at least 95 %, so overall at least 0.95 (1 - P(U = 0))."""
    law = exact_psa_law(pair_from_counts([both, one, other, 500]), n, 0.95, "clopper-pearson")
    assert law is not None
    assert law.coverage >= 0.95 * (1 - law.no_interval) - 1e-9


def test_the_exact_law_takes_only_the_methods_it_is_exact_for() -> None:
    with pytest.raises(InvalidInput) as raised:
        exact_psa_law(pair_from_counts(PILOT), 300, 0.95, "bootstrap")
    assert raised.value.parameter == "method"


def test_the_gof_interval_is_checked_against_the_intraclass_kappa() -> None:
    """Biased annotators (A flags 100 items B does not): gof estimates the intraclass kappa
    1 - (b + c) / (2 pi (1 - pi)), far from Cohen's kappa, and covers it near 95 %."""
    model = pair_from_counts([20, 100, 0, 880])
    a, b, c, _ = model.cells
    pi = (2 * a + b + c) / 2
    plan_settings = PlanSettings(metric="kappa", kappa_method="gof", width=0.1, replicates=2000)
    m = fixed_size_precision(model, plan_settings, items=5000, rng=3).metrics["kappa"]
    assert m.true_value == pytest.approx(1 - (b + c) / (2 * pi * (1 - pi)))
    assert abs(m.coverage - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 2000)
    assert not m.under_covers()


def test_studies_without_an_interval_are_said_apart_from_too_narrow_ones() -> None:
    model = pair_from_counts([1, 1, 1, 9997])  # union rate 3e-4: most studies of 2,000 have none
    m = fixed_size_precision(model, PlanSettings(width=0.1), items=2000, rng=1).metrics["psa"]
    assert m.no_interval == pytest.approx((1 - 3e-4) ** 2000)
    assert m.under_covers()
    notes = fixed_size_precision(model, PlanSettings(width=0.1), items=2000, rng=1)
    (note,) = notes.under_coverage_notes()
    assert f"{m.no_interval:.1%} of studies have no interval" in note
    assert m.coverage / (1 - m.no_interval) > 0.95  # those with one cover


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
    shortfall = [n for n in few["notes"] if "holds the true value" in n]
    assert shortfall and "the Fleiss' kappa interval" in shortfall[0]
    many = json.loads(CliRunner().invoke(app, [*args, "--items", "1500"]).stdout)
    assert many["precision"]["coverage"] > 0.93
    assert not any("holds the true value" in n for n in many["notes"])


def test_several_annotators_json_keeps_its_notes_in_the_document() -> None:
    """As for a pair: with --json the plan's notes are in the document, and stderr says only
    the options the plan did not use."""
    args = ["plan", "--annotators", "3", "--prevalence", "0.05", "--metric", "fleiss"]
    args += ["--width", "0.1", "--seed", "3", "--items", "60", "--psa-method", "wald", "--json"]
    result = CliRunner().invoke(app, args)
    notes = json.loads(result.stdout)["notes"]
    assert any("holds the true value" in n for n in notes)
    assert "holds the true value" not in result.stderr
    unused = "--psa-method has no effect on a multi-rater plan"
    assert unused in notes and f"note: {unused}" in result.stderr


def test_the_planned_psa_size_carries_its_exact_coverage() -> None:
    model = pair_from_annotators(0.08)  # the README's pair: error rate 0.04 each
    res = find_sample_size(model, SearchSettings(metric="psa", width=0.08), rng=1)
    assert res.items == 1280  # docs/methods/sample-size.md 2.2
    expected = _independent_psa_coverage(list(model.cells), res.items, "wilson")
    assert res.exact_coverage == pytest.approx(expected, abs=1e-9)
    assert abs(res.coverage - expected) < 4 * res.coverage_mc_se  # the fresh studies agree
    assert not res.under_covers


def test_a_planned_wald_interval_that_under_covers_is_a_note() -> None:
    args = ["plan", "--prevalence", "0.08", "--width", "0.2", "--psa-method", "wald"]
    plan = json.loads(CliRunner().invoke(app, [*args, "--seed", "1", "--json"]).stdout)
    psa = plan["results"]["psa"]
    assert psa["exact_coverage"] < 0.95 - COVERAGE_TOLERANCE
    assert any(f"at {psa['items']:,} items the PSA interval (wald)" in n for n in plan["notes"])


def test_kappa_plans_have_no_exact_coverage() -> None:
    args = ["plan", "--prevalence", "0.08", "--metric", "kappa", "--seed", "1", "--json"]
    kappa = json.loads(CliRunner().invoke(app, args).stdout)["results"]["kappa"]
    assert kappa["exact_coverage"] is None and 0.9 < kappa["coverage"] < 1


@given(
    coverage=st.floats(0, 1),
    shift=st.floats(0, 0.2),
    se=st.one_of(st.none(), st.floats(0, 0.05)),
)
def test_falling_short_is_monotone_and_forgives_noise(
    coverage: float, shift: float, se: float | None
) -> None:
    if falls_short(coverage, se, 0.95):
        assert falls_short(max(coverage - shift, 0.0), se, 0.95)
    if coverage >= 0.95 - COVERAGE_TOLERANCE or coverage >= 0.95 - 3 * (se or 0.0):
        assert not falls_short(coverage, se, 0.95)
