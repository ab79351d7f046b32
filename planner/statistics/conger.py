"""Conger's (1980) kappa for any number of annotators, with Gwet's linearised variance.

Conger's kappa generalises Cohen's kappa to ``r`` annotators: the observed agreement
``p_a`` is the pairwise agreement of :mod:`planner.statistics.multirater` (items with two or more
ratings), and the chance agreement uses **each annotator's own marginals**
``p_gk = (items annotator g put in k) / (items g rated)``, averaged over pairs of
different annotators::

    p_e = sum_kl w_kl sum_{g != h} p_gk p_hl / (r (r - 1))
        = sum_kl w_kl (pbar_k pbar_l - s_kl / r),

``pbar_k`` the mean of ``p_gk`` over annotators and ``s_kl`` their covariance (divisor
``r - 1``). With two annotators and no missing ratings it is Cohen's kappa; with missing
ratings it is Cohen's kappa with Gwet's marginals (every rating of each annotator), the
convention of Gwet (2014) and irrCAC.

The variance is Gwet's linearisation (as for Fleiss' kappa in :mod:`planner.statistics.multirater`):
item ``i`` contributes
``c*_i = (n / n_2)(pa_i - p_e) / (1 - p_e) - 2 (1 - kappa)(pe_i - p_e) / (1 - p_e)``, where
``pe_i - p_e`` is the first-order change of ``p_e`` through each annotator's marginals
(``p_gk`` is a ratio of item totals, so item ``i`` moves it by
``(n / n_g)(delta_igk - eps_ig p_gk)``), and
``Var = (1 - f) / (n (n - 1)) sum_i (c*_i - kappa)^2`` with a ``t_{n-1}`` interval.

References
----------
Conger AJ (1980) Integration and generalization of kappas for multiple raters. Psychol Bull
    88:322-328.
Gwet KL (2014) Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.statistics.multirater import (
    ChanceCorrected,
    Patterns,
    linearised_variance,
    row_category_counts,
)

#: Most ``annotators x categories`` cells of the dense marginal table Conger's kappa builds.
CONGER_CELLS_LIMIT = 20_000_000


def _observed_agreement(
    item: NDArray[np.int64],
    label: NDArray[np.int64],
    n_rows: int,
    k: int,
    w: NDArray[np.float64] | None,
    rows: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Observed pairwise agreement per row (every row, not the distinct patterns), its
    weighted mean ``p_a``, and which rows are rated and pairable."""
    cats, cnts, _ = row_category_counts(item, label, n_rows)
    per_row = Patterns(cats, cnts.astype(float), np.ones(n_rows, np.int64), k)
    r_i = per_row.totals
    rated, pairable = r_i >= 1, r_i >= 2
    n2 = float(rows @ pairable)
    with np.errstate(invalid="ignore", divide="ignore"):
        pa_i = np.where(pairable, (per_row.pair_sums(w) - r_i) / (r_i * (r_i - 1)), 0.0)
    p_a = np.asarray(rows @ pa_i / n2 if n2 > 0 else np.nan)
    return pa_i, p_a, rated, pairable


def _chance_agreement(
    rater: NDArray[np.int64],
    label: NDArray[np.int64],
    per_rating: NDArray[np.float64],
    n_g: NDArray,
    k: int,
    w: NDArray[np.float64] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float]:
    """Each annotator's marginals ``p_gk``, the lever ``A_gl`` of the variance, the chance
    agreement ``p_e`` over ordered pairs of different annotators, and the number of pairs."""
    m = n_g.size
    active = n_g > 0
    r = int(active.sum())
    classif = np.bincount(rater * k + label, weights=per_rating, minlength=m * k).reshape(m, k)
    p_gk = np.where(active[:, None], classif / np.where(active, n_g, 1.0)[:, None], 0.0)
    total = p_gk.sum(axis=0)  # sum over annotators, r pbar_k
    sym = None if w is None else (w + w.T) / 2
    pairs = r * (r - 1) if r >= 2 else np.nan  # ordered pairs of different annotators
    if sym is None:
        p_e = np.asarray((total @ total - (p_gk**2).sum()) / pairs)
        lever = total[None, :] - p_gk  # A_gl = sum_k b_kl (r pbar_k - p_gk)
    else:
        p_e = np.asarray((total @ sym @ total - np.einsum("gk,kl,gl->", p_gk, sym, p_gk)) / pairs)
        lever = (total[None, :] - p_gk) @ sym
    return p_gk, lever, p_e, pairs


def conger_kappa(
    item_index: ArrayLike,
    annotator_index: ArrayLike,
    label_index: ArrayLike,
    *,
    n_rows: int,
    n_categories: int,
    n_annotators: int,
    weights: ArrayLike | None = None,
    row_weights: ArrayLike | None = None,
    sampling_fraction: float = 0.0,
) -> ChanceCorrected:
    """Conger's kappa and Gwet's standard error from sparse ratings.

    Parameters
    ----------
    item_index, annotator_index, label_index
        ``(R,)`` one entry per rating: row of the item, annotator, category code (each
        (item, annotator) pair at most once), as :class:`planner.data.labels.Ratings` holds them.
    n_rows, n_categories, n_annotators
        Sizes of the three codes.
    weights
        ``(K, K)`` agreement weights (default identity: nominal).
    row_weights
        ``(n_rows,)`` how many identical items each row stands for (default one each).
    sampling_fraction
        ``f`` of the finite-population correction (default 0).

    Returns
    -------
    ChanceCorrected
        Annotators with no rating are left out of ``r``.

    Examples
    --------
    Gwet's (2014, p. 120) four raters and twelve items (irrCAC ``cac.raw4raters``;
    ``conger.kappa.raw`` prints 0.76282, SE 0.14917):

    >>> ratings = [[0, 0, -1, 0], [1, 1, 2, 1], [2, 2, 2, 2], [2, 2, 2, 2], [1, 1, 1, 1],
    ...            [0, 1, 2, 3], [3, 3, 3, 3], [0, 0, 1, 0], [1, 1, 1, 1], [-1, 4, 4, 4],
    ...            [-1, -1, 0, 0], [-1, -1, 2, -1]]
    >>> item, annotator = np.nonzero(np.asarray(ratings) >= 0)
    >>> label = np.asarray(ratings)[item, annotator]
    >>> res = conger_kappa(item, annotator, label, n_rows=12, n_categories=5, n_annotators=4)
    >>> round(float(res.estimate), 5), round(float(res.standard_error), 5)
    (0.76282, 0.14917)
    """
    item = np.asarray(item_index, dtype=np.int64)
    rater = np.asarray(annotator_index, dtype=np.int64)
    label = np.asarray(label_index, dtype=np.int64)
    k, m = int(n_categories), int(n_annotators)
    if m * k > CONGER_CELLS_LIMIT:
        raise ValueError(
            f"Conger's kappa needs an annotators x categories table; {m:,} x {k:,} cells "
            f"is more than {CONGER_CELLS_LIMIT:,}"
        )
    w = None if weights is None else np.asarray(weights, dtype=float)
    rows = np.ones(int(n_rows)) if row_weights is None else np.asarray(row_weights, float)
    per_rating = rows[item]

    pa_i, p_a, rated, pairable = _observed_agreement(item, label, int(n_rows), k, w, rows)
    n, n2 = float(rows @ rated), float(rows @ pairable)
    n_g = np.bincount(rater, weights=per_rating, minlength=m)
    p_gk, lever, p_e, pairs = _chance_agreement(rater, label, per_rating, n_g, k, w)

    # item i's first-order effect on p_e through the marginals of the annotators who rated it
    mean_lever = (p_gk * lever).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        step = n / n_g[rater] * (lever[rater, label] - mean_lever[rater])
        pe_i = p_e + np.bincount(item, weights=step, minlength=int(n_rows)) / pairs
    terms = (pa_i, pe_i, rated, pairable, rows)
    return linearised_variance(p_a, p_e, terms, np.asarray(n), np.asarray(n2), sampling_fraction)
