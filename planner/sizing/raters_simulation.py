"""Replicate studies of several annotators, drawn as counts of label patterns.

A study of ``n`` items is one multinomial draw of ``n`` over the model's pattern
probabilities (:mod:`planner.sizing.raters_model`); ``R`` studies are ``R`` such draws,
never ``n * R`` items. As for pairs (:mod:`planner.sizing.simulation`), replicates come in
fixed blocks, each with its own spawned stream, and :class:`NestedPatternStudies` keeps
common random numbers across sample sizes: the study at ``n`` items contains the study at
any ``m < n`` (a multivariate hypergeometric subsample between two sizes already drawn).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.sizing.simulation import BLOCK_SIZE, block_streams, multivariate_hypergeometric

IntArray = NDArray[np.int64]


def _check_probabilities(probabilities: ArrayLike) -> NDArray[np.float64]:
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or p.size < 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError("`probabilities` must be a vector of probabilities summing to 1")
    return p / p.sum()


def _block_slices(n_reps: int) -> list[slice]:
    return [slice(s, min(s + BLOCK_SIZE, n_reps)) for s in range(0, n_reps, BLOCK_SIZE)]


def simulate_pattern_counts(
    probabilities: ArrayLike,
    n_items: int,
    n_reps: int,
    *,
    rng: np.random.Generator | int | None = None,
) -> IntArray:
    """``(n_reps, P)`` pattern counts of ``n_reps`` independent studies of ``n_items`` items.

    >>> simulate_pattern_counts([0.5, 0.3, 0.2], 10, 4, rng=1).sum(axis=1).tolist()
    [10, 10, 10, 10]
    """
    p = _check_probabilities(probabilities)
    streams = block_streams(rng, n_reps)
    parts = [
        gen.multinomial(int(n_items), p, size=s.stop - s.start)
        for gen, s in zip(streams, _block_slices(n_reps), strict=True)
    ]
    return np.concatenate(parts, axis=0).astype(np.int64)


class NestedPatternStudies:
    """``n_reps`` studies of label-pattern counts that can be read at any number of items.

    Examples
    --------
    >>> studies = NestedPatternStudies([0.6, 0.3, 0.1], n_reps=3, rng=1)
    >>> big, small = studies.counts(100), studies.counts(40)
    >>> bool((small <= big).all()), small.sum(axis=1).tolist()
    (True, [40, 40, 40])
    """

    def __init__(
        self, probabilities: ArrayLike, n_reps: int, *, rng: np.random.Generator | int | None
    ) -> None:
        self.probabilities = _check_probabilities(probabilities)
        self.n_reps = int(n_reps)
        self._streams = block_streams(rng, self.n_reps)
        self._slices = _block_slices(self.n_reps)
        self._sizes: list[int] = [0]
        self._counts: list[NDArray[np.int32]] = [
            np.zeros((self.n_reps, self.probabilities.size), dtype=np.int32)
        ]

    def _per_block(self, draw: Callable[[np.random.Generator, slice], IntArray]) -> IntArray:
        return np.concatenate(
            [draw(gen, s) for gen, s in zip(self._streams, self._slices, strict=True)], axis=0
        )

    def counts(self, n_items: int) -> NDArray[np.int32]:
        """``(n_reps, P)`` pattern counts after the studies' first ``n_items`` items."""
        n = int(n_items)
        if n < 0:
            raise ValueError(f"`n_items` must be >= 0, got {n_items}")
        pos = bisect.bisect_left(self._sizes, n)
        if pos < len(self._sizes) and self._sizes[pos] == n:
            return self._counts[pos]
        below = self._counts[pos - 1]
        extra = n - self._sizes[pos - 1]
        if pos == len(self._sizes):
            p = self.probabilities
            step = self._per_block(lambda g, s: g.multinomial(extra, p, size=s.stop - s.start))
        else:
            gap = self._counts[pos] - below
            step = self._per_block(lambda g, s: multivariate_hypergeometric(g, gap[s], extra))
        out = (below + step).astype(np.int32)  # counts <= max_items < 2^31: half the memory
        self._sizes.insert(pos, n)
        self._counts.insert(pos, out)
        self._forget_all_but_neighbours(pos)
        return out

    def _forget_all_but_neighbours(self, pos: int) -> None:
        """Keep only the empty study, size ``pos`` and the sizes just below and above it.

        The kept sizes are still nested with their joint law unchanged, and a later size is
        drawn between two kept ones, so answers stay exact draws (and deterministic given the
        calls); memory stays three ``(n_reps, P)`` tables however long the search (with the
        ``K^M`` ordered patterns of six annotators and five categories, ~250 MB each).
        """
        keep = sorted({0, max(pos - 1, 0), pos, min(pos + 1, len(self._sizes) - 1)})
        self._sizes = [self._sizes[i] for i in keep]
        self._counts = [self._counts[i] for i in keep]
