"""Population-weighted agreement from a stratified sample: the combined ratio estimator.

Traffic is split into strata ``h = 1..H`` with population shares ``W_h`` (summing to 1);
``n_h`` items are labelled in stratum ``h``, at any allocation (enriched, cost-optimal,
proportional). Every coefficient here is a smooth function ``g`` of population means of an
item-level feature vector ``y_i``:

* two annotators: ``y_i`` the one-hot cell of the ``K x K`` table (``K^2`` features), so the
  mean is the table of cell proportions; PSA (specific agreement on one category), observed
  agreement and Cohen's kappa are functions of it;
* several annotators: ``y_i = (P_i, pi_i1..pi_iK, ...)``, the item's share of agreeing rater
  pairs ``P_i = sum_k n_ik (n_ik - 1) / (r_i (r_i - 1))`` and its category shares
  ``pi_ik = n_ik / r_i``; Fleiss' kappa is ``(P_o - P_e) / (1 - P_e)`` with ``P_o = mean P_i``,
  ``P_e = sum_k pi_k^2`` (the mean of ``n_ik / r_i`` over items, as for unequal numbers of
  ratings per item), and specific positive agreement a ratio of two more item sums.

The estimate is ``g(Y)``, ``Y = sum_h W_h ybar_h`` (each stratum's sample mean weighted by its
population share: a ratio estimator, Cochran 1977 section 6.11). Its Taylor-linearised variance
is

.. math:: \\hat V = \\sum_h W_h^2 s_h^2 / n_h, \\qquad u_i = \\nabla g(Y) \\cdot y_i,

``s_h^2`` the within-stratum sample variance (divisor ``n_h - 1``) of the linearised residual
``u``. The interval is a t interval with Satterthwaite's effective degrees of freedom
``nu = (sum_h a_h)^2 / sum_h a_h^2 / (n_h - 1)``, ``a_h = W_h^2 s_h^2 / n_h``, computed on the
logit scale for the coefficients in [0, 1] (PSA, observed agreement; SE ``se / (g (1 - g))``)
and on the scale ``log(1 - kappa)`` for the kappas (SE ``se / (1 - kappa)``), then mapped back,
so that the limits stay in range (a kappa's lower limit clipped at -1);
docs/methods/stratified-estimation.md gives the coverage measured by simulation.

References
----------
Cochran WG (1977) Sampling Techniques, 3rd ed. Wiley. (Combined ratio estimator.)
Satterthwaite FE (1946) An approximate distribution of estimates of variance components.
    Biometrics Bulletin 2:110-114.
Woodruff RS (1971) A simple method for approximating the variance of a complicated estimate.
    JASA 66:411-414. (Linearisation.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import InvalidInput

FloatArray = NDArray[np.float64]
#: ``features (..., F) -> (value (...), gradient (..., F))`` of a coefficient.
Coefficient = Callable[[FloatArray], tuple[FloatArray, FloatArray]]
#: The scale each coefficient's interval is computed on.
SCALES = {"psa": "logit", "observed_agreement": "logit", "cohen_kappa": "log1m"}
SCALES["fleiss_kappa"] = "log1m"
SHARE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class WeightedEstimate:
    """A population-weighted coefficient with its linearised interval (arrays of a batch shape).

    ``se`` is the linearised standard error on the coefficient's own scale, ``df``
    Satterthwaite's effective degrees of freedom of the t interval.
    """

    estimate: FloatArray
    se: FloatArray
    df: FloatArray
    low: FloatArray
    high: FloatArray


# --------------------------------------------------------------------------- coefficients


def pair_coefficient(name: str, n_categories: int, positive: int = 0) -> Coefficient:
    """``g`` and its gradient on a pair's ``K x K`` cell proportions (flattened, row = first).

    * ``psa``: ``2 p_pp / (r_p + c_p)`` for the category ``positive`` (gradient
      ``2 [ij = pp] / d - 2 p_pp ([i = p] + [j = p]) / d^2``, ``d = r_p + c_p``);
    * ``observed_agreement``: ``sum_k p_kk``;
    * ``cohen_kappa``: ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_k r_k c_k``, gradient
      ``d kappa / d p_ij = ([i = j] (1 - p_e) - (c_i + r_j)(1 - p_o)) / (1 - p_e)^2``.
    """
    k = n_categories
    eye = np.eye(k)
    diag = eye.reshape(k * k)

    def unpack(p: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        table = p.reshape(*p.shape[:-1], k, k)
        return table, table.sum(axis=-1), table.sum(axis=-2)  # rows r_i, columns c_j

    def psa(p: FloatArray) -> tuple[FloatArray, FloatArray]:
        table, rows, cols = unpack(p)
        both = table[..., positive, positive]
        d = rows[..., positive] + cols[..., positive]
        hit = (eye[positive][:, None] + eye[positive][None, :]).reshape(k * k)
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = (2 * (diag * hit == 2)) / d[..., None] - (2 * both / d**2)[..., None] * hit
            return 2 * both / d, grad

    def observed(p: FloatArray) -> tuple[FloatArray, FloatArray]:
        return (p * diag).sum(axis=-1), np.broadcast_to(diag, p.shape).copy()

    def kappa(p: FloatArray) -> tuple[FloatArray, FloatArray]:
        _, rows, cols = unpack(p)
        p_o = (p * diag).sum(axis=-1)
        p_e = (rows * cols).sum(axis=-1)
        d_pe = (cols[..., :, None] + rows[..., None, :]).reshape(p.shape)  # c_i + r_j
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = (diag * (1 - p_e)[..., None] - d_pe * (1 - p_o)[..., None]) / ((1 - p_e) ** 2)[
                ..., None
            ]
            return (p_o - p_e) / (1 - p_e), grad

    chosen = {"psa": psa, "observed_agreement": observed, "cohen_kappa": kappa}
    if name not in chosen:
        raise InvalidInput(
            f"name must be one of {', '.join(chosen)}, got {name!r}", parameter="name", value=name
        )
    return chosen[name]


def multirater_features(counts: ArrayLike, positive: int = 0) -> FloatArray:
    """``(P, K + 3)`` item features of ``(P, K)`` category counts (each row two ratings or more).

    ``(P_i, pi_i1..pi_iK, n_ip (n_ip - 1), n_ip (r_i - 1))``: the item's share of agreeing rater
    pairs, its category shares, and the two sums of Uebersax's specific agreement on the
    category ``positive``.
    """
    n = np.asarray(counts, dtype=float)
    r = n.sum(axis=-1)
    agreeing = (n * (n - 1)).sum(axis=-1) / (r * (r - 1))
    hit = n[:, positive]
    return np.column_stack([agreeing, n / r[:, None], hit * (hit - 1), hit * (r - 1)])


def multirater_coefficient(name: str, n_categories: int) -> Coefficient:
    """``g`` and its gradient on the means of :func:`multirater_features`.

    * ``fleiss_kappa``: ``(P_o - P_e) / (1 - P_e)``, ``P_e = sum_k pi_k^2``; ``d/dP_o =
      1 / (1 - P_e)``, ``d/dpi_k = -2 pi_k (1 - P_o) / (1 - P_e)^2``;
    * ``observed_agreement``: ``P_o`` (the mean share of agreeing pairs);
    * ``psa``: specific positive agreement ``S = mean n_p (n_p - 1) / mean n_p (r - 1)``
      (Uebersax 1982), the ratio of the last two features.
    """
    k = n_categories

    def fleiss(y: FloatArray) -> tuple[FloatArray, FloatArray]:
        p_o, pi = y[..., 0], y[..., 1 : k + 1]
        p_e = (pi**2).sum(axis=-1)
        grad = np.zeros_like(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            grad[..., 0] = 1 / (1 - p_e)
            grad[..., 1 : k + 1] = -2 * pi * ((1 - p_o) / (1 - p_e) ** 2)[..., None]
            return (p_o - p_e) / (1 - p_e), grad

    def observed(y: FloatArray) -> tuple[FloatArray, FloatArray]:
        grad = np.zeros_like(y)
        grad[..., 0] = 1.0
        return y[..., 0], grad

    def specific(y: FloatArray) -> tuple[FloatArray, FloatArray]:
        num, den = y[..., -2], y[..., -1]
        grad = np.zeros_like(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            grad[..., -2] = 1 / den
            grad[..., -1] = -num / den**2
            return num / den, grad

    chosen = {"fleiss_kappa": fleiss, "observed_agreement": observed, "psa": specific}
    if name not in chosen:
        raise InvalidInput(
            f"name must be one of {', '.join(chosen)}, got {name!r}", parameter="name", value=name
        )
    return chosen[name]


# --------------------------------------------------------------------------- estimator


def _interval(
    estimate: FloatArray, se: FloatArray, df: FloatArray, scale: str, confidence_level: float
) -> tuple[FloatArray, FloatArray]:
    """t limits on the coefficient's scale (:data:`SCALES`), mapped back."""
    from scipy import special  # off plan's start path

    t = special.stdtrit(np.maximum(df, 1.0), 0.5 + confidence_level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        if scale == "logit":
            centre = np.log(estimate / (1 - estimate))
            half = t * se / (estimate * (1 - estimate))
            low, high = (1 / (1 + np.exp(-(centre + s * half))) for s in (-1, 1))
        else:  # log(1 - kappa): kappa = 1 - exp(z)
            centre = np.log1p(-estimate)
            half = t * se / (1 - estimate)
            low, high = (1 - np.exp(centre + s * half) for s in (1, -1))
            low = np.maximum(low, -1.0)  # kappa's range is [-1, 1]
    bad = ~np.isfinite(half)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def weighted_from_moments(
    coefficient: Coefficient,
    means: ArrayLike,
    second: ArrayLike,
    n_h: ArrayLike,
    shares: ArrayLike,
    scale: str,
    confidence_level: float = 0.95,
) -> WeightedEstimate:
    """The combined ratio estimate from each stratum's feature means and second moments.

    Parameters
    ----------
    means, second
        ``(..., H, F)`` per-stratum means of ``y`` and ``(..., H, F, F)`` of ``y y^T``.
    n_h
        ``(..., H)`` items per stratum.
    shares
        ``(H,)`` population shares ``W_h``.
    """
    m = np.asarray(means, dtype=float)
    s2 = np.asarray(second, dtype=float)
    n = np.asarray(n_h, dtype=float)
    w = np.asarray(shares, dtype=float)
    pooled = (w[:, None] * m).sum(axis=-2)
    value, grad = coefficient(pooled)
    g = grad[..., None, :]
    mean_u = (m * g).sum(axis=-1)
    second_u = np.einsum("...hf,...hfg,...hg->...h", np.broadcast_to(g, m.shape), s2, g[..., :])
    with np.errstate(divide="ignore", invalid="ignore"):
        s_h2 = np.maximum(second_u - mean_u**2, 0.0) * n / (n - 1)
        a_h = w**2 * s_h2 / n
        var = a_h.sum(axis=-1)
        df = var**2 / (a_h**2 / (n - 1)).sum(axis=-1)
    se = np.sqrt(var)
    df = np.where(var > 0, df, np.nan)
    low, high = _interval(value, se, df, scale, confidence_level)
    return WeightedEstimate(value, se, df, low, high)


def weighted_from_tables(
    name: str,
    tables: ArrayLike,
    shares: ArrayLike,
    confidence_level: float = 0.95,
    positive: int = 0,
) -> WeightedEstimate:
    """Population-weighted PSA, observed agreement or Cohen's kappa of ``(..., H, K, K)`` pair
    tables (one per stratum; vectorised over the leading axes, for simulation).

    With one-hot cell features the stratum's mean is its cell proportions ``p_h`` and the
    second moment is ``diag(p_h)``.
    """
    t = np.asarray(tables, dtype=float)
    k = t.shape[-1]
    cells = t.reshape(*t.shape[:-2], k * k)
    n = cells.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = cells / n[..., None]
    second = p[..., :, None] * np.eye(k * k)
    return weighted_from_moments(
        pair_coefficient(name, k, positive),
        p,
        second,
        n,
        shares,
        SCALES[name],
        confidence_level,
    )


def weighted_from_patterns(
    name: str,
    counts_by_stratum: Sequence[tuple[ArrayLike, ArrayLike]],
    shares: ArrayLike,
    confidence_level: float = 0.95,
    positive: int = 0,
) -> WeightedEstimate:
    """Population-weighted Fleiss' kappa, observed agreement or specific positive agreement
    of several annotators, from each stratum's distinct count rows.

    ``counts_by_stratum[h]`` is ``(rows (P_h, K) of category counts, multiplicities (P_h,))``
    for the items of stratum ``h`` with at least two ratings.
    """
    means, seconds, sizes = [], [], []
    k = 0
    for rows, mult in counts_by_stratum:
        k = np.shape(rows)[1]
        y = multirater_features(rows, positive)
        m = np.asarray(mult, dtype=float)
        total = m.sum()
        means.append(m @ y / total)
        seconds.append(np.einsum("p,pf,pg->fg", m, y, y) / total)
        sizes.append(total)
    return weighted_from_moments(
        multirater_coefficient(name, k),
        np.array(means),
        np.array(seconds),
        np.array(sizes),
        shares,
        SCALES[name],
        confidence_level,
    )


def weighted_from_pattern_counts(
    name: str,
    patterns: ArrayLike,
    counts: ArrayLike,
    shares: ArrayLike,
    confidence_level: float = 0.95,
    positive: int = 0,
) -> WeightedEstimate:
    """:func:`weighted_from_patterns` for many studies at once: ``counts`` ``(..., H, P)`` items
    per count pattern of ``patterns`` ``(P, K)`` in each stratum (vectorised over the leading
    axes, for simulation).

    Examples
    --------
    One study as both functions take it gives one answer:

    >>> rows = np.array([[3, 0], [2, 1], [1, 2], [0, 3]])
    >>> counts = np.array([[50, 10, 6, 4], [20, 8, 9, 13]])
    >>> one = weighted_from_patterns("fleiss_kappa", [(rows, c) for c in counts], [0.7, 0.3])
    >>> many = weighted_from_pattern_counts("fleiss_kappa", rows, counts[None], [0.7, 0.3])
    >>> bool(np.isclose(one.estimate, many.estimate[0]) and np.isclose(one.low, many.low[0]))
    True
    """
    rows = np.asarray(patterns)
    y = multirater_features(rows, positive)
    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = (c @ y) / n[..., None]
        second = np.einsum("...p,pf,pg->...fg", c, y, y) / n[..., None, None]
    return weighted_from_moments(
        multirater_coefficient(name, rows.shape[1]),
        means,
        second,
        n,
        shares,
        SCALES[name],
        confidence_level,
    )
