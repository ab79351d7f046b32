"""Options several commands share, as reusable ``Annotated`` types: reading a label file,
the bootstrap seed, ``--json``.

``agree`` declares the same options inline in its signature (not importable); ``fit`` uses
these, with the same names, help and defaults, and ``agree`` can switch to them.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

LabelFile = Annotated[
    str, typer.Argument(help="Label file (.csv, .tsv, .parquet, .jsonl).", show_default=False)
]
Layout = Annotated[
    str,
    typer.Option(
        help="long, wide or auto: long when the item, annotator and label columns "
        "exist, wide when no column looks like one and the others share their labels; "
        "otherwise the file is refused with the options to set.",
        rich_help_panel="Input",
    ),
]
ItemCol = Annotated[str, typer.Option(help="Item id column.", rich_help_panel="Input")]
AnnotatorCol = Annotated[
    str, typer.Option(help="Annotator column (long layout).", rich_help_panel="Input")
]
LabelCol = Annotated[str, typer.Option(help="Label column (long layout).", rich_help_panel="Input")]
AnnotatorCols = Annotated[
    str | None,
    typer.Option(
        "--annotators",
        help="Wide layout: comma-separated annotator columns (default: all but the item column).",
        rich_help_panel="Input",
    ),
]
FileFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="csv, tsv, parquet or jsonl (default: from the file suffix).",
        rich_help_panel="Input",
    ),
]
Missing = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated label strings that mean no rating (e.g. NA,n/a); "
        "otherwise only empty cells and nulls are missing, and NA, None, null are labels.",
        rich_help_panel="Input",
    ),
]

Seed = Annotated[
    int | None, typer.Option(help="Seed for the bootstrap; drawn and printed if not given.")
]
JsonFlag = Annotated[
    bool, typer.Option("--json", metavar="", help="Print one JSON document instead of tables.")
]


def read_label_file(
    file: str,
    *,
    layout: str,
    item_col: str,
    annotator_col: str,
    label_col: str,
    annotators: str | None,
    file_format: str | None,
    missing: str | None,
) -> Any:
    """:func:`planner.data.reading.read_labels` with the options as the command line gives them."""
    from planner.data.reading import read_labels

    return read_labels(
        file,
        layout=layout,
        item_col=item_col,
        annotator_col=annotator_col,
        label_col=label_col,
        annotator_cols=annotators.split(",") if annotators else None,
        file_format=file_format,
        missing=tuple(missing.split(",")) if missing else (),
    )
