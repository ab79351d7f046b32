"""Sample-size search: the smallest number of items whose interval is narrow enough.

For a metric and an interval method, the *assurance* at ``n`` items is
``P(half-width <= width)`` over studies of ``n`` items (Kupper & Hafner 1989; with
assurance 0.5 this is the median half-width, about the classic expected-width rule).
:func:`find_sample_size` is the one search, for a pair and for M annotators, configured by
one :class:`SearchSettings`:

1. it starts from an analytic size: the delta method (the pair's PSA), Fleiss-Cohen-Everitt
   (the pair's kappa) or the plug-in half-width at the model's expected counts, which shrinks
   as ``1 / sqrt(n)`` (M annotators, :func:`planner.sizing.study_intervals.plug_in_items`);
2. it brackets the answer and bisects on integers
   (:func:`planner.sizing.sample_size_search.first_crossing`: the assurance is monotone in
   ``n``) on the criterion that fits the question:

   * **exact** for the pair's PSA with an interval whose half-width depends only on
     ``(a, U)`` (the conditional binomial intervals and Wald): binomial sums
     (:mod:`planner.sizing.exact`), Monte Carlo on fresh studies being the independent check;
   * **Monte Carlo on nested 2x2 tables** for the pair's other intervals
     (:class:`~planner.sizing.studies.NestedStudies`, common random numbers across ``n``);
   * **Monte Carlo on nested label-pattern counts** for M annotators
     (:class:`~planner.sizing.studies.NestedPatternStudies`; the intervals of
     :mod:`planner.sizing.study_intervals`), in two stages
     (:func:`~planner.sizing.search_criteria.two_stage_search`): a rough search on
     ``replicates`` studies, then a refining one from its answer on four times as many new
     nested studies whose assurance must reach the target plus one Monte Carlo SE of the
     fresh check, so that the fresh check meets the target within its own Monte Carlo error
     rather than sitting an SE or two under it.

A two-annotator, two-category model with every annotator on every item, sized for PSA or
kappa, is the pair (:meth:`~planner.sizing.annotator_model.RatersModel.pair`) and gets the
pair's exact answer. A study whose interval is undefined or of zero width counts as not
narrow enough (:func:`~planner.sizing.exact.reaches_width`). The reported assurance, the
interval's coverage and the half-width's quantiles come from fresh studies the search never
saw (:mod:`planner.sizing.search_checks`).

References
----------
Kupper LL, Hafner KB (1989) How appropriate are popular sample size formulas?
    Am Stat 43:101-105.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from planner.errors import InvalidInput
from planner.renamed import renamed_field
from planner.sizing.annotator_model import RatersModel, check_per_item
from planner.sizing.common_prevalence_model import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.exact import EXACT_PSA_METHODS, ExactPSAAssurance
from planner.sizing.interval_coverage import falls_short, under_coverage_note
from planner.sizing.model import PairModel
from planner.sizing.sample_size_search import first_crossing, unreachable_error
from planner.sizing.search_checks import pair_evidence, pattern_evidence
from planner.sizing.search_criteria import (
    DEFAULT_METHOD,
    METRICS,
    analytic_items,
    check_pair_model,
    interval_function,
    tables_crossing,
    two_stage_search,
)
from planner.statistics.intervals import KAPPA_METHODS, PSA_METHODS, SIMULATED_BOOTSTRAP_RESAMPLES
from planner.validation import (
    RULES,
    RngLike,
    as_generator,
    check,
    check_choice,
    check_instance,
    seed_from,
)

#: every metric of the search; fleiss, alpha and conger only for M annotators (M >= 2)
SEARCH_METRICS = ("psa", "kappa", "fleiss", "alpha", "conger")
#: the levels of Krippendorff's alpha (:data:`planner.statistics.alpha_variance.LINEARISED_LEVELS`)
LEVELS = ("nominal", "ordinal", "interval")


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class SearchSettings:
    """What :func:`find_sample_size` searches for, and its effort.

    Every value is checked on construction by its rule in :data:`planner.validation.RULES`;
    :class:`~planner.errors.InvalidInput` names the parameter.

    >>> SearchSettings(width=0.05).replicates_for(several=True)
    2000

    Attributes
    ----------
    metric
        ``"psa"`` (the pair's PSA; for M annotators Uebersax's specific positive agreement,
        the same quantity at M = 2) or ``"kappa"`` (Cohen's kappa; for M annotators the mean
        pairwise kappa), or for M annotators ``"fleiss"``, ``"alpha"``, ``"conger"``.
    width
        Target half-width, ``(upper - lower) / 2``, in [0.001, 1).
    confidence_level
        Level of each study's interval.
    assurance
        Required probability that a study reaches ``width``; 0.5 is the median rule.
    method
        The pair's interval method: None for the recommended one (:data:`DEFAULT_METHOD`:
        Wilson for PSA, the score interval for Cohen's kappa). M annotators have one interval
        per metric (:data:`planner.sizing.study_intervals.INTERVAL_METHODS`): leave None.
    level
        Krippendorff's level for alpha: ``nominal``, ``ordinal`` or ``interval``.
    per_item
        ``k < M``: each item labelled by ``k`` annotators drawn at random from the pool
        (alpha, fleiss or psa); None: every annotator labels every item.
    replicates
        Simulated studies per evaluated ``n``, and in the independent check. None:
        :attr:`PAIR_REPS` (4,000) for the pair, :attr:`SEVERAL_REPS` (2,000) for M
        annotators, whose search runs a second, refining stage on up to four times as many
        studies (:data:`~planner.sizing.search_criteria.REFINE_FACTOR`), each holding up to
        ``K^M`` label patterns, so that the same effort costs it several times the pair's.
    max_items
        Largest ``n`` searched; beyond it the target is unreachable.
    n_boot
        Bootstrap resamples, when the pair's ``method="bootstrap"``.
    """

    metric: str = "psa"
    width: float = 0.08
    confidence_level: float = 0.95
    assurance: float = 0.5
    method: str | None = None
    level: str = "nominal"
    per_item: int | None = None
    replicates: int | None = None
    max_items: int = 10_000_000
    n_boot: int = SIMULATED_BOOTSTRAP_RESAMPLES

    #: replicate studies of a pair's search when ``replicates`` is None
    PAIR_REPS: ClassVar[int] = 4000
    #: ... and of a search for M annotators (two stages, up to ``K^M`` patterns a study)
    SEVERAL_REPS: ClassVar[int] = 2000

    def __post_init__(self) -> None:
        metric = check_choice("metric", self.metric, SEARCH_METRICS)
        for name in ("width", "confidence_level", "assurance", "max_items", "n_boot"):
            object.__setattr__(self, name, check(name, getattr(self, name), RULES[name]))
        for name in ("replicates", "per_item"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check(name, getattr(self, name), RULES[name]))
        check_choice("level", self.level, LEVELS)
        if self.method is not None:
            if metric not in METRICS:
                raise InvalidInput(
                    f"method is the pair's interval for psa or kappa; {metric} has one "
                    "interval (leave method None)",
                    parameter="method",
                )
            check_choice("method", self.method, PSA_METHODS if metric == "psa" else KAPPA_METHODS)
        if self.per_item is not None and metric in ("conger", "kappa"):
            raise InvalidInput(
                f"metric {metric} needs every annotator on every item; with per_item use "
                "alpha, fleiss or psa",
                parameter="metric",
            )

    def replicates_for(self, several: bool) -> int:
        """``replicates``, or its default for a pair (``several`` False) or M annotators."""
        if self.replicates is not None:
            return self.replicates
        return self.SEVERAL_REPS if several else self.PAIR_REPS


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class SampleSizeResult:
    """The planned number of items for one metric, with its evidence.

    The same result for a pair and for M annotators; fields that only one of them has are
    noted (:data:`PAIR_ONLY_FIELDS`, :data:`SEVERAL_ONLY_FIELDS`).

    Attributes
    ----------
    metric, method
        The metric, and the interval method: the pair's method name (``"wilson"``), or for
        M annotators the description of the metric's one interval.
    width, confidence_level, target_assurance
        The target.
    items
        Smallest ``n`` whose assurance reaches the target: exact (binomial sums) when
        ``basis == "exact"``; else the Monte Carlo crossing on nested studies (for M
        annotators the refining search's, whose goal is ``assurance_goal``).
    union_positives
        The pair's expected union positives at ``items``, ``items * union_rate`` (NaN for
        M annotators).
    assurance, assurance_mc_se
        Monte Carlo estimate of ``P(half-width <= width)`` at ``items`` from ``replicates``
        fresh studies that the search never saw (so it is not biased by the selection), and
        its Monte Carlo standard error, ``sqrt(A (1 - A) / replicates)``.
    items_mc_se
        The pair's Monte Carlo uncertainty of ``items``: 0 for an exact answer; else the
        search's assurance SE divided by the slope of the assurance curve around ``items``
        (NaN when the slope is 0, and for M annotators).
    exact_assurance, exact_items, exact_coverage
        For the pair's PSA with a method in :data:`EXACT_PSA_METHODS` (else None): the exact
        assurance at ``items``, the exact ``n`` (equal to ``items``) and the interval's exact
        coverage there (:func:`planner.sizing.exact.exact_psa_coverage`; None beyond about
        30,000 union positives, where only the Monte Carlo ``coverage`` is known).
    half_width_median, half_width_at_assurance
        Median and ``assurance``-quantile of the half-width: exact when ``basis ==
        "exact"``, else over the fresh studies.
    interval_median
        Medians of the lower and of the upper limits over the fresh studies.
    replicates, n_undefined
        Replicate studies, and how many of the fresh ones had an undefined interval.
    curve
        ``(n, assurance)`` pairs the search evaluated (exact or simulated; for M annotators
        the refining search's, on ``search_reps`` studies), sorted by ``n``.
    basis
        ``"exact"`` or ``"monte-carlo"``: what ``items`` rests on.
    coverage, coverage_mc_se
        Share of the fresh studies whose interval covers the model's true value of the
        quantity the method estimates (the pair's ``gof`` interval: the intraclass kappa),
        an undefined interval counting as a miss, and its Monte Carlo SE.
    level, n_annotators, labels_per_item
        Alpha's level; the pool of annotators and how many label each item (2 and 2 for
        the pair).
    true_value
        The coefficient the model implies.
    analytic_items
        The search's analytic start.
    seed
        The seed used: for M annotators always; for the pair the integer ``rng`` given, None
        for a generator (used as given). Provenance, not part of the answer: two results
        that differ only in it compare equal.
    search_reps, assurance_goal
        Studies of the (refining) search, 0 for an exact one, and the assurance it asked of
        them: the target for the pair; for M annotators the target plus one Monte Carlo SE
        of the fresh check (docs/methods/sizing-several-annotators.md section 11).
    """

    metric: str
    method: str
    width: float
    confidence_level: float
    target_assurance: float
    items: int
    union_positives: float
    assurance: float
    assurance_mc_se: float
    items_mc_se: float
    exact_assurance: float | None
    exact_items: int | None
    half_width_median: float
    half_width_at_assurance: float
    interval_median: tuple[float, float]
    replicates: int
    n_undefined: int
    curve: list[tuple[int, float]] = field(default_factory=list)
    basis: str = "monte-carlo"
    coverage: float = float("nan")
    coverage_mc_se: float = float("nan")
    level: str = "nominal"
    n_annotators: int = 2
    labels_per_item: int = 2
    true_value: float = float("nan")
    analytic_items: int = 0
    seed: int | None = field(default=None, compare=False)
    search_reps: int = 0
    assurance_goal: float = float("nan")
    exact_coverage: float | None = None

    @property
    def share_undefined(self) -> float:
        """Share of the fresh studies with no interval (``n_undefined / replicates``)."""
        return self.n_undefined / self.replicates if self.replicates else float("nan")

    @property
    def by_pair_search(self) -> bool:
        """Whether the pair's search answered (its union positives are known; NaN for M
        annotators)."""
        return not np.isnan(self.union_positives)

    @property
    def under_covers(self) -> bool:
        """Whether the interval under-covers at ``items``: by its exact coverage where known,
        else by the fresh studies' (:func:`planner.sizing.interval_coverage.falls_short`)."""
        if self.exact_coverage is not None:
            return falls_short(self.exact_coverage, None, self.confidence_level)
        return falls_short(self.coverage, self.coverage_mc_se, self.confidence_level)


#: fields of :class:`SampleSizeResult` that only the pair's search fills
PAIR_ONLY_FIELDS = (
    "union_positives", "items_mc_se", "exact_assurance", "exact_items", "interval_median", "basis",
    "exact_coverage",
)  # fmt: skip
#: fields that only the search for M annotators fills
SEVERAL_ONLY_FIELDS = (
    "level", "n_annotators", "labels_per_item", "true_value", "analytic_items", "seed",
    "search_reps", "assurance_goal",
)  # fmt: skip


def find_sample_size(
    model: PairModel | AnyRatersModel,
    settings: SearchSettings = SearchSettings(),
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> SampleSizeResult:
    """Smallest number of items with ``P(half-width <= width) >= assurance``.

    For the pair's PSA with a method in :data:`EXACT_PSA_METHODS` the answer is exact
    (binomial sums, :func:`~planner.sizing.exact.exact_psa_assurance`) and Monte Carlo is
    only its independent check; else the answer is the Monte Carlo crossing on nested
    studies (2x2 tables for the pair, label-pattern counts for M annotators). Either way
    the reported assurance comes from a fresh set of ``replicates`` studies the search never
    saw, and a zero-width or undefined interval never counts as narrow.

    Parameters
    ----------
    model
        The annotator pair (:class:`~planner.sizing.model.PairModel`), the annotators
        (:func:`planner.sizing.annotator_model.raters_model`) or kappaSize's
        common-prevalence model
        (:func:`planner.sizing.common_prevalence_model.common_prevalence_model`).
        Two annotators over two categories with every one on every item, sized for PSA or
        kappa, are the pair.
    settings
        The target and the effort (:class:`SearchSettings`).
    rng
        Anything :func:`numpy.random.default_rng` takes: for the pair a generator is used
        (and advanced) as given; for M annotators the integer seed used is recorded
        (``seed``; for the pair only an integer ``rng``). A seed reproduces the search;
        None draws fresh entropy (never a fixed seed).
    progress
        Called as ``progress(1, 2)`` when the search has found its ``n`` and ``progress(2, 2)``
        after the independent check (the search's steps are not known in advance).

    Raises
    ------
    InvalidInput
        An argument outside its range (:data:`planner.validation.RULES`), or a setting the
        model does not allow (psa for more than two categories, ``per_item`` not below the
        pool), named as the parameter.
    TargetUnreachable
        When even ``max_items`` items do not reach the target; the message names
        ``width``, ``assurance`` and ``max_items`` (the CLI, their flags).
    """
    check_instance("settings", settings, SearchSettings, "a SearchSettings")
    if _is_pair(model, settings):
        return _pair_search(check_pair_model(model), settings, rng, progress)
    return _several_search(_check_several(model, settings), settings, rng, progress)


def _is_pair(model: Any, settings: SearchSettings) -> bool:
    """Whether the pair's search answers: psa or kappa for a pair model, or for two
    annotators over two categories with every one on every item."""
    if settings.metric not in METRICS or settings.per_item is not None:
        return False
    if isinstance(model, RatersModel | CommonPrevalenceModel):
        return (model.n_annotators, model.n_categories) == (2, 2)
    return True  # a PairModel, or anything else, refused in the pair's words


def _pair_search(
    model: PairModel,
    settings: SearchSettings,
    rng: RngLike,
    progress: Callable[[int, int], None] | None,
) -> SampleSizeResult:
    """The pair's search (exact or on nested tables) and its check on fresh tables."""
    metric = settings.metric
    target = replace(
        settings,
        method=DEFAULT_METHOD[metric] if settings.method is None else settings.method,
        replicates=settings.replicates_for(several=False),
    )
    interval_rng, study_rng, check_rng = as_generator(rng).spawn(3)
    interval = interval_function(
        metric, str(target.method), target.confidence_level, n_boot=target.n_boot, rng=interval_rng
    )
    start = analytic_items(model, metric, target.width, target.confidence_level)
    start = int(np.ceil(start)) if np.isfinite(start) and start > 0 else 100
    if metric == "psa" and target.method in EXACT_PSA_METHODS:
        found = first_crossing(
            ExactPSAAssurance(model, target.width, target.confidence_level, target.method),
            target.assurance, start, target.max_items, step_share=0.02,
        )  # fmt: skip
        items_se, exact, curve = 0.0, found.value, list(found.curve)
    else:
        found, items_se, curve = tables_crossing(model, target, interval, start, study_rng)
        exact = None
    if not found.reached:
        raise unreachable_error(
            metric, target.width, target.assurance, target.max_items, found.value
        )
    if progress is not None:
        progress(1, 2)
    evidence = pair_evidence(model, found.n, target, interval, exact is not None, check_rng)
    if progress is not None:
        progress(2, 2)
    return SampleSizeResult(
        metric=metric,
        method=str(target.method),
        width=target.width,
        confidence_level=target.confidence_level,
        target_assurance=target.assurance,
        items=found.n,
        union_positives=found.n * model.union_rate,
        items_mc_se=float(items_se),
        exact_assurance=exact,
        exact_items=found.n if exact is not None else None,
        replicates=target.replicates_for(several=False),
        curve=curve,
        basis="exact" if exact is not None else "monte-carlo",
        analytic_items=start,
        seed=int(rng) if isinstance(rng, int | np.integer) and not isinstance(rng, bool) else None,
        search_reps=0 if exact is not None else target.replicates_for(several=False),
        assurance_goal=target.assurance,
        **evidence,
    )


def _check_several(model: Any, settings: SearchSettings) -> PairModel | AnyRatersModel:
    """The model of M annotators, checked against the settings it is sized with."""
    if not isinstance(model, RatersModel | CommonPrevalenceModel | PairModel):
        raise InvalidInput(
            "model must be a PairModel, RatersModel or CommonPrevalenceModel, got "
            f"{type(model).__name__}",
            parameter="model",
        )
    if settings.metric == "psa" and model.n_categories != 2:
        raise InvalidInput(
            f"metric psa needs two categories (positive, negative), got {model.n_categories}; "
            "use fleiss or alpha",
            parameter="metric",
        )
    if settings.method is not None:
        raise InvalidInput(
            f"method is the pair's interval; several annotators have one interval for "
            f"{settings.metric} (leave method None)",
            parameter="method",
        )
    if settings.per_item is not None:
        check_per_item(settings.per_item, model.n_annotators)
    return model


def _several_search(
    model: PairModel | AnyRatersModel,
    settings: SearchSettings,
    rng: RngLike,
    progress: Callable[[int, int], None] | None,
) -> SampleSizeResult:
    """The two-stage search on nested label-pattern counts of M annotators, and its check
    on fresh studies."""
    # the pattern intervals import scipy: kept off the pair plan's start path
    from planner.sizing.study_intervals import (
        INTERVAL_METHODS,
        pattern_space,
        plug_in_items,
        true_value,
    )

    target = replace(settings, replicates=settings.replicates_for(several=True))
    metric, k = target.metric, target.per_item or model.n_annotators
    seed = seed_from(rng)
    study_rng, refine_rng, check_rng = np.random.default_rng(seed).spawn(3)
    patterns, probs = pattern_space(model, metric, target.per_item)
    opts: dict[str, Any] = {
        "level": target.level,
        "confidence_level": target.confidence_level,
        "n_categories": model.n_categories,
    }
    start = plug_in_items(metric, patterns, probs, target.width, **opts)
    items, curve, reps, goal = two_stage_search(
        patterns, probs, target, start, opts, (study_rng, refine_rng)
    )
    if progress is not None:
        progress(1, 2)
    truth = true_value(metric, patterns, probs, target.level, model.n_categories)
    evidence = pattern_evidence(patterns, probs, items, target, truth, opts, check_rng)
    if progress is not None:
        progress(2, 2)
    return SampleSizeResult(
        metric=metric,
        method=INTERVAL_METHODS[metric],
        width=target.width,
        confidence_level=target.confidence_level,
        target_assurance=target.assurance,
        items=items,
        union_positives=float("nan"),
        items_mc_se=float("nan"),
        exact_assurance=None,
        exact_items=None,
        replicates=target.replicates_for(several=True),
        curve=curve,
        level=target.level,
        n_annotators=model.n_annotators,
        labels_per_item=k,
        analytic_items=start,
        seed=seed,
        search_reps=reps,
        assurance_goal=goal,
        **evidence,
    )


def coverage_shortfall_note(res: SampleSizeResult) -> str | None:
    """A note when the planned interval under-covers (:attr:`SampleSizeResult.under_covers`),
    or some simulated studies have no interval (the pair's kappa plans)."""
    if res.metric == "psa":
        if not (res.by_pair_search and res.under_covers):
            return None
        rate = res.union_positives / res.items  # P(U = 0): no union positives, no interval
        if res.exact_coverage is not None:
            coverage, missing, noise = res.exact_coverage, (1.0 - rate) ** res.items, ""
        else:
            coverage, missing = res.coverage, res.share_undefined
            noise = f" (± {res.coverage_mc_se:.3f} Monte Carlo SE)"
        level = res.confidence_level
        return under_coverage_note(res.items, res.method, "PSA", coverage, level, missing) + noise
    if res.metric != "kappa":
        return None
    short = res.under_covers
    if not short and res.n_undefined == 0:
        return None
    better = ""
    if short and res.method != "profile":
        better = " (agree's default, the profile interval, covers better under strong bias: "
        better += "plan for it with `kappa_method` profile, slower)"
    return (
        f"at {res.items:,} items the {res.method} interval for kappa covered "
        f"{res.coverage:.3f} ± {res.coverage_mc_se:.3f} of simulated studies "
        f"({res.confidence_level:.0%} intended){better}; {res.share_undefined:.1%} had no "
        "interval (an annotator with no positives)"
    )


# the union-positive rules moved to planner.sizing.union_positives; these names stay
# importable from here until every caller imports them from there
_MOVED = (
    "worst_case_union_positives",
    "union_positives_for_assurance",
    "items_for_union_positives",
    "inverse_sampling_items",
)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from planner.sizing import union_positives

        return getattr(union_positives, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
