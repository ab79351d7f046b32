"""A small slice of the coverage study (coverage_study/coverage.py), with checks that can fail.

Monte Carlo tolerances are 3 standard errors; the exact coverages are computed here
independently, by enumerating the union positives and the binomial law of ``a`` given them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from coverage_study import coverage
from coverage_study.grid import Cell, grid
from coverage_study.methods import DEFAULTS, Method, multi_estimands, multi_methods
from coverage_study.models import (
    category_rows,
    multi_rater_model,
    pattern_bits,
    pattern_probabilities,
    unbiased_pair,
)
from coverage_study.output import markdown
from planner.sizing.model import pair_from_annotators
from planner.statistics.agreement import positive_agreement
from planner.statistics.intervals import psa_standard_error

pytestmark = pytest.mark.slow

Z = 1.959963984540054


def _pair_cell(prevalence: float, psa: float, union_positives: int) -> Cell:
    cells, _ = unbiased_pair(prevalence, "psa", psa, 0.0)
    n = round(union_positives / cells[:3].sum())
    label = f"test pi={prevalence} psa {psa} U={union_positives}"
    return Cell("unbiased", label, 2, tuple(cells), union_positives, n)


def _exact_conditional_coverage(cell: Cell, limits) -> float:
    """``sum_u P(U = u) sum_a P(a | u) 1{J in limits(a, u)}``; U = 0 (undefined) is a miss."""
    a_p, b_p, c_p, _ = cell.probabilities
    r = a_p + b_p + c_p
    j = a_p / r
    u = np.arange(1, cell.n_items + 1)
    total = 0.0
    for ui, pu in zip(u, stats.binom.pmf(u, cell.n_items, r), strict=True):
        if pu < 1e-14:
            continue
        a = np.arange(ui + 1)
        low, high = limits(a, ui)
        total += pu * stats.binom.pmf(a, ui, j)[(low <= j) & (j <= high)].sum()
    return total


def _wilson(a, u):
    p = a / u
    centre = (p + Z**2 / (2 * u)) / (1 + Z**2 / u)
    half = Z * np.sqrt(p * (1 - p) / u + Z**2 / (4 * u**2)) / (1 + Z**2 / u)
    return centre - half - 1e-12, centre + half + 1e-12


def _row(document, method: str) -> dict:
    (row,) = [r for r in document["rows"] if f"{r['coefficient']}/{r['method']}" == method]
    return row


@pytest.mark.parametrize(
    ("prevalence", "psa", "union_positives"), [(0.05, 0.6, 20), (0.1, 0.3, 50)]
)
def test_wilson_coverage_equals_the_exact_binomial_sum(prevalence, psa, union_positives):
    cell = _pair_cell(prevalence, psa, union_positives)
    reps = 4000
    doc = coverage.run(cells=[cell], reps=reps, seed=5, wanted=["psa/wilson"])
    row = _row(doc, "psa/wilson")
    exact = _exact_conditional_coverage(cell, _wilson)
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(row["coverage"] - exact) <= 3 * se, (row["coverage"], exact)
    assert row["true_value"] == pytest.approx(psa, abs=1e-9)


def test_clopper_pearson_is_conservative_at_few_union_positives():
    for prevalence, psa, u in [(0.02, 0.9, 20), (0.3, 0.6, 20), (0.05, 0.3, 50)]:
        reps = 2000
        doc = coverage.run(
            cells=[_pair_cell(prevalence, psa, u)], reps=reps, seed=3, wanted=["clopper-pearson"]
        )
        row = _row(doc, "psa/clopper-pearson")
        assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps), row


def _half_wald(tables, rng):
    est = positive_agreement(tables)
    se = psa_standard_error(tables) / 2
    return est - Z * se, est + Z * se


def test_a_deliberately_broken_interval_is_flagged_and_a_good_one_is_not():
    broken = Method("psa", "wald-half", _half_wald)
    doc = coverage.run(
        cells=[_pair_cell(0.1, 0.6, 150)], reps=1000, seed=2, wanted=["psa/wilson"], extra=[broken]
    )
    bad = _row(doc, "psa/wald-half")
    # a half-width interval covers about P(|Z| < 0.98) = 0.67
    assert bad["flag"] == "under" and bad["coverage"] < 0.75
    assert _row(doc, "psa/wilson")["flag"] == ""


def test_flag_rule_needs_both_the_band_and_two_standard_errors():
    assert coverage.flag(0.94, 2000) == ""  # inside [0.935, 0.965]
    assert coverage.flag(0.93, 2000) == "under"  # outside, 4.1 SE below
    assert coverage.flag(0.93, 100) == ""  # outside the band but within 2 SE (0.0436)
    assert coverage.flag(0.975, 4000) == "over"


def test_undefined_intervals_are_misses_and_counted():
    cells, _ = unbiased_pair(0.05, "psa", 0.6, 0.0)
    cell = Cell("unbiased", "test tiny study", 2, tuple(cells), 1, 12)  # P(U = 0) about 0.5
    doc = coverage.run(cells=[cell], reps=500, seed=1, wanted=["psa/wilson"])
    row = _row(doc, "psa/wilson")
    p_undefined = (1 - cells[:3].sum()) ** 12
    assert row["n_undefined"] == pytest.approx(500 * p_undefined, abs=4 * math.sqrt(500 * 0.25))
    assert row["coverage"] <= 1 - row["n_undefined"] / 500


def test_results_do_not_depend_on_which_methods_or_cells_run():
    cell_a, cell_b = _pair_cell(0.05, 0.6, 20), _pair_cell(0.1, 0.3, 50)
    alone = coverage.run(cells=[cell_b], reps=300, seed=9, wanted=["psa/bootstrap"])
    together = coverage.run(cells=[cell_a, cell_b], reps=300, seed=9, wanted=["psa"])
    row = _row(alone, "psa/bootstrap")
    (again,) = [
        r for r in together["rows"] if r["cell"] == cell_b.label and r["method"] == "bootstrap"
    ]
    assert row == again


def test_pattern_model_with_two_annotators_is_plannerss_pair_model():
    for pi, e, bias, h in [(0.1, 0.03, (0.5, -0.5), 0.4), (0.3, 0.1, (0.0, 0.0), 0.0)]:
        patterns = pattern_probabilities(pi, e, bias, h)  # none, A only, B only, both
        a, b, c, d = pair_from_annotators(pi, e, bias, h).cells
        assert patterns == pytest.approx([d, b, c, a], abs=1e-15)


def test_population_values_are_the_large_sample_limits():
    probs, _ = multi_rater_model(0.3, 4, 0.5, 0.8)
    rows = category_rows(4)
    big = np.random.default_rng(0).multinomial(10**8, probs)
    truth = {k: fn(probs) for k, fn in multi_estimands(4).items()}
    assert truth["fleiss_kappa"] == pytest.approx(0.5, abs=1e-9)  # the level solved for
    for name, fn in multi_estimands(4).items():
        # the estimate on one study of 1e8 items: SE below 1e-4
        assert fn(big / 10**8) == pytest.approx(truth[name], abs=1e-3), name
    assert rows.sum(axis=1).tolist() == [4] * 5


def _conger_by_hand(probs: np.ndarray, m: int) -> float:
    """Conger (1980) from the pattern probabilities: pairwise agreement against the chance
    agreement of each pair of different annotators' own positive rates."""
    bits = pattern_bits(m)
    rate = probs @ bits  # P(annotator g says positive)
    pairs = [(g, h) for g in range(m) for h in range(m) if g != h]
    p_a = np.mean([probs @ (bits[:, g] == bits[:, h]) for g, h in pairs])
    p_e = np.mean([rate[g] * rate[h] + (1 - rate[g]) * (1 - rate[h]) for g, h in pairs])
    return float((p_a - p_e) / (1 - p_e))


@pytest.mark.parametrize(("m", "bias"), [(3, 0.8), (4, 0.8), (5, 0.0)])
def test_conger_estimand_uses_each_annotators_own_marginals(m, bias):
    probs, _ = multi_rater_model(0.3, m, 0.5, bias)
    truth = multi_estimands(m)
    assert truth["conger_kappa"](probs) == pytest.approx(_conger_by_hand(probs, m), abs=1e-9)
    if bias == 0:  # equal marginals: Conger's kappa is Fleiss' kappa
        assert truth["conger_kappa"](probs) == pytest.approx(0.5, abs=1e-9)
    else:  # different marginals: Conger's chance agreement is smaller, its kappa larger
        assert truth["conger_kappa"](probs) > truth["fleiss_kappa"](probs) + 1e-3


def test_agrees_current_several_annotator_defaults_cover_on_a_tiny_slice():
    cells, _ = grid("multi")
    wanted = {"M=3 pi=0.3 fleiss 0.5 bias=±0.8 U=180", "M=4 pi=0.05 fleiss 0.8 bias=±0 U=50"}
    tiny = [c for c in cells if c.label in wanted]
    reps = 600
    new = [
        "gwet-t-log1m",
        "specific_positive/profile",
        "conger_kappa/profile-shifted",
        "fleiss_kappa/profile",
    ]
    doc = coverage.run(cells=tiny, reps=reps, seed=11, wanted=new)
    keys = {(r["cell"], f"{r['coefficient']}/{r['method']}") for r in doc["rows"]}
    for cell in tiny:
        for key in ("gwet_ac1/gwet-t-log1m", "brennan_prediger/gwet-t-log1m", *new[1:]):
            assert (cell.label, key) in keys
    for row in doc["rows"]:
        assert row["n_undefined"] == 0, row
        assert abs(row["coverage"] - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / reps), row
        assert DEFAULTS[row["coefficient"]] == row["method"]  # each is agree's default


def test_conger_kappa_is_simulated_from_three_annotators_on():
    names = {m: {x.key for x in multi_methods(m, 10)} for m in (2, 3)}
    assert "conger_kappa/gwet-t" not in names[2]
    assert names[3] - names[2] == {"conger_kappa/gwet-t", "conger_kappa/profile-shifted"}
    assert {"gwet_ac1/gwet-t", "specific_positive/wald-linearised"} <= names[2]  # kept


def test_the_small_slice_writes_valid_json_and_markdown(tmp_path, capsys):
    out, md = tmp_path / "coverage.json", tmp_path / "coverage.md"
    code = coverage.main(
        ["--slice", "small", "--reps", "200", "--json", str(out), "--markdown", str(md), "--quiet"]
    )
    assert code == 0
    doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    cells, _ = grid("small")
    n_methods = {len(coverage.methods_for(c, 10, None)) for c in cells}
    assert len(doc["rows"]) == sum(len(coverage.methods_for(c, 10, None)) for c in cells)
    assert {c.regime.startswith("multi") for c in cells} == {True, False}  # both kinds
    assert n_methods  # (a pair and three annotators may now have as many methods)
    assert doc["settings"]["reps"] == 200 and doc["settings"]["seed"] == 20261201
    assert doc["settings"]["versions"]["numpy"] == np.__version__
    assert all(0 <= r["coverage"] <= 1 and r["reps"] == 200 for r in doc["rows"])
    text = md.read_text()
    assert text.count("\n| ") >= len({(r["coefficient"], r["method"]) for r in doc["rows"]})
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split()[:3] == ["cell", "coefficient", "method"]


def test_an_unknown_method_name_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        coverage.main(["--slice", "small", "--methods", "psa/wilsn", "--quiet"])
    assert stop.value.code == 2
    assert "unknown psa/wilsn" in capsys.readouterr().err


def _stub_row(regime: str, method: str, coverage_value: float, flag: str) -> dict:
    return {
        "regime": regime,
        "cell": f"{regime} cell",
        "coefficient": "psa",
        "method": method,
        "coverage": coverage_value,
        "mc_se": 0.003,
        "flag": flag,
    }


def _stub_document(rows: list[dict], commit: str, slice_name: str) -> dict:
    return {
        "settings": {
            "slice": slice_name,
            "seed": 7,
            "reps": 4000,
            "n_boot": 500,
            "seconds": 1.0,
            "flag_rule": "rule",
            "versions": {"planner": "0", "git_commit": commit},
        },
        "skipped": [f"skipped in {slice_name}"],
        "rows": rows,
    }


def test_a_rerun_part_replaces_its_regimes_and_keeps_the_others():
    old = _stub_document(
        [_stub_row("unbiased", "wald", 0.5, "under"), _stub_row("multi-unbiased", "x", 0.9, "")],
        "aaaa",
        "full",
    )
    new = _stub_document([_stub_row("unbiased", "wald", 0.95, "")], "bbbb", "two")
    merged = coverage.carry_over(new, old)
    assert [(r["regime"], r["coverage"]) for r in merged["rows"]] == [
        ("unbiased", 0.95),
        ("multi-unbiased", 0.9),
    ]
    assert merged["settings"]["carried_over"]["regimes"] == ["multi-unbiased"]
    assert merged["settings"]["carried_over"]["git_commit"] == "aaaa"
    assert merged["skipped"] == ["skipped in two", "skipped in full"]
    assert "carried over unchanged from the `full` run at aaaa" in markdown(merged)


def test_every_markdown_row_says_whether_it_is_flagged():
    rows = [
        _stub_row("unbiased", "wilson", 0.95, ""),
        _stub_row("unbiased", "wald", 0.89, "under"),
        _stub_row("biased", "clopper-pearson", 0.98, "over"),
    ]
    table = [
        line.split(" | ")
        for line in markdown(_stub_document(rows, "cccc", "two")).splitlines()
        if line.startswith("| psa")
    ]
    assert [(cols[1], cols[3]) for cols in table] == [
        ("wilson (agree's default)", "no"),
        ("wald", "**yes** (under)"),
        ("clopper-pearson", "**yes** (over)"),
    ]


def test_the_shipped_table_has_the_score_interval_and_the_calibrated_gof():
    doc = json.loads((Path(coverage.__file__).parent / "coverage.json").read_text())
    keys = {(r["coefficient"], r["method"]) for r in doc["rows"]}
    assert {("cohen_kappa", "score"), ("intraclass_kappa", "gof")} <= keys
    assert {r["regime"] for r in doc["rows"]} >= {"unbiased", "biased", "multi-unbiased"}
    # the calibrated GOF covers what it estimates: no intraclass-kappa row is flagged under,
    # and over only with fewer than 10 positives of the rarer annotator (0.967 at 4)
    flagged = [r for r in doc["rows"] if r["coefficient"] == "intraclass_kappa" and r["flag"]]
    assert all(r["flag"] == "over" and r["regime"] == "extreme-few" for r in flagged)


def test_the_shipped_table_has_the_profile_interval_covering_under_extreme_bias():
    # coverage_study/coverage.json: the profile interval (agree's default for a pair) keeps
    # [0.935, 0.965] in every extreme-bias cell with 10 or more expected positives of the
    # rarer annotator, where the score interval falls below 0.935
    doc = json.loads((Path(coverage.__file__).parent / "coverage.json").read_text())
    extreme = [r for r in doc["rows"] if r["regime"] == "extreme"]
    profile = [r["coverage"] for r in extreme if r["method"] == "profile"]
    score = [r["coverage"] for r in extreme if r["method"] == "score"]
    assert len(profile) == 12 and all(0.935 <= c <= 0.965 for c in profile)
    assert min(score) < 0.92
