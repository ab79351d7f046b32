"""planner agree through Typer's runner."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from tests.conftest import KRIPPENDORFF_2011

runner = CliRunner()


def _agree(*args: str):
    return runner.invoke(app, ["agree", *args])


@pytest.fixture
def long_csv(tmp_path):
    rows = []
    for annotator, values in KRIPPENDORFF_2011.items():
        for unit, value in enumerate(values, start=1):
            if value is not None:
                rows.append(
                    {
                        "item": unit,
                        "annotator": annotator,
                        "label": value,
                        "week": "early" if unit < 7 else "late",
                    }
                )
    path = tmp_path / "labels.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_json_has_every_coefficient_with_its_interval(long_csv):
    result = _agree(str(long_csv), "--json", "--seed", "4", "--positive", "3", "--by", "week")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "brennan_prediger", "psa"):
        entry = doc["coefficients"][name]
        assert set(entry) >= {"estimate", "interval", "n_items"}
        assert set(entry["interval"]) >= {"lower", "upper", "method"}
    assert round(doc["coefficients"]["krippendorff_alpha"]["estimate"], 3) == 0.743
    assert doc["decision"]["metric"] == "psa"
    assert [g["group"] for g in doc["diagnostics"]["by"]["groups"]] == ["early", "late"]
    assert doc["seed"] == 4


def test_same_seed_same_output(long_csv):
    first = _agree(str(long_csv), "--json", "--seed", "9", "--level", "ordinal")
    second = _agree(str(long_csv), "--json", "--seed", "9", "--level", "ordinal")
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert (
        round(json.loads(first.stdout)["coefficients"]["krippendorff_alpha"]["estimate"], 3)
        == 0.815
    )


def test_counts_and_contested_file(tmp_path):
    out = tmp_path / "contested.csv"
    result = _agree("--counts", "6,21,14,459", "--contested", str(out), "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "PSA" in result.stdout and "inconclusive" in result.stdout
    contested = pd.read_csv(out)
    assert len(contested) == 35 and list(contested.columns) == ["item", "A", "B"]
    assert [p.name for p in tmp_path.iterdir()] == ["contested.csv"]  # no temp file left


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["nope.csv"], "no such file"),
        ([], "give a label FILE or --counts"),
        (["--counts", "1,2,3"], "--counts takes four numbers"),
        (["--counts", "6,21,14,459", "--level", "fancy"], "--level must be one of"),
        (["--counts", "6,21,14,459", "--positive", "2"], "--positive '2' is not a label"),
        (["--counts", "6,21,14,459", "--contested", "/no/such/dir/c.csv"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    result = _agree(*args)
    assert result.exit_code == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_bad_file_content_names_the_file(tmp_path):
    path = tmp_path / "dups.csv"
    pd.DataFrame(
        {"item": [1, 1, 2, 2], "annotator": ["x", "x", "x", "y"], "label": ["a", "b", "a", "a"]}
    ).to_csv(path, index=False)
    result = _agree(str(path))
    assert result.exit_code == 2
    assert "dups.csv" in result.stderr and "more than once" in result.stderr


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".tsv"])
def test_wide_files_in_every_format_through_the_cli(tmp_path, suffix):
    frame = pd.DataFrame({"item": range(1, 13), **KRIPPENDORFF_2011}).astype(
        {name: "Float64" for name in KRIPPENDORFF_2011}
    )
    path = tmp_path / f"wide{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_csv(path, index=False, sep="\t")
    result = _agree(
        str(path), "--json", "--seed", "1", "--level", "interval", "--weights", "linear"
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert round(doc["coefficients"]["krippendorff_alpha"]["estimate"], 3) == 0.849
    assert "gwet_ac2" in doc["coefficients"] and doc["n_annotators"] == 4
