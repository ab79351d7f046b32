"""Both engines read the same labels: a differential test on awkward files.

Hypothesis builds label files as people write them (quoted cells, booleans in mixed case,
numeric-looking ids, NFC and NFD spellings, spaces around values, empty cells, missing
markers, a byte order mark, repeated ratings, a late unterminated quote, short rows) in
long and wide CSV, TSV and Parquet; the pandas reader and the DuckDB engine must give the
same agreement (every coefficient, interval and count) or both refuse the file. JSON Lines
(pandas only) must read like the CSV file of the same values, typed values as their text.
The CI slice runs a few dozen files; the ``slow`` test runs many more.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.data.cell_values import canonical
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.errors import PlannerError

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

from planner.data.engine_duckdb import count_labels  # noqa: E402

CAFE = "café"
NFD = unicodedata.normalize("NFD", CAFE)
# labels as people type them: each group is one label under the rule, however written
LABELS = [
    ["yes", " yes", "yes ", '"yes"'],
    ["no", "no\t", '" no"'],
    ["True", "true", "TRUE", "tRuE"],
    ["False", "false", "FALSE"],
    [CAFE, NFD, f" {NFD}"],
    ["1", "1.0", " 1"],
    ["2", "2.00"],
    ["NA"],  # a label, unless the missing markers name it
    [""],  # empty: missing
]
# item ids that look alike but are different items (and spellings of one id)
ITEMS = ["007", "7", "1e3", "1000", "+5", "5", " 5", "7.0", "x", "X", CAFE, NFD, "a,b"]
ANNOTATORS = ["1", "01", "ann_a", " ann_a", "Ann", CAFE, NFD, 'say "hi"']


def _cell(text: str, quote: bool) -> str:
    """A CSV cell: quoted as RFC 4180 when asked or needed."""
    if quote or any(ch in text for ch in ',"\n\t') or text.startswith('"'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_text(rows: list[list[str]], quotes: list[list[bool]], sep: str) -> str:
    lines = []
    for row, quoted in zip(rows, quotes, strict=True):
        if sep == ",":
            lines.append(",".join(_cell(v, q) for v, q in zip(row, quoted, strict=True)))
        else:  # TSV: a cell with a tab is quoted as in CSV
            lines.append(
                "\t".join(_cell(v, q) if "\t" in v else v for v, q in zip(row, quoted, strict=True))
            )
    return "\n".join(lines) + "\n"


@st.composite
def studies(draw: Any) -> dict[str, Any]:
    """Ratings of a few items by a few annotators, with awkward spellings."""
    n_items = draw(st.integers(3, 14))
    n_annotators = draw(st.integers(2, 4))
    items = draw(st.lists(st.sampled_from(ITEMS), min_size=n_items, max_size=n_items))
    annotators = draw(
        st.lists(st.sampled_from(ANNOTATORS), min_size=n_annotators, max_size=n_annotators)
    )
    groups = draw(st.lists(st.integers(0, len(LABELS) - 1), min_size=2, max_size=4))
    cells = []
    for _ in range(n_items * n_annotators):
        group = draw(st.sampled_from(groups))
        cells.append(draw(st.sampled_from(LABELS[group])))
    return {
        "items": items,
        "annotators": annotators,
        "cells": cells,
        "missing": draw(st.sampled_from([(), ("NA",), (" na ", "NA")])),
        "quote": draw(st.lists(st.booleans(), min_size=8, max_size=8)),
        "bom": draw(st.booleans()),
        "repeat": draw(st.booleans()),
        "break": draw(st.sampled_from(["none", "none", "none", "quote", "short"])),
    }


def _long_rows(study: dict[str, Any]) -> list[list[str]]:
    m = len(study["annotators"])
    rows = [["item", "annotator", "label"]]
    for i, item in enumerate(study["items"]):
        for j, annotator in enumerate(study["annotators"]):
            rows.append([item, annotator, study["cells"][i * m + j]])
    if study["repeat"]:
        rows.append(list(rows[1]))  # the same rating twice
    return rows


def _wide_rows(study: dict[str, Any]) -> list[list[str]]:
    m = len(study["annotators"])
    rows = [["item", *[f"r{j}" for j in range(m)]]]
    for i, item in enumerate(study["items"]):
        rows.append([item, *study["cells"][i * m : (i + 1) * m]])
    return rows


def _write(path: Any, rows: list[list[str]], study: dict[str, Any], sep: str = ",") -> None:
    quotes = [
        [study["quote"][(r + c) % 8] and r > 0 for c in range(len(row))]
        for r, row in enumerate(rows)
    ]
    text = _csv_text(rows, quotes, sep)
    if study["break"] == "quote":
        text += '"' + rows[-1][0] + sep + "late\n"  # an unterminated quote on the last line
    elif study["break"] == "short":
        text += rows[-1][0] + "\n"  # a row with fewer cells than the header
    path.write_bytes(("\ufeff" if study["bom"] else "").encode() + text.encode())


def _agreement(read: Any) -> dict[str, Any] | str:
    """What a reader gives: the labels of every item, or ``"refused"`` (in one line).

    The per-item label vectors (annotator and label of each rating) and how many items
    have each are what every statistic is computed from: equal vectors, equal agreement.
    """
    try:
        ratings = read()
    except PlannerError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return "refused"
    weights = [1] * ratings.n_rows if ratings.weights is None else ratings.weights.tolist()
    vectors: list[list[tuple[str, str]]] = [[] for _ in range(ratings.n_rows)]
    for item, annotator, code in zip(
        ratings.item_index.tolist(),
        ratings.annotator_index.tolist(),
        ratings.label_index.tolist(),
        strict=True,
    ):
        label = str(ratings.categories[code])
        vectors[item].append((ratings.annotators[annotator], label))
    counted: Counter[tuple[tuple[str, str], ...]] = Counter()
    for vector, weight in zip(vectors, weights, strict=True):
        if vector:
            counted[tuple(sorted(vector))] += weight
    return {
        "annotators": sorted(ratings.annotators),
        "categories": [str(c) for c in ratings.categories],
        "items": counted,
    }


def _both(
    path: Any, layout: str, annotators: list[str] | None, missing: tuple[str, ...]
) -> tuple[Any, Any]:
    cols = tuple(annotators) if annotators else None
    pandas = _agreement(
        lambda: read_labels(
            path,
            ReaderSettings(
                layout=layout, annotator_cols=list(cols) if cols else None, missing=missing
            ),
        )
    )
    duck = _agreement(
        lambda: count_labels(
            path, ReaderSettings(layout=layout, annotator_cols=cols, missing=missing)
        )
    )
    return pandas, duck


def _check(tmp_path: Any, study: dict[str, Any], kind: str) -> None:
    m = len(study["annotators"])
    if kind.startswith("long"):
        rows, layout, cols = _long_rows(study), "long", None
    else:
        rows, layout, cols = _wide_rows(study), "wide", [f"r{j}" for j in range(m)]
    suffix = ".tsv" if kind.endswith("tsv") else ".csv"
    path = tmp_path / f"{kind}{suffix}"
    _write(path, rows, study, "\t" if suffix == ".tsv" else ",")
    pandas, duck = _both(path, layout, cols, study["missing"])
    if pandas == "refused" or duck == "refused":
        assert pandas == duck, (pandas if duck == "refused" else duck, path.read_text())
        return
    assert pandas == duck


SETTINGS = dict(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["long", "wide", "long-tsv"])
@settings(max_examples=8, **SETTINGS)
@given(study=studies())
def test_both_engines_read_awkward_csv_files_alike(tmp_path, kind, study):
    _check(tmp_path, study, kind)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["long", "wide", "long-tsv", "wide-tsv"])
@settings(max_examples=150, **SETTINGS)
@given(study=studies())
def test_both_engines_read_many_awkward_files_alike(tmp_path, kind, study):
    _check(tmp_path, study, kind)


def _typed(text: str) -> Any:
    """The JSON value a person would write for a cell: numbers and booleans typed."""
    bare = text.strip()
    if bare.lower() in ("true", "false"):
        return bare.lower() == "true"
    if bare.isdigit() and not bare.startswith("0"):
        return int(bare)
    return text if text else None


@pytest.mark.slow
@settings(max_examples=6, **SETTINGS)
@given(study=studies())
def test_json_lines_read_like_the_csv_file_of_their_text(tmp_path, study):
    # typed JSON values (7, true) are the labels "7" and "true"; a BOM is read past
    study = {**study, "break": "none", "repeat": False}
    rows = _long_rows(study)
    header, body = rows[0], rows[1:]
    records = [dict(zip(header, [_typed(v) for v in row], strict=True)) for row in body]
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_bytes(("\ufeff" if study["bom"] else "").encode() + lines.encode())
    as_text = [[header[0], header[1], header[2]]]
    for r in records:
        as_text.append(
            [
                ""
                if r[c] is None
                else json.dumps(r[c]).strip('"')
                if not isinstance(r[c], str)
                else r[c]
                for c in header
            ]
        )
    path = tmp_path / "labels.csv"
    _write(path, as_text, {**study, "bom": False})
    missing = study["missing"]
    pandas = _agreement(lambda: read_labels(jsonl, ReaderSettings(layout="long", missing=missing)))
    duck = _agreement(lambda: count_labels(path, ReaderSettings(layout="long", missing=missing)))
    if pandas == "refused" or duck == "refused":
        assert pandas == duck
        return
    assert pandas == duck


def test_the_rule_in_one_function_reads_each_spelling_as_one_value():
    # the groups of LABELS are one label each (numbers: one category by value, later)
    for group in LABELS[:5]:
        assert len({canonical(v.strip('"'), label=True) for v in group}) == 1, group
    assert canonical("007") != canonical("7") and canonical("1e3") != canonical("1000")
    assert canonical(" 5") == canonical("5") == "5"
    assert canonical("") is None and canonical(" \t") is None


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["long", "wide"])
@settings(max_examples=8, **SETTINGS)
@given(study=studies())
def test_both_engines_find_the_same_layout_and_labels_on_their_own(tmp_path, kind, study):
    # no layout and no annotator columns given: each engine detects them (layout="auto")
    rows = _long_rows(study) if kind == "long" else _wide_rows(study)
    path = tmp_path / f"{kind}-auto.csv"
    _write(path, rows, study, ",")
    pandas, duck = _both(path, "auto", None, study["missing"])
    if pandas == "refused" or duck == "refused":
        assert pandas == duck, (pandas if duck == "refused" else duck, path.read_text())
        return
    assert pandas == duck
