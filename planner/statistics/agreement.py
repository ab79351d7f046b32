"""Agreement coefficients for two annotators, on stacked contingency tables.

Every function takes counts (or probabilities) of shape ``(..., K, K)``: the leading axes
are a batch (for example ``R`` simulated studies), ``table[..., i, j]`` is the number of
items annotator A put in category ``i`` and annotator B in category ``j``. Each returns an
array of shape ``(...)``. For binary labels category 0 is *positive*, so the cells are
``a = table[..., 0, 0]`` (both positive), ``b = table[..., 0, 1]`` (A only),
``c = table[..., 1, 0]`` (B only) and ``d = table[..., 1, 1]`` (neither).

Undefined values (for example kappa when both annotators use one category only) are
returned as NaN without a warning; callers that summarise a batch count them.

References
----------
Cohen J (1960) A coefficient of agreement for nominal scales. Educ Psychol Meas 20:37-46.
Byrt T, Bishop J, Carlin JB (1993) Bias, prevalence and kappa. J Clin Epidemiol 46:423-429.
Uebersax J. Raw agreement indices. https://www.john-uebersax.com/stat/raw.htm
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def as_tables(table: ArrayLike) -> FloatArray:
    """Return ``table`` as a float array of shape ``(..., K, K)`` with ``K >= 1``.

    Raises
    ------
    ValueError
        If the last two axes are not square with at least two categories, or a count is
        negative.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2] or t.shape[-1] < 1:
        raise ValueError(f"`table` must have shape (..., K, K), got {t.shape}")
    if np.any(t < 0):
        raise ValueError("`table` must hold non-negative counts")
    return t


def binary_cells(table: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Split ``(..., 2, 2)`` tables into the cells ``(a, b, c, d)``.

    >>> binary_cells([[6, 21], [14, 459]])
    (array(6.), array(21.), array(14.), array(459.))
    """
    t = as_tables(table)
    if t.shape[-1] != 2:
        raise ValueError(f"a binary coefficient needs (..., 2, 2) tables, got {t.shape}")
    return t[..., 0, 0], t[..., 0, 1], t[..., 1, 0], t[..., 1, 1]


def _divide(num: ArrayLike, den: ArrayLike) -> FloatArray:
    """``num / den`` with NaN where ``den`` is zero, silently."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def n_items(table: ArrayLike) -> FloatArray:
    """Number of items in each table, ``sum_ij table[..., i, j]``."""
    return as_tables(table).sum(axis=(-2, -1))


def observed_agreement(table: ArrayLike) -> FloatArray:
    """Observed agreement ``p_o = trace / n``.

    >>> float(observed_agreement([[6, 21], [14, 459]]))
    0.93
    """
    t = as_tables(table)
    return _divide(np.trace(t, axis1=-2, axis2=-1), t.sum(axis=(-2, -1)))


Weights = str | ArrayLike | None


def agreement_weights(
    k: int, kind: str | None = None, values: ArrayLike | None = None
) -> FloatArray:
    """Agreement weights ``w_kl`` in [0, 1], 1 on the diagonal.

    Parameters
    ----------
    k
        Number of categories.
    kind
        ``None`` or ``"identity"`` (nominal), ``"linear"`` ``1 - |x_k - x_l| / range`` or
        ``"quadratic"`` ``1 - (x_k - x_l)^2 / range^2``.
    values
        Numeric category values ``x`` (default ``0..K-1``).
    """
    if kind in (None, "identity"):
        return np.eye(k)
    x = np.arange(k, dtype=float) if values is None else np.asarray(values, dtype=float)
    spread = x.max() - x.min() if k > 1 else 1.0
    diff = np.abs(x[:, None] - x[None, :]) / (spread if spread > 0 else 1.0)
    if kind == "linear":
        return 1.0 - diff
    if kind == "quadratic":
        return 1.0 - diff**2
    raise ValueError(f"`kind` must be None, 'linear' or 'quadratic', got {kind!r}")


def _agreement_weights(k: int, weights: Weights) -> FloatArray:
    """Agreement weights ``w_ij`` (1 on the diagonal) for ``K`` ordered categories.

    ``weights`` is ``None`` (unweighted), ``"linear"`` or ``"quadratic"`` (on the category
    ranks, :func:`agreement_weights`), or a ready ``(K, K)`` matrix (for example
    :func:`agreement_weights` on the categories' values).
    """
    if weights is None or isinstance(weights, str):
        return agreement_weights(k, weights)
    w = np.asarray(weights, dtype=float)
    if w.shape != (k, k):
        raise ValueError(f"`weights` must be a ({k}, {k}) matrix, got shape {w.shape}")
    return w


def cohen_kappa(table: ArrayLike, weights: Weights = None) -> FloatArray:
    """Cohen's kappa, optionally weighted, for two annotators.

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o = sum_ij w_ij p_ij`` and
    ``p_e = sum_ij w_ij p_i. p_.j`` (Cohen 1960; Cohen 1968 for the weights).

    Parameters
    ----------
    table
        Counts or probabilities, shape ``(..., K, K)``.
    weights
        ``None`` (unweighted), ``"linear"`` or ``"quadratic"`` agreement weights for
        ordered categories (on their ranks), or a ``(K, K)`` weight matrix.

    Returns
    -------
    ndarray, shape ``(...)``
        NaN where ``p_e == 1`` (both annotators use a single, identical category).

    Examples
    --------
    The lecture's imbalanced example (Lecture 8, worked example 1):

    >>> round(float(cohen_kappa([[7, 4], [8, 81]])), 3)
    0.471
    """
    t = as_tables(table)
    w = _agreement_weights(t.shape[-1], weights)
    n = t.sum(axis=(-2, -1), keepdims=True)
    p = _divide(t, n)
    rows = p.sum(axis=-1)
    cols = p.sum(axis=-2)
    p_o = (w * p).sum(axis=(-2, -1))
    p_e = np.einsum("...i,ij,...j->...", rows, w, cols)
    return _divide(p_o - p_e, 1.0 - p_e)


def positive_agreement(table: ArrayLike) -> FloatArray:
    """Positive specific agreement ``PSA = 2a / (2a + b + c)``.

    Equal to the F1 score of one annotator scored against the other, and symmetric in the
    two annotators. NaN when no item was flagged by either annotator.

    >>> round(float(positive_agreement([[6, 21], [14, 459]])), 6)
    0.255319
    """
    a, b, c, _ = binary_cells(table)
    return _divide(2 * a, 2 * a + b + c)


def negative_agreement(table: ArrayLike) -> FloatArray:
    """Negative specific agreement ``NSA = 2d / (2d + b + c)``.

    >>> round(float(negative_agreement([[6, 21], [14, 459]])), 6)
    0.963274
    """
    _, b, c, d = binary_cells(table)
    return _divide(2 * d, 2 * d + b + c)


def jaccard(table: ArrayLike) -> FloatArray:
    """Jaccard index of the positive labels, ``J = a / (a + b + c)``; PSA = 2J / (1 + J)."""
    a, b, c, _ = binary_cells(table)
    return _divide(a, a + b + c)


def union_positives(table: ArrayLike) -> FloatArray:
    """Union positives ``U = a + b + c``: items at least one annotator flagged."""
    a, b, c, _ = binary_cells(table)
    return a + b + c


def pabak(table: ArrayLike) -> FloatArray:
    """Prevalence- and bias-adjusted kappa (Brennan-Prediger), ``(p_o - 1/K) / (1 - 1/K)``.

    For binary labels this is ``2 p_o - 1`` (Byrt et al. 1993).
    """
    k = as_tables(table).shape[-1]
    return (observed_agreement(table) - 1.0 / k) / (1.0 - 1.0 / k)


def prevalence_index(table: ArrayLike) -> FloatArray:
    """Byrt's prevalence index, signed: ``PI = (a - d) / n``."""
    a, b, c, d = binary_cells(table)
    return _divide(a - d, a + b + c + d)


def bias_index(table: ArrayLike) -> FloatArray:
    """Byrt's bias index, signed: ``BI = (b - c) / n`` (positive when A flags more)."""
    a, b, c, d = binary_cells(table)
    return _divide(b - c, a + b + c + d)


def positive_rates(table: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Each annotator's share of positive labels, ``((a + b) / n, (a + c) / n)``."""
    a, b, c, d = binary_cells(table)
    n = a + b + c + d
    return _divide(a + b, n), _divide(a + c, n)


# --------------------------------------------------------------------------- kappa variances


def _kappa_terms(
    table: ArrayLike, weights: Weights
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(n, p, rows, cols, w, w_bar_i., w_bar_.j)`` of Fleiss, Cohen & Everitt (1969)."""
    t = as_tables(table)
    w = _agreement_weights(t.shape[-1], weights)
    n = t.sum(axis=(-2, -1))
    p = _divide(t, n[..., None, None])
    rows = p.sum(axis=-1)
    cols = p.sum(axis=-2)
    w_row = np.einsum("ij,...j->...i", w, cols)  # w_bar_i. = sum_j w_ij p_.j
    w_col = np.einsum("...i,ij->...j", rows, w)  # w_bar_.j = sum_i p_i. w_ij
    return n, p, rows, cols, w, w_row, w_col


def weighted_kappa_standard_error(table: ArrayLike, weights: Weights = None) -> FloatArray:
    """Large-sample standard error of (weighted) Cohen's kappa, for intervals.

    Fleiss, Cohen & Everitt (1969), with agreement weights ``w_ij`` (1 on the diagonal),
    ``w_bar_i. = sum_j w_ij p_.j`` and ``w_bar_.j = sum_i p_i. w_ij``::

        Var = [ sum_ij p_ij {w_ij - (w_bar_i. + w_bar_.j)(1 - k)}^2
                - {k - p_e (1 - k)}^2 ] / [ n (1 - p_e)^2 ]

    Unweighted (``weights=None``) it is the FCE standard error of Cohen's kappa.

    Parameters
    ----------
    table
        Counts, shape ``(..., K, K)``.
    weights
        ``None``, ``"linear"`` or ``"quadratic"`` (as :func:`cohen_kappa`).

    References
    ----------
    Fleiss JL, Cohen J, Everitt BS (1969) Large sample standard errors of kappa and
    weighted kappa. Psychol Bull 72:323-327.

    >>> round(float(weighted_kappa_standard_error([[6, 21], [14, 459]])), 5)
    0.08625
    """
    n, p, rows, cols, w, w_row, w_col = _kappa_terms(table, weights)
    p_e = (rows * w_row).sum(axis=-1)
    kappa = cohen_kappa(table, weights)
    k = kappa[..., None, None]
    spread = w - (w_row[..., :, None] + w_col[..., None, :]) * (1 - k)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = ((p * spread**2).sum(axis=(-2, -1)) - (kappa - p_e * (1 - kappa)) ** 2) / (
            n * (1 - p_e) ** 2
        )
    return np.sqrt(np.maximum(var, 0.0))


def kappa_null_standard_error(table: ArrayLike, weights: Weights = None) -> FloatArray:
    """Standard error of (weighted) Cohen's kappa **under kappa = 0**, for the test only.

    Fleiss, Cohen & Everitt (1969): with the margins held at their estimates,
    ``Var_0 = [sum_ij p_i. p_.j {w_ij - (w_bar_i. + w_bar_.j)}^2 - p_e^2] / [n (1 - p_e)^2]``;
    unweighted, ``[p_e + p_e^2 - sum_i p_i. p_.i (p_i. + p_.i)] / [n (1 - p_e)^2]``.
    It is not an interval's standard error (see :func:`weighted_kappa_standard_error`).

    >>> round(float(kappa_null_standard_error([[6, 21], [14, 459]])), 5)
    0.04417
    """
    n, _, rows, cols, w, w_row, w_col = _kappa_terms(table, weights)
    p_e = (rows * w_row).sum(axis=-1)
    expected = rows[..., :, None] * cols[..., None, :]
    spread = w - (w_row[..., :, None] + w_col[..., None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        var = ((expected * spread**2).sum(axis=(-2, -1)) - p_e**2) / (n * (1 - p_e) ** 2)
    return np.sqrt(np.maximum(var, 0.0))
