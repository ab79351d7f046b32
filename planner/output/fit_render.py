"""Tables of a latent-class fit (``planner fit``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from planner.output.render import print_notes


def _limits(interval: Any) -> str:
    lower, upper = (float(x) for x in interval)
    return "-" if lower != lower else f"{lower:.3f} to {upper:.3f}"


def _cell(estimate: float, interval: Any) -> str:
    lower, upper = (float(x) for x in interval)
    return f"{estimate:.3f}" if lower != lower else f"{estimate:.3f} [{lower:.2f}, {upper:.2f}]"


def _data_table(fit: Any, source: str) -> Table:
    table = Table(title=f"Data: {source}", title_justify="left", header_style="bold")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("note", style="dim")
    table.add_row("items", f"{fit.n_items:,}", f"{len(fit.multiplicity):,} distinct patterns")
    table.add_row("annotators", f"{fit.n_annotators:,}", ", ".join(fit.annotators[:8]))
    table.add_row("categories", f"{fit.n_categories:,}", ", ".join(map(str, fit.categories[:8])))
    return table


def _prevalence_table(fit: Any) -> Table:
    level = f"{fit.confidence_level:.0%}"
    table = Table(title="Class prevalences", title_justify="left", header_style="bold")
    for column in ("true class", "prevalence", f"{level} interval"):
        table.add_column(column, justify="left" if column == "true class" else "right")
    for t, category in enumerate(fit.categories):
        table.add_row(
            str(category), f"{fit.prevalence[t]:.3f}", _limits(fit.prevalence_interval[t])
        )
    return table


def _confusion_table(fit: Any, j: int) -> Table:
    table = Table(
        title=f"Annotator {fit.annotators[j]}: P(label | true class), {fit.confidence_level:.0%} "
        "interval",
        title_justify="left",
        header_style="bold",
    )
    table.add_column("true \\ label")
    for category in fit.categories:
        table.add_column(str(category), justify="right")
    for t, category in enumerate(fit.categories):
        cells = [
            _cell(fit.confusion[j, t, k], fit.confusion_interval[j, t, k])
            for k in range(fit.n_categories)
        ]
        table.add_row(str(category), *cells)
    return table


def _binary_table(fit: Any, rates: Any) -> Table:
    table = Table(
        title=f"Per annotator (positive = {rates.positive}, prevalence {rates.prevalence:.3f}); "
        "error rate and bias as plan's --error-rate and --bias",
        title_justify="left",
        header_style="bold",
    )
    for column in ("annotator", "sensitivity", "specificity", "error rate", "bias"):
        table.add_column(column, justify="left" if column == "annotator" else "right")
    for j, name in enumerate(fit.annotators):
        table.add_row(
            name,
            f"{rates.sensitivity[j]:.3f}",
            f"{rates.specificity[j]:.3f}",
            f"{rates.error_rate[j]:.4f}",
            f"{rates.bias[j]:+.3f}",
        )
    return table


def render_fit(
    fit: Any, rates: Any, console: Console, *, source: str, notes: list[str] | tuple[str, ...]
) -> None:
    """Print what was read, the prevalences, each confusion matrix, and the fit's numbers."""
    console.print(_data_table(fit, source))
    console.print(_prevalence_table(fit))
    for j in range(fit.n_annotators):
        console.print(_confusion_table(fit, j))
    if rates is not None:
        console.print(_binary_table(fit, rates))
    boot = (
        f"{fit.n_boot} bootstrap refits (seed {fit.seed}; {fit.bootstrap_unconverged} hit max_iter)"
        if fit.n_boot
        else "no bootstrap"
    )
    console.print(
        f"EM from vote shares: converged in {fit.iterations} iterations (largest parameter "
        f"change < {fit.tolerance:g}), log-likelihood {fit.log_likelihood:.4f}; {boot}"
    )
    print_notes(notes, console, style=None)
