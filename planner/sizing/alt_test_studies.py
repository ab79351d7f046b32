"""Nested Alt-Test studies in bounded memory: P(pass) on a grid of sizes, walked upwards.

A replicate study is a sequence of items; an item's difference class (its vector
``(d_1, ..., d_M)``, :func:`planner.sizing.alt_test_plan.difference_classes`) is all the test
needs, and of a study only each human's counts of ``d = -1, 0, +1``: the state of ``R``
studies is an ``(R, M, 3)`` array. The studies grow along a grid of sizes
``n_0 < n_1 < ...`` (:func:`size_grid`); from ``n_k`` to ``n_{k+1}`` every study adds a
``multinomial(n_{k+1} - n_k, p)`` draw of class counts, reduced at once to the humans'
counts. Every size is therefore a superset of the smaller ones (common random numbers), and
P(pass) at each grid size is the share of studies that pass there.

**Memory.** The studies are :class:`planner.sizing.studies.GrowingReducedStudies`: drawn in
blocks of 1,000 studies, each with its own stream (``SeedSequence(seed).spawn``), and the
classes in groups of at most :data:`CLASS_GROUP` (a multinomial over the groups, then one
within each group: the same law). A draw thus holds at most ``1000 x CLASS_GROUP`` counts
(8 MB) whatever ``K^(M+1)``, the state ``24 R M`` bytes, and the test is run on blocks of
``block_replicates`` studies. The random numbers depend on the blocks only, so the answers
do not depend on ``block_replicates`` (a test checks).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from planner.sizing.alt_test_settings import BLOCK_REPLICATES
from planner.sizing.studies import CLASS_GROUP, GrowingReducedStudies
from planner.statistics.alt_test_stats import by_rejections, difference_test

__all__ = ["CLASS_GROUP", "BLOCK_REPLICATES", "NestedPassStudies", "size_grid"]

#: the grid's step is one item up to this size, then about 1/STEP_SHARE of the size
STEP_SHARE = 200


def size_grid(start: int, stop: int) -> list[int]:
    """Sizes from ``start`` to ``stop`` (both included): every item up to
    :data:`STEP_SHARE` items, then steps of ``floor(n / STEP_SHARE)``, about 0.5 % of ``n``."""
    sizes = [start]
    while sizes[-1] < stop:
        sizes.append(min(stop, sizes[-1] + max(1, sizes[-1] // STEP_SHARE)))
    return sizes


class NestedPassStudies:
    """``replicates`` nested studies of the Alt-Test, grown along increasing sizes.

    ``pass_probability(n)`` moves every study to ``n`` items (``n`` at least the current
    size) and returns the share that passes (``omega >= 0.5``: at least half the humans'
    hypotheses rejected by Benjamini-Yekutieli at ``q``).
    """

    def __init__(
        self,
        d: NDArray[np.int64],
        prob: NDArray[np.float64],
        replicates: int,
        seed: int,
        *,
        epsilon: float,
        q: float,
        block_replicates: int = BLOCK_REPLICATES,
    ) -> None:
        self.epsilon, self.q, self.replicates = epsilon, q, replicates
        self.block = max(1, int(block_replicates))
        self.m = d.shape[1]
        # (C, 3M): class c adds one to each human's count of its d
        onehot = (d[:, :, None] == np.array([-1, 0, 1])).reshape(len(prob), -1)
        self.studies = GrowingReducedStudies(prob, onehot, replicates, rng=seed)

    @property
    def n(self) -> int:
        """The studies' current number of items."""
        return self.studies.n_items

    @property
    def state(self) -> NDArray[np.int64]:
        """``(R, M, 3)``: each study's humans' counts of ``d = -1, 0, +1``."""
        return self.studies.state.reshape(-1, self.m, 3)

    def grow(self, n_items: int) -> None:
        """Add items to every study until it has ``n_items``."""
        self.studies.grow(n_items)

    def pass_probability(self, n_items: int) -> float:
        """Share of the studies that pass at ``n_items`` (after growing them there)."""
        self.grow(n_items)
        passed = 0
        state = self.state
        for start in range(0, self.replicates, self.block):
            per_human = state[start : start + self.block]
            _, p, _ = difference_test(per_human, self.epsilon)
            passed += int(np.sum(2 * by_rejections(p, self.q).sum(axis=1) >= self.m))
        return passed / self.replicates
