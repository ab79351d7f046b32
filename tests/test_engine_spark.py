"""The Spark count step: the numbers of pandas and DuckDB, only distinct vectors collected.

One local-mode SparkSession (``local[2]``) serves the module; the files are small. Without
pyspark or Java the Spark tests are skipped, except on CI (the ``CI`` environment
variable set), where they fail: CI installs both (``.ci/run``, the ``test`` extra).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner.data.engine_duckdb import count_labels as duckdb_count
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document
from tests.test_engine_duckdb import _close  # equal JSON-like values, floats to 1e-12

pytestmark = pytest.mark.slow  # every test here takes over 0.3 s alone

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "distributed.md"


def _spark_or_skip() -> Any:
    """The module's SparkSession; skipped (failed on CI) without pyspark or Java."""
    missing = []
    try:
        import pyspark  # noqa: F401
    except ImportError:
        missing.append("pyspark (pip install 'planner[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing.append("Java 17+")
    if missing:
        why = f"the Spark engine needs {' and '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: CI must install it")
        pytest.skip(why)
    from planner.data.engine_spark import session

    return session("local[2]")


@pytest.fixture(scope="module")
def spark():
    session = _spark_or_skip()
    yield session
    session.stop()


def _study(n: int, m: int, k: int, seed: int) -> pd.DataFrame:
    """A wide table: item ids, a week, ``m`` annotators with ``k`` labels, 10% missing."""
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
    return long.dropna().sample(frac=1.0, random_state=1)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spark")
    wide = _study(200, 4, 3, 0)
    long = _long(wide)
    long.to_csv(folder / "long.csv", index=False)
    long.to_parquet(folder / "long.parquet", index=False)
    wide.to_csv(folder / "wide.csv", index=False)
    wide.to_parquet(folder / "wide.parquet", index=False)
    # 40 binary annotators: the keys need 40 log2(3) > 62 bits, so they are lists
    many = _long(_study(120, 40, 2, 5))
    many.to_parquet(folder / "many.parquet", index=False)
    parts = folder / "parts"
    parts.mkdir()
    ordered = long.sort_values("item").reset_index(drop=True)
    for i, start in enumerate(range(0, len(ordered), 300)):
        ordered.iloc[start : start + 300].to_parquet(parts / f"part-{i}.parquet", index=False)
    return folder


CASES = [
    ("long.csv", {}),
    ("long.parquet", {"by": ("week",)}),
    ("wide.csv", {"layout": "wide", "by": ("week",)}),
    ("wide.parquet", {"annotator_cols": ("r0", "r2", "r3")}),
    ("many.parquet", {}),
    ("parts/*.parquet", {}),
]


@pytest.mark.parametrize(("name", "options"), CASES)
def test_spark_gives_the_numbers_of_pandas_and_duckdb(spark, files, name, options):
    from planner.data.engine_spark import count_labels

    path = str(files / name)
    pandas_options = dict(options)
    if "annotator_cols" in pandas_options:
        pandas_options["annotator_cols"] = list(pandas_options["annotator_cols"])
    ducked = duckdb_count(path, ReaderSettings(**options))
    sparked = count_labels(path, ReaderSettings(**options))
    engines = [ducked, sparked]
    if "*" not in name:  # the pandas reader reads one file
        engines.insert(0, read_labels(path, ReaderSettings(**pandas_options)))
    assert sparked.n_rows == ducked.n_rows  # the distinct label vectors, weighted
    assert sparked.annotators == ducked.annotators
    by = options.get("by", (None,))[0]
    for level, bootstrap in (("nominal", False), ("ordinal", False), ("interval", False),
                             ("nominal", True), ("ordinal", True)):  # fmt: skip
        settings = MeasureSettings(level=level, by=by, bootstrap=bootstrap, n_boot=100)
        # with the bootstrap too: every engine feeds the one bootstrap the same vectors in
        # one canonical order, so the same seed draws the same resamples
        compared = engines
        first, *others = [
            agreement_document(measure_agreement(r, settings, rng=7)) for r in compared
        ]
        for other in others:
            for key in ("coefficients", "summary", "diagnostics", "annotators", "categories"):
                _close(first[key], other[key], key)


def _vectors(ratings: Any) -> Counter:
    """Each distinct label vector (annotator, label) and how many items have it."""
    weights = [1] * ratings.n_rows if ratings.weights is None else ratings.weights.tolist()
    vectors: list[list[tuple[str, str]]] = [[] for _ in range(ratings.n_rows)]
    for item, annotator, code in zip(
        ratings.item_index.tolist(), ratings.annotator_index.tolist(),
        ratings.label_index.tolist(), strict=True,
    ):  # fmt: skip
        vectors[item].append((ratings.annotators[annotator], str(ratings.categories[code])))
    counted: Counter = Counter()
    for vector, weight in zip(vectors, weights, strict=True):
        if vector:
            counted[tuple(sorted(vector))] += weight
    return counted


NFD = unicodedata.normalize("NFD", "café")


def test_the_value_rule_reads_awkward_cells_as_the_other_engines(spark, tmp_path):
    from planner.data.engine_spark import count_labels

    # spaces around, NFC and NFD spellings of ids and labels, booleans in any case, 1 and
    # 1.0, a missing marker, an empty cell, a quoted cell with a comma, a repeated rating
    rows = [
        ("item", "annotator", "label"),
        ("café", "ann_a", "TRUE"), (NFD, "ann_b", " true"), (" café", "ann_c", "True"),
        ("007", "ann_a", "false"), ("7", "ann_b", "FALSE"), ("007", "ann_b", "true"),
        ("7", "ann_a", "NA"), ('"a,b"', "ann_a", "true"), ('"a,b"', "ann_b", ""),
        ('"a,b"', "ann_c", "false"), ("x", " ann_a", "true"), ("x", "ann_b", "true"),
        ("x", "ann_b", "true "),
    ]  # fmt: skip
    path = tmp_path / "awkward.csv"
    path.write_text("".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("item,annotator,label\na,x,1\na,y,1.0\nb,x,2\nb,y, 2\nc,x,1\nc,y,2\n")
    for file, missing in ((path, ("NA",)), (numbers, ())):
        options = ReaderSettings(layout="long", missing=missing)
        pandas = read_labels(file, ReaderSettings(layout="long", missing=missing, repeats="refuse"))
        ducked, sparked = duckdb_count(file, options), count_labels(file, options)
        assert _vectors(sparked) == _vectors(pandas) == _vectors(ducked)
        assert list(map(str, sparked.categories)) == list(map(str, pandas.categories))


def test_only_the_distinct_vectors_reach_the_driver(spark, files, monkeypatch):
    from planner.data import engine_spark, spark_counts, spark_layout
    from planner.data.engine_spark import count_labels

    collected: list[int] = []
    real = engine_spark.run

    def counting_run(session: Any, sql: str) -> list[tuple[Any, ...]]:
        rows = real(session, sql)
        collected.append(len(rows))
        return rows

    for module in (spark_counts, spark_layout):
        monkeypatch.setattr(module, "run", counting_run)
    path = files / "long.parquet"
    counted = count_labels(str(path), ReaderSettings())
    frame = pd.read_parquet(path)  # the distinct vectors, counted here independently
    per_item = frame.groupby("item").apply(
        lambda g: tuple(sorted(zip(g["annotator"], g["label"].astype(int), strict=True))),
        include_groups=False,
    )
    n_patterns = len(set(per_item))
    assert counted.n_rows == n_patterns < len(per_item) / 2
    assert max(collected) == n_patterns  # no query brought more rows than the patterns


def test_an_unreachable_master_is_one_line_within_seconds(files):
    pytest.importorskip("pyspark")
    result = subprocess.run(
        [sys.executable, "-m", "planner", "agree", str(files / "long.csv"), "--engine",
         "spark", "--spark-master", "spark://127.0.0.1:9"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--spark-master" in lines[0], result.stderr
    assert result.stdout == ""


def test_a_missing_pyspark_is_one_line_naming_the_extra(files):
    code = (
        "import sys; sys.modules['pyspark'] = None; sys.modules['pyspark.sql'] = None; "
        "from planner.cli.commands import main; sys.argv = ['planner', 'agree', sys.argv[1], "
        "'--engine', 'spark']; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(files / "long.csv")], capture_output=True, text=True,
        timeout=120, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "planner[spark]" in lines[0], result.stderr


def _sql_block(title: str) -> str:
    """The ```sql block of docs/distributed.md that follows the line ``title``."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(re.escape(title) + r".*?```sql\n(.*?)```", text, re.S)
    assert found, title
    return found.group(1)


def test_the_vector_count_sql_of_the_docs_gives_the_vector_counts(spark, files):
    import duckdb

    path = files / "long.parquet"
    spark.read.parquet(str(path)).createOrReplaceTempView("ratings")
    sql = _sql_block("Spark SQL:")
    sparked = {tuple(r[:-1]): r[-1] for r in spark.sql(sql).collect()}
    con = duckdb.connect()
    con.execute(f"CREATE VIEW ratings AS SELECT * FROM read_parquet('{path}')")
    ducked = {tuple(r[:-1]): r[-1] for r in con.execute(_sql_block("DuckDB:")).fetchall()}
    frame = pd.read_parquet(path)  # the same counts, item by item in Python
    given: dict[Any, dict[str, str]] = {}
    for item, annotator, label in zip(frame["item"], frame["annotator"], frame["label"],
                                      strict=True):  # fmt: skip
        given.setdefault(item, {})[annotator] = str(int(label))
    expected = Counter(tuple(v.get(f"r{j}") for j in range(4)) for v in given.values())
    as_text = {tuple(None if v is None else str(v) for v in k): n for k, n in sparked.items()}
    assert as_text == dict(expected)
    assert {tuple(None if v is None else str(v) for v in k): n for k, n in ducked.items()} == (
        dict(expected)
    )


def test_agree_json_is_the_same_on_spark_and_duckdb(spark, files):
    # the CLI in this process: --engine spark uses the module's session
    from typer.testing import CliRunner

    from planner.cli.commands import app

    runner = CliRunner()
    docs = []
    for engine in ("duckdb", "spark"):
        args = ["agree", str(files / "wide.csv"), "--engine", engine, "--json", "--seed", "3"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        docs.append(json.loads(result.stdout))
    assert docs[0]["engine"] == "duckdb" and docs[1]["engine"] == "spark"
    for key in ("coefficients", "summary", "diagnostics"):
        _close(docs[0][key], docs[1][key], key)


def test_a_bad_master_and_contested_items_are_one_line_each(files):
    pytest.importorskip("pyspark")
    path = str(files / "long.csv")
    for args, code, words in (
        (["--spark-master", "bogus"], 2, "--spark-master must be local"),
        (["--contested", str(files / "c.csv")], 2, "--contested needs each item's labels"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "planner", "agree", path, "--engine", "spark", *args],
            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "300"},
        )  # fmt: skip
        lines = result.stderr.strip().splitlines()
        assert result.returncode == code and len(lines) == 1 and words in lines[0], result.stderr
    assert not (files / "c.csv").exists()
