"""Nested Alt-Test studies in bounded memory: P(pass) on a grid of sizes, walked upwards.

A replicate study is a sequence of items; an item's difference class (its vector
``(d_1, ..., d_M)``, :func:`planner.sizing.alt_test_plan.difference_classes`) is all the test
needs, and of a study only each human's counts of ``d = -1, 0, +1``: the state of ``R``
studies is an ``(R, M, 3)`` array. The studies grow along a grid of sizes
``n_0 < n_1 < ...`` (:func:`size_grid`); from ``n_k`` to ``n_{k+1}`` every study adds a
``multinomial(n_{k+1} - n_k, p)`` draw of class counts, reduced at once to the humans'
counts. Every size is therefore a superset of the smaller ones (common random numbers), and
P(pass) at each grid size is the share of studies that pass there.

**Memory.** The replicates are drawn in chunks of :data:`CHUNK` studies, each with its own
stream (``SeedSequence(seed).spawn``), and the classes in groups of at most
:data:`CLASS_GROUP` (a multinomial over the groups, then one within each group: the same law).
A draw thus holds at most ``CHUNK x CLASS_GROUP`` counts (8 MB) whatever ``K^(M+1)``, the
state ``24 R M`` bytes, and the test is run on blocks of ``block_replicates`` studies. The
random numbers depend on the chunks only, so the answers do not depend on
``block_replicates`` (a test checks).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from planner.statistics.alt_test_stats import by_rejections, difference_test

#: studies per random stream (the unit of the random numbers)
CHUNK = 1000
#: classes per multinomial draw (the largest draw holds CHUNK x CLASS_GROUP counts)
CLASS_GROUP = 1024
#: studies whose test is computed at once, by default
BLOCK_REPLICATES = 20_000
#: the grid's step is one item up to this size, then about 1/STEP_SHARE of the size
STEP_SHARE = 200


def size_grid(start: int, stop: int) -> list[int]:
    """Sizes from ``start`` to ``stop`` (both included): every item up to
    :data:`STEP_SHARE` items, then steps of ``floor(n / STEP_SHARE)``, about 0.5 % of ``n``."""
    sizes = [start]
    while sizes[-1] < stop:
        sizes.append(min(stop, sizes[-1] + max(1, sizes[-1] // STEP_SHARE)))
    return sizes


def _reduced(counts: NDArray[np.int64], onehot: NDArray[np.float64], m: int) -> NDArray[np.int64]:
    """``(R, M, 3)`` the humans' counts of ``d = -1, 0, +1`` from ``(R, C)`` class counts."""
    return np.rint(counts.astype(float) @ onehot).astype(np.int64).reshape(-1, m, 3)


class NestedPassStudies:
    """``n_reps`` nested studies of the Alt-Test, grown along increasing sizes.

    ``pass_probability(n)`` moves every study to ``n`` items (``n`` at least the current
    size) and returns the share that passes (``omega >= 0.5``: at least half the humans'
    hypotheses rejected by Benjamini-Yekutieli at ``q``).
    """

    def __init__(
        self,
        d: NDArray[np.int64],
        prob: NDArray[np.float64],
        n_reps: int,
        seed: int,
        *,
        epsilon: float,
        q: float,
        block_replicates: int = BLOCK_REPLICATES,
    ) -> None:
        self.epsilon, self.q, self.n_reps = epsilon, q, n_reps
        self.block = max(1, int(block_replicates))
        self.m = d.shape[1]
        chunks = math.ceil(n_reps / CHUNK)
        self.sizes = [min(CHUNK, n_reps - c * CHUNK) for c in range(chunks)]
        self.streams = [
            np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(chunks)
        ]
        # (C, 3M): class c adds one to each human's count of its d (a float matrix, so that a
        # draw's counts are reduced by one BLAS product; integers below 2^53 are exact)
        onehot = (d[:, :, None] == np.array([-1, 0, 1])).reshape(len(prob), -1).astype(float)
        groups = [
            slice(i, min(i + CLASS_GROUP, len(prob))) for i in range(0, len(prob), CLASS_GROUP)
        ]
        self.group_prob = np.array([prob[g].sum() for g in groups])
        self.groups = [(prob[g] / max(prob[g].sum(), 1e-300), onehot[g]) for g in groups]
        self.state = np.zeros((n_reps, self.m, 3), dtype=np.int64)
        self.n = 0

    def _increment(self, rng: np.random.Generator, size: int, extra: int) -> NDArray[np.int64]:
        """``(size, M, 3)``: the humans' counts of ``extra`` more items of ``size`` studies."""
        if len(self.groups) == 1:
            counts = rng.multinomial(extra, self.groups[0][0], size=size)
            return _reduced(counts, self.groups[0][1], self.m)
        totals = rng.multinomial(extra, self.group_prob / self.group_prob.sum(), size=size)
        out = np.zeros((size, self.m, 3), dtype=np.int64)
        for g, (p, onehot) in enumerate(self.groups):
            if p.size:
                out += _reduced(rng.multinomial(totals[:, g], p), onehot, self.m)
        return out

    def grow(self, n_items: int) -> None:
        """Add items to every study until it has ``n_items``."""
        extra = int(n_items) - self.n
        if extra < 0:
            raise ValueError(f"studies grow only: at {self.n} items, asked for {n_items}")
        if extra:
            start = 0
            for rng, size in zip(self.streams, self.sizes, strict=True):
                self.state[start : start + size] += self._increment(rng, size, extra)
                start += size
            self.n = int(n_items)

    def pass_probability(self, n_items: int) -> float:
        """Share of the studies that pass at ``n_items`` (after growing them there)."""
        self.grow(n_items)
        passed = 0
        for start in range(0, self.n_reps, self.block):
            per_human = self.state[start : start + self.block]
            _, p, _ = difference_test(per_human, self.epsilon)
            passed += int(np.sum(2 * by_rejections(p, self.q).sum(axis=1) >= self.m))
        return passed / self.n_reps
