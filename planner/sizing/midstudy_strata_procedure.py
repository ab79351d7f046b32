"""A stratified study in progress, labelled in batches and simulated to its end.

The procedure of :mod:`planner.sizing.midstudy_procedure` for a stratified design: from the
first stage's counts ``(a, b, c, d)_h`` of each stratum (kept in the analysis), label ``B``
items at a time, re-compute the population-weighted interval after each batch and stop when
its half-width is at most the width (the re-plan then asks for no more), or before a batch
that would pass ``max_items``.

**Allocation.** The batches follow the design as the fixed plan does: after ``k`` batches the
``S = k B`` new items are those the plan would add for the smallest design total ``T`` with
``sum_h m_h(T) >= S``, ``m_h(T) = max(max(ceil(a_h T), floor) - n0_h, 0)``
(:class:`planner.sizing.midstudy_strata._StratifiedStudies`), less the excess, taken from
the strata that step up last (in order of their design shares, smallest first). A stratum
the first stage over-holds gets nothing until the design's share catches up with it, and a
batch equal to the plan's remaining items is exactly the plan's second stage. The allocation
depends on ``S`` only, so it is the same in every simulated procedure.

**Truths and coverage.** Procedure ``r`` draws each stratum's truth from its posterior
``Dirichlet(counts_h + 1/2)`` (Jeffreys) and grows stratum ``h`` by
``Multinomial(s_h, p_rh)`` in every batch, every procedure at once (a loop over batches and
strata, never over items). The final interval covers when it holds the truth's population
PSA ``2 sum W_h a_h / (2 sum W_h a_h + sum W_h (b_h + c_h))``. Several annotators count
patterns instead of cells, and their truth is the weighted coefficient of the posterior
pattern probabilities (:class:`planner.sizing.midstudy_strata.StrataAnalysis`).

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
Cochran WG (1977) Sampling Techniques, 3rd ed. Wiley (5.9, the cost-optimal allocation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.exact import usable_half_width
from planner.sizing.midstudy_procedure import (
    MAX_BATCHES,
    BatchProcedure,
    checked_batches,
    summarise,
)
from planner.sizing.midstudy_settings import RemainingSettings
from planner.validation import RngLike, seed_from

if TYPE_CHECKING:
    from planner.sizing.midstudy_strata import StrataStage
    from planner.sizing.plan import PlanSettings


def batch_allocation(studies: Any, added: int) -> NDArray[np.int64]:
    """The new items of each stratum once ``added`` items have been labelled after the first
    stage (module docstring: the plan's ``m_h(T)`` for the smallest ``T`` reaching ``added``,
    less the excess)."""
    if added <= 0:
        return np.zeros(studies.counts.shape[0], dtype=np.int64)
    low, high = 0, int(studies.counts.sum()) + int(added)  # sum_h m_h(n0 + S) >= S
    while low < high:  # the smallest T with sum_h m_h(T) >= added
        mid = (low + high) // 2
        if int(studies.more(mid).sum()) >= added:
            high = mid
        else:
            low = mid + 1
    top = studies.more(low)
    base = studies.more(low - 1) if low > 0 else np.zeros_like(top)
    excess = int(top.sum()) - int(added)
    for h in np.argsort(studies.design, kind="stable"):
        cut = min(excess, int(top[h] - base[h]))
        top[h] -= cut
        excess -= cut
    return top


def run_strata_batches(
    studies: Any, batch_size: int, max_items: int, rng: np.random.Generator
) -> tuple[NDArray, NDArray]:
    """Grow every procedure by batches of ``batch_size`` items, allocated by
    :func:`batch_allocation`, until its weighted interval reaches the width (or the next batch
    would pass ``max_items``): the final ``(R, H, columns)`` counts and whether each stopped
    narrow."""

    def narrow(tables: NDArray) -> NDArray:
        ci = studies.weighted(tables)
        return np.asarray(usable_half_width((ci.high - ci.low) / 2) <= studies.width)

    tables = np.repeat(studies.counts[None].astype(np.int64), studies.replicates, axis=0)
    n0 = int(studies.counts.sum())
    done = narrow(tables)
    given = batch_allocation(studies, 0)
    for k in range(1, MAX_BATCHES + 2):
        active = ~done
        if n0 + k * batch_size > max_items or not active.any():
            return tables, done
        now = batch_allocation(studies, k * batch_size)
        for h in np.flatnonzero(now > given):
            drawn = rng.multinomial(int(now[h] - given[h]), studies.cells[active, h])
            tables[active, h] += drawn
        given = now
        done[active] = narrow(tables[active])
    raise InvalidInput(
        f"batch_size {batch_size:,} needs more than {MAX_BATCHES:,} batches before some "
        "simulated procedures reach the width; use a larger batch_size",
        parameter="batch_size",
    )


def strata_batch_procedure(
    stage: StrataStage,
    plan_settings: PlanSettings,
    remaining: RemainingSettings,
    *,
    rng: RngLike = None,
) -> BatchProcedure:
    """The batch procedure of a stratified study in progress (module docstring).

    Parameters
    ----------
    stage
        The first stage and the design
        (:class:`planner.sizing.midstudy_strata.StrataStage`).
    plan_settings
        The weighted interval's target ``width`` at ``confidence_level``; ``max_items`` (a
        procedure stops before a batch that would pass it) and ``replicates`` simulated
        procedures (each with its own posterior truths).
    remaining
        ``batch_size``: items per batch, allocated across the strata by the design.
    rng
        Anything :func:`numpy.random.default_rng` takes.

    Returns
    -------
    BatchProcedure
        The population-weighted final interval's coverage, the total items' mean and 10th,
        50th and 90th percentiles, the share that stopped at the width, and the notes.
    """
    from planner.sizing.midstudy_strata import _checked_strata, _stage_settings, _StratifiedStudies

    s, analysis = _stage_settings(stage, plan_settings)
    batch_size = checked_batches(s, remaining)
    table, w, a = _checked_strata(
        stage.counts, stage.names, stage.shares, stage.design_shares, analysis.columns
    )
    seed = seed_from(rng)
    setting = (s.width, s.confidence_level, s.replicates, seed)
    studies = _StratifiedStudies(table, w, a, int(stage.floor_items), setting, analysis)
    generator = np.random.default_rng([seed, 1])
    tables, stopped = run_strata_batches(studies, batch_size, s.max_items, generator)
    ci = studies.weighted(tables)
    truth = studies.truth
    with np.errstate(invalid="ignore"):
        hit = np.asarray((ci.low <= truth + 1e-12) & (truth - 1e-12 <= ci.high))
    knobs = {"batch_size": remaining.batch_size, "level": s.confidence_level}
    where = "each stratum's posterior (Jeffreys: Dirichlet(counts + 1/2)), weighted"
    totals = tables.sum(axis=(1, 2))
    return summarise(hit, totals, stopped, {**knobs, "max_items": s.max_items}, where)
