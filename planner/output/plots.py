"""Figures. Each function takes a matplotlib ``Axes`` and precomputed data (the frozen records
of :mod:`planner.output.report_figures`), draws, and returns the ``Axes``; nothing here
computes a statistic or touches pyplot's global state.

Figures are 800 x 450 pixels (8 x 4.5 inches at 100 dpi) with 11-point text, so that they
are read at their natural size in a browser at 100 % zoom (a report page is 960 pixels wide).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.output.report_figures import metric_name

if TYPE_CHECKING:
    from planner.output.report_alt_test import PassCurve
    from planner.output.report_figures import (
        BurndownBand,
        DecisionThresholds,
        EstimateSpread,
        HalfWidthCurve,
        HoursBars,
    )

FIGURE_SIZE = (8.0, 4.5)
FIGURE_DPI = 100
FONT: dict[str, Any] = {"font.size": 11, "legend.fontsize": 10, "axes.labelsize": 11}
COST_LABEL = "cost (hourly rate × person-hours)"


def save_png(draw: Callable[..., Any], path: Path, *data: Any) -> None:
    """Draw ``draw(ax, *data)`` on a new figure and save it as a PNG (no timestamp metadata)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(FONT):  # type: ignore[arg-type]
        fig = Figure(figsize=FIGURE_SIZE, dpi=FIGURE_DPI)
        FigureCanvasAgg(fig)
        draw(fig.add_subplot(), *data)
        fig.tight_layout()
        fig.savefig(path, format="png", metadata={"Software": None})


def half_width_curve(ax: Any, curve: HalfWidthCurve) -> Any:
    """Half-width against items (union positives on the top axis), target and assurance."""
    items = np.asarray(curve.items)
    ax.fill_between(
        items, curve.p10, curve.p90, alpha=0.25, color="tab:blue", label="10th-90th percentile"
    )
    ax.plot(items, curve.median, color="tab:blue", label="median")
    ax.plot(
        items,
        curve.at_assurance,
        color="tab:blue",
        linestyle="--",
        label=f"{curve.assurance:g} quantile (the assurance)",
    )
    ax.axhline(curve.width, color="tab:red", linewidth=1, label=f"target {curve.width:g}")
    ax.axvline(
        curve.planned,
        color="black",
        linewidth=1,
        linestyle=":",
        label=f"planned: {curve.planned:,} items",
    )
    ax.set_xlabel("items labelled")
    ax.set_ylabel(f"{metric_name(curve.metric)} interval half-width")
    rate = curve.union_rate
    if np.isfinite(rate) and rate > 0:  # two categories: items someone labels positive
        top = ax.secondary_xaxis("top", functions=(lambda n: n * rate, lambda u: u / rate))
        top.set_xlabel("expected union positives (items)")
    ax.legend()
    ax.grid(alpha=0.3)
    return ax


BAR_COLOURS = {
    "plan": "tab:gray",
    "stop": "tab:orange",
    "worst": "tab:purple",
    "uniform": "tab:gray",
    "enriched": "tab:orange",
    "weighted": "tab:green",
}


def hours_by_design(ax: Any, bars: HoursBars) -> Any:
    """Person-hours per design (or sampling rule), with items, hours and cost on each bar."""
    positions = np.arange(len(bars.labels))
    colours = [BAR_COLOURS.get(kind, "tab:blue") for kind in bars.kinds]
    drawn = ax.bar(positions, bars.hours, color=colours)
    for bar, items, cost in zip(drawn, bars.items, bars.costs, strict=True):
        text = f"{items:,.0f} items\n{bar.get_height():,.1f} person-hours"
        if cost is not None:
            text += f"\ncost {cost:,.0f}"
        ax.annotate(
            text,
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_xticks(positions, bars.labels, fontsize=9)
    ax.set_ylabel("person-hours (h)")
    if any(cost is not None for cost in bars.costs):
        ax.set_title(f"{COST_LABEL}, in the rate's currency", fontsize=9, loc="right")
    ax.margins(y=0.35)
    ax.grid(axis="y", alpha=0.3)
    return ax


def burndown(ax: Any, band: BurndownBand) -> Any:
    """Share of items still open against calendar days: per-day median inside its 10-90 % band.

    The median and the band are quantiles over the runs on the same days, and both are drawn
    the same way (straight lines between days), so the median stays inside the band.
    """
    ax.fill_between(
        band.days, band.p10, band.p90, alpha=0.3, color="tab:green", label="10th-90th percentile"
    )
    ax.plot(band.days, band.median, color="tab:green", label=f"per-day median of {band.runs} runs")
    ax.axvline(
        band.finish_median,
        color="black",
        linestyle=":",
        linewidth=1,
        label=f"median finish: day {band.finish_median:g}",
    )
    ax.set_xlabel("calendar days from the start")
    ax.set_ylabel("share of items not finished")
    ax.set_ylim(0, 1.02)
    ax.legend()
    ax.grid(alpha=0.3)
    return ax


def estimate_distribution(
    ax: Any, spread: EstimateSpread, thresholds: DecisionThresholds | None = None
) -> Any:
    """Histogram of simulated estimates, the assumed true value, the typical interval and the
    thresholds of the decision rule (read against the interval's limits)."""
    metric = metric_name(spread.metric)
    ax.axvspan(
        spread.interval_lower,
        spread.interval_upper,
        color="tab:orange",
        alpha=0.2,
        zorder=0,
        label=(
            f"typical {spread.confidence_level:.0%} interval {spread.interval_lower:.3f} "
            f"to {spread.interval_upper:.3f}"
        ),
    )
    ax.stairs(spread.density, spread.bin_edges, fill=True, color="tab:blue", alpha=0.6)
    ax.axvline(spread.truth, color="tab:red", label=f"assumed true {metric} {spread.truth:.3f}")
    if thresholds is not None:
        for value, text, style in (
            (thresholds.not_demonstrated_below, "not demonstrated if the upper limit <", ":"),
            (thresholds.demonstrated_at, "demonstrated if the lower limit ≥", "--"),
        ):
            ax.axvline(
                value, color="black", linestyle=style, linewidth=1, label=f"{text} {value:g}"
            )
    ax.set_xlabel(f"{metric} estimated by one study of the planned size")
    ax.set_ylabel("density (share of studies per unit)")
    ax.legend()
    return ax


def pass_probability_curve(ax: Any, curve: PassCurve) -> Any:
    """P(the Alt-Test passes) against items: the Monte Carlo estimate with a band of two
    standard errors, the target power and the planned items."""
    items = np.asarray(curve.items)
    p = np.asarray(curve.pass_probability)
    se = np.asarray(curve.standard_error)
    ax.fill_between(items, np.clip(p - 2 * se, 0, 1), np.clip(p + 2 * se, 0, 1), alpha=0.25)
    ax.plot(items, p, marker="o", markersize=3, label="P(pass), ± 2 standard errors")
    ax.axhline(curve.power, color="tab:red", linewidth=1, label=f"target {curve.power:g}")
    for n, label, style in (
        (curve.planned, "planned {:,} items", ("black", ":")),
        (curve.items_given, "the study's {:,} items", ("tab:gray", "--")),
    ):
        if n is not None:
            color, line = style
            ax.axvline(n, color=color, linewidth=1, linestyle=line, label=label.format(n))
    ax.set_xlabel("items, each labelled by every human and the LLM")
    ax.set_ylabel("P(the LLM passes the Alt-Test)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower right")
    return ax
