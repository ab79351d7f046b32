"""The ``report`` command: write reports of scenarios (registered in cli.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from planner.cli.options import Quiet
from planner.cli.report_in_progress import (
    BUDGET_HELP,
    HOURS_HELP,
    LABELLED_HELP,
    PAIR_HELP,
    PANEL,
    POSITIVE_HELP,
    STRATUM_HELP,
    in_progress_options,
    labelled_reader_option,
    report_in_progress,
)

REPORT_HELP = (
    "Write a report of each scenario to reports/NAME/: Markdown and a self-contained HTML "
    "page with a headline recommendation (items, person-hours, calendar days and the decision "
    "rule fixed in advance from the scenario's thresholds), the assumptions, the plan, the "
    "design comparison, the budget, the schedule and figures. The same --seed gives the same "
    "report, byte for byte. Every output location is checked before any work. An existing "
    "report is replaced only with --force, and only when it is a report planner wrote (its "
    ".planner-report marker) holding no other file. With --labelled FILE: the report of a "
    "study in progress, in reports/NAME-in-progress/ (the up-front report stays)."
)


REPORT_EPILOG = """
Examples:

  planner report unsupported-claims --labelled examples/labelled-600.csv

  planner report unsupported-claims-enriched --stratum-col stratum --labelled
    examples/stratified-labels.csv --positive unsupported

  planner report unsupported-claims

  planner report unsupported-claims --seed 20261130 --out /tmp/reports

  planner report unsupported-claims unsupported-claims-enriched --force
"""


def report_command(
    scenarios: Annotated[list[str], typer.Argument(help="Scenario files (TOML).")],
    out: Annotated[str, typer.Option(help="Folder that holds the reports.")] = "reports",
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            metavar="",
            help="Replace existing reports that planner wrote (never other folders or files).",
        ),
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the plan, the schedule and the figures' simulated studies; default "
            "the scenario's simulation.seed, else drawn and printed."
        ),
    ] = None,
    quiet: Quiet = False,
    labelled: Annotated[str | None, typer.Option(help=LABELLED_HELP, rich_help_panel=PANEL)] = None,
    stratum_col: Annotated[
        str | None, typer.Option(help=STRATUM_HELP, rich_help_panel=PANEL)
    ] = None,
    pair: Annotated[str | None, typer.Option(help=PAIR_HELP, rich_help_panel=PANEL)] = None,
    positive: Annotated[str | None, typer.Option(help=POSITIVE_HELP, rich_help_panel=PANEL)] = None,
    hours: Annotated[float | None, typer.Option(help=HOURS_HELP, rich_help_panel=PANEL)] = None,
    budget: Annotated[float | None, typer.Option(help=BUDGET_HELP, rich_help_panel=PANEL)] = None,
    layout: Annotated[str | None, labelled_reader_option("layout")] = None,
    item_col: Annotated[str | None, labelled_reader_option("item_col")] = None,
    annotator_col: Annotated[str | None, labelled_reader_option("annotator_col")] = None,
    label_col: Annotated[str | None, labelled_reader_option("label_col")] = None,
    annotator_cols: Annotated[str | None, labelled_reader_option("annotator_cols")] = None,
    file_format: Annotated[str | None, labelled_reader_option("file_format", "--format")] = None,
    missing: Annotated[str | None, labelled_reader_option("missing")] = None,
) -> None:
    if labelled is not None or in_progress_options(locals()):
        return report_in_progress(scenarios, locals())
    from planner.cli.common import progress_bar, seed_of
    from planner.cli.options import scenario_reader_error
    from planner.data.layout import LayoutUnclear, RoleConflict
    from planner.output.report import check_reports, write_report
    from planner.output.safe_output import interruptible, visible

    loaded = check_reports(scenarios, out, force=force)  # every location, before any work
    written: list[str] = []
    try:
        with interruptible(), progress_bar("writing reports", disabled=quiet) as progress:
            for path, scenario in zip(scenarios, loaded, strict=True):
                chosen = seed_of(seed, scenario)
                try:
                    folder = write_report(path, out, force=force, rng=chosen)
                except (LayoutUnclear, RoleConflict) as exc:  # a pilot file: name its keys
                    raise scenario_reader_error(exc) from None
                written.append(str(folder))
                shown = visible(folder)
                typer.echo(f"wrote {shown}/report.md and {shown}/report.html (seed {chosen})")
                progress(len(written), len(scenarios))
    except KeyboardInterrupt as exc:
        interrupted(exc, written)


def interrupted(exc: KeyboardInterrupt, written: list[str]) -> None:
    """Exit 128 + the signal's number, as shells report it, naming the complete reports."""
    from planner.cli.common import fail
    from planner.output.safe_output import Terminated

    terminated = isinstance(exc, Terminated)
    how = "terminated (SIGTERM)" if terminated else "interrupted"
    done = f"; complete: {', '.join(written)}" if written else ""
    fail(f"{how}; no report was left half-written{done}", 143 if terminated else 130)
