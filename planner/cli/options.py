"""Options several commands share, declared once as reusable ``Annotated`` types.

Reading a label file (``agree``, ``fit``, ``alt-test``; ``plan --pilot`` builds its own
``Annotated`` types from the same help with :func:`reader_option`, on its "Pilot file"
panel), the engine that reads it (``--engine``, ``--memory-limit``, ``--temp-dir``),
``--repeats``, ``--quiet``, the seed and ``--json``; and :func:`read_ratings`, which reads a
file with the chosen engine as every command does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from planner.data.labels import Ratings
    from planner.data.reader_settings import ReaderSettings

_INPUT = "Input"

#: the help of each reader option, by its parameter name (``plan`` prefixes "With --pilot: ")
READER_HELP = {
    "layout": "long, wide or auto: long when an item, an annotator and a label column are "
    "found (by these options, or by names such as comment_id, rater, rating), wide when no "
    "column is named like an annotator or a label and the others share their labels; "
    "otherwise the file is refused with the options to set.",
    "item_col": "Item id column (if the file has none of this name: a column named like "
    "one, e.g. comment_id).",
    "annotator_col": "Annotator column (long layout; if absent: one named like rater, coder, "
    "judge, worker).",
    "label_col": "Label column (long layout; if absent: one named like rating, verdict, score).",
    "annotator_cols": "Wide layout: comma-separated annotator columns, e.g. alice,bob,carol "
    "(default: the columns that share their labels, besides the item and grouping columns).",
    "file_format": "csv, tsv, parquet or jsonl (default: from the file suffix).",
    "missing": "Comma-separated label strings that mean no rating (e.g. NA,n/a); "
    "otherwise only empty cells and nulls are missing, and NA, None, null are labels.",
    "engine": "pandas (in memory), duckdb (out of core: CSV, TSV, Parquet or a quoted glob "
    "of them, such as 'data/*.parquet'), spark (the count on Spark, --spark-master; "
    "the extra planner[spark]) or auto (duckdb for a glob or for files over "
    "a quarter of the free memory, said on stderr).",
    "spark_master": "Spark engine: the master URL, e.g. spark://host:7077 or local[4] "
    "(default local[2]); paths may be URLs Spark reads, e.g. 's3a://bucket/labels/*.parquet'.",
    "memory_limit": "DuckDB engine: most memory the count may use (default 2GB), e.g. 1GB.",
    "temp_dir": "DuckDB engine: folder to spill to when the count exceeds --memory-limit.",
}
#: the flag of each reader option, by its parameter name (every command spells them alike)
READER_FLAGS = {
    "layout": "--layout",
    "item_col": "--item-col",
    "annotator_col": "--annotator-col",
    "label_col": "--label-col",
    "annotator_cols": "--annotator-cols",
    "by": "--by",
    "file_format": "--format",
    "missing": "--missing",
}
_FLAGS = {"file_format": "--format", "annotator_cols": "--annotator-cols"}
#: the old spelling of --annotator-cols (agree, fit, alt-test; plan's was --pilot-annotators)
OLD_ANNOTATOR_COLS = "--annotators"
OLD_PILOT_ANNOTATOR_COLS = "--pilot-annotators"


#: the defaults ``plan``'s help states (its reader options default to None: "not given")
_DEFAULTS = {
    "layout": "auto",
    "item_col": "item",
    "annotator_col": "annotator",
    "label_col": "label",
    "engine": "auto",
}


def reader_option(
    name: str, *, flag: str | None = None, pilot: bool = False, also: str = ""
) -> Any:
    """The ``typer.Option`` of reader option ``name``: on the Input panel, or ``plan``'s.

    With ``pilot`` the help starts "With --pilot:", states the default, and the option sits
    on the "Pilot file" panel (``plan``'s defaults are ``None``, "not given", so that an
    option without ``--pilot`` is refused). ``also`` is a sentence added to the help.
    """
    given = flag or _FLAGS.get(name)
    flags = [given] if given else []
    text = READER_HELP[name] + (f" {also}" if also else "")
    if pilot:
        lead = text[0].lower() if text[1:2].islower() else text[0]  # "DuckDB" stays
        text = f"With --pilot or --labelled: {lead}{text[1:]}"
        if name in _DEFAULTS:
            text += f" Default {_DEFAULTS[name]}."
    panel = "Pilot file" if pilot else _INPUT
    hide_default = name == "memory_limit"
    return typer.Option(*flags, help=text, rich_help_panel=panel, show_default=not hide_default)


#: the reader options of ``--pilot`` and ``--labelled`` in plan and schedule, by their flags
#: (a label file's reader options, without ``--by``, and the engine's)
PILOT_READER_FLAGS = {
    **{name: flag for name, flag in READER_FLAGS.items() if name != "by"},
    "engine": "--engine",
    "memory_limit": "--memory-limit",
    "temp_dir": "--temp-dir",
}


def reader_from_flags(given: dict[str, Any]) -> dict[str, object]:
    """The reader options given among a command's values (``locals()``), for ``--pilot`` or
    ``--labelled``: ``--annotator-cols`` (or its old ``--pilot-annotators``) as a list,
    ``--missing`` as a tuple; options not given (or the command has not) left out."""
    old = given.get("pilot_annotators")
    columns = annotator_columns(given.get("annotator_cols"), old, OLD_PILOT_ANNOTATOR_COLS)
    missing = given.get("missing")
    reader: dict[str, object] = {
        k: given.get(k) for k in PILOT_READER_FLAGS if k not in ("annotator_cols", "missing")
    }
    reader["annotator_cols"] = columns.split(",") if columns else None
    reader["missing"] = tuple(missing.split(",")) if missing else None
    return {k: v for k, v in reader.items() if v is not None}


def pilot_options(
    pilot: str | None,
    pair: str | None,
    positive: str | None,
    reader: dict[str, object],
    scenario: bool = False,
) -> dict[str, Any]:
    """The ``--pilot`` options of :class:`planner.application.plan_options.PlanOptions`;
    reader options need ``--pilot`` (or a scenario, whose ``pilot_file`` they then read:
    the plan checks that it has one)."""
    from planner.errors import InvalidInput

    if reader and pilot is None and not scenario:
        flags = ", ".join(PILOT_READER_FLAGS[k] for k in reader)
        raise InvalidInput(f"{flags}: options for reading --pilot FILE, which is not given")
    return {
        "pilot": pilot,
        "pair": tuple(part.strip() for part in pair.split(",")) if pair is not None else None,
        "positive": positive,
        "pilot_reader": reader,
    }


LabelFile = Annotated[
    str,
    typer.Argument(
        help="Label file (.csv, .tsv, .parquet, .jsonl), or a quoted glob of CSV or "
        "Parquet files ('data/*.parquet', counted by DuckDB).",
        show_default=False,
    ),
]
OptionalLabelFile = Annotated[
    str | None,
    typer.Argument(
        help="Label file (.csv, .tsv, .parquet, .jsonl), or a quoted glob of CSV or "
        "Parquet files ('data/*.parquet', counted by DuckDB).",
        show_default=False,
    ),
]
Layout = Annotated[str, reader_option("layout")]
ItemCol = Annotated[str, reader_option("item_col")]
AnnotatorCol = Annotated[str, reader_option("annotator_col")]
LabelCol = Annotated[str, reader_option("label_col")]
AnnotatorCols = Annotated[
    str | None,
    reader_option(
        "annotator_cols", also=f"({OLD_ANNOTATOR_COLS} a,b,c, the old spelling, still works.)"
    ),
]


def deprecated_annotator_cols(flag: str = OLD_ANNOTATOR_COLS) -> Any:
    """The hidden ``typer.Option`` of an old spelling of ``--annotator-cols``."""
    return typer.Option(flag, hidden=True, help="Old spelling of --annotator-cols.")


OldAnnotatorCols = Annotated[str | None, deprecated_annotator_cols()]
FileFormat = Annotated[str | None, reader_option("file_format")]
Missing = Annotated[str | None, reader_option("missing")]
Engine = Annotated[str, reader_option("engine")]
MemoryLimit = Annotated[str | None, reader_option("memory_limit")]
TempDir = Annotated[str | None, reader_option("temp_dir")]
SparkMaster = Annotated[str | None, reader_option("spark_master", flag="--spark-master")]

REPEATS = ("keep", "refuse")
Repeats = Annotated[
    str | None,
    typer.Option(
        help="Ratings of one item by one annotator given more than once: keep (each counts, "
        "as in Dawid & Skene's data; read by the pandas engine) or refuse (different labels "
        "for one item and annotator are an error, identical ones count once). Default keep; "
        "refuse with --engine duckdb or a glob of files.",
        rich_help_panel=_INPUT,
        show_default=False,
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", metavar="", help="Show no progress bar on stderr.")]

Seed = Annotated[
    int | None, typer.Option(help="Seed for the bootstrap; drawn and printed if not given.")
]
JsonFlag = Annotated[
    bool, typer.Option("--json", metavar="", help="Print one JSON document instead of tables.")
]


def read_options(
    *,
    layout: str = "auto",
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    annotator_cols: str | None = None,
    old_annotator_cols: str | None = None,
    file_format: str | None = None,
    missing: str | None = None,
    by: str | None = None,
    order: str | None = None,
) -> ReaderSettings:
    """The reader options as the command line gives them (comma-separated lists).

    ``old_annotator_cols`` is ``--annotators a,b,c``, the old spelling of
    ``--annotator-cols``: accepted, with a note (:func:`annotator_columns`).
    """
    from planner.data.reader_settings import ReaderSettings

    columns = annotator_columns(annotator_cols, old_annotator_cols)
    return ReaderSettings(
        layout=layout,
        item_col=item_col,
        annotator_col=annotator_col,
        label_col=label_col,
        annotator_cols=tuple(columns.split(",")) if columns else None,
        by=(by,) if by else (),
        order=tuple(order.split(",")) if order else None,
        file_format=file_format,
        missing=tuple(missing.split(",")) if missing else (),
    )


def annotator_columns(
    given: str | None, old: str | None, old_flag: str = OLD_ANNOTATOR_COLS
) -> str | None:
    """``--annotator-cols``, or its old spelling ``old_flag`` with a one-line note."""
    from planner.cli.common import note_on_success
    from planner.errors import InvalidInput

    if old is None:
        return given
    if given is not None:
        raise InvalidInput(
            f"{old_flag} is the old spelling of --annotator-cols: give the columns once"
        )
    note_on_success(f"{old_flag} {old} is now --annotator-cols {old}; the old spelling will go")
    return old


def reader_error(exc: Exception, flags: dict[str, str] = READER_FLAGS) -> Exception:
    """A reader's refusal with its settings named as ``flags`` (a hint that runs as given)."""
    from planner.cli.common import flag_for
    from planner.data.layout import LayoutUnclear, RoleConflict
    from planner.errors import InvalidInput

    if isinstance(exc, LayoutUnclear):
        return InvalidInput(exc.message(lambda name, value: _flag_setting(flags, name, value)))
    if isinstance(exc, RoleConflict):
        return InvalidInput(exc.message(lambda name: flags.get(name) or flag_for(name) or name))
    return exc


@contextmanager
def reader_flags_named() -> Iterator[None]:
    """A label file's refusal (its layout, a column given two roles) raised inside names
    the reader's settings as flags (:func:`reader_error`)."""
    from planner.data.layout import LayoutUnclear, RoleConflict

    try:
        yield
    except (LayoutUnclear, RoleConflict) as exc:
        raise reader_error(exc) from None


def scenario_reader_error(exc: Exception) -> Exception:
    """A scenario pilot file's refusal with its settings named as ``[model]`` keys."""
    from planner.data.scenario import pilot_error_by_keys

    return pilot_error_by_keys(exc, "model")


def _flag_setting(flags: dict[str, str], name: str, value: Any) -> str:
    shown = ",".join(value) if isinstance(value, tuple | list) else str(value)
    return f"{flags.get(name, name)} {shown}"


def read_ratings(
    file: str,
    options: ReaderSettings,
    *,
    engine: str = "auto",
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    repeats: str = "refuse",
    spark_master: str | None = None,
    flags: dict[str, str] = READER_FLAGS,
) -> tuple[Ratings, str]:
    """The ratings of ``file`` and the engine that read them (``"pandas"`` or ``"duckdb"``).

    :func:`planner.data.engine_duckdb.read_with_engine` with the options as flags give them
    (``flags``: the flag of each reader setting in its refusals); ``--engine auto`` says on
    stderr when it chooses DuckDB.
    """
    from planner.cli.common import note
    from planner.data.engine_duckdb import read_with_engine
    from planner.data.layout import LayoutUnclear, RoleConflict

    try:
        ratings, chosen, why = read_with_engine(
            file,
            options,
            engine=engine,
            memory_limit=memory_limit,
            temp_dir=temp_dir,
            repeats=repeats,
            spark_master=spark_master,
        )
    except (LayoutUnclear, RoleConflict) as exc:
        raise reader_error(exc, flags) from None
    if engine == "auto" and chosen == "duckdb":
        note(why)
    return ratings, chosen
