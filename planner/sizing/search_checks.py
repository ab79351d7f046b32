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
  :func:`planner.sizing.study_intervals.study_intervals`.

Both summarise their studies by :func:`planner.sizing.study_evidence.simulated_evidence`,
as the fixed-size precision does.

Each returns the evidence fields of :class:`planner.sizing.search.SampleSizeResult`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.sizing.exact import exact_psa_law
from planner.sizing.model import PairModel
from planner.sizing.studies import simulate_pattern_counts, simulate_tables
from planner.sizing.study_evidence import StudyEvidence, simulated_evidence
from planner.statistics.intervals import ConfidenceInterval


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
    truth = pair_true_value(model, target.metric, target.method)
    levels = (0.5, target.assurance)
    evidence = simulated_evidence(ci, truth, target.width, levels)
    # the half-width's law, and the interval's coverage, are known exactly too
    law = exact_psa_law(model, items, target.confidence_level, target.method) if exact else None
    quantiles = evidence.quantiles if law is None else tuple(law.quantiles(levels))
    return {
        "exact_coverage": None if law is None else law.coverage,
        **_check_fields(evidence, quantiles),
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
    evidence = simulated_evidence(ci, truth, target.width, (0.5, target.assurance))
    return _check_fields(evidence, evidence.quantiles)


def _check_fields(evidence: StudyEvidence, quantiles: tuple[float, ...]) -> dict[str, Any]:
    """The evidence fields of :class:`planner.sizing.search.SampleSizeResult` from the fresh
    studies' ``evidence`` and the half-width's median and quantile at the assurance."""
    lower, upper = evidence.interval
    return {
        "assurance": evidence.assurance,
        "assurance_mc_se": evidence.assurance_mc_se,
        "half_width_median": quantiles[0],
        "half_width_at_assurance": quantiles[1],
        "interval_median": (
            float("nan") if lower is None else lower,
            float("nan") if upper is None else upper,
        ),
        "n_undefined": evidence.n_undefined,
        "coverage": evidence.coverage,
        "coverage_mc_se": evidence.coverage_mc_se,
        "true_value": evidence.true_value,
    }
