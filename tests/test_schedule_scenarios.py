"""``schedule`` runs on every shipped scenario (pairs, strata, several annotators, the
Alt-Test, a named team): each gives a schedule of the items its plan sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "scenarios").glob("*.toml")) + [ROOT / "examples" / "team.toml"]


def test_every_scenario_is_listed():
    assert len(SHIPPED) >= 6  # the five scenarios/ files and the named team's example


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_schedule_runs_on_every_shipped_scenario(path):
    result = CliRunner().invoke(app, ["schedule", str(path), "--runs", "5", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    items = sum(doc["operation"]["items_per_stratum"])
    assert doc["runs"] == 5 and items > 0
    labels = items * doc["operation"]["labels_per_item"]
    seconds = min(doc["operation"]["seconds_per_item"])
    # at least every label's time at the fastest stratum (named people may be faster: >= 0)
    assert doc["person_hours_median"] > 0
    if doc.get("team") is None:
        assert doc["person_hours_median"] >= 0.5 * labels * seconds / 3600
    assert doc["calendar_days_median"] >= 1
