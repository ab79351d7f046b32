"""Uniform, enriched and population-weighted designs for a stratified scenario, side by side.

:func:`compare_designs` sizes each design for the same target (half-width at the assurance)
and turns the items into person-hours and cost with each stratum's seconds per item. The
numbers answer different questions; each design says in words which population its
agreement figure describes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.data.scenario import Scenario
from planner.errors import InvalidInput
from planner.operations.budget import Budget
from planner.sizing.design import (
    DesignResult,
    StratifiedSearch,
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
from planner.validation import RngLike, seed_from

if TYPE_CHECKING:
    from planner.sizing.raters_strata import RatersStrata
    from planner.sizing.strata_pilot_uncertainty import StrataPilotUncertainty
    from planner.sizing.team_cost import TeamPricing

DESCRIBES = {
    "uniform": "agreement on traffic: items drawn at random from all strata",
    "enriched": (
        "agreement on the enriched sample (hard cases), not on traffic; per-stratum PSA "
        "describes each stratum; the uniform slice estimates prevalence"
    ),
    "weighted": (
        "agreement on traffic: the stratified sample re-weighted by population shares "
        "(combined ratio estimator; linearised t interval with Satterthwaite df on the logit "
        "scale, log(1 - kappa) for kappa, as agree reports it by stratum)"
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
    budget: Budget | None = None  # the whole design's budget (for the JSON document)


@dataclass(frozen=True)
class Comparison:
    """The three designs for one scenario.

    ``raters`` holds the strata of several annotators
    (:func:`planner.sizing.raters_strata_designs.compare_raters_designs`; their ``psa`` is
    Uebersax's specific positive agreement, ``kappa`` Fleiss'); ``None`` for a pair's strata.
    """

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
    raters: RatersStrata | None = None
    #: a pilot's strata: the weighted design under the pilot's uncertainty
    pilot_uncertainty: StrataPilotUncertainty | None = None

    def hours_ratio(self, design: str, with_slice: bool = True) -> float:
        """Person-hours of ``design`` over those of the uniform design."""
        cost = self.costs[design]
        hours = float(cost.person_hours) - (0.0 if with_slice else cost.prevalence_slice_hours)
        uniform = float(self.costs["uniform"].person_hours)
        return hours / uniform if uniform > 0 else math.nan


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


def stratified_result(
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


@dataclass(frozen=True)
class Strata:
    """The strata of a scenario as the designs use them.

    Attributes
    ----------
    models
        One annotator-pair model per stratum (:func:`stratum_models`).
    shares
        Each stratum's share of traffic, ``(H,)``.
    seconds
        Seconds per item in each stratum (the stratum's own, else the settings').
    union
        Each stratum's union rate.
    population
        The traffic mixture of the strata's models at their shares.
    """

    models: list[PairModel]
    shares: np.ndarray
    seconds: np.ndarray
    union: np.ndarray
    population: PairModel
    #: where the models come from: the scenario's ``[[strata]]`` or a pilot's counts
    source: str = "scenario"

    @classmethod
    def of(
        cls, scenario: Scenario, settings: PlanSettings, models: list[PairModel] | None = None
    ) -> Strata:
        """The strata of ``scenario``, checked (:func:`~planner.sizing.design.check_strata`);
        ``models``: each stratum's model from a pilot instead of the scenario's."""
        source = "scenario" if models is None else "pilot"
        models = stratum_models(scenario) if models is None else list(models)
        shares = np.array([s.share for s in scenario.strata])
        check_strata(models, shares)
        if len(models) != len(scenario.strata):
            raise InvalidInput(
                f"models gives {len(models)} strata, {scenario.path} has {len(scenario.strata)}",
                parameter="models",
            )
        seconds = np.array(
            [s.seconds_per_item or settings.seconds_per_item for s in scenario.strata]
        )
        union = np.array([m.union_rate for m in models])
        mixture = _mixture(models, shares, "strata")
        return cls(models, shares, seconds, union, mixture, source)


def uniform_design(
    strata: Strata, metric: str, settings: PlanSettings, *, rng: np.random.Generator
) -> DesignResult:
    """The uniform design: items drawn at random from all strata, sized on the population."""
    uni = size_metric(strata.population, metric, settings, rng)
    return DesignResult(
        design="uniform",
        describes=DESCRIBES["uniform"],
        # largest remainders: the parts sum to the searched n at any number of strata
        items_per_stratum=split_items(uni.items, strata.shares),
        prevalence_slice_items=0,
        union_positives=uni.union_positives,
        half_width_median=uni.half_width_median,
        half_width_at_assurance=uni.half_width_at_assurance,
        assurance=uni.assurance,
        estimate_median=float(metric_value(metric, strata.population.cells)),
        coverage=_finite_or_none(uni.coverage),
        coverage_mc_se=_finite_or_none(uni.coverage_mc_se),
    )


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def enriched_shares(scenario: Scenario, strata: Strata) -> np.ndarray:
    """The enriched design's shares: the scenario's ``enriched_share``, else each stratum's
    share of union positives; normalised to sum to 1."""
    given = [s.enriched_share for s in scenario.strata]
    enriched = (
        np.array(given, dtype=float) if given[0] is not None else strata.shares * strata.union
    )
    return enriched / enriched.sum()


def enriched_design(
    strata: Strata,
    enriched: np.ndarray,
    metric: str,
    settings: PlanSettings,
    *,
    prevalence_width: float,
    rng: np.random.Generator,
) -> DesignResult:
    """The enriched design: strata pooled unweighted at ``enriched`` shares, plus a uniform
    slice that buys the prevalence estimate at ``prevalence_width``."""
    mixture = _mixture(strata.models, enriched, "enriched mixture")

    def pooled(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tables = t.sum(axis=1)
        if metric == "psa":
            ci = psa_interval(tables, settings.confidence_level, settings.psa_method)
        else:
            ci = kappa_interval(tables, settings.confidence_level, settings.kappa_method)
        cells = tables.reshape(-1, 4)
        return np.asarray(ci.half_width), metric_value(metric, cells / cells.sum(axis=1)[:, None])

    start = int(math.ceil(find_start(mixture, metric, settings.width, settings.confidence_level)))
    search = StratifiedSearch.of(settings, floor=0, start=start)
    items, half_widths, estimates = size_stratified(
        strata.models, enriched, pooled, search, rng=rng
    )
    summary = strata.population.summary()
    positive_rate = (summary["positive_rate_a"] + summary["positive_rate_b"]) / 2
    z = normal_quantile(settings.confidence_level)
    slice_items = int(math.ceil(z * z * positive_rate * (1 - positive_rate) / prevalence_width**2))
    return stratified_result(
        "enriched",
        items,
        strata.union,
        half_widths,
        estimates,
        settings,
        slice_items,
        strata.population.union_rate,
    )


def weighted_design(
    strata: Strata,
    sds: np.ndarray,
    metric: str,
    settings: PlanSettings,
    *,
    floor_items: int,
    rng: np.random.Generator,
) -> DesignResult:
    """The stratified design with population weights and the cost-optimal allocation
    ``n_h ~ W_h S_h / sqrt(c_h)``, at least ``floor_items`` per stratum."""
    proportions, weighted, search = weighted_search(strata, sds, metric, settings, floor_items)
    items, half_widths, estimates = size_stratified(
        strata.models, proportions, weighted, search, rng=rng
    )
    sized = stratified_result("weighted", items, strata.union, half_widths, estimates, settings)
    # spawned after the search's own streams, so the search is what it was without the check
    coverage = weighted_coverage(strata, items, metric, settings, rng=rng.spawn(1)[0])
    return replace(sized, coverage=coverage[0], coverage_mc_se=coverage[1])


def weighted_search(
    strata: Strata, sds: np.ndarray, metric: str, settings: PlanSettings, floor_items: int
) -> tuple[np.ndarray, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], StratifiedSearch]:
    """The weighted design's allocation (cost-optimal shares), its interval (tables to
    half-widths and estimates) and its search (started at the delta-method total)."""
    shares = strata.shares
    proportions = optimal_allocation(shares, sds, strata.seconds, 1.0)
    proportions = proportions / proportions.sum()

    def weighted(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        estimate, lo, hi = weighted_estimate(metric, t, shares, settings.confidence_level)
        return (hi - lo) / 2, estimate

    z = normal_quantile(settings.confidence_level)
    var_unit = float((shares**2 * sds**2 / np.maximum(proportions, 1e-12)).sum())
    start = int(math.ceil(z * z * var_unit / settings.width**2)) or 100
    return proportions, weighted, StratifiedSearch.of(settings, floor=floor_items, start=start)


def weighted_coverage(
    strata: Strata,
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
    tables = StratifiedStudies(strata.models, settings.replicates, rng).tables(items)
    _, low, high = weighted_estimate(metric, tables, strata.shares, settings.confidence_level)
    truth = float(metric_value(metric, strata.population.cells))
    covered = float(np.mean((low <= truth) & (truth <= high)))
    return covered, math.sqrt(covered * (1 - covered) / settings.replicates)


def weighted_bootstrap_check(
    strata: Strata,
    items: list[int],
    metric: str,
    confidence_level: float,
    *,
    rng: np.random.Generator,
) -> dict[str, float]:
    """The weighted design's linearised interval against the stratified bootstrap.

    100 studies, fewer with many strata: the check's cost is studies x resamples x strata.
    """
    shares = strata.shares
    n_studies = int(np.clip(CHECK_DRAWS // (CHECK_RESAMPLES * len(strata.models)), 10, 100))
    check_studies = StratifiedStudies(strata.models, n_studies, rng).tables(items)
    _, lin_lo, lin_hi = weighted_estimate(metric, check_studies, shares, confidence_level)
    boot_lo, boot_hi = stratified_bootstrap_limits(
        metric, check_studies, shares, confidence_level, n_boot=CHECK_RESAMPLES, rng=rng
    )
    return {
        "studies": n_studies,
        "n_boot": CHECK_RESAMPLES,
        "median_half_width_linearised": float(np.nanmedian((lin_hi - lin_lo) / 2)),
        "median_half_width_bootstrap": float(np.nanmedian((boot_hi - boot_lo) / 2)),
    }


def design_cost(design: DesignResult, strata: Strata, settings: PlanSettings) -> DesignCost:
    """Person-hours and cost of a sized design of a pair (:func:`strata_design_cost`): each
    stratum's seconds and contested share ``p_b + p_c``; the enriched design's prevalence
    slice at the population's mean seconds per item and contested share."""
    mean_seconds = float(np.dot(strata.shares, strata.seconds))
    contested = [*(m.contested_rate for m in strata.models), strata.population.contested_rate]
    return strata_design_cost(design, [*strata.seconds, mean_seconds], contested, settings)


def strata_design_cost(
    design: DesignResult, seconds: list[float], contested: list[float], settings: PlanSettings
) -> DesignCost:
    """Person-hours and cost of a sized design over strata, a pair's or several annotators'.

    ``seconds`` and ``contested`` hold each stratum's seconds per item and contested share,
    then the prevalence slice's; every item gets ``settings.annotators_per_item`` labels.
    The items are billed at ``settings``' costs, the named team's person by person
    (:func:`team_design_cost`) or the single rate
    (:func:`planner.sizing.team_cost.priced_strata_budget`), and the slice's hours are also
    reported on their own.
    """
    from planner.sizing.team_cost import priced_strata_budget

    team = settings.team
    if team is not None:  # a named team: billed person by person
        return team_design_cost(design, seconds, contested, team, settings.seconds_per_item)
    slice_items = design.prevalence_slice_items
    total = priced_strata_budget(
        settings, [*design.items_per_stratum, slice_items], seconds, contested
    )
    prevalence_slice = priced_strata_budget(settings, [slice_items], seconds[-1:], contested[-1:])
    return DesignCost(total.person_hours, total.cost, prevalence_slice.person_hours, total)


def team_design_cost(
    design: DesignResult,
    seconds: list[float],
    contested: list[float],
    team: TeamPricing,
    budget_seconds: float,
) -> DesignCost:
    """A design's hours and cost by a named team
    (:func:`planner.sizing.team_cost.stratified_team_budget`). ``seconds`` and
    ``contested`` hold each stratum's seconds per item and contested share, then the
    prevalence slice's; the slice's hours are its share of the labelling seconds,
    ``n_0 s_0 / sum_h n_h s_h``, plus its adjudication."""
    from planner.sizing.team_cost import stratified_team_budget

    slice_items = design.prevalence_slice_items
    items = [*design.items_per_stratum, slice_items]
    total = stratified_team_budget(team, items, seconds, contested, budget_seconds)
    work = float(np.dot(items, seconds))
    part = slice_items * seconds[-1] / work if work > 0 else 0.0
    judged = slice_items * contested[-1] / total.contested_items if total.contested_items else 0.0
    slice_hours = part * total.labelling_hours + judged * total.adjudication_hours
    return DesignCost(total.person_hours, total.cost, slice_hours, total)


def _per_stratum_psa(
    scenario: Scenario, strata: Strata, enriched_items: list[int], z: float
) -> list[dict[str, Any]]:
    """Each stratum's PSA and the approximate half-width its enriched items give."""
    rows = []
    for s, m, n_b in zip(scenario.strata, strata.models, enriched_items, strict=True):
        u = n_b * m.union_rate
        j = m.jaccard
        f = 4 * j * (1 - j) / (1 + j) ** 4
        rows.append(
            {
                "stratum": s.name,
                "psa": m.psa,
                "enriched_items": n_b,
                "expected_union_positives": u,
                "approx_half_width": float(z * math.sqrt(f / u)) if u > 0 else float("nan"),
            }
        )
    return rows


def label_rate(model: PairModel) -> float:
    """The positive-label rate of a pair, ``(2 p_a + p_b + p_c) / 2``: a pilot stratum's
    prevalence as its labels show it."""
    a, b, c, _ = model.cells
    return float((2 * a + b + c) / 2)


def _pilot_keys(strata: Strata, model: PairModel) -> dict[str, Any]:
    """A pilot stratum's row keys: ``model_source`` ``"pilot"`` and its ``pilot_counts``
    (a scenario's strata have neither)."""
    if strata.source != "pilot":
        return {}
    return {"model_source": "pilot", "pilot_counts": model.assumptions["pilot_counts"]}


def _strata_rows(scenario: Scenario, strata: Strata, sds: np.ndarray) -> list[dict[str, Any]]:
    """The strata table: share, prevalence (a pilot's strata: their positive-label rate),
    seconds per item, indices, residual SD; a pilot's strata: :func:`_pilot_keys`."""
    return [
        {
            "name": s.name,
            "share": s.share,
            "prevalence": s.prevalence if strata.source == "scenario" else label_rate(m),
            "seconds_per_item": float(sec),
            **{k: v for k, v in m.summary().items() if k in ("union_rate", "psa", "kappa")},
            "residual_sd": float(sd),
            **_pilot_keys(strata, m),
        }
        for s, m, sec, sd in zip(scenario.strata, strata.models, strata.seconds, sds, strict=True)
    ]


def compare_designs(
    scenario: Scenario,
    settings: PlanSettings,
    *,
    rng: RngLike = None,
    floor_items: int = 20,
    prevalence_width: float = 0.02,
    progress: Callable[[int, int], None] | None = None,
    models: list[PairModel] | None = None,
) -> Comparison:
    """Size the uniform, enriched and weighted designs of a stratified scenario.

    Parameters
    ----------
    scenario
        A scenario with at least two strata.
    settings
        Target (metric psa or kappa, width, confidence, assurance), search effort and
        budget; ``seconds_per_item`` is the default for strata without their own.
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed
        (:func:`planner.validation.seed_from`) is recorded as ``Comparison.seed``.
    floor_items
        Least items per stratum in the stratified designs.
    prevalence_width
        Half-width of the prevalence estimate the enriched design's uniform slice buys.
    progress
        Called as ``progress(done, 4)`` after each of the four steps (three designs, the
        bootstrap check).
    models
        Each stratum's pair model, in the scenario's order, instead of the scenario's (a
        pilot labelled by stratum: :func:`planner.sizing.strata_file.pilot_strata`).
    """
    metric, seed = _design_metric(settings), seed_from(rng)
    strata = Strata.of(scenario, settings, models)
    streams = np.random.default_rng(seed).spawn(4)
    step = progress if progress is not None else (lambda done, total: None)
    designs: dict[str, DesignResult] = {}
    designs["uniform"] = uniform_design(strata, metric, settings, rng=streams[0])
    step(1, 4)
    enriched = enriched_shares(scenario, strata)
    designs["enriched"] = enriched_design(
        strata, enriched, metric, settings, prevalence_width=prevalence_width, rng=streams[1]
    )
    step(2, 4)
    sds = residual_sd(metric, np.array([m.cells for m in strata.models]), strata.population.cells)
    designs["weighted"] = weighted_design(
        strata, sds, metric, settings, floor_items=floor_items, rng=streams[2]
    )
    step(3, 4)
    check = weighted_bootstrap_check(
        strata,
        designs["weighted"].items_per_stratum,
        metric,
        settings.confidence_level,
        rng=streams[3],
    )
    step(4, 4)
    under_pilot = _under_pilot(strata, sds, metric, settings, floor_items, designs, seed)
    z = normal_quantile(settings.confidence_level)
    summary = strata.population.summary()
    return Comparison(
        scenario=scenario,
        settings=settings,
        strata=_strata_rows(scenario, strata, sds),
        population={k: summary[k] for k in ("union_rate", "psa", "kappa", "nsa")},
        designs=designs,
        costs={name: design_cost(d, strata, settings) for name, d in designs.items()},
        per_stratum_psa=_per_stratum_psa(
            scenario, strata, designs["enriched"].items_per_stratum, z
        ),
        weighted_bootstrap_check=check,
        seed=seed,
        notes=[
            *design_notes(scenario, enriched, prevalence_width, floor_items),
            coverage_note(designs["weighted"], settings),
        ],
        pilot_uncertainty=under_pilot,
    )


def _under_pilot(
    strata: Strata,
    sds: np.ndarray,
    metric: str,
    settings: PlanSettings,
    floor_items: int,
    designs: dict[str, DesignResult],
    seed: int,
) -> StrataPilotUncertainty | None:
    """The weighted design under a pilot's uncertainty, for strata from a pilot's counts
    (:func:`planner.sizing.strata_pilot_uncertainty.weighted_under_pilot`); else None."""
    if strata.source != "pilot":
        return None
    from planner.sizing.strata_pilot_uncertainty import TRUTH_STREAM, weighted_under_pilot

    counts = np.array([m.assumptions["pilot_counts"] for m in strata.models])
    proportions, weighted, search = weighted_search(strata, sds, metric, settings, floor_items)
    rng = np.random.default_rng([seed, TRUTH_STREAM])
    plug_in = list(designs["weighted"].items_per_stratum)
    return weighted_under_pilot(counts, proportions, weighted, search, plug_in, rng)


def _design_metric(settings: PlanSettings) -> str:
    """The metric a comparison sizes: psa or kappa (``both`` is refused)."""
    if settings.metric == "both":
        raise InvalidInput(
            "metric both is not supported for design comparisons; pick psa or kappa",
            parameter="metric",
        )
    return str(settings.metric)


def coverage_note(design: DesignResult, settings: PlanSettings) -> str:
    """The weighted design's simulated coverage at its items, in words."""
    return (
        f"weighted design: sized with the analysis's interval (t, Satterthwaite df, "
        f"{'logit' if settings.metric == 'psa' else 'log(1 - kappa)'} scale); it covers "
        f"traffic's {settings.metric} in {design.coverage:.3f} ± {design.coverage_mc_se:.3f} "
        f"(MC SE) of {settings.replicates:,} simulated studies at {design.items:,} items "
        f"(nominal {settings.confidence_level:g})"
    )


def design_notes(
    scenario: Scenario, enriched: np.ndarray, prevalence_width: float, floor_items: int
) -> list[str]:
    """What the comparison assumed: enriched shares, the prevalence slice, the allocation."""
    default = scenario.strata[0].enriched_share is None
    return [
        f"enriched shares: {_listed(enriched)}"
        + (" (default: each stratum's share of union positives)" if default else ""),
        f"prevalence slice sized for a half-width of {prevalence_width:g} on the "
        "positive-label rate",
        "weighted design: cost-optimal allocation n_h ~ W_h S_h / sqrt(c_h), floor "
        f"{floor_items} items per stratum",
    ]


def _listed(values: np.ndarray, most: int = 12) -> str:
    """``0.100, 0.200, ...`` with at most ``most`` values (then the count of strata)."""
    text = ", ".join(f"{x:.3f}" for x in values[:most])
    return text + (f", ... ({len(values)} strata)" if len(values) > most else "")


def find_start(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """Delta-method starting size of a pooled design."""
    value = analytic_items(model, metric, width, confidence_level)
    return value if math.isfinite(value) and value > 0 else 100.0
