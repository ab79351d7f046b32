"""``plan SCENARIO``'s Alt-Test section: the items the scenario's LLM judge needs.

A scenario with ``[alt_test]`` asks whether an LLM judge can replace one of its humans
(:func:`planner.application.alt_test_options.alt_test_for_plan`). The section shows the
planning model in words, the items for P(pass) at or above the target, P(pass) there and at
the scenario's ``alt_test.items``, and the humans' person-hours; the table over 2 to 6
humans and the P(pass) curve are the report's (``report SCENARIO``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.output.render import quantity_table

if TYPE_CHECKING:
    from rich.console import Console

    from planner.sizing.alt_test_plan import AltTestPlanSummary


def render_alt_test_section(summary: AltTestPlanSummary, console: Console) -> None:
    """Print the Alt-Test plan of a scenario's LLM judge (or why it is out of reach)."""
    table = quantity_table(f"Alt-Test: can the LLM judge replace a human? (epsilon "
                           f"{summary.epsilon:g})")  # fmt: skip
    plan = summary.plan
    if plan is None:
        reason = "" if summary.unreachable is None else str(summary.unreachable)
        table.add_row("items", "unreachable", reason)
    else:
        table.add_row(
            f"items (each labelled by all {plan.model.n_humans} humans and the LLM)",
            f"{plan.n_items:,}",
            f"the fewest from which P(pass) stays at or above {plan.power:g} up to "
            f"{plan.searched_to:,} items",
        )
        table.add_row(
            "P(pass)",
            f"{plan.pass_probability:.3f}",
            f"Monte Carlo SE {plan.standard_error:.3f}, {plan.replicates:,} studies",
        )
        if plan.budget is not None:
            cost = "" if plan.budget.cost is None else f"; cost {plan.budget.cost:,.2f}"
            table.add_row(
                "person-hours", f"{plan.budget.person_hours:,.1f}", f"the humans' labels{cost}"
            )
    at = summary.at_items
    if at is not None:
        table.add_row(
            f"P(pass) at the scenario's {at.n_items:,} items",
            f"{at.probability:.3f}",
            f"Monte Carlo SE {at.standard_error:.3f}",
        )
    console.print(table)
    console.print(f"model: {summary.model_description}", style="dim")
    if plan is not None and plan.dips_above_first_crossing:
        console.print(
            f"P(pass) first reaches {plan.power:g} at {plan.first_crossing:,} items but falls "
            f"below it again before {plan.n_items:,} (it is saw-toothed in the items)",
            style="dim",
        )
    console.print(
        f"seed {summary.seed} (drawn from the plan's seed; report SCENARIO adds the table of "
        "2 to 6 humans and the P(pass) curve)",
        style="dim",
    )
