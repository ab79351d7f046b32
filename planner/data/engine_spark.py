"""Counting label files on Spark: files in, the same weighted :class:`Ratings` out.

The count step -- ratings to per-item label vectors to counts of distinct vectors -- is a
``GROUP BY`` over item ids, a shuffle of every rating. Spark SQL runs it on a cluster (or
in local mode, ``local[2]``), spilling what does not fit; only the distinct vectors and
their multiplicities reach the driver, as they do from DuckDB
(:mod:`planner.data.engine_duckdb`). The two engines share the count SQL
(:data:`~planner.data.duckdb_counts.ITEM_KEYS`, :data:`~planner.data.duckdb_counts.PATTERN_COUNTS`,
:data:`~planner.data.duckdb_counts.CONFLICTS`) and the decoding of the keys
(:func:`~planner.data.duckdb_counts.pattern_entries`); this module opens the session and
the files and writes the ratings in Spark's dialect (``stack`` for the wide layout, where
DuckDB has ``UNPIVOT``), and :mod:`planner.data.spark_counts` counts them.

The value rule (:mod:`planner.data.cell_values`) is applied as the other engines apply it:
labels and annotator names are few, so their distinct cells are put under the rule in
Python by the very function the pandas reader uses (:func:`~planner.data.cell_values.canonical`)
and joined back as codes; item ids are many, so they are stripped in SQL and put in NFC by
a Python function on the executors only when some id has a non-ASCII character (Spark SQL
has no Unicode normalisation).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.data.engine_duckdb import Files
from planner.data.labels import Ratings
from planner.data.reader_settings import ReaderSettings
from planner.errors import InvalidInput, PlannerError

DEFAULT_MASTER = "local[2]"
#: seconds to wait for a ``spark://`` master to accept a connection before refusing it
CONNECT_TIMEOUT = 5.0
#: driver memory of a local-mode session (DuckDB's default memory limit is 2GB too)
LOCAL_MEMORY = "2g"
#: shuffle partitions of a local-mode session (Spark's default, 200, is for clusters: each
#: is a task, and a small file would spend its time scheduling them)
LOCAL_PARTITIONS = 8
_LOCAL = re.compile(r"local(\[(\*|[1-9][0-9]*)(,[1-9][0-9]*)?\])?")
_SPARK_URL = re.compile(r"spark://(.+)")
_DEFAULTS = ReaderSettings()
_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def import_pyspark() -> Any:
    """The pyspark.sql module, or one line naming the extra that installs it."""
    try:
        import pyspark.sql
    except ImportError:
        raise PlannerError(
            "engine spark needs the pyspark package and Java 17+: pip install "
            "'planner[spark]', or use engine duckdb",
            parameters=("engine",),
        ) from None
    return pyspark.sql


def check_master(master: str) -> str:
    """``master`` if it is usable: ``local``, ``local[N]``, a reachable ``spark://host:port``
    (checked within :data:`CONNECT_TIMEOUT` seconds, so an unreachable master is refused in
    one line rather than after Spark's minute of retries), or a URL Spark resolves itself
    (``yarn``, ``k8s://...``)."""
    text = str(master).strip()
    if not text:
        raise InvalidInput("spark_master must be a Spark master URL such as local[2] or "
                           "spark://host:7077, got ''", parameter="spark_master")  # fmt: skip
    if _LOCAL.fullmatch(text) or text == "yarn" or text.startswith(("k8s://", "mesos://")):
        return text
    found = _SPARK_URL.fullmatch(text)
    if not found:
        raise InvalidInput(
            f"spark_master must be local, local[N], spark://host:port, yarn or k8s://..., "
            f"got {text!r}",
            parameter="spark_master",
        )
    for address in found.group(1).split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise InvalidInput(
                f"spark_master {text!r}: each master is host:port", parameter="spark_master"
            )
        try:
            with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
                return text
        except (OSError, ValueError, OverflowError):
            continue
    raise PlannerError(
        f"spark_master {text}: no master accepts connections there (tried for "
        f"{CONNECT_TIMEOUT:g} s); start it or give another URL",
        parameters=("spark_master",),
    )


def session(master: str = DEFAULT_MASTER) -> Any:
    """The active SparkSession, or a new one on ``master`` (quiet: no UI, no progress bars).

    A session already running in this process is used as it is (its master too): Spark
    allows one per process. Java must be on the PATH (or ``JAVA_HOME``).
    """
    sql = import_pyspark()
    active = sql.SparkSession.getActiveSession()
    if active is not None:
        return active
    master = check_master(master)
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise PlannerError(
            "engine spark needs Java 17+ (java on the PATH or JAVA_HOME); install a JRE, "
            "or use engine duckdb",
            parameters=("engine",),
        )
    builder = (
        sql.SparkSession.builder.master(master)
        .appName("planner")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if master.startswith("local"):
        builder = builder.config("spark.driver.memory", LOCAL_MEMORY).config(
            "spark.sql.shuffle.partitions", str(LOCAL_PARTITIONS)
        )
    with _jvm_output() as log:
        try:
            spark = builder.getOrCreate()
        except Exception as exc:  # the JVM did not start or the master refused the app
            said = _first_line(exc)
            raise PlannerError(
                f"Spark could not start on {master}: {_jvm_error(log) or said}",
                parameters=("spark_master",),
            ) from None
        spark.sparkContext.setLogLevel("OFF")
    return spark


@contextmanager
def _jvm_output() -> Iterator[Any]:
    """Send what the JVM writes (log4j's start-up lines, Java's warnings) to an unnamed
    temporary file, not to the user's stderr: the JVM inherits file descriptor 2 as it is
    when it starts. Python's own stderr is restored at the end; pyspark's word on the
    pandas version is silenced."""
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        try:
            os.dup2(log.fileno(), 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                yield log
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _jvm_error(log: Any) -> str:
    """The first error line the JVM wrote (an ``Exception`` or ``Error``), if any."""
    log.seek(0)
    lines = log.read().decode(errors="replace").splitlines()
    found = [line.strip() for line in lines if "Exception" in line or "Error:" in line]
    return found[0][:300] if found else ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def run(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    """Rows of one Spark SQL query, as tuples; Spark's errors become one line."""
    try:
        return [tuple(row) for row in spark.sql(sql).collect()]
    except Exception as exc:
        if type(exc).__module__.startswith(("pyspark", "py4j")):
            raise InvalidInput(f"Spark could not count the ratings: {_first_line(exc)}") from None
        raise


def ident(name: str) -> str:
    """A column name quoted for Spark SQL."""
    return "`" + str(name).replace("`", "``") + "`"


def quoted(text: str) -> str:
    """A Spark SQL string literal's body (quotes and backslashes escaped)."""
    return str(text).replace("\\", "\\\\").replace("'", "\\'")


#: the characters the value rule strips, as a Spark SQL expression
SQL_AROUND = "concat(' ', chr(9), chr(13), chr(10))"


def sql_id_text(expression: str, nfc: bool) -> str:
    """An item id under the value rule in Spark SQL: its text, stripped, NFC (when ``nfc``,
    by the Python function ``planner_nfc``), NULL when empty."""
    text = f"trim(BOTH {SQL_AROUND} FROM CAST({expression} AS STRING))"
    if nfc:
        text = f"planner_nfc({text})"
    return f"nullif({text}, '')"


# --------------------------------------------------------------------------- files


def _is_url(path: str) -> bool:
    return "://" in path


def format_of(path: str, files: list[str], file_format: str | None) -> str:
    """csv, tsv or parquet, from ``file_format`` or the files' (or the pattern's) suffix."""
    if file_format is not None:
        if file_format not in ("csv", "tsv", "parquet"):
            raise InvalidInput(
                f"engine spark reads csv, tsv or parquet, got file_format {file_format}; "
                "use engine pandas for JSON Lines",
                parameter="engine",
                parameters=("file_format", "engine"),
            )
        return file_format
    from planner.data.sniff import format_suffix

    kinds = {_FORMATS.get(format_suffix(Path(f.rstrip("/")))) for f in files or [path]}
    if None in kinds or len(kinds) != 1:
        raise InvalidInput(
            f"engine spark reads .csv, .tsv or .parquet files of one kind, got {path}; "
            "use file_format",
            parameter="engine",
            parameters=("file_format", "engine"),
        )
    return str(kinds.pop())


def open_files(spark: Any, path: str | Path, file_format: str | None) -> Files:
    """The files as the temporary view ``planner_source``; their format and columns.

    A local path or glob is expanded (sorted) and checked as the other engines check it; a
    URL (``s3a://``, ``hdfs://``, ``gs://``, with or without a glob) goes to Spark as given.
    CSV and TSV are read as text (no types guessed), RFC 4180 quoting, cells may span lines
    (``multiLine``: each file is then read by one task), a malformed row is an error.
    """
    from planner.data.engine_duckdb import _sniff, expand

    text = str(path)
    files = [] if _is_url(text) else expand(text)
    fmt = format_of(text, files, file_format)
    if files:
        _sniff(files, fmt)
    reader = spark.read
    try:
        if fmt == "parquet":
            frame = reader.parquet(*(files or [text]))
        else:
            frame = reader.csv(
                files or text, header=True, sep="," if fmt == "csv" else "\t", quote='"',
                escape='"', multiLine=True, mode="FAILFAST", encoding="UTF-8",
            )  # fmt: skip
        frame.createOrReplaceTempView("planner_source")
    except Exception as exc:
        if type(exc).__module__.startswith(("pyspark", "py4j")):
            raise InvalidInput(f"{text}: cannot be read as {fmt}: {_first_line(exc)}") from None
        raise
    columns = tuple(str(c).lstrip("\ufeff") for c in frame.columns)
    if columns != tuple(frame.columns):  # a byte order mark before the header
        frame.toDF(*columns).createOrReplaceTempView("planner_source")
    return Files(text, tuple(files), fmt, columns)


# --------------------------------------------------------------------------- counting


@dataclass(frozen=True)
class SparkQuery:
    """The ratings of a file in Spark SQL, one row per rating:
    ``item, planner_item_id, annotator_raw, label_raw[, by...]`` (raw: the cell as text)."""

    ratings: str
    layout: str
    annotators: tuple[str, ...]  # wide: the columns; long: found from the data
    by: tuple[str, ...]
    input: dict[str, Any]
    notes: tuple[str, ...]
    n_rows: int = 0  # wide: rows of the file (items, rated or not)
    annotator_names: tuple[str | None, ...] = ()  # wide: each column's name under the rule


def count_labels(
    path: str | Path, options: ReaderSettings = _DEFAULTS, *, master: str = DEFAULT_MASTER
) -> Ratings:
    """Count a label file, or a glob of files, on Spark into weighted :class:`Ratings`.

    Takes the options of :func:`planner.data.reading.read_labels` (CSV, TSV and Parquet,
    local paths or URLs Spark reads) and gives Ratings whose rows are the distinct
    per-item label vectors and whose ``weights`` are their multiplicities, equal to those
    of :func:`planner.data.engine_duckdb.count_labels`. ``master`` is the Spark master
    (default ``local[2]``); a session already active in the process is used instead.
    """
    from planner.data.engine_duckdb import _order
    from planner.data.reading import LAYOUTS
    from planner.data.spark_counts import count_query
    from planner.data.spark_layout import layout_query
    from planner.validation import check_choice

    check_choice("layout", options.layout, LAYOUTS)
    order = _order(options)
    with warnings.catch_warnings():  # pyspark's own, on the pandas version and its API
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        spark = session(master)
        files = open_files(spark, path, options.file_format)
        query = layout_query(spark, files, options)
        return count_query(spark, files, query, order)
