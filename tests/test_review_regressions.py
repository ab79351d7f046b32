"""Regressions found by the independent check of issue 14 (each failed before its fix)."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli import app

runner = CliRunner()


def _one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "internal error" not in lines[0]
    return lines[0]


def test_ids_and_annotators_are_shown_as_typed_not_as_numpy_reprs(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("item,annotator,label\n7,1.5,1\n7,1.5,2\n2,a,1\n2,b,1\n")
    line = _one_line(runner.invoke(app, ["agree", str(path)]))
    assert "item 7 is labelled by annotator '1.5'" in line
    assert "np." not in line


def test_labels_that_look_like_markup_are_printed_as_text(tmp_path):
    path = tmp_path / "markup.csv"
    rows = ["item,annotator,label", "1,a,[/]", "1,b,[/]", "2,a,x", "2,b,[/]", "3,a,[red]z"]
    path.write_text("\n".join([*rows, "3,b,x", ""]))
    result = runner.invoke(app, ["agree", str(path), "--seed", "1"])
    assert result.exit_code == 0, result.stderr
    assert "[/]: 3" in result.stdout and "[red]z: 1" in result.stdout


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1], [2], [1], [1]], "a value is an array"),
        ([b"x", b"y", b"x", b"x"], "a value is bytes"),
        (pd.to_datetime(["2020-01-01"] * 4), "dates or durations"),
    ],
)
def test_parquet_labels_that_are_not_text_or_numbers_are_refused(tmp_path, values, message):
    path = tmp_path / "odd.parquet"
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": values})
    frame.to_parquet(path)
    assert message in _one_line(runner.invoke(app, ["agree", str(path), "--json"]))


def test_schedule_errors_are_one_line_with_no_blank_line_first():
    out = subprocess.run(
        [sys.executable, "-m", "planner", "schedule", "--items", "200", "--hours-per-day", "nan"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: --hours-per-day must be")
    assert out.stderr.count("\n") == 1


def test_adjudication_work_without_adjudicators_is_refused():
    result = runner.invoke(
        app,
        ["schedule", "--items", "200", "--seed", "1", "--adjudicators", "0"]
        + ["--contested-rate", "0.5", "--adjudication-seconds", "120"],
    )
    assert "--adjudicators must be at least 1" in _one_line(result)
    fine = runner.invoke(app, ["schedule", "--items", "200", "--seed", "1", "--adjudicators", "0"])
    assert fine.exit_code == 0, fine.stderr


def test_format_is_named_by_its_flag(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("item,annotator,label\n1,a,1\n1,b,1\n")
    line = _one_line(runner.invoke(app, ["agree", str(path), "--format", "xls"]))
    assert line.startswith("error: --format must be one of")


def test_options_without_effect_in_agree_say_so():
    result = runner.invoke(
        app, ["agree", "--counts", "6,21,14,459", "--force", "--layout", "wide", "--seed", "1"]
    )
    assert result.exit_code == 0
    assert "--force has no effect without --contested" in result.stdout
    assert "--layout: options for label files, no effect with --counts" in result.stdout


def test_an_empty_out_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", "unsupported-claims", "--out", ""])
    assert "--out must name a folder" in _one_line(result)
    assert list(tmp_path.iterdir()) == []
