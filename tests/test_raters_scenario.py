"""Scenario files for several annotators: the ``[annotators]`` section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import plan_app
from planner.data.scenario import load_scenario
from planner.data.scenario_raters import RatersScenario
from planner.errors import InvalidInput

runner = CliRunner()
EXAMPLES = Path(__file__).parent.parent / "examples"


def _plan(*args: str):
    return runner.invoke(plan_app, list(args))


def test_shipped_three_annotator_scenario_plans_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the name is found among the shipped scenarios
    result = _plan("web-toxicity-three-annotators", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "plan-raters"
    assert doc["kind"] == "multi-rater"
    s = doc["sizing"]
    assert (s["n_annotators"], s["metric"], s["width"], s["target_assurance"]) == (
        3, "psa", 0.05, 0.8,
    )  # fmt: skip
    assert doc["model"]["prevalences"] == [0.95, 0.05]
    assert doc["budget"]["labels"] == 3 * doc["items"]  # every label billed
    assert doc["budget"]["person_hours"] == pytest.approx(3 * doc["items"] * 30 / 3600)
    assert s["assurance"] >= 0.8 - s["assurance_mc_se"]
    assert list(tmp_path.iterdir()) == []  # writes nothing


@pytest.mark.slow
def test_options_override_the_scenario(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = json.loads(_plan("web-toxicity-three-annotators", "--seed", "2", "--json").stdout)
    wider = json.loads(
        _plan("web-toxicity-three-annotators", "--width", "0.08", "--seed", "2", "--json").stdout
    )
    assert wider["sizing"]["width"] == 0.08 and wider["items"] < base["items"]


def _write(tmp_path, text: str):
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_one_confusion_matrix_per_annotator_in_a_file(tmp_path):
    path = _write(
        tmp_path,
        """
[annotators]
count = 3
prevalence = [0.5, 0.3, 0.2]
confusion = [
  [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.0, 0.1, 0.9]],
  [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]],
  [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
]
metric = "alpha"
level = "ordinal"
[target]
width = 0.1
[simulation]
replicates = 500
""",
    )
    scenario = load_scenario(path)
    assert isinstance(scenario, RatersScenario) and scenario.annotators.count == 3
    result = _plan(path, "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["model"]["confusion"][2] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert doc["sizing"]["metric"] == "alpha" and doc["sizing"]["level"] == "ordinal"


def test_kappasize_model_in_a_file(tmp_path):
    path = _write(
        tmp_path, '[annotators]\ncount = 4\nprevalence = 0.3\nkappa = 0.6\nmetric = "fleiss"\n'
    )
    result = _plan(path, "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["model"]["kind"] == "common-prevalence"
    assert doc["sizing"]["true_value"] == pytest.approx(0.6, abs=1e-9)


BAD = [
    ("count = 3\nprevalence = 0.05\ncolour = 1", "s.toml: unknown key annotators.colour"),
    ("prevalence = 0.05", "s.toml: [annotators] needs count"),
    ("count = 9\nprevalence = 0.05", "s.toml: annotators.count must be"),
    ("count = 3\nprevalence = 1.5", "s.toml: annotators.prevalence must be a number in (0, 1)"),
    (
        "count = 3\nprevalence = 0.05\nerror_rate = [0.1, 0.2]",
        "s.toml: annotators.error_rate takes one value or one per annotator (3), got 2",
    ),
    (
        "count = 3\nprevalence = 0.05\nconfusion = [[0.9, 0.2], [0.1, 0.9]]",
        "s.toml: annotators.confusion row 1 of annotator 1 must sum to 1, got 1.1",
    ),
    (
        "count = 3\nprevalence = [0.5, 0.6]",
        "s.toml: annotators.prevalence values must sum to 1",
    ),
    (
        "count = 3\nprevalence = 0.05\nkappa = 0.5\nerror_rate = 0.1",
        "s.toml: annotators.kappa (kappaSize's common-prevalence model",
    ),
    ('count = 3\nprevalence = 0.05\nmetric = "cohen"', "s.toml: annotators.metric must be one of"),
    (
        "count = 3\nprevalence = 0.05\n[model]\nprevalence = 0.05",
        "s.toml: [model] describes one pair and does not combine with [annotators]",
    ),
]


# the model from a pilot file beside the scenario (examples/wide.csv: alice, bob, carol)
PILOT_BAD = [
    (
        'pilot_file = "wide.csv"\npilot_positive = "unsupported"\ncount = 4',
        "s.toml: annotators.count 4 does not match the pilot's 3 annotators",
    ),
    (
        'pilot_file = "wide.csv"\nprevalence = 0.1',
        "s.toml: annotators.pilot_file gives the annotators' model (their fit); it does not "
        "combine with annotators.prevalence",
    ),
    ('pilot_file = "missing.csv"', "s.toml: annotators.pilot_file: "),
    (
        'count = 3\nprevalence = 0.1\npilot_layout = "wide"',
        "s.toml: annotators.pilot_layout says how to read annotators.pilot_file, which is not",
    ),
    (
        'count = 3\nprevalence = 0.1\npilot_positive = "yes"',
        "s.toml: annotators.pilot_positive names the positive label of annotators.pilot_file",
    ),
    ('pilot_file = "wide.csv"\npilot_pair = "alice,bob"', "unknown key annotators.pilot_pair"),
    ('pilot_file = "wide.csv"\npilot_layout = "tall"', "annotators.pilot_layout must be"),
    (
        'pilot_file = "wide.csv"\npilot_positive = "maybe"',
        "s.toml: annotators.pilot_positive: positive 'maybe' is not a label of the pilot",
    ),
    ("prevalence = 0.1", "s.toml: [annotators] needs count (or pilot_file"),
    ('pilot_file = ""', "s.toml: annotators.pilot_file must name a label file, got ''"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("body", "needle"), BAD + PILOT_BAD)
def test_bad_annotators_section_is_one_line_naming_file_and_key(tmp_path, body, needle):
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "wide.csv")
    path = _write(tmp_path, "[annotators]\n" + body + "\n")
    result = _plan(path, "--seed", "1")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_loader_checks_at_load(tmp_path):
    path = _write(tmp_path, "[annotators]\ncount = 3\nprevalence = 0.05\nbias = [0, 2, 0]\n")
    with pytest.raises(InvalidInput, match=r"annotators\.bias must be a number in \[-1, 1\]"):
        load_scenario(path)


def test_target_metric_is_the_annotators_metric(tmp_path):
    # the pair's scenarios state the metric in [target]; several annotators' too
    path = _write(
        tmp_path, '[annotators]\ncount = 3\nprevalence = 0.1\n[target]\nmetric = "fleiss"\n'
    )
    scenario = load_scenario(path)
    assert scenario.annotators.metric == "fleiss" and "metric" not in scenario.target
    same = _write(
        tmp_path,
        '[annotators]\ncount = 3\nprevalence = 0.1\nmetric = "alpha"\n[target]\nmetric = "alpha"\n',
    )
    assert load_scenario(same).annotators.metric == "alpha"


@pytest.mark.parametrize(
    ("annotators", "target", "needle"),
    [
        ('metric = "psa"', '"alpha"', "target.metric is 'alpha' but annotators.metric is 'psa'"),
        ("", '"both"', "s.toml: target.metric must be one of fleiss, alpha, psa, conger, kappa"),
    ],
)
def test_target_metric_that_disagrees_or_is_the_pairs_is_refused(
    tmp_path, annotators, target, needle
):
    path = _write(
        tmp_path,
        f"[annotators]\ncount = 3\nprevalence = 0.1\n{annotators}\n[target]\nmetric = {target}\n",
    )
    with pytest.raises(InvalidInput, match=needle):
        load_scenario(path)
