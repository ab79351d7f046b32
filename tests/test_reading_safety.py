"""Label files are read without guessing, at any scale.

One regression test per defect of the issue (each failed before the fix), and properties:
the sparse ratings give the same statistics as the dense items x annotators path, and a
2x2 table of counts gives the same report as its items written out.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.labels import counts_from_codes, ratings_from_counts, ratings_from_matrix
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.data.sniff import SNIFF_BYTES
from planner.errors import InvalidInput
from planner.measuring.diagnostics import contested_rows
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document
from planner.statistics import agreement as ag
from planner.statistics import alpha as ka
from planner.statistics import multirater as mr

pytestmark = pytest.mark.slow

runner = CliRunner()


def _agree(*args: str):
    return runner.invoke(app, ["agree", *args])


def _one_line_exit_2(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def _csv(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --------------------------------------------------------------------------- layout


def test_long_file_with_other_names_is_read_as_long_by_its_names(tmp_path):
    # regression: doc,rater,verdict was read as three annotators, exit 0; then refused as
    # ambiguous although its names say item, annotator and label
    path = _csv(tmp_path, "labels.csv", "doc,rater,verdict\n1,A,yes\n1,B,no\n2,A,yes\n2,B,yes\n")
    auto = _agree(path, "--json", "--seed", "1")
    assert auto.exit_code == 0, auto.output
    assert "read as long: item column 'doc', annotator column 'rater'" in auto.stderr
    result = _agree(
        path, "--json", "--seed", "1", "--layout", "long", "--item-col", "doc",
        "--annotator-col", "rater", "--label-col", "verdict",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["n_items"] == 2 and doc["n_annotators"] == 2
    assert doc["categories"] == ["no", "yes"]
    assert doc["input"] == {
        "layout": "long",
        "item_col": "doc",
        "annotator_col": "rater",
        "label_col": "verdict",
        "n_missing_ratings": 0,
        "missing_values": [],
    }
    # the chosen layout is stated on stderr also with --json
    assert "read as long" in result.stderr and "'rater'" in result.stderr
    assert json.loads(auto.stdout)["input"] == doc["input"]  # auto reads it as the options say


def test_long_file_with_meaningless_names_is_not_read_as_wide(tmp_path):
    rows = "".join(f"{i},ann{i % 3},{i % 2}\n" for i in range(30))
    _one_line_exit_2(
        _agree(_csv(tmp_path, "xyz.csv", "x,y,z\n" + rows)),
        "do not share their values",
        "--layout long --item-col x --annotator-col y --label-col z",
    )


def test_all_distinct_column_is_never_an_annotator(tmp_path):
    # regression: a wide file's id column became an annotator
    rows = "".join(f"{1000 + i},{i % 2},{(i // 3) % 2}\n" for i in range(30))
    for name in ("id", "serial"):  # named like an item column, or only all-distinct
        result = _agree(
            _csv(tmp_path, f"{name}.csv", f"{name},a,b\n" + rows), "--json", "--seed", "1"
        )
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["annotators"] == ["a", "b"] and doc["n_items"] == 30
        assert doc["input"]["item_col"] == name and doc["input"]["annotator_cols"] == ["a", "b"]
        assert "annotator columns a, b" in result.stderr
    # the expected kappa, computed here from the two label columns
    a = np.array([i % 2 for i in range(30)])
    b = np.array([(i // 3) % 2 for i in range(30)])
    table = np.array([[np.sum((a == x) & (b == y)) for y in (0, 1)] for x in (0, 1)])
    assert doc["coefficients"]["cohen_kappa"]["estimate"] == pytest.approx(
        float(ag.cohen_kappa(table))
    )
    # ids 1..30 among labels 1..5: the ranges overlap, the ids are still ids
    labels = "".join(f"{i},{1 + i % 5},{1 + (i // 2) % 5}\n" for i in range(1, 31))
    result = _agree(_csv(tmp_path, "overlap.csv", "n,a,b\n" + labels), "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["input"]["item_col"] == "n"
    # a score scale where every annotator gives all-distinct whole numbers: all are labels
    scores = "".join(f"{i},{i + 1},{i + 2}\n" for i in range(25))
    result = _agree(_csv(tmp_path, "scores.csv", "p,q,r\n" + scores), "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["annotators"] == ["p", "q", "r"]
    # annotator columns named: an all-distinct one is refused, not read
    path = _csv(tmp_path, "serial.csv", "serial,a,b\n" + rows)
    _one_line_exit_2(_agree(path, "--annotator-cols", "serial,a,b"), "'serial'", "ids")


# --------------------------------------------------------------------------- missing values


def test_na_like_strings_are_labels_unless_missing_says_otherwise(tmp_path):
    # regression: NA, None, null, n/a were silently dropped as missing
    text = "item,annotator,label\n1,a,NA\n1,b,NA\n2,a,None\n2,b,null\n3,a,n/a\n3,b,\n4,a,x\n4,b,x\n"
    path = _csv(tmp_path, "na.csv", text)
    ratings = read_labels(path)
    assert list(ratings.categories) == ["NA", "None", "n/a", "null", "x"]
    assert ratings.n_items == 4 and ratings.n_ratings == 7
    assert ratings.input["n_missing_ratings"] == 1  # the one truly empty cell
    assert any("1 missing rating" in note for note in ratings.notes)
    result = _agree(path, "--missing", "NA,n/a", "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["categories"] == ["None", "null", "x"]
    assert doc["input"]["n_missing_ratings"] == 4
    assert doc["input"]["missing_values"] == ["NA", "n/a"]
    assert "4 missing rating(s)" in result.stderr


def test_missing_strings_in_wide_and_json_files(tmp_path):
    frame = pd.DataFrame({"a": ["NA", "x", "y", None], "b": ["NA", "x", "NA", "y"]})
    path = tmp_path / "wide.jsonl"
    frame.to_json(path, orient="records", lines=True)
    as_labels = read_labels(path, ReaderSettings(layout="wide"))
    assert "NA" in list(as_labels.categories) and as_labels.input["n_missing_ratings"] == 1
    dropped = read_labels(path, ReaderSettings(layout="wide", missing=("NA",)))
    assert list(dropped.categories) == ["x", "y"] and dropped.input["n_missing_ratings"] == 4


@pytest.mark.parametrize(("label", "row"), [("inf", 2), ("-inf", 2), ("nan", 2), ("Infinity", 2)])
def test_non_finite_labels_are_refused_with_the_row(tmp_path, label, row):
    # regression: inf became -9223372036854775808
    path = _csv(tmp_path, "inf.csv", f"item,annotator,label\n1,a,1\n1,b,{label}\n2,a,1\n2,b,2\n")
    _one_line_exit_2(_agree(path), "inf.csv", f"row {row}", "not a finite number")
    wide = _csv(tmp_path, "wide.csv", f"a,b\n1,2\n2,{label}\n")
    _one_line_exit_2(_agree(wide), "wide.csv", "row 2", "not a finite number")
    # the text may be declared missing instead
    assert _agree(path, "--missing", label, "--seed", "1").exit_code == 0


def test_non_finite_numbers_from_json_and_arrays_are_refused(tmp_path):
    path = tmp_path / "inf.jsonl"
    path.write_text('{"a": 1, "b": 1}\n{"a": 2, "b": 1e999}\n')
    _one_line_exit_2(_agree(str(path)), "row 2", "not a finite number")
    with pytest.raises(InvalidInput, match="row 2 has a non-finite label"):
        ratings_from_matrix(np.array([[1.0, 2.0], [np.inf, 1.0]]))


# --------------------------------------------------------------------------- files


def test_files_that_are_not_label_files_are_refused_after_a_sniff(tmp_path):
    # regression: a 2 GB file of NUL bytes aborted at 8.3 GB with no message; here a
    # sparse 2 GB file (no disk space used) is refused after reading its first bytes
    nul = tmp_path / "zeros.csv"
    with open(nul, "wb") as handle:
        handle.truncate(2 * 1024**3)
    _one_line_exit_2(_agree(str(nul)), "zeros.csv", "NUL bytes")
    junk = tmp_path / "junk.csv"
    junk.write_bytes(bytes(range(128, 256)) * 4)
    _one_line_exit_2(_agree(str(junk)), "not UTF-8 text")
    _one_line_exit_2(_agree(_csv(tmp_path, "semi.csv", "a;b\n1;2\n")), "first line has no comma")
    _one_line_exit_2(_agree(_csv(tmp_path, "empty.csv", "")), "is empty")
    _one_line_exit_2(_agree(_csv(tmp_path, "fake.parquet", "a,b\n1,2\n")), "not a Parquet file")
    _one_line_exit_2(_agree(_csv(tmp_path, "fake.jsonl", "a,b\n1,2\n")), "not JSON Lines")
    _one_line_exit_2(_agree(str(tmp_path)), "is a directory")
    if os.path.exists("/dev/null"):
        _one_line_exit_2(_agree("/dev/null"), "is not a regular file")
    _one_line_exit_2(_agree(str(tmp_path / "nope.csv")), "no such file")


def test_sniff_reads_the_first_bytes_then_scans_the_rest_in_blocks(tmp_path, monkeypatch):
    import builtins

    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "1,1\n" * 10_000)
    sizes = []
    real_open = builtins.open

    class Spy:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, size=-1):
            sizes.append(size)
            return self.handle.read(size)

    def spy_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return Spy(handle) if str(file) == str(path) and "b" in mode else handle

    from planner.data import sniff

    monkeypatch.setattr(builtins, "open", spy_open)
    sniff.sniff(path, "csv")
    # the first bytes, then bounded blocks to the end (the scan for NUL bytes), never all
    from planner.data.sniff import SCAN_BYTES

    assert sizes[0] == SNIFF_BYTES <= 64 * 1024 and set(sizes[1:]) == {SCAN_BYTES}
    assert SCAN_BYTES <= 4 * 2**20


# --------------------------------------------------------------------------- agree tracebacks


def test_agree_inputs_that_gave_tracebacks_are_one_line(tmp_path):
    # regression: all-empty labels, JSON objects/arrays, a duplicate in --order, all-NaN
    empty = _csv(tmp_path, "empty.csv", "item,annotator,label\n1,a,\n1,b,\n2,a,\n")
    _one_line_exit_2(_agree(empty), "empty.csv", "no labels at all")
    wide_empty = _csv(tmp_path, "wide_empty.csv", "a,b\n,\n,\n")
    _one_line_exit_2(_agree(wide_empty), "no labels at all")
    for label, kind in (('{"a": 1}', "an object"), ("[1, 2]", "an array")):
        path = tmp_path / "obj.jsonl"
        path.write_text(
            f'{{"item": 1, "annotator": "x", "label": 1}}\n'
            f'{{"item": 1, "annotator": "y", "label": {label}}}\n'
        )
        _one_line_exit_2(_agree(str(path)), "row 2", kind)
    ordered = _csv(tmp_path, "ord.csv", "item,annotator,label\n1,a,low\n1,b,high\n")
    _one_line_exit_2(_agree(ordered, "--order", "low,low,high"), "--order", "'low' more than once")
    nan = tmp_path / "nan.parquet"
    pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [np.nan, np.nan]}).to_parquet(
        nan
    )
    _one_line_exit_2(_agree(str(nan)), "no labels at all")


def test_order_may_list_labels_that_do_not_occur(tmp_path):
    path = _csv(tmp_path, "ord.csv", "item,annotator,label\n1,a,low\n1,b,high\n2,a,low\n2,b,low\n")
    ratings = read_labels(path, ReaderSettings(order=["low", "mid", "high"]))
    assert list(ratings.categories) == ["low", "high"]
    np.testing.assert_array_equal(ratings.codes, [[0, 1], [0, 0]])


# --------------------------------------------------------------------------- counts


def test_huge_counts_are_computed_from_the_table():
    # regression: 10^8 items took 45 s and 10 GB; huge counts gave a traceback
    result = _agree("--counts", "60000000,20000000,10000000,10000000", "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["n_items"] == 100_000_000
    table = np.array([[10_000_000, 10_000_000], [20_000_000, 60_000_000]])  # rows: A=0, A=1
    c = doc["coefficients"]
    assert c["cohen_kappa"]["estimate"] == pytest.approx(float(ag.cohen_kappa(table)))
    assert c["psa"]["estimate"] == pytest.approx(2 * 60 / (2 * 60 + 20 + 10))
    assert doc["input"]["layout"] == "counts"
    _one_line_exit_2(_agree("--counts", "1,2,3,99999999999999999999999"), "--counts", "at most")
    _one_line_exit_2(
        _agree("--counts", "1,-2,3,4"), "--counts must be a non-negative whole number, got -2"
    )


def test_contested_from_huge_counts_is_refused_above_the_limit(tmp_path):
    out = tmp_path / "contested.csv"
    result = _agree("--counts", "10,2000000,0,10", "--contested", str(out), "--seed", "1")
    _one_line_exit_2(result, "2,000,000 contested items", "limit")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=4, max_size=4), st.integers(0, 2**16))
def test_counts_give_the_report_of_their_items_written_out(cells, seed):
    if sum(cells[:3]) == 0 or sum(cells[1:]) == 0:
        return  # one label only: --counts keeps both categories, a matrix only the one
    pattern = np.array([[1, 1], [1, 0], [0, 1], [0, 0]])
    expanded = np.repeat(pattern, cells, axis=0)
    try:
        written = ratings_from_matrix(expanded, ["A", "B"])
    except InvalidInput:
        return  # one category only: both refuse alike below
    compact = agreement_document(measure_agreement(ratings_from_counts(*cells), rng=seed))
    full = agreement_document(measure_agreement(written, rng=seed))
    for doc in (compact, full):
        doc.pop("source")
    assert compact == full
    header, rows = contested_rows(ratings_from_counts(*cells))
    assert header == ["item", "A", "B"] and len(rows) == cells[1] + cells[2]
    assert [r[0] for r in rows] == list(range(cells[0], cells[0] + cells[1] + cells[2]))


# --------------------------------------------------------------------------- sparse == dense


def _dense_diagnostics(codes: np.ndarray, k: int, pos: int) -> dict[str, list]:
    """Per-annotator diagnostics computed column by column on the dense matrix."""
    counts = counts_from_codes(codes, k)
    rated = codes >= 0
    per_item = rated.sum(1)
    out: dict[str, list] = {"items_rated": [], "agreement": [], "flags": [], "rate": []}
    for j in range(codes.shape[1]):
        mine = rated[:, j] & (per_item >= 2)
        same = counts[np.arange(len(codes)), np.maximum(codes[:, j], 0)] - 1
        pairs = (per_item[mine] - 1).sum()
        is_pos = codes[:, j] == pos
        out["items_rated"].append(int(rated[:, j].sum()))
        out["agreement"].append(same[mine].sum() / pairs if mine.any() else np.nan)
        out["flags"].append(int((mine & is_pos & (counts[:, pos] - is_pos == 0)).sum()))
        out["rate"].append(is_pos[rated[:, j]].mean() if rated[:, j].any() else np.nan)
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 40),
    st.integers(2, 9),
    st.integers(2, 5),
    st.floats(0, 0.6),
    st.integers(0, 2**16),
)
def test_sparse_ratings_equal_the_dense_path(n, m, k, missing, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, (n, m))
    codes[rng.random((n, m)) < missing] = -1
    codes[0, :2] = rng.integers(0, k, 2)  # at least one item with two ratings
    matrix = np.where(codes >= 0, codes + 1, np.nan)
    ratings = ratings_from_matrix(matrix, rows="items")
    kept = (codes >= 0).any(axis=1)
    dense = codes[kept]
    used = np.unique(dense[dense >= 0])
    dense = np.where(dense >= 0, np.searchsorted(used, dense), -1)  # categories that occur
    kk = len(used)
    np.testing.assert_array_equal(ratings.codes, dense)
    counts = counts_from_codes(dense.astype(np.int32), kk)
    np.testing.assert_array_equal(ratings.counts(), counts)
    rows, mult = ratings.patterns()
    ref_rows, ref_mult = mr.compress(counts)
    np.testing.assert_array_equal(rows, ref_rows)
    np.testing.assert_array_equal(mult, ref_mult)
    for i, j in ((0, 1), (m - 1, 0)):
        both = (dense[:, i] >= 0) & (dense[:, j] >= 0)
        table = np.zeros((kk, kk), dtype=int)
        np.add.at(table, (dense[both, i], dense[both, j]), 1)
        np.testing.assert_array_equal(ratings.pair_table(i, j), table)
    # statistics: Fleiss and alpha from the dense counts, diagnostics column by column
    report = measure_agreement(ratings, rng=1)
    fleiss = mr.chance_corrected(counts, "fleiss").estimate
    alpha = ka.krippendorff_alpha(counts, np.arange(kk, dtype=float))
    # kappa and alpha are 1 - observed / expected disagreement: near 0 they are the
    # difference of two nearly equal numbers, which the two paths round in a different
    # order (about 1e-16 apart), so a relative tolerance alone fails there; atol covers it
    close = {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(report.coefficients["fleiss_kappa"].estimate, fleiss, **close)
    np.testing.assert_allclose(report.coefficients["krippendorff_alpha"].estimate, alpha, **close)
    assert report.summary["n_ratings"] == int((dense >= 0).sum())
    assert report.summary["n_pairable_items"] == int(((dense >= 0).sum(1) >= 2).sum())
    pos = kk - 1
    diag = measure_agreement(
        ratings, MeasureSettings(positive=str(ratings.categories[pos])), rng=1
    ).diagnostics
    expected = _dense_diagnostics(dense, kk, pos)
    got = list(diag["per_annotator"].values())
    assert [e["items_rated"] for e in got] == expected["items_rated"]
    np.testing.assert_allclose([e["agreement_with_others"] for e in got], expected["agreement"])
    assert [e["flags_alone"] for e in got] == expected["flags"]
    np.testing.assert_allclose([e["positive_rate"] for e in got], expected["rate"])
    # the left-aligned value matrix (no annotator identity) gives the dense alphas
    values = ratings.value_matrix(np.arange(kk, dtype=float))
    dense_values = np.where(dense >= 0, dense, np.nan).astype(float)
    np.testing.assert_allclose(
        ka.interval_alpha_jackknife(values), ka.interval_alpha_jackknife(dense_values)
    )
    np.testing.assert_allclose(
        ka.ratio_alpha_from_values(values + 1), ka.ratio_alpha_from_values(dense_values + 1)
    )


def test_a_crowd_is_stored_linearly_in_its_ratings(tmp_path):
    # regression: 100,000 items x 20,000 annotators x 3 ratings died at 9.7 GB (dense)
    rng = np.random.default_rng(0)
    n, crowd = 2_000, 5_000
    annotators = np.stack([rng.choice(crowd, 3, replace=False) for _ in range(n)])
    labels = rng.integers(0, 2, (n, 3))
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n), 3),
            "annotator": [f"r{a}" for a in annotators.ravel()],
            "label": labels.ravel(),
        }
    )
    path = tmp_path / "crowd.csv"
    frame.to_csv(path, index=False)
    ratings = read_labels(path)
    assert ratings.item_index.size == 3 * n  # one entry per rating, not n x annotators
    assert ratings.n_annotators == len(np.unique(annotators))
    counts = np.stack([(labels == c).sum(1) for c in (0, 1)], axis=1)
    report = measure_agreement(ratings, rng=1)
    assert report.coefficients["fleiss_kappa"].estimate == pytest.approx(
        float(mr.chance_corrected(counts, "fleiss").estimate)
    )
    header, rows = contested_rows(ratings)
    contested = int(((counts > 0).sum(1) > 1).sum())
    assert header == ["item", "annotator", "label"] and len(rows) == 3 * contested
