"""``agree --vector-counts``: label vectors counted elsewhere give the raw file's numbers.

The vector counts here are made by an independent pandas ``groupby`` of the raw ratings
written in this file (and by the DuckDB SQL that docs/vector-counts.md shows); every
coefficient, interval, decision and diagnostic must equal, to 1e-12, what ``agree`` gives on
the raw file with either engine, and the rows' order must not change a bootstrap interval.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.engine_duckdb import count_labels
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.data.vector_counts import ratings_from_vector_counts
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
runner = CliRunner()
#: what differs between two documents of the same ratings read from different inputs
_HOW_READ = {"notes", "source", "input", "engine", "contested_file", "planner_version"}


def _close(a: Any, b: Any, path: str = "") -> None:
    """Equal documents: numbers to 1e-12, everything else exactly; groups in any order."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for key in a:
            if key not in _HOW_READ:
                _close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        if path.endswith(".groups"):  # a count file lists groups sorted
            a, b = (sorted(x, key=lambda g: str(g["group"])) for x in (a, b))
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float) and np.isnan(a):
        assert np.isnan(b), path
    elif isinstance(a, int | float) and not isinstance(a, bool):
        assert b == pytest.approx(a, abs=1e-12, rel=0), path
    else:
        assert a == b, path


def vector_counts_of(long: pd.DataFrame, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """The distinct label vectors of a long table and their counts: one pivot, one groupby."""
    wide = long.pivot(index="item", columns="annotator", values="label")
    if by:
        groups = long.groupby("item")[list(by)].first()
        wide = groups.join(wide)
    columns = list(wide.columns)
    counted = wide.groupby(columns, dropna=False).size().rename("count").reset_index()
    return counted


def _long_of_wide(path: Path, item: str, by: tuple[str, ...]) -> pd.DataFrame:
    wide = pd.read_csv(path, dtype=str, keep_default_na=False)
    long = wide.melt(id_vars=[item, *by], var_name="annotator", value_name="label")
    return long[long["label"] != ""].rename(columns={item: "item"})


def _agree_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["agree", *args, "--json", "--seed", "7"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


SHIPPED = [  # (raw file, agree's options, the long table's item column and groups)
    ("labels.csv", ["--positive", "unsupported"], None, ()),
    ("pilot.csv", ["--bootstrap", "--n-boot", "300"], None, ()),
    ("wide.csv", ["--by", "week", "--bootstrap", "--n-boot", "300"], "item", ("week",)),
    ("wide.csv", ["--level", "ordinal", "--order", "supported,unsupported", "--by", "week"],
     "item", ("week",)),
    ("anesthesia.csv", ["--level", "interval", "--annotator-col", "observer"], None, ()),
    (
        "stratified-labels.csv",
        ["--positive", "unsupported", "--stratum-col", "stratum",
         "--population-shares-from", "unsupported-claims-enriched"],
        None,
        ("stratum",),
    ),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize(("name", "options", "item", "by"), SHIPPED)
def test_vector_counts_of_the_shipped_files_give_their_numbers(
    name, options, item, by, engine, tmp_path
):
    path = EXAMPLES / name
    if item is None:
        long = pd.read_csv(path, dtype=str, keep_default_na=False)
        if name == "anesthesia.csv":  # observer 1 rates three times: keep one rating each
            long = long.rename(columns={"patient": "item", "observer": "annotator"})
            long = long.rename(columns={"rating": "label"}).drop_duplicates(["item", "annotator"])
            long.to_csv(path := tmp_path / "anesthesia-once.csv", index=False)
            options = ["--level", "interval"]
    else:
        long = _long_of_wide(path, item, by)
    counts = tmp_path / "vectors.csv"
    vector_counts_of(long, by).to_csv(counts, index=False)
    raw = _agree_json(str(path), "--engine", engine, *options)
    counted = _agree_json("--vector-counts", str(counts), *options)
    _close(raw, counted)
    assert counted["engine"] == "vector-counts"
    assert counted["input"]["n_patterns"] == len(pd.read_csv(counts))


@pytest.mark.slow
def test_the_shipped_vector_count_file_is_the_wide_files_vectors():
    shipped = pd.read_csv(EXAMPLES / "vector-counts.csv", dtype=str, keep_default_na=False)
    long = _long_of_wide(EXAMPLES / "wide.csv", "item", ("week",))
    made = vector_counts_of(long, ("week",)).fillna("").astype(str)
    key = ["week", "alice", "bob", "carol"]
    assert (
        shipped.sort_values(key)
        .reset_index(drop=True)
        .equals(made.sort_values(key).reset_index(drop=True))
    )
    raw = _agree_json(str(EXAMPLES / "wide.csv"), "--by", "week")
    _close(raw, _agree_json("--vector-counts", str(EXAMPLES / "vector-counts.csv"), "--by", "week"))


@st.composite
def studies(draw):
    """A long table of ratings: items, 2-4 annotators, 2-4 labels, missing ratings, groups."""
    n = draw(st.integers(3, 30))
    m = draw(st.integers(2, 4))
    k = draw(st.integers(2, 4))
    text = draw(st.booleans())
    labels = [f"c{j}" for j in range(k)] if text else [str(j) for j in range(k)]
    rows = []
    for i in range(n):
        for a in range(m):
            if draw(st.integers(0, 4)) > 0:  # a rating four times in five
                rows.append(
                    (f"i{i:02d}", f"r{a}", labels[draw(st.integers(0, k - 1))], f"g{i % 3}")
                )
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label", "grp"])
    per_item = frame.groupby("item").size()
    assume((per_item >= 2).any() and frame["annotator"].nunique() == m)
    assume(frame["label"].nunique() >= 1)
    return frame, text


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    study=studies(),
    layout=st.sampled_from(["long", "wide"]),
    grouped=st.booleans(),
    level=st.sampled_from(["nominal", "ordinal"]),
    engine=st.sampled_from(["pandas", "duckdb"]),
    bootstrap=st.booleans(),
)
def test_hypothesis_ratings_and_their_vector_counts_measure_alike(
    tmp_path_factory, study, layout, grouped, level, engine, bootstrap
):
    frame, text = study
    folder = tmp_path_factory.mktemp("vc")
    by = ("grp",) if grouped else ()
    annotators = sorted(frame["annotator"].unique())
    if layout == "long":
        frame.to_csv(raw := folder / "raw.csv", index=False)
        options = ReaderSettings(layout="long", by=by)
    else:  # every item on a row, unrated cells (and unrated items) empty
        wide = frame.pivot(index="item", columns="annotator", values="label")
        wide = frame.groupby("item")[["grp"]].first().join(wide).reset_index()
        wide.to_csv(raw := folder / "raw.csv", index=False)
        options = ReaderSettings(layout="wide", annotator_cols=tuple(annotators), by=by)
    order = [f"c{j}" for j in range(4)] if text else None
    if order:
        options = ReaderSettings(**{**options.__dict__, "order": tuple(order)})
    if engine == "duckdb":
        ratings = count_labels(raw, options)
    else:
        ratings = read_labels(raw, options)
    counted = vector_counts_of(frame, by).sample(frac=1, random_state=3)  # any row order
    counted.to_csv(vectors := folder / "vectors.csv", index=False)
    from_counts = ratings_from_vector_counts(vectors, by=by, order=order)
    settings = MeasureSettings(
        level=level, by=by[0] if by else None, bootstrap=bootstrap, n_boot=200
    )
    _close(
        agreement_document(measure_agreement(ratings, settings, rng=11)),
        agreement_document(measure_agreement(from_counts, settings, rng=11)),
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_shuffled_rows_give_identical_bootstrap_intervals(seed, tmp_path):
    vectors = pd.read_csv(EXAMPLES / "vector-counts.csv", dtype=str, keep_default_na=False)
    vectors.sample(frac=1, random_state=seed).to_csv(shuffled := tmp_path / "s.csv", index=False)
    vectors.iloc[::-1].to_parquet(reversed_ := tmp_path / "r.parquet")
    args = ["--by", "week", "--bootstrap", "--n-boot", "200"]
    first = _agree_json("--vector-counts", str(EXAMPLES / "vector-counts.csv"), *args)
    for other in (shuffled, reversed_):
        again = _agree_json("--vector-counts", str(other), *args)
        assert again["coefficients"] == first["coefficients"]  # exactly, not to 1e-12


def test_a_vector_split_over_rows_is_one_vector_with_the_counts_added(tmp_path):
    (split := tmp_path / "split.csv").write_text("A,B,count\n1,1,2\n0,0,5\n1,1,4\n1,0,1\n")
    r = ratings_from_vector_counts(split)
    assert r.n_rows == 3 and r.n_items == 12
    assert r.pair_table().tolist() == [[5, 0], [1, 6]]
    assert any("1 row(s) repeat a label vector" in n for n in r.notes)


def test_zero_counts_and_unrated_rows_are_left_out_with_a_note(tmp_path):
    (f := tmp_path / "z.csv").write_text("A,B,count\n1,1,2\n0,1,0\n,,7\n0,0,3\n")
    r = ratings_from_vector_counts(f)
    assert r.n_items == 5 and r.n_rows == 2
    assert "1 row(s) with count 0 left out (they stand for no item)" in r.notes
    assert "7 item(s) with no rating left out" in r.notes


def test_the_note_says_which_columns_were_taken_as_annotators():
    r = ratings_from_vector_counts(EXAMPLES / "vector-counts.csv", by=("week",))
    assert r.annotators == ("alice", "bob", "carol")
    assert any("every other column but week (alice, bob, carol)" in n for n in r.notes)


def _error(args: list[str], code: int) -> str:
    result = runner.invoke(app, ["agree", *args, "--seed", "1"])
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    return lines[0]


BAD = [  # (file text, extra options, words of the one line)
    ("A,B,count\n1,1,3\n0,1,-2\n", [], ["'count', row 2", "is '-2', negative"]),
    ("A,B,count\n1,1,3\n0,1,1.5\n", [], ["'count', row 2", "not a whole number"]),
    ("A,B,count\n1,1,3\n0,1,\n", [], ["'count', row 2", "is empty"]),
    ("A,B,count\n1,1,3\n0,1,many\n", [], ["'count', row 2", "'many', not a whole number"]),
    ("A,B,n\n1,1,3\n", [], ["no 'count' column", "columns are: A, B, n"]),
    ("A,B,C,count\n1,1,0,3\n", ["--annotator-cols", "A,B"], ["'C'", "not in --annotator-cols"]),
    ("A,B,count\n1,1,3\n", ["--annotator-cols", "A,X"], ["--annotator-cols names 'X'"]),
    ("A,B,count\n1,1,3\n", ["--annotator-cols", "A,count"], ["'count', the count column"]),
    ("A,B,C,count\n1,1,,3\n0,1,,2\n", [], ["annotator column 'C' is empty in every row"]),
    ("A,B,count\n1,1,0\n", [], ["every row has count 0"]),
    ("A,B,count\n", [], ["no rows (a header only)"]),
    ("", [], ["is empty"]),
    ("A,B,count\n1,1,3\n", ["--by", "week"], ["no column 'week' to group --by"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("text", "extra", "words"), BAD)
def test_bad_vector_count_files_are_one_line_naming_file_and_column(text, extra, words, tmp_path):
    (f := tmp_path / "v.csv").write_text(text)
    line = _error(["--vector-counts", str(f), *extra], 2)
    assert line.startswith("error: ") and str(f) in line, line
    for word in words:
        assert word in line, line


def test_contested_and_a_second_input_are_refused_in_one_line(tmp_path):
    vectors = str(EXAMPLES / "vector-counts.csv")
    line = _error(["--vector-counts", vectors, "--contested", str(tmp_path / "c.csv")], 2)
    assert "--contested needs item ids" in line
    assert not (tmp_path / "c.csv").exists()
    line = _error(["--vector-counts", vectors, str(EXAMPLES / "wide.csv")], 2)
    assert "(one of them)" in line


@pytest.mark.slow
def test_options_for_label_files_get_a_note(tmp_path):
    result = runner.invoke(
        app, ["agree", "--vector-counts", str(EXAMPLES / "vector-counts.csv"), "--by", "week",
              "--item-col", "doc", "--engine", "duckdb", "--seed", "1"],
    )  # fmt: skip
    assert result.exit_code == 0
    assert "--item-col, --engine: options for label files, no effect with --vector-counts" in (
        " ".join(result.output.split())
    )


def _without_annotators(document: dict[str, Any]) -> dict[str, Any]:
    """A raw file's document less what category counts cannot give (annotator identity)."""
    from planner.measuring.category_counts import NEEDS_ANNOTATORS

    out = json.loads(json.dumps(document))
    out["coefficients"] = {
        k: v for k, v in out["coefficients"].items() if not k.startswith(NEEDS_ANNOTATORS)
    }
    out["summary"].pop("landis_koch", None)
    two = ("a_only", "b_only", "bias_index", "joint_positives", "cohen")
    for key in [k for k in out["summary"] if k.startswith(two)]:
        out["summary"].pop(key)
    out["summary"].pop("positive_rate_by_annotator", None)
    out["diagnostics"].update(per_annotator={}, per_pair=[])
    for key in ("annotators", "n_annotators"):
        out.pop(key)
    return out


def _uncovered(doc: Any) -> Any:
    """``doc`` without the intervals' "covers" (it names the annotators)."""
    if isinstance(doc, dict):
        return {k: _uncovered(v) for k, v in doc.items() if k != "covers"}
    return [_uncovered(v) for v in doc] if isinstance(doc, list) else doc


def _same_counts(raw: dict[str, Any], patterns: dict[str, Any]) -> None:
    patterns = _uncovered(patterns)
    assert patterns["summary"].pop("landis_koch")["label"]  # read from Fleiss' kappa
    for key in ("annotators", "n_annotators"):
        patterns.pop(key)
    _close(_without_annotators(_uncovered(raw)), patterns)


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--positive", "unsupported"],
        ["--level", "ordinal", "--order", "supported,unsupported"],
    ],
)
def test_category_counts_give_the_raw_files_numbers_less_annotator_identity(options):
    raw = _agree_json(str(EXAMPLES / "wide.csv"), *options)
    counted = _agree_json("--category-counts", str(EXAMPLES / "category-counts.csv"), *options)
    assert not any(k.startswith(("cohen", "conger")) for k in counted["coefficients"])
    assert counted["diagnostics"]["per_annotator"] == {}
    assert any("Cohen's and Conger's kappa" in n for n in counted["notes"])
    _same_counts(raw, counted)


@pytest.mark.slow
@pytest.mark.parametrize("bootstrap", [[], ["--bootstrap", "--n-boot", "200"]])
def test_category_counts_of_two_annotators_give_the_pairs_pooled_numbers(bootstrap, tmp_path):
    long = pd.read_csv(EXAMPLES / "labels.csv")
    made = pd.crosstab(long["item"], long["label"]).value_counts().rename("count").reset_index()
    made.sample(frac=1, random_state=2).to_csv(patterns := tmp_path / "p.csv", index=False)
    options = ["--positive", "unsupported", *bootstrap]
    raw = _agree_json(str(EXAMPLES / "labels.csv"), *options)
    counted = _agree_json("--category-counts", str(patterns), *options)
    if not bootstrap:
        _same_counts(raw, counted)
    for name, co in counted["coefficients"].items():  # the bootstrap draws other resamples
        assert co["estimate"] == pytest.approx(raw["coefficients"][name]["estimate"], abs=1e-12)
    result = runner.invoke(app, ["agree", "--category-counts", str(patterns), *options])
    assert result.exit_code == 0 and "Traceback" not in result.output


def test_the_shipped_category_count_file_is_the_wide_files_patterns():
    long = _long_of_wide(EXAMPLES / "wide.csv", "item", ("week",))
    made = pd.crosstab(long["item"], long["label"]).value_counts().rename("count").reset_index()
    shipped = pd.read_csv(EXAMPLES / "category-counts.csv")
    key = ["supported", "unsupported"]
    assert (
        made.sort_values(key)
        .reset_index(drop=True)
        .equals(shipped.sort_values(key).reset_index(drop=True))
    )


def test_category_counts_refuse_a_decision_on_cohen_and_bad_cells(tmp_path):
    shipped = str(EXAMPLES / "category-counts.csv")
    line = _error(["--category-counts", shipped, "--decide-on", "conger_kappa"], 2)
    assert "--decide-on conger_kappa needs to know which annotator" in line
    (bad := tmp_path / "p.csv").write_text("yes,no,count\n2,1,4\n1,-1,3\n")
    line = _error(["--category-counts", str(bad)], 2)
    assert str(bad) in line and "column 'no', row 2" in line and "negative" in line
    line = _error(["--category-counts", shipped, "--contested", str(tmp_path / "c.csv")], 2)
    assert "--contested needs item ids" in line


@pytest.mark.slow
def test_the_duckdb_sql_of_the_page_makes_the_files_agree_reads(tmp_path):
    """The DuckDB SQL docs/vector-counts.md shows, run on the long ratings of wide.csv."""
    import duckdb

    page = (ROOT / "docs" / "vector-counts.md").read_text()
    blocks = re.findall(r"```sql\n(.*?)```", page, re.S)
    duck = [b for b in blocks if b.startswith("-- DuckDB")]
    assert len(duck) == 2, "the vector-count and the category-count SQL for DuckDB"
    _long_of_wide(EXAMPLES / "wide.csv", "item", ("week",)).to_csv(
        tmp_path / "ratings.csv", index=False
    )
    con = duckdb.connect()
    for sql in duck:
        sql = sql.replace("'ratings.csv'", f"'{tmp_path / 'ratings.csv'}'")
        con.execute(sql.replace("TO '", f"TO '{tmp_path}/"))
    args = ["--by", "week", "--bootstrap", "--n-boot", "200"]
    raw = _agree_json(str(EXAMPLES / "wide.csv"), *args)
    _close(raw, _agree_json("--vector-counts", str(tmp_path / "vector-counts.csv"), *args))
    raw = _agree_json(str(EXAMPLES / "wide.csv"))
    patterns = _agree_json("--category-counts", str(tmp_path / "category-counts.csv"))
    _same_counts(raw, patterns)


@pytest.mark.slow
def test_the_python_example_of_the_page_runs(monkeypatch):
    page = (ROOT / "docs" / "vector-counts.md").read_text()
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/vector-counts.md", "exec"), scope)
    assert scope["report"].coefficients["psa"].estimate == pytest.approx(0.6712, abs=5e-5)
    assert scope["crowd"].coefficients["fleiss_kappa"].estimate == pytest.approx(0.6230, abs=5e-5)
    assert "conger_kappa" not in scope["crowd"].coefficients
