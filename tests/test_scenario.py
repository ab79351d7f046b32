"""Scenario files: validation errors, shipped scenarios, overrides and the design comparison."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import plan_app
from planner.data.scenario import load_scenario, scenario_from_dict
from planner.errors import InvalidInput
from planner.sizing.compare import compare_designs
from planner.sizing.design import metric_value, split_items, weighted_estimate
from planner.sizing.pair_strata import stratum_models
from planner.sizing.plan import PlanSettings
from planner.sizing.studies import simulate_tables
from planner.statistics.intervals import psa_interval

SCENARIOS = sorted(Path(__file__).parent.parent.joinpath("scenarios").glob("*.toml"))
runner = CliRunner()


def test_three_scenarios_ship():
    names = {p.stem for p in SCENARIOS}
    assert {"unsupported-claims", "unsupported-claims-enriched", "clinical-chart-review"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_plans(path):
    result = runner.invoke(plan_app, [str(path), "--json", "--replicates", "1000"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    if "designs" in doc:
        assert set(doc["designs"]) == {"uniform", "enriched", "weighted"}
        for design in doc["designs"].values():
            assert (
                design["items"] > 0 and design["budget"]["person_hours"] > 0 and design["describes"]
            )
            assert design["half_width_at_assurance"] <= doc["inputs"]["width"] + 1e-9
    elif doc.get("kind") == "multi-rater":  # an [annotators] scenario
        assert doc["items"] > 0 and doc["budget"]["person_hours"] > 0
    else:
        assert doc["recommendation"]["items"] > 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": 1}, "unknown key colour"),
        ({"target": {"widht": 0.1}}, "unknown key target.widht; allowed:"),
        ({"target": {"width": "narrow"}}, "target.width must be a number in [0.001, 1)"),
        ({"target": {"width": 1.5}}, "target.width must be a number in [0.001, 1), got 1.5"),
        ({"target": {"metric": "f1"}}, "target.metric must be psa, kappa or both"),
        ({"model": {"error_rate": [0.1, 0.2, 0.3]}}, "model.error_rate must be"),
        ({"model": {"pilot_counts": [1, 2, 3]}}, "model.pilot_counts must be a list of four"),
        ({"model": {"prevalence": 0.1, "pilot_counts": [1, 2, 3, 4]}}, "takes one of"),
        ({"model": {"union_rate": 0.1}}, "go together"),
        ({"budget": {"annotators_per_item": 1}}, "budget.annotators_per_item must be"),
        ({"budget": {"seconds_per_item": True}}, "budget.seconds_per_item must be"),
        (
            {
                "strata": [
                    {"name": "a", "share": 0.5, "prevalence": 0.1},
                    {"name": "b", "share": 0.4, "prevalence": 0.1},
                ]
            },
            "shares must sum to 1",
        ),
        ({"strata": [{"name": "a", "prevalence": 0.1}]}, "needs exactly one of share or size"),
        ({"strata": [{"name": "a", "share": 1.0}]}, "needs prevalence"),
        (
            {
                "strata": [
                    {"name": "a", "share": 0.5, "prevalence": 0.1},
                    {"name": "a", "share": 0.5, "prevalence": 0.2},
                ]
            },
            "names must be unique",
        ),
        (
            {
                "strata": [
                    {"name": "a", "share": 0.5, "prevalence": 0.1, "enriched_share": 1.0},
                    {"name": "b", "share": 0.5, "prevalence": 0.2},
                ]
            },
            "enriched_share",
        ),
        ({"thresholds": {"not_demonstrated_below": 0.7, "demonstrated_at": 0.5}}, "exceeds"),
    ],
)
def test_validation_names_file_key_and_rule(data, message):
    with pytest.raises(InvalidInput, match="my.toml") as info:
        scenario_from_dict(data, "my.toml")
    assert message in str(info.value)


def test_bad_files(tmp_path):
    with pytest.raises(InvalidInput, match="no such scenario file"):
        load_scenario(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed")
    with pytest.raises(InvalidInput, match="bad.toml: not valid TOML"):
        load_scenario(bad)
    result = runner.invoke(plan_app, [str(bad)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_sizes_normalise_to_shares():
    sc = scenario_from_dict(
        {
            "strata": [
                {"name": "a", "size": 300, "prevalence": 0.1},
                {"name": "b", "size": 700, "prevalence": 0.2},
            ]
        },
        "s",
    )
    assert [s.share for s in sc.strata] == pytest.approx([0.3, 0.7])


@pytest.mark.slow
def test_command_line_overrides_the_file():
    path = str(next(p for p in SCENARIOS if p.stem == "unsupported-claims"))
    base = json.loads(runner.invoke(plan_app, [path, "--json"]).stdout)
    wider = json.loads(runner.invoke(plan_app, [path, "--json", "--width", "0.1"]).stdout)
    assert base["inputs"]["width"] == 0.08 and wider["inputs"]["width"] == 0.1
    assert base["inputs"]["assurance"] == 0.9  # from the file
    assert wider["recommendation"]["items"] < base["recommendation"]["items"]
    assert base["seed"] == 20261130  # the file's seed
    other = json.loads(runner.invoke(plan_app, [path, "--json", "--prevalence", "0.2"]).stdout)
    assert other["model"]["source"] == "annotators"  # a model option replaces the file's


def _share_narrow(hw, width):
    return float(np.mean(np.nan_to_num(hw, nan=np.inf) <= width))


@pytest.mark.parametrize("stem", ["unsupported-claims-enriched", "clinical-chart-review"])
def test_comparison_checked_by_independent_simulation(stem):
    scenario = load_scenario(next(p for p in SCENARIOS if p.stem == stem))
    width, assurance = scenario.target["width"], scenario.target["assurance"]
    settings = PlanSettings(width=width, assurance=assurance, replicates=2000)
    comparison = compare_designs(
        scenario,
        settings,
        rng=3,
        floor_items=30,
        prevalence_width=scenario.design["prevalence_width"],
    )
    models = stratum_models(scenario)
    shares = np.array([s.share for s in scenario.strata])
    population = (shares[:, None] * np.array([m.cells for m in models])).sum(axis=0)
    reps = 4000
    se = np.sqrt(assurance * (1 - assurance) / reps)

    def stratified(items, seed):
        return np.stack(
            [
                simulate_tables(m.cells, n, reps, rng=seed + h)
                for h, (m, n) in enumerate(zip(models, items, strict=True))
            ],
            axis=1,
        )

    checks = {
        "uniform": lambda items, seed: (
            psa_interval(simulate_tables(population, sum(items), reps, rng=seed)).half_width
        ),
        "enriched": lambda items, seed: (
            psa_interval(stratified(items, seed).sum(axis=1)).half_width
        ),
        "weighted": lambda items, seed: (
            np.subtract(*weighted_estimate("psa", stratified(items, seed), shares)[2:0:-1]) / 2
        ),
    }
    for name, hw_of in checks.items():
        design = comparison.designs[name]
        items = design.items_per_stratum
        if name == "uniform":  # uniform items are n W_h rounded; the total is what was sized
            items = split_items(sum(items), shares)
        at_n = _share_narrow(hw_of(items, 1000), width)
        below = _share_narrow(hw_of([int(0.85 * n) for n in items], 2000), width)
        assert at_n >= assurance - 4 * se - 0.02, name
        assert below < assurance - 0.1, name
    # the weighted design estimates traffic PSA; the enriched pooled PSA does not
    truth = metric_value("psa", population)
    assert abs(comparison.designs["weighted"].estimate_median - truth) < 0.02
    assert abs(comparison.designs["enriched"].estimate_median - truth) > 0.05


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_schedule_runs_on_every_shipped_scenario(path):
    from planner.cli.commands import app

    result = runner.invoke(app, ["schedule", str(path), "--runs", "5", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    if path.stem == "web-toxicity-three-annotators":  # its several-annotator plan's items
        assert doc["operation"]["labels_per_item"] == 3
    assert doc["calendar_days_median"] > 0
    assert doc["person_hours_median"] == pytest.approx(doc["analytic_person_hours"], rel=0.05)
