"""Conger's kappa and the mean pairwise Cohen's kappa on *ordered* label patterns, batched.

A study in which all ``M`` annotators label every item is summarised, without loss for
these coefficients, by the multiplicities ``w`` ``(..., P)`` of its distinct ordered patterns
``labels`` ``(P, M)`` (who said what). Each annotator's marginals are
``p_gk = sum_p w_p [labels_pg = k] / n``, one matrix product per batch, so thousands of
simulated studies cost one pass.

* :func:`conger_patterns` is :func:`planner.statistics.conger.conger_kappa` (Conger 1980,
  Gwet's linearised variance) for complete data, vectorised over studies.
* :func:`mean_pairwise_kappa_patterns` is the mean over the ``M (M - 1) / 2`` pairs of
  Cohen's kappa (Light 1971). Its standard error averages each item's linearised
  contribution over the pairs, ``c*_i = mean_gh [(pa_i - pe) / (1 - pe)
  - 2 (1 - kappa)(pe_i - pe) / (1 - pe)]_gh`` (Gwet's two-annotator linearisation, as in
  :mod:`planner.statistics.conger`), then ``Var = sum_i (c*_i - kappa)^2 / (n (n - 1))``
  with a ``t_{n-1}`` interval. This route is derived here (``planner agree`` does not
  report the mean pairwise kappa); its coverage is checked in coverage_study/raters_coverage.py.

References
----------
Conger AJ (1980) Integration and generalization of kappas for multiple raters. Psychol Bull
    88:322-328.
Light RJ (1971) Measures of response agreement for qualitative data. Psychol Bull 76:365-377.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.statistics.multirater import ChanceCorrected, linearised_variance

FloatArray = NDArray[np.float64]


def _conger_terms(
    labels: NDArray[np.int64], n_categories: int, w: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(p_a, p_e, pa_i, pe_i)`` of Conger's kappa for complete ordered patterns."""
    p_count, m = labels.shape
    k = n_categories
    onehot = np.zeros((p_count, m, k))
    onehot[np.arange(p_count)[:, None], np.arange(m)[None, :], labels] = 1.0
    flat = onehot.reshape(p_count, m * k)  # BLAS products below, not einsum
    n = w.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_gk = (w @ flat).reshape(*w.shape[:-1], m, k) / n[..., None, None]  # (..., M, K)
        counts = onehot.sum(axis=1)  # (P, K)
        pa_i = ((counts * (counts - 1)).sum(axis=1)) / (m * (m - 1))
        p_a = (w @ pa_i) / n
    total = p_gk.sum(axis=-2)  # (..., K)
    pairs = m * (m - 1)
    p_e = ((total**2).sum(axis=-1) - (p_gk**2).sum(axis=(-2, -1))) / pairs
    lever = total[..., None, :] - p_gk  # (..., M, K)
    mean_lever = (p_gk * lever).sum(axis=-1)  # (..., M)
    # item i moves p_gk by (delta_igk - p_gk) (every annotator rated every item: n_g = n)
    at_label = lever.reshape(*lever.shape[:-2], m * k) @ flat.T
    pe_i = p_e[..., None] + (at_label - mean_lever.sum(axis=-1)[..., None]) / pairs
    return p_a, p_e, pa_i, pe_i


def conger_patterns(
    labels: ArrayLike, n_categories: int, multiplicity: ArrayLike
) -> ChanceCorrected:
    """Conger's kappa with Gwet's standard error for studies given as ordered patterns.

    Parameters
    ----------
    labels
        ``(P, M)`` distinct ordered label patterns (category codes of annotators 1..M).
    n_categories
        ``K``.
    multiplicity
        ``(..., P)`` items with each pattern.

    Examples
    --------
    >>> res = conger_patterns([[0, 0, 0], [1, 1, 1], [0, 1, 1], [1, 1, 0]], 2, [10, 8, 3, 2])
    >>> round(float(res.estimate), 4)  # conger_kappa on the 23 items: 0.7118
    0.7118
    """
    lab = np.asarray(labels, dtype=np.int64)
    w = np.asarray(multiplicity, dtype=float)
    p_a, p_e, pa_i, pe_i = _conger_terms(lab, int(n_categories), w)
    everyone = np.ones(lab.shape[0], dtype=bool)
    n = w.sum(axis=-1)
    return linearised_variance(p_a, p_e, (pa_i, pe_i, everyone, everyone, w), n, n)


def mean_pairwise_kappa_patterns(
    labels: ArrayLike, n_categories: int, multiplicity: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Mean pairwise Cohen's kappa (Light 1971), its linearised SE, and ``n``.

    >>> est, se, n = mean_pairwise_kappa_patterns([[0, 0], [1, 1], [0, 1]], 2, [30, 15, 5])
    >>> round(float(est), 4)  # Cohen's kappa of the table [[30, 5], [0, 15]]
    0.7826
    """
    lab = np.asarray(labels, dtype=np.int64)
    w = np.asarray(multiplicity, dtype=float)
    p_count, m = lab.shape
    k = int(n_categories)
    onehot = np.zeros((p_count, m * k))
    onehot[np.arange(p_count)[:, None], np.arange(m)[None, :] * k + lab] = 1.0
    n = w.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_gk = (w @ onehot).reshape(*w.shape[:-1], m, k) / n[..., None, None]
    pairs = list(itertools.combinations(range(m), 2))
    estimate = np.zeros(w.shape[:-1])
    c_star = np.zeros(w.shape)  # summed in place: one (..., P) array, not one per pair
    for g, h in pairs:
        # two annotators: p_e = sum_k p_gk p_hk, pe_i = (p_h[l_ig] + p_g[l_ih]) / 2
        p_e = (p_gk[..., g, :] * p_gk[..., h, :]).sum(axis=-1)
        pe_i = (p_gk[..., h, :][..., lab[:, g]] + p_gk[..., g, :][..., lab[:, h]]) / 2
        pa_i = (lab[:, g] == lab[:, h]).astype(float)
        p_a = (w @ pa_i) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (p_a - p_e) / (1 - p_e)
            gap = (1 - p_e)[..., None]
            c_i = (pa_i - p_e[..., None]) / gap - 2 * (1 - kappa)[..., None] * (
                pe_i - p_e[..., None]
            ) / gap
        estimate += kappa / len(pairs)
        c_star += c_i / len(pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (w * (c_star - estimate[..., None]) ** 2).sum(axis=-1) / (n * (n - 1))
    return estimate, np.sqrt(var), n
