"""The ``agree``, ``schedule`` and ``report`` commands (registered on the app in cli.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from planner.cli_common import (
    emit_json,
    json_document,
    parse_ints,
    seed_or_draw,
    write_csv_atomically,
)
from planner.errors import InvalidInput

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
    "PSA/NSA (with a positive label), observed agreement, Cohen's kappa (two annotators), "
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
            help="long, wide or auto (long when the item, annotator and label columns exist).",
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
        str,
        typer.Option(
            help="Agreement weights for ordinal/interval/ratio levels: quadratic or linear.",
            rich_help_panel="Measures",
        ),
    ] = "quadratic",
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
            help="Use the item bootstrap for every interval.",
            rich_help_panel="Measures",
        ),
    ] = False,
    n_boot: Annotated[
        int, typer.Option(help="Bootstrap resamples (>= 100).", rich_help_panel="Measures")
    ] = 1000,
    kappa_method: Annotated[
        str | None,
        typer.Option(
            help="Cohen's kappa interval: gof (binary default), fce, bootstrap.",
            rich_help_panel="Measures",
        ),
    ] = None,
    alpha_min: Annotated[
        float,
        typer.Option(
            help="Report P(alpha < alpha_min) from the bootstrap.", rich_help_panel="Measures"
        ),
    ] = 0.8,
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
            help="Write the contested items (ratings differ) to this CSV.",
            rich_help_panel="Diagnostics",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed for the bootstrap; drawn and printed if not given.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    from planner.diagnostics import contested_rows
    from planner.labels import ratings_from_counts, read_labels
    from planner.measure import measure_agreement

    if (file is None) == (counts is None):
        raise InvalidInput("give a label FILE or --counts both,a_only,b_only,neither (one of them)")
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
    )
    if contested:
        header, rows = contested_rows(ratings)
        write_csv_atomically(contested, header, rows)
    if json_output:
        doc = report.to_dict()
        doc["contested_file"] = contested
        emit_json(doc)
        return
    from rich.console import Console

    from planner.render import render_agreement

    console = Console()
    render_agreement(report, console)
    if contested:
        console.print(f"contested items written to {contested}")


SCHEDULE_HELP = (
    "Simulate the labelling operation (SimPy): calendar days, person-hours, utilisation and "
    "cost for a team, over many runs.\n\n"
    "Items come from planning the scenario (or the model options, as for plan), or from "
    "--items. Team settings come from the scenario's [team] table, overridden here."
)
SCHEDULE_EPILOG = """
Examples:

  planner schedule scenarios/unsupported-claims.toml

  planner schedule --items 2000 --annotators 5 --hours-per-day 4 --adjudication-seconds 120

  planner schedule scenarios/clinical-chart-review.toml --design enriched --json
"""


def schedule_command(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (TOML).", show_default=False)
    ] = None,
    items: Annotated[
        int | None, typer.Option(help="Items to label (instead of planning them).")
    ] = None,
    design: Annotated[
        str, typer.Option(help="For stratified scenarios: uniform, enriched or weighted.")
    ] = "weighted",
    prevalence: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    pilot_counts: Annotated[str | None, typer.Option(help="As for plan.")] = None,
    width: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    assurance: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    annotators_per_item: Annotated[
        int | None, typer.Option(help="Distinct annotators per item. Default 2.")
    ] = None,
    seconds_per_item: Annotated[
        float | None, typer.Option(help="Mean seconds per label. Default 90.")
    ] = None,
    adjudication_seconds: Annotated[
        float | None, typer.Option(help="Mean seconds per adjudicated item. Default 0.")
    ] = None,
    contested_rate: Annotated[
        float | None, typer.Option(help="With --items: share of items adjudicated. Default 0.")
    ] = None,
    hourly_rate: Annotated[float | None, typer.Option(help="Cost of one person-hour.")] = None,
    annotators: Annotated[int | None, typer.Option(help="Team size. Default 5.")] = None,
    hours_per_day: Annotated[
        float | None, typer.Option(help="Shift hours per day. Default 8.")
    ] = None,
    days_per_week: Annotated[
        int | None, typer.Option(help="Working days a week. Default 5.")
    ] = None,
    time_spread: Annotated[
        float | None, typer.Option(help="Lognormal sigma of the time per label. Default 0.5.")
    ] = None,
    attention_check_share: Annotated[
        float | None, typer.Option(help="Extra attention-check items per label. Default 0.")
    ] = None,
    attention_fail_rate: Annotated[
        float | None, typer.Option(help="Chance of failing a check. Default 0.")
    ] = None,
    requalification_hours: Annotated[
        float | None, typer.Option(help="Hours out after a failed check. Default 0.")
    ] = None,
    adjudicators: Annotated[int | None, typer.Option(help="Adjudicators. Default 1.")] = None,
    runs: Annotated[int | None, typer.Option(help="Simulated runs. Default 200.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed; drawn and printed if not given.")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    from planner.request import run_schedule

    if contested_rate is not None and not 0 <= contested_rate <= 1:
        raise InvalidInput(f"--contested-rate must be in [0, 1], got {contested_rate}")
    cli = {
        "prevalence": prevalence,
        "pilot_counts": parse_ints(pilot_counts, "--pilot-counts") if pilot_counts else None,
        "width": width,
        "assurance": assurance,
        "annotators_per_item": annotators_per_item,
        "seconds_per_item": seconds_per_item,
        "adjudication_seconds": adjudication_seconds,
        "hourly_rate": hourly_rate,
        "contested_rate": contested_rate,
        "seed": seed,
    }
    team = {
        "annotators": annotators,
        "hours_per_day": hours_per_day,
        "days_per_week": days_per_week,
        "time_spread": time_spread,
        "attention_check_share": attention_check_share,
        "attention_fail_rate": attention_fail_rate,
        "requalification_hours": requalification_hours,
        "adjudicators": adjudicators,
        "runs": runs,
    }
    from rich.progress import Progress

    with Progress(transient=True, disable=json_output) as bar:
        task = bar.add_task("simulating runs", total=None)
        _, result = run_schedule(
            scenario,
            cli,
            team,
            seed_or_draw,
            items=items,
            design=design,
            progress=lambda done: bar.update(task, completed=done),
        )
    if json_output:
        emit_json(json_document(result.to_dict()))
        return
    from rich.console import Console

    from planner.render import render_schedule

    render_schedule(result, Console())


REPORT_HELP = (
    "Write a report of each scenario to reports/NAME/: Markdown and a self-contained HTML "
    "page with the assumptions, the plan, the design comparison, the budget, the schedule "
    "and figures. An existing report is replaced only with --force."
)
REPORT_EPILOG = """
Examples:

  planner report scenarios/unsupported-claims.toml

  planner report scenarios/*.toml --force
"""


def report_command(
    scenarios: Annotated[list[str], typer.Argument(help="Scenario files (TOML).")],
    out: Annotated[str, typer.Option(help="Folder that holds the reports.")] = "reports",
    force: Annotated[bool, typer.Option("--force", help="Replace existing reports.")] = False,
) -> None:
    from planner.report import write_report
    from planner.scenario import load_scenario

    if not force:  # refuse before doing any work
        from pathlib import Path

        for path in scenarios:
            dest = Path(out) / load_scenario(path).name
            if dest.exists():
                raise InvalidInput(f"{dest} exists; use --force to replace it")
    for path in scenarios:
        folder = write_report(path, out, force=force)
        typer.echo(f"wrote {folder}/report.md and {folder}/report.html")
