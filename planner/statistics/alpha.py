"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, missing data allowed.

From per-item category counts ``(..., N, K)`` and the categories' numeric values, the
coincidence matrix is

    o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)      over items with m_u >= 2,

``n_c = sum_k o_ck``, ``n = sum_c n_c`` and

    alpha = 1 - (n - 1) sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

with the squared distances ``d2`` of the level: nominal ``[c != k]``; ordinal
``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` (ranks from the observed frequencies);
interval ``(c - k)^2``; ratio ``((c - k) / (c + k))^2`` (Krippendorff 2011).

For interval data with very many distinct values the same alpha is computed from per-item
sums (:func:`interval_alpha_from_values`), in memory linear in the items: a unit's ordered
pairs give ``sum_ij (x_i - x_j)^2 = 2 m S2 - 2 S1^2``. Ratio data with many values use
pairwise sums within items and a blocked sum over distinct values
(:func:`ratio_alpha_from_values`), again in linear memory.

References
----------
Krippendorff K (2011) Computing Krippendorff's alpha-reliability. Departmental Papers
    (ASC) 43, University of Pennsylvania.
Hayes AF, Krippendorff K (2007) Answering the call for a standard reliability measure for
    coding data. Commun Methods Meas 1:77-89.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from planner.statistics.multirater import Patterns

FloatArray = NDArray[np.float64]
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"`level` must be one of {LEVELS}, got {level!r}")
    return level


def coincidence_matrix(counts: ArrayLike, multiplicity: ArrayLike | None = None) -> FloatArray:
    """Krippendorff's coincidence matrix ``(..., K, K)`` from ``(..., N, K)`` counts.

    ``multiplicity`` ``(..., N)`` weights each row by the number of items sharing it.

    >>> coincidence_matrix([[2, 0], [1, 1], [0, 3]]).tolist()
    [[2.0, 1.0], [1.0, 3.0]]
    """
    c = np.asarray(counts, dtype=float)
    m = c.sum(axis=-1)
    weight = np.zeros_like(m)
    np.divide(1.0, m - 1, out=weight, where=m >= 2)
    if multiplicity is not None:
        weight = weight * np.asarray(multiplicity, dtype=float)
    scaled = c * weight[..., None]
    o = np.swapaxes(scaled, -1, -2) @ c
    idx = np.arange(c.shape[-1])
    o[..., idx, idx] -= scaled.sum(axis=-2)
    return o


def squared_distances(level: str, values: ArrayLike, marginals: ArrayLike) -> FloatArray:
    """``d2_ck`` for the level; ``marginals`` ``n_c`` (``(..., K)``) are used by ordinal only.

    ``values`` must be sorted increasingly for ordinal data (it fixes the ranks).
    """
    _check_level(level)
    x = np.asarray(values, dtype=float)
    n_c = np.asarray(marginals, dtype=float)
    k = x.shape[-1]
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), n_c.shape[:-1] + (k, k)).copy()
    if level == "ordinal":
        cum = np.cumsum(n_c, axis=-1)
        # sum_{g=c..k} n_g - (n_c + n_k)/2 = cum_k - cum_c + (n_c - n_k)/2 for c <= k
        d = cum[..., None, :] - cum[..., :, None] + (n_c[..., :, None] - n_c[..., None, :]) / 2
        return d**2
    diff = x[:, None] - x[None, :]
    if level == "interval":
        d2 = diff**2
    else:
        total = x[:, None] + x[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            d2 = np.where(total != 0, (diff / np.where(total != 0, total, 1.0)) ** 2, 0.0)
    return np.broadcast_to(d2, n_c.shape[:-1] + (k, k)).copy()


def alpha_from_coincidences(o: ArrayLike, values: ArrayLike, level: str) -> FloatArray:
    """Alpha from coincidence matrices ``(..., K, K)``; NaN when there is no variation."""
    o = np.asarray(o, dtype=float)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    d2 = squared_distances(level, values, n_c)
    observed = (o * d2).sum(axis=(-2, -1))
    expected = np.einsum("...c,...ck,...k->...", n_c, d2, n_c)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            expected > 0, 1.0 - (n - 1) * observed / np.where(expected > 0, expected, 1), np.nan
        )


def krippendorff_alpha(
    counts: ArrayLike,
    values: ArrayLike | None = None,
    level: str = "nominal",
    multiplicity: ArrayLike | None = None,
) -> FloatArray:
    """Krippendorff's alpha from per-item counts ``(..., N, K)``.

    Parameters
    ----------
    counts
        Ratings per item and category; items with fewer than two ratings drop out.
    values
        Numeric value of each category, increasing (default ``0..K-1``; needed for
        interval and ratio data).
    level
        ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
    multiplicity
        ``(..., N)`` number of items sharing each row of counts (default 1 each).

    Examples
    --------
    Krippendorff (2011), reliability data with missing values (4 observers, 12 units):

    >>> counts = [[3,0,0,0,0],[0,3,1,0,0],[0,0,4,0,0],[0,0,4,0,0],[0,4,0,0,0],[1,1,1,1,0],
    ...           [0,0,0,4,0],[3,1,0,0,0],[0,4,0,0,0],[0,0,0,0,3],[2,0,0,0,0],[0,0,1,0,0]]
    >>> [round(float(krippendorff_alpha(counts, [1, 2, 3, 4, 5], lv)), 3) for lv in LEVELS]
    [0.743, 0.815, 0.849, 0.797]
    """
    _check_level(level)
    c = np.asarray(counts, dtype=float)
    x = np.arange(c.shape[-1], dtype=float) if values is None else np.asarray(values, float)
    return alpha_from_coincidences(coincidence_matrix(c, multiplicity), x, level)


_BLOCK_ROWS = 4096  # rows per block: the temporaries of a block stay in the CPU cache


def _value_moments(values: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per-item count, sum and sum of squares of the non-missing values (NaN = missing).

    Computed in blocks of rows (cache-resident temporaries); row sums are matrix-vector
    products.
    """
    v = np.asarray(values, dtype=float)
    flat = v.reshape(-1, v.shape[-1])
    count, total, squares = (np.empty(flat.shape[0]) for _ in range(3))
    ones = np.ones(v.shape[-1])
    for start in range(0, flat.shape[0], _BLOCK_ROWS):
        block = flat[start : start + _BLOCK_ROWS]
        missing = np.isnan(block)
        filled = block.copy()
        np.copyto(filled, 0.0, where=missing)
        stop = start + block.shape[0]
        count[start:stop] = v.shape[-1] - missing.astype(float) @ ones
        total[start:stop] = filled @ ones
        squares[start:stop] = np.einsum("ij,ij->i", filled, filled)
    shape = v.shape[:-1]
    return count.reshape(shape), total.reshape(shape), squares.reshape(shape)


def interval_alpha_from_values(values: ArrayLike) -> FloatArray:
    """Interval alpha from an ``(..., N, m)`` matrix of values (NaN = missing).

    Linear in time and memory: with per-item ``m_u``, ``S1 = sum x`` and ``S2 = sum x^2``
    over items with ``m_u >= 2``, ``D_o`` sums ``(2 m_u S2 - 2 S1^2) / (m_u - 1)`` and
    ``D_e`` is ``2 n sum S2 - 2 (sum S1)^2`` over all pairable values.

    >>> v = [[1, 1, np.nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...      [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [np.nan, 5, 5, 5],
    ...      [np.nan, np.nan, 1, 1], [np.nan, np.nan, 3, np.nan]]
    >>> round(float(interval_alpha_from_values(v)), 6)
    0.849107
    """
    m, s1, s2 = _value_moments(values)
    pairable = m >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        within = np.where(pairable, (2 * m * s2 - 2 * s1**2) / np.where(pairable, m - 1, 1), 0.0)
    n = np.where(pairable, m, 0).sum(axis=-1)
    total1 = np.where(pairable, s1, 0).sum(axis=-1)
    total2 = np.where(pairable, s2, 0).sum(axis=-1)
    observed = within.sum(axis=-1)
    expected = 2 * n * total2 - 2 * total1**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            expected > 0, 1 - (n - 1) * observed / np.where(expected > 0, expected, 1), np.nan
        )


def interval_alpha_jackknife(values: ArrayLike) -> tuple[float, float]:
    """Interval alpha and its delete-one-item jackknife standard error, in linear time.

    Leaving item u out subtracts its ``m_u``, ``S1``, ``S2`` and within-item sum from the
    totals, so all ``N`` leave-one-out alphas come from one vectorised pass.
    """
    m, s1, s2 = _value_moments(values)
    keep = m >= 2
    m, s1, s2 = m[keep], s1[keep], s2[keep]
    within = (2 * m * s2 - 2 * s1**2) / (m - 1)
    n, t1, t2, obs = m.sum(), s1.sum(), s2.sum(), within.sum()

    def alpha(n_, t1_, t2_, obs_):  # type: ignore[no-untyped-def]
        expected = 2 * n_ * t2_ - 2 * t1_**2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected > 0, 1 - (n_ - 1) * obs_ / expected, np.nan)

    full = float(alpha(n, t1, t2, obs))
    loo = alpha(n - m, t1 - s1, t2 - s2, obs - within)
    count = loo.size
    if count < 2:
        return full, float("nan")
    se = float(np.sqrt((count - 1) / count * np.nansum((loo - np.nanmean(loo)) ** 2)))
    return full, se


def ratio_alpha_from_values(values: ArrayLike, block: int | None = None) -> float:
    """Ratio alpha from an ``(N, m)`` matrix of non-negative values (NaN = missing).

    ``D_o`` from annotator pairs within items (``m (m - 1) / 2`` vector passes), ``D_e``
    from the distinct values and their frequencies: up to ``RATIO_DIRECT_LIMIT`` of them
    exactly in blocks of ``block`` values, above it by :func:`ratio_expected` in
    ``O(V Q)`` (within 1e-13 relative, tested), so memory stays linear in the items and time
    is ``O(V log V)`` for the sort plus ``O(V Q)``.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"`values` must have shape (N, m), got {v.shape}")
    present = ~np.isnan(v)
    m = present.sum(axis=1)
    pairable = m >= 2
    v = v[pairable]
    weight = 1.0 / (m[pairable] - 1)
    observed = 0.0
    cols = v.shape[1]
    for i in range(cols):
        for j in range(i + 1, cols):
            a, b = v[:, i], v[:, j]
            ok = ~(np.isnan(a) | np.isnan(b))
            s = a[ok] + b[ok]
            d = np.where(s != 0, (a[ok] - b[ok]) / np.where(s != 0, s, 1), 0.0)
            observed += 2.0 * float(np.sum(weight[ok] * d * d))
    flat = v[~np.isnan(v)]
    distinct, freq = np.unique(flat, return_counts=True)
    freq = freq.astype(float)
    n = freq.sum()
    if distinct.size <= RATIO_DIRECT_LIMIT:
        block = block or max(1, 2_000_000 // max(1, distinct.size))
        expected = 0.0
        for start in range(0, distinct.size, block):
            x = distinct[start : start + block, None]
            s = x + distinct[None, :]
            d = np.where(s != 0, (x - distinct[None, :]) / np.where(s != 0, s, 1), 0.0)
            expected += float(freq[start : start + block] @ (d * d) @ freq)
    else:
        expected = float(ratio_expected(freq, distinct))
    if expected <= 0:
        return float("nan")
    return 1.0 - (n - 1) * observed / expected


#: Above this many categories ratio alpha's expected disagreement comes from the quadrature
#: of :func:`ratio_pair_kernel_sum` (``O(K Q)``) instead of the ``K x K`` distance matrix.
RATIO_DIRECT_LIMIT = 2000
_RATIO_STEP = 0.2  # trapezoid step in s = log t: relative error below 1e-17 (see below)
_RATIO_LOW = -20.0  # plus -log(V) / 2: the part below is under 2 e^-40 of the sum
_RATIO_HIGH = np.log(40.0)  # minus log x_min: beyond, every term is below e^-80 of its peak
_RATIO_BLOCK = 2_000_000  # floats of one block of the (K, Q) exponential table


def ratio_pair_kernel_sum(weights: ArrayLike, values: ArrayLike) -> FloatArray:
    """``S = sum_ck w_c w_k x_c x_k / (x_c + x_k)^2`` over positive values, in ``O(K Q)``.

    The ratio distance is ``((a - b) / (a + b))^2 = 1 - 4 ab / (a + b)^2``, and
    ``ab / (a + b)^2 = ab int_0^inf t e^{-(a + b) t} dt``, so ``S = int_0^inf t G(t)^2 dt``
    with ``G(t) = sum_c w_c x_c e^{-x_c t}``. With ``t = e^s`` the integrand
    ``e^{2s} G(e^s)^2`` is analytic in the strip ``|Im s| < pi / 2`` and decays at both
    ends, so the trapezoidal rule with step ``h`` has relative error at most
    ``2 / (cos^2 d (e^{2 pi d / h} - 1))`` for any ``d < pi / 2`` (Trefethen & Weideman
    2014, Theorem 5.1): with ``h = 0.2`` and ``d = 1.4`` below ``1e-17``. Values are scaled
    by the largest (the kernel is scale-free). The range of ``s`` is cut below at
    ``-20 - log(V) / 2``, where the rest of the integral, at most ``(sum w)^2 e^{2s} / 2``, is
    under ``2 e^-40`` of ``S >= sum w^2 / 4``, and above at ``log(40 / x_min)``, where every
    term is below ``e^-80`` of its peak; so ``Q`` is about
    ``(24 + log(V) / 2 + log(x_max / x_min)) / h`` nodes. In floating point the result is
    within about 1e-13 of the exact sum (relative; tested). ``weights`` may carry leading
    batch axes ``(..., K)``.

    >>> x = np.array([1.0, 2.0, 5.0]); w = np.array([3.0, 1.0, 2.0])
    >>> exact = (w[:, None] * w * x[:, None] * x / (x[:, None] + x) ** 2).sum()
    >>> bool(abs(ratio_pair_kernel_sum(w, x) - exact) < 1e-12 * exact)
    True
    """
    x = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    positive = x > 0
    if not positive.any():
        return np.zeros(w.shape[:-1])
    x, w = x[positive], w[..., positive]
    flat = w.reshape(-1, x.size)
    table = _ratio_table(x / x.max(), keep=flat.shape[0] > 1)
    if table is not None:  # the same values again (a bootstrap): one matrix product
        g = flat @ table
    else:
        g = np.zeros((flat.shape[0], _ratio_nodes(x / x.max()).size))
        for block, rows in _ratio_blocks(x / x.max()):
            g += flat[:, rows] @ block
    return (g**2).sum(axis=-1).reshape(w.shape[:-1])


_RATIO_CACHE: dict[tuple[int, bytes], FloatArray] = {}
_RATIO_CACHE_FLOATS = 40_000_000  # keep the (K, Q) table of one set of values up to this size


def _ratio_nodes(x: FloatArray) -> FloatArray:
    """``sqrt(h) e^{s}`` and ``t = e^s`` at the trapezoid nodes for scaled values ``x``."""
    return np.exp(
        np.arange(_RATIO_LOW - np.log(x.size) / 2, _RATIO_HIGH - np.log(x.min()), _RATIO_STEP)
    )


def ratio_node_count(values: ArrayLike) -> int:
    """Nodes ``Q`` of the quadrature :func:`ratio_pair_kernel_sum` uses for these values."""
    x = np.asarray(values, dtype=float)
    x = x[x > 0]
    return int(_ratio_nodes(x / x.max()).size) if x.size else 0


def _ratio_blocks(x: FloatArray) -> Iterator[tuple[FloatArray, slice]]:
    """Blocks of the ``(K, Q)`` table ``x_c e^{-x_c t_q} sqrt(h) t_q``, with their rows."""
    t = _ratio_nodes(x)
    scale = np.sqrt(_RATIO_STEP) * t  # its square is the trapezoid weight h e^{2s}
    step = max(1, _RATIO_BLOCK // t.size)
    for start in range(0, x.size, step):
        xb = x[start : start + step, None]
        yield xb * np.exp(-xb * t) * scale, slice(start, start + step)


def _ratio_table(x: FloatArray, keep: bool) -> FloatArray | None:
    """The whole table kept from an earlier call with these values; else, when ``keep`` (a
    batch of weight vectors: a bootstrap's resamples, whose next batch reuses it) and it is
    small enough, the table built and kept. A single estimate streams the blocks instead,
    so its memory stays one block."""
    key = (x.size, hashlib.sha1(x.tobytes()).digest())
    if key in _RATIO_CACHE:
        return _RATIO_CACHE[key]
    if not keep or x.size * _ratio_nodes(x).size > _RATIO_CACHE_FLOATS:
        return None
    table = np.empty((x.size, _ratio_nodes(x).size))
    for block, rows in _ratio_blocks(x):  # filled in place: one block at a time beside it
        table[rows] = block
    _RATIO_CACHE.clear()
    _RATIO_CACHE[key] = table
    return table


def ratio_expected(weights: ArrayLike, values: ArrayLike) -> FloatArray:
    """``sum_ck n_c n_k ((x_c - x_k) / (x_c + x_k))^2`` for non-negative values, ``O(K Q)``.

    Equals ``n^2 - n_0^2 - 4 S`` with ``n_0`` the weight at zero (two zeros are at distance
    0, a zero and a positive value at distance 1) and ``S`` :func:`ratio_pair_kernel_sum`.
    """
    x = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    n = w.sum(axis=-1)
    n_zero = w[..., x == 0].sum(axis=-1)
    return n**2 - n_zero**2 - 4 * ratio_pair_kernel_sum(w, x)


def _ratio_pair_sums(p: Patterns, x: FloatArray) -> FloatArray:
    """``t_u = sum_jl n_uj n_ul d2_ratio`` per pattern over its own categories, ``O(P L^2)``."""
    at = x[p.categories]
    total = np.zeros(p.n_patterns)
    for j in range(p.counts.shape[1]):
        a, b = at[:, j, None], at
        s = a + b
        d = np.where(s != 0, (a - b) / np.where(s != 0, s, 1.0), 0.0)
        total += p.counts[:, j] * (d * d * p.counts).sum(axis=1)
    return total


def krippendorff_alpha_patterns(
    patterns: Patterns,
    values: ArrayLike | None = None,
    level: str = "nominal",
    multiplicity: ArrayLike | None = None,
) -> FloatArray:
    """:func:`krippendorff_alpha` on :class:`~planner.statistics.multirater.Patterns`, without
    ``K^2``.

    Only items with ``m_u >= 2`` ratings count. ``D_o = sum_u mult_u t_u / (m_u - 1)`` with
    the item's ``t_u = sum_jl n_uj n_ul d2_jl`` over its own categories (fixed for the
    nominal, interval and ratio levels, so a resample only re-weights them), and ``D_e`` from
    the resample's marginals ``n_c``:

    * nominal: ``D_e = n^2 - sum_c n_c^2``, ``t_u = m_u^2 - sum_j n_uj^2``;
    * interval: ``D_e = 2 n sum_c n_c (x_c - xbar)^2``;
    * ordinal: the distance of Krippendorff (2011) is the interval distance between the
      categories' mid-ranks ``r_c = sum_{g <= c} n_g - n_c / 2``, which move with the
      marginals: ``t_u = 2 m_u S2_u - 2 S1_u^2`` with ``S1_u = sum_j n_uj r_cj``,
      ``S2_u = sum_j n_uj r_cj^2`` (exact: mid-ranks are half-integers) and ``D_e`` as
      interval on the ``r_c``, ``O(P L + K)`` per resample;
    * ratio: ``D_e = n^T D2 n``, ``O(K^2)`` per resample up to ``RATIO_DIRECT_LIMIT``
      categories; above it :func:`ratio_expected` (``O(K Q)``, within 1e-13 relative, tested)
      and ``t_u`` over each pattern's own categories.

    ``multiplicity`` ``(..., P)`` (default the patterns' own) gives a batch of alphas.
    """
    _check_level(level)
    p = patterns
    k = p.n_categories
    x = np.arange(k, dtype=float) if values is None else np.asarray(values, dtype=float)
    mult = np.asarray(p.multiplicity if multiplicity is None else multiplicity, dtype=float)
    m_u = p.totals
    pairable = m_u >= 2
    weight = np.where(pairable, 1.0 / np.where(pairable, m_u - 1, 1.0), 0.0)
    used = mult * pairable
    n_c = p.per_category(used)  # (..., K)
    n = n_c.sum(axis=-1)
    if level == "ordinal":
        ranks = np.cumsum(n_c, axis=-1) - n_c / 2
        at = np.take(ranks, p.categories, axis=-1)  # (..., P, L)
        s1 = (p.counts * at).sum(axis=-1)
        s2 = (p.counts * at**2).sum(axis=-1)
        observed = (used * weight * (2 * m_u * s2 - 2 * s1**2)).sum(axis=-1)
        x_b = ranks
    else:
        if level == "nominal":
            t_u = m_u**2 - p.pair_sums()
        elif level == "interval":
            t_u = p.pair_sums(x, distance=True)
        elif k > RATIO_DIRECT_LIMIT:
            t_u = _ratio_pair_sums(p, x)
        else:
            t_u = p.pair_sums(squared_distances("ratio", x, np.zeros(k)))
        observed = used @ (weight * t_u)
        x_b = np.broadcast_to(x, n_c.shape)
    if level == "nominal":
        expected = n**2 - (n_c**2).sum(axis=-1)
    elif level == "ratio" and k > RATIO_DIRECT_LIMIT:
        expected = ratio_expected(n_c, x)
    elif level == "ratio":
        expected = np.einsum("...c,ck,...k->...", n_c, squared_distances("ratio", x, x), n_c)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = (n_c * x_b).sum(axis=-1) / np.where(n > 0, n, 1)
        expected = 2 * n * (n_c * (x_b - mean[..., None]) ** 2).sum(axis=-1)
    defined = (expected > 0) & (np.count_nonzero(n_c > 0, axis=-1) >= 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(defined, 1.0 - (n - 1) * observed / np.where(defined, expected, 1), np.nan)
