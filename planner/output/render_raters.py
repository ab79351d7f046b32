"""Rich tables for a plan of several annotators (a :class:`planner.sizing.plan.Plan`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from planner.output.render import fmt, print_notes, quantity_table
from planner.sizing.plan import RatersPlan
from planner.sizing.precision import RatersPrecision

METRIC_NAMES = {
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
    "psa": "specific positive agreement (Uebersax)",
    "conger": "Conger's kappa",
    "kappa": "mean pairwise Cohen's kappa (Light)",
}


def _assumptions(plan: RatersPlan) -> Table:
    model = plan.model.describe()
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
    s, b = plan.sizing, plan.sizing_budget
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
    spent = f"{b.labels:,} labels"
    if b.adjudication_hours:
        spent += f" + {fmt(b.adjudication_hours)} h adjudicating {fmt(b.contested_items)} items"
    table.add_row("person-hours", fmt(b.person_hours), spent)
    each = b.labelling_hours / s.n_annotators  # of these items (the plug-in answer)
    table.add_row("hours per annotator", fmt(each), f"pool of {s.n_annotators}")
    if b.cost is not None:
        table.add_row("cost", f"{b.cost:,.2f}", "")
    exact = s.basis == "exact"  # two annotators over two categories: the pair's exact search
    table.add_row(
        "half-width",
        fmt(s.half_width_median),
        "median, exact" if exact else f"median over {s.replicates:,} new studies",
    )
    table.add_row(
        "assurance",
        fmt(s.assurance, 3),
        f"± {s.assurance_mc_se:.3f} Monte Carlo SE; target {s.target_assurance:g}",
    )
    table.add_row("interval coverage", fmt(s.coverage, 3), f"{s.method}; simulated at these items")
    start = "large-sample formula" if s.by_pair_search else "plug-in half-width ~ 1/sqrt(n)"
    table.add_row("analytic start", f"{s.analytic_items:,}", start)
    if exact:
        table.add_row("search", "exact", "binomial sums; two annotators are the pair")
    else:
        refined = s.assurance_goal > s.target_assurance
        goal = " (target + 1 MC SE of the check)" if refined else ""
        table.add_row(
            "search", f"{s.search_reps:,} studies", f"assurance >= {s.assurance_goal:.3f}{goal}"
        )
    table.add_row("seed", str(s.seed), "same seed, same answer")
    return table


def _by_annotators(plan: RatersPlan) -> Table:
    hours = plan.sizing_budget.labelling_hours
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


def _precision(precision: RatersPrecision) -> Table:
    p = precision
    given = ", ".join(f"{k} {v:g}" for k, v in p.given.items())
    table = quantity_table(f"Precision of {p.items:,} items ({given})")
    design = (
        f"{p.labels_per_item} of {p.n_annotators} annotators per item"
        if p.labels_per_item < p.n_annotators
        else f"{p.n_annotators} annotators label every item"
    )
    table.add_row("labels", f"{p.labels:,}", design)
    spent = f"{p.labels:,} labels"
    if p.adjudication_hours:
        spent += (
            f" + {fmt(p.adjudication_hours)} h adjudicating the {fmt(p.contested_rate, 3)} "
            "of items whose labels differ"
        )
    table.add_row("person-hours", fmt(p.person_hours), spent)
    if p.cost is not None:
        table.add_row("cost", f"{p.cost:,.2f}", "")
    hw = p.half_width
    table.add_row(
        f"{p.metric}: half-width",
        fmt(hw["p50"], 3),
        f"median; 10-90%: {fmt(hw['p10'], 3)} to {fmt(hw['p90'], 3)} "
        f"({p.replicates:,} simulated studies)",
    )
    table.add_row(
        f"{p.metric}: assurance",
        fmt(p.assurance, 3),
        f"P(half-width <= {p.width:g}) ± {p.assurance_mc_se:.3f} Monte Carlo SE",
    )
    low, high = p.interval["lower"], p.interval["upper"]
    table.add_row(
        f"{p.metric}: typical interval",
        f"{fmt(low, 3)} to {fmt(high, 3)}",
        f"median limits, {p.method}",
    )
    table.add_row(
        f"{p.metric}: interval coverage",
        fmt(p.coverage, 3),
        f"true {p.metric} {fmt(p.true_value)}",
    )
    return table


def _pilot(plan: RatersPlan) -> Table:
    pilot = plan.pilot
    assert pilot is not None
    table = quantity_table(f"Pilot: {pilot.source}")
    table.add_row("annotators", ", ".join(pilot.annotators), "all, latent-class fit")
    table.add_row("items", f"{pilot.items:,}", "")
    what = f"positive {pilot.positive!r}" if pilot.positive is not None else "category order"
    table.add_row("labels", ", ".join(pilot.categories), what)
    dropped = f"; {pilot.unconverged} did not converge" if pilot.unconverged else ""
    table.add_row(
        "bootstrap refits", f"{len(pilot.draws):,}", f"plausible truths, seed {pilot.seed}{dropped}"
    )
    return table


def _uncertainty(plan: RatersPlan) -> Table:
    u, rec = plan.uncertainty, plan.recommended
    assert u is not None and rec is not None
    b = rec.budget
    table = quantity_table(f"Under pilot uncertainty ({u.metric}): the recommendation")
    table.add_row(
        Text("items under uncertainty", style="bold"),
        Text(f"{u.items:,} ± {u.items_mc_se:.1f}", style="bold"),
        f"± Monte Carlo SE; hybrid assurance {u.hybrid_assurance:.3f} ± "
        f"{u.hybrid_assurance_se:.3f} (target {u.target_assurance:g})",
    )
    table.add_row("person-hours", fmt(b.person_hours), f"{b.labels:,} labels")
    if b.cost is not None:
        table.add_row("cost", f"{b.cost:,.2f}", "")
    table.add_row(
        "plug-in items (if the pilot were the truth)",
        f"{u.plug_in_items:,}",
        f"hybrid assurance {u.plug_in_hybrid_assurance:.3f}",
    )
    p = u.posterior
    spread = f"10-90%: {fmt(p['p10'], 3)} to {fmt(p['p90'], 3)}"
    table.add_row(f"posterior {u.metric}", fmt(p["p50"], 3), spread)
    table.add_row("basis", "", u.basis)
    return table


def render_raters_plan(plan: RatersPlan, console: Console) -> None:
    """Print the assumptions, the answer, the fixed-hours table, the fixed-size precision,
    the assurance curve and the notes."""
    if plan.pilot is not None:
        console.print(_pilot(plan))
    console.print(_assumptions(plan))
    console.print(_answer(plan))
    if plan.uncertainty is not None:
        console.print(_uncertainty(plan))
    if plan.by_annotators:
        console.print(_by_annotators(plan))
        console.print("* this plan; half-widths at expected counts (plug-in)", style="dim")
    if plan.precision is not None:
        console.print(_precision(plan.precision))
    if plan.curve is not None:
        from planner.output.render_precision import render_curve

        render_curve(plan.curve, plan.sizing.width, console)
    print_notes(plan.notes, console, style=None)
