"""Fixed-size precision and the assurance curve for a study of several annotators.

What ``n`` items (or the items that ``H`` person-hours or a budget ``C`` pay for) buy when
every item gets ``k`` labels (``k = M``, or ``k`` of a pool of ``M``): the half-width's
10th, 50th and 90th percentiles over ``R`` simulated studies of ``n`` items, the assurance
``P(half-width <= w)`` with its Monte Carlo SE ``sqrt(A (1 - A) / R)``, the typical interval
(the medians of the lower and of the upper limits) and the share of intervals that hold the
model's true coefficient. Each study is one multinomial draw of ``n`` over the model's
pattern probabilities (:func:`planner.sizing.studies.simulate_pattern_counts`),
its interval the one the sample-size search uses
(:func:`planner.sizing.study_intervals.study_intervals`).

Hours and budgets become items at the plan's costs: one item costs
``k s + c a`` person-seconds, with ``s`` seconds a label, ``a`` seconds to adjudicate a
contested item and ``c`` the model's share of contested items (the labels of an item do not
all agree: :func:`planner.sizing.label_patterns.contested_share`), so
``n = floor(3600 H / (k s + c a))`` and, at hourly rate ``r``, ``H = C / r``
(:func:`planner.sizing.precision.items_for_hours`).

:func:`raters_assurance_curve` gives ``A(n)`` against items on nested studies (common
random numbers across ``n``, so the curve is smooth), refined where a straight line between
neighbouring points would misread it (:func:`planner.sizing.precision.refined_curve`).

The evaluators of simulated studies, :func:`precision_evidence` (one size) and
:func:`exact_assurance` / :func:`nested_assurance` (``A(n)``), take any number of
annotators: the pair's fixed-size precision and curve (:mod:`planner.sizing.precision`) run
through them as the study of two, with the pair's interval ``method``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_ITEM
from planner.renamed import renamed_field
from planner.sizing.exact import (
    EXACT_PSA_METHODS,
    exact_psa_assurance,
    reaches_width,
)
from planner.sizing.interval_coverage import falls_short, under_coverage_note
from planner.sizing.label_patterns import contested_share
from planner.sizing.model import PairModel
from planner.sizing.precision import (
    QUANTILE_NAMES,
    QUANTILES,
    items_for_budget,
    items_for_hours,
    refined_curve,
)
from planner.sizing.raters_common import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.raters_model import RatersModel, check_per_item
from planner.sizing.raters_team_cost import TeamPricing, priced_budget
from planner.sizing.search import SearchSettings
from planner.sizing.search_checks import pair_true_value
from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts
from planner.sizing.study_evidence import StudyEvidence, simulated_evidence, with_exact_psa
from planner.sizing.study_intervals import (
    INTERVAL_METHODS,
    ORDERED_METRICS,
    PAIR_METHODS,
    RATER_METRICS,
    pattern_space,
    study_intervals,
    true_value,
)
from planner.statistics.alpha_variance import LINEARISED_LEVELS
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

#: the coefficients as a note names them
METRIC_LABELS = {
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
    "psa": "PSA",
    "conger": "Conger's kappa",
    "kappa": "mean pairwise Cohen's kappa",
}
#: the random stream of fixed-size studies, apart from the sample-size search's
FIXED_SIZE_STREAM = 1
#: the random stream of the assurance curve's nested studies
CURVE_STREAM = 2
#: the random stream of a pair's bootstrap intervals on the simulated studies
BOOTSTRAP_STREAM = 3


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class RatersStudy:
    """What a several-annotator study measures, and how well it is simulated.

    Attributes
    ----------
    metric
        ``"fleiss"``, ``"alpha"``, ``"psa"``, ``"conger"`` or ``"kappa"``.
    width
        Target half-width of the interval.
    level
        Krippendorff's level for alpha (``nominal``, ``ordinal``, ``interval``).
    per_item
        ``k < M`` annotators per item drawn at random from the pool; ``None``: all ``M``.
    confidence_level
        Two-sided level of the interval.
    replicates
        Simulated studies (default that of a search for M annotators,
        :attr:`planner.sizing.search.SearchSettings.SEVERAL_REPS`).
    method
        None: the metric's interval for M annotators (:data:`INTERVAL_METHODS`). Two
        annotators over two categories may take one of the pair's instead
        (:data:`~planner.sizing.study_intervals.PAIR_METHODS`: ``psa`` by Wilson and the
        others on ``(a, U)``, whose precision is then exact; ``kappa``, Cohen's, by score,
        gof, FCE, bootstrap or profile).
    """

    metric: str
    width: float
    level: str = "nominal"
    per_item: int | None = None
    confidence_level: float = 0.95
    replicates: int = SearchSettings.SEVERAL_REPS
    method: str | None = None


@dataclass(frozen=True)
class LabelCosts:
    """What a label costs: seconds per label, adjudication and the hourly rate.

    ``annotators_per_item`` is the labels an item gets (``k``); the names are those
    :func:`planner.sizing.precision.items_for_hours` reads.
    """

    annotators_per_item: int
    seconds_per_item: float = SECONDS_PER_ITEM
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None
    #: a named team's pricing (None: every label at ``hourly_rate``)
    team: TeamPricing | None = None


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


def checked_study(model: AnyRatersModel, study: RatersStudy) -> tuple[RatersStudy, int]:
    """``study`` with its values checked against ``model``, and the labels per item ``k``."""
    check_instance("model", model, (RatersModel, CommonPrevalenceModel), "a RatersModel")
    check_instance("study", study, RatersStudy, "a RatersStudy")
    metric = check_choice("metric", study.metric, RATER_METRICS)
    level = check_choice("level", study.level, LINEARISED_LEVELS)
    if metric == "psa" and model.n_categories != 2:
        raise InvalidInput(
            f"metric psa needs two categories, got {model.n_categories}; use fleiss or alpha",
            parameter="metric",
        )
    m = model.n_annotators
    per_item = study.per_item
    if per_item is not None:
        per_item = check_per_item(per_item, m)
        if metric in ORDERED_METRICS:
            raise InvalidInput(
                f"metric {metric} needs every annotator on every item; with per_item use "
                "alpha, fleiss or psa",
                parameter="metric",
            )
    method = _pair_method(model, metric, per_item, study.method)
    checked = RatersStudy(
        method=method,
        metric=metric,
        width=check("width", study.width, RULES["width"]),
        level=level,
        per_item=per_item,
        confidence_level=check(
            "confidence_level", study.confidence_level, RULES["confidence_level"]
        ),
        replicates=check("replicates", study.replicates, RULES["replicates"]),
    )
    return checked, m if per_item is None else per_item


def _pair_method(
    model: AnyRatersModel, metric: str, per_item: int | None, method: str | None
) -> str | None:
    """``method`` checked: None, or one of the pair's intervals of ``metric`` for a model of
    two annotators over two categories, each labelling every item."""
    if method is None:
        return None
    pair = model.n_annotators == 2 and model.n_categories == 2 and per_item is None
    if not pair or metric not in PAIR_METHODS:
        raise InvalidInput(
            "method (a pair's interval) needs two annotators over two categories labelling "
            f"every item and metric psa or kappa; got {model.n_annotators} annotators, "
            f"{model.n_categories} categories, metric {metric}",
            parameter="method",
        )
    return check_choice("method", method, PAIR_METHODS[metric])


def interval_method(study: RatersStudy) -> str:
    """The name of ``study``'s interval: the pair's ``method``, else the metric's."""
    return study.method or INTERVAL_METHODS[study.metric]


def study_and_costs(model: AnyRatersModel, settings: Any) -> tuple[RatersStudy, LabelCosts]:
    """The study and the costs of a :class:`~planner.sizing.plan.PlanSettings` for ``model``:
    its metric, target, ``level``, ``per_item`` and replicates; each item's ``per_item`` (else
    every annotator's) labels at its seconds, adjudication, hourly rate and team."""
    what = "a PairModel, RatersModel or CommonPrevalenceModel"
    check_instance("model", model, (RatersModel, CommonPrevalenceModel), what)
    s = settings
    study = RatersStudy(s.metric, s.width, s.level, s.per_item, s.confidence_level, s.replicates)
    labels = model.n_annotators if s.per_item is None else s.per_item
    costs = LabelCosts(labels, s.seconds_per_item, s.adjudication_seconds, s.hourly_rate, s.team)
    return study, costs


def _items(
    given: dict[str, float | None], costs: LabelCosts, contested: float
) -> tuple[int, dict[str, float]]:
    """The study's items from exactly one of items, hours and budget."""
    named = [k for k, v in given.items() if v is not None]
    if len(named) != 1:
        raise InvalidInput(
            f"give one of items, hours or budget; got {' and '.join(named) or 'none'}",
            parameter="items",
            parameters=tuple(named),
        )
    name = named[0]
    value = float(given[name])  # type: ignore[arg-type]
    if name == "items":
        n = check("items", value, RULES["items"])
    elif name == "hours":
        n = items_for_hours(value, costs, contested)
    else:
        n = items_for_budget(value, costs, contested)
    return check("items", n, RULES["items"]), {name: float(value)}


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
    >>> from planner.sizing.raters_model import raters_model
    >>> model = raters_model(0.3, 3, error_rate=0.1)
    >>> p = raters_fixed_size(model, RatersStudy("fleiss", 0.1, replicates=200), LabelCosts(3),
    ...                       hours=50, rng=1)
    >>> p.items, p.labels   # 50 h at 3 labels of 90 s an item
    (666, 1998)
    """
    study, k = checked_study(model, study)
    check_instance("costs", costs, LabelCosts, "a LabelCosts")
    if costs.annotators_per_item != k:
        raise InvalidInput(
            f"costs.annotators_per_item is {costs.annotators_per_item}, but the study gives "
            f"each item {k} labels",
            parameter="costs",
        )
    contested = contested_share(model, study.per_item)
    n, given = _items({"items": items, "hours": hours, "budget": budget}, costs, contested)
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


def interval_options(study: RatersStudy, n_categories: int, seed: int = 0) -> dict[str, Any]:
    """The keywords of :func:`~planner.sizing.study_intervals.study_intervals` for
    ``study``: alpha's level, the confidence level, the categories and the pair's
    ``method`` (its bootstrap resampling from ``seed``)."""
    options: dict[str, Any] = dict(
        level=study.level, confidence_level=study.confidence_level, n_categories=n_categories
    )
    if study.method is not None:
        options.update(method=study.method, rng=np.random.default_rng([seed, BOOTSTRAP_STREAM]))
    return options


def _exact_psa(study: RatersStudy) -> bool:
    """Whether ``study``'s precision is exact: PSA of two annotators by one of the pair's
    intervals on ``(a, U)`` (:data:`planner.sizing.exact.EXACT_PSA_METHODS`)."""
    return study.metric == "psa" and study.method in EXACT_PSA_METHODS


@dataclass(frozen=True)
class SimulatedStudies:
    """``R`` simulated studies of ``items`` items as label-pattern counts: the ``(P, K)`` or
    ``(P, M)`` ``patterns``, their probabilities under the model, and ``(R, P)`` ``counts``."""

    items: int
    patterns: NDArray[np.int64]
    probabilities: NDArray[np.float64]
    counts: NDArray[np.int64]


def precision_evidence(
    model: AnyRatersModel | PairModel,
    study: RatersStudy,
    studies: SimulatedStudies,
    *,
    rng: np.random.Generator | None = None,
) -> StudyEvidence:
    """What ``studies`` of ``n`` items show about ``study``'s interval, for any number of
    annotators (a pair is the model of two): the intervals of
    :func:`~planner.sizing.study_intervals.study_intervals`, the value the interval estimates
    (the model's coefficient; a pair's interval ``method``: what that method estimates,
    the intraclass kappa for ``gof``), and :func:`simulated_evidence`'s summary, exact where
    :func:`_exact_psa` (Monte Carlo SE 0). ``rng``: a pair's bootstrap resamples."""
    options: dict[str, Any] = dict(
        level=study.level, confidence_level=study.confidence_level, n_categories=model.n_categories
    )
    if study.method is not None:
        options.update(method=study.method, rng=rng)
    ci = study_intervals(study.metric, studies.patterns, studies.counts, **options)
    if study.method is None:
        truth = true_value(
            study.metric, studies.patterns, studies.probabilities, study.level,
            model.n_categories,
        )  # fmt: skip
    else:  # what the pair's interval estimates (gof: the intraclass kappa)
        truth = pair_true_value(model.pair(), study.metric, study.method)
    e = simulated_evidence(ci, truth, study.width, QUANTILES)
    if _exact_psa(study):
        level, method = study.confidence_level, str(study.method)
        pair, n = model.pair(), studies.items
        e = with_exact_psa(e, pair, n, study.width, QUANTILES, level, method)
    return e


def _simulated(model: AnyRatersModel, study: RatersStudy, n: int, seed: int) -> dict[str, Any]:
    """Half-width quantiles, assurance, coverage and typical interval of ``study.replicates``
    simulated studies of ``n`` items (:func:`precision_evidence`)."""
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


def raters_assurance_curve(
    model: AnyRatersModel,
    study: RatersStudy,
    items: list[int],
    *,
    planned: int | None = None,
    rng: RngLike = None,
) -> list[dict[str, float]]:
    """``[{"items": n, "assurance": A(n)}, ...]``: ``P(half-width <= width)`` against items.

    ``A(n)`` is the share of ``study.replicates`` nested studies (the study at ``n`` items holds
    the study at every smaller size: common random numbers) whose interval reaches the
    width. The points are ``items``, ``planned`` (the plan's size, when given) and those
    :func:`planner.sizing.precision.refined_curve` adds.

    Examples
    --------
    >>> from planner.sizing.raters_model import raters_model
    >>> model = raters_model(0.3, 3, error_rate=0.1)
    >>> curve = raters_assurance_curve(model, RatersStudy("fleiss", 0.1, replicates=200),
    ...                                [50, 400, 3000], rng=1)
    >>> curve[0]["assurance"], curve[-1]["assurance"]
    (0.0, 1.0)
    """
    study, _ = checked_study(model, study)
    ns = [
        check("items", n, RULES["items"])
        for n in check_instance("items", items, (list, tuple), "a list of item counts")
    ]
    if planned is not None:
        ns.append(check("items", planned, RULES["items"]))
    seed = seed_from(rng)
    exact = exact_assurance(model, study)
    if exact is not None:  # exact: the seed is not used
        return refined_curve(exact, ns)
    patterns, probs = pattern_space(model, study.metric, study.per_item)
    stream = np.random.default_rng([seed, CURVE_STREAM])
    studies = NestedPatternStudies(probs, study.replicates, rng=stream)
    bootstrap = np.random.default_rng([seed, BOOTSTRAP_STREAM]) if study.method else None
    evaluate = nested_assurance(model, study, patterns, studies.counts, rng=bootstrap)
    return refined_curve(evaluate, ns)


def exact_assurance(
    model: AnyRatersModel | PairModel, study: RatersStudy
) -> Callable[[int], float] | None:
    """``A(n)`` by exact binomial sums where :func:`_exact_psa` (else None)."""
    if not _exact_psa(study):
        return None
    pair, method = model.pair(), str(study.method)

    def exact(n: int) -> float:
        return exact_psa_assurance(pair, n, study.width, study.confidence_level, method)

    return exact


def nested_assurance(
    model: AnyRatersModel | PairModel,
    study: RatersStudy,
    patterns: NDArray[np.int64],
    counts_at: Callable[[int], NDArray[np.int64]],
    *,
    rng: np.random.Generator | None = None,
) -> Callable[[int], float]:
    """``A(n)``, the share of nested studies (``counts_at(n)``: their ``(R, P)`` pattern
    counts at ``n`` items) whose interval reaches the width, for any number of annotators;
    ``rng``: a pair's bootstrap resamples."""
    options: dict[str, Any] = dict(
        level=study.level, confidence_level=study.confidence_level, n_categories=model.n_categories
    )
    if study.method is not None:
        options.update(method=study.method, rng=rng)

    def evaluate(n: int) -> float:
        ci = study_intervals(study.metric, patterns, counts_at(n), **options)
        return float(np.mean(reaches_width(ci.half_width, study.width)))

    return evaluate
