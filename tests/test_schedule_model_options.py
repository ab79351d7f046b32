"""schedule takes plan's several-annotator model options and labels the items plan sizes.

The reference is ``plan`` itself run with the same options and seed (its several-annotator
plan is tested against published values in tests/test_raters.py): the schedule must label
exactly the items, with exactly the labels per item, that plan sizes. ``plan --annotators M``
is schedule's ``--annotators-per-item M`` (everyone labels every item), or ``--team-size M``
with ``--per-item k`` (k of the team's M per item).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
FAST = ["--replicates", "200", "--seed", "5", "--json", "--quiet"]
PREVALENCES = "0.5,0.3,0.2"

CASES = {  # schedule's options -> plan's options for the same model
    "categories": (
        ["--categories", "3", "--prevalence", PREVALENCES],
        ["--categories", "3", "--prevalence", PREVALENCES],
    ),
    "level": (
        ["--level", "ordinal", "--metric", "alpha", "--prevalence", PREVALENCES],
        ["--level", "ordinal", "--metric", "alpha", "--prevalence", PREVALENCES],
    ),
    "per_item": (
        ["--per-item", "2", "--team-size", "4", "--prevalence", "0.3", "--metric", "fleiss"],
        ["--per-item", "2", "--annotators", "4", "--prevalence", "0.3", "--metric", "fleiss"],
    ),
    "confusion": (
        ["--confusion", "0.95,0.05;0.2,0.8", "--prevalence", "0.3"],
        ["--confusion", "0.95,0.05;0.2,0.8", "--prevalence", "0.3"],
    ),
    "prevalence_list": (
        ["--prevalence", "0.6,0.4", "--annotators-per-item", "4"],
        ["--prevalence", "0.6,0.4", "--annotators", "4"],
    ),
}


def _run(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_schedule_labels_the_items_plan_sizes_for_the_same_model(case: str) -> None:
    schedule_args, plan_args = CASES[case]
    schedule = _run(["schedule", *schedule_args, "--runs", "10", *FAST])
    plan = _run(["plan", *plan_args, *FAST])
    operation = schedule["operation"]
    assert operation["items_per_stratum"] == [plan["items"]]
    assert operation["labels_per_item"] == plan["sizing"]["labels_per_item"]
    assert operation["annotators"] >= plan["sizing"]["labels_per_item"]


def test_several_annotator_options_with_fixed_items_fail_in_one_line() -> None:
    result = runner.invoke(app, ["schedule", "--items", "300", "--categories", "3", "--quiet"])
    assert result.exit_code != 0
    assert "--items" in result.output and "Traceback" not in result.output


def test_pair_only_option_with_several_annotators_is_refused_by_plan_s_rule() -> None:
    result = runner.invoke(
        app, ["schedule", "--categories", "3", "--prevalence", PREVALENCES, "--psa", "0.6"]
    )
    assert result.exit_code != 0
    assert "--psa describes one pair" in result.output


def test_a_several_annotator_metric_outside_plan_s_list_is_refused() -> None:
    result = runner.invoke(
        app, ["schedule", "--prevalence", PREVALENCES, "--metric", "both", "--quiet"]
    )
    assert result.exit_code != 0
    assert "--metric must be one of" in result.output


EXAMPLES = Path(__file__).parent.parent / "examples"
# examples/wide.csv: alice, bob and carol in wide columns beside an item and a week column
READ_WIDE = ["--layout", "wide", "--annotator-cols", "alice,bob", "--positive", "unsupported"]


@pytest.mark.slow
def test_schedule_reads_a_pilot_with_plans_reader_options_and_labels_its_recommendation():
    given = ["--pilot", str(EXAMPLES / "wide.csv"), *READ_WIDE, "--width", "0.1", *FAST]
    plan = json.loads(runner.invoke(app, ["plan", *given]).stdout)
    result = runner.invoke(app, ["schedule", *given])
    assert result.exit_code == 0, result.output
    schedule = json.loads(result.stdout)
    assert plan["pilot"]["pair"] == ["alice", "bob"]
    assert schedule["operation"]["items_per_stratum"] == [plan["recommendation"]["items"]]


def test_reader_options_without_a_file_to_read_are_one_line():
    result = runner.invoke(app, ["schedule", "--layout", "wide", "--seed", "1"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --layout: options for reading --pilot FILE, which is not given"
    ]
