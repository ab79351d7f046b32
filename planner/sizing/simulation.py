"""Replicate studies drawn directly as counts.

A study of ``n`` items labelled by two annotators is one multinomial draw of ``n`` over the
four cells; ``R`` studies are ``R`` such draws, never ``n * R`` items. Replicates come in
fixed blocks of :data:`BLOCK_SIZE`, each with its own stream spawned from the caller's
generator, so how many blocks are drawn at once never changes an answer.

:class:`NestedStudies` holds ``R`` studies that grow item by item (common random numbers
across sample sizes): the study at ``n`` items contains the study at any ``m < n``. Going up
adds a multinomial draw of the new items; going down (or between two sizes already drawn)
takes a multivariate hypergeometric subsample of the items in between, which is exactly the
law of the first ``m`` of the ``n`` items. A search over ``n`` then compares the same
studies at every size, so its answer moves smoothly with ``n``.
"""

from __future__ import annotations

import bisect

import numpy as np
from numpy.typing import ArrayLike, NDArray

BLOCK_SIZE = 1000
IntArray = NDArray[np.int64]


def _check_cells(cells: ArrayLike) -> NDArray[np.float64]:
    p = np.asarray(cells, dtype=float)
    if p.shape != (4,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"`cells` must be 4 probabilities summing to 1, got {cells!r}")
    return p / p.sum()


def block_streams(rng: np.random.Generator | int | None, n_reps: int) -> list[np.random.Generator]:
    """One independent generator per block of :data:`BLOCK_SIZE` replicates."""
    if n_reps < 1:
        raise ValueError(f"`n_reps` must be at least 1, got {n_reps}")
    n_blocks = -(-n_reps // BLOCK_SIZE)
    return np.random.default_rng(rng).spawn(n_blocks)


def _block_sizes(n_reps: int) -> list[int]:
    full, rest = divmod(n_reps, BLOCK_SIZE)
    return [BLOCK_SIZE] * full + ([rest] if rest else [])


def simulate_tables(
    cells: ArrayLike,
    n_items: int,
    n_reps: int,
    *,
    rng: np.random.Generator | int | None = None,
    blocks_at_once: int = 1,
) -> IntArray:
    """Draw ``n_reps`` studies of ``n_items`` items as ``(n_reps, 2, 2)`` count tables.

    Parameters
    ----------
    cells
        Probabilities ``(p_a, p_b, p_c, p_d)``.
    n_items
        Items per study.
    n_reps
        Number of replicate studies.
    rng
        Generator or seed; one stream is spawned per block of :data:`BLOCK_SIZE`.
    blocks_at_once
        Memory knob only: how many blocks are drawn per call. Never changes the result.
    """
    p = _check_cells(cells)
    if n_items < 0:
        raise ValueError(f"`n_items` must be >= 0, got {n_items}")
    streams = block_streams(rng, n_reps)
    sizes = _block_sizes(n_reps)
    out = np.empty((n_reps, 4), dtype=np.int64)
    start = 0
    for first in range(0, len(streams), max(1, blocks_at_once)):
        for gen, size in zip(
            streams[first : first + blocks_at_once],
            sizes[first : first + blocks_at_once],
            strict=True,
        ):
            out[start : start + size] = gen.multinomial(n_items, p, size=size)
            start += size
    return out.reshape(n_reps, 2, 2)


def multivariate_hypergeometric(
    gen: np.random.Generator, colors: IntArray, nsample: int | IntArray
) -> IntArray:
    """Draw ``nsample`` items without replacement from each row of ``colors`` (shape (R, k)).

    Vectorised over rows by the chain of conditional univariate hypergeometric draws.
    """
    colors = np.asarray(colors, dtype=np.int64)
    left = np.broadcast_to(np.asarray(nsample, dtype=np.int64), colors.shape[:1]).copy()
    remaining = colors.sum(axis=1)
    out = np.empty_like(colors)
    for k in range(colors.shape[1] - 1):
        remaining = remaining - colors[:, k]
        out[:, k] = gen.hypergeometric(colors[:, k], remaining, left)
        left = left - out[:, k]
    out[:, -1] = left
    return out


class NestedStudies:
    """``n_reps`` replicate studies that can be read at any number of items.

    Parameters
    ----------
    cells
        Probabilities ``(p_a, p_b, p_c, p_d)``.
    n_reps
        Number of replicate studies.
    rng
        Generator or seed; each block of :data:`BLOCK_SIZE` replicates gets its own stream.

    Examples
    --------
    >>> studies = NestedStudies([0.1, 0.1, 0.1, 0.7], n_reps=3, rng=1)
    >>> big, small = studies.tables(100), studies.tables(40)
    >>> bool((small <= big).all()), small.sum(axis=(1, 2)).tolist()
    (True, [40, 40, 40])
    """

    def __init__(
        self, cells: ArrayLike, n_reps: int, *, rng: np.random.Generator | int | None = None
    ) -> None:
        self.cells = _check_cells(cells)
        self.n_reps = int(n_reps)
        self._streams = block_streams(rng, self.n_reps)
        self._bounds = np.cumsum([0, *_block_sizes(self.n_reps)])
        self._sizes: list[int] = [0]
        self._tables: list[IntArray] = [np.zeros((self.n_reps, 4), dtype=np.int64)]

    def _per_block(self, draw) -> IntArray:  # type: ignore[no-untyped-def]
        parts = [
            draw(gen, slice(self._bounds[i], self._bounds[i + 1]))
            for i, gen in enumerate(self._streams)
        ]
        return np.concatenate(parts, axis=0)

    def tables(self, n_items: int) -> IntArray:
        """The ``(n_reps, 2, 2)`` tables of the studies after their first ``n_items`` items."""
        n = int(n_items)
        if n < 0:
            raise ValueError(f"`n_items` must be >= 0, got {n_items}")
        pos = bisect.bisect_left(self._sizes, n)
        if pos < len(self._sizes) and self._sizes[pos] == n:
            return self._tables[pos].reshape(-1, 2, 2)
        below = self._tables[pos - 1]
        extra = n - self._sizes[pos - 1]
        if pos == len(self._sizes):
            step = self._per_block(
                lambda g, s: g.multinomial(extra, self.cells, size=s.stop - s.start)
            )
        else:
            gap = self._tables[pos] - below
            step = self._per_block(lambda g, s: multivariate_hypergeometric(g, gap[s], extra))
        table = below + step
        self._sizes.insert(pos, n)
        self._tables.insert(pos, table)
        return table.reshape(-1, 2, 2)
