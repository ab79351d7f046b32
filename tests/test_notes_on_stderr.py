"""Results on stdout, notes and progress on stderr, in every command.

A shell user redirects the result (``> plan.txt``, ``| less``, ``--json | jq``) and still
sees on the terminal what the tool assumed: every ``note:`` line goes to stderr, no line of
stdout is a note, and a ``--json`` stdout is one JSON document (its notes inside it as well).
Each command below is run with inputs known to produce notes, so the test fails if a note
goes back to stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.examples import copy_to

pytestmark = pytest.mark.slow

runner = CliRunner()

WIDE = ["examples/wide.csv", "--layout", "wide", "--annotator-cols", "alice,bob,carol"]

# (command line, whether it is known to print at least one note)
COMMANDS: list[tuple[list[str], bool]] = [
    (["plan", "--prevalence", "0.08", "--psa", "0.6", "--seed", "1"], True),
    (["plan", "--pilot", "examples/pilot.csv", "--width", "0.08", "--seed", "1"], True),
    (["plan", "unsupported-claims-enriched", "--seed", "1"], True),
    (["plan", "web-toxicity-three-annotators", "--seed", "1"], True),
    (["agree", "--counts", "6,21,14,459", "--seed", "1"], True),
    (["agree", "examples/labels.csv", "--positive", "unsupported", "--seed", "1"], True),
    (["fit", *WIDE, "--positive", "unsupported", "--seed", "1"], True),
    (["alt-test", *WIDE, "--llm", "carol", "--epsilon", "0.1", "--seed", "1"], True),
    (
        ["compat", "kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3"]
        + ["--kappaU", "0.5", "--props", "0.3", "--seed", "1", "--replicates", "200"],
        False,
    ),
    (
        ["compat", "irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5", "--k1", "0.7"]
        + ["--k0", "0.85", "--seed", "1", "--replicates", "200"],
        False,
    ),
    (["schedule", "--items", "2000", "--team-size", "5", "--seed", "1", "--runs", "20"], False),
]


IDS = [" ".join(argv[:2]) for argv, _ in COMMANDS]


@pytest.fixture
def in_examples_folder(tmp_path, monkeypatch):
    """An empty folder holding ``examples/`` (as ``planner examples --copy examples``)."""
    copy_to(tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _notes_inside(document: object) -> list[str]:
    """Every entry of every ``notes`` list in a JSON document, at any depth."""
    if isinstance(document, list):
        return [note for entry in document for note in _notes_inside(entry)]
    if not isinstance(document, dict):
        return []
    own = document.get("notes")
    found = [str(note) for note in own] if isinstance(own, list) else []
    return found + [note for value in document.values() for note in _notes_inside(value)]


def _note_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("note:")]


@pytest.mark.parametrize(("argv", "has_notes"), COMMANDS, ids=IDS)
def test_notes_go_to_stderr_and_results_to_stdout(argv, has_notes, in_examples_folder):
    result = runner.invoke(app, argv, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr[-2000:]
    assert _note_lines(result.stdout) == []
    assert result.stdout.strip(), "the result is on stdout"
    if has_notes:
        assert _note_lines(result.stderr), result.stderr


@pytest.mark.parametrize(("argv", "has_notes"), COMMANDS, ids=IDS)
def test_json_stdout_is_one_document_with_notes_on_stderr(argv, has_notes, in_examples_folder):
    result = runner.invoke(app, [*argv, "--json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr[-2000:]
    document = json.loads(result.stdout)  # nothing but the document
    assert isinstance(document, dict)
    if has_notes:  # each note is in the document, on stderr, or both
        assert _notes_inside(document) or _note_lines(result.stderr), result.stderr


def test_report_prints_what_it_wrote_on_stdout_and_nothing_else(in_examples_folder):
    result = runner.invoke(app, ["report", "llm-judge", "--out", "out", "--seed", "1"])
    assert result.exit_code == 0, result.stderr[-2000:]
    assert _note_lines(result.stdout) == []
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["wrote"]
    assert (Path("out") / "llm-judge" / "report.md").exists() or list(Path("out").iterdir())


def test_the_progress_bar_shows_its_total_never_0_of_unknown(tmp_path):
    """On a terminal (forced), plan's bar counts its steps: one per metric and the checks."""
    env = {**os.environ, "TTY_COMPATIBLE": "1", "COLUMNS": "120"}
    argv = [sys.executable, "-m", "planner", "plan", "--prevalence", "0.08", "--width", "0.08"]
    argv += ["--metric", "both", "--seed", "1"]
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "0/?" not in out.stderr
    assert "/3" in out.stderr  # psa, kappa, then the checks
    assert _note_lines(out.stdout) == []
