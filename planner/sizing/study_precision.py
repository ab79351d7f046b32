"""What a study measures, and what simulated studies of it show: for any number of annotators.

A :class:`RatersStudy` is what a study of ``M`` annotators measures: the coefficient, its
target half-width, alpha's level, the labels an item gets (``per_item``), the interval's
level and method, and how many studies to simulate. :func:`checked_study` checks it against
a model; a pair is the study of two annotators over two categories, with the pair's
interval ``method`` (:func:`pair_study`).

The evaluators of simulated studies take any number of annotators:

* :func:`precision_evidence` (studies of one size): the intervals of
  :func:`~planner.sizing.study_intervals.study_intervals` on the studies' label-pattern
  counts, the value the interval estimates (the model's coefficient; for a pair's
  ``method``, what that method estimates: the intraclass kappa for ``gof``), and
  :func:`~planner.sizing.study_evidence.simulated_evidence`'s summary; exact for PSA of two
  annotators by an interval on ``(a, U)`` (:data:`~planner.sizing.exact.EXACT_PSA_METHODS`).
* :func:`exact_assurance` and :func:`nested_assurance`: ``A(n) = P(half-width <= w)``
  against items, by exact binomial sums where they exist, else on nested studies (common
  random numbers across ``n``).

Fixed-size precision (:mod:`planner.sizing.precision`), the assurance curve
(:mod:`planner.sizing.assurance_curve`), pilots and studies in progress of several
annotators all measure through them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.renamed import renamed_field
from planner.sizing.annotator_model import RatersModel, check_per_item
from planner.sizing.common_prevalence_model import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.exact import EXACT_PSA_METHODS, exact_psa_assurance, reaches_width
from planner.sizing.model import PairModel
from planner.sizing.search import SearchSettings
from planner.sizing.search_checks import pair_true_value
from planner.sizing.study_evidence import (
    QUANTILES,
    StudyEvidence,
    simulated_evidence,
    with_exact_psa,
)
from planner.sizing.study_intervals import (
    INTERVAL_METHODS,
    ORDERED_METRICS,
    PAIR_METHODS,
    RATER_METRICS,
    study_intervals,
    true_value,
)
from planner.statistics.alpha_variance import LINEARISED_LEVELS
from planner.validation import RULES, check, check_choice, check_instance

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


def pair_study(metric: str, settings: Any) -> Any:
    """The pair's ``metric`` by its interval method, as a study of two annotators."""
    method = settings.psa_method if metric == "psa" else settings.kappa_method
    return RatersStudy(
        metric, settings.width, confidence_level=settings.confidence_level,
        replicates=settings.replicates, method=method,
    )  # fmt: skip


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
