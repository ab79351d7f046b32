"""Replicate studies of an annotator pair: the pattern-count simulation with four cells.

A pair's study is its 2x2 table, the pattern counts of two annotators over two categories
(:mod:`planner.sizing.studies`, the one simulation of studies): :func:`simulate_tables` and
:class:`NestedStudies` are :func:`~planner.sizing.studies.simulate_pattern_counts` and
:class:`~planner.sizing.studies.NestedPatternStudies` over the cells ``(p_a, p_b, p_c,
p_d)``, read as ``(R, 2, 2)`` tables. Replicates come in fixed blocks of :data:`BLOCK_SIZE`,
each with its own stream spawned from the caller's generator, so how many blocks are drawn
at once never changes an answer; nested studies keep common random numbers across sample
sizes (the study at ``n`` items contains the study at any ``m < n``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.sizing.studies import (
    BLOCK_SIZE as BLOCK_SIZE,
)
from planner.sizing.studies import (
    NestedPatternStudies,
    simulate_pattern_counts,
)
from planner.sizing.studies import (  # kept importable from here
    block_streams as block_streams,
)
from planner.sizing.studies import (
    multivariate_hypergeometric as multivariate_hypergeometric,
)

IntArray = NDArray[np.int64]


def _check_cells(cells: ArrayLike) -> NDArray[np.float64]:
    """The four cells as given (normalised once, by the pattern-count simulation)."""
    p = np.asarray(cells, dtype=float)
    if p.shape != (4,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"`cells` must be 4 probabilities summing to 1, got {cells!r}")
    return p


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

    >>> simulate_tables([0.1, 0.1, 0.1, 0.7], 50, 3, rng=1).sum(axis=(1, 2)).tolist()
    [50, 50, 50]
    """
    del blocks_at_once  # each block is drawn from its own stream: the knob changes nothing
    counts = simulate_pattern_counts(_check_cells(cells), n_items, n_reps, rng=rng)
    return counts.reshape(n_reps, 2, 2)


class NestedStudies(NestedPatternStudies):
    """``n_reps`` replicate studies of a pair that can be read at any number of items.

    The pattern-count studies of :class:`~planner.sizing.studies.NestedPatternStudies` over
    the four cells, every size kept (four counts per study).

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
        super().__init__(_check_cells(cells), n_reps, rng=rng, keep_every_size=True, dtype=np.int64)
        self.cells = self.probabilities

    def tables(self, n_items: int) -> IntArray:
        """The ``(n_reps, 2, 2)`` tables of the studies after their first ``n_items`` items."""
        return self.counts(n_items).reshape(-1, 2, 2)
