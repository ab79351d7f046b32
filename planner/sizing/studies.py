"""Replicate studies drawn directly as counts of label patterns: one simulation for all plans.

A study of ``n`` items by ``M`` annotators over ``K`` categories is one multinomial draw of
``n`` over the model's pattern probabilities (the ``P`` count patterns or ``K^M`` ordered
patterns of :mod:`planner.sizing.annotator_model`; for a pair with two categories, the four
cells ``(both, a only, b only, neither)`` of its 2x2 table); ``R`` studies are ``R`` such
draws, never ``n * R`` items. Replicates come in fixed blocks of :data:`BLOCK_SIZE`, each
with its own stream spawned from the caller's generator, so how many blocks are drawn at
once never changes an answer.

:class:`NestedPatternStudies` holds ``R`` studies that grow item by item (common random
numbers across sample sizes): the study at ``n`` items contains the study at any ``m < n``.
Going up adds a multinomial draw of the new items; going down (or between two sizes already
drawn) takes a multivariate hypergeometric subsample of the items in between, which is
exactly the law of the first ``m`` of the ``n`` items. A search over ``n``
(:mod:`planner.sizing.sample_size_search`) then compares the same studies at every size, so
its answer moves smoothly with ``n``.

A pair (two annotators, two categories) is the case ``P = 4``: :func:`simulate_tables` and
:class:`NestedStudies` read its four cells ``(both, a only, b only, neither)`` as
``(R, 2, 2)`` tables.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

#: replicates per spawned stream
BLOCK_SIZE = 1000
IntArray = NDArray[np.int64]


def block_streams(
    rng: np.random.Generator | int | None, replicates: int
) -> list[np.random.Generator]:
    """One independent generator per block of :data:`BLOCK_SIZE` replicates."""
    if replicates < 1:
        raise ValueError(f"`replicates` must be at least 1, got {replicates}")
    n_blocks = -(-replicates // BLOCK_SIZE)
    return np.random.default_rng(rng).spawn(n_blocks)


def block_slices(replicates: int) -> list[slice]:
    """The replicates of each block: ``[0, 1000), [1000, 2000), ...``."""
    return [slice(s, min(s + BLOCK_SIZE, replicates)) for s in range(0, replicates, BLOCK_SIZE)]


def check_probabilities(probabilities: ArrayLike) -> NDArray[np.float64]:
    """A vector of pattern probabilities, nonnegative and summing to 1 (renormalised)."""
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or p.size < 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError("`probabilities` must be a vector of probabilities summing to 1")
    return p / p.sum()


def _study_probabilities(probabilities: ArrayLike, replicates: int) -> NDArray[np.float64]:
    """``(P,)`` probabilities for every study, or ``(replicates, P)`` one row per study."""
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 2:
        return check_probabilities(p)
    if p.shape[0] != replicates or np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
        raise ValueError("`probabilities` must be one row of probabilities per study")
    return p


def simulate_pattern_counts(
    probabilities: ArrayLike,
    n_items: int,
    replicates: int,
    *,
    rng: np.random.Generator | int | None = None,
) -> IntArray:
    """``(replicates, P)`` pattern counts of ``replicates`` independent studies of ``n_items``
    items.

    >>> simulate_pattern_counts([0.5, 0.3, 0.2], 10, 4, rng=1).sum(axis=1).tolist()
    [10, 10, 10, 10]
    """
    p = check_probabilities(probabilities)
    if n_items < 0:
        raise ValueError(f"`n_items` must be >= 0, got {n_items}")
    streams = block_streams(rng, replicates)
    parts = [
        gen.multinomial(int(n_items), p, size=s.stop - s.start)
        for gen, s in zip(streams, block_slices(replicates), strict=True)
    ]
    return np.concatenate(parts, axis=0).astype(np.int64)


#: from this many pattern columns on, subsamples are drawn row by row by numpy's own
#: multivariate hypergeometric (a loop over the columns in C) instead of the chain of
#: univariate draws vectorised over rows (a Python step per column): the ``K^M`` ordered
#: patterns of several annotators (``5^6 = 15,625``), never a pair or count patterns (at most
#: 210)
ROW_BY_ROW_COLUMNS = 1024


def multivariate_hypergeometric(
    gen: np.random.Generator, colors: IntArray, nsample: int | IntArray
) -> IntArray:
    """Draw ``nsample`` items without replacement from each row of ``colors`` (shape (R, k)).

    Vectorised over rows by the chain of conditional univariate hypergeometric draws; with
    :data:`ROW_BY_ROW_COLUMNS` columns or more, one draw of
    :meth:`numpy.random.Generator.multivariate_hypergeometric` per row (the same law).
    """
    colors = np.asarray(colors, dtype=np.int64)
    left = np.broadcast_to(np.asarray(nsample, dtype=np.int64), colors.shape[:1]).copy()
    if colors.shape[1] >= ROW_BY_ROW_COLUMNS:
        return np.stack(
            [gen.multivariate_hypergeometric(row, int(m), method="marginals")
             for row, m in zip(colors, left, strict=True)]
        ).astype(np.int64).reshape(colors.shape)  # fmt: skip
    remaining = colors.sum(axis=1)
    out = np.empty_like(colors)
    for k in range(colors.shape[1] - 1):
        remaining = remaining - colors[:, k]
        out[:, k] = gen.hypergeometric(colors[:, k], remaining, left)
        left = left - out[:, k]
    out[:, -1] = left
    return out


class NestedPatternStudies:
    """``replicates`` studies of label-pattern counts that can be read at any number of items.

    Parameters
    ----------
    probabilities
        ``(P,)`` pattern probabilities, or ``(replicates, P)``: one truth per study (a
        posterior draw each, :mod:`planner.sizing.uncertainty_kappa`).
    replicates
        Number of replicate studies.
    rng
        Generator or seed; each block of :data:`BLOCK_SIZE` replicates gets its own stream
        (``one_stream``: the generator itself draws for every study).
    keep_every_size
        False (the default): keep only the empty study and the sizes around the last one
        read, so memory stays three ``(replicates, P)`` tables however long the search (with the
        ``K^M`` ordered patterns of six annotators and five categories, ~250 MB each). True:
        keep every size read (a pair's four cells). Both give exact nested draws of the same
        law; which sizes are kept decides which draws a later size is made from.
    dtype
        Integer type of the counts (``int32`` halves memory; counts stay below ``2^31``).
    one_stream
        Draw every study from ``rng`` itself rather than from spawned block streams.

    Examples
    --------
    >>> studies = NestedPatternStudies([0.6, 0.3, 0.1], replicates=3, rng=1)
    >>> big, small = studies.counts(100), studies.counts(40)
    >>> bool((small <= big).all()), small.sum(axis=1).tolist()
    (True, [40, 40, 40])
    """

    def __init__(
        self,
        probabilities: ArrayLike,
        replicates: int,
        *,
        rng: np.random.Generator | int | None,
        keep_every_size: bool = False,
        dtype: DTypeLike = np.int32,
        one_stream: bool = False,
    ) -> None:
        self.replicates = int(replicates)
        self.probabilities = _study_probabilities(probabilities, self.replicates)
        self.keep_every_size, self.dtype = keep_every_size, np.dtype(dtype)
        if one_stream:
            self._streams = [np.random.default_rng(rng)]
            self._slices = [slice(0, self.replicates)]
        else:
            self._streams = block_streams(rng, self.replicates)
            self._slices = block_slices(self.replicates)
        self._sizes: list[int] = [0]
        self._counts: list[NDArray] = [
            np.zeros((self.replicates, self.probabilities.shape[-1]), dtype=self.dtype)
        ]

    def _per_block(self, draw: Callable[[np.random.Generator, slice], IntArray]) -> IntArray:
        return np.concatenate(
            [draw(gen, s) for gen, s in zip(self._streams, self._slices, strict=True)], axis=0
        )

    def counts(self, n_items: int) -> NDArray:
        """``(replicates, P)`` pattern counts after the studies' first ``n_items`` items."""
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
            step = self._per_block(
                lambda g, s: g.multinomial(extra, p if p.ndim == 1 else p[s], size=s.stop - s.start)
            )
        else:
            gap = self._counts[pos] - below
            step = self._per_block(lambda g, s: multivariate_hypergeometric(g, gap[s], extra))
        out = (below + step).astype(self.dtype)
        self._sizes.insert(pos, n)
        self._counts.insert(pos, out)
        if not self.keep_every_size:
            self._forget_all_but_neighbours(pos)
        return out

    def _forget_all_but_neighbours(self, pos: int) -> None:
        """Keep only the empty study, size ``pos`` and the sizes just below and above it.

        The kept sizes are still nested with their joint law unchanged, and a later size is
        drawn between two kept ones, so answers stay exact draws (and deterministic given the
        calls).
        """
        keep = sorted({0, max(pos - 1, 0), pos, min(pos + 1, len(self._sizes) - 1)})
        self._sizes = [self._sizes[i] for i in keep]
        self._counts = [self._counts[i] for i in keep]


#: classes per multinomial draw of :class:`GrowingReducedStudies` (the largest draw holds
#: BLOCK_SIZE x CLASS_GROUP counts, 8 MB, however many classes)
CLASS_GROUP = 1024


def _reduced(counts: IntArray, reduce: NDArray[np.float64]) -> IntArray:
    """``(R, F)`` features of ``(R, C)`` class counts: one BLAS product, rounded back (the
    features are counts below ``2^53``, exact in floating point)."""
    return np.rint(counts.astype(float) @ reduce).astype(np.int64)


class GrowingReducedStudies:
    """``replicates`` studies that only grow, kept as reduced features of their class counts.

    A study is a multinomial sequence of items over ``C`` classes of probability
    ``probabilities``; only ``reduce``'s features of its class counts are kept,
    ``state = counts @ reduce`` (``(replicates, F)``, for the Alt-Test each human's counts of
    ``d = -1, 0, +1``). From ``n`` to ``n' > n`` items every study adds a
    ``multinomial(n' - n, p)`` draw, reduced at once, so a larger study contains a smaller
    one (common random numbers) and memory is ``(replicates, F)`` whatever ``C``. The classes
    are drawn in groups of at most :data:`CLASS_GROUP` (a multinomial over the groups, then
    one within each group: the same law); each block of :data:`BLOCK_SIZE` studies has its
    own stream (:func:`block_streams`), so the numbers never depend on how the studies are
    read afterwards.

    Examples
    --------
    >>> studies = GrowingReducedStudies([0.5, 0.5], np.eye(2), replicates=3, rng=1)
    >>> studies.grow(10).sum(axis=1).tolist()
    [10, 10, 10]
    """

    def __init__(
        self,
        probabilities: ArrayLike,
        reduce: ArrayLike,
        replicates: int,
        *,
        rng: np.random.Generator | int | None,
    ) -> None:
        p = check_probabilities(probabilities)
        matrix = np.asarray(reduce, dtype=float)
        if matrix.ndim != 2 or matrix.shape[0] != p.size:
            raise ValueError("`reduce` must have one row per class")
        self.replicates = int(replicates)
        self._streams = block_streams(rng, self.replicates)
        self._slices = block_slices(self.replicates)
        groups = [slice(i, min(i + CLASS_GROUP, p.size)) for i in range(0, p.size, CLASS_GROUP)]
        self._group_prob = np.array([p[g].sum() for g in groups])
        self._groups = [(p[g] / max(p[g].sum(), 1e-300), matrix[g]) for g in groups]
        self.state: IntArray = np.zeros((self.replicates, matrix.shape[1]), dtype=np.int64)
        self.n_items = 0

    def _increment(self, gen: np.random.Generator, size: int, extra: int) -> IntArray:
        """``(size, F)``: the features of ``extra`` more items of ``size`` studies."""
        if len(self._groups) == 1:
            p, matrix = self._groups[0]
            return _reduced(gen.multinomial(extra, p, size=size), matrix)
        totals = gen.multinomial(extra, self._group_prob / self._group_prob.sum(), size=size)
        out = np.zeros((size, self.state.shape[1]), dtype=np.int64)
        for g, (p, matrix) in enumerate(self._groups):
            if p.size:
                out += _reduced(gen.multinomial(totals[:, g], p), matrix)
        return out

    def grow(self, n_items: int) -> IntArray:
        """Add items to every study until it has ``n_items``; the ``(replicates, F)`` state."""
        extra = int(n_items) - self.n_items
        if extra < 0:
            raise ValueError(f"studies grow only: at {self.n_items} items, asked for {n_items}")
        if extra:
            for gen, s in zip(self._streams, self._slices, strict=True):
                self.state[s] += self._increment(gen, s.stop - s.start, extra)
            self.n_items = int(n_items)
        return self.state


# --------------------------------------------------------------------------- a pair's view
# A pair's study is its 2x2 table, the pattern counts of two annotators over two categories:
# :func:`simulate_tables` and :class:`NestedStudies` are :func:`simulate_pattern_counts` and
# :class:`NestedPatternStudies` over the cells ``(p_a, p_b, p_c, p_d)``, read as
# ``(R, 2, 2)`` tables.


def _check_cells(cells: ArrayLike) -> NDArray[np.float64]:
    """The four cells as given (normalised once, by the pattern-count simulation)."""
    p = np.asarray(cells, dtype=float)
    if p.shape != (4,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"`cells` must be 4 probabilities summing to 1, got {cells!r}")
    return p


def simulate_tables(
    cells: ArrayLike,
    n_items: int,
    replicates: int,
    *,
    rng: np.random.Generator | int | None = None,
    blocks_at_once: int = 1,
) -> IntArray:
    """Draw ``replicates`` studies of ``n_items`` items as ``(replicates, 2, 2)`` count tables.

    Parameters
    ----------
    cells
        Probabilities ``(p_a, p_b, p_c, p_d)``.
    n_items
        Items per study.
    replicates
        Number of replicate studies.
    rng
        Generator or seed; one stream is spawned per block of :data:`BLOCK_SIZE`.
    blocks_at_once
        Memory knob only: how many blocks are drawn per call. Never changes the result.

    >>> simulate_tables([0.1, 0.1, 0.1, 0.7], 50, 3, rng=1).sum(axis=(1, 2)).tolist()
    [50, 50, 50]
    """
    del blocks_at_once  # each block is drawn from its own stream: the knob changes nothing
    counts = simulate_pattern_counts(_check_cells(cells), n_items, replicates, rng=rng)
    return counts.reshape(replicates, 2, 2)


class NestedStudies(NestedPatternStudies):
    """``replicates`` replicate studies of a pair that can be read at any number of items.

    The pattern-count studies of :class:`NestedPatternStudies` over the four cells, every
    size kept (four counts per study).

    Parameters
    ----------
    cells
        Probabilities ``(p_a, p_b, p_c, p_d)``.
    replicates
        Number of replicate studies.
    rng
        Generator or seed; each block of :data:`BLOCK_SIZE` replicates gets its own stream.

    Examples
    --------
    >>> studies = NestedStudies([0.1, 0.1, 0.1, 0.7], replicates=3, rng=1)
    >>> big, small = studies.tables(100), studies.tables(40)
    >>> bool((small <= big).all()), small.sum(axis=(1, 2)).tolist()
    (True, [40, 40, 40])
    """

    def __init__(
        self, cells: ArrayLike, replicates: int, *, rng: np.random.Generator | int | None = None
    ) -> None:
        super().__init__(
            _check_cells(cells), replicates, rng=rng, keep_every_size=True, dtype=np.int64
        )
        self.cells = self.probabilities

    def tables(self, n_items: int) -> IntArray:
        """The ``(replicates, 2, 2)`` tables of the studies after their first ``n_items`` items."""
        return self.counts(n_items).reshape(-1, 2, 2)
