"""A label file counted by stratum: its values checked against the scenario's strata, and the
one-line errors ``plan`` and ``schedule`` give for it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.strata_file import read_by_stratum, stratum_counts

runner = CliRunner()
FILE = "examples/stratified-labels.csv"
SCENARIO = "unsupported-claims-enriched"


def _renamed(tmp_path, old: str, new: str | None) -> str:
    """The shipped file with stratum ``old`` renamed to ``new`` (None: its rows dropped)."""
    lines = open(FILE).read().splitlines()
    kept = [line.replace(old, new) if new else line for line in lines if new or old not in line]
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(kept) + "\n")
    return str(path)


def _names() -> list[str]:
    return [s.name for s in load_scenario(SCENARIO).strata]


def test_a_value_that_is_not_a_stratum_is_named_with_the_scenario_strata(tmp_path):
    path = _renamed(tmp_path, "user complaints", "user complaintz")
    ratings = read_by_stratum(path, "stratum")
    with pytest.raises(InvalidInput) as caught:
        stratum_counts(ratings, "stratum", _names(), "unsupported")
    assert caught.value.parameter == "stratum_col"
    assert "'user complaintz'" in str(caught.value) and "'user complaints'" in str(caught.value)


def test_a_stratum_without_items_is_named(tmp_path):
    path = _renamed(tmp_path, "user complaints", None)
    with pytest.raises(InvalidInput, match="no item of the scenario's stratum 'user complaints'"):
        stratum_counts(read_by_stratum(path, "stratum"), "stratum", _names(), "unsupported")


@pytest.mark.parametrize("way", ["--pilot", "--labelled"])
def test_the_command_line_names_the_file_not_an_option_of_agree(tmp_path, way):
    path = _renamed(tmp_path, "user complaints", "user complaintz")
    if way == "--pilot":
        args = ["plan", SCENARIO, "--pilot", path]
    else:
        args = ["plan", "--labelled", path, "--scenario", SCENARIO]
    result = runner.invoke(app, [*args, "--stratum-col", "stratum", "--positive", "unsupported"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0]
    assert "population-shares" not in lines[0] and "Traceback" not in result.output


def test_hours_of_a_stratified_study_in_progress_keep_their_prose():
    args = ["plan", "--labelled", FILE, "--scenario", SCENARIO, "--stratum-col", "stratum",
            "--positive", "unsupported", "--hours", "-3"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --hours must be a positive number, got -3"
