"""Rich tables of ``planner agree --stratum-col``: agreement on the population, per stratum.

Printed after the report of the sample (:func:`planner.output.render.render_agreement`), whose
coefficients pool the strata as sampled.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.table import Table

from planner.output.jsonout import label_of
from planner.output.render import _print_decision, fmt


def _interval(low: float, high: float) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "-"
    return f"{low:.3f} – {high:.3f}"


def _strata_table(report: Any) -> Table:
    """One row per stratum: population share, items, union positives, PSA."""
    table = Table(title=f"Strata ({report.stratum_col})", title_justify="left", header_style="bold")
    for col in ("stratum", "population share", "sample share", "items", "union positives"):
        table.add_column(col, justify="left" if col == "stratum" else "right")
    table.add_column("PSA" if report.n_annotators == 2 else "specific positive agreement",
                     justify="right")  # fmt: skip
    total = max(1, report.n_items)
    for s in report.strata:
        table.add_row(
            s.name,
            f"{s.share:.4g}",
            f"{s.n_items / total:.3f}",
            f"{s.n_items:,}",
            fmt(s.union_positives),
            "-" if report.positive is None else fmt(s.psa, 3),
        )
    return table


def _weighted_table(report: Any) -> Table:
    """One row per coefficient: weighted estimate, interval, SE, df, the unweighted figure."""
    level = f"{report.confidence_level:.0%}"
    table = Table(
        title="Agreement on the population (strata weighted by their population shares)",
        title_justify="left",
        header_style="bold",
    )
    for col in ("coefficient", "weighted", f"{level} interval", "SE", "t df", "unweighted"):
        table.add_column(col, justify="left" if col == "coefficient" else "right")
    for c in report.coefficients.values():
        table.add_row(
            label_of(c.name),
            f"{c.estimate:.4f}" if math.isfinite(c.estimate) else "undefined",
            _interval(c.ci_low, c.ci_high),
            f"{c.se:.4f}" if math.isfinite(c.se) else "-",
            f"{c.df:.0f}" if math.isfinite(c.df) else "-",
            f"{c.unweighted:.4f}" if math.isfinite(c.unweighted) else "undefined",
        )
    return table


def difference_note(report: Any) -> str:
    """One line on why the weighted and unweighted figures differ."""
    name = "psa" if "psa" in report.coefficients else next(iter(report.coefficients))
    c = report.coefficients[name]
    total = max(1, report.n_items)
    most = max(report.strata, key=lambda s: s.n_items / total / s.share)
    if abs(c.estimate - c.unweighted) < 0.0005:
        return (
            f"weighted and unweighted {label_of(name)} agree ({c.estimate:.3f}): the sample's "
            "mix of strata is close to the population's"
        )
    return (
        f"unweighted {label_of(name)} {c.unweighted:.3f} describes the sample's mix of strata "
        f"({most.name!r} is {most.n_items / total:.1%} of the items, {most.share:.1%} of the "
        f"population); weighted {c.estimate:.3f} describes the population"
    )


def render_stratified(report: Any, console: Console) -> None:
    """Print the per-stratum table, the weighted coefficients, the decision and notes."""
    console.print(_strata_table(report))
    console.print(_weighted_table(report))
    console.print(
        "intervals: linearised ratio estimator, t with Satterthwaite's df, on the logit scale "
        "for PSA and observed agreement and on log(1 - kappa) for kappa",
        style="dim",
    )
    console.print(difference_note(report), style="dim")
    if report.decision is not None:
        d = report.decision
        _print_decision(replace(d, metric=f"the population-weighted {d.metric}"), console)
    for line in report.notes:
        console.print(f"note: {line}", style="dim")
