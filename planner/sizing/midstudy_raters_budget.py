"""What the remaining budget buys for a study of several annotators in progress.

With ``H`` person-hours (or a budget ``B`` at hourly rate ``c``, ``H = B / c``) still to
spend, the items are priced as a fresh plan of several annotators prices them
(:func:`planner.sizing.precision.items_for_hours` on
:class:`planner.sizing.raters_precision.LabelCosts`):

    ``m = floor(3600 H / (M s + q t))``,

every one of the ``M`` annotators labelling every item at ``s`` seconds a label, ``q`` the
latent-class fit's contested share (with adjudication) and ``t`` the adjudication seconds.
The final interval is on the first stage's items plus ``m``: its assurance is the hybrid
assurance ``A_h(m)`` of the mid-study plan
(:class:`planner.sizing.midstudy_raters.FinalStudies`: each simulated second stage drawn
under one bootstrap refit of the first stage and added to it), with binomial Monte Carlo
standard error ``sqrt(A_h (1 - A_h) / R)`` over its ``R`` finished studies, and its expected
half-width the mean usable half-width over the same studies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planner.operations.budget import labelling_budget

if TYPE_CHECKING:
    from planner.sizing.midstudy_budget import BoughtItems
    from planner.sizing.midstudy_raters import FinalStudies
    from planner.sizing.midstudy_settings import RemainingSettings


def raters_bought(
    at: FinalStudies, knobs: RemainingSettings, costs: dict[str, Any]
) -> BoughtItems | None:
    """What ``knobs.hours`` / ``knobs.budget`` buy for several annotators (None without
    either).

    Parameters
    ----------
    at
        The finished studies of the mid-study plan (first stage plus ``m`` simulated items).
    knobs
        ``hours`` or ``budget``.
    costs
        The plan's own costs of the remaining items (the keywords of
        :func:`planner.operations.budget.labelling_budget`: ``annotators_per_item`` the
        study's labels per item, ``contested_rate`` the fit's contested share).
    """
    from planner.sizing.midstudy_budget import (
        BoughtItems,
        binomial_se,
        half_width_summary,
        items_bought,
    )
    from planner.sizing.raters_precision import LabelCosts

    if knobs.hours is None and knobs.budget is None:
        return None
    prices = LabelCosts(
        annotators_per_item=int(costs["annotators_per_item"]),
        seconds_per_item=float(costs["seconds_per_item"]),
        adjudication_seconds=float(costs["adjudication_seconds"]),
        hourly_rate=costs["hourly_rate"],
    )
    more = items_bought(knobs, prices, float(costs["contested_rate"]))
    half, se, _ = half_width_summary(at.intervals(more).half_width, at.study.width)
    assurance = at(more)
    return BoughtItems(
        hours=knobs.hours,
        budget=knobs.budget,
        bought_items=more,
        total_items=int(at.first.sum()) + more,
        half_width_expected=half,
        half_width_se=se,
        assurance=assurance,
        assurance_se=binomial_se(assurance, at.studies),
        cost=labelling_budget(more, **costs),
    )
