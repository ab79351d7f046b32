"""The Plan page: ``plan`` in a browser (the pair model in any of its four forms, the target,
the costs) and its answer: items, union positives, person-hours, cost, the assurance curve,
the worst case and the stop rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.web import plan_fields
from planner.web.figures import png
from planner.web.page import Field, Figure, Page, PageResult, Progress, Table
from planner.web.reproduce import command_line


def number(value: float | None, digits: int = 1) -> str:
    """A value as the page shows it: thousands separated, ``—`` when there is none."""
    return "—" if value is None else f"{value:,.{digits}f}"


def _answer_table(document: Mapping[str, Any]) -> Table:
    rows = []
    for metric, r in document["results"].items():
        interval = r["interval"]
        rows.append(
            (
                metric,
                f"{r['items']:,}",
                number(r["union_positives"]),
                number(r["budget"]["person_hours"]),
                f"{r['half_width']['median']:.4f}",
                f"{interval['lower']:.3f} – {interval['upper']:.3f}",
                f"{r['assurance']:.3f}",
            )
        )
    columns = ("metric", "items", "union positives", "person-hours", "median half-width")
    return Table(
        "The answer, per metric",
        (*columns, "typical interval", "assurance"),
        tuple(rows),
        "answer",
    )


def _robust_table(document: Mapping[str, Any]) -> Table | None:
    worst, stop = document.get("worst_case"), document.get("stop_rule")
    rows = []
    if worst:
        rows.append(
            ("worst case: union positives", f"{worst['union_positives_wilson_every_outcome']:,}")
        )
        rows.append(
            (
                "worst case: items, person-hours",
                f"{worst['items_at_model_union_rate']:,}, {number(worst['person_hours'])} h",
            )
        )
    if stop:
        rows.append(
            ("stop rule: label until this many union positives", f"{stop['union_positives']:,}")
        )
        rows.append(
            (
                "stop rule: expected items, person-hours",
                f"{stop['expected_items']:,.0f}, {number(stop['person_hours_expected'])} h",
            )
        )
    if not rows:
        return None
    return Table("PSA without trusting the model", ("quantity", "value"), tuple(rows), "robust")


def _model_table(document: Mapping[str, Any]) -> Table:
    model = document["model"]
    keys = ("source", "union_rate", "psa", "kappa", "positive_rate_a", "positive_rate_b")
    rows = tuple(
        (k.replace("_", " "), v if isinstance(v, str) else f"{v:.4g}")
        for k in keys
        if (v := model.get(k)) is not None
    )
    return Table("The annotator pair", ("quantity", "value"), rows, "model")


def _curve_figure(result: Any) -> Figure | None:
    if not result.curve:
        return None
    from planner.output.plot_curve import assurance_curve_figure

    s = result.settings
    image = png(assurance_curve_figure, result.curve, s.width, s.assurance, result.items)
    alt = (
        f"Assurance P(half-width <= {s.width:g}) against items labelled; "
        f"the plan: {result.items:,} items for assurance {s.assurance:g}"
    )
    return Figure("assurance-curve", image, alt)


def headline(result: Any, document: Mapping[str, Any]) -> dict[str, str]:
    """The Plan page's headline values (their ``data-testid`` keys) from the plan."""
    recommendation = document["recommendation"]
    deciding = document["results"][recommendation["metric"]]
    budget = recommendation["budget"]
    return {
        "items": f"{result.items:,}",
        "union-positives": number(recommendation["union_positives"]),
        "person-hours": number(budget["person_hours"]),
        "cost": number(budget["cost"], 0),
        "assurance": f"{deciding['assurance']:.3f}",
    }


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """Plan the study the values describe, with the assurance curve."""
    return _plan_page(values, files, progress, curve=True)


def preview(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The plan without its assurance curve (the headline, at once)."""
    return _plan_page(values, files, progress, curve=False)


#: the team that carries the plan out (optional): calendar days by ``planner schedule``
TEAM_FIELDS = (
    Field("team_size", "Team size", "integer", help="Annotators in the team: adds calendar days."),
    Field("hours_per_day", "Hours per day", "number", "8", "Each annotator's shift."),
)


def calendar_days(
    plan_options: Mapping[str, Any], team: Mapping[str, Any], items: int, document: Any
) -> tuple[str, str] | None:
    """Calendar days of the planned items with the team (``planner schedule --items``): the
    median over the schedule's runs, and the note that says how to get them again."""
    if team.get("team_size") is None:
        return None
    from planner.application.plan_options import PlanOptions
    from planner.application.schedule_options import run_schedule

    costs = ("seconds_per_item", "adjudication_seconds", "hourly_rate", "seed")
    options = {k: plan_options[k] for k in costs if k in plan_options}
    if "adjudication_seconds" in options:  # the plan's expected share of contested items
        budget = document["recommendation"]["budget"]
        options["contested_rate"] = round(budget["contested_items"] / budget["items"], 6)
    cli_team = {"annotators": team["team_size"], "hours_per_day": team.get("hours_per_day")}
    seed = options["seed"]
    _, schedule = run_schedule(None, PlanOptions(**options), cli_team, lambda _: seed, items=items)
    shown = {"items": items, **dict(cli_team), **options}
    shown["team_size"] = shown.pop("annotators")
    command = command_line(["schedule"], shown)
    return (
        f"{schedule.calendar_days_median:g}",
        f"Calendar days: the median of {command} (90th percentile "
        f"{schedule.calendar_days_p90:g} days).",
    )


def _plan_page(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None, curve: bool
) -> PageResult:
    team = {f.name: values.get(f.name) for f in TEAM_FIELDS}
    chosen = {k: v for k, v in values.items() if k not in team}
    result, options, notes = plan_fields.run({**chosen, "curve": curve or None}, files, progress)
    from planner.output.jsonout import plan_result_document

    document = plan_result_document(result)
    pilot = values.get("pilot") if "pilot" in files else None
    tables = [t for t in (_answer_table(document), _robust_table(document)) if t is not None]
    figure = _curve_figure(result)
    shown = headline(result, document)
    days = calendar_days(options, team, result.items, document) if curve else None
    if days is not None:
        shown["calendar-days"] = days[0]
        notes.append(days[1])
    return PageResult(
        headline=shown,
        command=plan_fields.plan_command(options, pilot),
        python=plan_fields.python_code(options, pilot),
        toml=plan_fields.scenario_toml({k: v for k, v in options.items() if k != "curve"}, pilot),
        tables=(*tables, _model_table(document)),
        figures=(figure,) if figure else (),
        notes=tuple(notes) + tuple(result.notes),
        document=document,
    )


PAGE = Page(
    slug="plan",
    title="Plan",
    summary=(
        "How many items two annotators must label so that the agreement's interval is as "
        "narrow as you need: give the pair in one of its forms (prevalence with error rates, "
        "a target PSA or kappa, the union rate with PSA, or a pilot), the target and the costs."
    ),
    fields=(
        *plan_fields.MODEL_FIELDS,
        *plan_fields.TARGET_FIELDS,
        *plan_fields.COST_FIELDS,
        *TEAM_FIELDS,
        plan_fields.SEED_FIELD,
    ),
    compute=compute,
    preview=preview,
    report=plan_fields.report,
)
