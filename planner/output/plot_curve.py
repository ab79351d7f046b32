"""The assurance curve of ``plan --curve`` as a figure (for reports).

Like :mod:`planner.output.plots`: the function takes a matplotlib ``Axes`` and the curve
the plan computed, draws, and returns the ``Axes``; it computes nothing and never touches
pyplot's global state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.output.report_figures import AssuranceCurve


#: legend names of the curves that are not a metric's own (``metric.upper()`` otherwise)
HYBRID_KEY = "psa_under_pilot_uncertainty"
CURVE_NAMES = {HYBRID_KEY: "PSA under the pilot's uncertainty"}


def assurance_curve_figure(
    ax: Any,
    curve: dict[str, list[dict[str, float]]],
    width: float,
    target: float | None = None,
    planned: int | None = None,
    names: dict[str, str] | None = None,
) -> Any:
    """Assurance ``P(half-width <= width)`` against items, one line per metric.

    Parameters
    ----------
    ax
        A matplotlib ``Axes``.
    curve
        ``{metric: [{"items": n, "assurance": A}, ...]}`` (``Plan.curve``).
    width
        The target half-width the assurance refers to.
    target, planned
        Optional: the target assurance (a horizontal line) and the planned items (vertical).
    names
        Optional legend names by curve key (else :data:`CURVE_NAMES`, else the key in capitals).
    """
    names = {**CURVE_NAMES, **(names or {})}
    for metric, points in curve.items():
        ax.plot(
            [p["items"] for p in points],
            [p["assurance"] for p in points],
            marker="o",
            markersize=2,
            label=f"{names.get(metric, metric.upper())}: P(half-width <= {width:g})",
        )
    if target is not None:
        ax.axhline(target, color="tab:red", linewidth=1, label=f"target assurance {target:g}")
    if planned is not None:
        ax.axvline(planned, color="black", linewidth=1, linestyle=":", label=f"{planned:,} items")
    ax.set_xlabel("items labelled")
    ax.set_ylabel("assurance")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower right", fontsize="small")
    return ax


def report_assurance_figure(ax: Any, data: AssuranceCurve) -> Any:
    """The report's assurance figure: the curve, the target assurance and the planned items."""
    pilot = HYBRID_KEY in data.curve  # then the plain PSA curve takes the pilot as the truth
    names = {"psa": "PSA if the pilot were the truth"} if pilot else None
    ax = assurance_curve_figure(ax, data.curve, data.width, data.assurance, data.planned, names)
    ax.set_xlabel(f"items labelled (the plan: {data.planned:,})")
    return ax
