"""The alternative annotator test's statistics on counts of a three-valued difference.

In the alt-test (Calderon, Reichart & Dror, ACL 2025) each item a human ``j`` labelled gives
``d_i = W^h_i - W^f_i`` in ``{-1, 0, 1}``: whether the human, the LLM, or both (a tie) align
at least as well with the other humans. Everything the test needs from ``d`` is its three
counts ``(n_-1, n_0, n_+1)``, so real data and a stack of simulated studies go through the
same functions: counts ``(..., 3)`` in, statistics ``(...)`` out.

References
----------
Calderon, N., Reichart, R. and Dror, R. (2025). The Alternative Annotator Test for
LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs. ACL 2025.
Benjamini, Y. and Yekutieli, D. (2001). The control of the false discovery rate in
multiple testing under dependency. Annals of Statistics 29(4), 1165-1188.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: below this many items a human's test is the Wilcoxon signed-rank test (the authors' README)
T_TEST_MIN_ITEMS = 30
#: the test's defaults, defined once for the test on labels, its plan and the command line:
#: the margin granted to the LLM (the authors' suggestion for expert annotators), the false
#: discovery rate of Benjamini-Yekutieli, and the fewest items a tested human has
EPSILON = 0.2
FDR_Q = 0.05
MIN_ITEMS = T_TEST_MIN_ITEMS

_D = np.array([-1.0, 0.0, 1.0])


def alignment_differences(
    human_codes: NDArray[np.integer],
    llm_codes: NDArray[np.integer],
    j: int,
    values: NDArray[np.float64] | None,
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """``d = W^h - W^f`` and both scores on the items where human ``j``'s test applies.

    Parameters
    ----------
    human_codes
        ``(N, M)`` the humans' category codes, -1 where a human did not label.
    llm_codes
        ``(N,)`` the LLM's codes, -1 where it did not label.
    j
        The human under test (a column of ``human_codes``).
    values
        ``(K,)`` the categories' numbers for negative RMSE, or None for accuracy.

    Returns
    -------
    d, llm_score, human_score
        ``(n_j,)`` each, on the items with the LLM's label, ``j``'s label and at least one
        other human's label.
    """
    rated = human_codes >= 0
    keep = (rated.sum(axis=1) >= 2) & (llm_codes >= 0) & rated[:, j]
    h = human_codes[keep]
    others = rated[keep]
    others[:, j] = False
    n_others = others.sum(axis=1)
    mine, llm = h[:, j], llm_codes[keep]
    if values is None:
        s_h = (others & (h == mine[:, None])).sum(axis=1) / n_others
        s_f = (others & (h == llm[:, None])).sum(axis=1) / n_others
    else:
        v = values[np.where(others, h, 0)]
        s_h = -np.sqrt(
            np.where(others, (values[mine][:, None] - v) ** 2, 0.0).sum(axis=1) / n_others
        )
        s_f = -np.sqrt(
            np.where(others, (values[llm][:, None] - v) ** 2, 0.0).sum(axis=1) / n_others
        )
    d = (s_h >= s_f).astype(np.int64) - (s_f >= s_h).astype(np.int64)
    return d, s_f, s_h


def t_test_less(counts: ArrayLike, epsilon: float) -> tuple[NDArray, NDArray]:
    """One-sided one-sample t-test of ``mean(d) >= epsilon`` against ``mean(d) < epsilon``.

    Parameters
    ----------
    counts
        ``(..., 3)`` numbers of items with ``d = -1, 0, +1``.
    epsilon
        The margin granted to the LLM.

    Returns
    -------
    statistic, p_value
        ``(...)`` each: ``t = (mean(d) - epsilon) / (s_d / sqrt(n))`` on ``n - 1`` degrees of
        freedom and ``P(T <= t)``, as ``scipy.stats.ttest_1samp(d, epsilon,
        alternative="less")``. When every ``d`` is the same value ``c`` (``s_d = 0``) the
        statistic is infinite: ``-inf`` and ``p = 0`` when ``c < epsilon``, ``+inf`` (or NaN
        at ``c = epsilon``) and ``p = 1`` otherwise (scipy returns NaN there). Fewer than two
        items: NaN and ``p = 1``.
    """
    from scipy.special import stdtr

    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=-1)
    total = c[..., 2] - c[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        ss = np.maximum(c[..., 2] + c[..., 0] - total * mean, 0.0)
        se = np.sqrt(ss / (n - 1) / n)
        stat = (mean - epsilon) / se
        p = stdtr(n - 1, stat)
    constant = (ss <= 1e-12 * np.maximum(n, 1)) & (n >= 2)
    below = mean < epsilon
    stat = np.where(
        constant, np.where(below, -np.inf, np.where(mean > epsilon, np.inf, np.nan)), stat
    )
    p = np.where(constant, np.where(below, 0.0, 1.0), p)
    few = n < 2
    return np.where(few, np.nan, stat), np.where(few, 1.0, p)


def wilcoxon_less(counts: ArrayLike, epsilon: float) -> tuple[NDArray, NDArray]:
    """One-sided Wilcoxon signed-rank test of ``d - epsilon`` (alternative: shifted below 0).

    Parameters
    ----------
    counts
        ``(..., 3)`` numbers of items with ``d = -1, 0, +1``.
    epsilon
        The margin granted to the LLM.

    Returns
    -------
    statistic, p_value
        ``(...)`` each: the sum of the ranks of the positive ``d - epsilon`` and its normal
        approximation ``P(Z <= z)`` with the tie correction and no continuity correction, as
        ``scipy.stats.wilcoxon(d - epsilon, alternative="less", method="approx")``. Zero
        differences are dropped (``zero_method="wilcox"``). A three-valued difference always
        has ties, which is why the normal approximation (not the exact null) is used. No
        non-zero difference: NaN and ``p = 1``.
    """
    from scipy.special import ndtr

    c = np.asarray(counts, dtype=float)
    x = _D - epsilon
    c = np.where(x == 0, 0.0, c)  # zero differences dropped
    n = c.sum(axis=-1)
    a = np.abs(x)
    less = (a[None, :] < a[:, None]).astype(float)  # (group, other): other's magnitude smaller
    equal = (a[None, :] == a[:, None]).astype(float)
    below = c @ less.T  # (..., 3) items with a smaller magnitude than each group
    tied = c @ equal.T  # (..., 3) items with the same magnitude, the group included
    midrank = below + (tied + 1) / 2
    r_plus = (c * midrank * (x > 0)).sum(axis=-1)
    ties = (c * (tied**2 - 1)).sum(axis=-1)
    var = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (r_plus - n * (n + 1) / 4) / np.sqrt(var)
        p = ndtr(z)
    empty = (n < 1) | ~(var > 0)
    return np.where(empty, np.nan, r_plus), np.where(empty, 1.0, p)


def difference_test(counts: ArrayLike, epsilon: float) -> tuple[NDArray, NDArray, NDArray]:
    """The authors' test per human: the t-test from 30 items on, Wilcoxon below.

    Returns
    -------
    statistic, p_value, is_t
        ``(...)`` each; ``is_t`` says which test gave the row.
    """
    c = np.asarray(counts, dtype=float)
    is_t = c.sum(axis=-1) >= T_TEST_MIN_ITEMS
    t_stat, t_p = t_test_less(c, epsilon)
    if is_t.all():
        return t_stat, t_p, is_t
    w_stat, w_p = wilcoxon_less(c, epsilon)
    return np.where(is_t, t_stat, w_stat), np.where(is_t, t_p, w_p), is_t


def by_thresholds(m: int, q: float) -> NDArray[np.float64]:
    """``(m,)`` Benjamini-Yekutieli thresholds ``k q / (m H_m)``, ``H_m = sum_{i<=m} 1/i``.

    >>> [round(float(t), 5) for t in by_thresholds(3, 0.05)]
    [0.00909, 0.01818, 0.02727]
    """
    k = np.arange(1, m + 1, dtype=float)
    return k * q / (m * np.sum(1.0 / k))


def by_rejections(p_values: ArrayLike, q: float) -> NDArray[np.bool_]:
    """``(..., m)`` which hypotheses Benjamini-Yekutieli rejects at level ``q``.

    The ``k`` smallest p-values are rejected, ``k`` the largest rank with
    ``p_(k) <= k q / (m H_m)`` (none when there is no such rank). NaN p-values are never
    rejected.
    """
    p = np.nan_to_num(np.asarray(p_values, dtype=float), nan=np.inf)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ok = np.take_along_axis(p, order, axis=-1) <= by_thresholds(m, q)
    last = np.where(ok.any(axis=-1), m - np.argmax(ok[..., ::-1], axis=-1), 0)
    ranks = np.argsort(order, axis=-1, kind="stable")
    return ranks < last[..., None]
