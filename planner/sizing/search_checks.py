"""The independent check of a planned size: fresh studies the search never saw.

:func:`planner.sizing.search.find_sample_size` finds its ``n`` on nested studies (or on
exact binomial sums); the assurance, the interval's coverage of the model's true value and
the half-width's quantiles it reports come from ``replicates`` new studies of that size, so
that they carry no selection bias from the search (the smallest ``n`` whose noisy assurance
first reaches the target has a true assurance at or below it about half the time).

* :func:`pair_evidence`: the pair's studies as 2x2 tables, the interval of
  :func:`planner.sizing.search.interval_function`; a study covers the truth up to rounding
  (1e-9), and the half-width quantiles count an undefined or zero-width interval as
  infinitely wide (exact quantiles when the half-width's law is known,
  :func:`planner.sizing.exact.exact_psa_law`, with the exact coverage);
* :func:`pattern_evidence`: studies of M annotators as label-pattern counts, the interval of
  :func:`planner.sizing.study_intervals.study_intervals`; the half-width quantiles are over
  the defined intervals.

Each returns the evidence fields of :class:`planner.sizing.search.SampleSizeResult`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.sizing.exact import (
    exact_psa_law,
    half_width_quantiles,
    reaches_width,
)
from planner.sizing.model import PairModel
from planner.sizing.studies import simulate_pattern_counts, simulate_tables
from planner.statistics.intervals import ConfidenceInterval


def _mc_se(share: float, replicates: int) -> float:
    """Monte Carlo SE of a share of ``replicates`` studies, ``sqrt(p (1 - p) / R)``."""
    return float(np.sqrt(share * (1 - share) / replicates))


def nan_median(values: NDArray) -> float:
    """Median of the finite values, NaN if none (``np.nanmedian`` would import numpy.ma)."""
    x = np.sort(np.asarray(values, dtype=float).ravel())
    x = x[np.isfinite(x)]
    return float((x[(x.size - 1) // 2] + x[x.size // 2]) / 2) if x.size else float("nan")


def pair_true_value(model: PairModel, metric: str, method: str) -> float:
    """The pair's value of what the interval method estimates: PSA, Cohen's kappa, or the
    intraclass kappa ``1 - (b + c) / (2 pi (1 - pi))`` for ``gof``."""
    a, b, c, d = (float(x) for x in model.cells)
    if metric == "psa":
        return 2 * a / (2 * a + b + c)
    if method == "gof":
        pi = (2 * a + b + c) / 2
        return 1 - (b + c) / (2 * pi * (1 - pi))
    rate_a, rate_b = a + b, a + c
    p_e = rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
    return (a + d - p_e) / (1 - p_e)


def covers(interval: ConfidenceInterval, truth: float) -> NDArray:
    """Which intervals contain ``truth`` (up to rounding); undefined ones do not."""
    low, high = np.asarray(interval.low, dtype=float), np.asarray(interval.high, dtype=float)
    with np.errstate(invalid="ignore"):
        return (low <= truth + 1e-9) & (truth - 1e-9 <= high)


def pair_evidence(
    model: PairModel,
    items: int,
    target: Any,
    interval: Callable[[NDArray], ConfidenceInterval],
    exact: bool,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """The pair's evidence at ``items`` from ``target.replicates`` fresh 2x2 tables.

    ``target`` is the resolved :class:`~planner.sizing.search.SearchSettings` (metric,
    method, width, confidence level, assurance, replicates); ``exact``: the half-width's
    quantiles come from binomial sums instead of the fresh studies."""
    ci = interval(simulate_tables(model.cells, items, target.replicates, rng=rng))
    hw = np.asarray(ci.half_width, dtype=float)
    share = float(np.mean(reaches_width(hw, target.width)))
    levels = (0.5, target.assurance)
    # the half-width's law, and the interval's coverage, are known exactly too
    law = exact_psa_law(model, items, target.confidence_level, target.method) if exact else None
    if law is not None:
        quantiles = law.quantiles(levels)
    else:  # zero-width and undefined intervals count as too wide
        quantiles = half_width_quantiles(hw, levels)
    truth = pair_true_value(model, target.metric, target.method)
    covered = float(np.mean(covers(ci, truth)))
    return {
        "exact_coverage": None if law is None else law.coverage,
        "assurance": share,
        "assurance_mc_se": _mc_se(share, target.replicates),
        "half_width_median": quantiles[0],
        "half_width_at_assurance": quantiles[1],
        "interval_median": (nan_median(ci.low), nan_median(ci.high)),
        "n_undefined": int((~np.isfinite(hw)).sum()),
        "coverage": covered,
        "coverage_mc_se": _mc_se(covered, target.replicates),
        "true_value": truth,
    }


def pattern_evidence(
    patterns: NDArray[np.int64],
    probabilities: NDArray,
    items: int,
    target: Any,
    truth: float,
    opts: dict[str, Any],
    rng: np.random.Generator,
) -> dict[str, Any]:
    """The evidence at ``items`` from ``target.replicates`` fresh studies of M annotators
    (label-pattern counts), ``truth`` the coefficient the model implies and ``opts`` the
    keywords of :func:`~planner.sizing.study_intervals.study_intervals`."""
    # the pattern intervals import scipy: kept off the pair plan's start path
    from planner.sizing.study_intervals import study_intervals

    counts = simulate_pattern_counts(probabilities, items, target.replicates, rng=rng)
    ci = study_intervals(target.metric, patterns, counts, **opts)
    median, at_assurance = half_width_quantiles(ci.half_width, (0.5, target.assurance))
    reached = float(np.mean(reaches_width(ci.half_width, target.width)))
    covered = float(np.mean((ci.low <= truth) & (truth <= ci.high)))

    return {
        "assurance": reached,
        "assurance_mc_se": _mc_se(reached, target.replicates),
        "half_width_median": median,
        "half_width_at_assurance": at_assurance,
        "interval_median": (nan_median(ci.low), nan_median(ci.high)),
        "n_undefined": int((~np.isfinite(ci.half_width)).sum()),
        "coverage": covered,
        "coverage_mc_se": _mc_se(covered, target.replicates),
        "true_value": truth,
    }
