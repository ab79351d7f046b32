"""The ``fit`` command: a Dawid & Skene latent-class fit of a label file (3+ annotators)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from planner.cli.common import emit_json, note, progress_bar, seed_or_draw
from planner.cli.options import (
    AnnotatorCol,
    AnnotatorCols,
    Engine,
    FileFormat,
    ItemCol,
    JsonFlag,
    LabelCol,
    LabelFile,
    Layout,
    MemoryLimit,
    Missing,
    OldAnnotatorCols,
    Quiet,
    Repeats,
    Seed,
    TempDir,
    read_options,
    read_ratings,
)
from planner.errors import InvalidInput

FIT_HELP = (
    "Fit each annotator's confusion matrix and the class prevalences without a gold "
    "standard: the Dawid & Skene (1979) latent-class model, fitted by EM from the items' "
    "vote shares, with item-bootstrap intervals.\n\n"
    "Needs three or more annotators (with two the error rates are not identifiable). For "
    "two categories also prints each annotator's sensitivity, specificity, error rate and "
    "bias as plan's --error-rate and --bias mean them. Assumes the annotators err "
    "independently given the truth: when the same items are hard for everybody the fit "
    "overstates their accuracy."
)

FIT_EPILOG = """
Examples:

  planner fit pilot.csv --positive 1

  planner fit labels.parquet --item-col doc --annotator-col rater --label-col verdict --json

  planner fit wide.csv --layout wide --n-boot 1000 --seed 7

  planner fit anesthesia.csv --item-col patient --annotator-col observer --label-col rating
"""


def fit_command(
    file: LabelFile,
    layout: Layout = "auto",
    item_col: ItemCol = "item",
    annotator_col: AnnotatorCol = "annotator",
    label_col: LabelCol = "label",
    annotator_cols: AnnotatorCols = None,
    annotators: OldAnnotatorCols = None,
    file_format: FileFormat = None,
    missing: Missing = None,
    repeats: Repeats = None,
    engine: Engine = "auto",
    memory_limit: MemoryLimit = None,
    temp_dir: TempDir = None,
    positive: Annotated[
        str | None,
        typer.Option(
            help="Two categories: the positive label, for sensitivity, specificity, error "
            "rate and bias (0/1 and false/true labels need none).",
            rich_help_panel="Fit",
        ),
    ] = None,
    n_boot: Annotated[
        int | None,
        typer.Option(
            help="Bootstrap refits for the intervals: 0 (none) or 100 to 100,000; default "
            "200 (--bootstrap N, the old spelling, still works).",
            rich_help_panel="Fit",
        ),
    ] = None,
    old_n_boot: Annotated[
        int | None,
        typer.Option("--bootstrap", hidden=True, help="Old spelling of --n-boot."),
    ] = None,
    max_iter: Annotated[
        int,
        typer.Option(
            help="EM iterations allowed; a fit that has not converged by then is an error.",
            rich_help_panel="Fit",
        ),
    ] = 1000,
    confidence: Annotated[
        float,
        typer.Option(help="Confidence level of the intervals, in (0, 1).", rich_help_panel="Fit"),
    ] = 0.95,
    seed: Seed = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
) -> None:
    from planner.statistics.dawid_skene import fit_latent_classes
    from planner.statistics.dawid_skene_settings import LatentClassSettings

    options = read_options(
        layout=layout,
        item_col=item_col,
        annotator_col=annotator_col,
        label_col=label_col,
        annotator_cols=annotator_cols,
        old_annotator_cols=annotators,
        file_format=file_format,
        missing=missing,
    )
    ratings, _ = read_ratings(
        file,
        options,
        engine=engine,
        memory_limit=memory_limit,
        temp_dir=temp_dir,
        repeats=repeats or _default_repeats(file, engine),
    )
    n_boot, renamed = _refits(n_boot, old_n_boot)
    drawn = seed is None
    used_seed = seed_or_draw(seed)
    with progress_bar("bootstrap refits", disabled=json_output or quiet) as progress:
        fit = fit_latent_classes(
            ratings,
            LatentClassSettings(n_boot=n_boot, confidence_level=confidence, max_iter=max_iter),
            rng=used_seed,
            progress=progress,
        )
    rates, rates_note = _binary(fit, positive)
    notes = [*renamed, *ratings.notes, *([rates_note] if rates_note else [])]
    if drawn and n_boot:
        notes.append(f"bootstrap seed {used_seed} (give --seed {used_seed} to repeat)")
    if json_output:
        for message in notes:
            note(message)
        emit_json(fit_json(fit, rates, ratings, notes))
        return
    from planner.output.fit_render import render_fit
    from planner.output.render import TerminalConsole as Console

    render_fit(fit, rates, Console(markup=False), source=str(ratings.source), notes=notes)


def _default_repeats(file: str, engine: str) -> str:
    """``keep`` where pandas reads the file; ``refuse`` for DuckDB and for a glob of files."""
    from planner.data.engine_duckdb import expand

    if engine == "duckdb" or (engine == "auto" and expand(file) != [file]):
        return "refuse"
    return "keep"


def _refits(n_boot: int | None, old: int | None) -> tuple[int, list[str]]:
    """The bootstrap refits, from ``--n-boot`` or its old spelling ``--bootstrap`` (with a
    note); the default's one definition is the settings field."""
    from planner.statistics.dawid_skene_settings import LatentClassSettings

    if old is None:
        return (LatentClassSettings.n_boot if n_boot is None else n_boot), []
    if n_boot is not None and n_boot != old:
        raise InvalidInput("give --n-boot once (--bootstrap is its old spelling)")
    return old, ["--bootstrap is deprecated in fit: use --n-boot (the count agree also takes)"]


def _binary(fit: Any, positive: str | None) -> tuple[Any, str | None]:
    """Binary rates when they apply, else None and why (a note), or raise on a bad --positive."""
    if fit.n_categories != 2:
        if positive is not None:
            return None, f"--positive has no effect with {fit.n_categories} categories"
        return None, None
    try:
        return fit.binary(positive), None
    except InvalidInput:
        if positive is not None:
            raise
        return None, "give --positive to see sensitivity, specificity, error rate and bias"


def fit_json(fit: Any, rates: Any, ratings: Any, notes: list[str]) -> dict[str, Any]:
    """The one JSON document of ``planner fit``."""
    from planner.output.jsonout import fit_document

    return fit_document(fit, rates, notes=notes, source=str(ratings.source), input=ratings.input)
