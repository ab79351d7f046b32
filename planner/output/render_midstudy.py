"""Rich tables of ``plan --labelled``: the labels in hand, what is left to label, the procedure."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from planner.output.jsonout import label_of
from planner.output.render import fmt, quantity_table
from planner.output.render_midstudy_budget import show_bought


def priced_by(result: Any) -> str:
    """How a study in progress's remaining items are priced, in words."""
    team = getattr(getattr(result, "costs", None), "team", None)  # a study without strata's
    by_person = getattr(result, "team_priced", False) or team is not None
    return "each person at their rate" if by_person else "at the hourly rate"


def render_labelled(result: Any, console: Console) -> None:
    """The first stage (the file's pair and counts), the plan of each metric, the batches."""
    if result.stage is not None:
        console.print(_stage_table(result.stage))
    if result.counts is None:  # several annotators: the first stage and its fit
        console.print(_raters_stage_table(result))
    plans = result.by_metric or {result.metric: result}
    for plan in plans.values():
        console.print(
            _remaining_table(plan, deciding=len(plans) > 1 and plan.metric == result.metric)
        )
    if len(plans) > 1:
        console.print(
            f"the {label_of(result.metric)} needs more items: its {result.remaining_items:,} "
            "are the recommendation"
        )
    if result.batches is not None:
        console.print(_batches_table(result.batches, result))
    show_bought(result, console)  # --hours/--budget: what they buy
    for note in result.notes:
        console.print(f"note: {note}")
    console.print(f"seed {result.seed} (rerun with --seed {result.seed} for identical output)")


def _stage_table(stage: Any) -> Any:
    """What the file of the labels so far holds: the pair and its 2x2 counts."""
    table = quantity_table(f"Labelled so far: {stage.source}")
    assert stage.pair is not None  # a study in progress is planned for one pair
    table.add_row("annotators", ", ".join(stage.annotators), "pair " + ", ".join(stage.pair))
    table.add_row("items", fmt(stage.items), "rated by both")
    names = ("both positive (a)", "A only (b)", "B only (c)", "neither (d)")
    for name, count in zip(names, stage.counts, strict=True):
        table.add_row(name, fmt(count), f"positive label {stage.positive!r}")
    for message in stage.notes:
        table.add_row("note", "", message)
    return table


def _raters_stage_table(r: Any) -> Any:
    """The labels in hand of several annotators: who, how many items, the fit's truths."""
    pilot = r.pilot
    table = quantity_table(f"Labelled so far: {r.source}")
    table.add_row("annotators", ", ".join(r.annotators), "all, latent-class fit")
    table.add_row("items", fmt(r.labelled_items), "the first stage")
    positive = f"positive {r.positive!r}" if r.positive is not None else ""
    table.add_row("labels", ", ".join(r.categories), positive)
    failed = f"; {pilot.unconverged} did not converge" if pilot.unconverged else ""
    table.add_row(
        "bootstrap refits",
        fmt(len(pilot.draws)),
        f"plausible truths, seed {pilot.seed}{failed}",
    )
    return table


def _remaining_table(r: Any, *, deciding: bool = False) -> Any:
    label = label_of(r.metric)
    title = (
        f"Study in progress: {label}, half-width <= {r.width:g} at {r.confidence_level:.0%} "
        f"confidence, assurance {r.target_assurance:g}"
    )
    table = quantity_table(title + (" (decides)" if deciding else ""))
    low, high = r.interval_now
    table.add_row("labelled so far", fmt(r.labelled_items), "the first stage, kept in the analysis")
    table.add_row(
        f"{r.metric} now",
        fmt(r.estimate, 3),
        f"{r.confidence_level:.0%} {r.method} interval {fmt(low, 3)} to {fmt(high, 3)}",
    )
    table.add_row(
        "half-width now",
        fmt(r.half_width_now),
        f"coverage {r.coverage_now:.3f} at {r.labelled_items:,} items if the "
        + ("estimate were the truth" if r.counts is not None else "fit were the truth"),
    )
    table.add_row(
        "remaining items",
        f"{r.remaining_items:,} ± {r.remaining_mc_se:.1f}",
        f"± Monte Carlo SE; {r.basis}",
    )
    table.add_row("total items", fmt(r.total_items), "labelled + remaining")
    table.add_row(
        "assurance at the total",
        fmt(r.assurance, 3),
        f"± {r.assurance_se:.4f}, averaged over what the labels in hand leave open "
        f"(target {r.target_assurance:g})",
    )
    stop = "the interval in hand is narrow enough" if r.assurance_now else "it is not narrow yet"
    table.add_row("assurance of stopping now", fmt(r.assurance_now, 3), stop)
    if r.planned_items is not None and r.assurance_planned is not None:
        table.add_row(
            "assurance of the original plan",
            fmt(r.assurance_planned, 3),
            f"continuing to {r.planned_items:,} items in all",
        )
    b = r.budget
    table.add_row("person-hours still to spend", fmt(b.person_hours), "for the remaining items")
    if b.cost is not None:
        table.add_row("cost still to spend", f"{b.cost:,.2f}", priced_by(r))
    table.add_row(
        "final interval's coverage",
        fmt(r.final_coverage, 3),
        f"± {r.final_coverage_se:.3f}: simulated finished studies, truths from the "
        + ("posterior" if r.counts is not None else "bootstrap refits")
        + f" (nominal {r.confidence_level:g})",
    )
    return table


def render_batches(batches: Any, console: Console) -> None:
    """``plan --batch-size`` without ``--labelled``: the procedure from the plan's model,
    re-planned every batch from the start, and its notes."""
    console.print(_batches_table(batches, None, " from the start"))
    for note in batches.notes:
        console.print(f"note: {note}")


def _batches_table(batches: Any, r: Any, start: str = "") -> Any:
    table = quantity_table(
        f"Label in batches of {batches.batch_size:,}{start}, re-plan after each, stop when no "
        "more are asked for"
    )
    table.add_row(
        "final interval's coverage",
        fmt(batches.coverage, 3),
        f"± {batches.coverage_se:.3f} over {batches.replicates:,} simulated procedures "
        f"(nominal {batches.nominal:g}); truths from {batches.truth}",
    )
    totals = batches.total_items
    table.add_row(
        "total items",
        fmt(round(totals["p50"])),
        f"median; mean {totals['mean']:,.0f}, 10-90%: {totals['p10']:,.0f} to {totals['p90']:,.0f}",
    )
    table.add_row(
        "stopped at the width",
        fmt(batches.stopped_share, 3),
        "share of the procedures that reached the width within the largest total searched",
    )
    return table


def _coefficient(r: Any) -> str:
    """``PSA`` of a pair; several annotators' coefficient with the labels an item."""
    labels = getattr(r, "labels_per_item", 2)
    return r.metric_name if labels == 2 else f"{r.metric_name} ({labels} labels an item)"


def render_labelled_strata(r: Any, console: Console) -> None:
    """A stratified study in progress: each stratum's items in hand and still to label, then
    the population-weighted interval now and the plan of the rest."""
    from rich.table import Table

    table = Table(
        title=f"Labelled so far, by stratum: {r.source}", title_justify="left",
        header_style="bold",
    )  # fmt: skip
    table.add_column("stratum")
    for column in ("share", "design", "labelled", "union +", "remaining", "total"):
        table.add_column(column, justify="right")
    for s in r.strata:
        table.add_row(
            s.name, f"{s.share:g}", f"{s.design_share:.3f}", fmt(s.labelled),
            fmt(s.union_positives), fmt(s.remaining), fmt(s.total),
        )  # fmt: skip
    console.print(table)
    summary = quantity_table(
        f"Stratified study in progress: population-weighted {_coefficient(r)}, half-width <= "
        f"{r.width:g} at {r.confidence_level:.0%} confidence, assurance {r.target_assurance:g}"
    )
    low, high = r.interval_now
    summary.add_row("labelled so far", fmt(r.labelled_items), "the first stage, kept")
    summary.add_row(
        f"{r.metric} now",
        fmt(r.estimate, 3),
        f"population-weighted, {fmt(low, 3)} to {fmt(high, 3)}",
    )
    summary.add_row("half-width now", fmt(r.half_width_now), "")
    summary.add_row("remaining items", fmt(r.remaining_items), r.basis)
    summary.add_row("total items", fmt(r.total_items), "labelled + remaining")
    summary.add_row("assurance at the total", fmt(r.assurance, 3), f"± {r.assurance_se:.4f}")
    stop = "the interval in hand is narrow enough" if r.assurance_now else "it is not narrow yet"
    summary.add_row("assurance of stopping now", fmt(r.assurance_now, 3), stop)
    summary.add_row("person-hours still to spend", fmt(r.budget.person_hours), "")
    if r.budget.cost is not None:
        summary.add_row("cost still to spend", f"{r.budget.cost:,.2f}", priced_by(r))
    c = r.shares_check
    summary.add_row(
        "strata shares vs design", f"p = {c.p_value:.2g}",
        f"chi-square goodness of fit {c.statistic:.1f} on {c.df} df",
    )  # fmt: skip
    summary.add_row(
        "final interval's coverage", fmt(r.final_coverage, 3),
        f"± {r.final_coverage_se:.3f}: simulated finished studies, truths from the posterior "
        f"(nominal {r.confidence_level:g})",
    )  # fmt: skip
    console.print(summary)
    if getattr(r, "batches", None) is not None:
        console.print(_batches_table(r.batches, r))
    show_bought(r, console)  # --hours/--budget: what they buy
    for message in r.notes:
        console.print(f"note: {message}")
    console.print(f"seed {r.seed} (rerun with --seed {r.seed} for identical output)")
