"""Uniform, enriched and population-weighted designs for a stratified scenario, side by side.

:func:`compare_designs` sizes each design for the same target (half-width at the assurance)
and turns the items into person-hours and cost with each stratum's seconds per item. The
numbers answer different questions; each design says in words which population its
agreement figure describes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from planner import __version__
from planner.data.scenario import Scenario
from planner.errors import InvalidInput
from planner.output.jsonout import json_ready
from planner.sizing.design import (
    DesignResult,
    StratifiedStudies,
    check_strata,
    metric_value,
    optimal_allocation,
    residual_sd,
    size_stratified,
    split_items,
    stratified_bootstrap_limits,
    weighted_estimate,
)
from planner.sizing.exact import reaches_width, usable_half_width
from planner.sizing.model import PairModel, as_cells, pair_from_annotators, renamed
from planner.sizing.plan import PlanSettings, size_metric
from planner.sizing.search import analytic_items
from planner.statistics.intervals import kappa_interval, normal_quantile, psa_interval

DESCRIBES = {
    "uniform": "agreement on traffic: items drawn at random from all strata",
    "enriched": (
        "agreement on the enriched sample (hard cases), not on traffic; per-stratum PSA "
        "describes each stratum; the uniform slice estimates prevalence"
    ),
    "weighted": (
        "agreement on traffic: the stratified sample re-weighted by population shares "
        "(combined ratio estimator, linearised interval)"
    ),
}


# the weighted design's bootstrap check: resamples per study, and its budget of draws
CHECK_RESAMPLES = 500
CHECK_DRAWS = 2_000_000


@dataclass(frozen=True)
class DesignCost:
    """Hours and cost of a sized design."""

    person_hours: float
    cost: float | None
    prevalence_slice_hours: float = 0.0


@dataclass(frozen=True)
class Comparison:
    """The three designs for one scenario."""

    scenario: Scenario
    settings: PlanSettings
    strata: list[dict[str, Any]]
    population: dict[str, float]
    designs: dict[str, DesignResult]
    costs: dict[str, DesignCost]
    per_stratum_psa: list[dict[str, Any]]
    weighted_bootstrap_check: dict[str, float]
    seed: int
    notes: list[str] = field(default_factory=list)

    def hours_ratio(self, design: str, with_slice: bool = True) -> float:
        """Person-hours of ``design`` over those of the uniform design."""
        cost = self.costs[design]
        hours = float(cost.person_hours) - (0.0 if with_slice else cost.prevalence_slice_hours)
        uniform = float(self.costs["uniform"].person_hours)
        return hours / uniform if uniform > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        designs = {}
        for name, res in self.designs.items():
            designs[name] = {
                **asdict(res),
                "items": res.items,
                "person_hours": self.costs[name].person_hours,
                "cost": self.costs[name].cost,
                "hours_vs_uniform": self.hours_ratio(name),
                "prevalence_slice_hours": self.costs[name].prevalence_slice_hours,
            }
        return json_ready(
            {
                "planner_version": __version__,
                "scenario": {
                    "name": self.scenario.name,
                    "path": self.scenario.path,
                    "description": self.scenario.description,
                },
                "inputs": asdict(self.settings),
                "strata": self.strata,
                "population": self.population,
                "designs": designs,
                "per_stratum_psa": self.per_stratum_psa,
                "weighted_bootstrap_check": self.weighted_bootstrap_check,
                "claim_check": {
                    "claim": "enrichment buys the same interval for a fifth of the hours",
                    "enriched_hours_vs_uniform": self.hours_ratio("enriched"),
                    "enriched_hours_vs_uniform_without_prevalence_slice": self.hours_ratio(
                        "enriched", with_slice=False
                    ),
                    "weighted_hours_vs_uniform": self.hours_ratio("weighted"),
                },
                "seed": self.seed,
                "notes": self.notes,
            }
        )


def stratum_models(scenario: Scenario) -> list[PairModel]:
    """One annotator-pair model per stratum, stratum overrides over ``[model]``.

    An infeasible stratum is an error naming the scenario's keys: ``s.toml:
    strata[2].error_rate ...`` for a stratum's own value, ``model.bias`` for the default.
    """
    base = scenario.model
    models = []
    for i, s in enumerate(scenario.strata, start=1):
        own = {  # the keys this stratum sets itself
            "prevalence": s.prevalence,
            "error_rate": s.error_rate,
            "bias": s.bias,
            "ambiguity": s.ambiguity,
        }
        try:
            models.append(
                pair_from_annotators(
                    s.prevalence,
                    s.error_rate or base.get("error_rate"),
                    s.bias or base.get("bias", 0.0),
                    s.ambiguity if s.ambiguity is not None else base.get("ambiguity", 0.0),
                )
            )
        except InvalidInput as exc:

            def key(k: str, i: int = i, own: dict[str, Any] = own) -> str:
                return f"strata[{i}].{k}" if own.get(k) is not None else f"model.{k}"

            raise renamed(exc, key, f"{scenario.path}: stratum {s.name!r}: ") from None
    return models


def _mixture(models: list[PairModel], weights: np.ndarray, source: str) -> PairModel:
    cells = (weights[:, None] * np.array([m.cells for m in models])).sum(axis=0)
    return PairModel(cells=as_cells(cells), source=source, assumptions={})


def _stratified_result(
    design: str,
    items: list[int],
    union: np.ndarray,
    half_widths: np.ndarray,
    estimates: np.ndarray,
    settings: PlanSettings,
    slice_items: int = 0,
    slice_union_rate: float = 0.0,
) -> DesignResult:
    hw = usable_half_width(half_widths)  # undefined and zero-width count as too wide
    return DesignResult(
        design=design,
        describes=DESCRIBES[design],
        items_per_stratum=items,
        prevalence_slice_items=slice_items,
        union_positives=float(np.dot(items, union) + slice_items * slice_union_rate),
        half_width_median=float(np.median(hw)),
        # the smallest half-width reached by the assurance share (no interpolation towards
        # an infinite, degenerate study's "half-width")
        half_width_at_assurance=float(np.quantile(hw, settings.assurance, method="inverted_cdf")),
        assurance=float(np.mean(reaches_width(hw, settings.width))),
        estimate_median=float(np.nanmedian(estimates)),
    )


def compare_designs(
    scenario: Scenario,
    settings: PlanSettings,
    *,
    seed: int,
    floor_items: int = 20,
    prevalence_width: float = 0.02,
) -> Comparison:
    """Size the uniform, enriched and weighted designs of a stratified scenario.

    Parameters
    ----------
    scenario
        A scenario with at least two strata.
    settings
        Target (metric psa or kappa, width, confidence, assurance), search effort and
        budget; ``seconds_per_item`` is the default for strata without their own.
    seed
        Seed of the random generator.
    floor_items
        Least items per stratum in the stratified designs.
    prevalence_width
        Half-width of the prevalence estimate the enriched design's uniform slice buys.
    """
    if settings.metric == "both":
        raise InvalidInput(
            "metric both is not supported for design comparisons; pick psa or kappa",
            parameter="metric",
        )
    metric = settings.metric
    models = stratum_models(scenario)
    shares = np.array([s.share for s in scenario.strata])
    check_strata(models, shares)
    seconds = np.array([s.seconds_per_item or settings.seconds_per_item for s in scenario.strata])
    union = np.array([m.union_rate for m in models])
    population = _mixture(models, shares, "strata")
    rng = np.random.default_rng(seed)
    streams = rng.spawn(4)
    z = normal_quantile(settings.confidence_level)
    designs: dict[str, DesignResult] = {}

    # (a) uniform
    uni = size_metric(population, metric, settings, streams[0])
    designs["uniform"] = DesignResult(
        design="uniform",
        describes=DESCRIBES["uniform"],
        # largest remainders: the parts sum to the searched n at any number of strata
        items_per_stratum=split_items(uni.items, shares),
        prevalence_slice_items=0,
        union_positives=uni.union_positives,
        half_width_median=uni.half_width_median,
        half_width_at_assurance=uni.half_width_at_assurance,
        assurance=uni.assurance,
        estimate_median=float(metric_value(metric, population.cells)),
    )

    # (b) enriched: pooled, unweighted
    given = [s.enriched_share for s in scenario.strata]
    enriched = np.array(given, dtype=float) if given[0] is not None else shares * union
    enriched = enriched / enriched.sum()
    mixture = _mixture(models, enriched, "enriched mixture")

    def pooled(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tables = t.sum(axis=1)
        if metric == "psa":
            ci = psa_interval(tables, settings.confidence_level, settings.psa_method)
        else:
            ci = kappa_interval(tables, settings.confidence_level, settings.kappa_method)
        cells = tables.reshape(-1, 4)
        return np.asarray(ci.half_width), metric_value(metric, cells / cells.sum(axis=1)[:, None])

    start = int(math.ceil(find_start(mixture, metric, settings.width, settings.confidence_level)))
    items_b, hw_b, est_b = size_stratified(
        models,
        enriched,
        pooled,
        width=settings.width,
        assurance=settings.assurance,
        n_reps=settings.n_reps,
        max_items=settings.max_items,
        floor=0,
        start=start,
        rng=streams[1],
    )
    summary = population.summary()
    positive_rate = (summary["positive_rate_a"] + summary["positive_rate_b"]) / 2
    slice_items = int(math.ceil(z * z * positive_rate * (1 - positive_rate) / prevalence_width**2))
    designs["enriched"] = _stratified_result(
        "enriched", items_b, union, hw_b, est_b, settings, slice_items, population.union_rate
    )

    # (c) stratified with population weights, cost-optimal allocation
    sds = residual_sd(metric, np.array([m.cells for m in models]), population.cells)
    proportions = optimal_allocation(shares, sds, seconds, 1.0)
    proportions = proportions / proportions.sum()

    def weighted(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        estimate, lo, hi = weighted_estimate(metric, t, shares, settings.confidence_level)
        return (hi - lo) / 2, estimate

    var_unit = float((shares**2 * sds**2 / np.maximum(proportions, 1e-12)).sum())
    start_c = int(math.ceil(z * z * var_unit / settings.width**2)) or 100
    items_c, hw_c, est_c = size_stratified(
        models,
        proportions,
        weighted,
        width=settings.width,
        assurance=settings.assurance,
        n_reps=settings.n_reps,
        max_items=settings.max_items,
        floor=floor_items,
        start=start_c,
        rng=streams[2],
    )
    designs["weighted"] = _stratified_result("weighted", items_c, union, hw_c, est_c, settings)

    # the weighted design's linearised interval against the stratified bootstrap
    # 100 studies, fewer with many strata: the check's cost is studies x resamples x strata
    n_studies = int(np.clip(CHECK_DRAWS // (CHECK_RESAMPLES * len(models)), 10, 100))
    check_studies = StratifiedStudies(models, n_studies, streams[3]).tables(items_c)
    _, lin_lo, lin_hi = weighted_estimate(metric, check_studies, shares, settings.confidence_level)
    boot_lo, boot_hi = stratified_bootstrap_limits(
        metric,
        check_studies,
        shares,
        settings.confidence_level,
        n_boot=CHECK_RESAMPLES,
        rng=streams[3],
    )
    boot_hw = (boot_hi - boot_lo) / 2
    bootstrap_check = {
        "studies": n_studies,
        "n_boot": CHECK_RESAMPLES,
        "median_half_width_linearised": float(np.nanmedian((lin_hi - lin_lo) / 2)),
        "median_half_width_bootstrap": float(np.nanmedian(boot_hw)),
    }

    mean_seconds = float(np.dot(shares, seconds))
    costs = {}
    for name, res in designs.items():
        labels_seconds = (
            np.dot(res.items_per_stratum, seconds) + res.prevalence_slice_items * mean_seconds
        )
        contested = (
            np.dot(res.items_per_stratum, [m.contested_rate for m in models])
            + res.prevalence_slice_items * population.contested_rate
        )
        hours = (
            labels_seconds * settings.annotators_per_item
            + contested * settings.adjudication_seconds
        ) / 3600.0
        slice_hours = (
            res.prevalence_slice_items
            * (
                mean_seconds * settings.annotators_per_item
                + population.contested_rate * settings.adjudication_seconds
            )
            / 3600.0
        )
        costs[name] = DesignCost(
            hours,
            None if settings.hourly_rate is None else hours * settings.hourly_rate,
            slice_hours,
        )

    per_stratum = []
    for s, m, n_b in zip(scenario.strata, models, items_b, strict=True):
        u = n_b * m.union_rate
        j = m.jaccard
        f = 4 * j * (1 - j) / (1 + j) ** 4
        per_stratum.append(
            {
                "stratum": s.name,
                "psa": m.psa,
                "enriched_items": n_b,
                "expected_union_positives": u,
                "approx_half_width": float(z * math.sqrt(f / u)) if u > 0 else float("nan"),
            }
        )
    strata = [
        {
            "name": s.name,
            "share": s.share,
            "prevalence": s.prevalence,
            "seconds_per_item": float(sec),
            **{k: v for k, v in m.summary().items() if k in ("union_rate", "psa", "kappa")},
            "residual_sd": float(sd),
        }
        for s, m, sec, sd in zip(scenario.strata, models, seconds, sds, strict=True)
    ]
    return Comparison(
        scenario=scenario,
        settings=settings,
        strata=strata,
        population={k: population.summary()[k] for k in ("union_rate", "psa", "kappa", "nsa")},
        designs=designs,
        costs=costs,
        per_stratum_psa=per_stratum,
        weighted_bootstrap_check=bootstrap_check,
        seed=seed,
        notes=[
            f"enriched shares: {_listed(enriched)}"
            + (" (default: each stratum's share of union positives)" if given[0] is None else ""),
            f"prevalence slice sized for a half-width of {prevalence_width:g} on the "
            "positive-label rate",
            "weighted design: cost-optimal allocation n_h ~ W_h S_h / sqrt(c_h), floor "
            f"{floor_items} items per stratum",
        ],
    )


def _listed(values: np.ndarray, most: int = 12) -> str:
    """``0.100, 0.200, ...`` with at most ``most`` values (then the count of strata)."""
    text = ", ".join(f"{x:.3f}" for x in values[:most])
    return text + (f", ... ({len(values)} strata)" if len(values) > most else "")


def find_start(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """Delta-method starting size of a pooled design."""
    value = analytic_items(model, metric, width, confidence_level)
    return value if math.isfinite(value) and value > 0 else 100.0
