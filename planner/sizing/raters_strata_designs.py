"""The uniform, enriched and weighted designs of several annotators over strata, compared.

:func:`compare_raters_designs` sizes the three designs of
:class:`~planner.sizing.raters_strata.RatersStrata` for one target and bills them, into the
pair's :class:`~planner.sizing.compare.Comparison` (docs/strata-designs.md, "Several
annotators over strata"; the method: docs/methods/stratified-sampling.md section 3.7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.compare import (
    Comparison,
    DesignCost,
    coverage_note,
    design_notes,
    strata_design_cost,
    stratified_result,
)
from planner.sizing.design import (
    DesignResult,
    StratifiedPatternStudies,
    StratifiedSearch,
    optimal_allocation,
    size_stratified,
    split_items,
)
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.raters_strata import (
    POSITIVE,
    STRATA_METRICS,
    FloatArray,
    RatersStrata,
    fleiss_kappa,
    plug_in_start,
    pooled_fit,
    residual_sds,
    specific_agreement,
    traffic_value,
    weighted_fit,
)
from planner.sizing.study_intervals import expected_half_width, study_intervals
from planner.statistics.intervals import normal_quantile
from planner.statistics.stratified import multirater_coefficient, multirater_features
from planner.validation import RngLike, seed_from

if TYPE_CHECKING:
    from planner.sizing.strata_pilot_uncertainty import StrataPilotUncertainty

# the weighted design's bootstrap check, as the pair's: resamples per study, budget of draws
CHECK_RESAMPLES = 500
CHECK_DRAWS = 2_000_000


def raters_uniform_design(
    strata: RatersStrata, metric: str, settings: PlanSettings, *, rng: np.random.Generator
) -> DesignResult:
    """Items at random from all traffic: one sample of traffic's pattern probabilities."""
    population = strata.population
    start = plug_in_start(strata, population, metric, settings)
    search = StratifiedSearch.of(settings, start=start)
    (total,), half_widths, estimates = size_stratified(
        [population], [1.0], pooled_fit(strata, metric, settings.confidence_level), search,
        rng=rng, studies=StratifiedPatternStudies,
    )  # fmt: skip
    items = split_items(total, strata.shares)
    sized = stratified_result("uniform", items, strata.union, half_widths, estimates, settings)
    studies = StratifiedPatternStudies([population], settings.replicates, rng.spawn(1)[0])
    ci = study_intervals(
        metric, strata.patterns, studies.tables([total])[:, 0],
        confidence_level=settings.confidence_level,
    )  # fmt: skip
    covered = _covered(ci.low, ci.high, traffic_value(strata, metric))
    return replace(sized, coverage=covered[0], coverage_mc_se=covered[1])


def raters_enriched_design(
    strata: RatersStrata,
    enriched: FloatArray,
    metric: str,
    settings: PlanSettings,
    *,
    prevalence_width: float,
    rng: np.random.Generator,
) -> DesignResult:
    """Strata at ``enriched`` shares, pooled unweighted, and a uniform slice that buys the
    positive-label rate at ``prevalence_width``."""
    start = plug_in_start(strata, strata.mixture(enriched), metric, settings)
    search = StratifiedSearch.of(settings, start=start)
    items, half_widths, estimates = size_stratified(
        list(strata.probabilities), enriched, pooled_fit(strata, metric, settings.confidence_level),
        search, rng=rng, studies=StratifiedPatternStudies,
    )  # fmt: skip
    rate = float(strata.population @ strata.patterns[:, POSITIVE]) / strata.labels_per_item
    z = normal_quantile(settings.confidence_level)
    slice_items = int(math.ceil(z * z * rate * (1 - rate) / prevalence_width**2))
    union = float(strata.shares @ strata.union)
    return stratified_result(
        "enriched", items, strata.union, half_widths, estimates, settings, slice_items, union
    )


def weighted_design_shares(strata: RatersStrata, metric: str) -> NDArray:
    """The weighted design's share of the items in each stratum: the cost-optimal allocation
    ``a_h ~ W_h S_h / sqrt(c_h)`` (residual SDs ``S_h`` of ``metric``, seconds ``c_h``),
    summing to 1."""
    proportions = optimal_allocation(
        strata.shares, residual_sds(strata, metric), strata.seconds, 1.0
    )
    return np.asarray(proportions / proportions.sum())


def raters_weighted_search(
    strata: RatersStrata, metric: str, settings: PlanSettings, floor_items: int
) -> tuple[NDArray, Callable[[NDArray], tuple[NDArray, NDArray]], StratifiedSearch]:
    """The weighted design's allocation (:func:`weighted_design_shares`), its interval
    (``(R, H, P)`` pattern counts to half-widths and estimates) and its search, started at
    the delta-method total ``z^2 sum_h W_h^2 S_h^2 / a_h / width^2``."""
    sds = residual_sds(strata, metric)
    proportions = weighted_design_shares(strata, metric)
    z = normal_quantile(settings.confidence_level)
    var_unit = float((strata.shares**2 * sds**2 / np.maximum(proportions, 1e-12)).sum())
    search = StratifiedSearch.of(
        settings, floor=floor_items, start=int(math.ceil(z * z * var_unit / settings.width**2))
    )
    fit = weighted_fit(strata, metric, settings.confidence_level)

    def statistic(counts: NDArray) -> tuple[NDArray, NDArray]:
        estimate, low, high = fit(counts)
        return (high - low) / 2, estimate

    return proportions, statistic, search


def raters_weighted_design(
    strata: RatersStrata,
    metric: str,
    settings: PlanSettings,
    *,
    floor_items: int,
    rng: np.random.Generator,
) -> DesignResult:
    """The stratified sample with population weights at the cost-optimal allocation (at
    least ``floor_items`` per stratum), its coverage of traffic's value simulated."""
    proportions, statistic, search = raters_weighted_search(strata, metric, settings, floor_items)
    fit = weighted_fit(strata, metric, settings.confidence_level)
    items, half_widths, estimates = size_stratified(
        list(strata.probabilities), proportions, statistic, search,
        rng=rng, studies=StratifiedPatternStudies,
    )  # fmt: skip
    sized = stratified_result("weighted", items, strata.union, half_widths, estimates, settings)
    probabilities = list(strata.probabilities)
    fresh = StratifiedPatternStudies(probabilities, settings.replicates, rng.spawn(1)[0])
    _, low, high = fit(fresh.tables(items))
    covered = _covered(low, high, traffic_value(strata, metric))
    return replace(sized, coverage=covered[0], coverage_mc_se=covered[1])


def _covered(low: NDArray, high: NDArray, truth: float) -> tuple[float, float]:
    """Share of intervals holding ``truth`` (an undefined one does not) and its MC SE."""
    share = float(np.mean((low <= truth) & (truth <= high)))
    return share, math.sqrt(share * (1 - share) / len(low))


def raters_bootstrap_check(
    strata: RatersStrata,
    items: list[int],
    metric: str,
    confidence_level: float,
    *,
    rng: np.random.Generator,
) -> dict[str, float]:
    """The weighted design's linearised interval against the stratified percentile bootstrap
    (items resampled within each stratum, re-weighted by ``W_h``), on up to 100 studies."""
    n_studies = int(np.clip(CHECK_DRAWS // (CHECK_RESAMPLES * len(items)), 10, 100))
    counts = StratifiedPatternStudies(list(strata.probabilities), n_studies, rng).tables(items)
    _, low, high = weighted_fit(strata, metric, confidence_level)(counts)
    y = multirater_features(strata.patterns, POSITIVE)
    coefficient = multirater_coefficient(STRATA_METRICS[metric], 2)
    pooled = np.zeros((CHECK_RESAMPLES, n_studies, y.shape[1]))
    for h, n in enumerate(items):
        share = counts[:, h] / n
        draws = rng.multinomial(n, share, size=(CHECK_RESAMPLES, n_studies))
        pooled += strata.shares[h] * (draws / n) @ y
    values, _ = coefficient(pooled)
    tail = (1 - confidence_level) / 2
    boot_low, boot_high = np.nanquantile(values, [tail, 1 - tail], axis=0)
    return {
        "studies": n_studies,
        "n_boot": CHECK_RESAMPLES,
        "median_half_width_linearised": float(np.nanmedian((high - low) / 2)),
        "median_half_width_bootstrap": float(np.nanmedian((boot_high - boot_low) / 2)),
    }


def raters_design_cost(
    design: DesignResult, strata: RatersStrata, settings: PlanSettings
) -> DesignCost:
    """Person-hours and cost (:func:`planner.sizing.compare.strata_design_cost`): each item's
    ``k`` labels (every annotator's, or ``per_item``) at its stratum's seconds, the items
    whose labels are not unanimous adjudicated; the prevalence slice at traffic's mean
    seconds. With a named team (``settings.team``) each person's seconds and rate bill their
    labels."""
    mean_seconds = float(strata.shares @ strata.seconds)
    population = float(strata.contested(strata.population))
    contested = [*np.atleast_1d(strata.contested(strata.probabilities)), population]
    labels = replace(settings, annotators_per_item=strata.labels_per_item)
    return strata_design_cost(design, [*strata.seconds, mean_seconds], contested, labels)


# --------------------------------------------------------------------------- comparison


def _strata_rows(strata: RatersStrata, options: StrataOptions, sds: FloatArray) -> list[dict]:
    """The strata table: share, prevalence, seconds, union rate, PSA, Fleiss' kappa, the
    share of items whose labels are not unanimous, and the residual SD; from a pilot read by
    stratum, its counts (``prevalence`` is then the pilot's positive-label rate)."""
    rows = [
        {
            "name": name,
            "share": float(share),
            "prevalence": float(prevalence),
            "seconds_per_item": float(seconds),
            "union_rate": float(union),
            "psa": specific_agreement(strata, p, POSITIVE),
            "kappa": fleiss_kappa(strata, p),
            "contested_rate": float(strata.contested(p)),
            "residual_sd": float(sd),
        }
        for name, share, prevalence, seconds, union, p, sd in zip(
            strata.names,
            strata.shares,
            options.prevalences,
            strata.seconds,
            strata.union,
            strata.probabilities,
            sds,
            strict=True,
        )  # fmt: skip
    ]
    if options.pilot_counts is None:
        return rows
    return [
        {**row, "model_source": "pilot", "pilot_counts": list(counts)}
        for row, counts in zip(rows, options.pilot_counts, strict=True)
    ]


def _per_stratum(strata: RatersStrata, items: list[int], settings: PlanSettings) -> list[dict]:
    """Each stratum's PSA and the plug-in half-width its enriched items give."""
    return [
        {
            "stratum": name,
            "psa": specific_agreement(strata, p, POSITIVE),
            "enriched_items": n,
            "expected_union_positives": float(n * union),
            "approx_half_width": expected_half_width(
                "psa", strata.patterns, p, max(n, 2), confidence_level=settings.confidence_level
            ),
        }
        for name, p, n, union in zip(
            strata.names, strata.probabilities, items, strata.union, strict=True
        )
    ]


@dataclass(frozen=True)
class StrataOptions:
    """What the designs take besides the target: the scenario (for its name and strata),
    each stratum's prevalence, the enriched shares, the floor per stratum and the slice."""

    scenario: Any
    prevalences: list[float]
    enriched: FloatArray
    floor_items: int = 20
    prevalence_width: float = 0.02
    #: a pilot read by stratum: each stratum's items per count pattern (its model)
    pilot_counts: tuple[tuple[int, ...], ...] | None = None


def compare_raters_designs(
    strata: RatersStrata,
    settings: PlanSettings,
    options: StrataOptions,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Size the uniform, enriched and weighted designs of several annotators over strata.

    Parameters
    ----------
    strata
        The strata and their annotator models (:func:`raters_strata`).
    settings
        Target (``metric`` ``psa`` or ``fleiss``, width, confidence, assurance), search effort
        and costs (``seconds_per_item`` for strata without their own).
    options
        The scenario, the enriched shares, the floor per stratum and the prevalence slice.
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed is recorded.
    progress
        Called as ``progress(done, 4)`` after each of the three designs and the check.

    Raises
    ------
    InvalidInput
        A metric other than ``psa`` or ``fleiss`` (named ``metric``). The labels per item
        are the strata's (``strata.per_item``); ``settings.per_item`` must agree.

    Examples
    --------
    Three annotators over two strata (90 % of traffic at prevalence 0.05, 10 % at 0.4):

    >>> from planner.sizing.compare import enriched_shares
    >>> from planner.sizing.annotator_model import raters_model
    >>> from planner.sizing.raters_strata import raters_strata
    >>> from planner.data.scenario_raters import raters_scenario_from_dict
    >>> scenario = raters_scenario_from_dict({
    ...     "annotators": {"count": 3, "error_rate": 0.03},
    ...     "strata": [{"name": "rest", "share": 0.9, "prevalence": 0.05},
    ...                {"name": "flagged", "share": 0.1, "prevalence": 0.4}],
    ... })
    >>> models = [raters_model(s.prevalence, 3, error_rate=0.03) for s in scenario.strata]
    >>> strata = raters_strata(["rest", "flagged"], [0.9, 0.1], [90.0, 90.0], models)
    >>> options = StrataOptions(scenario, [0.05, 0.4], enriched_shares(scenario, strata))
    >>> found = compare_raters_designs(
    ...     strata, PlanSettings(width=0.1, replicates=500), options, rng=1
    ... )
    >>> sorted(found.designs), found.designs["weighted"].assurance >= 0.5
    (['enriched', 'uniform', 'weighted'], True)
    """
    _check_settings(strata, settings)
    seed = seed_from(rng)
    step = progress if progress is not None else (lambda done, total: None)
    designs, check = _sized_designs(strata, settings, options, seed, step)
    return Comparison(
        scenario=options.scenario,
        settings=settings,
        strata=_strata_rows(strata, options, residual_sds(strata, settings.metric)),
        population=_population(strata),
        designs=designs,
        costs={name: raters_design_cost(d, strata, settings) for name, d in designs.items()},
        per_stratum_psa=_per_stratum(strata, designs["enriched"].items_per_stratum, settings),
        weighted_bootstrap_check=check,
        seed=seed,
        raters=strata,
        notes=_notes(strata, designs["weighted"], settings, options),
        pilot_uncertainty=_under_pilot(strata, settings, options, designs["weighted"], seed),
    )  # fmt: skip


def _under_pilot(
    strata: RatersStrata,
    settings: PlanSettings,
    options: StrataOptions,
    weighted: DesignResult,
    seed: int,
) -> StrataPilotUncertainty | None:
    """The weighted design under the pilot's uncertainty when the strata are a pilot's
    (``options.pilot_counts``): each stratum's pattern shares drawn from
    ``Dirichlet(counts_h + 1/2)``
    (:func:`planner.sizing.strata_pilot_uncertainty.weighted_under_pilot`); else None."""
    if options.pilot_counts is None:
        return None
    from planner.sizing.strata_pilot_uncertainty import TRUTH_STREAM, weighted_under_pilot

    proportions, statistic, search = raters_weighted_search(
        strata, settings.metric, settings, options.floor_items
    )
    counts = np.asarray(options.pilot_counts, dtype=float)
    rng = np.random.default_rng([seed, TRUTH_STREAM])
    plug_in = list(weighted.items_per_stratum)
    shape = (counts.shape[1],)
    return weighted_under_pilot(counts, proportions, statistic, search, plug_in, rng, shape)


def _check_settings(strata: RatersStrata, settings: PlanSettings) -> None:
    """A metric with a population-weighted interval, and the strata's labels per item."""
    if settings.metric not in STRATA_METRICS:
        raise InvalidInput(
            f"metric {settings.metric} has no population-weighted interval over strata for "
            f"several annotators; give {' or '.join(STRATA_METRICS)}",
            parameter="metric",
            value=settings.metric,
        )
    if settings.per_item != strata.per_item:
        raise InvalidInput(
            f"per_item {settings.per_item} differs from the strata's {strata.per_item}: give "
            "the same k of M to raters_strata and to the settings",
            parameter="per_item",
        )


def _population(strata: RatersStrata) -> dict[str, float]:
    """Traffic's union rate, PSA, Fleiss' kappa, negative specific agreement and share of
    items whose labels are not unanimous."""
    population = strata.population
    return {
        "union_rate": float(strata.shares @ strata.union),
        "psa": specific_agreement(strata, population, POSITIVE),
        "kappa": fleiss_kappa(strata, population),
        "nsa": specific_agreement(strata, population, 0),
        "contested_rate": float(strata.contested(population)),
    }


def _notes(
    strata: RatersStrata, weighted: DesignResult, settings: PlanSettings, options: StrataOptions
) -> list[str]:
    """What the comparison assumed, the weighted design's coverage, and what psa and kappa
    are here."""
    return [
        *design_notes(
            options.scenario, options.enriched, options.prevalence_width, options.floor_items
        ),
        coverage_note(weighted, settings),
        f"{_who_labels(strata)}; psa is Uebersax's specific positive agreement and kappa "
        "Fleiss' kappa",
    ]


def _who_labels(strata: RatersStrata) -> str:
    """``3 annotators label every item``, or ``each item is labelled by 2 of 4 annotators
    drawn at random``."""
    if strata.per_item is None:
        return f"{strata.n_annotators} annotators label every item"
    return (
        f"each item is labelled by {strata.per_item} of {strata.n_annotators} annotators "
        "drawn at random"
    )


def _sized_designs(
    strata: RatersStrata,
    settings: PlanSettings,
    options: StrataOptions,
    seed: int,
    step: Callable[[int, int], None],
) -> tuple[dict[str, DesignResult], dict[str, float]]:
    """The three designs and the weighted design's bootstrap check, each on its own stream
    of ``seed``; ``step(done, 4)`` after each."""
    metric, streams = settings.metric, np.random.default_rng(seed).spawn(4)
    designs = {"uniform": raters_uniform_design(strata, metric, settings, rng=streams[0])}
    step(1, 4)
    designs["enriched"] = raters_enriched_design(
        strata, options.enriched, metric, settings,
        prevalence_width=options.prevalence_width, rng=streams[1],
    )  # fmt: skip
    step(2, 4)
    designs["weighted"] = raters_weighted_design(
        strata, metric, settings, floor_items=options.floor_items, rng=streams[2]
    )
    step(3, 4)
    weighted_items = designs["weighted"].items_per_stratum
    check = raters_bootstrap_check(
        strata, weighted_items, metric, settings.confidence_level, rng=streams[3]
    )
    step(4, 4)
    return designs, check
