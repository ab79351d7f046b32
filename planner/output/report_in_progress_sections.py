"""The sections of a study in progress's report (:mod:`planner.output.report_in_progress`).

Blocks as :mod:`planner.output.report_sections` builds them (rendered, escaped, by its
:func:`~planner.output.report_sections.markdown` and
:func:`~planner.output.report_sections.html_page`): the headline, done so far, still to do,
the dates of the remaining work, what the remaining budget buys, the assurance figure, the
notes, the assumptions (what was taken from the scenario and what from the file) and the
command that rebuilds the report. Every number is the plan's, its schedule's or the curve's.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, cast

import numpy as np

from planner.output.report_figures import ReportFigures, burndown_band, metric_name
from planner.output.report_schedule import draw_team_figure
from planner.output.report_sections import rebuild_section, schedule_section

Block = tuple[Any, ...]
#: the per-stratum table's columns
STRATA_HEADER = ["stratum", "population share", "design share", "labelled", "remaining", "total"]


def _interval_text(plan: Any) -> str:
    low, high = plan.interval_now
    return (
        f"{metric_name(plan.metric)} {plan.estimate:.3f}, {plan.confidence_level:.0%} interval "
        f"{low:.3f} to {high:.3f} (half-width {plan.half_width_now:.4g}; target {plan.width:g})"
    )


def finish_text(schedule: Any) -> str:
    """The finish of the remaining work: dates with a named team's start, else calendar days
    (10th, 50th and 90th percentiles of the simulated runs)."""
    if schedule is None:
        return "nothing remains to label"
    team = schedule.team
    if team is not None and team.finish_dates is not None:
        d = team.finish_dates
        return f"{d['p50']} (median; 10th percentile {d['p10']}, 90th percentile {d['p90']})"
    days = [r.calendar_days for r in schedule.records]
    p10, p50, p90 = (
        np.percentile(days, [10, 50, 90])
        if days
        else (np.nan, schedule.calendar_days_median, schedule.calendar_days_p90)
    )
    return (
        f"calendar day {p50:g} of the remaining work (median; 10th percentile {p10:g}, 90th "
        f"percentile {p90:g})"
    )


def headline_section(study: Any) -> list[Block]:
    p = study.plan
    rows = [
        ["labelled so far", f"{p.labelled_items:,}"],
        ["still to label", f"{p.remaining_items:,}"],
        ["total", f"{p.total_items:,}"],
        ["interval now", _interval_text(p)],
        ["assurance of stopping now", f"{p.assurance_now:g}"],
        [
            "assurance at the total",
            f"{p.assurance:.3f} (target {p.target_assurance:g}; Monte Carlo SE "
            f"{p.assurance_se:.2g})",
        ],
        ["person-hours still to spend", f"{p.budget.person_hours:,.1f}"],
        ["finish of the remaining work", finish_text(study.schedule)],
    ]
    if p.budget.cost is not None:
        rows.insert(7, ["cost still to spend", f"{p.budget.cost:,.2f}"])
    return [("h2", "Headline"), ("table", ["quantity", "value"], rows)]


def _stage_rows(p: Any) -> tuple[list[str], list[list[str]]]:
    """The first stage's 2x2 table of a pair, else its annotators."""
    if getattr(p, "counts", None) is not None:
        both, a_only, b_only, neither = p.counts
        pair = p.stage.pair if p.stage is not None and p.stage.pair else ("A", "B")
        header = ["", f"{pair[1]} flags", f"{pair[1]} does not"]
        return header, [
            [f"{pair[0]} flags", f"{both:,}", f"{a_only:,}"],
            [f"{pair[0]} does not", f"{b_only:,}", f"{neither:,}"],
        ]
    if hasattr(p, "strata"):
        header = ["stratum", "labelled", "union positives"]
        return header, [[s.name, f"{s.labelled:,}", f"{s.union_positives:,}"] for s in p.strata]
    return ["annotators", "items"], [[", ".join(p.annotators), f"{p.labelled_items:,}"]]


def done_section(study: Any) -> list[Block]:
    p = study.plan
    header, rows = _stage_rows(p)
    method = getattr(p, "method", "linearised ratio estimator, population-weighted")
    text = (
        f"The first stage: {p.labelled_items:,} items labelled, kept in the final analysis. "
        f"{_interval_text(p)}, {method}."
    )
    coverage = getattr(p, "coverage_now", None)
    if coverage is not None:
        text += f" Its coverage, if the estimate were the truth: {coverage:.3f}."
    return [("h2", "Done so far"), ("p", text), ("table", header, rows)]


def todo_section(study: Any) -> list[Block]:
    p = study.plan
    text = (
        f"{p.remaining_items:,} items still to label, {p.total_items:,} in all, for a final "
        f"half-width of at most {p.width:g} with assurance {p.target_assurance:g} "
        f"(reached: {p.assurance:.3f}); {p.basis}. The final interval's coverage over "
        f"simulated finished studies: {p.final_coverage:.3f} (nominal {p.confidence_level:g})."
    )
    blocks: list[Block] = [("h2", "Still to do"), ("p", text)]
    if hasattr(p, "strata"):
        rows = [
            [s.name, f"{s.share:.3f}", f"{s.design_share:.3f}"]
            + [f"{s.labelled:,}", f"{s.remaining:,}", f"{s.total:,}"]
            for s in p.strata
        ]
        blocks += [
            ("p", f"Each stratum is brought to its design share of {p.design_total:,} items."),
            ("table", STRATA_HEADER, rows),
        ]
    return blocks


class _Burndown:
    """The one figure :func:`schedule_section` reads of a report's figures."""

    def __init__(self, schedule: Any) -> None:
        self.burndown = burndown_band(schedule)


def dates_section(study: Any) -> list[Block]:
    if study.schedule is None:
        return [("h2", "Dates"), ("p", "Nothing remains to label: no schedule.")]
    figures = cast(ReportFigures, _Burndown(study.schedule))
    blocks = schedule_section(study.schedule, figures)
    intro = (
        "p",
        f"The schedule of the {study.plan.remaining_items:,} remaining items only, with the "
        f"scenario's team: the remaining work finishes on {finish_text(study.schedule)}.",
    )
    return [("h2", "Dates"), intro, *blocks[1:]]


def bought_section(study: Any) -> list[Block]:
    s = study.settings
    if s.hours is None and s.budget is None:
        return []
    given = f"{s.hours:g} person-hours" if s.hours is not None else f"budget {s.budget:,.2f}"
    head: Block = ("h2", f"What the remaining {given} buy")
    b = getattr(study.plan, "bought", None)
    if study.bought_refused or b is None:
        return [head, ("p", "Not available for this kind of study.")]
    rows = [
        ["items bought", f"{b.bought_items:,}"],
        ["total items", f"{b.total_items:,}"],
        [
            "expected half-width",
            f"{b.half_width_expected:.4g} (Monte Carlo SE {b.half_width_se:.2g})",
        ],
        [
            "assurance at the total",
            f"{b.assurance:.3f} ± {b.assurance_se:.2g} (of half-width ≤ {study.plan.width:g})",
        ],
        ["person-hours", f"{b.cost.person_hours:,.1f}"],
    ]
    for name, items in (b.by_stratum or {}).items():
        rows.append([f"bought in {name}", f"{items:,}"])
    return [head, ("table", ["quantity", "value"], rows)]


def curve_section(study: Any) -> list[Block]:
    c = study.curve
    if c is None:
        why = "nothing remains to label" if study.plan.remaining_items == 0 else (
            "not available for this kind of study"
        )  # fmt: skip
        return [("h2", "Assurance against the items still to label"), ("p", f"No figure: {why}.")]
    from planner.output.report_in_progress import CURVE_FILE

    caption = (
        f"The final interval's hybrid assurance of half-width <= {c.width:g} against the items "
        f"still to label (first stage kept, averaged over its posterior), the library's own "
        f"assurance function; the planned {c.planned:,} items reach {c.planned_assurance:.3f}."
    )
    alt = (
        f"Line chart of assurance against items still to label, from {c.assurance[0]:.3f} at "
        f"0 to {c.assurance[-1]:.3f} at {c.remaining[-1]:,}; a red line marks the target "
        f"{c.target:g} and a dotted line the planned {c.planned:,} items."
    )
    return [
        ("h2", "Assurance against the items still to label"),
        ("figure", CURVE_FILE, caption, alt),
    ]


def notes_section(study: Any) -> list[Block]:
    p = study.plan
    stage = getattr(p, "stage", None)
    notes = [*(stage.notes if stage is not None else ()), *p.notes]
    if study.schedule is not None:
        notes += list(study.schedule.notes)
    if not notes:
        return []
    return [("h2", "Notes"), *(("p", f"Note: {n}") for n in dict.fromkeys(notes))]


def assumptions_section(study: Any) -> list[Block]:
    sc, s = study.scenario, study.settings
    source = getattr(study.plan, "source", "") or s.labelled
    from_file = f"the first stage ({study.plan.labelled_items:,} items of {source}"
    from_file += f", strata from column {s.stratum_col!r})" if s.stratum_col else ")"
    unused = [k for k in ("model", "thresholds", "alt_test") if getattr(sc, k, None)]
    text = (
        f"From the scenario {sc.name}: the target ([target]), the labelling costs ([budget]), "
        f"the search's effort ([simulation]) and the team ([team])"
        + (", and the strata and their design ([[strata]], [design])" if sc.strata else "")
        + f". From the label file: {from_file}, which replaces the scenario's model."
    )
    if unused:
        text += " Not used for a study in progress: " + ", ".join(f"[{k}]" for k in unused)
        text += " (the labels in hand are the model; no up-front decision rule is read)."
    return [("h2", "Assumptions"), ("p", text)]


def rebuild_command(study: Any) -> str:
    """The command that rebuilds this report."""
    s = study.settings
    scenario_part = rebuild_section(study.scenario, study.seed)[1][1].split(" --seed ")[0]
    words = ["--labelled", s.labelled]
    for flag, value in (("--stratum-col", s.stratum_col), ("--positive", s.positive)):
        if value is not None:
            words += [flag, value]
    if s.pair is not None:
        words += ["--pair", ",".join(s.pair)]
    for flag, number in (("--hours", s.hours), ("--budget", s.budget)):
        if number is not None:
            words += [flag, f"{number:g}"]
    tail = " ".join(shlex.quote(w) for w in words)
    return f"{scenario_part} {tail} --seed {study.seed} --force"


def progress_blocks(study: Any) -> list[Block]:
    """Every section of the report of a study in progress, in order."""
    blocks: list[Block] = [("h1", f"Agreement study in progress: {study.scenario.name}")]
    for section in (
        headline_section, done_section, todo_section, dates_section, bought_section,
        curve_section, notes_section, assumptions_section,
    ):  # fmt: skip
        blocks += section(study)
    rebuild = rebuild_section(study.scenario, study.seed)
    return blocks + [rebuild[0], ("code", rebuild_command(study)), *rebuild[2:]]


def assurance_remaining(ax: Any, c: Any) -> Any:
    """Draw ``A(m)`` against the items still to label, the target and the planned answer."""
    ax.plot(c.remaining, c.assurance, marker="o", markersize=3, label=metric_name(c.metric))
    ax.axhline(c.target, color="red", linewidth=1, label=f"target {c.target:g}")
    ax.axvline(c.planned, color="black", linestyle=":", label=f"planned {c.planned:,}")
    ax.plot([c.planned], [c.planned_assurance], "ko")
    ax.set_xlabel("items still to label")
    ax.set_ylabel(f"assurance of half-width <= {c.width:g}")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower right")
    return ax


def draw_progress_figures(study: Any, folder: Path) -> None:
    """The burn-down and team figures of the remaining work, and the assurance curve."""
    from planner.output import plots
    from planner.output.report_in_progress import CURVE_FILE

    if study.schedule is not None:
        plots.save_png(plots.burndown, folder / "burndown.png", burndown_band(study.schedule))
        draw_team_figure(study.schedule, folder)
    if study.curve is not None:
        plots.save_png(assurance_remaining, folder / CURVE_FILE, study.curve)
