"""``agree --by`` naming an annotator's column: both engines give one answer or one refusal.

DuckDB once failed here with a Binder Error. A wide file's column named by ``--by`` is a
grouping column, not an annotator (both engines then read the other columns as the
annotators); a column that ``--annotator-cols`` also names, or a long file's annotator
column, is refused by both with the same line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

runner = CliRunner()
EXAMPLES = Path(__file__).parent.parent / "examples"


def _agree(*args: str):
    return runner.invoke(app, ["agree", *args])


def _without_engine(output: str) -> dict:
    doc = json.loads(output)
    doc.pop("engine")
    doc["input"].pop("n_patterns", None)  # DuckDB's count of distinct label vectors
    return doc


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wide.csv", "wide.parquet"])
def test_by_an_annotator_column_of_a_wide_file_groups_by_it_on_both_engines(name, tmp_path):
    path = tmp_path / name
    shutil.copy(EXAMPLES / name, path)
    runs = {
        engine: _agree(str(path), "--engine", engine, "--by", "alice", "--json", "--seed", "3")
        for engine in ("pandas", "duckdb")
    }
    for result in runs.values():
        assert result.exit_code == 0, result.output
    pandas, duck = (_without_engine(runs[e].stdout) for e in ("pandas", "duckdb"))
    assert pandas["input"]["annotator_cols"] == ["bob", "carol"]
    by = pandas["diagnostics"]["by"]
    assert by["column"] == "alice"
    assert [g["group"] for g in by["groups"]] == ["supported", "unsupported"]
    assert pandas == duck


@pytest.mark.parametrize(
    ("name", "args", "column", "flag"),
    [
        ("wide.csv", ("--annotator-cols", "alice,bob,carol", "--by", "alice"), "alice",
         "--annotator-cols"),
        ("labels.csv", ("--by", "annotator"), "annotator", "--annotator-col"),
    ],
)  # fmt: skip
def test_by_a_column_that_is_also_the_annotators_is_one_line_on_both_engines(
    name, args, column, flag, tmp_path
):
    path = tmp_path / name
    shutil.copy(EXAMPLES / name, path)
    lines = {}
    for engine in ("pandas", "duckdb"):
        result = _agree(str(path), "--engine", engine, *args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and result.stdout == ""
        lines[engine] = result.stderr.strip().splitlines()
    assert (
        lines["pandas"]
        == lines["duckdb"]
        == [
            f"error: {path}: column {column!r} is given two roles ({flag} and --by); each column "
            "has one role"
        ]
    )
