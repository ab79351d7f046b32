"""What the remaining budget buys for a stratified study in progress.

The bought items follow the design as the remaining items do
(:mod:`planner.sizing.midstudy_strata`): for a design total ``T`` stratum ``h`` gets
``m_h(T) = max(max(ceil(a_h T), floor) - n0_h, 0)`` more items, and they are priced as the
plan prices the remaining items (:func:`planner.sizing.team_cost.priced_strata_budget`). At
the single rate

    ``hours(T) = sum_h m_h(T) (k s_h + q_h t) / 3600``,

``k`` labels per item, ``s_h`` the stratum's seconds per item, ``q_h`` its first-stage
contested share and ``t`` the adjudication seconds (a budget: ``hours(T) c`` at the hourly
rate ``c``); a named team bills each person's share of the labels at their own seconds and
rate (:func:`planner.sizing.team_cost.stratified_team_budget`). ``hours(T)`` does not fall
as ``T`` grows, so the largest affordable ``T`` is found by doubling and bisection, and the
items bought are ``sum_h m_h(T)``. At that total
the expected population-weighted half-width is the mean usable half-width of the simulated
finished studies (each stratum's second stage from its own posterior truth, added to its
first stage) and the assurance the share of them reaching the width, with binomial Monte
Carlo standard error ``sqrt(A (1 - A) / R)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from planner.errors import InvalidInput
from planner.operations.budget import Budget

if TYPE_CHECKING:
    from planner.sizing.midstudy_budget import BoughtItems
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan import PlanSettings


def _priced(studies: Any, prices: tuple[Any, Any], settings: PlanSettings) -> Any:
    """``T -> Budget`` of the items the design adds to reach the total ``T``, the named
    team's person by person or the single rate."""
    from planner.sizing.team_cost import priced_strata_budget

    def cost(total: int) -> Budget:
        return priced_strata_budget(settings, studies.more(total), *prices)

    return cost


def affordable_total(cost: Any, name: str, limit: float, start: int) -> int:
    """The largest design total ``T`` whose added items' ``person_hours`` (``name``
    ``"hours"``) or ``cost`` (``"budget"``) is at most ``limit`` (doubling from ``start``,
    then bisection; ``hours(T)`` is non-decreasing in ``T``)."""
    from planner.sizing.items_bought import MAX_FIXED_ITEMS

    def fits(total: int) -> bool:
        spent = cost(total)
        return float(spent.person_hours if name == "hours" else spent.cost) <= limit + 1e-9

    low, high = 0, max(int(start), 1)
    if not fits(low):
        return -1
    while fits(high):
        low, high = high, 2 * high
        if low > MAX_FIXED_ITEMS:
            raise InvalidInput(
                f"{name} {limit:g} pays for more than the largest number of items "
                f"(max_items {MAX_FIXED_ITEMS:,})",
                parameter=name,
            )
    while high - low > 1:  # fits(low), not fits(high)
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def strata_bought(
    studies: Any,
    prices: tuple[Any, Any],
    settings: PlanSettings,
    knobs: RemainingSettings | None,
    names: list[str],
) -> BoughtItems | None:
    """What ``knobs.hours`` / ``knobs.budget`` buy, allocated by the design (None without
    either).

    Parameters
    ----------
    studies
        The stratified plan's finished studies
        (:class:`planner.sizing.midstudy_strata._StratifiedStudies`).
    prices
        Each stratum's seconds per item and first-stage contested share.
    settings
        ``annotators_per_item``, ``adjudication_seconds`` and ``hourly_rate``.
    knobs
        ``hours`` or ``budget``.
    names
        The strata's names, for ``by_stratum``.
    """
    from planner.sizing.midstudy_budget import BoughtItems, half_width_summary
    from planner.sizing.midstudy_result import share_se

    if knobs is None or (knobs.hours is None and knobs.budget is None):
        return None
    name, limit = ("hours", knobs.hours) if knobs.hours is not None else ("budget", knobs.budget)
    if name == "budget" and settings.hourly_rate is None:
        raise InvalidInput(
            "budget needs hourly_rate (the cost of one person-hour) to buy items",
            parameter="budget",
        )
    cost = _priced(studies, prices, settings)
    n0 = int(studies.counts.sum())
    total = affordable_total(cost, name, float(limit or 0.0), n0)
    more = studies.more(total) if total >= 0 else np.zeros(len(names), dtype=np.int64)
    if int(more.sum()) < 1:
        raise InvalidInput(
            f"{name} {limit:g} does not pay for one more item of the design",
            parameter=name,
        )
    ci = studies.intervals(total)
    half, se, _ = half_width_summary((ci.high - ci.low) / 2, studies.width)
    assurance = studies(total)[0]
    return BoughtItems(
        hours=knobs.hours,
        budget=knobs.budget,
        bought_items=int(more.sum()),
        total_items=n0 + int(more.sum()),
        half_width_expected=half,
        half_width_se=se,
        assurance=assurance,
        assurance_se=share_se(assurance, studies.replicates),
        cost=cost(total),
        by_stratum={n: int(m) for n, m in zip(names, more, strict=True)},
    )
