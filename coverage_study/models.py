"""Population models of the coverage grid: cell probabilities and label-pattern probabilities.

Two annotators
    *Unbiased pairs* come from :func:`planner.sizing.model.pair_from_annotators` with bias 0 for
    both annotators and a common error rate solved so that the population PSA (or Cohen's
    kappa) equals the grid's agreement level; the ambiguity share ``h`` makes errors
    correlated. *Biased pairs* are built from the two positive rates ``(p_A, p_B)`` and the
    agreement level directly: the joint positive rate ``a`` fixes the table
    (``b = p_A - a``, ``c = p_B - a``, ``d = 1 - p_A - p_B + a``), with ``a`` from PSA
    (``a = PSA (p_A + p_B) / 2``), from Cohen's kappa, or ``a = min(p_A, p_B)`` ("nested":
    every item the stricter annotator flags, the other flags too).

Several annotators
    ``M`` annotators label items with true prevalence ``pi``; annotator ``j`` has error
    rate ``e`` and bias ``s_j`` (false-negative and false-positive rates from
    :func:`planner.sizing.model.annotator_rates`). As in the pair model, a share ``1 - h`` of items
    is "clear" (annotators err independently) and a share ``h`` is "ambiguous" (one
    difficulty ``V ~ U(0, 1)`` per item; annotator ``j`` errs when ``V < rate_j``). The
    result is one probability per label pattern (``2^M`` of them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from planner.sizing.model import annotator_rates, pair_from_annotators
from planner.statistics.agreement import cohen_kappa, positive_agreement
from planner.statistics.multirater import chance_corrected

FloatArray = NDArray[np.float64]
# the multiplicity that turns pattern probabilities into a population (n -> infinity)
POPULATION = 1e12
_GRID_POINTS = 64
_BISECTION_STEPS = 60


def table(cells: tuple[float, ...] | FloatArray) -> FloatArray:
    """The ``(2, 2)`` probability table of cells ``(a, b, c, d)``."""
    return np.asarray(cells, dtype=float).reshape(2, 2)


PAIR_METRICS: dict[str, Callable[[FloatArray], float]] = {
    "psa": lambda cells: float(positive_agreement(table(cells))),
    "kappa": lambda cells: float(cohen_kappa(table(cells))),
}


def solve_decreasing(fn: Callable[[float], float], target: float, upper: float) -> float | None:
    """Smallest ``x`` in ``(0, upper)`` with ``fn(x) = target`` for ``fn`` starting above it.

    A scan of :data:`_GRID_POINTS` points finds the first crossing, bisection refines it;
    ``None`` when ``fn`` never falls to ``target`` (the grid cell is infeasible).
    """
    xs = np.linspace(0.0, upper, _GRID_POINTS + 1)[1:] * (1 - 1e-9)
    values = np.array([fn(float(x)) for x in xs])
    below = np.flatnonzero(values <= target)
    if below.size == 0 or fn(0.0) < target:
        return None
    hi = float(xs[below[0]])
    lo = float(xs[below[0] - 1]) if below[0] > 0 else 0.0
    for _ in range(_BISECTION_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fn(mid) > target else (lo, mid)
    return (lo + hi) / 2


def max_error_rate(prevalence: float, biases: tuple[float, ...]) -> float:
    """Largest common error rate keeping every annotator's sensitivity and specificity >= 0.5.

    Beyond it an annotator is worse than a coin on one class (and at sensitivity 0 it never
    says positive); such models are not part of the grid. Also below 0.5, as the model needs.
    """
    limit = 0.5
    for bias in biases:
        share_fp = (1 + bias) / 2
        if share_fp < 1:
            limit = min(limit, 0.5 * prevalence / (1 - share_fp))
        if share_fp > 0:
            limit = min(limit, 0.5 * (1 - prevalence) / share_fp)
    return limit


def unbiased_pair(
    prevalence: float, metric: str, level: float, ambiguity: float
) -> tuple[FloatArray, float] | None:
    """Cells of the unbiased pair whose population ``metric`` equals ``level``, and the error rate.

    ``None`` when no error rate in ``[0, 0.5)`` reaches the level.
    """

    def value(e: float) -> float:
        return PAIR_METRICS[metric](pair_from_annotators(prevalence, e, 0.0, ambiguity).cells)

    e = solve_decreasing(value, level, max_error_rate(prevalence, (0.0,)))
    if e is None:
        return None
    return np.array(pair_from_annotators(prevalence, e, 0.0, ambiguity).cells), e


def biased_pair(rate_a: float, rate_b: float, metric: str, level: float) -> FloatArray | None:
    """Cells with positive rates ``(rate_a, rate_b)`` and the agreement ``level``.

    ``metric`` is ``"psa"``, ``"kappa"`` or ``"nested"`` (``level`` ignored, ``a = min``).
    ``None`` when the level cannot be reached with these positive rates.
    """
    if metric == "nested":
        a = min(rate_a, rate_b)
    elif metric == "psa":
        a = level * (rate_a + rate_b) / 2
    else:  # Cohen's kappa: p_o = kappa (1 - p_e) + p_e and p_o = 1 - p_A - p_B + 2a
        p_e = rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
        a = (level * (1 - p_e) + p_e - 1 + rate_a + rate_b) / 2
    cells = np.array([a, rate_a - a, rate_b - a, 1 - rate_a - rate_b + a])
    if np.any(cells < -1e-12):
        return None
    return np.maximum(cells, 0.0)


# --------------------------------------------------------------------------- several annotators


def pattern_bits(n_annotators: int) -> NDArray[np.int64]:
    """``(2^M, M)`` 0/1 labels of every pattern: in pattern ``p``, annotator ``j`` is bit ``j``."""
    codes = np.arange(2**n_annotators)
    return (codes[:, None] >> np.arange(n_annotators)) & 1


def _error_patterns(rates: FloatArray, ambiguity: float) -> FloatArray:
    """``P(set of annotators who err)`` over the ``2^M`` error patterns, given the truth."""
    bits = pattern_bits(rates.size).astype(float)
    independent = np.prod(np.where(bits == 1, rates, 1 - rates), axis=1)
    shared = np.zeros_like(independent)
    # with one difficulty V, the annotators who err are {j : V < rate_j}: nested sets
    order = np.argsort(-rates)
    sorted_rates = np.append(rates[order], 0.0)
    code = 0
    shared[0] += 1 - sorted_rates[0]
    for k, j in enumerate(order):
        code |= 1 << int(j)
        shared[code] += sorted_rates[k] - sorted_rates[k + 1]
    return (1 - ambiguity) * independent + ambiguity * shared


def pattern_probabilities(
    prevalence: float, error_rate: float, biases: tuple[float, ...], ambiguity: float
) -> FloatArray:
    """Probabilities of the ``2^M`` label patterns (bit j set: annotator j says positive)."""
    rates = [annotator_rates(prevalence, error_rate, s) for s in biases]
    fnr = np.array([r[0] for r in rates])
    fpr = np.array([r[1] for r in rates])
    full = 2 ** len(biases) - 1
    codes = np.arange(full + 1)
    # truth positive: the labels are the complement of the error pattern; negative: equal to it
    positive = _error_patterns(fnr, ambiguity)[full ^ codes]
    negative = _error_patterns(fpr, ambiguity)
    return prevalence * positive + (1 - prevalence) * negative


def category_rows(n_annotators: int) -> NDArray[np.int64]:
    """The ``M + 1`` possible per-item counts ``(positives, negatives)``, positives ``0..M``."""
    j = np.arange(n_annotators + 1)
    return np.stack([j, n_annotators - j], axis=1)


def compress_patterns(pattern_counts: NDArray, n_annotators: int) -> NDArray:
    """Sum pattern counts ``(..., 2^M)`` into counts per number of positives ``(..., M + 1)``."""
    positives = pattern_bits(n_annotators).sum(axis=1)
    onehot = (positives[:, None] == np.arange(n_annotators + 1)).astype(pattern_counts.dtype)
    return pattern_counts @ onehot


def multi_rater_model(
    prevalence: float,
    n_annotators: int,
    level: float,
    bias: float,
    ambiguity: float = 0.0,
) -> tuple[FloatArray, float] | None:
    """Pattern probabilities whose population Fleiss kappa is ``level``, and the error rate.

    Annotators' biases alternate ``+bias, -bias, ...``; the common error rate is solved.
    """
    biases = tuple(bias if j % 2 == 0 else -bias for j in range(n_annotators))
    rows = category_rows(n_annotators)

    def kappa(e: float) -> float:
        probs = compress_patterns(
            pattern_probabilities(prevalence, e, biases, ambiguity), n_annotators
        )
        return float(chance_corrected(rows, "fleiss", multiplicity=probs * POPULATION).estimate)

    e = solve_decreasing(kappa, level, max_error_rate(prevalence, biases))
    if e is None:
        return None
    return pattern_probabilities(prevalence, e, biases, ambiguity), e
