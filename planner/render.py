"""Rich tables for the terminal. Only the CLI imports this module."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.table import Table

from planner.plan import Plan

_CELL_LABELS = {
    "both": "both positive (a)",
    "a_only": "A only (b)",
    "b_only": "B only (c)",
    "neither": "neither (d)",
}


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "undefined"
        return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _table(title: str) -> Table:
    table = Table(title=title, title_justify="left", show_header=True, header_style="bold")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("note", style="dim")
    return table


def render_plan(plan: Plan, console: Console) -> None:
    """Print the assumptions, the answer per metric, the budget and the PSA checks."""
    model = plan.model.summary()
    settings = plan.settings
    assumptions = _table("Assumptions: the annotator pair")
    for key, value in plan.model.assumptions.items():
        if isinstance(value, list):
            value = ", ".join(_fmt(v) for v in value)
        assumptions.add_row(key.replace("_", " "), _fmt(value), f"from {plan.model.source}")
    for key, label in _CELL_LABELS.items():
        assumptions.add_row(f"P({label})", _fmt(model[key]), "cell probability")
    for key, note in [
        ("union_rate", "share of items at least one annotator flags"),
        ("psa", "positive specific agreement, 2a/(2a+b+c)"),
        ("nsa", "negative specific agreement"),
        ("kappa", "Cohen's kappa"),
        ("prevalence_index", "Byrt PI = (a-d)/n"),
        ("bias_index", "Byrt BI = (b-c)/n; > 0 when A flags more"),
    ]:
        assumptions.add_row(key.replace("_", " "), _fmt(model[key]), note)
    console.print(assumptions)

    answer = _table(
        f"Answer: half-width <= {settings.width:g} at {settings.confidence_level:.0%} confidence, "
        f"assurance {settings.assurance:g}"
    )
    for metric, res in plan.results.items():
        budget = plan.budgets[metric]
        deciding = " (decides)" if metric == plan.deciding_metric and len(plan.results) > 1 else ""
        answer.add_row(
            f"[bold]{metric}{deciding}: items[/bold]",
            f"[bold]{res.items:,}[/bold]",
            f"± {res.items_mc_se:.1f} items Monte Carlo SE ({res.method} interval)",
        )
        answer.add_row(
            f"{metric}: union positives",
            _fmt(res.union_positives, 4),
            "expected at that many items",
        )
        answer.add_row(
            f"{metric}: person-hours",
            _fmt(budget.person_hours, 4),
            f"{settings.annotators_per_item} annotators × {settings.seconds_per_item:g} s"
            + (
                f" + adjudication {budget.adjudication_hours:.3g} h"
                if budget.adjudication_hours
                else ""
            ),
        )
        if budget.cost is not None:
            answer.add_row(
                f"{metric}: cost", f"{budget.cost:,.2f}", f"at {settings.hourly_rate:g} per hour"
            )
        answer.add_row(
            f"{metric}: half-width",
            _fmt(res.half_width_median),
            f"median; {_fmt(res.half_width_at_assurance)} at the assurance quantile",
        )
        answer.add_row(
            f"{metric}: typical interval",
            f"{res.interval_median[0]:.3f} – {res.interval_median[1]:.3f}",
            "medians of the limits over simulated studies",
        )
        check = (
            f"; exact {res.exact_assurance:.3f}, exact n {res.exact_items:,}"
            if res.exact_assurance is not None
            else ""
        )
        answer.add_row(
            f"{metric}: assurance reached",
            f"{res.assurance:.3f}",
            f"± {res.assurance_mc_se:.3f} MC SE, {res.n_reps:,} studies{check}",
        )
        if res.n_undefined:
            answer.add_row(
                f"{metric}: undefined intervals", f"{res.n_undefined:,}", "counted as too wide"
            )
    console.print(answer)

    checks = _table("PSA without trusting the model")
    wc = plan.worst_case
    checks.add_row(
        "worst case, union positives",
        _fmt(wc["union_positives_wilson_every_outcome"]),
        f"Wilson, every outcome; delta method says {wc['union_positives_delta']}",
    )
    checks.add_row(
        "worst case, items",
        _fmt(wc["items_at_model_union_rate"]),
        f"at the model's union rate {plan.model.union_rate:.4g}",
    )
    if plan.stop_rule:
        sr = plan.stop_rule
        checks.add_row(
            "stop rule: label until U union positives",
            _fmt(sr["union_positives"]),
            f"exact for PSA {plan.model.psa:.3g}, {sr['method']} interval",
        )
        checks.add_row(
            "stop rule: items",
            f"{sr['expected_items']:,.0f}",
            f"expected; 90th percentile {sr['items_p90']:,}",
        )
    console.print(checks)
    for note in plan.notes:
        console.print(f"[dim]note: {note}[/dim]")
    console.print(
        f"[dim]seed {plan.seed} (rerun with --seed {plan.seed} for identical output)[/dim]"
    )
