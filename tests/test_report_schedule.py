"""The report of a named team: its section, its people table and its timeline figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.output.report import write_report

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parent.parent / "examples" / "team.toml"


def test_a_named_team_report_has_its_section_and_timeline(tmp_path):
    folder = write_report(EXAMPLE, tmp_path)
    text = (folder / "report.md").read_text()
    assert "## The team, person by person" in text
    assert "| ana | annotator |" in text and "| bo | annotator |" in text
    assert (folder / "figures" / "team_timeline.png").stat().st_size > 1000
    schedule = json.loads((folder / "schedule.json").read_text())
    team = schedule["team"]
    plan = json.loads((folder / "plan.json").read_text())
    items = plan["recommendation"]["items"]
    rows = {row["name"]: row for row in team["annotators"]}
    # two people, two labels an item: each labels every planned item
    assert rows["ana"]["items"] == rows["bo"]["items"] == items
    assert team["start"] == "2027-01-04" and team["finish"]["p50"] >= "2027-01-04"
    # the table's cost is hours times each person's rate
    assert rows["ana"]["cost"] == rows["ana"]["hours"] * 30.0
    assert rows["bo"]["cost"] == rows["bo"]["hours"] * 40.0
