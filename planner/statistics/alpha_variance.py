"""A linearised (delta-method) standard error of Krippendorff's alpha on count patterns.

``planner agree`` gives alpha an item bootstrap. A sample-size search evaluates thousands
of simulated studies at each of a dozen sizes, so a bootstrap per study is out of reach;
this is its first-order equivalent (the infinitesimal jackknife: the delete-one-item
jackknife and the item bootstrap estimate the same variance to first order).

Alpha is a smooth function of the item multiplicities ``w_p`` of the distinct count
patterns ``N_p`` (``(P, K)``, ``m_p`` ratings each):
``alpha = 1 - (n - 1) D_o / D_e`` with ``n = sum_p w_p m_p``,
``D_o = sum_p w_p t_p / (m_p - 1)``, ``t_p = sum_ck N_pc N_pk d2_ck``, and ``D_e`` from the
pooled marginals ``n_c`` (nominal ``n^2 - sum n_c^2``; interval ``2 (n S2 - S1^2)`` with
``S1 = sum n_c x_c``, ``S2 = sum n_c x_c^2``; ordinal: interval on the mid-ranks
``r_c = sum_{g <= c} n_g - n_c / 2``, which move with the marginals). With ``g_p`` the
derivative of alpha in ``w_p``, a multinomial sample of ``N`` items has

    Var(alpha) ~ N / (N - 1) [ sum_p w_p g_p^2 - (sum_p w_p g_p)^2 / N ].
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
LINEARISED_LEVELS = ("nominal", "ordinal", "interval")


def alpha_linearised(
    counts: ArrayLike, multiplicity: ArrayLike, level: str = "nominal"
) -> tuple[FloatArray, FloatArray]:
    """Alpha and its linearised standard error from dense count patterns.

    Parameters
    ----------
    counts
        ``(P, K)`` distinct per-item category counts (categories valued ``0 .. K-1``).
    multiplicity
        ``(..., P)`` items with each pattern (a batch of studies).
    level
        ``"nominal"``, ``"ordinal"`` or ``"interval"``.

    Returns
    -------
    (estimate, standard_error)
        Arrays of the batch shape (NaN where alpha is undefined).

    Examples
    --------
    >>> est, se = alpha_linearised([[3, 0], [0, 3], [2, 1]], [40, 50, 10])
    >>> round(float(est), 4), round(float(se), 4)
    (0.8665, 0.04)
    """
    if level not in LINEARISED_LEVELS:
        raise ValueError(f"`level` must be one of {LINEARISED_LEVELS}, got {level!r}")
    c = np.asarray(counts, dtype=float)
    w = np.asarray(multiplicity, dtype=float)
    m = c.sum(axis=1)
    pairable = m >= 2
    inv = np.where(pairable, 1.0 / np.where(pairable, m - 1, 1.0), 0.0)
    wp = w * pairable
    n_c = wp @ c  # (..., K)
    n = n_c.sum(axis=-1)
    if level == "ordinal":
        x = np.cumsum(n_c, axis=-1) - n_c / 2  # (..., K) mid-ranks
    else:
        x = np.broadcast_to(np.arange(c.shape[1], dtype=float), n_c.shape)
    s1_p = np.einsum("pk,...k->...p", c, x)
    s2_p = np.einsum("pk,...k->...p", c, x * x)
    if level == "nominal":
        a_p = inv * (m**2 - (c**2).sum(axis=1))
        d_o = wp @ a_p
        d_e = n**2 - (n_c**2).sum(axis=-1)
        d_o_q = np.broadcast_to(a_p, w.shape)
        d_e_q = 2 * n[..., None] * m - 2 * n_c @ c.T
    else:
        a_p = inv * (2 * m * s2_p - 2 * s1_p**2)  # (..., P)
        d_o = (wp * a_p).sum(axis=-1)
        s1 = (n_c * x).sum(axis=-1)
        s2 = (n_c * x * x).sum(axis=-1)
        d_e = 2 * (n * s2 - s1**2)
        d_o_q = a_p
        d_e_q = 2 * (m * s2[..., None] + n[..., None] * s2_p - 2 * s1[..., None] * s1_p)
        if level == "ordinal":  # the mid-ranks move with the marginals
            rho = np.cumsum(c, axis=1) - c / 2  # (P, K): d r_c / d w_q
            grad_o = 4 * np.einsum(
                "...p,pk,...pk->...k", wp * inv, c, m[:, None] * x[..., None, :] - s1_p[..., None]
            )
            grad_e = 4 * n_c * (n[..., None] * x - s1[..., None])
            d_o_q = d_o_q + grad_o @ rho.T
            d_e_q = d_e_q + grad_e @ rho.T
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = 1 - (n - 1) * d_o / d_e
        g = -(
            m * (d_o / d_e)[..., None]
            + (n - 1)[..., None] * d_o_q / d_e[..., None]
            - ((n - 1) * d_o / d_e**2)[..., None] * d_e_q
        )
        g = np.where(pairable, g, 0.0)
        total = w.sum(axis=-1)
        mean = (w * g).sum(axis=-1)
        var = ((w * g * g).sum(axis=-1) - mean**2 / total) * total / (total - 1)
        defined = (d_e > 0) & (total >= 2)
        return (
            np.where(defined, estimate, np.nan),
            np.where(defined, np.sqrt(np.maximum(var, 0.0)), np.nan),
        )
