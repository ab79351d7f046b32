"""A stratified study in progress (plan --labelled --scenario S --stratum-col COL).

The test's own simulation never calls the planner's search: it draws each stratum's truth from
Dirichlet(counts + 1/2), the remaining items of each stratum as multinomial counts, adds the
first stage, and reads the population-weighted interval from planner.statistics.stratified
(the interval agree --stratum-col reports, its coverage checked in its own tests). The strata
shares' chi-square statistic is scipy's.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from scipy import stats
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.measuring.stratified import measure_stratified
from planner.output.jsonout import load_schema
from planner.sizing.midstudy_strata import StrataStage, plan_remaining_strata
from planner.sizing.plan import PlanSettings
from planner.sizing.strata_file import plan_remaining_strata_from_file
from planner.statistics.stratified import weighted_from_tables

ROOT = Path(__file__).parent.parent
FILE = ROOT / "examples" / "stratified-labels.csv"
SCENARIO = ROOT / "scenarios" / "unsupported-claims-enriched.toml"
runner = CliRunner()


@pytest.fixture(scope="module")
def plan():
    return plan_remaining_strata_from_file(
        str(FILE), str(SCENARIO), "stratum", positive="unsupported", rng=2
    )


def _assurance(counts, shares, more, width, studies, seed):
    rng = np.random.default_rng(seed)
    tables = np.repeat(np.asarray(counts)[None], studies, axis=0)
    for h, c in enumerate(counts):
        truth = rng.dirichlet(np.asarray(c) + 0.5, size=studies)
        tables[:, h] += rng.multinomial(int(more[h]), truth)
    ci = weighted_from_tables("psa", tables.reshape(studies, -1, 2, 2), shares, 0.95)
    return float(np.mean((ci.high - ci.low) / 2 <= width))


def _counts(plan):
    """(both, a_only, b_only, neither) per stratum, counted here from the CSV."""
    items: dict[str, dict[str, str]] = {}
    with open(FILE, newline="") as handle:
        for row in csv.DictReader(handle):
            items.setdefault(row["item"], {"stratum": row["stratum"]})[row["annotator"]] = row[
                "label"
            ]
    rows = {s.name: np.zeros(4, dtype=int) for s in plan.strata}
    for labels in items.values():
        a, b = labels["ann_a"] == "unsupported", labels["ann_b"] == "unsupported"
        rows[labels["stratum"]][2 * (not a) + (not b)] += 1
    return np.array([rows[s.name] for s in plan.strata])


def test_interval_now_is_agrees_population_weighted_psa(plan):
    ratings = read_labels(str(FILE), ReaderSettings(by=("stratum",)))
    shares = {s.name: s.share for s in plan.strata}
    agree = measure_stratified(ratings, "stratum", shares, positive="unsupported")
    psa = agree.coefficients["psa"]
    assert plan.estimate == pytest.approx(psa.estimate, rel=1e-9)
    assert plan.interval_now == pytest.approx((psa.ci_low, psa.ci_high), rel=1e-9)
    assert [s.labelled for s in plan.strata] == [120, 150, 40, 290]  # make_stratified.py


def test_remaining_per_stratum_hold_in_an_independent_simulation(plan):
    counts = _counts(plan)
    assert counts.sum(axis=1).tolist() == [s.labelled for s in plan.strata]
    shares = np.array([s.share for s in plan.strata])
    more = np.array([s.remaining for s in plan.strata])
    assert plan.remaining_items == more.sum() and plan.total_items == 600 + more.sum()
    # each stratum is brought to its design share of the design's total, at least the
    # scenario's floor of 30 items, or keeps the more it already holds
    for s in plan.strata:
        wanted = max(int(np.ceil(s.design_share * plan.design_total - 1e-9)), 30)
        assert s.total == max(wanted, s.labelled)
    at = _assurance(counts, shares, more, plan.width, 4000, 5)
    below = _assurance(counts, shares, (0.8 * more).astype(int), plan.width, 4000, 6)
    assert plan.target_assurance == 0.8  # the scenario's [target]
    assert abs(at - 0.8) < 0.03
    assert below < 0.8 - 0.1


def test_strata_shares_note_follows_the_chi_square_test(plan):
    c = plan.shares_check
    labelled = np.array([s.labelled for s in plan.strata])
    design = np.array([s.design_share for s in plan.strata])
    expected = stats.chisquare(labelled, 600 * design)
    assert c.statistic == pytest.approx(expected.statistic) and c.df == 3
    assert c.p_value == pytest.approx(expected.pvalue, rel=1e-6)
    assert c.stratum == "rest of traffic" and any("random sample" in n for n in plan.notes)
    # a first stage at the design's shares raises no note
    even = np.round(np.outer(600 * design, [0.1, 0.05, 0.05, 0.8])).astype(int)
    stage = StrataStage(even, [s.name for s in plan.strata], [s.share for s in plan.strata], design)
    calm = plan_remaining_strata(stage, PlanSettings(width=0.2, replicates=200), rng=1)
    assert calm.shares_check.p_value > 0.01 and not calm.notes


def test_cli_json_and_refusals():
    args = ["plan", "--labelled", str(FILE), "--scenario", str(SCENARIO)]
    args += ["--stratum-col", "stratum", "--positive", "unsupported", "--replicates", "400"]
    result = runner.invoke(app, [*args, "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    assert doc["command"] == "plan-labelled-strata"
    assert doc["recommendation"]["items"] == doc["remaining_items"]
    assert sum(s["remaining"] for s in doc["strata"]) == doc["remaining_items"]
    alone = runner.invoke(app, ["plan", "--prevalence", "0.08", "--stratum-col", "stratum"])
    assert alone.exit_code == 2 and "--stratum-col applies only" in alone.stderr
    bare = runner.invoke(app, ["plan", "--labelled", str(FILE), "--stratum-col", "stratum"])
    assert bare.exit_code == 2 and "--scenario" in bare.stderr


def test_a_design_total_below_the_items_in_hand_still_tops_up_the_stratum_it_lacks():
    # 1,000 items of stratum a and 40 of b, an even design: the smallest design total that
    # reaches the width (about 230) is far below the 1,040 in hand, yet b needs more items;
    # stopping there would leave the interval as wide as now (0.17 against 0.1)
    counts = [[60, 10, 10, 920], [6, 2, 1, 31]]
    stage = StrataStage(counts, ["a", "b"], [0.5, 0.5], [0.5, 0.5])
    result = plan_remaining_strata(stage, PlanSettings(width=0.1, assurance=0.8), rng=1)
    assert result.half_width_now > 0.1
    assert result.design_total < result.labelled_items
    assert [s.remaining for s in result.strata][0] == 0 and result.remaining_items > 0
    assert result.remaining_items == int(np.ceil(0.5 * result.design_total)) - 40
    assert result.assurance >= 0.8
