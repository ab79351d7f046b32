"""Sample-size search for several annotators: Fleiss, alpha, PSA, Conger, mean pairwise kappa.

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

The search is the pairs' (:mod:`planner.sizing.search`): an analytic start (the plug-in
half-width at the model's expected counts, which shrinks as ``1 / sqrt(n)``), a Monte
Carlo assurance on nested studies (common random numbers across ``n``), bracketing and
bisection. A second, refining search starts from that answer on :data:`REFINE_FACTOR` times
as many new nested studies and asks their assurance to reach the target plus one Monte
Carlo SE of the fresh check (:data:`MARGIN_SE`), so that the fresh check meets the target
within its own Monte Carlo error rather than sitting an SE or two under it (the smallest
``n`` whose noisy assurance first reaches the target has a true assurance at or below it
about half the time). The reported assurance and the interval's coverage of the model's
true value come from fresh studies neither search saw.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from planner.errors import InvalidInput
from planner.sizing.exact import reaches_width, usable_half_width
from planner.sizing.model import PairModel
from planner.sizing.raters_common import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.raters_model import RatersModel
from planner.sizing.sample_size_search import Evaluations, first_crossing
from planner.sizing.search import unreachable_error
from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts
from planner.statistics import multirater as mr
from planner.statistics.alpha_variance import LINEARISED_LEVELS, alpha_linearised
from planner.statistics.intervals import normal_quantile
from planner.statistics.ordered_kappas import conger_patterns, mean_pairwise_kappa_patterns
from planner.validation import RULES, check, check_choice, seed_from

RATER_METRICS = ("fleiss", "alpha", "psa", "conger", "kappa")
ORDERED_METRICS = ("conger", "kappa")
#: Most ``studies x patterns`` cells evaluated at once (larger batches are split by studies)
CHUNK_CELLS = 2_000_000
#: The refining search near the answer uses this many times ``n_reps`` studies ...
REFINE_FACTOR = 4
#: ... as long as they hold at most this many ``studies x patterns`` cells
REFINE_CELLS = 1_000_000
#: The refined assurance must reach the target plus this many MC SEs of the fresh check
MARGIN_SE = 1.0
INTERVAL_METHODS = {
    "fleiss": "Gwet (2021) linearised variance, t interval",
    "psa": "linearised ratio variance, Wald on the logit scale",
    "alpha": "Wald with the linearised (infinitesimal-jackknife) SE",
    "conger": "Gwet's linearised variance, t interval",
    "kappa": "pair-averaged linearised variance, t interval",
}
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
    """
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
    w = w.astype(float)
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


@dataclass(frozen=True)
class RatersSampleSize:
    """The planned number of items for one multi-rater metric, with its evidence.

    Attributes
    ----------
    metric, method, level
        The coefficient, its interval, and alpha's level.
    n_annotators, labels_per_item
        The pool of annotators and how many label each item (``k`` of ``M``).
    items
        Smallest ``n`` whose Monte Carlo assurance on the refining search's nested
        studies reaches ``assurance_goal`` (the target plus one SE of the fresh check).
    assurance, assurance_mc_se
        ``P(half-width <= width)`` at ``items`` on ``n_reps`` fresh studies, and its MC SE.
    coverage, coverage_mc_se
        Share of the fresh studies whose interval holds the model's true value.
    true_value
        The coefficient the model implies.
    half_width_median, half_width_at_assurance
        Over the fresh studies.
    analytic_items
        The plug-in start of the search (expected counts, half-width ``~ 1 / sqrt(n)``).
    n_reps, n_undefined, seed
        Replicates per size; fresh studies with an undefined interval; the seed used.
    curve
        ``(n, assurance)`` pairs the refining search evaluated (on ``search_reps`` studies).
    search_reps, assurance_goal
        Studies of the refining search, and the assurance it asked of them: the target
        plus one Monte Carlo SE of the fresh check, so that the fresh check meets the
        target within its own Monte Carlo error (docs/methods/sizing-several-annotators.md section
        11).
    """

    metric: str
    method: str
    level: str
    n_annotators: int
    labels_per_item: int
    width: float
    confidence_level: float
    target_assurance: float
    items: int
    assurance: float
    assurance_mc_se: float
    coverage: float
    coverage_mc_se: float
    true_value: float
    half_width_median: float
    half_width_at_assurance: float
    analytic_items: int
    n_reps: int
    n_undefined: int
    seed: int
    curve: list[tuple[int, float]] = field(default_factory=list)
    search_reps: int = 0
    assurance_goal: float = float("nan")

    @property
    def under_covers(self) -> bool:
        """Coverage more than 3 Monte Carlo SEs below the confidence level."""
        return self.coverage < self.confidence_level - 3 * max(self.coverage_mc_se, 1e-3)


def _check_request(
    model: AnyRatersModel | PairModel, metric: str, level: str, per_item: int | None
) -> tuple[str, str, int]:
    if not isinstance(model, RatersModel | CommonPrevalenceModel | PairModel):
        raise InvalidInput(
            "model must be a RatersModel, CommonPrevalenceModel or PairModel, got "
            f"{type(model).__name__}",
            parameter="model",
        )
    metric = check_choice("metric", metric, RATER_METRICS)
    level = check_choice("level", level, LINEARISED_LEVELS)
    if metric == "psa" and model.n_categories != 2:
        raise InvalidInput(
            f"metric psa needs two categories (positive, negative), got {model.n_categories}; "
            "use fleiss or alpha",
            parameter="metric",
        )
    m = model.n_annotators
    k = m if per_item is None else check("per_item", per_item, RULES["per_item"])
    if per_item is not None and metric in ORDERED_METRICS:
        raise InvalidInput(
            f"metric {metric} needs every annotator on every item; with per_item use "
            "alpha, fleiss or psa",
            parameter="metric",
        )
    if k > m or (per_item is not None and k == m):
        raise InvalidInput(
            f"per_item must be less than the {m} annotators of the pool, got {k}",
            parameter="per_item",
        )
    return metric, level, k


def _analytic_start(
    metric: str, patterns: NDArray[np.int64], probs: FloatArray, width: float, opts: dict
) -> int:
    """The plug-in start: the half-width at expected counts shrinks as ``1 / sqrt(n)``."""
    ref = 10_000.0
    hw_ref = expected_half_width(metric, patterns, probs, ref, **opts)
    if not np.isfinite(hw_ref) or hw_ref <= 0:
        raise InvalidInput(
            f"{metric} is undefined under this model (no agreement to measure): change "
            "prevalence, error_rate or confusion",
            parameter="metric",
        )
    return int(np.ceil(ref * (hw_ref / width) ** 2))


class _AssuranceSearch:
    """The Monte Carlo assurance of ``n_reps`` nested studies, and the smallest ``n``
    whose assurance reaches a goal (:func:`~planner.sizing.sample_size_search.first_crossing`
    with steps from a share of the start)."""

    def __init__(
        self,
        metric: str,
        patterns: NDArray[np.int64],
        probs: FloatArray,
        width: float,
        opts: dict,
        n_reps: int,
        rng: np.random.Generator,
    ) -> None:
        self.metric, self.patterns, self.width, self.opts = metric, patterns, width, opts
        self.studies = NestedPatternStudies(probs, n_reps, rng=rng)
        self.share = Evaluations(self._share)

    @property
    def evaluated(self) -> dict[int, float]:
        return self.share.evaluated

    def _share(self, n: int) -> float:
        ci = study_intervals(self.metric, self.patterns, self.studies.counts(n), **self.opts)
        return float(np.mean(reaches_width(ci.half_width, self.width)))

    def smallest(
        self, goal: float, start: int, max_items: int, step_share: float, target: float
    ) -> int:
        """Smallest ``n`` with assurance ``>= goal``; ``target`` is the user's, for errors."""
        found = first_crossing(self.share, goal, start, max_items, step_share=step_share)
        if not found.reached:
            raise unreachable_error(self.metric, self.width, target, max_items, found.value)
        return found.n


def find_raters_sample_size(
    model: AnyRatersModel | PairModel,
    metric: str = "fleiss",
    width: float = 0.1,
    *,
    level: str = "nominal",
    per_item: int | None = None,
    confidence_level: float = 0.95,
    assurance: float = 0.5,
    n_reps: int = 2000,
    max_items: int = 10_000_000,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RatersSampleSize:
    """Smallest number of items whose interval reaches ``width`` with ``assurance``.

    Parameters
    ----------
    model
        The annotators (:func:`planner.sizing.raters_model.raters_model`), kappaSize's
        common-prevalence model
        (:func:`planner.sizing.raters_common.common_prevalence_model`), or a pair
        (:class:`planner.sizing.model.PairModel`: the same model with M = 2).
    metric, width
        ``"fleiss"``, ``"alpha"``, ``"psa"``, ``"conger"`` or ``"kappa"``; target half-width.
    level
        Krippendorff's level for alpha: ``nominal``, ``ordinal`` or ``interval``.
    per_item
        ``k < M``: each item labelled by ``k`` annotators drawn at random from the pool.
    confidence_level, assurance, n_reps, max_items
        As :func:`planner.sizing.search.find_sample_size`.
    rng, progress
        Generator or seed (the integer seed used is recorded); ``progress(1, 2)`` after the
        search, ``progress(2, 2)`` after the check on fresh studies.

    Raises
    ------
    InvalidInput
        An argument outside its range, named as the parameter.
    TargetUnreachable
        When ``max_items`` items do not reach the target."""
    metric, level, k = _check_request(model, metric, level, per_item)
    width, confidence_level, assurance, n_reps, max_items = (
        check(name, value, RULES[name])
        for name, value in (("width", width), ("confidence_level", confidence_level),
                            ("assurance", assurance), ("n_reps", n_reps), ("max_items", max_items))
    )  # fmt: skip
    seed = seed_from(rng)
    study_rng, refine_rng, check_rng = np.random.default_rng(seed).spawn(3)
    patterns, probs = pattern_space(model, metric, None if k == model.n_annotators else k)
    opts = dict(level=level, confidence_level=confidence_level, n_categories=model.n_categories)
    start = _analytic_start(metric, patterns, probs, width, opts)
    items, evaluated, reps, goal = _two_stage_search(
        metric, patterns, probs, (width, assurance, max_items), start, opts, n_reps,
        (study_rng, refine_rng),
    )  # fmt: skip
    step = progress or (lambda done, total: None)
    step(1, 2)
    fresh = simulate_pattern_counts(probs, items, n_reps, rng=check_rng)
    ci = study_intervals(metric, patterns, fresh, **opts)  # type: ignore[arg-type]
    step(2, 2)
    truth = true_value(metric, patterns, probs, level, model.n_categories)
    return RatersSampleSize(
        metric=metric,
        method=INTERVAL_METHODS[metric],
        level=level,
        n_annotators=model.n_annotators,
        labels_per_item=k,
        width=width,
        confidence_level=confidence_level,
        target_assurance=assurance,
        items=items,
        **_fresh_check(ci, truth, width, assurance, n_reps),
        analytic_items=start,
        n_reps=n_reps,
        seed=seed,
        curve=sorted(evaluated.items()),
        search_reps=reps,
        assurance_goal=goal,
    )


def _two_stage_search(
    metric: str,
    patterns: NDArray[np.int64],
    probs: FloatArray,
    target: tuple[float, float, int],
    start: int,
    opts: dict,
    n_reps: int,
    rngs: tuple[np.random.Generator, np.random.Generator],
) -> tuple[int, dict[int, float], int, float]:
    """A rough search on ``n_reps`` nested studies, then a refined one near its answer with
    more studies and a goal one fresh-check SE above the target assurance.

    Returns the items, the refined search's evaluated assurances, its studies and goal."""
    width, assurance, max_items = target
    first = _AssuranceSearch(metric, patterns, probs, width, opts, n_reps, rngs[0])
    rough = first.smallest(assurance, start, max_items, 0.02, assurance)
    reps = max(n_reps, min(REFINE_FACTOR * n_reps, REFINE_CELLS // max(len(probs), 1)))
    goal = min(assurance + MARGIN_SE * float(np.sqrt(assurance * (1 - assurance) / n_reps)), 1.0)
    refined = _AssuranceSearch(metric, patterns, probs, width, opts, reps, rngs[1])
    items = refined.smallest(goal, rough, max_items, 0.005, assurance)
    return items, refined.evaluated, reps, goal


def _fresh_check(
    ci: StudyIntervals, truth: float, width: float, assurance: float, n_reps: int
) -> dict[str, Any]:
    """Assurance, coverage and half-width quantiles of fresh studies of the found size."""
    hw = usable_half_width(ci.half_width)
    finite = hw[np.isfinite(hw)]
    reached = float(np.mean(reaches_width(ci.half_width, width)))
    covered = float(np.mean((ci.low <= truth) & (truth <= ci.high)))
    return {
        "assurance": reached,
        "assurance_mc_se": float(np.sqrt(reached * (1 - reached) / n_reps)),
        "coverage": covered,
        "coverage_mc_se": float(np.sqrt(covered * (1 - covered) / n_reps)),
        "true_value": truth,
        "half_width_median": float(np.quantile(finite, 0.5)) if finite.size else float("nan"),
        "half_width_at_assurance": (
            float(np.quantile(finite, assurance)) if finite.size else float("nan")
        ),
        "n_undefined": int((~np.isfinite(ci.half_width)).sum()),
    }
