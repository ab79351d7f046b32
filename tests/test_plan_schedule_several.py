"""``plan SCENARIO`` of several annotators with a ``[team]`` adds the schedule section.

Two paths compute the same schedule: ``plan`` builds the operation from the plan it has just
made (``operation_for``: the recommendation's items, every label, the contested share of its
budget), while ``schedule`` plans again from the scenario (``run_schedule`` through
``raters_work`` or, over strata, ``strata_work``). At one seed and the same number of runs
the two must agree to the last digit, for one study and for a comparison of designs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.jsonout import load_schema

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
runner = CliRunner()
TEAM = "\n[team]\nannotators = 3\nhours_per_day = 4\n"
ONE_STUDY = """name = "three-with-team"
[annotators]
count = 3
prevalence = 0.1
[target]
width = 0.1
[budget]
seconds_per_item = 30
adjudication_seconds = 60
hourly_rate = 25.0
"""
STRATA = (ROOT / "scenarios" / "unsupported-claims-three-annotators-strata.toml").read_text()


def _json(argv: list[str]) -> dict:
    result = runner.invoke(app, [*argv, "--json", "--seed", "4"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("text", "command"), [(ONE_STUDY, "plan-raters"), (STRATA, "plan-comparison")]
)
def test_plans_schedule_section_is_schedules_answer(tmp_path, text, command):
    path = tmp_path / "s.toml"
    path.write_text(text + TEAM)
    planned = _json(["plan", str(path)])
    assert planned["command"] == command
    assert list(Draft202012Validator(load_schema()).iter_errors(planned)) == []
    section = planned["schedule"]
    scheduled = _json(["schedule", str(path), "--runs", str(section["runs"])])
    assert section["operation"] == scheduled["operation"]
    assert section["operation"]["labels_per_item"] == 3
    for key in ("calendar_days_median", "person_hours_median", "cost_median"):
        assert section[key] == scheduled[key], key


def test_without_a_team_there_is_no_schedule_section(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(ONE_STUDY)
    assert "schedule" not in _json(["plan", str(path)])
