"""``agree --vector-counts``: label vectors counted elsewhere, read as weighted ratings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from planner.data.labels import Ratings
    from planner.data.reader_settings import ReaderSettings

VectorCounts = Annotated[
    str | None,
    typer.Option(
        help="Instead of a label FILE: distinct label vectors counted elsewhere (CSV, TSV or "
        "Parquet): one column per annotator holding its label or empty, a count column "
        "(--count-col), optional --by/--stratum-col columns; every other column is an "
        "annotator unless --annotator-cols names them. Equals agree on the raw ratings; "
        "--contested needs item ids. Example: --vector-counts examples/vector-counts.csv.",
        rich_help_panel="Input",
        show_default=False,
    ),
]
CountCol = Annotated[
    str,
    typer.Option(
        help="With --vector-counts: the column holding each row's number of items, e.g. "
        "--count-col n_items.",
        rich_help_panel="Input",
    ),
]
#: the reader options a vector-count file has no use for (it has no item or long layout)
_LABEL_FILE_ONLY = ("layout", "item_col", "annotator_col", "label_col")


def read_vector_counts(path: str, options: ReaderSettings, count_col: str) -> tuple[Ratings, str]:
    """The weighted ratings of a vector-count file, and ``"vector-counts"`` (what read them)."""
    from dataclasses import replace

    from planner.cli.common import flag_message
    from planner.data.vector_counts import ratings_from_vector_counts
    from planner.errors import InvalidInput

    ratings = ratings_from_vector_counts(
        path,
        annotator_cols=list(options.annotator_cols) if options.annotator_cols else None,
        by=options.by,
        count_col=count_col,
        order=list(options.order) if options.order else None,
        missing=options.missing,
        file_format=options.file_format,
    )
    named = ("annotator_cols", "count_col")  # the reader's notes in flags
    notes = tuple(flag_message(InvalidInput(n, parameters=named)) for n in ratings.notes)
    return replace(ratings, notes=notes), "vector-counts"


def unused_options(options: ReaderSettings, engine: str, patterns: bool) -> list[str]:
    """One note naming the reader options that do nothing with a count file (``patterns``:
    ``--category-counts``, which has no annotator columns or missing labels either)."""
    from planner.data.reader_settings import ReaderSettings

    default = ReaderSettings()
    flags = {"layout": "--layout", "item_col": "--item-col", "annotator_col": "--annotator-col",
             "label_col": "--label-col"}  # fmt: skip
    given = [flags[n] for n in _LABEL_FILE_ONLY if getattr(options, n) != getattr(default, n)]
    if patterns:
        given += ["--annotator-cols"] if options.annotator_cols else []
        given += ["--missing"] if options.missing else []
    given += ["--engine"] if engine != "auto" else []
    if not given:
        return []
    flag = "--category-counts" if patterns else "--vector-counts"
    return [f"{', '.join(given)}: options for label files, no effect with {flag}"]


CategoryCounts = Annotated[
    str | None,
    typer.Option(
        help="Instead of a label FILE: per-item category-count patterns (CSV, TSV or "
        "Parquet; crowds too large for a column per annotator): one column per category "
        "holding how many annotators chose it, a count column (--count-col), optional --by "
        "columns. Gives Fleiss' kappa, Krippendorff's alpha, specific agreement and the other "
        "statistics of the counts; Cohen's and Conger's kappa and the per-annotator "
        "diagnostics need annotator identity and are left out. Example: --category-counts "
        "crowd-patterns.csv.",
        rich_help_panel="Input",
        show_default=False,
    ),
]


def read_category_counts(path: str, options: ReaderSettings, count_col: str) -> tuple[Ratings, str]:
    """The weighted ratings of a category-count file, and ``"category-counts"``."""
    from planner.data.vector_counts import ratings_from_category_counts

    ratings = ratings_from_category_counts(
        path,
        category_cols=None,
        by=options.by,
        count_col=count_col,
        order=list(options.order) if options.order else None,
        file_format=options.file_format,
    )
    return ratings, "category-counts"
