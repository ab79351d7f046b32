"""The enriched and population-weighted designs of any study over strata, and their checks.

Every function here reads a :class:`~planner.sizing.pattern_strata.PatternStrata`: a pair's
four ordered cells per stratum or several annotators' count patterns, simulated alike as
pattern counts (:class:`~planner.sizing.design.StratifiedPatternStudies`) and sized by one
search (:func:`~planner.sizing.design.size_stratified`). What differs between studies (the
coefficient, its intervals, the uniform design's plan) is the strata's own
(docs/methods/stratified-sampling.md section 3).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.sizing.design import (
    DesignResult,
    StratifiedPatternStudies,
    StratifiedSearch,
    optimal_allocation,
    size_stratified,
    stratified_resample_values,
    stratified_result,
)
from planner.sizing.pattern_strata import FloatArray, PatternStrata, Statistic
from planner.statistics.intervals import normal_quantile

if TYPE_CHECKING:
    from planner.sizing.plan_settings import PlanSettings
    from planner.sizing.strata_pilot_uncertainty import StrataPilotUncertainty

# the weighted design's bootstrap check: resamples per study, and its budget of draws
CHECK_RESAMPLES = 500
CHECK_DRAWS = 2_000_000


def strata_studies(
    strata: PatternStrata, replicates: int, rng: np.random.Generator
) -> StratifiedPatternStudies:
    """``replicates`` nested studies of every stratum's patterns, kept as the strata keep
    theirs (:attr:`~planner.sizing.pattern_strata.PatternStrata.keep_every_size`)."""
    return StratifiedPatternStudies(
        list(strata.probabilities), replicates, rng, keep_every_size=strata.keep_every_size
    )


def _studies_of(strata: PatternStrata) -> Callable[[list[Any], int, np.random.Generator], Any]:
    return lambda _, replicates, rng: strata_studies(strata, replicates, rng)


def enriched_design(
    strata: PatternStrata,
    enriched: FloatArray,
    metric: str,
    settings: PlanSettings,
    *,
    prevalence_width: float,
    rng: np.random.Generator,
) -> DesignResult:
    """Strata at ``enriched`` shares, pooled unweighted, and a uniform slice that buys the
    positive-label rate ``r`` at ``prevalence_width``: ``ceil(z^2 r (1 - r) / width^2)``
    items."""
    start = strata.plug_in_start(strata.mixture(enriched), metric, settings)
    search = StratifiedSearch.of(settings, floor=0, start=start)
    items, half_widths, estimates = size_stratified(
        list(strata.probabilities), enriched, strata.pooled_statistic(metric, settings),
        search, rng=rng, studies=_studies_of(strata),
    )  # fmt: skip
    rate = strata.positive_label_rate(strata.population)
    z = normal_quantile(settings.confidence_level)
    slice_items = int(math.ceil(z * z * rate * (1 - rate) / prevalence_width**2))
    union = float(strata.union_of(strata.population))
    return stratified_result(
        "enriched", items, strata.union, half_widths, estimates, settings, slice_items, union
    )


def weighted_design_shares(strata: PatternStrata, metric: str) -> NDArray:
    """The weighted design's share of the items in each stratum: the cost-optimal allocation
    ``a_h ~ W_h S_h / sqrt(c_h)`` (residual SDs ``S_h`` of ``metric``, seconds ``c_h``),
    summing to 1."""
    proportions = optimal_allocation(
        strata.shares, strata.residual_sds(metric), strata.seconds, 1.0
    )
    return np.asarray(proportions / proportions.sum())


def weighted_search(
    strata: PatternStrata, metric: str, settings: PlanSettings, floor_items: int
) -> tuple[NDArray, Statistic, StratifiedSearch]:
    """The weighted design's allocation (:func:`weighted_design_shares`), its interval
    (pattern counts to half-widths and estimates) and its search, started at the
    delta-method total ``z^2 sum_h W_h^2 S_h^2 / a_h / width^2`` (100 if that is 0)."""
    sds = strata.residual_sds(metric)
    proportions = weighted_design_shares(strata, metric)
    z = normal_quantile(settings.confidence_level)
    var_unit = float((strata.shares**2 * sds**2 / np.maximum(proportions, 1e-12)).sum())
    start = int(math.ceil(z * z * var_unit / settings.width**2)) or 100
    search = StratifiedSearch.of(settings, floor=floor_items, start=start)
    interval = strata.weighted_interval(metric, settings.confidence_level)

    def statistic(counts: NDArray) -> tuple[NDArray, NDArray]:
        estimate, low, high = interval(counts)
        return (high - low) / 2, estimate

    return proportions, statistic, search


def weighted_design(
    strata: PatternStrata,
    metric: str,
    settings: PlanSettings,
    *,
    floor_items: int,
    rng: np.random.Generator,
) -> DesignResult:
    """The stratified sample with population weights at the cost-optimal allocation (at
    least ``floor_items`` per stratum), its coverage of traffic's value simulated
    (:func:`weighted_coverage`, on a stream spawned after the search's own)."""
    proportions, statistic, search = weighted_search(strata, metric, settings, floor_items)
    items, half_widths, estimates = size_stratified(
        list(strata.probabilities), proportions, statistic, search,
        rng=rng, studies=_studies_of(strata),
    )  # fmt: skip
    sized = stratified_result("weighted", items, strata.union, half_widths, estimates, settings)
    coverage = weighted_coverage(strata, items, metric, settings, rng=rng.spawn(1)[0])
    return replace(sized, coverage=coverage[0], coverage_mc_se=coverage[1])


def weighted_coverage(
    strata: PatternStrata,
    items: list[int],
    metric: str,
    settings: PlanSettings,
    *,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """Coverage of the weighted design's interval of traffic's value at ``items``.

    ``settings.replicates`` fresh stratified studies (not the search's); the coverage is the
    share whose interval holds ``g(sum_h W_h p_h)``, its Monte Carlo SE
    ``sqrt(c (1 - c) / R)``. An undefined interval does not cover.
    """
    counts = strata_studies(strata, settings.replicates, rng).tables(items)
    _, low, high = strata.weighted_interval(metric, settings.confidence_level)(counts)
    return covered(low, high, float(strata.value(metric, strata.population)))


def covered(low: NDArray, high: NDArray, truth: float) -> tuple[float, float]:
    """Share of intervals holding ``truth`` (an undefined one does not) and its MC SE."""
    share = float(np.mean((low <= truth) & (truth <= high)))
    return share, math.sqrt(share * (1 - share) / len(low))


def bootstrap_check(
    strata: PatternStrata,
    items: list[int],
    metric: str,
    confidence_level: float,
    *,
    rng: np.random.Generator,
) -> dict[str, float]:
    """The weighted design's linearised interval against the stratified percentile bootstrap
    (items resampled within each stratum, re-weighted by ``W_h``), on up to 100 studies:
    fewer with many strata, since the check's cost is studies x resamples x strata."""
    n_studies = int(np.clip(CHECK_DRAWS // (CHECK_RESAMPLES * len(items)), 10, 100))
    counts = strata_studies(strata, n_studies, rng).tables(items)
    _, low, high = strata.weighted_interval(metric, confidence_level)(counts)
    values = stratified_resample_values(
        counts, strata.shares, lambda p: strata.value(metric, p), n_boot=CHECK_RESAMPLES, rng=rng
    )
    tail = (1 - confidence_level) / 2
    boot_low, boot_high = np.nanquantile(values, [tail, 1 - tail], axis=0)
    return {
        "studies": n_studies,
        "n_boot": CHECK_RESAMPLES,
        "median_half_width_linearised": float(np.nanmedian((high - low) / 2)),
        "median_half_width_bootstrap": float(np.nanmedian((boot_high - boot_low) / 2)),
    }


def weighted_under_pilot_of(
    strata: PatternStrata,
    settings: PlanSettings,
    floor_items: int,
    weighted: DesignResult,
    pilot_counts: Any,
    seed: int,
) -> StrataPilotUncertainty | None:
    """The weighted design under the pilot's uncertainty when the strata are a pilot's
    (``pilot_counts``, each stratum's items per pattern): each stratum's pattern shares
    drawn from ``Dirichlet(counts_h + 1/2)``
    (:func:`planner.sizing.strata_pilot_uncertainty.weighted_under_pilot`); else None."""
    if pilot_counts is None:
        return None
    from planner.sizing.strata_pilot_uncertainty import TRUTH_STREAM, weighted_under_pilot

    proportions, statistic, search = weighted_search(strata, settings.metric, settings, floor_items)
    counts = np.asarray(pilot_counts, dtype=float)
    rng = np.random.default_rng([seed, TRUTH_STREAM])
    plug_in = list(weighted.items_per_stratum)
    shape = (counts.shape[1],)
    return weighted_under_pilot(counts, proportions, statistic, search, plug_in, rng, shape)


def sized_designs(
    strata: PatternStrata,
    settings: PlanSettings,
    options: Any,
    seed: int,
    step: Callable[[int, int], None],
) -> tuple[dict[str, DesignResult], dict[str, float]]:
    """The uniform, enriched and weighted designs and the weighted design's bootstrap check,
    each on its own stream of ``seed``; ``step(done, 4)`` after each. ``options`` gives
    the enriched shares, the prevalence slice's width and the floor per stratum
    (:class:`~planner.sizing.compare.StrataOptions`)."""
    metric, streams = settings.metric, np.random.default_rng(seed).spawn(4)
    designs = {"uniform": strata.uniform_design(metric, settings, streams[0])}
    step(1, 4)
    designs["enriched"] = enriched_design(
        strata, options.enriched, metric, settings,
        prevalence_width=options.prevalence_width, rng=streams[1],
    )  # fmt: skip
    step(2, 4)
    designs["weighted"] = weighted_design(
        strata, metric, settings, floor_items=options.floor_items, rng=streams[2]
    )
    step(3, 4)
    weighted_items = designs["weighted"].items_per_stratum
    check = bootstrap_check(
        strata, weighted_items, metric, settings.confidence_level, rng=streams[3]
    )
    step(4, 4)
    return designs, check
