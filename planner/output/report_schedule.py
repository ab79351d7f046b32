"""The report's section on a named team: finish dates, the deadline, who does what, and the
per-annotator timeline figure (each person's working days up to the finish, with the median
and 90th-percentile finish marked). The burn-down band is the schedule section's figure."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

TIMELINE_FILE = "team_timeline.png"

Block = tuple[Any, ...]


def _finish_text(team: Any) -> str:
    if team.finish_dates is not None:
        d = team.finish_dates
        text = f"The team starts on {team.start} and finishes on {d['p50']} (median of the runs; "
        text += f"10th percentile {d['p10']}, 90th percentile {d['p90']})."
    else:
        d = team.finish_days
        text = f"The team finishes on calendar day {d['p50']:g} (median; 10th percentile "
        text += f"{d['p10']:g}, 90th percentile {d['p90']:g})."
    if team.p_deadline is not None:
        text += f" The chance of finishing by {team.deadline} is {team.p_deadline:.0%}."
    text += (
        f" Bottleneck: {team.bottleneck} finished the last task in {team.bottleneck_share:.0%} "
        f"of the runs. Assignment: {team.assignment}; every pair of annotators shares at least "
        f"{team.min_shared_reached:,} items (asked {team.min_shared_items:,})."
    )
    return text


def team_section(schedule: Any) -> list[Block]:
    """The named team's blocks (none for a uniform team)."""
    team = schedule.team
    if team is None:
        return []
    rows = []
    for row in (*team.annotators, *team.adjudicators):
        rows.append(
            [
                row.name,
                row.role,
                f"{row.items:,.0f}",
                f"{row.labels:,.0f}",
                f"{row.hours:,.1f}",
                "-" if not math.isfinite(row.utilisation) else f"{row.utilisation:.0%}",
                "-" if row.cost is None else f"{row.cost:,.0f}",
            ]
        )
    cost = "-" if team.cost_median is None else f"{team.cost_median:,.0f}"
    header = ["name", "role", "items", "labels", "hours", "utilisation", "cost"]
    caption = (
        "Each annotator's working hours on each calendar day (darker: longer shifts; blank: no "
        "work, for their weekdays, absences, holidays or own start and end), up to the latest "
        "finish of the runs; dotted: the median finish, dashed: the 90th percentile."
    )
    alt = (
        f"Timeline of {len(team.annotators)} annotators' working days against calendar days, "
        f"with the median finish on day {team.finish_days['p50'] - 1:g} marked."
    )
    return [
        ("h2", "The team, person by person"),
        ("p", _finish_text(team)),
        ("table", header, rows),
        ("p", f"Total cost at each person's rate: {cost} (median of the runs)."),
        ("figure", TIMELINE_FILE, caption, alt),
    ]


def timeline(ax: Any, team: Any) -> Any:
    """Each annotator's shift hours by day as a row of shaded cells; finish days marked."""
    import numpy as np

    names = list(team.shifts)
    hours = np.array([team.shifts[n] for n in names], dtype=float)
    top = max(float(hours.max()), 1e-9)
    ax.imshow(
        hours / top,
        aspect="auto",
        cmap="Blues",
        vmin=0,
        vmax=1,
        interpolation="nearest",
        extent=(-0.5, hours.shape[1] - 0.5, len(names) - 0.5, -0.5),
    )
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.axvline(team.finish_days["p50"] - 1, color="black", linestyle=":", label="median finish")
    ax.axvline(team.finish_days["p90"] - 1, color="black", linestyle="--", label="90th percentile")
    start = f" from {team.start}" if team.start is not None else ""
    ax.set_xlabel(f"calendar day{start}")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def draw_team_figure(schedule: Any, folder: Path) -> None:
    """Write the timeline figure into ``folder`` when the schedule has a named team."""
    if schedule.team is None:
        return
    from planner.output.plots import save_png

    save_png(timeline, folder / TIMELINE_FILE, schedule.team)
