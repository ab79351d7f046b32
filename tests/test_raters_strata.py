"""Designs over strata for several annotators: the library's answer checked by an independent
item-level simulation, the weighted estimator of many studies against the analysis of one, the
traffic values against their closed form, and the scenario, CLI, schedule and JSON around it."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.application.raters_strata_options import raters_comparison_from_options
from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.raters_strata import raters_strata
from planner.statistics.stratified import weighted_from_pattern_counts, weighted_from_patterns
from tests.stratified_reference import NAMED_TEAM

ROOT = Path(__file__).parent.parent
SCENARIO = ROOT / "scenarios" / "unsupported-claims-three-annotators-strata.toml"
M = 3


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(SCENARIO)


@pytest.fixture(scope="module")
def comparison(scenario):
    return raters_comparison_from_options({}, scenario, rng=7)


def _rates(prevalence: float, error: float) -> tuple[float, float]:
    """False-negative and false-positive rates of an annotator whose errors split evenly
    (bias 0): half of ``error`` on each class, docs/methods/annotator-models.md 6.2 (a)."""
    return error / 2 / prevalence, error / 2 / (1 - prevalence)


def _pattern_probabilities(prevalence: float, error: float) -> np.ndarray:
    """P(k of M annotators say positive), k = 0..M, for independent annotators given the
    truth: the closed form, written out here."""
    fnr, fpr = _rates(prevalence, error)
    k = np.arange(M + 1)
    comb = np.array([math.comb(M, int(j)) for j in k])
    pos = comb * (1 - fnr) ** k * fnr ** (M - k)
    neg = comb * fpr**k * (1 - fpr) ** (M - k)
    return prevalence * pos + (1 - prevalence) * neg


def _traffic_closed_form(scenario, metric: str) -> float:
    """Fleiss' kappa and Uebersax's PSA of traffic from the strata's mixed patterns."""
    p = sum(
        s.share * _pattern_probabilities(s.prevalence, s.error_rate[0]) for s in scenario.strata
    )
    k = np.arange(M + 1)
    if metric == "psa":
        return float((p * k * (k - 1)).sum() / (p * k * (M - 1)).sum())
    agree = (p * (k * (k - 1) + (M - k) * (M - k - 1))).sum() / (M * (M - 1))
    positive = (p * k).sum() / M
    chance = positive**2 + (1 - positive) ** 2
    return float((agree - chance) / (1 - chance))


def _item_level_studies(scenario, items: list[int], studies: int, seed: int) -> np.ndarray:
    """``(studies, H, M + 1)`` counts of items by positives, each item simulated: its truth,
    then each annotator's label (not the library's pattern multinomials)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((studies, len(items), M + 1), dtype=np.int64)
    for h, (s, n) in enumerate(zip(scenario.strata, items, strict=True)):
        fnr, fpr = _rates(s.prevalence, s.error_rate[0])
        truth = rng.random((studies, n)) < s.prevalence
        wrong = rng.random((studies, n, M)) < np.where(truth, fnr, fpr)[..., None]
        positives = (truth[..., None] != wrong).sum(axis=-1)
        for k in range(M + 1):
            out[:, h, k] = (positives == k).sum(axis=1)
    return out


def _rows() -> np.ndarray:
    """Count patterns (negatives, positives) in the order positives = 0..M."""
    return np.array([[M - k, k] for k in range(M + 1)])


def _half_width_and_cover(counts, shares, truth, name="psa") -> tuple[np.ndarray, np.ndarray]:
    fit = weighted_from_pattern_counts(name, _rows(), counts, shares, 0.95, positive=1)
    return (fit.high - fit.low) / 2, (fit.low <= truth) & (truth <= fit.high)


def test_traffic_values_are_the_closed_form_of_the_strata_mixture(scenario, comparison):
    for metric, key in (("psa", "psa"), ("fleiss", "kappa")):
        closed = _traffic_closed_form(scenario, metric)
        assert comparison.population[key] == pytest.approx(closed, abs=1e-9)
        assert comparison.raters.value(metric, comparison.raters.population) == pytest.approx(
            closed, abs=1e-9
        )


@pytest.mark.slow
def test_the_weighted_design_holds_its_target_in_an_independent_simulation(scenario, comparison):
    """At the planned items per stratum, item-level studies reach the width with the planned
    assurance (0.8) and the interval covers traffic's PSA; at 60 % of the items they clearly
    do not reach it."""
    design = comparison.designs["weighted"]
    shares = np.array([s.share for s in scenario.strata])
    truth = _traffic_closed_form(scenario, "psa")
    studies = 4000
    counts = _item_level_studies(scenario, design.items_per_stratum, studies, seed=11)
    half, covered = _half_width_and_cover(counts, shares, truth)
    se = math.sqrt(0.8 * 0.2 / studies)
    assert np.mean(half <= 0.08) >= 0.8 - 3 * se
    assert abs(np.mean(covered) - 0.95) < 0.015
    fewer = [max(2, int(0.6 * n)) for n in design.items_per_stratum]
    half_fewer, _ = _half_width_and_cover(
        _item_level_studies(scenario, fewer, studies, seed=12), shares, truth
    )
    assert np.mean(half_fewer <= 0.08) < 0.5


@pytest.mark.slow
def test_fleiss_weighted_design_holds_its_target_in_an_independent_simulation(scenario):
    found = raters_comparison_from_options({"metric": "fleiss"}, scenario, rng=3)
    design = found.designs["weighted"]
    shares = np.array([s.share for s in scenario.strata])
    truth = _traffic_closed_form(scenario, "fleiss")
    counts = _item_level_studies(scenario, design.items_per_stratum, 4000, seed=13)
    half, covered = _half_width_and_cover(counts, shares, truth, "fleiss_kappa")
    assert np.mean(half <= 0.08) >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / 4000)
    assert abs(np.mean(covered) - 0.95) < 0.015


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 40), min_size=4, max_size=4), min_size=2, max_size=4),
    st.sampled_from(["psa", "fleiss_kappa"]),
)
def test_many_studies_at_once_are_each_studys_own_analysis(strata, name):
    counts = np.array(strata)
    if (counts.sum(axis=1) < 2).any():
        return
    shares = np.full(len(counts), 1 / len(counts))
    one = weighted_from_patterns(name, [(_rows(), c) for c in counts], shares, positive=1)
    many = weighted_from_pattern_counts(name, _rows(), counts[None], shares, positive=1)
    for field in ("estimate", "se", "low", "high"):
        a, b = getattr(one, field), getattr(many, field)[0]
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12)


def test_strata_of_different_annotators_are_refused():
    models = [raters_model(0.1, 3), raters_model(0.2, 4)]
    with pytest.raises(InvalidInput) as caught:
        raters_strata(["a", "b"], [0.5, 0.5], [90.0, 90.0], models)
    assert caught.value.parameter == "strata"


def test_the_designs_describe_their_populations(comparison):
    assert list(comparison.designs) == ["uniform", "enriched", "weighted"]
    weighted = comparison.designs["weighted"]
    assert min(weighted.items_per_stratum) >= 30  # the scenario's design.floor_items
    assert weighted.coverage == pytest.approx(0.95, abs=0.015)
    # every annotator labels every item: the budget bills three labels an item
    assert comparison.costs["weighted"].budget.labels == 3 * weighted.items


runner = CliRunner()


@pytest.mark.slow
def test_plan_prints_the_three_designs_and_says_what_kappa_is():
    done = runner.invoke(app, ["plan", str(SCENARIO), "--replicates", "300"])
    assert done.exit_code == 0, done.output
    assert "Designs: psa half-width <= 0.08" in done.output
    assert "kappa Fleiss' kappa" in " ".join(done.output.split())


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--metric", "alpha"], "--metric"),
        (["--items", "500"], "--items"),
        (["--prevalence", "0.1"], "--prevalence"),
        (["--error-rate", "0.7"], "--error-rate"),
        (["--bias", "0.1"], "--bias"),
        (["--curve"], "--curve"),
        (["--annotators", "7"], "--annotators"),
    ],
)
def test_options_the_designs_do_not_take_are_one_line(extra, named):
    done = runner.invoke(app, ["plan", str(SCENARIO), *extra])
    assert done.exit_code == 2
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and named in lines[0]


def test_a_prevalence_in_the_annotators_section_is_refused_with_strata(tmp_path):
    text = SCENARIO.read_text().replace("count = 3\n", "count = 3\nprevalence = 0.1\n")
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=r"annotators.prevalence does not combine"):
        load_scenario(path)


@pytest.mark.slow
def test_the_schedule_labels_the_weighted_design(comparison):
    done = runner.invoke(app, ["schedule", str(SCENARIO), "--json"])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    operation = document["operation"]
    weighted = comparison.designs["weighted"]
    assert operation["items_per_stratum"] == weighted.items_per_stratum
    assert operation["labels_per_item"] == 3
    expected = comparison.costs["weighted"].person_hours
    assert document["analytic_person_hours"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.slow
def test_a_named_team_bills_the_designs_as_its_schedule_spends(tmp_path):
    """The designs' costs with named people are what the simulated operation of the weighted
    design costs, person by person (its median over runs)."""
    path = tmp_path / "named.toml"
    path.write_text(SCENARIO.read_text() + NAMED_TEAM)
    found = raters_comparison_from_options({}, load_scenario(path), rng=7)
    single_rate = raters_comparison_from_options({}, load_scenario(SCENARIO), rng=7)
    cost = found.costs["weighted"].cost
    assert cost != pytest.approx(single_rate.costs["weighted"].cost, rel=0.02)
    done = runner.invoke(app, ["schedule", str(path), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["cost_median"] == pytest.approx(cost, rel=0.01)


def _scenario_with(tmp_path, old: str, new: str) -> Path:
    text = SCENARIO.read_text()
    assert old in text
    path = tmp_path / "s.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("count = 3", "count = 2", r"annotators.count 2 over \[\[strata\]\] is a pair"),
        ("count = 3", "count = 7", r"annotators.count must be a whole number in \[2, 6\]"),
        ("error_rate = 0.08", "error_rate = [0.08, 0.05]", r"strata\[1\].error_rate takes one"),
        ("prevalence = 0.04", "prevalence = 0.004", r"stratum 'rest of traffic': strata\[4\]"),
        ("count = 3", 'count = 3\nmetric = "alpha"', r"annotators.metric alpha has no"),
    ],
)
def test_a_scenario_the_designs_cannot_take_is_one_line_naming_its_key(tmp_path, old, new, message):
    path = _scenario_with(tmp_path, old, new)
    done = runner.invoke(app, ["plan", str(path)])
    assert done.exit_code == 2, done.output
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and "--" not in lines[0], lines
    assert re.search(message, lines[0]), lines[0]


def test_a_stratum_may_give_each_annotator_its_own_error_rate(tmp_path):
    path = _scenario_with(tmp_path, "error_rate = 0.08", "error_rate = [0.08, 0.05, 0.02]")
    assert load_scenario(path).strata[0].error_rate == (0.08, 0.05, 0.02)
    found = raters_comparison_from_options({}, load_scenario(path), rng=7)
    assert found.raters.models[0].confusion[2] != found.raters.models[0].confusion[0]


def test_a_named_team_smaller_than_the_annotators_is_one_line(tmp_path):
    team = NAMED_TEAM.rsplit("[[team.annotator]]", 1)[0]  # two of the three people
    path = tmp_path / "named.toml"
    path.write_text(SCENARIO.read_text() + team)
    with pytest.raises(InvalidInput, match=r"\[team\] names 2 annotators"):
        raters_comparison_from_options({}, load_scenario(path), rng=7)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [["--union-rate", "0.1"], ["--psa-method", "wald"]])
def test_schedule_refuses_a_pairs_options_for_several_annotators_over_strata(extra):
    done = runner.invoke(app, ["schedule", str(SCENARIO), *extra])
    assert done.exit_code == 2
    assert "describes one pair" in done.output and len(done.output.strip().splitlines()) == 1


def test_the_json_says_which_coefficients_psa_and_kappa_are(comparison):
    from planner.output.jsonout import comparison_document

    document = comparison_document(comparison)
    assert document["annotators"]["count"] == 3
    assert document["annotators"]["kappa"] == "Fleiss' kappa"


def test_the_pairs_design_reader_sends_these_strata_to_the_several_annotator_one():
    from planner.sizing.strata_file import design_of

    with pytest.raises(InvalidInput, match="remaining_strata_from_file") as caught:
        design_of(load_scenario(SCENARIO))
    assert caught.value.parameter == "scenario"


def test_operation_for_labels_several_annotators_plan_with_every_annotator():
    from planner.application.schedule_options import operation_for
    from planner.application.schedule_team import TeamSettings
    from planner.sizing.plan import PlanSettings, make_plan

    settings = PlanSettings(metric="fleiss", width=0.2, replicates=200, adjudication_seconds=60.0)
    plan = make_plan(raters_model(0.2, 3, error_rate=0.1), settings, rng=1)
    operation = operation_for(plan, TeamSettings())
    assert operation.labels_per_item == 3 and operation.items_per_stratum == (plan.items,)
    # error 0.1 without bias: 0.05 of items are false positives and 0.05 false negatives, so
    # a negative is flipped at 0.05 / 0.8 and a positive at 0.05 / 0.2; three independent
    # annotators are unanimous when all are right or all wrong
    fp, fn = 0.05 / 0.8, 0.05 / 0.2
    unanimous = 0.8 * ((1 - fp) ** 3 + fp**3) + 0.2 * ((1 - fn) ** 3 + fn**3)
    assert operation.contested_rate[0] == pytest.approx(1 - unanimous, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(
    "scenario_name", ["unsupported-claims-three-annotators-strata", "web-toxicity-three-annotators"]
)
def test_a_schedule_of_given_items_labels_each_with_the_scenarios_annotators(scenario_name):
    done = runner.invoke(app, ["schedule", scenario_name, "--items", "500", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["operation"]["labels_per_item"] == 3


def test_a_pairs_interval_methods_change_nothing_and_say_so():
    base = ["plan", str(SCENARIO), "--json", "--replicates", "200", "--seed", "1"]
    plain = runner.invoke(app, base)
    with_method = runner.invoke(app, [*base, "--psa-method", "wald"])
    assert plain.exit_code == 0 and with_method.exit_code == 0, with_method.output
    doc = json.loads(with_method.stdout)
    assert doc["designs"] == json.loads(plain.stdout)["designs"]
    assert "--psa-method has no effect on a multi-rater plan" in doc["notes"]
