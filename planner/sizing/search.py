"""Sample-size search: the smallest number of items whose interval is narrow enough.

For a metric (PSA or kappa) and an interval method, the *assurance* at ``n`` items is
``P(half-width <= width)`` over studies of ``n`` items (Kupper & Hafner 1989; with
assurance 0.5 this is the median half-width, about the classic expected-width rule). The
search

1. starts from the delta-method (PSA) or Fleiss-Cohen-Everitt (kappa) sample size,
2. brackets the answer by halving or doubling,
3. bisects on integers (:func:`planner.sizing.sample_size_search.first_crossing`),

evaluating the assurance by Monte Carlo on :class:`~planner.sizing.simulation.NestedStudies`
(common random numbers across ``n``). A study whose interval is undefined or of zero width
counts as not narrow enough (:func:`reaches_width`). For PSA with an interval whose
half-width depends only on ``(a, U)`` (the conditional binomial intervals and Wald) the
assurance is exact (:mod:`planner.sizing.exact`), the search runs on it, and the Monte Carlo
assurance on fresh studies is the independent check.

References
----------
Kupper LL, Hafner KB (1989) How appropriate are popular sample size formulas?
    Am Stat 43:101-105.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing.exact import (
    EXACT_PSA_METHODS,
    ExactPSAAssurance,
    exact_half_width_quantiles,
    reaches_width,
    usable_half_width,
)
from planner.sizing.exact import exact_psa_assurance as exact_psa_assurance  # kept public here
from planner.sizing.model import PairModel
from planner.sizing.sample_size_search import (
    Evaluations,
    crossing_standard_error,
    first_crossing,
)
from planner.sizing.sample_size_search import (  # kept importable from here
    smallest_passing as smallest_passing,
)
from planner.sizing.sample_size_search import (
    smallest_passing_near as smallest_passing_near,
)
from planner.sizing.simulation import NestedStudies, simulate_tables
from planner.statistics.intervals import (
    KAPPA_METHODS,
    PSA_METHODS,
    ConfidenceInterval,
    kappa_interval,
    kappa_standard_error,
    normal_quantile,
    psa_interval,
)
from planner.validation import RULES, RngLike, as_generator, check, check_choice, check_text

METRICS = ("psa", "kappa")
DEFAULT_METHOD = {"psa": "wilson", "kappa": "score"}
WORST_CASE_JACCARD = (5.0 - np.sqrt(17.0)) / 4.0  # argmax of 4J(1-J)/(1+J)^4


@dataclass(frozen=True)
class SampleSizeResult:
    """The planned number of items for one metric, with its evidence.

    Attributes
    ----------
    metric, method
        ``"psa"`` or ``"kappa"``, and the interval method.
    items
        Smallest ``n`` whose assurance reaches the target: exact (binomial sums) when
        ``basis == "exact"``, else the Monte Carlo crossing on nested studies.
    union_positives
        Expected union positives at ``items``, ``items * union_rate``.
    assurance
        Monte Carlo estimate of ``P(half-width <= width)`` at ``items`` from ``n_reps``
        fresh studies that the search never saw (so it is not biased by the selection).
    assurance_mc_se
        Its Monte Carlo standard error, ``sqrt(A (1 - A) / n_reps)``.
    items_mc_se
        Monte Carlo uncertainty of ``items``: 0 for an exact answer; else the search's
        assurance SE divided by the slope of the assurance curve around ``items`` (NaN when
        the slope is 0).
    exact_assurance, exact_items
        For PSA with a method in :data:`EXACT_PSA_METHODS` (else None): the exact assurance
        at ``items``, and the exact ``n`` (equal to ``items``).
    half_width_median, half_width_at_assurance
        Median and ``assurance``-quantile of the half-width: exact when ``basis ==
        "exact"``, else over the fresh studies.
    interval_median
        Medians of the lower and of the upper limits over the fresh studies.
    n_reps, n_undefined
        Replicate studies, and how many of the fresh ones had an undefined interval.
    curve
        ``(n, assurance)`` pairs the search evaluated (exact or simulated), sorted by ``n``.
    basis
        ``"exact"`` or ``"monte-carlo"``: what ``items`` rests on.
    coverage, coverage_mc_se
        Share of the fresh studies whose interval covers the model's true value of the
        quantity the method estimates (Cohen's kappa; the intraclass kappa for ``gof``; PSA),
        an undefined interval counting as a miss, and its Monte Carlo SE.
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
    n_reps: int
    n_undefined: int
    curve: list[tuple[int, float]] = field(default_factory=list)
    basis: str = "monte-carlo"
    coverage: float = float("nan")
    coverage_mc_se: float = float("nan")

    @property
    def share_undefined(self) -> float:
        """Share of the fresh studies with no interval (``n_undefined / n_reps``)."""
        return self.n_undefined / self.n_reps if self.n_reps else float("nan")


def check_target(
    metric: str, width: float, confidence_level: float, assurance: float = 0.5
) -> tuple[str, float, float, float]:
    """The sizing target checked in parameter names (:mod:`planner.validation`).

    Returns ``(metric, width, confidence_level, assurance)`` converted; shared by
    :func:`find_sample_size` and the union-positive rules
    (:mod:`planner.sizing.union_positives`).
    """
    return (
        check_choice("metric", metric, METRICS),
        check("width", width, RULES["width"]),
        check("confidence_level", confidence_level, RULES["confidence_level"]),
        check("assurance", assurance, RULES["assurance"]),
    )


def _check_model(model: Any) -> PairModel:
    """The pair to plan for: a :class:`PairModel`, or an M-annotator model with two
    annotators over two categories (its :meth:`pair`, the same four cells)."""
    if isinstance(model, PairModel):
        return model
    if callable(getattr(model, "pair", None)):
        return model.pair()  # type: ignore[no-any-return]
    raise InvalidInput(
        f"model must be a PairModel (planner.pair_from_annotators, ...) or a model of two "
        f"annotators, got {type(model).__name__}",
        parameter="model",
    )


def interval_function(
    metric: str, method: str, confidence_level: float, *, n_boot: int = 1000, rng=None
) -> Callable[[NDArray], ConfidenceInterval]:
    """The interval of ``metric`` by ``method`` as a function of stacked tables.

    Raises :class:`InvalidInput` naming ``metric``, ``method``, ``confidence_level`` or
    ``n_boot`` when one is outside its range.
    """
    metric = check_choice("metric", metric, METRICS)
    method = check_choice("method", method, PSA_METHODS if metric == "psa" else KAPPA_METHODS)
    confidence_level = check("confidence_level", confidence_level, RULES["confidence_level"])
    n_boot = check("n_boot", n_boot, RULES["n_boot"])
    if metric == "psa":
        return lambda t: psa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)
    return lambda t: kappa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)


def psa_variance_factor(jaccard: float) -> float:
    """``f(J) = U Var(PSA) = 4 J (1 - J) / (1 + J)^4`` (delta method, docs/methods/sample-size.md
    2.2)."""
    return 4.0 * jaccard * (1.0 - jaccard) / (1.0 + jaccard) ** 4


def analytic_items(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """Large-sample items for an expected half-width ``width`` (the search's start).

    PSA: ``U = z^2 f(J) / w^2`` union positives, ``n = U / r``. Kappa:
    ``n = z^2 Q / w^2`` with ``Q = n Var_FCE`` at the model's cells.
    """
    model = _check_model(model)
    metric, width, confidence_level, _ = check_target(metric, width, confidence_level)
    z = normal_quantile(confidence_level)
    if metric == "psa":
        return z * z * psa_variance_factor(model.jaccard) / width**2 / model.union_rate
    q = float(kappa_standard_error(model.table)) ** 2  # cells sum to 1, so this is n Var
    return z * z * q / width**2


@dataclass(frozen=True)
class _Check:
    """Monte Carlo evidence at the planned size, from studies the search never saw."""

    share: float
    half_widths: NDArray
    interval: ConfidenceInterval


def _fresh_check(
    model: PairModel,
    n: int,
    interval: Callable[[NDArray], ConfidenceInterval],
    width: float,
    n_reps: int,
    rng: np.random.Generator,
) -> _Check:
    """Assurance at ``n`` on ``n_reps`` new studies (no selection bias from the search)."""
    ci = interval(simulate_tables(model.cells, n, n_reps, rng=rng))
    hw = np.asarray(ci.half_width, dtype=float)
    return _Check(float(np.mean(reaches_width(hw, width))), hw, ci)


def _nan_median(values: NDArray) -> float:
    """Median of the finite values, NaN if none (``np.nanmedian`` would import numpy.ma)."""
    x = np.sort(np.asarray(values, dtype=float).ravel())
    x = x[np.isfinite(x)]
    return float((x[(x.size - 1) // 2] + x[x.size // 2]) / 2) if x.size else float("nan")


#: The parameters a :class:`TargetUnreachable` message of the search names (the CLI
#: names them as its flags).
UNREACHABLE_PARAMETERS = ("width", "assurance", "max_items")


def unreachable_error(
    metric: str, width: float, assurance: float, max_items: int, share: float
) -> TargetUnreachable:
    """The error of a search whose target is not reached even at ``max_items``."""
    return TargetUnreachable(
        f"width {width:g} for {metric} is not reached with assurance {assurance:g} "
        f"even at max_items {max_items}: the share of studies that reach it there is "
        f"{share:.3f}; widen width, lower assurance or raise max_items",
        parameters=UNREACHABLE_PARAMETERS,
    )


def _exact_search(
    model: PairModel,
    width: float,
    level: float,
    assurance: float,
    method: str,
    start: int,
    cap: int,
) -> tuple[int, float, list[tuple[int, float]]]:
    """Smallest ``n`` whose exact PSA assurance reaches the target, by bisection."""
    found = first_crossing(
        ExactPSAAssurance(model, width, level, method), assurance, start, cap, step_share=0.02
    )
    if not found.reached:
        raise unreachable_error("psa", width, assurance, cap, found.value)
    return found.n, found.value, list(found.curve)


def _monte_carlo_search(
    model: PairModel,
    interval: Callable[[NDArray], ConfidenceInterval],
    metric: str,
    width: float,
    assurance: float,
    n_reps: int,
    start: int,
    cap: int,
    rng: np.random.Generator,
) -> tuple[int, float, list[tuple[int, float]]]:
    """Smallest ``n`` whose simulated assurance reaches the target, and its MC SE in items."""
    studies = NestedStudies(model.cells, n_reps, rng=rng)

    def share(n: int) -> float:
        return float(np.mean(reaches_width(interval(studies.tables(n)).half_width, width)))

    values = Evaluations(share)
    found = first_crossing(values, assurance, start, cap)
    if not found.reached:
        raise unreachable_error(metric, width, assurance, cap, found.value)
    items_se = crossing_standard_error(values, found.n, n_reps)
    return found.n, items_se, values.curve


def find_sample_size(
    model: PairModel,
    metric: str = "psa",
    width: float = 0.08,
    *,
    confidence_level: float = 0.95,
    assurance: float = 0.5,
    method: str | None = None,
    n_reps: int = 4000,
    max_items: int = 10_000_000,
    n_boot: int = 1000,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> SampleSizeResult:
    """Smallest number of items with ``P(half-width <= width) >= assurance``.

    For PSA with a method in :data:`EXACT_PSA_METHODS` the answer is exact (binomial
    sums, :func:`exact_psa_assurance`) and Monte Carlo is only its independent check; else
    the answer is the Monte Carlo crossing on nested studies. Either way the reported
    assurance comes from a fresh set of ``n_reps`` studies the search never saw, and a
    zero-width or undefined interval never counts as narrow (:func:`reaches_width`).

    Parameters
    ----------
    model
        The annotator pair (cell probabilities).
    metric
        ``"psa"`` or ``"kappa"``.
    width
        Target half-width, ``(upper - lower) / 2``, in [0.001, 1).
    confidence_level
        Level of each study's interval.
    assurance
        Required probability that a study reaches ``width``; 0.5 is the median rule.
    method
        Interval method (default Wilson for PSA, the score interval for Cohen's kappa).
    n_reps
        Simulated studies per evaluated ``n``, and in the independent check.
    max_items
        Largest ``n`` searched; beyond it the target is unreachable.
    n_boot
        Bootstrap resamples, when ``method="bootstrap"``.
    rng
        Anything :func:`numpy.random.default_rng` takes: a generator is used (and advanced)
        as given, a seed reproduces the search, None draws fresh entropy (never a fixed seed).
    progress
        Called as ``progress(1, 2)`` when the search has found its ``n`` and ``progress(2, 2)``
        after the independent check (the search's steps are not known in advance).

    Raises
    ------
    InvalidInput
        An argument outside its range (:data:`planner.validation.RULES`), named as the
        parameter: ``width must be a number in [0.001, 1), got 1.5``.
    TargetUnreachable
        When even ``max_items`` items do not reach the target; the message names
        ``width``, ``assurance`` and ``max_items`` (the CLI, their flags).
    """
    model = _check_model(model)
    metric, width, confidence_level, assurance = check_target(
        metric, width, confidence_level, assurance
    )
    n_reps = check("n_reps", n_reps, RULES["n_reps"])
    max_items = check("max_items", max_items, RULES["max_items"])
    method = DEFAULT_METHOD[metric] if method is None else str(check_text("method", method))
    interval_rng, study_rng, check_rng = as_generator(rng).spawn(3)
    interval = interval_function(metric, method, confidence_level, n_boot=n_boot, rng=interval_rng)
    target = _Target(metric, method, width, confidence_level, assurance, n_reps)
    items, items_se, exact, curve = _search(model, target, interval, max_items, study_rng)
    if progress is not None:
        progress(1, 2)
    fresh = _fresh_check(model, items, interval, width, n_reps, check_rng)
    if progress is not None:
        progress(2, 2)
    return _sample_size_result(model, target, items, items_se, exact, curve, fresh)


@dataclass(frozen=True)
class _Target:
    """What :func:`find_sample_size` searched for, checked."""

    metric: str
    method: str
    width: float
    confidence_level: float
    assurance: float
    n_reps: int


def _search(
    model: PairModel,
    target: _Target,
    interval: Callable[[NDArray], ConfidenceInterval],
    max_items: int,
    rng: np.random.Generator,
) -> tuple[int, float, float | None, list[tuple[int, float]]]:
    """The search from the analytic start: exact for PSA with an exact method, else Monte
    Carlo. Returns ``(items, items_se, exact_assurance or None, curve)``."""
    metric, width, level = target.metric, target.width, target.confidence_level
    start = analytic_items(model, metric, width, level)
    start = int(np.ceil(start)) if np.isfinite(start) and start > 0 else 100
    if metric == "psa" and target.method in EXACT_PSA_METHODS:
        items, exact, curve = _exact_search(
            model, width, level, target.assurance, target.method, start, max_items
        )
        return items, 0.0, exact, curve
    items, items_se, curve = _monte_carlo_search(
        model, interval, metric, width, target.assurance, target.n_reps, start, max_items, rng
    )
    return items, items_se, None, curve


def _sample_size_result(
    model: PairModel,
    target: _Target,
    items: int,
    items_se: float,
    exact: float | None,
    curve: list[tuple[int, float]],
    fresh: _Check,
) -> SampleSizeResult:
    """The result of a search at ``items``: its assurance from the fresh check, the
    half-width's median and quantile at the assurance (exact when the law is known)."""
    defined = np.isfinite(fresh.half_widths)
    finite_hw = usable_half_width(fresh.half_widths)  # zero-width counts as too wide
    quantiles = None
    if exact is not None:  # the half-width's law is known exactly too
        quantiles = exact_half_width_quantiles(
            model, items, (0.5, target.assurance), target.confidence_level, target.method
        )
    if quantiles is None:
        quantiles = [float(np.quantile(finite_hw, q)) for q in (0.5, target.assurance)]
    covered = float(np.mean(_covers(fresh.interval, true_value(model, target))))
    return SampleSizeResult(
        metric=target.metric,
        method=target.method,
        width=target.width,
        confidence_level=target.confidence_level,
        target_assurance=target.assurance,
        items=items,
        union_positives=items * model.union_rate,
        assurance=fresh.share,
        assurance_mc_se=float(np.sqrt(fresh.share * (1 - fresh.share) / target.n_reps)),
        items_mc_se=float(items_se),
        exact_assurance=exact,
        exact_items=items if exact is not None else None,
        half_width_median=quantiles[0],
        half_width_at_assurance=quantiles[1],
        interval_median=(_nan_median(fresh.interval.low), _nan_median(fresh.interval.high)),
        n_reps=target.n_reps,
        n_undefined=int((~defined).sum()),
        curve=curve,
        basis="exact" if exact is not None else "monte-carlo",
        coverage=covered,
        coverage_mc_se=float(np.sqrt(covered * (1 - covered) / target.n_reps)),
    )


def coverage_shortfall_note(res: SampleSizeResult) -> str | None:
    """A note when the planned interval's simulated coverage is 3 MC SEs below nominal, or
    some simulated studies have no interval (kappa plans)."""
    if res.metric != "kappa":
        return None
    short = res.coverage < res.confidence_level - 3 * max(res.coverage_mc_se, 1e-3)
    if not short and res.n_undefined == 0:
        return None
    better = ""
    if short and res.method != "profile":
        better = " (agree's default, the profile interval, covers better under strong bias: "
        better += "plan for it with --kappa-method profile, slower)"
    return (
        f"at {res.items:,} items the {res.method} interval for kappa covered "
        f"{res.coverage:.3f} ± {res.coverage_mc_se:.3f} of simulated studies "
        f"({res.confidence_level:.0%} intended){better}; {res.share_undefined:.1%} had no "
        "interval (an annotator with no positives)"
    )


def true_value(model: PairModel, target: _Target) -> float:
    """The model's value of what the interval method estimates: PSA, Cohen's kappa, or the
    intraclass kappa ``1 - (b + c) / (2 pi (1 - pi))`` for ``gof``."""
    a, b, c, d = (float(x) for x in model.cells)
    if target.metric == "psa":
        return 2 * a / (2 * a + b + c)
    if target.method == "gof":
        pi = (2 * a + b + c) / 2
        return 1 - (b + c) / (2 * pi * (1 - pi))
    rate_a, rate_b = a + b, a + c
    p_e = rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
    return (a + d - p_e) / (1 - p_e)


def _covers(interval: ConfidenceInterval, truth: float) -> NDArray:
    """Which intervals contain ``truth`` (up to rounding); undefined ones do not."""
    low, high = np.asarray(interval.low, dtype=float), np.asarray(interval.high, dtype=float)
    with np.errstate(invalid="ignore"):
        return (low <= truth + 1e-9) & (truth - 1e-9 <= high)


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
