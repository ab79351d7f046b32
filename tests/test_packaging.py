"""What a fresh install holds: the example files found by name, typed package, licence,
shell completion, and Parquet as an optional extra."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner import examples
from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.errors import InvalidInput

ROOT = Path(__file__).parent.parent
runner = CliRunner()


def test_every_example_file_is_found_by_name_and_is_the_checkout_file():
    assert examples.names() == [
        "labels.csv",
        "pilot.csv",
        "wide.csv",
        "wide.parquet",
        "vector-counts.csv",
        "category-counts.csv",
        "anesthesia.csv",
        "team.toml",
        "stratified-labels.csv",
        "labelled-600.csv",
        "three-annotator-pilot.toml",
        "stratified-labels-three.csv",
    ]
    for name in examples.names():
        assert examples.path(name).read_bytes() == (ROOT / "examples" / name).read_bytes()


def test_an_unknown_example_names_the_parameter_and_lists_the_files():
    with pytest.raises(InvalidInput, match="labels.csv, pilot.csv") as caught:
        examples.path("nope.csv")
    assert caught.value.parameter == "name"


def test_copy_writes_every_file_and_refuses_to_overwrite_without_being_told(tmp_path):
    written = examples.copy_to(tmp_path / "ex")
    assert [p.name for p in written] == examples.names()
    for p in written:
        assert p.read_bytes() == examples.path(p.name).read_bytes()
    before = {p: p.stat().st_mtime_ns for p in written}
    (tmp_path / "ex" / "labels.csv").write_text("mine")
    with pytest.raises(InvalidInput, match="already holds labels.csv") as caught:
        examples.copy_to(tmp_path / "ex")
    assert caught.value.parameter == "destination"
    assert (tmp_path / "ex" / "labels.csv").read_text() == "mine"  # nothing touched
    assert {p: p.stat().st_mtime_ns for p in written[1:]} == dict(list(before.items())[1:])
    examples.copy_to(tmp_path / "ex", overwrite=True)
    assert (tmp_path / "ex" / "labels.csv").read_bytes() == examples.path("labels.csv").read_bytes()
    assert [p.name for p in (tmp_path / "ex").iterdir() if p.name.startswith(".")] == []


def test_copy_into_a_file_is_refused(tmp_path):
    target = tmp_path / "f"
    target.write_text("x")
    with pytest.raises(InvalidInput, match="not a folder"):
        examples.copy_to(target)


@pytest.mark.slow
def test_examples_command_lists_copies_and_names_its_flags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    listed = json.loads(runner.invoke(app, ["examples", "--json"]).stdout)
    assert [row["name"] for row in listed["examples"]] == examples.names()
    result = runner.invoke(app, ["examples", "--copy", "here"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "here").iterdir()) == sorted(examples.names())
    again = runner.invoke(app, ["examples", "--copy", "here"])
    assert again.exit_code == 2
    assert again.stderr.strip().splitlines() == [
        "error: --copy 'here' already holds labels.csv, pilot.csv, wide.csv, wide.parquet, "
        "vector-counts.csv, category-counts.csv, anesthesia.csv, team.toml, "
        "stratified-labels.csv, labelled-600.csv, three-annotator-pilot.toml, "
        "stratified-labels-three.csv (--force replaces them)"
    ]
    assert runner.invoke(app, ["examples", "--copy", "here", "--force"]).exit_code == 0


def test_an_installed_planner_finds_its_examples_from_an_empty_folder(tmp_path):
    # a subprocess from an empty folder imports the installed package, not the checkout
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "from planner import examples; print(len(examples.names()), examples.path('wide.csv'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    count, path = out.stdout.split()
    assert int(count) == len(examples.names()) and Path(path).is_file()


def test_the_package_is_typed_and_licensed():
    assert (ROOT / "planner" / "py.typed").is_file()
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Typing :: Typed" in (ROOT / "pyproject.toml").read_text()


def test_pyarrow_is_an_extra_not_a_requirement():
    requires = importlib.metadata.requires("planner") or []
    unconditional = [r for r in requires if "extra ==" not in r]
    assert not any(r.startswith("pyarrow") for r in unconditional), unconditional
    assert any(r.startswith("pyarrow") and 'extra == "parquet"' in r for r in requires)


def test_parquet_without_pyarrow_names_the_package(monkeypatch):
    import importlib.util

    from planner.data.reading import read_labels
    from planner.errors import PlannerError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a)
    )
    with pytest.raises(PlannerError, match="needs the pyarrow package: pip install pyarrow"):
        read_labels(ROOT / "examples" / "wide.parquet", ReaderSettings(layout="wide"))


@pytest.mark.slow
def test_completion_script_is_printed_for_bash():
    out = subprocess.run(
        [sys.executable, "-m", "planner", "--show-completion", "bash"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "_PLANNER_COMPLETE" in out.stdout and "complete " in out.stdout


def test_every_subpackage_is_listed_for_installation():
    # a subpackage missing from [tool.setuptools] packages installs without its modules
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "planner").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert folders <= listed, sorted(folders - listed)
