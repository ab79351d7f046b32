"""Figures. Each function takes a matplotlib ``Axes`` and precomputed data, draws, and
returns the ``Axes``; nothing here computes a statistic or touches pyplot's global state."""

from __future__ import annotations

from typing import Any

import numpy as np


def half_width_curve(ax: Any, curve: dict[str, Any]) -> Any:
    """Half-width against items (union positives on the top axis), target and assurance."""
    items = np.asarray(curve["items"])
    ax.fill_between(
        items,
        curve["p10"],
        curve["p90"],
        alpha=0.25,
        color="tab:blue",
        label="10th to 90th percentile of simulated studies",
    )
    ax.plot(items, curve["median"], color="tab:blue", label="median half-width")
    ax.plot(
        items,
        curve["at_assurance"],
        color="tab:blue",
        linestyle="--",
        label=f"half-width at assurance {curve['assurance']:g}",
    )
    ax.axhline(curve["width"], color="tab:red", linewidth=1, label=f"target {curve['width']:g}")
    ax.axvline(
        curve["planned"],
        color="black",
        linewidth=1,
        linestyle=":",
        label=f"planned: {curve['planned']:,} items",
    )
    ax.set_xlabel("items labelled")
    ax.set_ylabel(f"{curve['metric'].upper()} interval half-width")
    rate = curve["union_rate"]
    top = ax.secondary_xaxis("top", functions=(lambda n: n * rate, lambda u: u / rate))
    top.set_xlabel("expected union positives")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def hours_by_design(
    ax: Any, labels: list[str], hours: list[float], costs: list[float | None]
) -> Any:
    """Person-hours per design (or per sampling rule), with costs written on the bars."""
    positions = np.arange(len(labels))
    bars = ax.bar(
        positions, hours, color=["tab:gray", "tab:orange", "tab:green", "tab:purple"][: len(labels)]
    )
    for bar, cost in zip(bars, costs, strict=True):
        text = f"{bar.get_height():,.0f} h" + (f"\n{cost:,.0f}" if cost is not None else "")
        ax.annotate(
            text,
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_xticks(positions, labels, fontsize=8)
    ax.set_ylabel("person-hours")
    ax.margins(y=0.2)
    ax.grid(axis="y", alpha=0.3)
    return ax


def burndown(ax: Any, schedule: dict[str, Any]) -> Any:
    """Share of items still open against calendar days, median and 10-90 % band."""
    days = schedule["burndown_days"]
    ax.fill_between(
        days,
        schedule["burndown_p10"],
        schedule["burndown_p90"],
        alpha=0.3,
        color="tab:green",
        label="10th to 90th percentile of runs",
    )
    ax.step(days, schedule["burndown_median"], where="post", color="tab:green", label="median run")
    ax.axvline(
        schedule["calendar_days_median"],
        color="black",
        linestyle=":",
        linewidth=1,
        label=f"median finish: day {schedule['calendar_days_median']:g}",
    )
    ax.set_xlabel("calendar days")
    ax.set_ylabel("share of items not finished")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


def estimate_distribution(
    ax: Any, estimates: np.ndarray, truth: float, interval: tuple[float, float], metric: str
) -> Any:
    """Histogram of simulated estimates with the true value and the typical interval."""
    finite = estimates[np.isfinite(estimates)]
    ax.hist(finite, bins=40, color="tab:blue", alpha=0.7, density=True)
    ax.axvline(truth, color="tab:red", label=f"assumed true {metric.upper()} {truth:.3f}")
    ax.axvspan(
        interval[0],
        interval[1],
        color="tab:orange",
        alpha=0.2,
        label=f"typical 95% interval {interval[0]:.3f} to {interval[1]:.3f}",
    )
    ax.set_xlabel(f"{metric.upper()} estimated by a study of the planned size")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    return ax
