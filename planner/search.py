"""Sample-size search: the smallest number of items whose interval is narrow enough.

For a metric (PSA or kappa) and an interval method, the *assurance* at ``n`` items is
``P(half-width <= width)`` over studies of ``n`` items (Kupper & Hafner 1989; with
assurance 0.5 this is the median half-width, about the classic expected-width rule). The
search

1. starts from the delta-method (PSA) or Fleiss-Cohen-Everitt (kappa) sample size,
2. brackets the answer by halving or doubling,
3. bisects on integers,

evaluating the assurance by Monte Carlo on :class:`~planner.simulation.NestedStudies`
(common random numbers across ``n``). A study whose interval is undefined or of zero width
counts as not narrow enough (:func:`reaches_width`). For PSA with an interval whose
half-width depends only on ``(a, U)`` (the conditional binomial intervals and Wald) the
assurance is exact (:func:`exact_psa_assurance`), the search runs on it, and the Monte
Carlo assurance on fresh studies is the independent check.

References
----------
Kupper LL, Hafner KB (1989) How appropriate are popular sample size formulas?
    Am Stat 43:101-105.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.intervals import (
    KAPPA_METHODS,
    PSA_METHODS,
    ConfidenceInterval,
    kappa_interval,
    kappa_standard_error,
    normal_quantile,
    psa_conditional_interval,
    psa_interval,
)
from planner.model import PairModel
from planner.simulation import NestedStudies, simulate_tables

METRICS = ("psa", "kappa")
DEFAULT_METHOD = {"psa": "wilson", "kappa": "score"}
WORST_CASE_JACCARD = (5.0 - np.sqrt(17.0)) / 4.0  # argmax of 4J(1-J)/(1+J)^4
#: PSA methods whose half-width depends only on ``(a, U)``: their assurance is exact.
EXACT_PSA_METHODS = ("wilson", "clopper-pearson", "jeffreys", "wald")


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


def interval_function(
    metric: str, method: str, confidence_level: float, *, n_boot: int = 1000, rng=None
) -> Callable[[NDArray], ConfidenceInterval]:
    """The interval of ``metric`` by ``method`` as a function of stacked tables."""
    if metric == "psa":
        if method not in PSA_METHODS:
            raise InvalidInput(
                f"--psa-method must be one of {', '.join(PSA_METHODS)}, got {method}"
            )
        return lambda t: psa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)
    if metric == "kappa":
        if method not in KAPPA_METHODS:
            raise InvalidInput(
                f"--kappa-method must be one of {', '.join(KAPPA_METHODS)}, got {method}"
            )
        return lambda t: kappa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)
    raise InvalidInput(f"--metric must be one of psa, kappa, both; got {metric}")


def psa_variance_factor(jaccard: float) -> float:
    """``f(J) = U Var(PSA) = 4 J (1 - J) / (1 + J)^4`` (delta method, METHODS.md 2.2)."""
    return 4.0 * jaccard * (1.0 - jaccard) / (1.0 + jaccard) ** 4


def analytic_items(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """Large-sample items for an expected half-width ``width`` (the search's start).

    PSA: ``U = z^2 f(J) / w^2`` union positives, ``n = U / r``. Kappa:
    ``n = z^2 Q / w^2`` with ``Q = n Var_FCE`` at the model's cells.
    """
    z = normal_quantile(confidence_level)
    if metric == "psa":
        return z * z * psa_variance_factor(model.jaccard) / width**2 / model.union_rate
    q = float(kappa_standard_error(model.table)) ** 2  # cells sum to 1, so this is n Var
    return z * z * q / width**2


# Lanczos (g = 7, 9 terms) coefficients: log-gamma to about 1e-15 relative for x >= 1/2.
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_2PI = 0.5 * float(np.log(2 * np.pi))


def log_gamma(x: ArrayLike) -> NDArray:
    """``log Gamma(x)`` for ``x >= 1/2`` by the Lanczos approximation, vectorised.

    Used instead of :func:`scipy.special.gammaln` so that sizing never imports scipy (see
    :mod:`planner.intervals` on start-up time).

    >>> round(float(log_gamma(10.0)), 10) == round(float(np.log(362880.0)), 10)
    True
    """
    z = np.asarray(x, dtype=float) - 1.0
    series = np.full(z.shape, _LANCZOS[0])
    for i, coefficient in enumerate(_LANCZOS[1:], start=1):
        series = series + coefficient / (z + i)
    t = z + 7.5
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(series)


def _binomial_pmf(k: NDArray, n: NDArray, p: float) -> NDArray:
    """Binomial probabilities via log-gamma, vectorised; ``0 <= p <= 1``.

    Relative error about ``n * 1e-15`` (the log-gamma terms cancel): 1e-12 at a thousand
    items, 1e-8 at ten million.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    if p <= 0.0 or p >= 1.0:  # all mass at k = 0 or at k = n
        return np.where(k == (0.0 if p <= 0.0 else n), 1.0, 0.0)
    inside = (k >= 0) & (k <= n)
    k_in = np.where(inside, k, 0.0)
    n_in = np.where(inside, n, 0.0)
    logpmf = (
        log_gamma(n_in + 1)
        - log_gamma(k_in + 1)
        - log_gamma(n_in - k_in + 1)
        + k_in * np.log(p)
        + (n_in - k_in) * np.log1p(-p)
    )
    return np.where(inside, np.exp(logpmf), 0.0)


def binomial_at_least(k: int, n: int, p: float) -> float:
    """``P(Bin(n, p) >= k)``, summed over the binomial's mass within 9 SD.

    >>> round(binomial_at_least(1, 2, 0.5), 12)
    0.75
    """
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    x = _binomial_support(n, p)
    x = x[x >= k]
    return float(np.sum(_binomial_pmf(x, np.full_like(x, n), p)))


def _binomial_support(n: float, p: float, spread: float = 9.0) -> NDArray:
    sd = np.sqrt(max(n * p * (1 - p), 0.0))
    lo = max(0, int(np.floor(n * p - spread * sd - 2)))
    hi = min(int(n), int(np.ceil(n * p + spread * sd + 2)))
    return np.arange(lo, hi + 1, dtype=float)


def reaches_width(half_width: NDArray | float, width: float) -> NDArray:
    """Whether each interval counts as narrow enough: defined, of positive width, ``<= width``.

    A zero-width interval (Wald or FCE with an empty cell, a bootstrap whose resamples all
    agree) claims a precision the data do not have, so it never counts as narrow, and an
    undefined (NaN) interval counts as too wide.
    """
    hw = np.asarray(half_width, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.isfinite(hw) & (hw > 0) & (hw <= width)


def psa_half_width_given_union(
    joint_positives: NDArray, union_positives: NDArray, confidence_level: float, method: str
) -> NDArray:
    """Half-width of a PSA interval that depends on the table only through ``(a, U)``.

    Holds for the conditional intervals (:data:`EXACT_PSA_METHODS`) and the Wald interval,
    whose SE ``sqrt(4a(U-a)U) / (a+U)^2`` needs only ``a`` and ``U``. The library's own
    interval code is called on tables ``[[a, U - a], [0, 0]]``.
    """
    a, u = np.broadcast_arrays(np.asarray(joint_positives, float), np.asarray(union_positives))
    tables = np.zeros((*a.shape, 2, 2))
    tables[..., 0, 0] = a
    tables[..., 0, 1] = u - a
    return np.asarray(psa_interval(tables, confidence_level, method).half_width)


_GRID_ELEMENTS = 2_000_000  # (U, a) pairs evaluated at once; fixed, never changes answers


def _outcome_grid(
    us: NDArray, jaccard: float, confidence_level: float, method: str
) -> Iterator[tuple[slice, NDArray, NDArray]]:
    """Chunks of the ``(U, a)`` grid: rows of ``us``, half-widths, ``P(a | U)``.

    Each row covers ``a ~ Bin(U, J)`` to 9 standard deviations.
    """
    sd = np.sqrt(us * jaccard * (1 - jaccard))
    lo = np.maximum(0.0, np.floor(us * jaccard - 9 * sd - 2))
    hi = np.minimum(us, np.ceil(us * jaccard + 9 * sd + 2))
    span = int(np.max(hi - lo)) + 1 if us.size else 1
    rows = max(1, _GRID_ELEMENTS // span)
    for first in range(0, us.size, rows):
        part = slice(first, first + rows)
        u = us[part, None]
        a = lo[part, None] + np.arange(span)[None, :]
        inside = a <= u
        a = np.minimum(a, u)
        hw = psa_half_width_given_union(a, u, confidence_level, method)
        yield part, hw, np.where(inside, _binomial_pmf(a, u, jaccard), 0.0)


def conditional_psa_assurance(
    union_positives: NDArray | int,
    jaccard: float,
    width: float,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> NDArray:
    """Exact ``P(half-width <= width)`` given ``U`` union positives, ``a ~ Bin(U, J)``.

    Vectorised over an array of ``U`` values. Zero-width intervals never count
    (:func:`reaches_width`).
    """
    us = np.atleast_1d(np.asarray(union_positives, dtype=float))
    out = np.empty(us.shape)
    for part, hw, pmf in _outcome_grid(us, jaccard, confidence_level, method):
        out[part] = np.sum(pmf * reaches_width(hw, width), axis=1)
    return out


def _union_support(model: PairModel, n_items: int) -> tuple[NDArray, NDArray]:
    """Values ``U >= 1`` of ``Bin(n, r)`` within 9 SD, and their probabilities."""
    us = _binomial_support(n_items, model.union_rate)
    us = us[us > 0]
    return us, _binomial_pmf(us, np.full_like(us, n_items), model.union_rate)


class ExactPSAAssurance:
    """Exact PSA assurance as a function of ``n``, for one model, width and method.

    ``A(n) = sum_U Bin(U; n, r) A(U)`` where the conditional assurance ``A(U)``
    (:func:`conditional_psa_assurance`) does not depend on ``n``; it is computed once per
    ``U`` and kept, so a search over ``n`` pays for each union-positive count only once.
    """

    def __init__(
        self, model: PairModel, width: float, confidence_level: float = 0.95, method: str = "wilson"
    ) -> None:
        self.model, self.width = model, width
        self.confidence_level, self.method = confidence_level, method
        self._given_union: dict[float, float] = {}

    def given_union(self, us: NDArray) -> NDArray:
        """``A(U)`` for each value of ``us``."""
        missing = np.array([u for u in us if u not in self._given_union])
        if missing.size:
            values = conditional_psa_assurance(
                missing, self.model.jaccard, self.width, self.confidence_level, self.method
            )
            self._given_union.update(zip(missing.tolist(), values.tolist(), strict=True))
        return np.array([self._given_union[u] for u in us.tolist()])

    def __call__(self, n_items: int) -> float:
        us, weights = _union_support(self.model, n_items)
        return float(np.sum(weights * self.given_union(us)))


def exact_psa_assurance(
    model: PairModel,
    n_items: int,
    width: float,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> float:
    """Exact assurance of a PSA interval for studies of ``n_items`` items.

    ``sum_U Bin(U; n, r) sum_a Bin(a; U, J) 1[hw(a, U) <= width]``: the union positives
    are ``Bin(n, r)`` and, given them, the joint positives ``Bin(U, J)`` (METHODS.md 1.2).
    Exact for every method whose half-width depends only on ``(a, U)``
    (:data:`EXACT_PSA_METHODS`). No simulation.
    """
    return ExactPSAAssurance(model, width, confidence_level, method)(n_items)


def exact_half_width_quantiles(
    model: PairModel,
    n_items: int,
    probabilities: tuple[float, ...],
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> list[float] | None:
    """Exact quantiles of the PSA half-width over studies of ``n_items`` items.

    The half-width is a function of ``(a, U)``, whose law is known exactly; undefined and
    zero-width intervals count as infinitely wide, as in the search. ``None`` when the
    ``(U, a)`` grid is too large to hold (beyond about 30,000 union positives).
    """
    us, weights = _union_support(model, n_items)
    values, masses = [], []
    total = 0
    for part, hw, pmf in _outcome_grid(us, model.jaccard, confidence_level, method):
        mass = weights[part, None] * pmf
        keep = mass > 1e-15
        total += int(keep.sum())
        if total > 2 * _GRID_ELEMENTS:
            return None
        values.append(np.where(reaches_width(hw, 1.0), hw, np.inf)[keep])
        masses.append(mass[keep])
    hw_all, mass_all = np.concatenate(values), np.concatenate(masses)
    order = np.argsort(hw_all, kind="stable")
    cumulative = np.cumsum(mass_all[order]) / mass_all.sum()
    picks = np.searchsorted(cumulative, np.asarray(probabilities) - 1e-12)
    return [float(hw_all[order][min(i, order.size - 1)]) for i in picks]


def _bisect_passing(passes: Callable[[int], bool], low: int, high: int) -> int:
    """Smallest passing integer in ``(low, high]`` given ``passes(high)``, by bisection."""
    while high - low > 1:
        mid = (low + high) // 2
        if passes(mid):
            high = mid
        else:
            low = mid
    return high


def _smallest_passing(passes: Callable[[int], bool], start: int, max_value: int) -> int:
    """Smallest integer ``m >= 1`` with ``passes(m)``, assuming monotonicity."""
    start = int(min(max(start, 1), max_value))
    if passes(start):
        high, low = start, 0
        while high > 1:
            trial = max(high // 2, 1)
            if passes(trial):
                high = trial
            else:
                low = trial
                break
    else:
        low = start
        while True:
            if low >= max_value:
                raise TargetUnreachable(str(max_value))
            trial = min(low * 2, max_value)
            if passes(trial):
                high = trial
                break
            low = trial
    return _bisect_passing(passes, low, high)


def _smallest_passing_near(
    passes: Callable[[int], bool], start: int, max_value: int, share: float = 0.02
) -> int:
    """:func:`_smallest_passing` for a good ``start``: bracket with steps from 2 % of it.

    Steps double away from ``start`` until ``passes`` changes, then bisection; a start
    within a few percent of the answer costs about 8 evaluations instead of about 20.
    """
    start = int(min(max(start, 1), max_value))
    step = max(1, int(share * start))
    if passes(start):
        high, low = start, start - step
        while low >= 1 and passes(low):
            high, step = low, 2 * step
            low = high - step
        low = max(low, 0)
    else:
        low, high = start, start + step
        while True:
            if low >= max_value:
                raise TargetUnreachable(str(max_value))
            high = min(high, max_value)
            if passes(high):
                break
            low, step = high, 2 * step
            high = low + step
    return _bisect_passing(passes, low, high)


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


def _unreachable(metric: str, width: float, assurance: float, max_items: int, share: float):
    return TargetUnreachable(
        f"--width {width:g} for {metric} is not reached with --assurance {assurance:g} "
        f"even at --max-items {max_items}: the share of studies that reach it there is "
        f"{share:.3f}; widen --width, lower --assurance or raise --max-items"
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
    evaluated: dict[int, float] = {}
    assurance_at = ExactPSAAssurance(model, width, level, method)

    def exact(n: int) -> float:
        if n not in evaluated:
            evaluated[n] = assurance_at(n)
        return evaluated[n]

    try:
        items = _smallest_passing_near(lambda n: exact(n) >= assurance, start, cap)
    except TargetUnreachable:
        raise _unreachable("psa", width, assurance, cap, exact(cap)) from None
    return items, exact(items), sorted(evaluated.items())


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
    evaluated: dict[int, float] = {}

    def share(n: int) -> float:
        if n not in evaluated:
            hw = interval(studies.tables(n)).half_width
            evaluated[n] = float(np.mean(reaches_width(hw, width)))
        return evaluated[n]

    try:
        items = _smallest_passing(lambda n: share(n) >= assurance, start, cap)
    except TargetUnreachable:
        raise _unreachable(metric, width, assurance, cap, share(cap)) from None
    se = float(np.sqrt(share(items) * (1 - share(items)) / n_reps))
    step = max(1, int(round(0.05 * items)))
    lo_n, hi_n = max(items - step, 1), items + step
    slope = (share(hi_n) - share(lo_n)) / (hi_n - lo_n)
    items_se = se / slope if slope > 0 else float("nan")
    return items, items_se, sorted(evaluated.items())


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
    rng: np.random.Generator | int | None = None,
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
        Target half-width, ``(upper - lower) / 2``, in (0, 1).
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
        Generator or seed.

    Raises
    ------
    TargetUnreachable
        When even ``max_items`` items do not reach the target.
    """
    if metric not in METRICS:
        raise InvalidInput(f"--metric must be one of psa, kappa, both; got {metric}")
    method = method or DEFAULT_METHOD[metric]
    interval_rng, study_rng, check_rng = np.random.default_rng(rng).spawn(3)
    interval = interval_function(metric, method, confidence_level, n_boot=n_boot, rng=interval_rng)
    start = analytic_items(model, metric, width, confidence_level)
    start = int(np.ceil(start)) if np.isfinite(start) and start > 0 else 100
    exact = exact_items = None
    if metric == "psa" and method in EXACT_PSA_METHODS:
        items, exact, curve = _exact_search(
            model, width, confidence_level, assurance, method, start, max_items
        )
        exact_items, items_se = items, 0.0
    else:
        items, items_se, curve = _monte_carlo_search(
            model, interval, metric, width, assurance, n_reps, start, max_items, study_rng
        )
    check = _fresh_check(model, items, interval, width, n_reps, check_rng)
    defined = np.isfinite(check.half_widths)
    finite_hw = np.where(defined, check.half_widths, np.inf)
    quantiles = None
    if exact is not None:  # the half-width's law is known exactly too
        quantiles = exact_half_width_quantiles(
            model, items, (0.5, assurance), confidence_level, method
        )
    if quantiles is None:
        quantiles = [float(np.quantile(finite_hw, q)) for q in (0.5, assurance)]
    return SampleSizeResult(
        metric=metric,
        method=method,
        width=width,
        confidence_level=confidence_level,
        target_assurance=assurance,
        items=items,
        union_positives=items * model.union_rate,
        assurance=check.share,
        assurance_mc_se=float(np.sqrt(check.share * (1 - check.share) / n_reps)),
        items_mc_se=float(items_se),
        exact_assurance=exact,
        exact_items=exact_items,
        half_width_median=quantiles[0],
        half_width_at_assurance=quantiles[1],
        interval_median=(_nan_median(check.interval.low), _nan_median(check.interval.high)),
        n_reps=n_reps,
        n_undefined=int((~defined).sum()),
        curve=curve,
        basis="exact" if exact is not None else "monte-carlo",
    )


# --------------------------------------------------------------------------- union positives


def worst_case_union_positives(width: float, confidence_level: float = 0.95) -> dict[str, int]:
    """Union positives that reach ``width`` for PSA whatever the true agreement.

    ``delta``: ``ceil(z^2 f* / w^2)`` with ``f* = max_J 4J(1-J)/(1+J)^4 = 0.309842`` at
    ``J* = (5 - sqrt 17)/4`` (METHODS.md 2.2). ``wilson``: the smallest ``U`` from which on
    the Wilson-for-J interval has half-width at most ``width`` for *every* outcome
    ``a = 0..U``, a guarantee that needs no assumption about ``J`` at all.

    >>> worst_case_union_positives(0.08)
    {'delta': 186, 'wilson': 182}
    """
    z = normal_quantile(confidence_level)
    delta = int(np.ceil(z * z * psa_variance_factor(WORST_CASE_JACCARD) / width**2))

    def every_outcome_narrow(u: int) -> bool:
        a = np.arange(u + 1, dtype=float)
        hw = psa_conditional_interval(a, float(u), confidence_level, "wilson").half_width
        return bool(np.max(hw) <= width)

    guarantee = _smallest_passing(every_outcome_narrow, delta, 100 * delta + 100)
    # the maximum over outcomes wobbles with U; walk up until a run of U's all pass
    while not all(every_outcome_narrow(u) for u in range(guarantee, guarantee + 20)):
        guarantee += 1
    return {"delta": delta, "wilson": guarantee}


def union_positives_for_assurance(
    jaccard: float,
    width: float,
    confidence_level: float = 0.95,
    assurance: float = 0.5,
    method: str = "wilson",
    max_union_positives: int = 10_000_000,
) -> int:
    """Fixed union positives (the stop rule) with ``P(hw <= width | U) >= assurance``.

    Exact: given ``U``, ``a ~ Bin(U, J)``. Returns the smallest ``U`` from which on the
    assurance holds over a run of 20 consecutive values (the exact curve wobbles with the
    discreteness of ``a``).
    """
    z = normal_quantile(confidence_level)
    start = max(int(np.ceil(z * z * psa_variance_factor(jaccard) / width**2)), 1)

    def passes(u: int) -> bool:
        return bool(
            conditional_psa_assurance(u, jaccard, width, confidence_level, method)[0] >= assurance
        )

    try:
        u = _smallest_passing(passes, start, max_union_positives)
    except TargetUnreachable:
        raise TargetUnreachable(
            f"--width {width:g} is not reached by the stop rule within {max_union_positives} "
            f"union positives"
        ) from None
    while True:
        run = conditional_psa_assurance(
            np.arange(u, u + 20), jaccard, width, confidence_level, method
        )
        failing = np.flatnonzero(run < assurance)
        if failing.size == 0:
            return u
        u += int(failing[-1]) + 1


def items_for_union_positives(union_positives: int, union_rate: float, probability: float) -> int:
    """Smallest ``n`` with ``P(Bin(n, r) >= U) >= probability``.

    Equivalently the ``probability``-quantile of the items needed to reach the ``U``-th
    union positive (``n - U`` is negative binomial: failures before the ``U``-th success).

    >>> items_for_union_positives(186, 0.082, 0.9)
    2475
    """
    u, r = int(union_positives), float(union_rate)
    if u <= 0:
        return 0
    if r >= 1.0:
        return u
    guess = int(np.ceil(u / r))
    cap = 10 * guess + 1000
    return _smallest_passing_near(lambda n: binomial_at_least(u, n, r) >= probability, guess, cap)


def inverse_sampling_items(union_positives: int, union_rate: float) -> dict[str, float | int]:
    """Items needed to collect ``U`` union positives when labelling until the ``U``-th.

    Items minus ``U`` is negative binomial (failures before the ``U``-th success,
    success probability ``r``): mean ``U / r`` items, and the 90th percentile from its
    distribution function.

    >>> out = inverse_sampling_items(186, 0.082)
    >>> round(out["expected"]), out["p90"]
    (2268, 2475)
    """
    u, r = int(union_positives), float(union_rate)
    return {"expected": u / r, "p90": items_for_union_positives(u, r, 0.9)}
