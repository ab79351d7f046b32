"""The intervals of simulated studies of M annotators, given as label-pattern counts.

Each simulated study is a vector of count-pattern multiplicities
(:mod:`planner.sizing.studies`); its coefficient and interval come from the
closed forms on pattern counts, with the interval ``planner agree`` reports wherever one
exists without resampling:

========== ================================================================================
metric     interval
========== ================================================================================
fleiss     Gwet (2021) linearised variance, t interval
           (:meth:`planner.statistics.multirater.ChanceCorrected.confidence_interval`)
psa        Uebersax's specific positive agreement; linearised ratio variance, Wald on the
           logit scale (:func:`planner.statistics.multirater.specific_agreement_interval`)
alpha      Wald with the linearised (infinitesimal-jackknife) SE of
           :mod:`planner.statistics.alpha_variance`: ``agree`` bootstraps items, which
           a search over thousands of studies per size cannot afford; to first order the
           two estimate the same variance
conger     Gwet's linearised variance, t interval (as ``agree``;
           :func:`planner.statistics.ordered_kappas.conger_patterns`)
kappa      mean pairwise Cohen's kappa (Light 1971), pair-averaged linearised SE, t interval
           (``agree`` does not report it; :mod:`planner.statistics.ordered_kappas`)
========== ================================================================================

Fleiss, alpha and PSA need only the count patterns (how many annotators said each
category); Conger and the mean pairwise kappa need who said what, the ``K^M`` ordered
patterns (:func:`pattern_space`).

The sample-size search (:func:`planner.sizing.search.find_sample_size`) evaluates these
intervals on nested studies of every size it tries; the plans of fixed size, the mid-study
plans and the pilot's hybrid assurance evaluate them too.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from planner.errors import InvalidInput
from planner.sizing.common_prevalence_model import AnyRatersModel
from planner.sizing.model import PairModel
from planner.statistics import multirater as mr
from planner.statistics.agreement import cohen_kappa, positive_agreement
from planner.statistics.alpha_variance import alpha_linearised
from planner.statistics.intervals import (
    KAPPA_METHODS,
    PSA_METHODS,
    SIMULATED_BOOTSTRAP_RESAMPLES,
    kappa_interval,
    normal_quantile,
    psa_interval,
)
from planner.statistics.ordered_kappas import conger_patterns, mean_pairwise_kappa_patterns
from planner.validation import RULES, check

RATER_METRICS = ("fleiss", "alpha", "psa", "conger", "kappa")
ORDERED_METRICS = ("conger", "kappa")
#: Most ``studies x patterns`` cells evaluated at once (larger batches are split by studies)
CHUNK_CELLS = 2_000_000
INTERVAL_METHODS = {
    "fleiss": "Gwet (2021) linearised variance, t interval",
    "psa": "linearised ratio variance, Wald on the logit scale",
    "alpha": "Wald with the linearised (infinitesimal-jackknife) SE",
    "conger": "Gwet's linearised variance, t interval",
    "kappa": "pair-averaged linearised variance, t interval",
}
#: the pair's own intervals (:mod:`planner.statistics.intervals`), for two annotators over
#: two categories: PSA's given the union positives, Cohen's kappa's
PAIR_METHODS = {"psa": PSA_METHODS, "kappa": KAPPA_METHODS}
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class StudyIntervals:
    """Estimates and interval limits of a batch of studies (arrays of the batch shape)."""

    estimate: FloatArray
    low: FloatArray
    high: FloatArray

    @property
    def half_width(self) -> FloatArray:
        return (self.high - self.low) / 2


def study_intervals(
    metric: str,
    patterns: NDArray[np.int64],
    multiplicity: NDArray,
    *,
    level: str = "nominal",
    confidence_level: float = 0.95,
    n_categories: int = 2,
    method: str | None = None,
    rng: np.random.Generator | None = None,
) -> StudyIntervals:
    """The coefficient and interval of studies given as pattern multiplicities.

    Parameters
    ----------
    metric
        ``"fleiss"``, ``"alpha"``, ``"psa"`` (positive = category 1 of two), ``"conger"``
        or ``"kappa"``.
    patterns
        ``(P, K)`` distinct count patterns; for ``conger`` and ``kappa`` the ``(P, M)``
        ordered label patterns, with ``n_categories``.
    multiplicity
        ``(..., P)`` items per pattern in each study (floats allowed: expected counts).
    level
        Krippendorff's metric for ``alpha``.
    confidence_level
        Two-sided level of the intervals.
    method
        None: the interval of the table above. For two annotators over two categories, one
        of the pair's methods (:data:`PAIR_METHODS`; :func:`pair_tables`): ``psa`` by
        Wilson, Clopper-Pearson, Jeffreys, Wald or the bootstrap on ``(a, U)``, ``kappa``
        (Cohen's) by score, gof, FCE, bootstrap or profile.
    rng
        The bootstrap's resamples (``method="bootstrap"`` only).
    """
    confidence_level = check("confidence_level", confidence_level, RULES["confidence_level"])
    if method is not None:
        return _pair_intervals(metric, patterns, multiplicity, confidence_level, method, rng)
    w = np.asarray(multiplicity)  # split before converting: no full-size float copy
    rows = max(1, CHUNK_CELLS // max(w.shape[-1], 1))
    if w.ndim == 2 and w.shape[0] > rows:  # bounded temporaries for K^M ordered patterns
        parts = [
            study_intervals(
                metric,
                patterns,
                w[i : i + rows],
                level=level,
                confidence_level=confidence_level,
                n_categories=n_categories,
            )
            for i in range(0, w.shape[0], rows)
        ]
        return StudyIntervals(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("estimate", "low", "high"))
        )
    if metric in ORDERED_METRICS:  # of the K^M ordered patterns a batch uses few
        used = np.flatnonzero(w.reshape(-1, w.shape[-1]).any(axis=0))
        patterns, w = np.asarray(patterns)[used], w[..., used]
    return _coefficient_intervals(
        metric, patterns, w.astype(float), level, confidence_level, n_categories
    )


def _coefficient_intervals(
    metric: str,
    patterns: NDArray[np.int64],
    w: FloatArray,
    level: str,
    confidence_level: float,
    n_categories: int,
) -> StudyIntervals:
    """The coefficient's own interval (the table of :func:`study_intervals`) of a batch of
    studies ``w`` small enough to hold its temporaries."""
    if metric == "conger":
        res = conger_patterns(patterns, n_categories, w)
        low, high = res.confidence_interval(confidence_level)
        return StudyIntervals(res.estimate, low, high)
    if metric == "kappa":
        est, se, n = mean_pairwise_kappa_patterns(patterns, n_categories, w)
        t = special.stdtrit(np.maximum(n - 1, 1), 0.5 + confidence_level / 2)
        return StudyIntervals(est, est - t * se, est + t * se)
    if metric == "fleiss":
        sparse = mr.patterns_from_counts(patterns)
        order = _pattern_order(patterns, sparse)
        res = mr.chance_corrected_patterns(sparse, "fleiss", multiplicity=w[..., order])
        low, high = res.confidence_interval(confidence_level)
        return StudyIntervals(res.estimate, low, high)
    if metric == "psa":
        est = mr.specific_agreement(patterns, w)[..., 1]
        se = mr.specific_agreement_se(patterns, w)[..., 1]
        low, high = mr.specific_agreement_interval(est, se, confidence_level)
        return StudyIntervals(est, low, high)
    est, se = alpha_linearised(patterns, w, level)
    z = normal_quantile(confidence_level)
    return StudyIntervals(est, est - z * se, est + z * se)


def pair_tables(metric: str, patterns: NDArray[np.int64], multiplicity: NDArray) -> FloatArray:
    """Two annotators' studies as ``(..., 2, 2)`` tables ``[[a, b], [c, d]]`` (category 1
    positive; ``a`` both positive, ``b`` the first annotator only, ``c`` the second only).

    ``psa`` takes count patterns ``(negatives, positives)`` of two labels, which do not say
    who said positive: ``b`` holds the split items ``b + c`` and ``c`` is 0, which changes
    no PSA interval (each depends on ``a`` and ``b + c`` alone). ``kappa`` takes the ordered
    label patterns ``(label_A, label_B)``.

    >>> counts = np.array([[2, 0], [1, 1], [0, 2]])   # none, one, both positive
    >>> pair_tables("psa", counts, np.array([900, 60, 40])).tolist()
    [[40.0, 60.0], [0.0, 900.0]]
    """
    p = np.asarray(patterns)
    w = np.asarray(multiplicity, dtype=float)
    two_columns = p.ndim == 2 and p.shape[1] == 2
    labels = p.sum(axis=-1) == 2 if metric == "psa" else (p == 0) | (p == 1)
    if not (two_columns and bool(np.all(labels))):
        raise InvalidInput(
            f"the pair's {metric} intervals need two annotators over two categories",
            parameter="method",
        )
    if metric == "psa":
        first, second = p[:, 1] == 2, p[:, 1] == 1
        third, fourth = np.zeros(len(p), bool), p[:, 1] == 0
    else:
        first, second = (p[:, 0] == 1) & (p[:, 1] == 1), (p[:, 0] == 1) & (p[:, 1] == 0)
        third, fourth = (p[:, 0] == 0) & (p[:, 1] == 1), (p[:, 0] == 0) & (p[:, 1] == 0)
    cells = [w[..., mask].sum(axis=-1) for mask in (first, second, third, fourth)]
    return np.stack(cells, axis=-1).reshape(*w.shape[:-1], 2, 2)


def _pair_intervals(
    metric: str,
    patterns: NDArray[np.int64],
    multiplicity: NDArray,
    confidence_level: float,
    method: str,
    rng: np.random.Generator | None,
) -> StudyIntervals:
    """PSA or Cohen's kappa of two annotators by one of the pair's ``method``."""
    if metric not in PAIR_METHODS:
        raise InvalidInput(
            f"method {method!r} is a pair's interval, for psa or kappa; {metric} takes none",
            parameter="method",
        )
    if method not in PAIR_METHODS[metric]:
        raise InvalidInput(
            f"method must be one of {', '.join(PAIR_METHODS[metric])} for the pair's {metric} "
            f"interval, got {method!r}",
            parameter="method",
        )
    tables = pair_tables(metric, patterns, multiplicity)
    interval = psa_interval if metric == "psa" else kappa_interval
    estimate = positive_agreement if metric == "psa" else cohen_kappa
    ci = interval(tables, confidence_level, method, n_boot=SIMULATED_BOOTSTRAP_RESAMPLES, rng=rng)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.asarray(estimate(tables), dtype=float)
    return StudyIntervals(est, np.asarray(ci.low, float), np.asarray(ci.high, float))


def _pattern_order(patterns: NDArray[np.int64], sparse: mr.Patterns) -> NDArray[np.int64]:
    """Index into ``patterns`` of each of ``sparse``'s patterns (both hold distinct rows)."""
    dense = sparse.dense()
    lookup = {tuple(row): i for i, row in enumerate(np.asarray(patterns, dtype=float))}
    return np.array([lookup[tuple(row)] for row in dense], dtype=np.int64)


def pattern_space(
    model: AnyRatersModel | PairModel, metric: str, per_item: int | None = None
) -> tuple[NDArray[np.int64], FloatArray]:
    """The patterns a metric needs and their probabilities under ``model``.

    Count patterns ``(P, K)`` for fleiss, alpha and psa (``per_item``: ``k`` of ``M`` at
    random); ordered label patterns ``(P, M)`` of positive probability for conger and kappa.
    """
    if metric not in ORDERED_METRICS:
        return model.count_patterns(per_item)
    probs = model.ordered_probabilities().ravel()
    labels = np.array(list(itertools.product(range(model.n_categories), repeat=model.n_annotators)))
    keep = probs > 0
    return labels[keep], probs[keep] / probs[keep].sum()


def true_value(
    metric: str,
    patterns: NDArray[np.int64],
    probabilities: NDArray,
    level: str = "nominal",
    n_categories: int = 2,
) -> float:
    """The coefficient the model implies (the estimator at expected counts of a huge study)."""
    ci = study_intervals(
        metric, patterns, probabilities * 1e9, level=level, n_categories=n_categories
    )
    return float(ci.estimate)


def expected_half_width(
    metric: str,
    patterns: NDArray[np.int64],
    probabilities: NDArray,
    n_items: float,
    *,
    level: str = "nominal",
    confidence_level: float = 0.95,
    n_categories: int = 2,
) -> float:
    """Plug-in half-width at the expected counts of a study of ``n_items`` items."""
    ci = study_intervals(
        metric,
        patterns,
        probabilities * n_items,
        level=level,
        confidence_level=confidence_level,
        n_categories=n_categories,
    )
    return float(ci.half_width)


#: the rule of the error raised when a metric's plug-in interval says nothing under a model
UNDEFINED_RULE = "a metric with an interval of positive width under the model"


def plug_in_items(
    metric: str,
    patterns: NDArray[np.int64],
    probabilities: NDArray,
    width: float,
    **options: Any,
) -> int:
    """The plug-in size: the half-width at expected counts shrinks as ``1 / sqrt(n)``.

    ``options`` are :func:`expected_half_width`'s (``level``, ``confidence_level``,
    ``n_categories``). Raises :class:`InvalidInput` naming ``metric`` (rule
    :data:`UNDEFINED_RULE`) when the coefficient is undefined under the model (no agreement
    to measure) or its interval has no width at any size (the annotators never disagree).
    """
    ref = 10_000.0
    hw_ref = expected_half_width(metric, patterns, probabilities, ref, **options)
    if not np.isfinite(hw_ref):
        why = f"{metric} is undefined under this model (no agreement to measure)"
    elif hw_ref <= 0:
        why = (
            f"{metric} has an interval of zero width under this model at any size (the "
            "annotators never disagree), so there is no width to plan for"
        )
    else:
        return int(np.ceil(ref * (hw_ref / width) ** 2))
    raise InvalidInput(
        f"{why}: change prevalence, error_rate or confusion",
        parameter="metric",
        rule=UNDEFINED_RULE,
        value=metric,
    )
