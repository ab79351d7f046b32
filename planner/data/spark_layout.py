"""A label file's layout on Spark, and its ratings as Spark SQL.

The layout is found as the other engines find it: :func:`planner.data.layout.find_columns`
on the file's first :data:`~planner.data.layout.SAMPLE_ROWS` rows, and for the wide layout
:func:`planner.data.reading.wide_columns` with the id columns counted over the whole file in
SQL. The ratings come out one row per rating, ``item, planner_item_id, annotator, label``
(annotator and label as the text of their cell: :mod:`planner.data.spark_counts` puts them
under the value rule), then the grouping columns.

A row's place in the files is ``struct(input_file_name(), monotonically_increasing_id())``:
the files in sorted order, then the rows in file order (Spark numbers the rows of each
split in order, and a file's splits in order), as DuckDB's ``row_number() OVER ()`` over
the sorted files. Wide rows are items in that order, and the rows of an item id on several
rows are one item keyed by its first row, as both other engines read them.
"""

from __future__ import annotations

import warnings
from typing import Any

from planner.data.engine_duckdb import Files
from planner.data.engine_spark import SparkQuery, ident, quoted, run, sql_id_text
from planner.data.layout import Columns
from planner.data.reader_settings import ReaderSettings
from planner.errors import InvalidInput

#: each rating of the long layout
LONG_RATINGS = """
SELECT {item_key} AS item, {item} AS planner_item_id, CAST({annotator} AS STRING) AS annotator,
       CAST({label} AS STRING) AS label{by}
FROM planner_source
"""
#: each rating of the wide layout: ``stack`` turns the annotator columns into rows
WIDE_RATINGS = """
SELECT {row_key} AS item, planner_item_id, annotator, label{by} FROM (
  SELECT planner_row, {item_id} AS planner_item_id{by},
         stack({m}, {pairs}) AS (annotator, label)
  FROM (SELECT struct(input_file_name() AS f, monotonically_increasing_id() AS r)
               AS planner_row, * FROM planner_source))
"""
#: where a row is: the sorted files, then the row within its file
ROW_PLACE = "struct(input_file_name() AS f, monotonically_increasing_id() AS r)"
_INTEGER_TYPES = {"tinyint", "smallint", "int", "bigint"}


def layout_query(spark: Any, files: Files, options: ReaderSettings) -> SparkQuery:
    """The ratings SQL of the layout given or found (``auto`` reads a sample, as pandas does)."""
    from planner.data.layout import SAMPLE_ROWS, find_columns

    annotator_cols = list(options.annotator_cols) if options.annotator_cols else None
    by, missing = tuple(options.by), tuple(options.missing)
    with warnings.catch_warnings():  # pyspark's word on the pandas version
        warnings.simplefilter("ignore", FutureWarning)
        sample = spark.sql(f"SELECT * FROM planner_source LIMIT {SAMPLE_ROWS}").toPandas()
    found = find_columns(sample, layout=options.layout, item_col=str(options.item_col),
                         annotator_col=options.annotator_col, label_col=options.label_col,
                         annotator_cols=annotator_cols, by=by, source=files.path)  # fmt: skip
    if found.layout == "long":
        return _long_query(spark, files, found, by, missing)
    return _wide_query(spark, files, found, by, missing)


def _require(files: Files, columns: list[str]) -> None:
    absent = [c for c in columns if c not in files.columns]
    if absent:
        have = ", ".join(files.columns[:12])
        raise InvalidInput(
            f"{files.path}: missing column(s) {', '.join(map(repr, absent))} (columns are: {have})"
        )


def _nfc_needed(spark: Any, column: str) -> bool:
    """Whether some value of ``column`` has a non-ASCII character (then NFC is applied by a
    Python function, registered here as ``planner_nfc``)."""
    ascii_only = "'^[\\\\x00-\\\\x7F]*$'"
    hits = run(
        spark,
        f"""SELECT 1 FROM planner_source
                          WHERE NOT CAST({ident(column)} AS STRING) RLIKE {ascii_only} LIMIT 1""",
    )
    if hits:
        import unicodedata

        spark.udf.register("planner_nfc", lambda text: None if text is None
                           else unicodedata.normalize("NFC", text))  # fmt: skip
    return bool(hits)


def _is_integer(spark: Any, column: str) -> bool:
    """Whether a column is typed as integers (Parquet): its ids are then ordered as numbers."""
    field = spark.table("planner_source").schema[column]
    return str(field.dataType.simpleString()) in _INTEGER_TYPES


def _long_query(
    spark: Any, files: Files, found: Columns, by: tuple[str, ...], missing: tuple[str, ...]
) -> SparkQuery:
    item_col, annotator_col = str(found.item_col), str(found.annotator_col)
    label_col = str(found.label_col)
    _require(files, [item_col, annotator_col, label_col, *by])
    item = sql_id_text(ident(item_col), _nfc_needed(spark, item_col))
    ratings = LONG_RATINGS.format(
        item_key=ident(item_col) if _is_integer(spark, item_col) else item, item=item,
        annotator=ident(annotator_col), label=ident(label_col),
        by="".join(f", {ident(b)}" for b in by),
    )  # fmt: skip
    note = (
        f"read as long: item column {item_col!r}, annotator column {annotator_col!r}, "
        f"label column {label_col!r}"
    )
    return SparkQuery(
        ratings, "long", (), by,
        {"layout": "long", "item_col": item_col, "annotator_col": annotator_col,
         "label_col": label_col, "missing_values": list(missing)},
        (note,),
    )  # fmt: skip


def _wide_query(
    spark: Any, files: Files, found: Columns, by: tuple[str, ...], missing: tuple[str, ...]
) -> SparkQuery:
    from planner.data.reading import wide_columns

    annotator_cols = list(found.annotator_cols)
    _require(files, [*by, *annotator_cols])
    if len(set(annotator_cols)) < len(annotator_cols):
        raise InvalidInput(
            "annotator_cols names a column more than once: each annotator column once",
            parameter="annotator_cols",
        )
    counted: list[int] = []

    def ids_of(columns: list[Any]) -> list[Any]:
        ids, n_rows = _id_columns(spark, columns)
        counted.append(n_rows)
        return ids

    notes: list[str] = []
    found_item, has_item, columns = wide_columns(
        list(files.columns), ids_of, item_col=found.item_col if found.item_col is not None
        else "\0none", annotator_cols=annotator_cols, by=by, source=files.path,
        id_fallback=found.id_fallback, notes=notes,
    )  # fmt: skip
    item_col, n_rows = str(found_item), counted[0]
    item = sql_id_text(ident(item_col), _nfc_needed(spark, item_col)) if has_item else "NULL"
    shared = 0
    if has_item:
        shared, said = _shared_item_ids(spark, item)
        if shared:
            notes.append(said)
    by_sql = "".join(f", {ident(b)}" for b in by)
    ratings = WIDE_RATINGS.format(
        row_key="min(planner_row) OVER (PARTITION BY planner_item_id)" if shared
        else "planner_row", item_id=item, by=by_sql, m=len(columns),
        pairs=", ".join(f"'{quoted(c)}', CAST({ident(c)} AS STRING)" for c in columns),
    )  # fmt: skip
    listed = ", ".join(map(str, columns[:8])) + (
        f", ... ({len(columns)})" if len(columns) > 8 else ""
    )
    where = f"item column {item_col!r}" if has_item else "no item column (rows are items)"
    notes = [f"read as wide: {where}; annotator columns {listed}", *found.notes, *notes]
    return SparkQuery(
        ratings, "wide", tuple(str(c) for c in columns), by,
        {"layout": "wide", "item_col": item_col if has_item else None,
         "annotator_cols": [str(c) for c in columns], "missing_values": list(missing)},
        tuple(notes), n_rows,
    )  # fmt: skip


def _shared_item_ids(spark: Any, item: str) -> tuple[int, str]:
    """``(ids on more than one row, the note on those)`` of a wide file with item ids."""
    from planner.validation import shown

    ((shared, example),) = run(spark, f"""
        SELECT count(*) FILTER (WHERE n > 1), min_by(id, first) FILTER (WHERE n > 1)
        FROM (SELECT id, count(*) AS n, min(planner_row) AS first
              FROM (SELECT {item} AS id, {ROW_PLACE} AS planner_row FROM planner_source)
              WHERE id IS NOT NULL GROUP BY id)""")  # fmt: skip
    said = (
        f"{shared:,} item id(s) on more than one row (such as {shown(example)}): the rows of an "
        "id are read as one item"
    )
    return int(shared), said


def _id_columns(spark: Any, columns: list[str]) -> tuple[list[str], int]:
    """The columns that hold ids (as :func:`planner.data.layout.id_columns`), and the rows:
    each column's distinct and present values counted by one ``GROUP BY`` over the cells."""
    from planner.data.layout import ID_MIN_VALUES

    ((n,),) = run(spark, "SELECT count(*) FROM planner_source")
    n = int(n)
    if not columns:
        return [], n
    pairs = ", ".join(f"'{quoted(c)}', CAST({ident(c)} AS STRING)" for c in columns)
    cells = f"""
        SELECT name, count(*) AS n_distinct, sum(n) AS n_present FROM (
          SELECT name, value, count(*) AS n FROM (
            SELECT stack({len(columns)}, {pairs}) AS (name, value) FROM planner_source)
          WHERE value IS NOT NULL GROUP BY name, value)
        GROUP BY name"""
    counted = {str(name): (int(d), int(p)) for name, d, p in run(spark, cells)}
    distinct = {c: counted.get(str(c), (0, 0))[0] for c in columns}
    present = {c: counted.get(str(c), (0, 0))[1] for c in columns}
    ids = [c for c in columns if n >= ID_MIN_VALUES and distinct[c] == n == present[c]]
    others = [c for c in columns if c not in ids]
    if not ids or not others or not all(distinct[c] <= n / 2 for c in others):
        return [], n
    return ids, n
