"""The one item bootstrap behind every bootstrap interval of ``planner agree``.

Resampling ``N`` items with replacement gives each distinct row (a count pattern, a cell of a
pair table, or a distinct label vector for Conger's kappa) a ``Multinomial(N, w / N)`` count;
every coefficient's statistic is taken under those resampled multiplicities, one random
stream for the whole report, in the report's order. The percentile interval at level
``1 - a`` is the ``a / 2`` and ``1 - a / 2`` quantiles of the finite draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

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

    A statistic of distinct rows (count patterns, or the cells of a pair table) is taken
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
