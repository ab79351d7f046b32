"""Counting label files out of core with DuckDB: files in, the same :class:`Ratings` out.

Every statistic ``agree`` reports is a function of the distinct per-item label vectors (one
label or none per annotator) and how many items share each: 10 annotators with binary
labels and missing ratings have at most 3^10 such patterns, whatever the number of items.
DuckDB runs the one step that needs every row -- ratings to per-item label vectors to
counts of vectors -- with a hard memory limit, spilling to a temporary folder, and returns
the patterns as a :class:`~planner.data.labels.Ratings` whose rows are the distinct label
vectors and whose ``weights`` are their multiplicities. Pair tables, count patterns,
Conger's kappa, Krippendorff's alpha, the per-annotator table and every diagnostic follow
from it through the same code as for a file read by pandas.

This module connects, finds the files and their layout, and writes the ratings as SQL
(:data:`LONG_RATINGS`, :data:`WIDE_RATINGS`: a :class:`Query`); the count step is
:mod:`planner.data.duckdb_counts` (``ITEM_KEYS``, ``PATTERN_COUNTS``, ...). Only SQL strings
run on one connection: running them on a distributed SQL engine is a swap of the
connection, not a rewrite. Things that need an item's identity (the contested-items export)
are computed in SQL too and streamed to their file.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.data.cell_values import canonical, sql_not_missing, sql_text
from planner.data.labels import Ratings
from planner.data.layout import Columns
from planner.data.reader_settings import ReaderSettings
from planner.errors import InvalidInput, PlannerError

ENGINES = ("pandas", "duckdb", "spark", "auto")
#: ``--engine auto`` counts with DuckDB when the memory pandas would need (the files' size
#: times :data:`EXPANSION`) is more than this share of the memory available.
AUTO_SHARE = 0.25
#: Memory pandas needs per byte of file while it reads and codes the ratings (measured with
#: benchmarks/bigdata.py: 10^7 ratings, a 10 MB Parquet file, peak 1.2 GB; CSV about 10x).
EXPANSION = {"csv": 10, "tsv": 10, "parquet": 100, "jsonl": 5}
GZIP_EXPANSION = 5  # a .gz file's text is taken as this many times its size, for --engine auto
DEFAULT_MEMORY_LIMIT = "2GB"
_ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark"}
_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet"}

# --------------------------------------------------------------------------- the SQL

#: One row per rating: item id, annotator and label as text under the value rule
#: (:func:`planner.data.cell_values.sql_text`); missing ratings (null, empty or ``--missing``)
#: dropped.
LONG_RATINGS = """
SELECT {item_key} AS item, {item} AS planner_item_id, {annotator} AS annotator,
       {label} AS label{by}
FROM {source} WHERE {label} IS NOT NULL{missing}
"""
#: The wide layout as ratings: each row is an item, each annotator column a rating; the rows
#: of one item id are one item (keyed by the first of them).
WIDE_RATINGS = """
SELECT item, {item_id} AS planner_item_id, annotator, label{by} FROM (
  UNPIVOT (SELECT {row_key} AS item{by}{inner_id}, {casts}
           FROM (SELECT row_number() OVER () AS planner_row, * FROM {source}))
  ON {columns} INTO NAME annotator VALUE label)
WHERE label IS NOT NULL{missing}
"""


@dataclass(frozen=True)
class Files:
    """The files a path or a glob names, their format and their (common) columns."""

    path: str
    files: tuple[str, ...]
    fmt: str
    columns: tuple[str, ...]


def connect(memory_limit: str = DEFAULT_MEMORY_LIMIT, temp_dir: str | None = None) -> Any:
    """A DuckDB connection with a memory limit and a folder to spill to."""
    duckdb = import_duckdb()
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"SET memory_limit = '{_quoted(memory_limit)}'")
    except duckdb.Error:
        raise InvalidInput(
            f"memory_limit must be a size such as 1GB or 500MB, got {memory_limit!r}",
            parameter="memory_limit",
        ) from None
    if temp_dir is not None:
        if not Path(temp_dir).is_dir():
            raise InvalidInput(
                f"temp_dir must be an existing folder, got {temp_dir!r}", parameter="temp_dir"
            )
        con.execute(f"SET temp_directory = '{_quoted(temp_dir)}'")
    return con


def import_duckdb() -> Any:
    """The duckdb module, or one line saying how to install it."""
    try:
        import duckdb
    except ImportError:
        raise PlannerError(
            "engine duckdb needs the duckdb package: pip install duckdb (the extra "
            "planner[duckdb]), or use engine pandas",
            parameters=("engine",),
        ) from None
    return duckdb


def _quoted(text: str) -> str:
    return str(text).replace("'", "''")


def _ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def expand(path: str | Path, file_format: str | None = None) -> list[str]:
    """The files ``path`` names: itself, or the sorted matches of a glob (``*``, ``?``, ``[``)."""
    text = str(path)
    if _is_pattern(text) and not os.path.exists(text):
        files = sorted(f for f in glob.glob(text) if os.path.isfile(f))
        if not files:
            raise InvalidInput(f"{text}: no file matches this pattern")
        return files
    from planner.data.sniff import check_path

    check_path(Path(text))
    return [text]


def _is_pattern(path: str | Path) -> bool:
    return any(ch in str(path) for ch in "*?[")


def format_of(files: list[str], file_format: str | None) -> str:
    """csv, tsv or parquet, the same for every file; JSON Lines are refused."""
    if file_format is not None:
        if file_format not in ("csv", "tsv", "parquet"):
            raise InvalidInput(
                f"engine duckdb reads csv, tsv or parquet, got file_format {file_format}; "
                "use engine pandas for JSON Lines",
                parameter="engine",
                parameters=("file_format", "engine"),
            )
        return file_format
    from planner.data.sniff import format_suffix

    kinds = {_FORMATS.get(format_suffix(Path(f))) for f in files}
    if None in kinds or len(kinds) != 1:
        suffixes = ", ".join(sorted({Path(f).suffix or "(none)" for f in files}))
        raise InvalidInput(
            f"engine duckdb reads .csv, .tsv or .parquet files of one kind, got {suffixes}; "
            "use file_format or engine pandas",
            parameter="engine",
            parameters=("file_format", "engine"),
        )
    return str(kinds.pop())


def _table(files: tuple[str, ...] | list[str], fmt: str) -> str:
    """The files as a DuckDB table. CSV and TSV are read as the text written in each cell
    (``all_varchar``: no type guessed from a sample), quoted as RFC 4180 (``"`` around a
    cell, ``""`` inside one: stated, not sniffed, so a quote first seen late in the file
    is read as one), every row checked (``strict_mode``: an unterminated quote is an error),
    a short row padded with empty cells (as pandas reads it)."""
    listed = "[" + ", ".join(f"'{_quoted(f)}'" for f in files) + "]"
    if fmt == "parquet":
        return f"read_parquet({listed})"
    from planner.data.sniff import is_gzip

    delim = "," if fmt == "csv" else "\\t"
    # gzip by content (DuckDB's "auto" goes by the .gz name only), when every file is gzip
    gz = ", compression = 'gzip'" if all(is_gzip(Path(f)) for f in files) else ""
    return (
        f"read_csv({listed}, header = true, all_varchar = true, delim = '{delim}', "
        f"quote = '\"', escape = '\"', strict_mode = true, null_padding = true{gz})"
    )


def open_files(con: Any, path: str | Path, file_format: str | None = None) -> Files:
    """Check that every file has the same columns; the files and their columns."""
    duckdb = import_duckdb()
    files = expand(path, file_format)
    fmt = format_of(files, file_format)
    _sniff(files, fmt)
    first: tuple[str, ...] | None = None
    for f in files:
        try:
            described = con.execute(f"DESCRIBE SELECT * FROM {_table([f], fmt)}").fetchall()
        except duckdb.OutOfMemoryException:
            raise _out_of_memory() from None
        except duckdb.Error as exc:
            raise InvalidInput(f"{f}: cannot be read as {fmt}: {_first_line(exc)}") from None
        columns = tuple(str(r[0]) for r in described)
        if first is None:
            first = columns
        elif columns != first:
            raise InvalidInput(
                f"{f}: its columns ({', '.join(columns)}) differ from those of {files[0]} "
                f"({', '.join(first)}); every file of {path} must have the same columns"
            )
    return Files(str(path), tuple(files), fmt, first or ())


def _sniff(files: list[str], fmt: str) -> None:
    """The pandas reader's checks of the first bytes (NUL bytes, not UTF-8, no PAR1, ...)."""
    from planner.data.sniff import sniff

    for f in files:
        sniff(Path(f), fmt)


@contextmanager
def counting(
    memory_limit: str = DEFAULT_MEMORY_LIMIT, temp_dir: str | None = None
) -> Iterator[Any]:
    """A connection (:func:`connect`) closed at the end; DuckDB running out of memory
    anywhere in the block (a query, a sample read, a table registered) is one line."""
    duckdb = import_duckdb()
    con = connect(memory_limit, temp_dir)
    try:
        yield con
    except duckdb.OutOfMemoryException:
        raise _out_of_memory() from None
    finally:
        con.close()


def _out_of_memory() -> PlannerError:
    return PlannerError(
        "DuckDB ran out of memory under memory_limit; raise memory_limit or give "
        "temp_dir a folder with free space to spill to",
        parameters=("memory_limit", "temp_dir"),
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def run(con: Any, sql: str) -> list[tuple[Any, ...]]:
    """Rows of one query; DuckDB's errors become one line (out of memory: say how to fix)."""
    duckdb = import_duckdb()
    try:
        return list(con.execute(sql).fetchall())
    except duckdb.OutOfMemoryException:
        raise _out_of_memory() from None
    except duckdb.Error as exc:
        raise InvalidInput(f"DuckDB could not count the ratings: {_first_line(exc)}") from None


# --------------------------------------------------------------------------- choosing


def choose_engine(engine: str, path: str | Path, file_format: str | None = None) -> tuple[str, str]:
    """``("pandas" | "duckdb", why)`` for ``engine``; ``auto`` compares size and memory.

    ``why`` is a note naming the parameter in backticks (:func:`planner.errors.shown_note`).
    """
    from planner.validation import check_choice

    check_choice("engine", engine, ENGINES)
    if engine == "pandas" and _is_pattern(path) and not os.path.exists(path):
        raise InvalidInput(
            f"{path} is a pattern of files; the pandas reader reads one file: use engine duckdb",
            parameters=("engine",),
        )
    if engine != "auto":
        return engine, f"`engine` {engine}"
    files = expand(path, file_format)
    from planner.data.sniff import GZIP_SUFFIX, format_suffix

    size = sum(
        os.path.getsize(f) * (GZIP_EXPANSION if f.lower().endswith(GZIP_SUFFIX) else 1)
        for f in files
    )
    free = available_memory()
    kind = file_format or _FORMATS.get(format_suffix(Path(files[0])), "jsonl")
    small = size * EXPANSION.get(kind, 10) <= AUTO_SHARE * free
    if len(files) == 1 and (small or kind == "jsonl"):  # DuckDB does not read JSON Lines here
        return "pandas", "in memory"
    _sniff(files, format_of(files, file_format))  # what is not a label file: refused first
    try:
        import_duckdb()
    except PlannerError:
        if len(files) > 1:
            raise
        return "pandas", "in memory (duckdb is not installed)"
    reason = f"{len(files)} files" if len(files) > 1 else f"{size / 2**20:,.0f} MB of {kind}"
    return "duckdb", f"`engine` auto chose duckdb: {reason}, {free / 2**30:.1f} GiB memory free"


def available_memory() -> int:
    """Bytes of memory available (``MemAvailable`` of /proc/meminfo; else physical memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


# --------------------------------------------------------------------------- reading, counting


@dataclass(frozen=True)
class Query:
    """The ratings of a file as SQL, and what the file said about its layout."""

    ratings: str
    layout: str
    annotators: tuple[str, ...]  # wide: the columns; long: found by a query
    by: tuple[str, ...]
    input: dict[str, Any]
    notes: tuple[str, ...]
    n_rows: int = 0  # wide: rows of the file (items, rated or not)


#: Deprecated alias of :class:`planner.data.reader_settings.ReaderSettings` (its ``repeats``
#: is what :func:`read_with_engine`'s ``repeats`` sets).
ReadOptions = ReaderSettings
_DEFAULT_OPTIONS = ReaderSettings()


def count_labels(
    path: str | Path,
    options: ReaderSettings = _DEFAULT_OPTIONS,
    *,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
    temp_dir: str | None = None,
) -> Ratings:
    """Count a label file, or a glob of files, with DuckDB into weighted :class:`Ratings`.

    Takes the options of :func:`planner.data.reading.read_labels` (CSV, TSV and Parquet
    only) and gives Ratings whose rows are the distinct per-item label vectors, with their
    multiplicities as ``weights``: every statistic equals that of the in-memory reader's
    Ratings. ``memory_limit`` caps DuckDB's memory (``"1GB"``); ``temp_dir`` is where it
    spills.
    """
    from planner.data.duckdb_counts import count_query

    with counting(memory_limit, temp_dir) as con:
        files, query = _prepare(con, path, options)
        return count_query(con, files, query, _order(options))


def read_with_engine(
    path: str | Path,
    options: ReaderSettings = _DEFAULT_OPTIONS,
    *,
    engine: str = "auto",
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    repeats: str = "refuse",
    spark_master: str | None = None,
) -> tuple[Ratings, str, str]:
    """``(ratings, engine used, why)``: a label file read by pandas or counted by DuckDB
    (or by Spark: ``engine="spark"`` on ``spark_master``, see
    :func:`planner.data.engine_spark.count_labels`).

    ``engine`` is ``"pandas"``, ``"duckdb"`` or ``"auto"`` (:func:`choose_engine`);
    ``memory_limit`` (default :data:`DEFAULT_MEMORY_LIMIT`) and ``temp_dir`` apply to
    DuckDB. ``repeats="keep"`` (ratings of one item by one annotator given more than once
    are each kept, for a latent-class fit) is read by pandas only: ``--engine duckdb``
    refuses it, and ``auto`` then reads with pandas.
    """
    from planner.validation import check_choice

    check_choice("repeats", repeats, ("keep", "refuse"))
    if repeats == "keep" and engine in ("duckdb", "spark"):
        raise InvalidInput(
            "repeats keep counts repeated ratings with the pandas engine only: use engine "
            f"pandas, or repeats refuse to count with {_ENGINE_NAMES[engine]}",
            parameter="repeats",
        )
    if engine == "spark":
        from planner.data import engine_spark

        master = spark_master or engine_spark.DEFAULT_MASTER
        ratings = engine_spark.count_labels(path, options, master=master)
        return ratings, "spark", "`engine` spark"
    if repeats == "keep":
        chosen, why = choose_engine("pandas", path, options.file_format)
    else:
        chosen, why = choose_engine(engine, path, options.file_format)
    if chosen == "duckdb":
        limit = memory_limit or DEFAULT_MEMORY_LIMIT
        return count_labels(path, options, memory_limit=limit, temp_dir=temp_dir), chosen, why
    from planner.data.reading import read_labels

    ratings = read_labels(path, replace(options, repeats=repeats))
    return ratings, chosen, why


def copy_contested_items(
    path: str | Path,
    raw: str | Path,
    options: ReaderSettings = _DEFAULT_OPTIONS,
    *,
    wide_annotators: int,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
    temp_dir: str | None = None,
) -> None:
    """Write the contested items of a label file (or glob) to the file ``raw``, from SQL.

    The same rows as :func:`planner.measuring.diagnostics.contested_rows` (one row per
    item, a column per annotator, with at most ``wide_annotators`` annotators -- pass its
    ``WIDE_CONTESTED_ANNOTATORS`` -- else one row per rating), streamed by DuckDB. ``raw``
    is written in place: give it a temporary file and move that into place, refusing the
    inputs as targets, as :func:`planner.output.safe_output.write_csv_from` does::

        write_csv_from(target, lambda raw: copy_contested_items(path, raw, options,
                       wide_annotators=WIDE_CONTESTED_ANNOTATORS), inputs=[path])
    """
    from planner.data.duckdb_counts import (
        copy_contested,
        one_spelling,
        register_annotators,
        register_labels,
    )

    with counting(memory_limit, temp_dir) as con:
        files, query = _prepare(con, path, options)
        categories = register_labels(con, files.path, query.ratings, _order(options))
        query = one_spelling(query)
        register_annotators(con, query.annotators, len(categories))
        copy_contested(con, query, Path(raw), wide_annotators)


def _order(options: ReaderSettings) -> list[str] | None:
    from planner.data.reading import check_order

    return check_order(list(options.order) if options.order is not None else None)


def _prepare(con: Any, path: str | Path, options: ReaderSettings) -> tuple[Files, Query]:
    from planner.data.reading import LAYOUTS
    from planner.validation import check_choice

    check_choice("layout", options.layout, LAYOUTS)
    _order(options)
    files = open_files(con, path, options.file_format)
    return files, _query(con, files, options)


def _query(con: Any, files: Files, options: ReaderSettings) -> Query:
    """The ratings SQL of the layout given or found (``auto`` reads a sample, as pandas does)."""
    from planner.data.layout import SAMPLE_ROWS, find_columns

    annotator_cols = list(options.annotator_cols) if options.annotator_cols else None
    by, missing = tuple(options.by), tuple(options.missing)
    table = _table(files.files, files.fmt)
    sample = con.execute(f"SELECT * FROM {table} LIMIT {SAMPLE_ROWS}").df()
    found = find_columns(sample, layout=options.layout, item_col=str(options.item_col),
                         annotator_col=options.annotator_col, label_col=options.label_col,
                         annotator_cols=annotator_cols, by=by, source=files.path)  # fmt: skip
    if found.layout == "long":
        return _long_query(con, files, table, str(found.item_col), str(found.annotator_col),
                           str(found.label_col), by, missing)  # fmt: skip
    query = _wide_query(con, files, table, found, by, missing)
    notes = query.notes[:1] + found.notes + query.notes[1:]
    return Query(query.ratings, query.layout, query.annotators, query.by, query.input, notes,
                 query.n_rows)  # fmt: skip


def _require(files: Files, columns: list[str]) -> None:
    absent = [c for c in columns if c not in files.columns]
    if absent:
        have = ", ".join(files.columns[:12])
        raise InvalidInput(
            f"{files.path}: missing column(s) {', '.join(map(repr, absent))} (columns are: {have})"
        )


def _long_query(
    con: Any,
    files: Files,
    table: str,
    item_col: str,
    annotator_col: str,
    label_col: str,
    by: tuple[str, ...],
    missing: tuple[str, ...],
) -> Query:
    _require(files, [item_col, annotator_col, label_col, *by])
    i, a = sql_text(_ident(item_col)), sql_text(_ident(annotator_col))
    lab = sql_text(_ident(label_col), label=True)
    by_sql = "".join(f", {_ident(b)} AS {_ident(b)}" for b in by)
    key = _ident(item_col) if _is_integer(con, table, item_col) else i  # ids in order
    ratings = LONG_RATINGS.format(item_key=key, item=i, annotator=a, label=lab, by=by_sql,
                                  source=table, missing=sql_not_missing(lab, missing))  # fmt: skip
    present = f"{lab} IS NOT NULL{sql_not_missing(lab, missing)}"
    ((n_missing, no_item, no_annotator),) = run(con, f"""
        SELECT count(*) FILTER (WHERE NOT ({present})),
               count(*) FILTER (WHERE {present} AND {i} IS NULL),
               count(*) FILTER (WHERE {present} AND {a} IS NULL)
        FROM {table}""")  # fmt: skip
    for count, col in ((no_item, item_col), (no_annotator, annotator_col)):
        if count:
            raise InvalidInput(f"{files.path}: {count:,} rating(s) have no {col!r}")
    notes = [
        f"read as long: item column {item_col!r}, annotator column {annotator_col!r}, "
        f"label column {label_col!r}"
    ]
    if n_missing:
        notes.append(f"{n_missing:,} missing rating(s) (empty {label_col!r}) left out")
    names = _annotators_in_order(con, files, ratings, (annotator_col, a), present)
    return Query(
        ratings, "long", names, by,
        {"layout": "long", "item_col": item_col, "annotator_col": annotator_col,
         "label_col": label_col, "n_missing_ratings": int(n_missing),
         "missing_values": list(missing)},
        tuple(notes),
    )  # fmt: skip


def _is_integer(con: Any, table: str, column: str) -> bool:
    """Whether a column is typed as integers (Parquet): its ids are then ordered as numbers,
    as the pandas reader orders them (text ids are ordered as text on both engines)."""
    described = run(con, f"DESCRIBE SELECT {_ident(column)} FROM {table}")
    return bool(described) and str(described[0][1]).upper() in _INTEGER_TYPES


_INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"}
_INTEGER_TYPES |= {"U" + t for t in _INTEGER_TYPES}


def _annotators_in_order(
    con: Any, files: Files, ratings: str, column: tuple[str, str], present: str
) -> tuple[str, ...]:
    """The annotators in the pandas reader's order: sorted for CSV (read as categoricals),
    first appearance for Parquet (files in sorted order). ``column``: the annotator
    column's name and its values under the value rule, in SQL."""
    name_col, names_sql = column
    if files.fmt != "parquet":
        return tuple(
            sorted(str(r[0]) for r in run(con, f"SELECT DISTINCT annotator FROM ({ratings})"))
        )
    listed = "[" + ", ".join(f"'{_quoted(f)}'" for f in files.files) + "]"
    rows = run(con, f"""
        SELECT {names_sql} AS name, filename, min(file_row_number) AS first
        FROM read_parquet({listed}, filename = true, file_row_number = true)
        WHERE {present} GROUP BY name, filename""")  # fmt: skip
    rank = {f: k for k, f in enumerate(files.files)}
    first: dict[str, tuple[int, int]] = {}
    for name, filename, row in rows:
        key = (rank.get(filename, len(rank)), int(row))
        first[name] = min(first.get(name, key), key)
    declared = _dictionary_order(files, name_col)
    if declared is not None:  # pandas reads a dictionary column as a categorical: its order
        return tuple(name for name in declared if name in first)
    return tuple(sorted(first, key=first.__getitem__))


def _dictionary_order(files: Files, column: str) -> list[str] | None:
    """The values of a dictionary-encoded Parquet column in the order pandas gives its
    categories (the dictionaries of the row groups, unified in order), under the value
    rule; None otherwise."""
    if len(files.files) != 1:
        return None
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pandas cannot read Parquet either
        return None

    name = column
    handle = pq.ParquetFile(files.files[0])
    if not pa.types.is_dictionary(handle.schema_arrow.field(name).type):
        return None
    seen: dict[str, None] = {}
    for group in range(handle.num_row_groups):
        chunks = handle.read_row_group(group, columns=[name]).column(0).chunks
        for chunk in chunks:
            for value in chunk.dictionary.to_pylist():
                text = canonical(value)
                if text is not None:
                    seen.setdefault(text, None)
    return list(seen)


def _wide_query(
    con: Any,
    files: Files,
    table: str,
    found: Columns,
    by: tuple[str, ...],
    missing: tuple[str, ...],
) -> Query:
    annotator_cols = list(found.annotator_cols)
    _require(files, [*by, *annotator_cols])
    if len(set(annotator_cols)) < len(annotator_cols):
        raise InvalidInput(
            "annotator_cols names a column more than once: each annotator column once",
            parameter="annotator_cols",
        )
    from planner.data.reading import wide_columns

    counted: list[int] = []  # the rows of the file, counted with the id columns

    def ids_of(columns: list[Any]) -> list[Any]:
        ids, n_rows = _id_columns(con, table, columns)
        counted.append(n_rows)
        return ids

    notes: list[str] = []
    found_item, has_item, columns = wide_columns(
        list(files.columns),
        ids_of,
        item_col=found.item_col if found.item_col is not None else "\0none",
        annotator_cols=annotator_cols,
        by=by,
        source=files.path,
        id_fallback=found.id_fallback,
        notes=notes,
    )
    item_col, n_rows = str(found_item), counted[0]
    n_items, shared, said = n_rows, 0, ""
    if has_item:
        n_items, shared, said = _wide_item_ids(con, table, item_col)
    casts = ", ".join(f"{sql_text(_ident(c), label=True)} AS {_ident(c)}" for c in columns)
    item_sql = sql_text(_ident(item_col))
    ratings = WIDE_RATINGS.format(
        by="".join(f", {_ident(b)}" for b in by),
        item_id="planner_item_id" if has_item else "item - 1",
        row_key=f"min(planner_row) OVER (PARTITION BY {item_sql})"
        if shared
        else "planner_row",  # the rows of an id on several rows: keyed by the first
        inner_id=f", {item_sql} AS planner_item_id" if has_item else "",
        casts=casts,
        columns=", ".join(_ident(c) for c in columns),
        source=table,
        missing=sql_not_missing("label", missing),
    )
    ((n_ratings, unnamed),) = run(
        con,
        f"""
        SELECT count(*), count(*) FILTER (WHERE planner_item_id IS NULL) FROM ({ratings})""",
    )
    if unnamed:
        raise InvalidInput(f"{files.path}: {unnamed:,} rating(s) have no {item_col!r}")
    n_missing = n_rows * len(columns) - int(n_ratings)
    if n_missing:
        notes.append(f"{n_missing:,} missing rating(s) (empty cells) left out")
    if shared:
        notes.append(said)
    listed = ", ".join(map(str, columns[:8])) + (
        f", ... ({len(columns)})" if len(columns) > 8 else ""
    )
    where = f"item column {item_col!r}" if has_item else "no item column (rows are items)"
    notes.insert(0, f"read as wide: {where}; annotator columns {listed}")
    return Query(
        ratings, "wide", tuple(str(c) for c in columns), by,
        {"layout": "wide", "item_col": item_col if has_item else None,
         "annotator_cols": [str(c) for c in columns], "n_missing_ratings": n_missing,
         "missing_values": list(missing)},
        tuple(notes), n_items,
    )  # fmt: skip


def _wide_item_ids(con: Any, table: str, item_col: str) -> tuple[int, int, str]:
    """``(distinct item ids, ids on more than one row, the note on those)`` of a wide file
    (the rows of such an id are one item, as the pandas reader reads them)."""
    from planner.validation import shown

    i = sql_text(_ident(item_col))
    ((n_items, shared, example),) = run(con, f"""
        SELECT count(*), count(*) FILTER (WHERE n > 1), arg_min(id, first) FILTER (WHERE n > 1)
        FROM (SELECT {i} AS id, count(*) AS n, min(planner_row) AS first
              FROM (SELECT row_number() OVER () AS planner_row, {_ident(item_col)} FROM {table})
              WHERE {i} IS NOT NULL GROUP BY {i})""")  # fmt: skip
    said = (
        f"{shared:,} item id(s) on more than one row (such as {shown(example)}): the rows of an "
        "id are read as one item"
    )
    return int(n_items), int(shared), said


def _id_columns(con: Any, table: str, columns: list[str]) -> tuple[list[str], int]:
    """The columns that hold ids (as :func:`planner.data.layout.id_columns`), and the rows.

    Each column's distinct and present values are counted by one ``GROUP BY`` over the
    file's cells (column name, value), which spills to disk, rather than by a
    ``count(DISTINCT ...)`` per column: DuckDB keeps a hash table per such aggregate, so
    thousands of annotator columns ran out of memory (or crashed) that way.
    """
    from planner.data.layout import ID_MIN_VALUES

    ((n,),) = run(con, f"SELECT count(*) FROM {table}")
    if not columns:
        return [], int(n)
    casts = ", ".join(f"CAST({_ident(c)} AS VARCHAR) AS {_ident(c)}" for c in columns)
    cells = f"""
        SELECT name, count(*) AS n_distinct, sum(n) AS n_present FROM (
          SELECT name, value, count(*) AS n FROM (
            UNPIVOT (SELECT {casts} FROM {table})
            ON {", ".join(_ident(c) for c in columns)} INTO NAME name VALUE value)
          GROUP BY name, value)
        GROUP BY name"""
    counted = {str(name): (int(d), int(p)) for name, d, p in run(con, cells)}
    distinct = {c: counted.get(str(c), (0, 0))[0] for c in columns}
    present = {c: counted.get(str(c), (0, 0))[1] for c in columns}
    n = int(n)
    ids = [c for c in columns if n >= ID_MIN_VALUES and distinct[c] == n == present[c]]
    others = [c for c in columns if c not in ids]
    if not ids or not others or not all(distinct[c] <= n / 2 for c in others):
        return [], n
    return ids, n
