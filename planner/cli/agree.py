"""The ``agree`` command: measure agreement on a label file (registered in cli.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli.common import (
    emit_json,
    flag_message,
    json_document,
    parse_ints,
    seed_or_draw,
)
from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.data.labels import Ratings

# measure_agreement's notes that start with one of its parameters, which the CLI names as flags
_NOTE_PARAMETERS = (
    "kappa_method",
    "weights",
    "alpha_min",
    "cohen_marginals",
    "weighted_kappa_method",
)

AGREE_EPILOG = """
Examples:

  planner agree labels.csv --positive unsupported

  planner agree labels.parquet --item-col doc --annotator-col rater --label-col verdict

  planner agree wide.csv --layout wide --annotators alice,bob,carol --by week --json

  planner agree --counts 6,21,14,459 --contested contested.csv

  planner agree scores.tsv --level ordinal --order low,medium,high
"""


AGREE_HELP = (
    "Measure agreement on a label file: coefficients with intervals, a decision against "
    "thresholds fixed in advance, and diagnostics.\n\n"
    "Reads CSV, TSV, Parquet or JSON Lines, long (item, annotator, label) or wide (one "
    "column per annotator), missing ratings allowed; or a 2x2 table by --counts. Reports "
    "PSA/NSA (with a positive label), observed agreement, Cohen's kappa (two annotators; "
    "with its test of kappa = 0), Conger's kappa (three or more), "
    "Fleiss' kappa, Krippendorff's alpha, Gwet's AC1/AC2, Brennan-Prediger, specific "
    "agreement per category, prevalence and Byrt's indices."
)


def agree_command(
    file: Annotated[
        str | None,
        typer.Argument(help="Label file (.csv, .tsv, .parquet, .jsonl).", show_default=False),
    ] = None,
    counts: Annotated[
        str | None,
        typer.Option(
            help="Instead of a file: a 2x2 table 'both,a_only,b_only,neither'.",
            rich_help_panel="Input",
        ),
    ] = None,
    layout: Annotated[
        str,
        typer.Option(
            help="long, wide or auto: long when the item, annotator and label columns "
            "exist, wide when no column looks like one and the others share their labels; "
            "otherwise the file is refused with the options to set.",
            rich_help_panel="Input",
        ),
    ] = "auto",
    item_col: Annotated[
        str, typer.Option(help="Item id column.", rich_help_panel="Input")
    ] = "item",
    annotator_col: Annotated[
        str, typer.Option(help="Annotator column (long layout).", rich_help_panel="Input")
    ] = "annotator",
    label_col: Annotated[
        str, typer.Option(help="Label column (long layout).", rich_help_panel="Input")
    ] = "label",
    annotators: Annotated[
        str | None,
        typer.Option(
            help="Wide layout: comma-separated annotator columns (default: "
            "all but the item and --by columns).",
            rich_help_panel="Input",
        ),
    ] = None,
    file_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="csv, tsv, parquet or jsonl (default: from the file suffix).",
            rich_help_panel="Input",
        ),
    ] = None,
    missing: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated label strings that mean no rating (e.g. NA,n/a); "
            "otherwise only empty cells and nulls are missing, and NA, None, null are labels.",
            rich_help_panel="Input",
        ),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            help="The positive label, for PSA/NSA, prevalence and the "
            "decision (0/1 and false/true labels need none).",
            rich_help_panel="Measures",
        ),
    ] = None,
    level: Annotated[
        str, typer.Option(help="nominal, ordinal, interval or ratio.", rich_help_panel="Measures")
    ] = "nominal",
    weights: Annotated[
        str | None,
        typer.Option(
            help="Agreement weights for ordinal/interval/ratio levels: quadratic (default) "
            "or linear.",
            rich_help_panel="Measures",
            show_default=False,
        ),
    ] = None,
    order: Annotated[
        str | None,
        typer.Option(
            help="Category order for ordinal text labels, lowest first, comma-separated.",
            rich_help_panel="Measures",
        ),
    ] = None,
    confidence: Annotated[
        float,
        typer.Option(
            help="Confidence level of every interval, in (0, 1).", rich_help_panel="Measures"
        ),
    ] = 0.95,
    bootstrap: Annotated[
        bool,
        typer.Option(
            "--bootstrap",
            metavar="",
            help="Use the item bootstrap for every interval.",
            rich_help_panel="Measures",
        ),
    ] = False,
    n_boot: Annotated[
        int,
        typer.Option(help="Bootstrap resamples, 100 to 100,000.", rich_help_panel="Measures"),
    ] = 1000,
    kappa_method: Annotated[
        str | None,
        typer.Option(
            help="Cohen's kappa interval: score (binary default; Cohen's kappa, bias allowed), "
            "gof (intraclass kappa), fce, bootstrap.",
            rich_help_panel="Measures",
        ),
    ] = None,
    cohen_marginals: Annotated[
        str | None,
        typer.Option(
            help="Cohen's kappa when some items have one rating of the two: complete (the "
            "items both annotators rated, Cohen 1960) or gwet (every rating of each "
            "annotator for the marginals, as irrCAC; Gwet-variance t interval). "
            "Default complete.",
            rich_help_panel="Measures",
            show_default=False,
        ),
    ] = None,
    weighted_kappa_method: Annotated[
        str | None,
        typer.Option(
            help="Weighted Cohen's kappa interval (ordinal/interval/ratio, two annotators): "
            "bootstrap (default), or wald with the Fleiss-Cohen-Everitt (1969) SE.",
            rich_help_panel="Measures",
            show_default=False,
        ),
    ] = None,
    alpha_min: Annotated[
        float | None,
        typer.Option(
            help="Report P(alpha < alpha_min) from the bootstrap; in [-1, 1], default 0.8.",
            rich_help_panel="Measures",
            show_default=False,
        ),
    ] = None,
    decide_on: Annotated[
        str | None,
        typer.Option(
            help="Coefficient the decision reads (default psa with a "
            "positive label, else krippendorff_alpha).",
            rich_help_panel="Decision",
        ),
    ] = None,
    not_demonstrated_below: Annotated[
        float,
        typer.Option(
            help="Upper interval limit below this: not demonstrated.", rich_help_panel="Decision"
        ),
    ] = 0.40,
    demonstrated_at: Annotated[
        float,
        typer.Option(
            help="Lower interval limit at or above this: demonstrated.", rich_help_panel="Decision"
        ),
    ] = 0.65,
    by: Annotated[
        str | None,
        typer.Option(
            help="Grouping column: agreement per group (week, stratum, length bucket).",
            rich_help_panel="Diagnostics",
        ),
    ] = None,
    contested: Annotated[
        str | None,
        typer.Option(
            help="Write the contested items (ratings differ) to this CSV: a new file (--force "
            "replaces an existing one), never the input file, a folder, a device or a link.",
            rich_help_panel="Diagnostics",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            metavar="",
            help="Replace an existing --contested file.",
            rich_help_panel="Diagnostics",
        ),
    ] = False,
    seed: Annotated[
        int | None, typer.Option(help="Seed for the bootstrap; drawn and printed if not given.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", metavar="", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    from planner.data.labels import ratings_from_counts
    from planner.data.reading import read_labels
    from planner.measuring.diagnostics import contested_rows
    from planner.measuring.measure import measure_agreement

    if (file is None) == (counts is None):
        raise InvalidInput("give a label FILE or --counts both,a_only,b_only,neither (one of them)")
    if contested is not None:  # before any work: never the input, never a clobber
        from planner.output.safe_output import check_new_file

        check_new_file(contested, name="--contested", force=force, inputs=[file] if file else [])
    if counts is not None:
        cells = parse_ints(counts, "--counts")
        if len(cells) != 4:
            raise InvalidInput(
                f"--counts takes four numbers both,a_only,b_only,neither; got {counts!r}"
            )
        ratings = ratings_from_counts(*cells)
    else:
        assert file is not None  # exactly one of FILE and --counts, checked above
        ratings = read_labels(
            file,
            layout=layout,
            item_col=item_col,
            annotator_col=annotator_col,
            label_col=label_col,
            annotator_cols=annotators.split(",") if annotators else None,
            by=(by,) if by else (),
            order=order.split(",") if order else None,
            file_format=file_format,
            missing=tuple(missing.split(",")) if missing else (),
        )
    report = measure_agreement(
        ratings,
        positive=positive,
        level=level,
        confidence_level=confidence,
        bootstrap=bootstrap,
        n_boot=n_boot,
        alpha_min=alpha_min,
        decide_on=decide_on,
        not_demonstrated_below=not_demonstrated_below,
        demonstrated_at=demonstrated_at,
        kappa_method=kappa_method,
        weights=weights,
        by=by,
        seed=seed_or_draw(seed),
        cohen_marginals=cohen_marginals,
        weighted_kappa_method=weighted_kappa_method,
    )
    unused = _unused_options(
        counts=counts is not None,
        contested=contested is not None,
        force=force,
        reader={
            "--layout": layout != "auto",
            "--item-col": item_col != "item",
            "--annotator-col": annotator_col != "annotator",
            "--label-col": label_col != "label",
            "--annotators": annotators is not None,
            "--format": file_format is not None,
            "--missing": missing is not None,
            "--order": order is not None,
        },
    )
    notes = _flagged_notes(report.notes, ratings, order, level) + unused
    report = replace(report, notes=notes)
    if contested is not None:
        from planner.output.safe_output import write_csv_atomically

        header, rows = contested_rows(ratings)
        write_csv_atomically(contested, header, rows)
    if json_output:
        doc = report.to_dict()
        doc["input"] = json_document(ratings.input)
        for note in ratings.notes:  # how the input was read, also when stdout is JSON
            typer.echo(f"note: {note}", err=True)
        doc["contested_file"] = contested
        emit_json(doc)
        return
    from rich.console import Console

    from planner.output.render import render_agreement

    console = Console(markup=False)  # labels and names from files are text, never markup
    render_agreement(report, console)
    if contested is not None:
        console.print(f"contested items written to {contested}")


def _unused_options(
    *, counts: bool, contested: bool, force: bool, reader: dict[str, bool]
) -> list[str]:
    """One note per option given where it has no effect."""
    notes = []
    if force and not contested:
        notes.append("--force has no effect without --contested (it replaces that file)")
    if counts:
        given = [flag for flag, on in reader.items() if on]
        if given:
            notes.append(f"{', '.join(given)}: options for label files, no effect with --counts")
    return notes


def _flagged_notes(notes: list[str], ratings: Ratings, order: str | None, level: str) -> list[str]:
    """The report's notes with parameters named as flags, and what ``--order`` did."""
    out = []
    for note in notes:
        name = note.split(" ", 1)[0]
        out.append(
            flag_message(InvalidInput(note, parameter=name)) if name in _NOTE_PARAMETERS else note
        )
    if order and level != "ordinal":
        out.append(f"--order has no effect at --level {level}: it ranks labels for ordinal only")
    elif order and ratings.categories.dtype.kind in "iuf":
        out.append("--order ranks these numeric labels as listed, not by their values")
    return out
