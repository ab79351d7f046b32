"""The weighted design of a pilot's strata under the pilot's uncertainty.

A pilot labelled by stratum (:func:`planner.sizing.strata_file.pilot_strata` for a pair,
:func:`~planner.sizing.strata_file.pilot_pattern_strata` for several annotators, whose
"cells" are the items per count pattern) gives each stratum's plug-in cells; the weighted
design is sized on them as if they were the truth. Here each simulated study draws its own
truth instead: stratum ``h``'s cells from the posterior ``Dirichlet(counts_h + 1/2)``
(Jeffreys) of its pilot counts, independently across strata, then ``Multinomial(n_h, p_rh)``
items of the design's split ``n_h`` of the total. The hybrid assurance of a total ``N`` is the
share of those studies whose population-weighted interval (the weighted design's own, of
:func:`planner.sizing.strata_designs.weighted_search`: a pair's
:func:`planner.sizing.design.weighted_estimate`, several annotators' interval of their count
patterns) has half-width at most the width; :func:`weighted_under_pilot` finds the smallest
``N`` at the plug-in design's allocation that reaches the target, by the weighted design's search
(:func:`planner.sizing.design.size_stratified`), and the hybrid assurance of the plug-in
design's own items.

References
----------
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.sizing.design import StratifiedSearch, size_stratified
from planner.sizing.exact import reaches_width

#: the spawn key of the posterior truths, under the comparison's seed
TRUTH_STREAM = 9


@dataclass(frozen=True)
class StrataPilotUncertainty:
    """The weighted design under the pilot's uncertainty (module description).

    ``items`` and ``items_per_stratum``: the smallest total, at the plug-in design's
    allocation, whose hybrid assurance reaches ``target_assurance``; ``assurance`` its hybrid
    assurance; ``plug_in_items`` and ``plug_in_assurance``: the plug-in design's total and its
    hybrid assurance; ``replicates`` simulated studies per total, each with its own truth.
    """

    items: int
    items_per_stratum: tuple[int, ...]
    assurance: float
    plug_in_items: int
    plug_in_assurance: float
    target_assurance: float
    replicates: int


class PosteriorStratifiedStudies:
    """Studies whose strata draw their own truths from the pilot's posteriors: ``(R, H, C)``
    cell (or count-pattern) probabilities from ``Dirichlet(counts_h + 1/2)``, and at each
    size fresh ``Multinomial(n_h, p_rh)`` counts from one seed (the same random numbers at
    every size), shaped ``(R, H, *cell_shape)``: the designs read a pair's and several
    annotators' alike as ``(C,)`` items per cell or count pattern."""

    def __init__(
        self,
        counts: NDArray,
        replicates: int,
        rng: np.random.Generator,
        cell_shape: tuple[int, ...],
    ) -> None:
        self.cells = np.stack(
            [rng.dirichlet(np.asarray(c, dtype=float) + 0.5, size=replicates) for c in counts],
            axis=1,
        )
        self.seed = int(rng.integers(2**63))
        self.cell_shape = cell_shape

    def tables(self, items: list[int]) -> NDArray:
        """``(R, H, *cell_shape)`` counts of ``items[h]`` items in stratum ``h``."""
        rng = np.random.default_rng(self.seed)
        drawn = [rng.multinomial(int(n), self.cells[:, h]) for h, n in enumerate(items)]
        shape = (self.cells.shape[0], len(items), *self.cell_shape)
        return np.stack(drawn, axis=1).reshape(shape)


def weighted_under_pilot(
    counts: NDArray,
    proportions: NDArray,
    statistic: Any,
    search: StratifiedSearch,
    plug_in: list[int],
    rng: np.random.Generator,
    cell_shape: tuple[int, ...],
) -> StrataPilotUncertainty:
    """The weighted design's total under the pilot's uncertainty (module description).

    ``counts`` ``(H, C)`` the pilot's per stratum: a pair's (both, a only, b only, neither),
    or several annotators' items per count pattern, simulated as ``cell_shape``
    (the designs of :mod:`planner.sizing.strata_designs` read every study's as ``(C,)``
    pattern counts, a pair's and several annotators' alike); ``proportions``, ``statistic``
    and ``search`` the plug-in weighted design's allocation, interval (counts to half-widths and
    estimates) and search, started at the plug-in design's total; ``plug_in`` its items per
    stratum.
    """
    from dataclasses import replace

    studies = PosteriorStratifiedStudies(counts, search.replicates, rng, cell_shape)
    items, half_widths, _ = size_stratified(
        [None] * len(counts), proportions, statistic,
        replace(search, start=int(sum(plug_in))), rng=rng, studies=lambda *_: studies,
    )  # fmt: skip
    at_plug_in = statistic(studies.tables(list(plug_in)))
    return StrataPilotUncertainty(
        items=int(sum(items)),
        items_per_stratum=tuple(int(n) for n in items),
        assurance=float(np.mean(reaches_width(half_widths, search.width))),
        plug_in_items=int(sum(plug_in)),
        plug_in_assurance=float(np.mean(reaches_width(at_plug_in[0], search.width))),
        target_assurance=search.assurance,
        replicates=search.replicates,
    )
