"""The one item bootstrap behind every bootstrap interval of ``planner agree``.

Resampling ``N`` items with replacement gives each distinct row (a count pattern, a cell of a
pair table, or a distinct label vector for Conger's kappa) a ``Multinomial(N, w / N)`` count;
every coefficient's statistic is taken under those resampled multiplicities, one random
stream for the whole report, in the report's order. The percentile interval at level
``1 - a`` is the ``a / 2`` and ``1 - a / 2`` quantiles of the finite draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.measuring.coefficient import IntervalAt

if TYPE_CHECKING:
    from planner.measuring.measured_data import MeasuredData

BOOT_MEMORY = 20_000_000  # floats per bootstrap chunk; fixed, so chunking never changes answers


def resampled(
    multiplicity: NDArray, n_boot: int, rng: np.random.Generator, width: int
) -> Iterator[NDArray]:
    """Bootstrap resamples of items as new multiplicities of the distinct rows.

    Resampling ``N`` items with replacement gives each distinct row a
    ``Multinomial(N, multiplicity / N)`` count; drawn lazily in chunks of fixed size
    (``width`` floats per row and resample) so that one chunk is in memory at a time, and
    the chunking never changes an answer.
    """
    mult = np.asarray(multiplicity, dtype=float)
    total = int(mult.sum())
    chunk = max(1, BOOT_MEMORY // max(1, mult.size * width))
    for start in range(0, n_boot, chunk):
        yield rng.multinomial(total, mult / total, size=min(chunk, n_boot - start))


def percentile(values: NDArray, confidence_level: float) -> tuple[float, float]:
    tail = (1 - confidence_level) / 2
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(finite, [tail, 1 - tail])
    return float(lo), float(hi)


def percentiles_of(draws: NDArray) -> IntervalAt:
    """The percentile interval of kept bootstrap draws, at any level."""
    return lambda level: percentile(draws, level)


def clipped(interval_at: IntervalAt, low: float = -1.0, high: float = 1.0) -> IntervalAt:
    """``interval_at`` with its limits clipped to ``[low, high]``."""

    def at(level: float) -> tuple[Any, Any]:
        lo, hi = interval_at(level)
        return np.maximum(lo, low), np.minimum(hi, high)

    return at


@dataclass(frozen=True)
class AgreementBootstrap:
    """The one item bootstrap behind every bootstrap interval.

    A statistic of distinct rows (count patterns, the cells of a pair table, or the
    distinct label vectors of :func:`canonical_rows` for Conger's kappa) is taken
    under resampled multiplicities (:func:`resampled`), one random stream for the whole
    report, in the report's order.
    """

    rng: np.random.Generator
    n_boot: int
    confidence_level: float

    @property
    def name(self) -> str:
        return f"bootstrap, items (B={self.n_boot})"

    def draws(
        self, multiplicity: NDArray, statistic: Callable[[NDArray], NDArray], width: int = 1
    ) -> NDArray:
        """``(n_boot,)`` the statistic under each resample of the rows."""
        parts = [statistic(m) for m in resampled(multiplicity, self.n_boot, self.rng, width)]
        return np.concatenate([np.atleast_1d(p) for p in parts])

    def interval(
        self, multiplicity: NDArray, statistic: Callable[[NDArray], NDArray], width: int = 1
    ) -> IntervalAt:
        """The percentile interval at any level of the statistic's draws (drawn once)."""
        return percentiles_of(self.draws(multiplicity, statistic, width))

    def patterns(self, d: MeasuredData, statistic: Callable[[NDArray], NDArray]) -> IntervalAt:
        """Percentile interval of a statistic of the count patterns."""
        return self.interval(d.mult, statistic, d.boot_width)

    def pair(self, table: NDArray, statistic: Callable[[NDArray], NDArray]) -> IntervalAt:
        """Percentile interval of a statistic of a ``(K, K)`` pair table."""
        k = table.shape[0]
        return self.interval(table.ravel(), lambda m: statistic(m.reshape(-1, k, k)))

    def rows(self, rows: Ratings, statistic: Callable[[NDArray], float]) -> IntervalAt:
        """Percentile interval of a statistic of weighted rows (``statistic(row_weights)``),
        taken one resample at a time (Conger's kappa: each costs a pass over the ratings).

        ``rows`` should be :func:`canonical_rows`: the same label vectors in the same order
        whichever engine read the file, so that the same seed draws the same resamples.
        """
        weights = np.ones(rows.n_rows) if rows.weights is None else rows.weights
        chunks = resampled(weights, self.n_boot, self.rng, 1)
        return percentiles_of(np.array([statistic(m) for chunk in chunks for m in chunk]))


def canonical_rows(ratings: Ratings) -> Ratings:
    """``ratings`` as one weighted row per distinct label vector, in one canonical order.

    The order depends on the label vectors only, not on the engine that read them (pandas
    reads one row per item in file order; DuckDB, Spark and vector-count files give distinct
    vectors in their own order), so a bootstrap over these rows draws the same resamples
    for the same seed. Vectors whose keys fit (:meth:`~planner.data.labels.Ratings.
    distinct_rows`) come in key order; more annotators than the keys hold (e.g. 40 binary
    annotators, ``40 log2(3) > 62`` bits) are ordered by their ``(annotator, label)`` pairs'
    bytes. Groups and item ids are dropped.
    """
    distinct = ratings.distinct_rows()
    if distinct is not None:
        return distinct
    signatures = _vector_signatures(ratings)
    _, first, inverse = np.unique(signatures, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    w = np.ones(ratings.n_rows, dtype=np.int64) if ratings.weights is None else ratings.weights
    weights = np.bincount(inverse, weights=w, minlength=len(first))
    mine = np.zeros(ratings.n_rows, dtype=bool)
    mine[first] = True
    kept = ratings.select_items(mine)  # the first row of each vector, in the original order
    new_item = inverse[np.flatnonzero(mine)][kept.item_index]
    sort = np.lexsort((kept.annotator_index, new_item))
    return replace(
        kept,
        item_index=new_item[sort].astype(np.int64),
        annotator_index=kept.annotator_index[sort],
        label_index=kept.label_index[sort],
        items=np.arange(len(first)),
        groups={},
        weights=np.round(weights).astype(np.int64),
    )


def _vector_signatures(ratings: Ratings) -> NDArray:
    """``(rows,)`` each row's label vector as bytes: its ``(annotator, label)`` pairs, in
    annotator order (equal bytes, equal vectors)."""
    order = np.lexsort((ratings.annotator_index, ratings.item_index))
    item = ratings.item_index[order]
    pairs = np.column_stack([ratings.annotator_index[order], ratings.label_index[order]]).astype(
        np.int64
    )
    bounds = np.searchsorted(item, np.arange(ratings.n_rows + 1))
    signatures = np.empty(ratings.n_rows, dtype=object)
    for row in range(ratings.n_rows):
        signatures[row] = pairs[bounds[row] : bounds[row + 1]].tobytes()
    return signatures
