"""Uniform, enriched and population-weighted designs of a stratified scenario, side by side.

:func:`compare_strata_designs` sizes each design of any study over strata (a pair's,
:func:`compare_designs`; several annotators', :func:`compare_raters_designs`) for the same
target (half-width at the assurance) and turns the items into person-hours and cost with
each stratum's seconds per item. The numbers answer different questions; each design says
in words which population its agreement figure describes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.data.scenario import Scenario
from planner.operations.budget import Budget
from planner.sizing.design import DesignResult
from planner.sizing.pair_strata import PairStrata, design_metric
from planner.sizing.pattern_strata import FloatArray, PatternStrata
from planner.sizing.plan import PlanSettings
from planner.sizing.strata_designs import sized_designs, weighted_under_pilot_of
from planner.validation import RngLike, seed_from

if TYPE_CHECKING:
    from planner.sizing.model import PairModel
    from planner.sizing.raters_strata import RatersStrata
    from planner.sizing.strata_pilot_uncertainty import StrataPilotUncertainty
    from planner.sizing.team_cost import TeamPricing


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

    ``design_strata`` holds the strata the designs were sized on (a pair's
    :class:`~planner.sizing.pair_strata.PairStrata`, from the scenario or a pilot, or several
    annotators' :class:`~planner.sizing.raters_strata.RatersStrata`): what a reader of the
    comparison simulates its figures from.
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
    design_strata: PatternStrata | None = None
    #: a pilot's strata: the weighted design under the pilot's uncertainty
    pilot_uncertainty: StrataPilotUncertainty | None = None

    @property
    def raters(self) -> RatersStrata | None:
        """Several annotators' strata (their ``psa`` is Uebersax's specific positive
        agreement, ``kappa`` Fleiss'); ``None`` for a pair's."""
        from planner.sizing.raters_strata import RatersStrata

        strata = self.design_strata
        return strata if isinstance(strata, RatersStrata) else None

    def hours_ratio(self, design: str, with_slice: bool = True) -> float:
        """Person-hours of ``design`` over those of the uniform design."""
        cost = self.costs[design]
        hours = float(cost.person_hours) - (0.0 if with_slice else cost.prevalence_slice_hours)
        uniform = float(self.costs["uniform"].person_hours)
        return hours / uniform if uniform > 0 else math.nan


def design_cost(design: DesignResult, strata: PatternStrata, settings: PlanSettings) -> DesignCost:
    """Person-hours and cost of a sized design (:func:`strata_design_cost`): each stratum's
    seconds and the share of its items whose labels do not all agree (a pair's
    ``p_b + p_c``), the labels per item the strata bill; the enriched design's prevalence
    slice at traffic's mean seconds per item and contested share."""
    mean_seconds = float(strata.shares @ strata.seconds)
    by_stratum = np.atleast_1d(strata.contested(strata.probabilities))
    contested = [*(float(c) for c in by_stratum), float(strata.contested(strata.population))]
    seconds = [*(float(c) for c in strata.seconds), mean_seconds]
    return strata_design_cost(design, seconds, contested, strata.billed(settings))


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


def enriched_shares(scenario: Scenario, strata: PatternStrata) -> np.ndarray:
    """The enriched design's shares: the scenario's ``enriched_share``, else each stratum's
    share of union positives; normalised to sum to 1."""
    given = [s.enriched_share for s in scenario.strata]
    enriched = (
        np.array(given, dtype=float) if given[0] is not None else strata.shares * strata.union
    )
    return enriched / enriched.sum()


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


@dataclass(frozen=True)
class StrataOptions:
    """What the designs take besides the target: the scenario (for its name and strata),
    each stratum's prevalence, the enriched shares, the floor per stratum and the slice."""

    scenario: Any
    prevalences: list[float]
    enriched: FloatArray
    floor_items: int = 20
    prevalence_width: float = 0.02
    #: a pilot read by stratum: each stratum's items per pattern (its model)
    pilot_counts: tuple[tuple[int, ...], ...] | None = None


def compare_strata_designs(
    strata: PatternStrata,
    settings: PlanSettings,
    options: StrataOptions,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Size and bill the uniform, enriched and weighted designs of any study over strata.

    Parameters
    ----------
    strata
        The strata and each one's label-pattern probabilities: a pair's
        (:class:`~planner.sizing.pair_strata.PairStrata`) or several annotators'
        (:func:`~planner.sizing.raters_strata.raters_strata`).
    settings
        Target (a metric the strata size, width, confidence, assurance), search effort and
        costs (``seconds_per_item`` for strata without their own).
    options
        The scenario, the enriched shares, the floor per stratum, the prevalence slice and,
        for a pilot's strata, its counts (the weighted design is then also sized under the
        pilot's uncertainty).
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed
        (:func:`planner.validation.seed_from`) is recorded as ``Comparison.seed``.
    progress
        Called as ``progress(done, 4)`` after each of the three designs and the check.
    """
    strata.check_metric(settings)
    seed = seed_from(rng)
    step = progress if progress is not None else (lambda done, total: None)
    designs, check = sized_designs(strata, settings, options, seed, step)
    weighted = designs["weighted"]
    return Comparison(
        scenario=options.scenario,
        settings=settings,
        strata=strata.strata_rows(strata.residual_sds(settings.metric), options),
        population=strata.population_summary(),
        designs=designs,
        costs={name: design_cost(d, strata, settings) for name, d in designs.items()},
        per_stratum_psa=strata.per_stratum_rows(designs["enriched"].items_per_stratum, settings),
        weighted_bootstrap_check=check,
        seed=seed,
        notes=[
            *design_notes(
                options.scenario, options.enriched, options.prevalence_width, options.floor_items
            ),
            coverage_note(weighted, settings),
            *strata.notes(),
        ],
        design_strata=strata,
        pilot_uncertainty=weighted_under_pilot_of(
            strata, settings, options.floor_items, weighted, options.pilot_counts, seed
        ),
    )


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
    """Size the uniform, enriched and weighted designs of a pair's stratified scenario
    (:func:`compare_strata_designs` of its :class:`~planner.sizing.pair_strata.PairStrata`).

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
    design_metric(settings)  # before the strata: a metric no design sizes is refused first
    strata = PairStrata.of(scenario, settings, models)
    from_pilot = strata.source == "pilot"
    options = StrataOptions(
        scenario=scenario,
        prevalences=[
            strata.positive_label_rate(p) if from_pilot else s.prevalence
            for s, p in zip(scenario.strata, strata.probabilities, strict=True)
        ],
        enriched=enriched_shares(scenario, strata),
        floor_items=floor_items,
        prevalence_width=prevalence_width,
        pilot_counts=strata.pilot_counts,
    )
    return compare_strata_designs(strata, settings, options, rng=rng, progress=progress)


def compare_raters_designs(
    strata: RatersStrata,
    settings: PlanSettings,
    options: StrataOptions,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Size the uniform, enriched and weighted designs of several annotators over strata
    (:func:`compare_strata_designs`; docs/strata-designs.md, "Several annotators over
    strata"; the method: docs/methods/stratified-sampling.md section 3.7).

    Parameters
    ----------
    strata
        The strata and their annotator models (:func:`~planner.sizing.raters_strata.raters_strata`).
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
    return compare_strata_designs(strata, settings, options, rng=rng, progress=progress)
