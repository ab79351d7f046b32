"""Rich tables for a multi-rater plan (:class:`planner.sizing.raters_plan.RatersPlan`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from planner.output.render import fmt, print_notes, quantity_table
from planner.sizing.raters_plan import RatersPlan

METRIC_NAMES = {
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
    "psa": "specific positive agreement (Uebersax)",
    "conger": "Conger's kappa",
    "kappa": "mean pairwise Cohen's kappa (Light)",
}


def _assumptions(plan: RatersPlan) -> Table:
    model = plan.model
    table = quantity_table(f"Assumptions: {model['n_annotators']} annotators")
    table.add_row("categories", str(model["n_categories"]), "")
    table.add_row(
        "class prevalences", ", ".join(fmt(p) for p in model["prevalences"]), "true classes"
    )
    if model.get("kind") == "common-prevalence":
        table.add_row("model", "common prevalence", model["family"])
        table.add_row("intraclass kappa", fmt(model["kappa"]), "no ground truth, no rater bias")
    else:
        for j, mat in enumerate(model["confusion"]):
            accuracy = ", ".join(fmt(row[t]) for t, row in enumerate(mat))
            table.add_row(f"annotator {j + 1}: P(correct | class)", accuracy, "confusion diagonal")
        table.add_row("ambiguity", fmt(model["ambiguity"]), "share of items with shared errors")
    s = plan.sizing
    level = f", {s.level}" if s.metric == "alpha" else ""
    table.add_row(f"true {s.metric}{level}", fmt(s.true_value), METRIC_NAMES[s.metric])
    return table


def _answer(plan: RatersPlan) -> Table:
    s, b = plan.sizing, plan.budget
    table = quantity_table(
        f"Answer: {s.metric} half-width <= {s.width:g} at {s.confidence_level:.0%} confidence, "
        f"assurance {s.target_assurance:g}"
    )
    design = (
        f"{s.labels_per_item} of {s.n_annotators} annotators per item, drawn at random"
        if s.labels_per_item < s.n_annotators
        else f"{s.n_annotators} annotators label every item"
    )
    table.add_row(Text("items", style="bold"), Text(f"{s.items:,}", style="bold"), design)
    table.add_row("labels", f"{b.labels:,}", f"items × {s.labels_per_item}")
    table.add_row("person-hours", fmt(b.person_hours), f"{b.labels:,} labels")
    table.add_row("hours per annotator", fmt(plan.hours_per_annotator), f"pool of {s.n_annotators}")
    if b.cost is not None:
        table.add_row("cost", f"{b.cost:,.2f}", "")
    table.add_row("half-width", fmt(s.half_width_median), f"median over {s.n_reps:,} new studies")
    table.add_row(
        "assurance",
        fmt(s.assurance, 3),
        f"± {s.assurance_mc_se:.3f} Monte Carlo SE; target {s.target_assurance:g}",
    )
    table.add_row("interval coverage", fmt(s.coverage, 3), f"{s.method}; simulated at these items")
    table.add_row("analytic start", f"{s.analytic_items:,}", "plug-in half-width ~ 1/sqrt(n)")
    table.add_row(
        "search",
        f"{s.search_reps:,} studies",
        f"assurance >= {s.assurance_goal:.3f} (target + 1 MC SE of the check)",
    )
    table.add_row("seed", str(s.seed), "same seed, same answer")
    return table


def _by_annotators(plan: RatersPlan) -> Table:
    hours = plan.budget.labelling_hours
    title = f"Precision at the same {hours:,.4g} labelling hours, by annotators per item"
    table = Table(title=title, title_justify="left", header_style="bold", min_width=len(title) + 4)
    for name in ("annotators", "items", "hours", "half-width"):
        table.add_column(name, justify="right")
    for row in plan.by_annotators:
        mark = " *" if row.annotators == plan.sizing.n_annotators else ""
        table.add_row(
            f"{row.annotators}{mark}", f"{row.items:,}", fmt(row.hours), fmt(row.half_width)
        )
    return table


def render_raters_plan(plan: RatersPlan, console: Console) -> None:
    """Print the assumptions, the answer, the fixed-hours table and the notes."""
    console.print(_assumptions(plan))
    console.print(_answer(plan))
    if plan.by_annotators:
        console.print(_by_annotators(plan))
        console.print("* this plan; half-widths at expected counts (plug-in)", style="dim")
    print_notes(plan.notes, console, style=None)
