"""The count step on Spark: ratings SQL in, distinct label vectors and their counts out.

The same steps as :mod:`planner.data.duckdb_counts`, and the same SQL where the dialects
agree: the labels and the annotators get codes, each item's label vector becomes one key
(:data:`~planner.data.duckdb_counts.ITEM_KEYS`: the number
:math:`\\sum_j (c_j + 1)(K + 1)^j` when it fits 62 bits, else the sorted list of
:math:`jK + c_j`), and :data:`~planner.data.duckdb_counts.PATTERN_COUNTS` counts the
items of each key. Only those rows -- one per distinct vector (and group) -- are collected
on the driver; :func:`~planner.data.duckdb_counts.pattern_entries` decodes them and
:func:`~planner.data.labels.finished_ratings` builds the weighted Ratings, so both engines
give the same rows in the same order (the same seed, the same bootstrap).

Labels and annotator names are put under the value rule in Python: their distinct cells
are collected (a few per column, whatever the number of ratings), read by
:func:`~planner.data.cell_values.canonical` -- the pandas reader's function -- and joined
back as small tables (``planner_labels``, ``planner_annotators``, broadcast by Spark).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.data.cell_values import canonical
from planner.data.duckdb_counts import (
    CODED,
    KEY_BITS,
    _plain_groups,
    ordered_labels,
    pattern_counts_sql,
    pattern_entries,
    rows_in_group_order,
)
from planner.data.engine_duckdb import Files
from planner.data.engine_spark import SparkQuery, ident, run
from planner.data.labels import CodedRatings, Ratings, finished_ratings
from planner.errors import InvalidInput

#: Ratings of an (item, annotator) pair given more than once with different labels.
CONFLICTS = """
SELECT min(planner_item_id), ann, min(code), max(code) FROM (
  SELECT r.item, r.planner_item_id, a.idx AS ann, l.code FROM ({ratings}) r
  JOIN planner_annotators a ON r.annotator = a.name JOIN planner_labels l ON r.label = l.value)
GROUP BY item, ann HAVING min(code) <> max(code) LIMIT 1
"""
#: Each rating once (repeated identical ratings, after the value rule, kept once).
DISTINCT_CODED = "SELECT DISTINCT * FROM ({coded})"


def count_query(spark: Any, files: Files, query: SparkQuery, order: list[str] | None) -> Ratings:
    """Ratings (distinct label vectors, weighted) of a query: labels, codes, then counts."""
    categories = register_labels(spark, files.path, query, order)
    names = register_annotators(spark, files, query, len(categories))
    k, m = len(categories), len(names)
    numeric_key = bool(m * np.log2(k + 1) < KEY_BITS)
    notes = list(query.notes) + _checked(spark, files, query)
    by = query.by
    coded = CODED.format(ratings=query.ratings, by="".join(f", r.{ident(b)}" for b in by))
    rows = _pattern_rows(spark, query, coded, numeric_key, k)
    repeats = int(sum(r[-1] or 0 for r in rows))
    if repeats:
        _refuse_conflicts(spark, files.path, query, categories, names)
        notes.append(f"{repeats:,} repeated identical rating(s) kept once")
        rows = _pattern_rows(spark, query, DISTINCT_CODED.format(coded=coded), numeric_key, k)
    weights = np.array([int(r[1 + len(by)]) for r in rows], dtype=np.int64)
    entries = pattern_entries([r[0] for r in rows], numeric_key, k, m)
    if query.layout == "wide" and query.n_rows > int(weights.sum()):
        notes.append(f"{query.n_rows - int(weights.sum())} item(s) with no rating left out")
    groups = {b: _plain_groups([r[1 + j] for r in rows], files.fmt) for j, b in enumerate(by)}
    return finished_ratings(
        CodedRatings(
            entries, categories, names, np.arange(len(rows)), groups=groups, weights=weights
        ),
        files.path,
        notes,
        note_unrated=False,
        ordered=order is not None or categories.dtype.kind in "iuf",
        input={**query.input, "n_patterns": len(rows)},
    )


def register_labels(
    spark: Any, source: str, query: SparkQuery, order: list[str] | None
) -> np.ndarray:
    """Each distinct label cell under the value rule, ordered as the pandas reader orders
    the labels; stored as the table ``planner_labels(value, code)`` (cells that are missing
    have no row, so a join leaves their ratings out)."""

    markers = {canonical(v, label=True) for v in query.input.get("missing_values", [])}
    cells = [r[0] for r in run(spark, f"SELECT DISTINCT label FROM ({query.ratings})")]
    spelled = {c: canonical(c, label=True) for c in cells if c is not None}
    read = {c: v for c, v in spelled.items() if v is not None and v not in markers}
    values = sorted(set(read.values()))
    categories, ranks = ordered_labels(values, order, source)
    code = {v: int(r) for v, r in zip(values, np.asarray(ranks).tolist(), strict=True)}
    table = [(cell, code[value]) for cell, value in read.items()]
    spark.createDataFrame(table, "value STRING, code BIGINT").createOrReplaceTempView(
        "planner_labels"
    )
    return categories


def register_annotators(spark: Any, files: Files, query: SparkQuery, k: int) -> tuple[str, ...]:
    """The annotators in the pandas reader's order, stored as the table
    ``planner_annotators(name, idx, power)``: each annotator cell, its annotator's index
    and digit weight :math:`(K + 1)^j` (0 when the keys are lists)."""
    if query.layout == "wide":
        cells = {c: c for c in query.annotators}
        names = query.annotators
    else:
        present = f"""SELECT DISTINCT r.annotator FROM ({query.ratings}) r
                      JOIN planner_labels l ON r.label = l.value"""
        read = {r[0]: canonical(r[0]) for r in run(spark, present) if r[0] is not None}
        cells = {c: v for c, v in read.items() if v is not None}
        names = _annotator_order(spark, files, query, cells)
    m = len(names)
    if m < 2:
        raise InvalidInput(f"{files.path}: fewer than two annotators ({m})")
    numeric_key = bool(m * np.log2(k + 1) < KEY_BITS)
    index = {name: j for j, name in enumerate(names)}
    table = [
        (cell, index[name], (k + 1) ** index[name] if numeric_key else 0)
        for cell, name in cells.items()
    ]
    spark.createDataFrame(table, "name STRING, idx INT, power BIGINT").createOrReplaceTempView(
        "planner_annotators"
    )
    return tuple(names)


def _annotator_order(
    spark: Any, files: Files, query: SparkQuery, cells: dict[str, str]
) -> tuple[str, ...]:
    """Sorted for CSV (pandas reads the names as categoricals); for Parquet the order of
    first appearance (files in sorted order), or a dictionary column's order."""
    if files.fmt != "parquet":
        return tuple(sorted(set(cells.values())))
    from planner.data.engine_duckdb import _dictionary_order
    from planner.data.spark_layout import ROW_PLACE

    a, lab = ident(query.input["annotator_col"]), ident(query.input["label_col"])
    rows = run(spark, f"""
        SELECT annotator, min(place) FROM (
          SELECT CAST({a} AS STRING) AS annotator, {ROW_PLACE} AS place,
                 CAST({lab} AS STRING) AS label FROM planner_source) r
        JOIN planner_labels l ON r.label = l.value GROUP BY annotator""")  # fmt: skip
    first: dict[str, tuple[Any, ...]] = {}
    for cell, place in rows:
        name = cells.get(cell)
        if name is not None:
            first[name] = min(first.get(name, tuple(place)), tuple(place))
    declared = _dictionary_order(files, query.input["annotator_col"]) if files.files else None
    if declared is not None:
        return tuple(name for name in declared if name in first)
    return tuple(sorted(first, key=first.__getitem__))


def _checked(spark: Any, files: Files, query: SparkQuery) -> list[str]:
    """Refuse ratings without an item id or an annotator; the note on missing ratings."""
    ((n_rows, n_rated, no_item, no_annotator),) = run(spark, f"""
        SELECT count(*), count(l.code),
               count(*) FILTER (WHERE l.code IS NOT NULL AND r.planner_item_id IS NULL),
               count(*) FILTER (WHERE l.code IS NOT NULL AND a.idx IS NULL)
        FROM ({query.ratings}) r LEFT JOIN planner_labels l ON r.label = l.value
        LEFT JOIN planner_annotators a ON r.annotator = a.name""")  # fmt: skip
    item_col = query.input.get("item_col")
    checks = ((no_item if item_col is not None else 0, item_col),
              (no_annotator, query.input.get("annotator_col")))  # fmt: skip
    for count, col in checks:
        if count:
            raise InvalidInput(f"{files.path}: {count:,} rating(s) have no {col!r}")
    n_missing = int(n_rows) - int(n_rated)
    query.input["n_missing_ratings"] = n_missing
    if not n_missing:
        return []
    if query.layout == "long":
        return [f"{n_missing:,} missing rating(s) (empty {query.input['label_col']!r}) left out"]
    return [f"{n_missing:,} missing rating(s) (empty cells) left out"]


def _pattern_rows(
    spark: Any, query: SparkQuery, coded: str, numeric_key: bool, k: int
) -> list[tuple[Any, ...]]:
    """``(key, group values..., items, repeated ratings)`` of each distinct label vector,
    with grouping columns in the order of the groups' first items; a column that varies
    within an item is refused."""
    by = query.by
    key = "sum(CAST(code + 1 AS BIGINT) * power)" if numeric_key else (
        f"array_sort(collect_list(ann * {k} + code))")  # fmt: skip
    seen = (
        "bit_count(bit_or(shiftleft(CAST(1 AS BIGINT), ann)))"
        if numeric_key
        else "count(DISTINCT ann)"
    )
    rows = run(spark, pattern_counts_sql(coded, by, key, seen, ident))
    return rows_in_group_order(rows, by, "spark")


def _refuse_conflicts(
    spark: Any, source: str, query: SparkQuery, categories: np.ndarray, names: tuple[str, ...]
) -> None:
    conflict = run(spark, CONFLICTS.format(ratings=query.ratings))
    if conflict:
        item, annotator, first, second = conflict[0]
        shown = np.asarray(categories).tolist()
        raise InvalidInput(
            f"{source}: item {item} is labelled by annotator {names[annotator]} more than "
            f"once with different labels ({shown[first]}, {shown[second]})"
        )
