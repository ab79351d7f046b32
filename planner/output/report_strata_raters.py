"""The report's figures of several annotators over strata: the uniform design's half-width
curve and the weighted design's estimates, simulated as label-pattern counts (the data behind
the figures of a pair's strata, :mod:`planner.output.report_figures`, for
:func:`planner.sizing.compare.compare_raters_designs`)."""

from __future__ import annotations

import numpy as np

from planner.output.report_figures import (
    CURVE_REPLICATES,
    ESTIMATE_REPLICATES,
    EstimateSpread,
    HalfWidthCurve,
    curve_of,
    spread_of,
)
from planner.sizing.compare import Comparison
from planner.sizing.design import StratifiedPatternStudies
from planner.sizing.raters_strata import POSITIVE, STRATA_METRICS, RatersStrata
from planner.sizing.studies import NestedPatternStudies
from planner.sizing.study_intervals import study_intervals
from planner.statistics.stratified import weighted_from_pattern_counts

#: the key of each metric in a comparison's ``population`` (Fleiss' kappa is its ``kappa``)
POPULATION_KEYS = {"psa": "psa", "fleiss": "kappa"}


def _strata(comparison: Comparison) -> RatersStrata:
    if comparison.raters is None:
        raise ValueError("a comparison of several annotators' strata is needed")
    return comparison.raters


def raters_half_width_curve(
    comparison: Comparison, planned: int, rng: np.random.Generator
) -> HalfWidthCurve:
    """Half-width quantiles of the uniform design (traffic's patterns, pooled interval) on a
    grid of sizes around ``planned``; undefined and zero-width intervals count as too wide."""
    strata, settings = _strata(comparison), comparison.settings
    metric = settings.metric
    studies = NestedPatternStudies(strata.population, CURVE_REPLICATES, rng=rng)

    def half_widths(n: int) -> np.ndarray:
        counts = studies.counts(n)
        level = settings.confidence_level
        return study_intervals(metric, strata.patterns, counts, confidence_level=level).half_width

    union_rate = float(strata.shares @ strata.union)
    return curve_of(half_widths, planned, settings, metric, union_rate, "uniform")


def raters_weighted_spread(comparison: Comparison, rng: np.random.Generator) -> EstimateSpread:
    """Population-weighted estimates of studies of the weighted design's size, with the
    median of their linearised intervals' limits and traffic's value."""
    strata, settings = _strata(comparison), comparison.settings
    metric = settings.metric
    studies = StratifiedPatternStudies(list(strata.probabilities), ESTIMATE_REPLICATES, rng)
    counts = studies.tables(comparison.designs["weighted"].items_per_stratum)
    found = weighted_from_pattern_counts(
        STRATA_METRICS[metric], strata.patterns, counts, strata.shares,
        settings.confidence_level, POSITIVE,
    )  # fmt: skip
    interval = (float(np.nanmedian(found.low)), float(np.nanmedian(found.high)))
    truth = float(comparison.population[POPULATION_KEYS[metric]])
    return spread_of(found.estimate, truth, interval, settings.confidence_level, metric, "weighted")
