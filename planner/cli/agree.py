"""The ``agree`` command: measure agreement on a label file (registered in cli.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli.agree_stratified import (
    PopulationShares,
    PopulationSharesFrom,
    StratumCol,
    measure_population,
    shares_from_options,
)
from planner.cli.common import (
    emit_json,
    flag_message,
    note,
    parse_ints,
    progress_bar,
    seed_or_draw,
)
from planner.cli.options import (
    AnnotatorCol,
    AnnotatorCols,
    Engine,
    FileFormat,
    ItemCol,
    JsonFlag,
    LabelCol,
    Layout,
    MemoryLimit,
    Missing,
    OldAnnotatorCols,
    OptionalLabelFile,
    Quiet,
    Seed,
    SparkMaster,
    TempDir,
    read_options,
    read_ratings,
)
from planner.cli.vector_counts import (
    CategoryCounts,
    CountCol,
    VectorCounts,
    read_category_counts,
    read_vector_counts,
    unused_options,
)
from planner.errors import InvalidInput

if TYPE_CHECKING:
    from pathlib import Path

    from planner.data.labels import Ratings
    from planner.data.reader_settings import ReaderSettings
    from planner.measuring.measure import AgreementReport
    from planner.measuring.stratified import StratifiedReport

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

  planner agree wide.csv --layout wide --annotator-cols alice,bob,carol --by week --json

  planner agree --counts 6,21,14,459 --contested contested.csv

  planner agree --vector-counts examples/vector-counts.csv --by week

  planner agree scores.tsv --level ordinal --order low,medium,high

  planner agree 'big/*.parquet' --engine duckdb --memory-limit 1GB --temp-dir /tmp

  planner agree 's3a://lake/labels/*.parquet' --engine spark --spark-master spark://head:7077

  planner agree examples/stratified-labels.csv --positive unsupported --stratum-col stratum \\
    --population-shares-from unsupported-claims-enriched
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
    file: OptionalLabelFile = None,
    counts: Annotated[
        str | None,
        typer.Option(
            help="Instead of a file: a 2x2 table 'both,a_only,b_only,neither'.",
            rich_help_panel="Input",
        ),
    ] = None,
    vector_counts: VectorCounts = None,
    category_counts: CategoryCounts = None,
    count_col: CountCol = "count",
    layout: Layout = "auto",
    item_col: ItemCol = "item",
    annotator_col: AnnotatorCol = "annotator",
    label_col: LabelCol = "label",
    annotator_cols: AnnotatorCols = None,
    annotators: OldAnnotatorCols = None,
    file_format: FileFormat = None,
    missing: Missing = None,
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
            help="Cohen's kappa interval: profile (binary default; profile likelihood, bias "
            "allowed), score (plan's default), gof (intraclass kappa), fce, bootstrap. "
            "Example: --kappa-method score.",
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
            "replaces an existing one, keeping its mode), never an input file (any file a glob "
            "matches), a folder, a device or a link. Control characters are written as \\xNN "
            "and a text cell starting with = + - @ gets a leading ' (spreadsheet formulas).",
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
    stratum_col: StratumCol = None,
    population_shares: PopulationShares = None,
    population_shares_from: PopulationSharesFrom = None,
    engine: Engine = "auto",
    memory_limit: MemoryLimit = None,
    temp_dir: TempDir = None,
    spark_master: SparkMaster = None,
    seed: Seed = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
) -> None:
    from planner.measuring.category_counts import measure_category_counts
    from planner.measuring.measure import measure_agreement
    from planner.measuring.measure_settings import MeasureSettings

    _one_source(file, counts, vector_counts, category_counts, contested, engine)
    if contested is not None:  # before any work: never the input, never a clobber
        from planner.output.safe_output import check_new_file

        check_new_file(contested, name="--contested", force=force, inputs=[file] if file else [])
    shares = shares_from_options(stratum_col, population_shares, population_shares_from)
    if shares is not None and (counts or category_counts) is not None:
        flag = "--counts" if counts is not None else "--category-counts"
        raise InvalidInput(f"--stratum-col needs a label FILE with that column, not {flag}")
    options = read_options(
        layout=layout,
        item_col=item_col,
        annotator_col=annotator_col,
        label_col=label_col,
        annotator_cols=annotator_cols,
        old_annotator_cols=annotators,
        file_format=file_format,
        missing=missing,
        by=by,
        order=order,
    )
    stratum_by = stratum_col if stratum_col is not None and stratum_col not in options.by else None
    if stratum_by is not None:
        options = replace(options, by=(*options.by, stratum_by))
    source = _Source(
        file,
        counts,
        engine,
        memory_limit,
        temp_dir,
        vector_counts,
        count_col,
        category_counts,
        spark_master=spark_master,
        stratum_by=stratum_by,
    )
    ratings, chosen = _read(source, options)
    with progress_bar("measuring agreement", disabled=json_output or quiet) as progress:
        report = (measure_category_counts if category_counts else measure_agreement)(
            ratings,
            MeasureSettings(
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
                cohen_marginals=cohen_marginals,
                weighted_kappa_method=weighted_kappa_method,
            ),
            rng=seed_or_draw(seed),
            progress=progress,
        )
    stratified = None
    if stratum_col is not None and shares is not None:
        stratified = measure_population(
            ratings, stratum_col, shares, positive=report.positive, confidence=confidence,
            decide_on=decide_on, not_demonstrated_below=not_demonstrated_below,
            demonstrated_at=demonstrated_at,
        )  # fmt: skip
        report = replace(report, decision=None)  # the population's decision is stratified's
    unused = _unused_options(source, chosen, contested is not None, force, options)
    report = replace(report, notes=_flagged_notes(report.notes, ratings, order, level) + unused)
    if contested is not None:
        _write_contested(source, chosen, options, ratings, contested)
    _emit(report, ratings, chosen, contested, json_output, stratified)


@dataclass(frozen=True)
class _Source:
    """Where the ratings come from: a file (or glob) and the engine options, or --counts."""

    file: str | None
    counts: str | None
    engine: str
    memory_limit: str | None
    temp_dir: str | None
    vector_counts: str | None = None
    count_col: str = "count"
    category_counts: str | None = None
    spark_master: str | None = None
    #: the column ``--stratum-col`` added to ``by`` (its refusals name that flag)
    stratum_by: str | None = None


def _one_source(
    file: str | None,
    counts: str | None,
    vector_counts: str | None,
    category_counts: str | None,
    contested: str | None,
    engine: str,
) -> None:
    """Exactly one input; ``--contested`` refused where there are no items (vector or
    category counts) or where the items stay on the cluster (``--engine spark``)."""
    if contested is not None and engine == "spark":
        raise InvalidInput(
            "--contested needs each item's labels: --engine spark counts items into label "
            "vectors on the cluster; use --engine duckdb for the contested items"
        )
    if sum(x is not None for x in (file, counts, vector_counts, category_counts)) != 1:
        raise InvalidInput(
            "give a label FILE or --counts both,a_only,b_only,neither or --vector-counts "
            "FILE or --category-counts FILE (one of them)"
        )
    if (vector_counts or category_counts) is not None and contested is not None:
        flag = "--category-counts" if category_counts else "--vector-counts"
        raise InvalidInput(
            f"--contested needs item ids: a {flag} file holds label vectors or patterns "
            "and their counts, not items (give the label FILE instead)"
        )


def _read(source: _Source, options: ReaderSettings) -> tuple[Ratings, str]:
    """The ratings, and what read them (``counts`` for a 2x2 table, ``vector-counts``)."""
    if source.category_counts is not None:
        return read_category_counts(source.category_counts, options, source.count_col)
    if source.vector_counts is not None:
        return read_vector_counts(source.vector_counts, options, source.count_col)
    if source.counts is not None:
        from planner.data.labels import ratings_from_counts

        cells = parse_ints(source.counts, "--counts")
        if len(cells) != 4:
            raise InvalidInput(
                f"--counts takes four numbers both,a_only,b_only,neither; got {source.counts!r}"
            )
        return ratings_from_counts(*cells), "counts"
    assert source.file is not None  # exactly one of FILE and --counts, checked above
    return read_ratings(
        source.file,
        options,
        engine=source.engine,
        memory_limit=source.memory_limit,
        temp_dir=source.temp_dir,
        spark_master=source.spark_master,
        flags=_reader_flags(source, options),
    )


def _reader_flags(source: _Source, options: ReaderSettings) -> dict[str, str]:
    """The reader's flags, with the ``by`` column ``--stratum-col`` added named by it."""
    from planner.cli.options import READER_FLAGS

    added = source.stratum_by is not None and source.stratum_by in options.by
    return {**READER_FLAGS, "by": "--stratum-col"} if added else READER_FLAGS


def _write_contested(
    source: _Source, chosen: str, options: ReaderSettings, ratings: Ratings, contested: str
) -> None:
    """The contested items to their file: from SQL with DuckDB, else from the ratings."""
    from planner.measuring.diagnostics import WIDE_CONTESTED_ANNOTATORS, contested_rows
    from planner.output.safe_output import write_csv_atomically, write_csv_from

    if chosen == "duckdb":
        from planner.data.engine_duckdb import DEFAULT_MEMORY_LIMIT, copy_contested_items

        file = source.file
        assert file is not None

        def copy(raw: Path) -> None:
            copy_contested_items(
                file,
                raw,
                options,
                wide_annotators=WIDE_CONTESTED_ANNOTATORS,
                memory_limit=source.memory_limit or DEFAULT_MEMORY_LIMIT,
                temp_dir=source.temp_dir,
            )

        write_csv_from(contested, copy, inputs=[file])
        return

    header, rows = contested_rows(ratings)
    write_csv_atomically(contested, header, rows, inputs=[source.file] if source.file else [])


def _emit(
    report: AgreementReport,
    ratings: Ratings,
    chosen: str,
    contested: str | None,
    json_output: bool,
    stratified: StratifiedReport | None = None,
) -> None:
    """Print the report: one JSON document, or the tables (the population's after the
    sample's with ``--stratum-col``)."""
    if json_output:
        from planner.output.agreement_json import agreement_document
        from planner.output.jsonout import stratified_json

        for line in ratings.notes:  # how the input was read, also when stdout is JSON
            note(line)
        extra = {} if stratified is None else {"stratified": stratified_json(stratified)}
        doc = agreement_document(
            report, input=ratings.input, engine=chosen, contested_file=contested, **extra
        )
        emit_json(doc)
        return
    from planner.output.render import TerminalConsole, render_agreement

    console = TerminalConsole()  # labels and names from files are text, never markup
    render_agreement(report, console)
    if stratified is not None:
        from planner.output.render_stratified import render_stratified

        render_stratified(stratified, console)
    if contested is not None:
        console.print(f"contested items written to {contested}")


def _unused_options(
    source: _Source, chosen: str, contested: bool, force: bool, options: ReaderSettings
) -> list[str]:
    """One note per option given where it has no effect."""
    from planner.data.reader_settings import ReaderSettings

    notes = []
    if force and not contested:
        notes.append("--force has no effect without --contested (it replaces that file)")
    default = ReaderSettings()
    if source.vector_counts is not None or source.category_counts is not None:
        notes.extend(unused_options(options, source.engine, source.category_counts is not None))
    if source.counts is not None:
        reader = {
            "--layout": options.layout != default.layout,
            "--item-col": options.item_col != default.item_col,
            "--annotator-col": options.annotator_col != default.annotator_col,
            "--label-col": options.label_col != default.label_col,
            "--annotator-cols": options.annotator_cols is not None,
            "--format": options.file_format is not None,
            "--missing": bool(options.missing),
            "--order": options.order is not None,
            "--engine": source.engine != "auto",
        }
        given = [flag for flag, on in reader.items() if on]
        if given:
            notes.append(f"{', '.join(given)}: options for label files, no effect with --counts")
    if source.vector_counts is source.category_counts is None and source.count_col != "count":
        notes.append("--count-col has no effect without --vector-counts")
    if chosen != "duckdb":
        given = [
            flag
            for flag, value in (
                ("--memory-limit", source.memory_limit),
                ("--temp-dir", source.temp_dir),
            )
            if value is not None
        ]
        if given:
            notes.append(f"{', '.join(given)}: options of --engine duckdb, no effect here")
    if chosen != "spark" and source.spark_master is not None:
        notes.append("--spark-master: an option of --engine spark, no effect here")
    return notes


def _flagged_notes(notes: list[str], ratings: Ratings, order: str | None, level: str) -> list[str]:
    """The report's notes with parameters named as flags, and what ``--order`` did."""
    out = []
    for text in notes:
        name = text.split(" ", 1)[0]
        out.append(
            flag_message(InvalidInput(text, parameter=name)) if name in _NOTE_PARAMETERS else text
        )
    if order and level != "ordinal":
        out.append(f"--order has no effect at --level {level}: it ranks labels for ordinal only")
    elif order and ratings.categories.dtype.kind in "iuf":
        out.append("--order ranks these numeric labels as listed, not by their values")
    return out
