"""Rich tables for the plan's pilot, pilot-uncertainty, precision and curve sections.

Kept apart from :mod:`planner.output.render` (which prints the plan itself); the ``plan``
command calls :func:`render_pilot` before and :func:`render_plan_sections` after it.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from planner.output.render import fmt, print_notes
from planner.sizing.precision import PAIR_METRIC_LABELS


def _table(title: str, *columns: str) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        show_header=True,
        header_style="bold",
        min_width=len(title) + 4,  # a narrow table (the curve) keeps its title on one line
    )
    for i, name in enumerate(columns or ("quantity", "value", "note")):
        table.add_column(name, justify="right" if i == 1 or (columns and i) else "left")
    return table


def _interval(coefficient: Any) -> str:
    return f"{fmt(coefficient.lower, 3)} to {fmt(coefficient.upper, 3)}"


def render_pilot(plan: Any, console: Console) -> None:
    """What the pilot file held: annotators, items, the 2x2 counts, PSA and kappa."""
    pilot = getattr(plan, "pilot", None)
    if pilot is None:
        return
    table = _table(f"Pilot: {pilot.source}")
    if pilot.pair is None:  # three or more annotators: the plan's model is the fitted one
        table.add_row("annotators", ", ".join(pilot.annotators), "all, latent-class fit")
        table.add_row("items", fmt(pilot.items), "")
        table.add_row("model", "", pilot.description)
        _print_with_notes(table, pilot.notes, console)
        return
    table.add_row(
        "annotators", ", ".join(pilot.annotators), f"pair {pilot.pair[0]}, {pilot.pair[1]}"
    )
    table.add_row("items", fmt(pilot.items), "rated by both")
    names = ("both positive (a)", "A only (b)", "B only (c)", "neither (d)")
    for name, count in zip(names, pilot.counts, strict=True):
        table.add_row(name, fmt(count), f"positive label {pilot.positive!r}")
    for coefficient in (pilot.psa, pilot.kappa):
        table.add_row(
            coefficient.name,
            fmt(coefficient.estimate, 3),
            f"{coefficient.level:.0%} {coefficient.method} interval {_interval(coefficient)}",
        )
    _print_with_notes(table, pilot.notes, console)


def _print_with_notes(table: Any, notes: tuple[str, ...], console: Console) -> None:
    """The pilot's table, then how the file was read and what the model assumes."""
    console.print(table)
    print_notes(notes, console, style=None)


def render_uncertainty(uncertainty: Any, console: Console) -> None:
    """The plan under pilot uncertainty of one metric, with the items each truth needs."""
    metric = getattr(uncertainty, "metric", "psa")
    table = _table(f"Under pilot uncertainty ({_NAMES[metric]}, {uncertainty.prior})")
    se = uncertainty.hybrid_assurance_se if metric == "psa" else uncertainty.standard_error
    table.add_row(
        "items under uncertainty",
        f"{uncertainty.items:,} ± {uncertainty.items_mc_se:.1f}",
        f"± Monte Carlo SE; hybrid assurance {uncertainty.hybrid_assurance:.3f} ± {se:.3f} "
        f"(target {uncertainty.target_assurance:g}); {uncertainty.basis}",
    )
    if uncertainty.plug_in_items is not None:
        table.add_row(
            "plug-in items (if the pilot were the truth)",
            fmt(uncertainty.plug_in_items),
            f"hybrid assurance {uncertainty.plug_in_hybrid_assurance:.3f}",
        )
    how = "" if metric == "psa" else "approximate: " + uncertainty.per_truth_basis
    for key, label in (("p50", "median"), ("p80", "80th percentile"), ("p90", "90th percentile")):
        table.add_row(f"items per truth, {label}", fmt(uncertainty.per_truth[key]), how)
        how = ""
    post = getattr(uncertainty, f"{metric}_posterior")
    table.add_row(
        f"posterior {_NAMES[metric]}",
        fmt(post["p50"], 3),
        f"10-90%: {fmt(post['p10'], 3)} to {fmt(post['p90'], 3)}",
    )
    console.print(table)
    console.print(uncertainty.explanation)


_NAMES = PAIR_METRIC_LABELS


def render_precision(precision: Any, console: Console) -> None:
    """The precision a fixed study buys, per metric."""
    given = ", ".join(f"{k} {v:g}" for k, v in precision.given.items())
    table = _table(f"Precision of {precision.items:,} items ({given})")
    table.add_row("person-hours", fmt(precision.person_hours), "labelling plus adjudication")
    if precision.cost is not None:
        table.add_row("cost", f"{precision.cost:,.2f}", "")
    for name, m in precision.metrics.items():
        hw = m.half_width
        table.add_row(f"{name}: union positives", fmt(m.union_positives), "expected")
        table.add_row(
            f"{name}: half-width",
            fmt(hw["p50"], 3),
            f"median; 10-90%: {fmt(hw['p10'], 3)} to {fmt(hw['p90'], 3)} ({m.basis})",
        )
        table.add_row(
            f"{name}: assurance",
            fmt(m.assurance, 3),
            f"P(half-width <= {precision.width:g})",
        )
        table.add_row(
            f"{name}: typical interval",
            f"{fmt(m.interval['lower'], 3)} to {fmt(m.interval['upper'], 3)}",
            f"median limits, {m.method}",
        )
        table.add_row(f"{name}: interval coverage", f"{m.coverage:.3f}", _coverage_note(m))
    console.print(table)


def _coverage_note(m: Any) -> str:
    """How a metric's coverage was computed: exactly, or over simulated studies."""
    basis = "exact" if m.coverage_mc_se is None else f"± {m.coverage_mc_se:.3f} Monte Carlo SE"
    missing = f"; {m.no_interval:.1%} of studies have no interval" if m.no_interval >= 1e-3 else ""
    return f"true {_NAMES[m.metric]} {fmt(m.true_value, 4)}; {basis}{missing}"


def render_curve(curve: dict[str, list[dict[str, float]]], width: float, console: Console) -> None:
    """Assurance against items for the target width."""
    metrics = list(curve)
    table = _table(f"Assurance against items (half-width <= {width:g})", "items", *metrics)
    # each metric's curve is refined where it bends, so their points may differ: one row per
    # size any of them has, "-" where a metric has no point there
    at = {m: {p["items"]: p["assurance"] for p in curve[m]} for m in metrics}
    for n in sorted(set().union(*at.values())):
        table.add_row(fmt(n), *(f"{at[m][n]:.3f}" if n in at[m] else "-" for m in metrics))
    console.print(table)


def render_plan_sections(plan: Any, console: Console) -> None:
    """The optional sections of a plan, after the plan itself."""
    by_metric = getattr(plan, "uncertainty_by_metric", None) or {}
    if not by_metric and getattr(plan, "uncertainty", None) is not None:
        by_metric = {"psa": plan.uncertainty}
    for section in by_metric.values():
        render_uncertainty(section, console)
    if len(by_metric) > 1:
        deciding = _NAMES[getattr(plan.uncertainty, "metric", "psa")]
        console.print(f"under pilot uncertainty {deciding} needs the most items and decides")
    if getattr(plan, "precision", None) is not None:
        render_precision(plan.precision, console)
    if getattr(plan, "curve", None):
        render_curve(plan.curve, plan.settings.width, console)
