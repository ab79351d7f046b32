"""Profile-likelihood interval for Cohen's kappa on the 2 x 2 multinomial.

The four cell probabilities of a binary pair are written through the two positive rates
``p_A``, ``p_B`` and Cohen's kappa ``k``::

    s = p_A + p_B - 2 p_A p_B            (so that 1 - p_e = s)
    p_11 = p_A p_B + k s / 2,  p_10 = p_A - p_11,  p_01 = p_B - p_11,  p_00 = 1 - p_A - p_B + p_11

(``p_11 p_00 - p_10 p_01 = k s / 2``). For a hypothesised ``k0`` the profile log-likelihood
``l_P(k0) = max_{p_A, p_B} sum n_ij log p_ij`` is maximised by Newton's method in
``(p_A, p_B)``, vectorised over tables, and the interval is
``{k0 : 2 [l(n / N) - l_P(k0)] <= t_nu(1 - alpha/2)^2}`` (bisection on each side of the
estimate): the chi-square(1) quantile ``z^2`` of the first-order theory, widened for few counts
by the square of a t quantile whose degrees of freedom ``nu`` count the informative items
(:func:`degrees_of_freedom`); it tends to ``chi2_1`` as the counts grow. The margins are
re-estimated at every ``k0``: this is what carries the uncertainty of a rare annotator's
positive rate into the interval, which a score interval at the observed margins misses under
strong bias.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.statistics.agreement import binary_cells
from planner.statistics.intervals import ConfidenceInterval, FloatArray

#: Pseudo-count added to empty cells: keeps Newton's iterates inside the simplex (a log
#: barrier); its effect on the likelihood ratio is below 1e-4 at any table size.
_EMPTY_CELL = 1e-6
_NEWTON_STEPS = 8
_BISECTION_STEPS = 26
_EDGE_GRID = 49
_EDGE_SPAN = 6.0
_GOLDEN_STEPS = 30


def _cells(pa: FloatArray, pb: FloatArray, k: FloatArray) -> tuple[FloatArray, ...]:
    p11 = pa * pb + k * (pa + pb - 2 * pa * pb) / 2
    return p11, pa - p11, pb - p11, 1 - pa - pb + p11


def _loglik(counts: tuple[FloatArray, ...], cells: tuple[FloatArray, ...]) -> FloatArray:
    total = np.zeros_like(cells[0])
    for n_ij, p_ij in zip(counts, cells, strict=True):
        total = total + n_ij * np.log(np.where(p_ij > 0, p_ij, np.nan))
    return np.where(np.isnan(total), -np.inf, total)


def _newton_step(
    counts: tuple[FloatArray, ...], pa: FloatArray, pb: FloatArray, k: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Newton direction for the log-likelihood in ``(p_A, p_B)`` (gradient where not concave)."""
    u_a = pb + k * (1 - 2 * pb) / 2  # d p_11 / d p_A
    u_b = pa + k * (1 - 2 * pa) / 2
    w = 1 - k  # d2 p_11 / d p_A d p_B; the other second derivatives of p_11 are 0
    grads = ((u_a, u_b), (1 - u_a, -u_b), (-u_a, 1 - u_b), (u_a - 1, u_b - 1))
    cross = (w, -w, -w, w)
    cells = _cells(pa, pb, k)
    g1 = g2 = h11 = h12 = h22 = np.zeros_like(pa)
    for n_ij, p_ij, (d1, d2), x in zip(counts, cells, grads, cross, strict=True):
        r = n_ij / p_ij
        g1, g2 = g1 + r * d1, g2 + r * d2
        r2 = r / p_ij
        h11, h22 = h11 - r2 * d1 * d1, h22 - r2 * d2 * d2
        h12 = h12 + r * x - r2 * d1 * d2
    det = h11 * h22 - h12 * h12
    concave = (h11 < 0) & (det > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s1 = np.where(concave, -(h22 * g1 - h12 * g2) / det, 0.0)
        s2 = np.where(concave, -(h11 * g2 - h12 * g1) / det, 0.0)
        # elsewhere a gradient step scaled by the curvature of each coordinate
        s1 = np.where(concave, s1, g1 / np.maximum(np.abs(h11), 1e-300))
        s2 = np.where(concave, s2, g2 / np.maximum(np.abs(h22), 1e-300))
    return s1, s2


def _start(
    counts: tuple[FloatArray, ...], pa: FloatArray, pb: FloatArray, k: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The best of a few feasible starts on the segment from the margins' mean to the margins.

    Starting at the observed margins alone fails where ``k`` puts a cell with counts on the
    edge of the simplex there (a log-likelihood near minus infinity that Newton leaves slowly).
    """
    mean = (pa + pb) / 2
    sa, sb = np.full_like(pa, 0.5), np.full_like(pb, 0.5)
    best = _loglik(counts, _cells(sa, sb, k))
    for t in (0.0, 0.25, 0.5, 0.75, 0.9, 1.0):
        ta, tb = mean + t * (pa - mean), mean + t * (pb - mean)
        value = _loglik(counts, _cells(ta, tb, k))
        better = value > best
        sa, sb, best = np.where(better, ta, sa), np.where(better, tb, sb), np.maximum(value, best)
    return sa, sb, best


def _interior(
    counts: tuple[FloatArray, ...], pa: FloatArray, pb: FloatArray, k: FloatArray
) -> FloatArray:
    """Newton's maximum of the log-likelihood inside the simplex at kappa ``k``."""
    xa, xb, best = _start(counts, pa, pb, k)
    for _ in range(_NEWTON_STEPS):
        s1, s2 = _newton_step(counts, xa, xb, k)
        step = np.ones_like(xa)
        moved = np.zeros(xa.shape, dtype=bool)
        for _ in range(12):  # backtracking: stay feasible and improve
            ta, tb = xa + step * s1, xb + step * s2
            value = _loglik(counts, _cells(ta, tb, k))
            ok = ~moved & (value >= best)
            xa, xb = np.where(ok, ta, xa), np.where(ok, tb, xb)
            best = np.where(ok, value, best)
            moved = moved | ok
            step = step / 2
            if moved.all():
                break
    return best


def _on_edge(cell: int, pa: FloatArray, k: FloatArray) -> FloatArray:
    """``p_B`` at which cell ``cell`` (0 = p_11, 1 = p_10, 2 = p_01, 3 = p_00) is 0, given
    ``p_A`` and kappa: each cell is linear in ``p_B`` for fixed ``p_A``
    (``p_11 = p_B (p_A + k/2 - k p_A) + k p_A / 2``)."""
    slope = pa + k / 2 - k * pa
    with np.errstate(invalid="ignore", divide="ignore"):
        if cell == 0:
            return -(k * pa / 2) / slope
        if cell == 1:
            return (pa - k * pa / 2) / slope
        if cell == 2:
            return (k * pa / 2) / (1 - slope)
        return (1 - pa - k * pa / 2) / (1 - slope)


def _edge(counts: tuple[FloatArray, ...], cell: int, pa: FloatArray, k: FloatArray) -> FloatArray:
    """Maximum of the log-likelihood on the edge where the empty cell ``cell`` is 0.

    A one-dimensional search in ``logit(p_A)``: a grid around the observed rate, then golden
    sections between the grid neighbours of its best point.
    """
    base = np.log(pa / (1 - pa))[..., None]

    def value(u: FloatArray, kk: FloatArray, cnt: tuple[FloatArray, ...]) -> FloatArray:
        xa = 1 / (1 + np.exp(-u))
        xb = _on_edge(cell, xa, kk)
        on_edge = (xb > 0) & (xb < 1)
        cells = list(_cells(xa, np.where(on_edge, xb, 0.5), kk))
        for i in range(4):
            on_edge = on_edge & ((cells[i] >= 0) | (i == cell))
        cells[cell] = np.ones_like(xa)  # the empty cell: 0 log 0 = 0 on the edge
        out = _loglik(cnt, tuple(cells))
        return np.where(on_edge, out, -np.inf)

    steps = np.linspace(-_EDGE_SPAN, _EDGE_SPAN, _EDGE_GRID)
    u = base + steps
    grid_values = value(u, k[..., None], tuple(c[..., None] for c in counts))
    best = np.argmax(grid_values, axis=-1)
    spacing = steps[1] - steps[0]
    lo = np.take_along_axis(u, best[..., None], -1)[..., 0] - spacing
    hi = lo + 2 * spacing
    ratio = (np.sqrt(5) - 1) / 2
    for _ in range(_GOLDEN_STEPS):
        m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        left = value(m1, k, counts) >= value(m2, k, counts)
        lo, hi = np.where(left, lo, m1), np.where(left, m2, hi)
    return np.maximum(value((lo + hi) / 2, k, counts), grid_values.max(axis=-1))


def profile_loglik(
    counts: tuple[FloatArray, ...], pa: FloatArray, pb: FloatArray, k: FloatArray
) -> FloatArray:
    """``max_{p_A, p_B} l`` at kappa ``k``, from the observed margins ``pa``, ``pb``.

    Inside the simplex by Newton's method; for each empty cell also on the edge where that
    cell's probability is 0 (where the maximum sits when the data leave the cell empty,
    for example one annotator's positives nested in the other's); the larger of the two.
    """
    best = _interior(counts, pa, pb, k)
    for cell, n_ij in enumerate(counts):
        empty = n_ij <= _EMPTY_CELL
        if empty.any():
            idx = np.flatnonzero(empty)
            sub = tuple(c[idx] for c in counts)
            best[idx] = np.maximum(best[idx], _edge(sub, cell, pa[idx], k[idx]))
    return best


#: the rarer-margin cap on the degrees of freedom: ``nu <= RARER_MARGIN_FACTOR * m - 1``
RARER_MARGIN_FACTOR = 4.0


def critical_value(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, confidence_level: float
) -> FloatArray:
    """The likelihood-ratio statistic's critical value per table: ``t_nu(1 - alpha/2)^2``.

    With many counts ``t_nu^2 -> chi2_1`` (the first-order law of the statistic); with few
    the statistic's law has a heavier tail, which the t quantile's small-``nu`` inflation
    (about ``z^2 (1 + (z^2 + 1) / (2 nu))``) absorbs. ``nu`` is
    :func:`degrees_of_freedom`.
    """
    from scipy import stats  # lazily: only the profile interval needs the t quantile

    nu = degrees_of_freedom(a, b, c, d)
    return np.asarray(stats.t.ppf((1 + confidence_level) / 2, nu), dtype=float) ** 2


def degrees_of_freedom(a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray) -> FloatArray:
    """``nu = min(a + b + c, b + c + d, 4 m) - 1`` (at least 1), ``m = min(a + b, a + c,
    b + d, c + d)`` the smallest margin.

    The first two terms count the items that inform kappa from the rarer side (the union
    positives, or the union negatives when positives are the majority); the third is the
    rarer annotator's count of its rarer label, the information on the rate that moves most
    under strong bias (a rater with 4 positives and a partner with 40: ``nu = 15``, not 40).
    Chosen by simulation (coverage_study/coverage.md, docs/methods/two-annotators.md).
    """
    smallest = np.minimum(np.minimum(a + b, a + c), np.minimum(b + d, c + d))
    informative = np.minimum(np.minimum(a + b + c, b + c + d), RARER_MARGIN_FACTOR * smallest)
    return np.maximum(informative - 1, 1.0)


def kappa_profile_interval(table: ArrayLike, confidence_level: float = 0.95) -> ConfidenceInterval:
    """Profile-likelihood interval for Cohen's kappa (binary, two annotators, bias allowed).

    ``{k0 : 2 [l(n / N) - max_{p_A, p_B} l(p(p_A, p_B, k0))] <= t_nu(1 - alpha/2)^2}``
    with ``l(p) = sum n_ij log p_ij`` the multinomial log-likelihood (module docstring):
    the limits are where the likelihood-ratio statistic of ``kappa = k0``, with both
    positive rates re-estimated under the hypothesis, reaches the squared t quantile
    (:func:`critical_value`; chi-square(1) for many counts).
    Like a score interval it needs no standard error at the estimate, and unlike the score
    interval at the observed rates (:func:`~planner.statistics.intervals.kappa_score_interval`)
    it lets the rarer annotator's rate move with ``k0``, which is what keeps its coverage
    under strong bias (coverage_study/coverage.md). NaN where kappa is undefined (an
    annotator uses one category only).

    Cost: about 26 bisection steps a side, each a few Newton steps in two dimensions
    (plus a one-dimensional search on the edge of each empty cell), vectorised over tables:
    milliseconds for one table, about a second for a few thousand.

    >>> ci = kappa_profile_interval([[6, 21], [14, 459]])
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.0716, 0.4059)
    """
    cells = binary_cells(table)
    shape = np.shape(cells[0])
    a, b, c, d = (np.asarray(x, dtype=float).reshape(-1) for x in cells)
    n = a + b + c + d
    crit = critical_value(a, b, c, d, confidence_level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = np.where(n > 0, (a + b) / n, 0.5)
        pb = np.where(n > 0, (a + c) / n, 0.5)
        defined = (n > 0) & (pa > 0) & (pa < 1) & (pb > 0) & (pb < 1)
        pa, pb = np.where(defined, pa, 0.5), np.where(defined, pb, 0.5)
        counts = tuple(np.where(x > 0, x, _EMPTY_CELL) for x in (a, b, c, d))
        total = sum(counts)
        top = sum(x * np.log(x / total) for x in counts)
        pe = pa * pb + (1 - pa) * (1 - pb)
        k_hat = np.where(defined, ((a + d) / np.where(n > 0, n, 1.0) - pe) / (1 - pe), 0.0)

        def inside(k0: FloatArray) -> NDArray[np.bool_]:
            return top - profile_loglik(counts, pa, pb, k0) <= crit

        def side(end: float) -> FloatArray:
            lo, hi = k_hat.copy(), np.full_like(k_hat, end)
            for _ in range(_BISECTION_STEPS):
                mid = (lo + hi) / 2
                ok = inside(mid)
                lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
            return np.where(inside(hi), hi, (lo + hi) / 2)

        low, high = side(-1.0 + 1e-9), side(1.0 - 1e-9)
    low, high = np.where(defined, low, np.nan), np.where(defined, high, np.nan)
    return ConfidenceInterval(low.reshape(shape), high.reshape(shape))
