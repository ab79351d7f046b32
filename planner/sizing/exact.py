"""Exact binomial sums for PSA sizing: no simulation.

The joint positives given the union positives are exactly ``a | U ~ Bin(U, J)`` and
``U ~ Bin(n, r)`` (docs/methods/two-annotators.md 1.2), and every PSA interval in
:data:`EXACT_PSA_METHODS`
has a half-width that depends on ``(a, U)`` only. So the assurance
``P(half-width <= width)`` of a study of ``n`` items, and the half-width's quantiles, are
finite sums over a ``(U, a)`` grid. :mod:`planner.sizing.search` sizes PSA on them and uses Monte
Carlo only as the independent check.

**Truncation.** Both sums run over 9 standard deviations (plus 2) around the mean,
``U in n r +/- (9 sd + 2)`` and ``a in U J +/- (9 sd + 2)``. By Bernstein's inequality each
neglected tail holds at most ``exp(-t^2 / (2 (sd^2 + t / 3)))`` of the mass,
``t = 9 sd + 2``: 2e-6 at ``sd = 1``, 2e-10 at ``sd = 3``, 9e-15 at ``sd = 10`` (the bound
is loose for small spreads, where the support is most of ``[0, U]`` anyway).

**Cost.** Up to :data:`FAST_UNION_POSITIVES` union positives every ``a`` is evaluated
(``O(sqrt U)`` half-widths per ``U``); from there on the narrow ``a`` are found by
bisection (``O(log U)``) and summed with the binomial distribution function, so a width
of 0.001 (millions of items) sizes in about a second instead of a minute or more, with
the same answers (tests/test_exact_search_degenerate_and_arguments.py). A search
evaluates each ``U`` once (:class:`ExactPSAAssurance`).

Binomial probabilities come from a numpy log-gamma (Lanczos), so that the headline
``plan`` never imports scipy (see :mod:`planner.statistics.intervals` on start-up time); only the
bisection path, for widths far below the headline's, imports :mod:`scipy.special`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import step_guard
from planner.sizing.model import PairModel
from planner.statistics.intervals import ConfidenceInterval, psa_interval
from planner.validation import RULES, check, check_choice

#: PSA methods whose half-width depends only on ``(a, U)``: their assurance is exact.
EXACT_PSA_METHODS = ("wilson", "clopper-pearson", "jeffreys", "wald")


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
    :mod:`planner.statistics.intervals` on start-up time).

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
    return as_probability(np.sum(_binomial_pmf(x, np.full_like(x, n), p)))


def _binomial_support(n: float, p: float, spread: float = 9.0) -> NDArray:
    sd = np.sqrt(max(n * p * (1 - p), 0.0))
    lo = max(0, int(np.floor(n * p - spread * sd - 2)))
    hi = min(int(n), int(np.ceil(n * p + spread * sd + 2)))
    return np.arange(lo, hi + 1, dtype=float)


def as_probability(value: Any) -> float:
    """A probability summed from binomial terms, clipped to ``[0, 1]``: the sum of exact terms
    can round a few ulps past 1 (or below 0), which a probability never is."""
    return float(np.clip(value, 0.0, 1.0))


def usable_half_width(half_width: NDArray | float) -> NDArray:
    """Half-widths with undefined (NaN) and zero-width intervals replaced by ``inf``.

    The half-width a sizing rule may count: a zero-width interval (Wald or FCE with an
    empty cell, a bootstrap whose resamples all agree) claims a precision the data do not
    have, and an undefined one has none, so both count as infinitely wide, in assurances
    and in half-width quantiles alike.
    """
    hw = np.asarray(half_width, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(hw) & (hw > 0), hw, np.inf)


def half_width_quantiles(half_width: NDArray, probabilities: Sequence[float]) -> list[float]:
    """The quantiles of simulated studies' half-widths at ``probabilities``, undefined and
    zero-width intervals counted as infinitely wide (:func:`usable_half_width`).

    Each quantile is a study's own half-width (the inverse of the empirical distribution, no
    interpolation), so a quantile that falls among the studies without an interval is
    ``inf``, never the ``nan`` an interpolation between two infinities would give.

    >>> half_width_quantiles(np.array([0.1, 0.2, np.nan, 0.0]), (0.25, 0.5, 0.9))
    [0.1, 0.2, inf]
    """
    hw = usable_half_width(half_width)
    return [float(np.quantile(hw, q, method="inverted_cdf")) for q in probabilities]


def reaches_width(half_width: NDArray | float, width: float) -> NDArray:
    """Whether each interval counts as narrow enough: defined, of positive width, ``<= width``.

    A zero-width interval (Wald or FCE with an empty cell, a bootstrap whose resamples all
    agree) claims a precision the data do not have, so it never counts as narrow, and an
    undefined (NaN) interval counts as too wide (see :func:`usable_half_width`).
    """
    return usable_half_width(half_width) <= width


def psa_interval_given_union(
    joint_positives: NDArray, union_positives: NDArray, confidence_level: float, method: str
) -> ConfidenceInterval:
    """A PSA interval that depends on the table only through ``(a, U)``.

    Holds for the conditional intervals (:data:`EXACT_PSA_METHODS`) and the Wald interval,
    whose SE ``sqrt(4a(U-a)U) / (a+U)^2`` needs only ``a`` and ``U``. The library's own
    interval code is called on tables ``[[a, U - a], [0, 0]]``.
    """
    a, u = np.broadcast_arrays(np.asarray(joint_positives, float), np.asarray(union_positives))
    tables = np.zeros((*a.shape, 2, 2))
    tables[..., 0, 0] = a
    tables[..., 0, 1] = u - a
    return psa_interval(tables, confidence_level, method)


def psa_half_width_given_union(
    joint_positives: NDArray, union_positives: NDArray, confidence_level: float, method: str
) -> NDArray:
    """Half-width of :func:`psa_interval_given_union`."""
    interval = psa_interval_given_union(joint_positives, union_positives, confidence_level, method)
    return np.asarray(interval.half_width)


_GRID_ELEMENTS = 2_000_000  # (U, a) pairs evaluated at once; fixed, never changes answers


def _outcome_grid(
    us: NDArray, jaccard: float, confidence_level: float, method: str
) -> Iterator[tuple[slice, ConfidenceInterval, NDArray]]:
    """Chunks of the ``(U, a)`` grid: rows of ``us``, intervals, ``P(a | U)``.

    Each row covers ``a ~ Bin(U, J)`` to 9 standard deviations.
    """
    lo, hi = _a_support(us, jaccard)
    span = int(np.max(hi - lo)) + 1 if us.size else 1
    rows = max(1, _GRID_ELEMENTS // span)
    for first in range(0, us.size, rows):
        part = slice(first, first + rows)
        u = us[part, None]
        a = lo[part, None] + np.arange(span)[None, :]
        inside = a <= u
        a = np.minimum(a, u)
        interval = psa_interval_given_union(a, u, confidence_level, method)
        yield part, interval, np.where(inside, _binomial_pmf(a, u, jaccard), 0.0)


def _a_support(us: NDArray, jaccard: float) -> tuple[NDArray, NDArray]:
    """``a ~ Bin(U, J)`` to 9 standard deviations (plus 2), clipped to ``[0, U]``."""
    sd = np.sqrt(us * jaccard * (1 - jaccard))
    lo = np.maximum(0.0, np.floor(us * jaccard - 9 * sd - 2))
    hi = np.minimum(us, np.ceil(us * jaccard + 9 * sd + 2))
    return lo, hi


def conditional_psa_assurance(
    union_positives: NDArray | int,
    jaccard: float,
    width: float,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> NDArray:
    """Exact ``P(half-width <= width)`` given ``U`` union positives, ``a ~ Bin(U, J)``.

    Vectorised over an array of ``U`` values. Zero-width intervals never count
    (:func:`reaches_width`). Both paths sum ``P(a | U)`` over the same ``a`` (within 9 SD
    of ``U J``): from :data:`FAST_UNION_POSITIVES` union positives on, over the one or
    two runs of ``a`` whose interval is narrow enough (:func:`_threshold_assurance`,
    ``O(log U)`` half-widths per ``U``), below it over every ``a`` (``O(sqrt U)``).
    """
    us = np.atleast_1d(np.asarray(union_positives, dtype=float))
    out = np.empty(us.shape)
    lo, hi = _a_support(us, jaccard)
    fast = (us >= FAST_UNION_POSITIVES) & (lo >= 1) & (hi <= us - 1)
    if fast.any():
        out[fast] = _threshold_assurance(
            us[fast], lo[fast], hi[fast], jaccard, width, confidence_level, method
        )
    slow = np.flatnonzero(~fast)
    for part, interval, pmf in _outcome_grid(us[slow], jaccard, confidence_level, method):
        out[slow[part]] = np.sum(pmf * reaches_width(interval.half_width, width), axis=1)
    return np.clip(out, 0.0, 1.0)


def _peak(hw: Callable[[NDArray], NDArray], lo: NDArray, hi: NDArray) -> NDArray:
    """Where the unimodal ``hw(a)`` peaks on the integers of ``[lo, hi]`` (ternary search)."""
    left, right = lo.copy(), hi.copy()
    guard = step_guard("the ternary search for the widest outcome")
    while np.any(right - left > 2):
        guard()
        third = np.floor((right - left) / 3)
        m1, m2 = left + third, right - third
        active = right - left > 2
        rising = hw(m1) < hw(m2)
        left = np.where(active & rising, m1 + 1, left)
        right = np.where(active & ~rising, m2, right)
    candidates = np.stack([left, np.minimum(left + 1, right), right])
    return candidates[np.argmax(hw(candidates), axis=0), np.arange(lo.size)]


#: From this many union positives on, :func:`conditional_psa_assurance` finds the narrow
#: runs of ``a`` by bisection instead of evaluating every ``a`` (same sums, same answers).
FAST_UNION_POSITIVES = 2000


def _threshold_assurance(
    us: NDArray,
    lo: NDArray,
    hi: NDArray,
    jaccard: float,
    width: float,
    confidence_level: float,
    method: str,
) -> NDArray:
    """``sum_{a in [lo, hi], hw(a, U) <= width} Bin(a; U, J)`` for ``1 <= lo``, ``hi <= U - 1``.

    Given ``U``, the half-width of every interval in :data:`EXACT_PSA_METHODS` is a
    unimodal function of ``a`` (it rises to a peak near ``a = 0.36 U``, where the delta
    variance ``4J(1-J)/(1+J)^4`` peaks, and falls after it; checked against the full sum in
    ``tests/test_exact_search_degenerate_and_arguments.py``), and positive and finite for
    ``0 < a < U``. So
    the narrow ``a`` are the runs ``[lo, a1]`` and ``[a2, hi]``: the peak is found by
    ternary search, ``a1`` and ``a2`` by bisection, all vectorised over ``U``, and the two
    runs are summed with the binomial distribution function (``scipy.special.bdtr``, imported
    only here: this path serves widths far below the headline's).
    """
    from scipy import special  # lazily: plan's start path never needs it

    def hw(a: NDArray) -> NDArray:
        return psa_half_width_given_union(a, us, confidence_level, method)

    # the peak of hw over [lo, hi]: at an end when hw already falls at lo or still rises at
    # hi (most U: J is rarely near the peak at 0.36), else by ternary search
    peak = np.where(hw(lo) > hw(lo + 1), lo, np.where(hw(hi) > hw(hi - 1), hi, np.nan))
    inside = np.flatnonzero(np.isnan(peak))
    if inside.size:
        peak[inside] = _peak(
            lambda a: psa_half_width_given_union(a, us[inside], confidence_level, method),
            lo[inside],
            hi[inside],
        )
    # a1: last a in [lo, peak] with hw <= width (lo - 1 if none); hw rises on [lo, peak]
    low, high = lo - 1, peak.copy()
    guard = step_guard("the bisection for the narrow outcomes")
    while np.any(high - low > 0):
        guard()
        mid = np.ceil((low + high) / 2)
        narrow = (high > low) & (hw(np.maximum(mid, lo)) <= width)
        low, high = np.where(narrow, mid, low), np.where(narrow | (high == low), high, mid - 1)
    a1 = low
    # a2: first a in [peak + 1, hi] with hw <= width (hi + 1 if none); hw falls there
    low, high = peak + 1, hi + 1
    guard = step_guard("the bisection for the narrow outcomes")
    while np.any(high - low > 0):
        guard()
        mid = np.floor((low + high) / 2)
        narrow = (high > low) & (hw(np.minimum(mid, hi)) <= width)
        high, low = np.where(narrow, mid, high), np.where(narrow | (high == low), low, mid + 1)
    a2 = low

    def cdf(k: NDArray) -> NDArray:  # P(a <= k), 0 below the support
        return np.where(
            k >= 0,
            special.bdtr(np.maximum(k, 0).astype(np.int64), us.astype(np.int64), jaccard),
            0.0,
        )

    below = np.where(a1 >= lo, cdf(a1) - cdf(lo - 1), 0.0)
    above = np.where(a2 <= hi, cdf(hi) - cdf(a2 - 1), 0.0)
    return below + above


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
        return as_probability(np.sum(weights * self.given_union(us)))


def exact_psa_assurance(
    model: PairModel,
    n_items: int,
    width: float,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> float:
    """Exact assurance of a PSA interval for studies of ``n_items`` items.

    ``sum_U Bin(U; n, r) sum_a Bin(a; U, J) 1[hw(a, U) <= width]``: the union positives
    are ``Bin(n, r)`` and, given them, the joint positives ``Bin(U, J)``
    (docs/methods/two-annotators.md 1.2).
    Exact for every method whose half-width depends only on ``(a, U)``
    (:data:`EXACT_PSA_METHODS`). No simulation.
    """
    return ExactPSAAssurance(model, width, confidence_level, method)(n_items)


@dataclass(frozen=True)
class ExactPSALaw:
    """The law of a PSA interval over studies of ``items`` items, from one pass over the
    ``(U, a)`` grid (:func:`exact_psa_law`).

    Attributes
    ----------
    half_widths, cumulative
        The outcomes with union positives: their half-widths in increasing order (undefined
        and zero-width intervals as infinitely wide, as in the search) and their cumulative
        probability over all studies: the outcomes of probability below 1e-15 are left out
        and the kept mass rescaled, so the last is ``1 - no_interval`` exactly; the studies
        without union positives lie beyond, infinitely wide.
    coverage
        ``sum_U Bin(U; n, r) sum_a Bin(a; U, J) 1[L(a, U) <= PSA <= H(a, U)]``: the share of
        studies whose interval holds the model's PSA.
    no_interval
        ``P(U = 0) = (1 - r)^n``: studies without union positives, which have no interval
        and do not cover.
    """

    half_widths: NDArray
    cumulative: NDArray
    coverage: float
    no_interval: float

    def quantiles(self, probabilities: tuple[float, ...]) -> list[float]:
        """The half-width's quantiles at ``probabilities``."""
        picks = np.searchsorted(self.cumulative, np.asarray(probabilities) - 1e-12)
        widths = np.append(self.half_widths, np.inf)  # beyond: the studies with no interval
        return [float(widths[i]) for i in picks]

    def assurance(self, width: float) -> float:
        """``P(half-width <= width)`` (:func:`reaches_width`): the share of studies whose
        interval is defined, of positive width and narrow enough; what
        :func:`exact_psa_assurance` sums, read off the same pass (outcomes of probability
        below 1e-15 are left out of both the law and its total)."""
        width = check("width", width, RULES["width"])
        reached = int(np.searchsorted(self.half_widths, width, side="right"))
        return as_probability(float(self.cumulative[reached - 1]) if reached else 0.0)


def exact_psa_law(
    model: PairModel, n_items: int, confidence_level: float = 0.95, method: str = "wilson"
) -> ExactPSALaw | None:
    """The exact law of a PSA interval over studies of ``n_items`` items.

    The interval is a function of ``(a, U)``, whose law is known exactly (module docstring);
    ``method`` must be one of :data:`EXACT_PSA_METHODS`. ``None`` when the ``(U, a)`` grid is
    too large to hold (beyond about 30,000 union positives).

    >>> from planner.sizing.model import pair_from_counts
    >>> law = exact_psa_law(pair_from_counts([30, 10, 10, 950]), 1000)
    >>> round(law.coverage, 4), [round(q, 4) for q in law.quantiles((0.5,))]
    (0.9512, [0.1038])
    """
    check_choice("method", method, EXACT_PSA_METHODS)
    us, weights = _union_support(model, n_items)
    if _kept_outcomes(us, weights, model.jaccard) > 2 * _GRID_ELEMENTS:
        return None  # decided before the grid is built: the same answer, without the cost
    values, masses = [], []
    total, covered, truth = 0, 0.0, model.psa
    for part, interval, pmf in _outcome_grid(us, model.jaccard, confidence_level, method):
        mass = weights[part, None] * pmf
        holds = (np.asarray(interval.low) <= truth) & (truth <= np.asarray(interval.high))
        covered += float(np.sum(mass * holds))
        keep = mass > 1e-15
        total += int(keep.sum())
        if total > 2 * _GRID_ELEMENTS:
            return None
        values.append(usable_half_width(interval.half_width)[keep])
        masses.append(mass[keep])
    hw_all, mass_all = np.concatenate(values), np.concatenate(masses)
    order = np.argsort(hw_all, kind="stable")
    no_interval = as_probability((1.0 - model.union_rate) ** n_items)
    return ExactPSALaw(
        half_widths=hw_all[order],
        cumulative=np.cumsum(mass_all[order]) * (1.0 - no_interval) / mass_all.sum(),
        coverage=as_probability(covered),
        no_interval=no_interval,
    )


def exact_half_width_quantiles(
    model: PairModel,
    n_items: int,
    probabilities: tuple[float, ...],
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> list[float] | None:
    """Exact quantiles of the PSA half-width over studies of ``n_items`` items
    (:func:`exact_psa_law`); ``None`` when the grid is too large to hold."""
    law = exact_psa_law(model, n_items, confidence_level, method)
    return None if law is None else law.quantiles(probabilities)


def exact_psa_coverage(
    model: PairModel, n_items: int, confidence_level: float = 0.95, method: str = "wilson"
) -> float | None:
    """Exact coverage of a PSA interval over studies of ``n_items`` items
    (:attr:`ExactPSALaw.coverage`); ``None`` when the grid is too large to hold.

    >>> from planner.sizing.model import pair_from_counts
    >>> round(exact_psa_coverage(pair_from_counts([30, 10, 10, 950]), 1000), 4)
    0.9512
    """
    law = exact_psa_law(model, n_items, confidence_level, method)
    return None if law is None else law.coverage


def _kept_outcomes(us: NDArray, weights: NDArray, jaccard: float) -> int:
    """How many ``(U, a)`` outcomes :func:`exact_half_width_quantiles` keeps (mass > 1e-15).

    ``P(a | U)`` is unimodal in ``a`` (peak at ``floor((U + 1) J)``), so the kept ``a`` of
    each ``U`` are one run within the 9-SD support, found by bisection on each side: the
    count costs ``O(log U)`` probabilities per ``U`` instead of the whole grid.
    """
    lo, hi = _a_support(us, jaccard)
    peak = np.clip(np.floor((us + 1) * jaccard), lo, hi)
    threshold = 1e-15 / np.maximum(weights, 1e-300)

    def kept(a: NDArray) -> NDArray:
        return _binomial_pmf(a, us, jaccard) > threshold

    # first kept a in [lo, peak] (peak + 1 if none) and last kept a in [peak, hi]
    low, high = lo.copy(), peak + 1
    guard = step_guard("the bisection for the kept outcomes")
    while np.any(high > low):
        guard()
        mid = np.floor((low + high) / 2)
        hit = (high > low) & kept(mid)
        high, low = np.where(hit, mid, high), np.where(hit | (high == low), low, mid + 1)
    first = low
    low, high = peak - 1, hi.copy()
    guard = step_guard("the bisection for the kept outcomes")
    while np.any(high > low):
        guard()
        mid = np.ceil((low + high) / 2)
        hit = (high > low) & kept(mid)
        low, high = np.where(hit, mid, low), np.where(hit | (high == low), high, mid - 1)
    last = low
    return int(np.sum(np.where(kept(peak), last - first + 1, 0)))
