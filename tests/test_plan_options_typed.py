"""Typed settings between the command line and the library: PlanOptions (what
the user gave), ResolvedOptions (the merge) and TeamSettings, with the precedence command
line > scenario file > documented default."""

from __future__ import annotations

import dataclasses

import pytest

from planner.application.plan_options import (
    PlanOptions,
    ResolvedOptions,
    resolve,
    run_plan,
)
from planner.application.schedule_team import TeamSettings, resolve_team
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.plan import Plan

SCENARIO = """
name = "typed"
[model]
prevalence = 0.2
error_rate = 0.05
[target]
width = 0.15
[budget]
seconds_per_item = 60
[team]
annotators = 3
"""


@pytest.fixture
def scenario_path(tmp_path):
    path = tmp_path / "typed.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    return str(path)


def test_the_documented_defaults():
    # the defaults README and `plan --help` document
    merged = resolve(None, {})
    assert (merged.width, merged.confidence, merged.assurance) == (0.08, 0.95, 0.5)
    assert (merged.metric, merged.psa_method, merged.kappa_method) == ("psa", "wilson", "score")
    assert (merged.annotators_per_item, merged.seconds_per_item, merged.replicates) == (
        2,
        90.0,
        4000,
    )
    team = TeamSettings()
    assert (team.annotators, team.hours_per_day, team.days_per_week, team.runs) == (5, 8.0, 5, 200)


def test_command_line_beats_scenario_beats_default(scenario_path):
    scenario = load_scenario(scenario_path)
    from_file = resolve(scenario, PlanOptions().given())
    assert from_file.width == 0.15 and from_file.seconds_per_item == 60
    assert from_file.assurance == 0.5  # not in the file: the default
    given = resolve(scenario, PlanOptions(width=0.1).given())
    assert given.width == 0.1 and given.seconds_per_item == 60
    team = resolve_team(scenario, {"hours_per_day": 6.0, "runs": None})
    assert (team.annotators, team.hours_per_day, team.runs) == (3, 6.0, 200)


def test_settings_are_frozen_and_typed():
    for value in (PlanOptions(), ResolvedOptions(), TeamSettings()):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.width = 0.1  # type: ignore[misc, union-attr]
    assert isinstance(resolve(None, {}), ResolvedOptions)
    assert isinstance(resolve_team(None), TeamSettings)


def test_run_plan_takes_plan_options_and_returns_a_plan(scenario_path):
    plan = run_plan(scenario_path, PlanOptions(width=0.2), lambda _: 5)
    assert isinstance(plan, Plan)
    assert plan.settings.width == 0.2 and plan.settings.seconds_per_item == 60


def test_a_bad_team_value_names_its_parameter():
    with pytest.raises(InvalidInput, match=r"^annotators must be"):
        resolve_team(None, {"annotators": 0})
