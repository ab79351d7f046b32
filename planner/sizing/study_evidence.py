"""What simulated studies of one size show about an interval, for a pair and for several
annotators alike.

Given the intervals of ``R`` simulated studies of ``n`` items and the value the interval
estimates under the model, :func:`simulated_evidence` reads off:

* the half-width's quantiles (:func:`~planner.sizing.exact.half_width_quantiles`: each a
  study's own half-width, undefined and zero-width intervals infinitely wide);
* the assurance ``A = P(half-width <= w)`` with its Monte Carlo SE ``sqrt(A (1 - A) / R)``;
* the coverage ``C``, the share of intervals holding the value (up to 1e-9; no interval
  counts as a miss), with its SE ``sqrt(C (1 - C) / R)``;
* the share of studies without an interval, and the typical interval: the median of the
  finite lower limits and that of the finite upper limits.

For PSA of two annotators by an interval on ``(a, U)`` (:data:`~planner.sizing.exact.
EXACT_PSA_METHODS`) :func:`with_exact_psa` replaces the quantiles, the assurance, the
coverage and the share without an interval by the exact figures of one pass over the
``(U, a)`` grid (:func:`~planner.sizing.exact.exact_psa_law`); where that grid is too large
to hold only the assurance is exact (its binomial sum needs no grid). Exact figures have
Monte Carlo SE 0.

The pair's fixed-size precision (:mod:`planner.sizing.precision`) and several annotators'
(:mod:`planner.sizing.precision`) both summarise their studies here, so the two
give the same figures for the same studies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.sizing.exact import (
    exact_psa_assurance,
    exact_psa_law,
    half_width_quantiles,
    reaches_width,
)
from planner.sizing.model import PairModel

#: the half-width's quantiles every fixed-size precision reports
QUANTILES = (0.1, 0.5, 0.9)
#: their names in results and JSON
QUANTILE_NAMES = tuple(f"p{round(100 * q)}" for q in QUANTILES)


@dataclass(frozen=True)
class StudyEvidence:
    """What ``replicates`` studies of one size show about an interval.

    Attributes
    ----------
    quantiles
        The half-width at each of the requested probabilities (``inf``: no usable interval).
    assurance, assurance_mc_se
        ``P(half-width <= width)`` and its Monte Carlo SE (0 when exact).
    coverage, coverage_mc_se
        The share of studies whose interval holds ``true_value``, and its Monte Carlo SE
        (0 when exact).
    true_value
        What the interval estimates under the model.
    no_interval
        The share of studies without an interval, counted as misses in the coverage.
    n_undefined
        The simulated studies without an interval.
    interval
        The medians of the finite lower and of the finite upper limits (None where no study
        has one).
    replicates
        The simulated studies.
    exact_law
        Whether the quantiles, coverage and ``no_interval`` are exact.
    """

    quantiles: tuple[float, ...]
    assurance: float
    assurance_mc_se: float
    coverage: float
    coverage_mc_se: float
    true_value: float
    no_interval: float
    n_undefined: int
    interval: tuple[float | None, float | None]
    replicates: int
    exact_law: bool = False


def mc_se(share: float, replicates: int) -> float:
    """Monte Carlo SE of a share of ``replicates`` studies, ``sqrt(p (1 - p) / R)``."""
    return float(np.sqrt(share * (1 - share) / replicates))


def covers(interval: Any, truth: float) -> NDArray:
    """Which intervals contain ``truth`` (up to rounding, 1e-9); undefined ones do not."""
    low, high = np.asarray(interval.low, dtype=float), np.asarray(interval.high, dtype=float)
    with np.errstate(invalid="ignore"):
        return (low <= truth + 1e-9) & (truth - 1e-9 <= high)


def finite_median(values: NDArray) -> float:
    """Median of the finite values, NaN if none (``np.nanmedian`` would import numpy.ma)."""
    x = np.sort(np.asarray(values, dtype=float).ravel())
    x = x[np.isfinite(x)]
    return float((x[(x.size - 1) // 2] + x[x.size // 2]) / 2) if x.size else float("nan")


def _finite_median(values: NDArray) -> float | None:
    median = finite_median(values)
    return None if np.isnan(median) else median


def simulated_evidence(
    ci: Any, true_value: float, width: float, probabilities: Sequence[float]
) -> StudyEvidence:
    """The evidence of simulated studies' intervals ``ci`` (``low``, ``high`` and
    ``half_width`` arrays, one per study) about ``true_value`` (module docstring).

    >>> from planner.statistics.intervals import ConfidenceInterval
    >>> ci = ConfidenceInterval(np.array([0.1, 0.3, np.nan, 0.5]),
    ...                         np.array([0.5, 0.6, np.nan, 0.9]))
    >>> e = simulated_evidence(ci, 0.55, 0.2, (0.5,))
    >>> e.quantiles, e.assurance, e.coverage, e.no_interval, e.interval
    ((0.2,), 0.75, 0.5, 0.25, (0.3, 0.6))
    """
    half_width = np.asarray(ci.half_width, dtype=float)
    low, high = np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)
    replicates = int(half_width.size)
    reached = float(np.mean(reaches_width(half_width, width)))
    covered = float(np.mean(covers(ci, true_value)))
    undefined = int((~np.isfinite(half_width)).sum())
    typical = (_finite_median(low), _finite_median(high))
    return StudyEvidence(
        quantiles=tuple(half_width_quantiles(half_width, probabilities)),
        assurance=reached,
        assurance_mc_se=mc_se(reached, replicates),
        coverage=covered,
        coverage_mc_se=mc_se(covered, replicates),
        true_value=float(true_value),
        no_interval=undefined / replicates,
        n_undefined=undefined,
        interval=typical,
        replicates=replicates,
    )


def with_exact_psa(
    evidence: StudyEvidence,
    pair: PairModel,
    items: int,
    width: float,
    probabilities: Sequence[float],
    confidence_level: float,
    method: str,
) -> StudyEvidence:
    """``evidence`` with the exact figures of PSA by ``method`` at ``items`` items
    (module docstring); ``method`` one of :data:`~planner.sizing.exact.EXACT_PSA_METHODS`."""
    law = exact_psa_law(pair, items, confidence_level, method)
    if law is None:  # the (U, a) grid is too large to hold: the assurance's sum needs none
        exact = exact_psa_assurance(pair, items, width, confidence_level, method)
        return replace(evidence, assurance=exact, assurance_mc_se=0.0)
    return replace(
        evidence,
        quantiles=tuple(law.quantiles(tuple(probabilities))),
        assurance=law.assurance(width),
        assurance_mc_se=0.0,
        coverage=law.coverage,
        coverage_mc_se=0.0,
        no_interval=law.no_interval,
        exact_law=True,
    )
