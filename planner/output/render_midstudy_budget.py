"""The table of ``plan --labelled --hours/--budget``: what the remaining budget buys.

One table for every study in progress (a pair, several annotators, strata): the items bought
and the total, the final interval's expected half-width, the assurance at the total with its
Monte Carlo standard error (``0.084 ± 0.004``), a stratified study's bought items per stratum,
and, for comparison, the items and hours the target itself still needs.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console

from planner.output.render import fmt, quantity_table


def show_bought(result: Any, console: Console) -> None:
    """Print what ``result.bought`` buys (nothing without ``--hours``/``--budget``)."""
    bought = getattr(result, "bought", None)
    if bought is not None:
        console.print(bought_table(bought, result))


def bought_table(bought: Any, r: Any) -> Any:
    """What the remaining hours or budget buy: the items, the total, the final interval."""
    given = (
        f"{bought.hours:g} person-hours"
        if bought.hours is not None
        else f"budget {bought.budget:,.2f}"
    )
    table = quantity_table(f"What the remaining {given} buy")
    priced = (
        "the design's allocation, at each stratum's seconds per item"
        if bought.by_stratum is not None
        else "floor, priced as plan --hours prices"
    )
    table.add_row("items bought", fmt(bought.bought_items), priced)
    for name, items in (bought.by_stratum or {}).items():
        table.add_row(f"  {name}", fmt(items), "")
    table.add_row("total items", fmt(bought.total_items), "labelled + bought")
    table.add_row(
        "expected half-width",
        fmt(bought.half_width_expected),
        f"± {_se(bought.half_width_se)} Monte Carlo SE, final interval at the total",
    )
    table.add_row(
        "assurance at the total",
        f"{bought.assurance:.3f} ± {_se(bought.assurance_se)}",
        f"of half-width <= {r.width:g} (target {r.target_assurance:g}); ± Monte Carlo SE",
    )
    hours = fmt(r.budget.person_hours)
    table.add_row(
        "the target needs",
        fmt(r.remaining_items),
        f"more items ({hours} person-hours) for assurance {r.target_assurance:g}",
    )
    return table


def _se(value: float) -> str:
    """A standard error to two significant digits, in fixed notation (``0.000072``)."""
    if not value > 0 or not math.isfinite(value):
        return "0" if value == 0 else "-"
    return f"{value:.{max(1 - math.floor(math.log10(value)), 3)}f}"
