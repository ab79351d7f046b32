"""The ``schedule`` command: simulate the labelling operation (registered in cli/commands.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from planner.cli.common import (
    emit_json,
    parse_ints,
    progress_bar,
    seed_or_draw,
)

SCHEDULE_HELP = (
    "Simulate the labelling operation (SimPy): calendar days, person-hours, utilisation and "
    "cost for a team, over many runs.\n\n"
    "Items come from planning the scenario (or the model options, as for plan), or from "
    "--items. Team settings come from the scenario's \\[team] table, overridden here."
)


SCHEDULE_EPILOG = """
Examples:

  planner schedule unsupported-claims

  planner schedule --items 2000 --annotators 5 --hours-per-day 4 --adjudication-seconds 120

  planner schedule clinical-chart-review --design enriched --json
"""


def schedule_command(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (TOML).", show_default=False)
    ] = None,
    items: Annotated[
        int | None, typer.Option(help="Items to label (instead of planning them).")
    ] = None,
    design: Annotated[
        str | None,
        typer.Option(
            help="For stratified scenarios: uniform, enriched or weighted. Default weighted.",
            show_default=False,
        ),
    ] = None,
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
        bool, typer.Option("--json", metavar="", help="Print one JSON document instead of tables.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", metavar="", help="Show no progress bar on stderr.")
    ] = False,
) -> None:
    from planner.sizing.plan_options import PlanOptions, run_schedule

    cli = PlanOptions(
        prevalence=prevalence,
        pilot_counts=parse_ints(pilot_counts, "--pilot-counts") if pilot_counts else None,
        width=width,
        assurance=assurance,
        annotators_per_item=annotators_per_item,
        seconds_per_item=seconds_per_item,
        adjudication_seconds=adjudication_seconds,
        hourly_rate=hourly_rate,
        contested_rate=contested_rate,
        seed=seed,
    )
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
    with progress_bar("simulating runs", disabled=json_output or quiet) as progress:
        _, result = run_schedule(
            scenario, cli, team, seed_or_draw, items=items, design=design, progress=progress
        )
    for note in result.notes:
        typer.secho(f"note: {note}", fg="yellow", err=True)
    if json_output:
        from planner.output.jsonout import schedule_document

        emit_json(schedule_document(result))
        return
    from planner.output.render import TerminalConsole as Console
    from planner.output.render import render_schedule

    render_schedule(result, Console(markup=False))
