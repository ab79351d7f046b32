"""Tables of a named team's schedule: finish dates, deadline odds, cost, who does what."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from planner.output.render import quantity_table
from planner.output.words import PERSON_HOURS_MEANING


def _finish(team: Any) -> tuple[str, str]:
    if team.finish_dates is not None:
        dates = team.finish_dates
        return dates["p50"], f"median; p10 {dates['p10']}, p90 {dates['p90']}"
    days = team.finish_days
    return (
        f"{days['p50']:g} days",
        f"median calendar days; p10 {days['p10']:g}, p90 {days['p90']:g}",
    )


def _summary(result: Any) -> Table:
    op, team = result.operation, result.team
    people = len(team.annotators)
    table = quantity_table(f"Schedule: {result.runs} simulated runs, person by person")
    table.add_row(
        "items",
        f"{sum(op.items_per_stratum):,}",
        f"{op.labels_per_item} of {people} annotators each ({team.assignment})",
    )
    if team.start is not None:
        table.add_row("start", team.start.isoformat(), "the first calendar day")
    value, note = _finish(team)
    table.add_row(Text("finish", style="bold"), Text(value, style="bold"), note)
    if team.p_deadline is not None:
        table.add_row(
            "P(finish by deadline)",
            f"{team.p_deadline:.0%}",
            f"share of runs finished by {team.deadline.isoformat()}",
        )
    table.add_row(
        "person-hours",
        f"{result.person_hours_median:,.1f}",
        f"{PERSON_HOURS_MEANING}; median, 90th percentile {result.person_hours_p90:,.1f}",
    )
    if team.cost_median is not None:
        table.add_row(
            "cost",
            f"{team.cost_median:,.0f}",
            f"median, each person at their rate; 90th percentile {team.cost_p90:,.0f}",
        )
    table.add_row(
        "bottleneck",
        team.bottleneck,
        f"finished the last task in {team.bottleneck_share:.0%} of runs",
    )
    if people > 1 and op.labels_per_item > 1:
        table.add_row(
            "items shared by every pair",
            f"{team.min_shared_reached:,}",
            f"fewest over pairs and runs (asked {team.min_shared_items:,})",
        )
    return table


def _people(team: Any) -> Table:
    table = Table(
        title="Who does what (means over runs; hours: the person's working hours)",
        title_justify="left",
        header_style="bold",
    )
    for name in ("name", "role", "items", "labels", "hours", "utilisation", "cost"):
        table.add_column(name, justify="left" if name in ("name", "role") else "right")
    for row in (*team.annotators, *team.adjudicators):
        util = "" if not math.isfinite(row.utilisation) else f"{row.utilisation:.0%}"
        cost = "" if row.cost is None else f"{row.cost:,.0f}"
        table.add_row(
            row.name,
            row.role,
            f"{row.items:,.0f}",
            f"{row.labels:,.0f}",
            f"{row.hours:,.1f}",
            util,
            cost,
        )
    return table


def render_team_schedule(result: Any, console: Console) -> None:
    """Print a named team's schedule: the summary, then each person's share."""
    console.print(_summary(result))
    console.print(_people(result.team))
    console.print(f"seed {result.seed}", style="dim")
