"""Fixed-size precision: what a given number of items, hours or money buys, for every study.

For ``n`` items (or the items that ``H`` person-hours or a budget ``C`` pay for at the
plan's costs, :mod:`planner.sizing.items_bought`) the result reports the half-width's median
and 10th/90th percentiles over studies of that size, the assurance ``P(half-width <=
width)``, the typical interval (the medians of the lower and of the upper limits over
simulated studies), the interval's coverage (the share of studies whose interval holds the
model's coefficient) and the person-hours and cost. For PSA with an interval in
:data:`~planner.sizing.exact.EXACT_PSA_METHODS` the half-width's law, the assurance and the
coverage are exact binomial sums; otherwise they come from ``replicates`` simulated studies,
with their Monte Carlo SEs. An interval that under-covers at this size
(:func:`planner.sizing.interval_coverage.falls_short`) is a note of the plan.

:func:`fixed_size_precision` is the one entry for every kind of study, and every kind runs
the same evaluator of label-pattern studies
(:func:`~planner.sizing.study_precision.precision_evidence`). A pair is the study of two
annotators: its studies are drawn as the four cells ``(a, b, c, d)`` and read as ordered
label patterns for kappa and as patterns of positives ``(a, b + c, d)`` for PSA
(:func:`pair_studies`), and it reports both metrics at once (:class:`Precision`, one
:class:`MetricPrecision` each). A model of several annotators draws its own patterns
(:func:`~planner.sizing.studies.simulate_pattern_counts`) for the settings' one metric
(:class:`RatersPrecision`, :func:`raters_fixed_size`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from planner.errors import InvalidInput
from planner.renamed import renamed_field
from planner.sizing.annotator_model import RatersModel
from planner.sizing.common_prevalence_model import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.exact import EXACT_PSA_METHODS
from planner.sizing.interval_coverage import falls_short, under_coverage_note
from planner.sizing.items_bought import LabelCosts, items_given
from planner.sizing.label_patterns import contested_share, pair_pattern_rows, pair_patterns
from planner.sizing.model import PairModel
from planner.sizing.studies import simulate_tables
from planner.sizing.study_evidence import QUANTILE_NAMES
from planner.sizing.team_cost import priced_budget
from planner.validation import RngLike, check_instance, seed_from

if TYPE_CHECKING:  # the evaluators import scipy: kept off the headline plan's start path
    from planner.sizing.study_precision import RatersStudy


@dataclass(frozen=True)
class MetricPrecision:
    """The precision one metric reaches with a fixed number of items."""

    metric: str
    method: str
    items: int
    union_positives: float
    half_width: dict[str, float]
    assurance: float
    #: the median interval's ``lower`` and ``upper`` (None: never defined), ``level`` and
    #: ``method``
    interval: dict[str, float | str | None]
    basis: str
    #: what the interval estimates under the model: PSA, Cohen's kappa, or for the ``gof``
    #: interval the intraclass kappa
    true_value: float
    #: share of studies whose interval holds ``true_value`` (no interval: not held)
    coverage: float
    #: its Monte Carlo SE over the simulated studies; None when the coverage is exact
    #: (PSA by an interval of :data:`~planner.sizing.exact.EXACT_PSA_METHODS`)
    coverage_mc_se: float | None
    #: share of studies without an interval (for PSA: without union positives), counted
    #: as not covering
    no_interval: float

    def under_covers(self) -> bool:
        """Whether the interval's coverage falls short of its level (:func:`falls_short`)."""
        nominal = float(self.interval["level"])  # type: ignore[arg-type]
        return falls_short(self.coverage, self.coverage_mc_se, nominal)


@dataclass(frozen=True)
class Precision:
    """The ``precision`` section: fixed items (given, or bought by hours or a budget)."""

    items: int
    given: dict[str, float]
    metrics: dict[str, MetricPrecision]
    person_hours: float
    cost: float | None
    width: float
    seed: int

    def under_coverage_notes(self) -> list[str]:
        """One line for each metric whose interval under-covers at these items
        (:meth:`MetricPrecision.under_covers`)."""
        return [
            under_coverage_note(
                self.items,
                m.method,
                PAIR_METRIC_LABELS[name],
                m.coverage,
                float(m.interval["level"]),  # type: ignore[arg-type]
                m.no_interval,
            )
            for name, m in self.metrics.items()
            if m.under_covers()
        ]


#: several annotators' coefficients as a note names them
METRIC_LABELS = {
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
    "psa": "PSA",
    "conger": "Conger's kappa",
    "kappa": "mean pairwise Cohen's kappa",
}

#: the pair's metrics as notes and tables name them
PAIR_METRIC_LABELS = {"psa": "PSA", "kappa": "Cohen's kappa"}


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class RatersPrecision:
    """The precision a fixed number of items reaches with several annotators per item.

    Attributes
    ----------
    items, given
        The study's items, and what fixed them (``{"items": n}``, ``{"hours": H}`` or
        ``{"budget": C}``).
    metric, method, level, width, confidence_level
        The coefficient, its interval, alpha's level and the target.
    n_annotators, labels_per_item
        The pool and the labels each item gets.
    half_width
        ``{"p10", "p50", "p90"}`` of the half-width over the simulated studies (an undefined
        or zero-width interval counts as infinitely wide).
    assurance, assurance_mc_se
        ``P(half-width <= width)`` and its Monte Carlo SE.
    coverage, coverage_mc_se
        Share of the studies' intervals holding ``true_value``.

        For PSA of two annotators by one of the pair's intervals on ``(a, U)``
        (:data:`~planner.sizing.exact.EXACT_PSA_METHODS`) the half-width's quantiles, the
        assurance, the coverage and ``no_interval`` are exact, as the pair's, and their
        Monte Carlo SEs 0 (when the ``(U, a)`` grid is too large to hold, only the
        assurance is exact).
    true_value
        The coefficient the model implies.
    interval
        Medians of the lower and upper limits (``None`` when no interval is defined).
    contested_rate
        Share of items whose labels do not all agree (adjudicated at ``adjudication_seconds``).
    labels, person_hours, adjudication_hours, cost
        The study's labels, person-hours (labelling plus adjudication), the adjudication's
        share of them, and the cost.
    replicates, n_undefined, seed
        Simulated studies, those with an undefined interval, and the seed used.
    no_interval
        The share of studies without an interval: ``(1 - r)^n`` exactly where the
        precision is exact, else ``n_undefined / replicates``.
    """

    items: int
    given: dict[str, float]
    metric: str
    method: str
    level: str
    width: float
    confidence_level: float
    n_annotators: int
    labels_per_item: int
    half_width: dict[str, float]
    assurance: float
    assurance_mc_se: float
    coverage: float
    coverage_mc_se: float
    true_value: float
    interval: dict[str, float | None]
    contested_rate: float
    labels: int
    person_hours: float
    adjudication_hours: float
    cost: float | None
    replicates: int
    n_undefined: int
    seed: int
    no_interval: float

    def under_coverage_notes(self) -> list[str]:
        """A note when the interval's coverage falls short of its level
        (:func:`planner.sizing.interval_coverage.falls_short`)."""
        if not falls_short(self.coverage, self.coverage_mc_se, self.confidence_level):
            return []
        return [
            under_coverage_note(
                self.items,
                self.method,
                METRIC_LABELS[self.metric],
                self.coverage,
                self.confidence_level,
                self.no_interval,
            )
        ]


def pair_studies(model: PairModel, metric: str, n: int, replicates: int, rng: Any) -> Any:
    """``replicates`` studies of a pair of ``n`` items as label-pattern counts
    (:class:`~planner.sizing.study_precision.SimulatedStudies`), drawn as the four cells
    (:func:`~planner.sizing.studies.simulate_tables`) and, for PSA, counted as patterns of
    positives."""
    from planner.sizing.study_precision import SimulatedStudies

    cells = simulate_tables(model.cells, n, replicates, rng=rng).reshape(replicates, 4)
    probabilities = pair_patterns(np.asarray(model.cells, dtype=float), metric)
    patterns = pair_pattern_rows(metric)
    return SimulatedStudies(n, patterns, probabilities, pair_patterns(cells, metric))


def _metric_precision(
    model: PairModel, metric: str, n: int, settings: Any, rng: np.random.Generator
) -> MetricPrecision:
    """One metric's precision: the pair's studies through the M-annotator evidence
    (:func:`planner.sizing.study_precision.precision_evidence`, two annotators)."""
    from planner.sizing.study_precision import pair_study, precision_evidence

    study = pair_study(metric, settings)
    method, level = str(study.method), study.confidence_level
    bootstrap = rng.spawn(1)[0]
    studies = pair_studies(model, metric, n, settings.replicates, rng)
    evidence = precision_evidence(model, study, studies, rng=bootstrap)
    exact = metric == "psa" and method in EXACT_PSA_METHODS
    truth = evidence.true_value
    lower, upper = evidence.interval
    return MetricPrecision(
        metric=metric,
        method=method,
        items=n,
        union_positives=n * model.union_rate,
        half_width=dict(zip(QUANTILE_NAMES, evidence.quantiles, strict=True)),
        assurance=evidence.assurance,
        interval={"lower": lower, "upper": upper, "level": level, "method": method},
        basis="exact" if exact else "monte-carlo",
        true_value=truth,
        coverage=evidence.coverage,
        coverage_mc_se=None if evidence.exact_law else evidence.coverage_mc_se,
        no_interval=evidence.no_interval,
    )


@overload
def fixed_size_precision(
    model: PairModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> Precision: ...


@overload
def fixed_size_precision(
    model: RatersModel | CommonPrevalenceModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> RatersPrecision: ...


def fixed_size_precision(
    model: PairModel | RatersModel | CommonPrevalenceModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> Precision | RatersPrecision:
    """The precision a fixed study buys: give exactly one of ``items``, ``hours``, ``budget``.

    ``hours`` and ``budget`` are converted to items with the costs of ``settings``
    (:class:`~planner.sizing.plan.PlanSettings`): labels per item, seconds per item, the
    model's contested share times the adjudication seconds, and (for ``budget``) the hourly
    rate. Each metric of ``settings.metrics`` is reported (:class:`MetricPrecision`).

    A model of several annotators (:class:`~planner.sizing.annotator_model.RatersModel`,
    :class:`~planner.sizing.common_prevalence_model.CommonPrevalenceModel`) is simulated as label
    patterns (:func:`raters_fixed_size`) for the settings'
    one metric, ``level`` and ``per_item``, each item billed its ``per_item`` (else every
    annotator's) labels: a :class:`RatersPrecision`.
    """
    from planner.sizing.plan import PlanSettings  # plan imports this module

    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if not isinstance(model, PairModel):
        study, costs = study_and_costs(model, settings)
        return raters_fixed_size(
            model, study, costs, items=items, hours=hours, budget=budget, rng=rng
        )
    from planner.sizing.plan import check_pair_settings

    check_pair_settings(settings)
    amounts = {"items": items, "hours": hours, "budget": budget}
    n, given = items_given(amounts, settings, model.contested_rate)
    seed = seed_from(rng)
    streams = dict(zip(("psa", "kappa"), np.random.default_rng(seed).spawn(2), strict=True))
    metrics = {m: _metric_precision(model, m, n, settings, streams[m]) for m in settings.metrics}
    cost = priced_budget(settings, n, model.contested_rate)
    return Precision(
        items=n,
        given=given,
        metrics=metrics,
        person_hours=cost.person_hours,
        cost=cost.cost,
        width=settings.width,
        seed=seed,
    )


def study_and_costs(model: AnyRatersModel, settings: Any) -> tuple[RatersStudy, LabelCosts]:
    """The study and the costs of a :class:`~planner.sizing.plan.PlanSettings` for ``model``:
    its metric, target, ``level``, ``per_item`` and replicates; each item's ``per_item`` (else
    every annotator's) labels at its seconds, adjudication, hourly rate and team."""
    from planner.sizing.study_precision import RatersStudy

    what = "a PairModel, RatersModel or CommonPrevalenceModel"
    check_instance("model", model, (RatersModel, CommonPrevalenceModel), what)
    s = settings
    study = RatersStudy(s.metric, s.width, s.level, s.per_item, s.confidence_level, s.replicates)
    labels = model.n_annotators if s.per_item is None else s.per_item
    costs = LabelCosts(labels, s.seconds_per_item, s.adjudication_seconds, s.hourly_rate, s.team)
    return study, costs


def raters_fixed_size(
    model: AnyRatersModel,
    study: RatersStudy,
    costs: LabelCosts,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> RatersPrecision:
    """The precision a study of several annotators of fixed size buys.

    Give exactly one of ``items``, ``hours`` (person-hours) or ``budget`` (at
    ``costs.hourly_rate``); hours and budgets buy ``floor(3600 H / (k s + c a))`` items
    (module docstring). ``costs.annotators_per_item`` must be the study's labels per item.

    Examples
    --------
    >>> from planner.sizing.annotator_model import raters_model
    >>> from planner.sizing.study_precision import RatersStudy
    >>> model = raters_model(0.3, 3, error_rate=0.1)
    >>> p = raters_fixed_size(model, RatersStudy("fleiss", 0.1, replicates=200), LabelCosts(3),
    ...                       hours=50, rng=1)
    >>> p.items, p.labels   # 50 h at 3 labels of 90 s an item
    (666, 1998)
    """
    from planner.sizing.study_precision import checked_study, interval_method

    study, k = checked_study(model, study)
    check_instance("costs", costs, LabelCosts, "a LabelCosts")
    if costs.annotators_per_item != k:
        raise InvalidInput(
            f"costs.annotators_per_item is {costs.annotators_per_item}, but the study gives "
            f"each item {k} labels",
            parameter="costs",
        )
    contested = contested_share(model, study.per_item)
    n, given = items_given({"items": items, "hours": hours, "budget": budget}, costs, contested)
    seed = seed_from(rng)
    evidence = _simulated(model, study, n, seed)
    bill = priced_budget(costs, n, contested)  # a named team's, or the single rate
    return RatersPrecision(
        items=n,
        given=given,
        metric=study.metric,
        method=interval_method(study),
        level=study.level,
        width=study.width,
        confidence_level=study.confidence_level,
        n_annotators=model.n_annotators,
        labels_per_item=k,
        **evidence,
        contested_rate=contested,
        labels=bill.labels,
        person_hours=bill.person_hours,
        adjudication_hours=bill.adjudication_hours,
        cost=bill.cost,
        replicates=study.replicates,
        seed=seed,
    )


def _simulated(model: AnyRatersModel, study: RatersStudy, n: int, seed: int) -> dict[str, Any]:
    """Half-width quantiles, assurance, coverage and typical interval of ``study.replicates``
    simulated studies of ``n`` items
    (:func:`~planner.sizing.study_precision.precision_evidence`)."""
    from planner.sizing.studies import simulate_pattern_counts
    from planner.sizing.study_intervals import pattern_space
    from planner.sizing.study_precision import (
        BOOTSTRAP_STREAM,
        FIXED_SIZE_STREAM,
        SimulatedStudies,
        precision_evidence,
    )

    patterns, probs = pattern_space(model, study.metric, study.per_item)
    stream = np.random.default_rng([seed, FIXED_SIZE_STREAM])
    counts = simulate_pattern_counts(probs, n, study.replicates, rng=stream)
    bootstrap = np.random.default_rng([seed, BOOTSTRAP_STREAM]) if study.method else None
    studies = SimulatedStudies(n, patterns, probs, counts)
    e = precision_evidence(model, study, studies, rng=bootstrap)
    lower, upper = e.interval
    return {
        "half_width": dict(zip(QUANTILE_NAMES, e.quantiles, strict=True)),
        "assurance": e.assurance,
        "assurance_mc_se": e.assurance_mc_se,
        "coverage": e.coverage,
        "coverage_mc_se": e.coverage_mc_se,
        "true_value": e.true_value,
        "interval": {"lower": lower, "upper": upper},
        "n_undefined": e.n_undefined,
        "no_interval": e.no_interval,
    }
