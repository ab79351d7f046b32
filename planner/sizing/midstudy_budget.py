"""What the remaining budget buys for a pair's study in progress.

With ``H`` person-hours (or a budget ``B`` at hourly rate ``c``, ``H = B / c``) still to
spend, the items bought are priced as ``plan --hours`` prices them
(:func:`planner.sizing.precision.items_for_hours`, through
:func:`planner.operations.budget.labelling_budget`'s costs):

    ``m = floor(3600 H / (k s + q t))``,

``k`` labels per item, ``s`` seconds per label, ``q = (b0 + c0) / n0`` the first stage's
contested share and ``t`` the adjudication seconds. The final interval is on the
``n0 + m`` items; its assurance is the hybrid assurance of the mid-study plan at ``m``
(:mod:`planner.sizing.midstudy_assurance`), and its expected half-width the mean usable
half-width of ``n_reps`` simulated finished studies, each second stage drawn from its own
first-stage posterior truth ``p ~ Dirichlet(counts + 1/2)`` with the first stage added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.operations.budget import Budget, labelling_budget

if TYPE_CHECKING:
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan import PlanSettings


@dataclass(frozen=True)
class BoughtItems:
    """What the remaining hours or budget buy (``RemainingSettings.hours`` / ``budget``).

    Attributes
    ----------
    hours, budget
        The person-hours or money given (the other is None).
    bought_items
        Items they buy, ``floor(3600 H / (k s + q t))``.
    total_items
        ``labelled_items + bought_items``.
    half_width_expected, half_width_se
        The final interval's mean usable half-width over simulated finished studies, and its
        Monte Carlo standard error.
    assurance
        The hybrid assurance of reaching ``width`` at ``total_items``.
    cost
        Hours and cost of the bought items.
    """

    hours: float | None
    budget: float | None
    bought_items: int
    total_items: int
    half_width_expected: float
    half_width_se: float
    assurance: float
    cost: Budget


def items_bought(knobs: RemainingSettings, settings: PlanSettings, contested_rate: float) -> int:
    """The items the remaining ``hours`` or ``budget`` pay for, priced as a fresh plan's."""
    from planner.sizing.precision import items_for_budget, items_for_hours

    if knobs.hours is not None:
        return items_for_hours(knobs.hours, settings, contested_rate)
    return items_for_budget(float(knobs.budget or 0.0), settings, contested_rate)


def expected_half_width(
    counts: tuple[int, ...], more: int, metric: str, target: Any, n_reps: int, seed: int
) -> tuple[float, float, float]:
    """``(mean, se, share narrow)`` of the final usable half-width with ``more`` items,
    over ``n_reps`` second stages from the first stage's posterior, first stage added."""
    from planner.sizing.exact import usable_half_width
    from planner.sizing.midstudy_assurance import FirstStageStudies
    from planner.sizing.uncertainty import posterior_cells
    from planner.statistics.intervals import kappa_interval, psa_interval

    truth_rng, study_rng = np.random.default_rng([seed, 25]).spawn(2)
    cells = posterior_cells(counts, n_reps, truth_rng)
    tables = FirstStageStudies(cells, np.asarray(counts), study_rng).tables(more)
    interval = psa_interval if metric == "psa" else kappa_interval
    ci = interval(tables.astype(float), target.level, target.method)
    half = np.asarray(usable_half_width(ci.half_width), dtype=float)
    finite = np.where(np.isfinite(half), half, 1.0)
    se = float(np.std(finite, ddof=1) / np.sqrt(n_reps)) if n_reps > 1 else 0.0
    return float(finite.mean()), se, float(np.mean(finite <= target.width))


def bought(
    counts: tuple[int, int, int, int],
    metric: str,
    target: Any,
    settings: PlanSettings,
    knobs: RemainingSettings,
    seed: int,
    assurance_at: Any,
) -> BoughtItems | None:
    """What ``knobs.hours`` / ``knobs.budget`` buy (None without either); ``assurance_at``
    is the plan's hybrid assurance at ``m`` more items (None: the interval in hand is
    narrow, and the simulated share is used)."""
    if knobs.hours is None and knobs.budget is None:
        return None
    labelled = sum(counts)
    contested = (counts[1] + counts[2]) / labelled
    more = items_bought(knobs, settings, contested)
    half, se, share = expected_half_width(counts, more, metric, target, settings.n_reps, seed)
    cost = labelling_budget(
        more,
        annotators_per_item=settings.annotators_per_item,
        seconds_per_item=settings.seconds_per_item,
        contested_rate=contested,
        adjudication_seconds=settings.adjudication_seconds,
        hourly_rate=settings.hourly_rate,
    )
    return BoughtItems(
        hours=knobs.hours,
        budget=knobs.budget,
        bought_items=more,
        total_items=labelled + more,
        half_width_expected=half,
        half_width_se=se,
        assurance=share if assurance_at is None else float(assurance_at(more)),
        cost=cost,
    )
