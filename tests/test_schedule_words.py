"""What schedule says about adjudication: an adjudicator only where items are adjudicated."""

from __future__ import annotations

from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
BASE = ["schedule", "--items", "400", "--team-size", "2", "--runs", "20", "--seed", "1"]


def test_a_schedule_without_adjudication_shows_no_idle_adjudicator():
    result = runner.invoke(app, BASE, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "no adjudication" in result.stdout
    assert "adjudicator utilisation" not in result.stdout
    assert "1 adjudicator" not in result.stdout


def test_a_schedule_with_adjudication_shows_its_adjudicator_and_utilisation():
    options = ["--adjudication-seconds", "60", "--contested-rate", "0.2"]
    result = runner.invoke(app, [*BASE, *options], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "1 adjudicator" in result.stdout
    assert "adjudicator utilisation" in result.stdout
