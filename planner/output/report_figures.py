"""The data behind a report's figures, computed once, and the figures drawn from it.

A report's result (a :class:`~planner.sizing.plan.Plan` or a design
:class:`~planner.sizing.compare.Comparison`) and its schedule carry most of what the figures
show: hours, costs, the worst case, the stop rule, the burn-down. Two figures need numbers no
result carries: the half-width of studies over a grid of sizes, and the spread of the estimate
in studies of the planned size. Each is computed here once, by a clearly named function, from
a random stream of the report's own seed, never by re-running the plan's search. Every figure's
data is a frozen dataclass, written beside the report as ``figures.json`` (so a reader can check
a figure against its numbers) and drawn by :mod:`planner.output.plots`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.data.scenario import Scenario
from planner.operations.workload import ScheduleResult
from planner.sizing.compare import Comparison
from planner.sizing.design import StratifiedStudies, metric_value, weighted_estimate
from planner.sizing.exact import half_width_quantiles
from planner.sizing.model import PairModel
from planner.sizing.pair_strata import PairStrata
from planner.sizing.plan import Plan
from planner.sizing.search_criteria import interval_function
from planner.sizing.studies import NestedStudies, simulate_tables
from planner.validation import seed_from

if TYPE_CHECKING:
    from planner.output.report_alt_test import AltTestReport

PlanResult = Plan | Comparison
"""What a report describes: one plan, or the comparison of designs of a stratified scenario."""

CURVE_REPLICATES = 2000
"""Simulated studies per size on the half-width curve."""
CURVE_SIZES = 24
"""Sizes on the half-width curve, from 0.3 to 2 times the planned items."""
ESTIMATE_REPLICATES = 4000
"""Simulated studies of the planned size behind the histogram of estimates."""
ESTIMATE_BINS = 40
#: the key of the hybrid assurance curve of a plan from a pilot (PSA under its uncertainty)
HYBRID_CURVE = "psa_under_pilot_uncertainty"
METRIC_NAMES = {
    "psa": "PSA",
    "kappa": "Cohen's kappa",
    HYBRID_CURVE: "PSA under the pilot's uncertainty",
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
    "conger": "Conger's kappa",
}
AGREE_COEFFICIENTS = {"psa": "psa", "kappa": "cohen_kappa"}
"""The name ``planner agree --decide-on`` gives each planned metric."""
FIGURE_STREAM = 2**20
"""Spawn key of the figures' stream under the report's seed: a child no plan uses (plans spawn
their first few children), so the figures' studies are independent of the plan's search."""


@dataclass(frozen=True)
class HalfWidthCurve:
    """Half-width quantiles of simulated studies against the items labelled."""

    items: tuple[int, ...]
    p10: tuple[float, ...]
    median: tuple[float, ...]
    p90: tuple[float, ...]
    at_assurance: tuple[float, ...]
    assurance: float
    width: float
    planned: int
    metric: str
    union_rate: float
    replicates: int
    design: str


@dataclass(frozen=True)
class EstimateSpread:
    """Histogram (density) of a study's estimate at the planned size, truth and typical interval."""

    bin_edges: tuple[float, ...]
    density: tuple[float, ...]
    truth: float
    interval_lower: float
    interval_upper: float
    confidence_level: float
    metric: str
    replicates: int
    design: str


@dataclass(frozen=True)
class HoursBars:
    """Person-hours (and cost, hourly rate x person-hours) of each design or sampling rule."""

    labels: tuple[str, ...]
    items: tuple[float, ...]
    hours: tuple[float, ...]
    costs: tuple[float | None, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class BurndownBand:
    """Share of items not finished on each calendar day: per-day median and 10-90 % band."""

    days: tuple[float, ...]
    median: tuple[float, ...]
    p10: tuple[float, ...]
    p90: tuple[float, ...]
    finish_median: float
    finish_p90: float
    runs: int


@dataclass(frozen=True)
class DecisionThresholds:
    """The decision rule fixed in advance, and where its thresholds come from."""

    not_demonstrated_below: float
    demonstrated_at: float
    source: str


def agree_default_thresholds() -> dict[str, float]:
    """The thresholds ``planner agree`` uses when none are given (its one set of defaults)."""
    from planner.measuring.measure_settings import DEFAULTS

    return {k: getattr(DEFAULTS, k) for k in ("not_demonstrated_below", "demonstrated_at")}


def decision_thresholds(scenario: Scenario) -> DecisionThresholds:
    """The scenario's ``[thresholds]``, a key it leaves out taken from ``planner agree``'s."""
    values = {**agree_default_thresholds(), **scenario.thresholds}
    source = "the scenario's [thresholds]" if scenario.thresholds else "planner agree's defaults"
    return DecisionThresholds(values["not_demonstrated_below"], values["demonstrated_at"], source)


@dataclass(frozen=True)
class AssuranceCurve:
    """Assurance ``P(half-width <= width)`` against items for a pair plan (``plan --curve``).

    ``curve`` is ``{metric: [{"items": n, "assurance": A}, ...]}`` as
    :func:`planner.sizing.assurance_curve.assurance_curve` returns it, one entry per sized metric.
    """

    curve: dict[str, list[dict[str, float]]]
    width: float
    assurance: float
    planned: int
    seed: int


@dataclass(frozen=True)
class ReportFigures:
    """The data of every figure of one report (and the thresholds the estimates are read by).

    ``assurance`` (pair plans) and ``alt_test`` (scenarios with ``[alt_test]``) are None
    where the report has no such figure.
    """

    half_width: HalfWidthCurve
    hours: HoursBars
    burndown: BurndownBand
    estimates: EstimateSpread
    thresholds: DecisionThresholds
    seed: int
    assurance: AssuranceCurve | None = None
    alt_test: AltTestReport | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (the ``figures.json`` beside the report)."""
        from planner.output.jsonout import json_ready

        out: dict[str, Any] = {"schema_version": "1", "seed": self.seed}
        out.update({name: asdict(getattr(self, name)) for name in FIGURE_FILES})
        out["thresholds"] = asdict(self.thresholds)
        if self.assurance is not None:
            out["assurance"] = asdict(self.assurance)
        if self.alt_test is not None:
            out["alt_test"] = self.alt_test.to_dict()
        return json_ready(out)


FIGURE_FILES = {
    "half_width": "half_width.png",
    "hours": "hours.png",
    "burndown": "burndown.png",
    "estimates": "estimates.png",
}


ASSURANCE_FILE = "assurance.png"
"""The assurance curve's figure (pair plans only)."""


def metric_name(metric: str) -> str:
    """``"PSA"``, ``"Cohen's kappa"``: how text and figures name a planned metric."""
    return METRIC_NAMES.get(metric, metric)


def deciding_metric(result: PlanResult) -> tuple[str, str]:
    """The metric the report is about and its interval method."""
    settings = result.settings
    match result:
        case Plan():
            metric = result.deciding_metric
        case Comparison() if result.raters is not None:  # the pooled interval of patterns
            from planner.sizing.study_intervals import INTERVAL_METHODS

            return settings.metric, INTERVAL_METHODS[settings.metric]
        case Comparison():
            metric = "psa" if settings.metric == "both" else settings.metric
    return metric, settings.psa_method if metric == "psa" else settings.kappa_method


def traffic_model(comparison: Comparison) -> PairModel:
    """The pair model of traffic: the cell probabilities of the strata the designs were sized
    on (the scenario's, or a pilot's by stratum) weighted by their shares."""
    return _pair_strata(comparison).population_model


def _pair_strata(comparison: Comparison) -> PairStrata:
    """A pair's comparison's strata (its ``design_strata``)."""
    strata = comparison.design_strata
    if not isinstance(strata, PairStrata):
        raise ValueError("a comparison of a pair's strata is needed")
    return strata


def half_width_curve(
    model: PairModel, result: PlanResult, planned: int, design: str, rng: np.random.Generator
) -> HalfWidthCurve:
    """Half-width quantiles over simulated studies on a grid of sizes around ``planned``.

    Undefined and zero-width intervals count as infinitely wide, as in the search.
    """
    settings = result.settings
    metric, method = deciding_metric(result)
    interval_rng, study_rng = rng.spawn(2)
    interval = interval_function(metric, method, settings.confidence_level, rng=interval_rng)
    studies = NestedStudies(model.cells, CURVE_REPLICATES, rng=study_rng)
    return curve_of(
        lambda n: interval(studies.tables(n)).half_width,
        planned, settings, metric, model.union_rate, design,
    )  # fmt: skip


def curve_of(
    half_widths: Callable[[int], np.ndarray],
    planned: int,
    settings: Any,
    metric: str,
    union_rate: float,
    design: str,
) -> HalfWidthCurve:
    """The quantiles of ``half_widths(n)`` (one per simulated study of ``n`` items) on
    :data:`CURVE_SIZES` sizes from 0.3 to 2 times ``planned``; undefined and zero-width
    intervals count as infinitely wide."""
    low, high = max(10, int(0.3 * planned)), int(2 * planned)
    grid = np.unique(np.linspace(low, high, CURVE_SIZES).astype(int))
    quantiles = [0.1, 0.5, 0.9, settings.assurance]
    rows = np.array([half_width_quantiles(half_widths(int(n)), quantiles) for n in grid])
    return HalfWidthCurve(
        items=tuple(int(n) for n in grid),
        p10=tuple(rows[:, 0].tolist()),
        median=tuple(rows[:, 1].tolist()),
        p90=tuple(rows[:, 2].tolist()),
        at_assurance=tuple(rows[:, 3].tolist()),
        assurance=settings.assurance,
        width=settings.width,
        planned=int(planned),
        metric=metric,
        union_rate=union_rate,
        replicates=CURVE_REPLICATES,
        design=design,
    )


def _spread(
    values: np.ndarray, truth: float, interval: tuple[float, float], result: PlanResult, design: str
) -> EstimateSpread:
    confidence, metric = result.settings.confidence_level, deciding_metric(result)[0]
    return spread_of(values, truth, interval, confidence, metric, design)


def spread_of(
    values: np.ndarray,
    truth: float,
    interval: tuple[float, float],
    confidence_level: float,
    metric: str,
    design: str = "plan",
) -> EstimateSpread:
    """The histogram of ``values`` (finite ones; :data:`ESTIMATE_REPLICATES` studies), with
    the truth and the typical interval."""
    finite = values[np.isfinite(values)]
    density, edges = np.histogram(finite, bins=ESTIMATE_BINS, density=True)
    return EstimateSpread(
        bin_edges=tuple(edges.tolist()),
        density=tuple(density.tolist()),
        truth=truth,
        interval_lower=float(interval[0]),
        interval_upper=float(interval[1]),
        confidence_level=confidence_level,
        metric=metric,
        replicates=ESTIMATE_REPLICATES,
        design=design,
    )


def plan_estimate_spread(plan: Plan, rng: np.random.Generator) -> EstimateSpread:
    """Estimates of studies of the planned size; the interval is the plan's typical one."""
    metric = plan.deciding_metric
    res = plan.results[metric]
    tables = simulate_tables(plan.model.cells, res.items, ESTIMATE_REPLICATES, rng=rng)
    values = metric_value(metric, tables.reshape(-1, 4) / res.items)
    truth = float(metric_value(metric, np.array(plan.model.cells)))
    return _spread(values, truth, res.interval_median, plan, "plan")


def weighted_estimate_spread(comparison: Comparison, rng: np.random.Generator) -> EstimateSpread:
    """Population-weighted estimates of studies of the weighted design's size.

    The interval is the median of the linearised interval's limits over these studies (the
    comparison carries the design's median estimate, not its interval).
    """
    metric = deciding_metric(comparison)[0]
    shares = np.array([s["share"] for s in comparison.strata])
    studies = StratifiedStudies(list(_pair_strata(comparison).models), ESTIMATE_REPLICATES, rng)
    tables = studies.tables(comparison.designs["weighted"].items_per_stratum)
    confidence = comparison.settings.confidence_level
    estimate, low, high = weighted_estimate(metric, tables, shares, confidence)
    interval = (float(np.nanmedian(low)), float(np.nanmedian(high)))
    truth = float(comparison.population[metric])
    return _spread(estimate, truth, interval, comparison, "weighted")


def plan_hours(plan: Plan) -> HoursBars:
    """The plan, the stop rule (expected and 90th percentile) and the worst case, as carried.

    The worst case is the fewest items whose union positives reach the worst-case count with
    probability at least the plan's assurance (``plan.worst_case``), so it is comparable with
    the plan's items, which reach the width with that assurance.
    """
    budget = plan.budget
    rate = plan.settings.hourly_rate
    bars: list[tuple[str, float, float, float | None, str]] = [
        ("fixed n\n(the plan)", plan.items, budget.person_hours, budget.cost, "plan")
    ]
    rule = plan.stop_rule
    if rule:
        for label, items, hours, priced in (
            ("stop rule,\nexpected", rule.expected_items, rule.person_hours_expected,
             rule.cost_expected),
            ("stop rule,\n90th percentile", rule.items_p90, rule.person_hours_p90,
             rule.cost_p90),
        ):  # fmt: skip
            cost = priced if priced is not None else None if rate is None else hours * rate
            bars.append((label, items, hours, cost, "stop"))
    worst = plan.worst_case
    if worst is not None:
        label = f"worst case: any agreement,\nassurance {worst.items_probability:g}"
        bars.append(
            (label, worst.items_at_model_union_rate, worst.person_hours, worst.cost, "worst")
        )
    return _bars(bars)


def comparison_hours(comparison: Comparison) -> HoursBars:
    """Person-hours and cost of each design for the same target."""
    bars = [
        (name, design.items, comparison.costs[name].person_hours, comparison.costs[name].cost, name)
        for name, design in comparison.designs.items()
    ]
    return _bars(bars)


def _bars(bars: Sequence[tuple[str, float, float, float | None, str]]) -> HoursBars:
    return HoursBars(
        labels=tuple(b[0] for b in bars),
        items=tuple(float(b[1]) for b in bars),
        hours=tuple(float(b[2]) for b in bars),
        costs=tuple(None if b[3] is None else float(b[3]) for b in bars),
        kinds=tuple(b[4] for b in bars),
    )


def burndown_band(schedule: ScheduleResult) -> BurndownBand:
    """The schedule's burn-down: per-day quantiles of the open share over the runs."""
    return BurndownBand(
        days=tuple(schedule.burndown_days),
        median=tuple(schedule.burndown_median),
        p10=tuple(schedule.burndown_p10),
        p90=tuple(schedule.burndown_p90),
        finish_median=schedule.calendar_days_median,
        finish_p90=schedule.calendar_days_p90,
        runs=schedule.runs,
    )


def figure_streams(seed: int) -> list[np.random.Generator]:
    """Two independent streams (half-width curve, estimates) of the report's seed."""
    sequence = np.random.SeedSequence(seed, spawn_key=(FIGURE_STREAM,))
    return [np.random.default_rng(s) for s in sequence.spawn(2)]


def assurance_data(plan: Plan, seed: int) -> AssuranceCurve:
    """The assurance curve of a pair plan around its items, as ``plan --curve`` draws it,
    with a point at the planned items and refined until the line is within
    :data:`~planner.sizing.precision.CURVE_TOLERANCE` of the curve; with a pilot, also the
    hybrid assurance (PSA averaged over the pilot's posterior), which the plan reaches.

    Its stream is a child of the report's seed that neither the plan nor the other figures
    use (spawn key ``FIGURE_STREAM + 2``).
    """
    from planner.sizing.assurance_curve import assurance_curve, curve_items

    sequence = np.random.SeedSequence(seed, spawn_key=(FIGURE_STREAM + 2,))
    curve_seed = seed_from(np.random.default_rng(sequence))
    items = curve_items(plan.items)
    streams = np.random.default_rng(curve_seed).spawn(len(plan.settings.metrics))
    curve = {
        m: assurance_curve(plan.model, m, plan.settings, items, rng=stream, planned=plan.items)
        for m, stream in zip(plan.settings.metrics, streams, strict=True)
    }
    if "psa" in plan.uncertainty_by_metric:  # the curve the recommendation is read from
        from planner.sizing.uncertainty import PilotUncertainty, hybrid_assurance_curve

        psa = plan.uncertainty_by_metric["psa"]
        assert isinstance(psa, PilotUncertainty)  # PSA's plan under uncertainty
        curve[HYBRID_CURVE] = hybrid_assurance_curve(psa, items)
    return AssuranceCurve(
        curve=curve,
        width=plan.settings.width,
        assurance=plan.settings.assurance,
        planned=int(plan.items),
        seed=curve_seed,
    )


def figure_data(
    result: PlanResult, schedule: ScheduleResult, thresholds: DecisionThresholds, *, seed: int
) -> ReportFigures:
    """The data of every figure of the report of ``result``; simulated studies from ``seed``."""
    curve_rng, estimate_rng = figure_streams(seed)
    match result:
        case Plan():
            curve = half_width_curve(result.model, result, result.items, "plan", curve_rng)
            hours = plan_hours(result)
            estimates = plan_estimate_spread(result, estimate_rng)
        case Comparison() if result.raters is not None:  # several annotators' strata
            from planner.output.report_strata_raters import (
                raters_half_width_curve,
                raters_weighted_spread,
            )

            curve = raters_half_width_curve(result, result.designs["uniform"].items, curve_rng)
            hours = comparison_hours(result)
            estimates = raters_weighted_spread(result, estimate_rng)
        case Comparison():
            planned = result.designs["uniform"].items
            model = traffic_model(result)
            curve = half_width_curve(model, result, planned, "uniform", curve_rng)
            hours = comparison_hours(result)
            estimates = weighted_estimate_spread(result, estimate_rng)
    assurance = assurance_data(result, seed) if isinstance(result, Plan) else None
    return ReportFigures(
        curve, hours, burndown_band(schedule), estimates, thresholds, seed, assurance
    )


def draw_figures(figures: ReportFigures, folder: Path) -> None:
    """Draw every figure of ``figures`` as a PNG in ``folder`` (:data:`FIGURE_FILES`)."""
    from planner.output import plots

    drawers: dict[str, Callable[[Any, Any], Any]] = {
        "half_width": plots.half_width_curve,
        "hours": plots.hours_by_design,
        "burndown": plots.burndown,
        "estimates": plots.estimate_distribution,
    }
    for name, file_name in FIGURE_FILES.items():
        data = getattr(figures, name)
        extra = (figures.thresholds,) if name == "estimates" else ()
        plots.save_png(drawers[name], folder / file_name, data, *extra)
    if figures.assurance is not None:
        from planner.output.plot_curve import report_assurance_figure

        plots.save_png(report_assurance_figure, folder / ASSURANCE_FILE, figures.assurance)
    if figures.alt_test is not None:
        from planner.output.report_alt_test import FIGURE_FILE

        plots.save_png(plots.pass_probability_curve, folder / FIGURE_FILE, figures.alt_test.curve)
