"""The DuckDB count step: the same numbers as the in-memory reader, and its bad inputs."""

from __future__ import annotations

import builtins
import json
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.errors import InvalidInput, PlannerError
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document

duckdb = pytest.importorskip(
    "duckdb", reason="duckdb is not installed (pip install planner[duckdb])"
)

from planner.data.engine_duckdb import count_labels  # noqa: E402

runner = CliRunner()


def _close(a: Any, b: Any, path: str = "") -> None:
    """Equal JSON-like values, floats to 1e-12."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) or (
            math.isnan(a) and math.isnan(b)
        ), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _study(n: int = 240, m: int = 4, k: int = 3, seed: int = 0) -> pd.DataFrame:
    """A wide table: item ids, a week column, ``m`` annotators, 10% of ratings missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    labels = np.where(rng.random((n, m)) < 0.75, truth[:, None], rng.integers(0, k, (n, m)))
    values = labels.astype(float)
    values[rng.random((n, m)) < 0.1] = np.nan
    wide = pd.DataFrame(values, columns=[f"r{j}" for j in range(m)]).astype("Int64")
    wide.insert(0, "item", np.arange(n) + 1000)
    wide["week"] = np.where(np.arange(n) % 3 == 0, "early", "late")
    return wide


def _long(wide: pd.DataFrame) -> pd.DataFrame:
    long = wide.melt(id_vars=["item", "week"], var_name="annotator", value_name="label")
    return long.dropna().sample(frac=1.0, random_state=1)  # rows in no particular order


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("engines")
    wide = _study()
    long = _long(wide)
    out = {}
    for name, frame in (("long", long), ("wide", wide)):
        frame.to_csv(folder / f"{name}.csv", index=False)
        frame.to_csv(folder / f"{name}.tsv", index=False, sep="\t")
        frame.to_parquet(folder / f"{name}.parquet", index=False)
        out[name] = folder / name
    pair = _long(_study(n=300, m=2, k=2, seed=3))
    pair.to_parquet(folder / "pair.parquet", index=False)
    parts = folder / "parts"
    parts.mkdir()
    ordered = long.sort_values("item").reset_index(drop=True)
    for i, start in enumerate(range(0, len(ordered), 300)):
        ordered.iloc[start : start + 300].to_parquet(parts / f"part-{i}.parquet", index=False)
    out["folder"] = folder
    return out


CASES = [
    ("long.csv", {}),
    ("long.tsv", {}),
    ("long.parquet", {}),
    ("long.csv", {"by": ("week",)}),
    ("wide.csv", {"layout": "wide", "by": ("week",)}),
    ("wide.parquet", {"by": ("week",)}),
    ("wide.csv", {"layout": "wide", "annotator_cols": ("r0", "r2", "r3")}),
    ("pair.parquet", {}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("bootstrap", [False, True])
def test_duckdb_counts_give_the_in_memory_numbers(files, name, options, bootstrap):
    path = files["folder"] / name
    pandas_options = dict(options)
    if "annotator_cols" in pandas_options:
        pandas_options["annotator_cols"] = list(pandas_options["annotator_cols"])
    in_memory = read_labels(path, ReaderSettings(**pandas_options))
    counted = count_labels(path, ReaderSettings(**options))
    assert counted.n_rows < in_memory.n_rows  # distinct label vectors, weighted
    by = options.get("by", (None,))[0]
    positive = "1" if name.startswith("pair") else None
    for level in ("nominal", "ordinal", "interval"):
        kwargs = dict(level=level, by=by, bootstrap=bootstrap, n_boot=100)
        a = agreement_document(
            measure_agreement(in_memory, MeasureSettings(positive=positive, **kwargs), rng=7)
        )
        b = agreement_document(
            measure_agreement(counted, MeasureSettings(positive=positive, **kwargs), rng=7)
        )
        for key in ("coefficients", "summary", "diagnostics", "annotators", "categories"):
            _close(a[key], b[key], key)
        assert a["notes"] == b["notes"]


def test_a_glob_of_parquet_files_counts_like_the_one_file(files):
    whole = read_labels(files["folder"] / "long.parquet")
    parts = count_labels(str(files["folder"] / "parts" / "part-*.parquet"))
    a = agreement_document(measure_agreement(whole, rng=1))
    b = agreement_document(measure_agreement(parts, rng=1))
    # the parts list the annotators in another order of first appearance: compare by name
    assert sorted(a["annotators"]) == sorted(b["annotators"])
    for key in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "conger_kappa"):
        assert math.isclose(a["coefficients"][key]["estimate"], b["coefficients"][key]["estimate"])
    assert a["summary"]["category_counts"] == b["summary"]["category_counts"]


def test_repeated_identical_ratings_are_kept_once_and_conflicts_refused(tmp_path):
    rows = [(1, "a", 1), (1, "b", 1), (1, "a", 1), (2, "a", 0), (2, "b", 1)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    counted = count_labels(path)
    assert "1 repeated identical rating(s) kept once" in counted.notes
    assert counted.pair_table().tolist() == read_labels(path).pair_table().tolist()
    rows.append((2, "a", 1))
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    with pytest.raises(InvalidInput, match="more than once with different labels"):
        count_labels(path)


def test_missing_strings_and_order_are_honoured(tmp_path):
    rows = [(i, a, v) for i in range(30) for a, v in (("x", "low"), ("y", ["high", "NA"][i % 2]))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(path, index=False)
    options = {"missing": ("NA",), "order": ("low", "high")}
    counted = count_labels(path, ReaderSettings(**options))
    in_memory = read_labels(path, ReaderSettings(missing=("NA",), order=["low", "high"]))
    assert counted.categories.tolist() == in_memory.categories.tolist() == ["low", "high"]
    assert counted.input["n_missing_ratings"] == in_memory.input["n_missing_ratings"] == 15


# --------------------------------------------------------------------------- the command


def _agree(*args: str):
    return runner.invoke(app, ["agree", *args])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["long.csv", "wide.parquet"])
def test_agree_json_is_the_same_on_both_engines(files, name):
    path = str(files["folder"] / name)
    a = _agree(path, "--by", "week", "--engine", "pandas", "--json", "--seed", "3")
    b = _agree(path, "--by", "week", "--engine", "duckdb", "--json", "--seed", "3",
               "--memory-limit", "500MB")  # fmt: skip
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert (da["engine"], db["engine"]) == ("pandas", "duckdb")
    for key in ("coefficients", "summary", "diagnostics", "decision", "notes"):
        _close(da[key], db[key], key)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["long.csv", "wide.parquet"])
def test_contested_items_from_sql_are_the_same_file(files, name, tmp_path):
    path = str(files["folder"] / name)
    out_a, out_b = tmp_path / "a.csv", tmp_path / "b.csv"
    a = _agree(path, "--by", "week", "--engine", "pandas", "--contested", str(out_a))
    b = _agree(path, "--by", "week", "--engine", "duckdb", "--contested", str(out_b))
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    fa, fb = pd.read_csv(out_a, dtype=str), pd.read_csv(out_b, dtype=str)
    assert len(fa) > 10
    pd.testing.assert_frame_equal(fa, fb)
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_auto_picks_duckdb_for_a_glob_and_says_so(files):
    result = _agree(str(files["folder"] / "parts" / "*.parquet"), "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["engine"] == "duckdb"
    assert "--engine auto chose duckdb" in result.stderr


def _one_line_error(result, code: int, *words: str) -> None:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    for word in words:
        assert word in lines[0]


@pytest.mark.slow
def test_bad_inputs_are_one_line(files, tmp_path):
    folder = files["folder"]
    _one_line_error(_agree(str(folder / "none-*.parquet")), 2, "no file matches")
    odd = tmp_path / "odd"
    odd.mkdir()
    _long(_study()).to_parquet(odd / "a.parquet", index=False)
    _long(_study()).rename(columns={"label": "verdict"}).to_parquet(odd / "b.parquet")
    _one_line_error(_agree(str(odd / "*.parquet")), 2, "differ", "same columns")
    _one_line_error(
        _agree(str(folder / "long.parquet"), "--engine", "duckdb", "--memory-limit", "1KB"),
        1,
        "--memory-limit",
    )
    _one_line_error(
        _agree(str(folder / "long.parquet"), "--engine", "duckdb", "--memory-limit", "lots"),
        2,
        "--memory-limit must be a size",
    )
    _one_line_error(
        _agree(str(folder / "parts" / "*.parquet"), "--engine", "pandas"), 2, "--engine duckdb"
    )
    jsonl = tmp_path / "r.jsonl"
    _long(_study()).to_json(jsonl, orient="records", lines=True)
    _one_line_error(_agree(str(jsonl), "--engine", "duckdb"), 2, "--engine pandas")
    _one_line_error(_agree(str(folder / "long.csv"), "--engine", "dask"), 2, "--engine")


def test_no_contested_file_when_the_count_fails(files, tmp_path):
    out = tmp_path / "contested.csv"
    result = _agree(
        str(files["folder"] / "long.parquet"), "--engine", "duckdb",
        "--memory-limit", "1KB", "--contested", str(out),
    )  # fmt: skip
    assert result.exit_code == 1
    assert list(tmp_path.iterdir()) == []


def test_missing_duckdb_is_one_line_with_the_fix(files, monkeypatch):
    real_import = builtins.__import__

    def no_duckdb(name, *args, **kwargs):
        if name == "duckdb" or name.startswith("duckdb."):
            raise ImportError("No module named 'duckdb'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_duckdb)
    with pytest.raises(PlannerError, match=r"pip install duckdb \(the extra planner\[duckdb\]\)"):
        count_labels(files["folder"] / "long.csv")
    path = str(files["folder"] / "long.csv")
    _one_line_error(_agree(path, "--engine", "duckdb"), 1, "planner[duckdb]")
    assert _agree(path, "--seed", "1").exit_code == 0  # auto falls back on pandas


def test_memory_options_without_duckdb_get_a_note(files):
    result = _agree(str(files["folder"] / "long.csv"), "--engine", "pandas",
                    "--temp-dir", "/tmp", "--json", "--seed", "1")  # fmt: skip
    assert result.exit_code == 0
    assert any("--temp-dir" in n and "no effect" in n for n in json.loads(result.stdout)["notes"])


# --------------------------------------------------------------------------- rng


def test_measure_agreement_takes_any_rng_and_records_its_seed(files):
    ratings = read_labels(files["folder"] / "long.csv")
    first = measure_agreement(ratings, MeasureSettings(n_boot=100), rng=None)
    again = measure_agreement(ratings, MeasureSettings(n_boot=100), rng=first.seed)
    assert agreement_document(first) == agreement_document(again)
    from_generator = measure_agreement(
        ratings, MeasureSettings(n_boot=100), rng=np.random.default_rng(5)
    )
    same = measure_agreement(ratings, MeasureSettings(n_boot=100), rng=np.random.default_rng(5))
    assert from_generator.seed == same.seed
    with pytest.raises(InvalidInput, match="rng must be"):
        measure_agreement(ratings, rng="seven")  # type: ignore[arg-type]


def test_a_categorical_annotator_column_keeps_its_declared_order(tmp_path):
    # regression: DuckDB listed annotators by first appearance, pandas in the dictionary's
    # order, so the pair diagnostics named different pairs
    long = _long(_study(n=200, m=3, seed=5))
    long["annotator"] = pd.Categorical(long["annotator"], categories=["r2", "r0", "r1"])
    path = tmp_path / "cat.parquet"
    long.to_parquet(path, index=False)
    assert read_labels(path).annotators == count_labels(path).annotators == ("r2", "r0", "r1")


@pytest.mark.slow
def test_many_annotators_take_the_list_key_and_the_long_contested_file(tmp_path):
    # 60 annotators: (K + 1)^m does not fit in 62 bits, and contested files are long
    wide = _study(n=120, m=60, k=2, seed=9)
    path = tmp_path / "crowd.parquet"
    _long(wide).to_parquet(path, index=False)
    a = agreement_document(measure_agreement(read_labels(path), MeasureSettings(n_boot=100), rng=2))
    b = agreement_document(
        measure_agreement(count_labels(path), MeasureSettings(n_boot=100), rng=2)
    )
    for key in ("coefficients", "summary", "diagnostics"):
        _close(a[key], b[key], key)
    out_a, out_b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert _agree(str(path), "--engine", "pandas", "--contested", str(out_a)).exit_code == 0
    assert _agree(str(path), "--engine", "duckdb", "--contested", str(out_b)).exit_code == 0
    fa, fb = pd.read_csv(out_a, dtype=str), pd.read_csv(out_b, dtype=str)
    assert list(fa.columns) == ["item", "annotator", "label"] and len(fa) > 100
    pd.testing.assert_frame_equal(fa, fb)


def test_auto_counts_with_duckdb_when_the_file_is_large_for_the_memory(files, monkeypatch):
    from planner.data import engine_duckdb

    path = files["folder"] / "long.parquet"
    assert engine_duckdb.choose_engine("auto", path)[0] == "pandas"
    size = path.stat().st_size
    monkeypatch.setattr(
        engine_duckdb, "available_memory", lambda: int(size / 0.5)
    )  # the file is half the memory
    chosen, why = engine_duckdb.choose_engine("auto", path)
    assert chosen == "duckdb" and "chose duckdb" in why


def test_a_glob_of_csv_files_counts_like_their_rows_together(files, tmp_path):
    long = _long(_study(seed=11)).sort_values(["item", "annotator"]).reset_index(drop=True)
    long.iloc[:500].to_csv(tmp_path / "a.csv", index=False)
    long.iloc[500:].to_csv(tmp_path / "b.csv", index=False)
    long.to_csv(tmp_path / "all.csv.txt", index=False)
    whole = read_labels(tmp_path / "all.csv.txt", ReaderSettings(file_format="csv"))
    parts = count_labels(str(tmp_path / "*.csv"))
    a = agreement_document(measure_agreement(whole, MeasureSettings(n_boot=100), rng=4))
    b = agreement_document(measure_agreement(parts, MeasureSettings(n_boot=100), rng=4))
    for key in ("coefficients", "summary", "diagnostics"):
        _close(a[key], b[key], key)


def test_a_group_column_that_varies_within_an_item_is_refused(tmp_path):
    rows = [(i, a, i % 2, f"w{(i + (a == 'y')) % 2}") for i in range(20) for a in ("x", "y")]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label", "week"]).to_csv(path, index=False)
    result = _agree(str(path), "--engine", "duckdb", "--by", "week")
    _one_line_error(result, 2, "--by 'week'", "--engine pandas")
