"""Agreement among any number of annotators, on per-item category counts.

Every function takes ``counts`` of shape ``(..., N, K)``: for each of ``N`` items, how many
annotators put it in each of ``K`` categories, and optionally a ``multiplicity`` ``(..., N)``
saying how many items share that row (so a million items compress to their few distinct
count patterns, and a bootstrap resample is just new multiplicities). Items may have
different numbers of annotators (missing ratings); items with no rating at all should be
left out, and items with a single rating count only where a formula says so. Leading
axes are a batch (for example bootstrap resamples of items). Results have shape ``(...)``.

The chance-corrected coefficients share one frame (Gwet 2014, 2021):
``coefficient = (p_a - p_e) / (1 - p_e)`` with the pairwise agreement

    p_a = mean over items with r_i >= 2 of  sum_k n_ik (n*_ik - 1) / (r_i (r_i - 1)),

``n*_ik = sum_l w_kl n_il`` for agreement weights ``w`` (identity for nominal data), and a
chance term that differs:

* Fleiss' kappa: ``p_e = sum_kl w_kl pi_k pi_l`` with ``pi_k`` the mean over items of
  ``n_ik / r_i`` (Fleiss 1971, generalised to unequal numbers of ratings by Gwet);
* Gwet's AC1/AC2: ``p_e = (sum w) / (K (K - 1)) sum_k pi_k (1 - pi_k)`` (Gwet 2008);
* Brennan-Prediger: ``p_e = (sum w) / K^2`` (Brennan & Prediger 1981).

Their standard errors are Gwet's linearised variances,
``var = (1 - f) / (n (n - 1)) sum_i (c*_i - c)^2`` with a ``t_{n-1}`` interval, where
``c*_i`` is item i's linearised contribution. The Fleiss-Nee-Landis (1979) variance is
provided only for testing kappa = 0 (:func:`fleiss_kappa_null_se`).

References
----------
Fleiss JL (1971) Measuring nominal scale agreement among many raters. Psychol Bull
    76:378-382.
Fleiss JL, Nee JCM, Landis JR (1979) Large sample variance of kappa in the case of
    different sets of raters. Psychol Bull 86:974-977.
Gwet KL (2008) Computing inter-rater reliability and its variance in the presence of high
    agreement. Br J Math Stat Psychol 61:29-48.
Gwet KL (2021) Large-sample variance of Fleiss generalized kappa. Educ Psychol Meas
    81:781-790.
Uebersax J. Raw agreement indices. https://www.john-uebersax.com/stat/raw.htm
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, special

from planner.statistics.agreement import agreement_weights as agreement_weights  # re-exported
from planner.statistics.intervals import KAPPA_RANGE, within

FloatArray = NDArray[np.float64]
CHANCE_MODELS = ("fleiss", "gwet", "brennan-prediger")


def as_counts(counts: ArrayLike) -> FloatArray:
    """``counts`` as float ``(..., N, K)``, checked non-negative with ``K >= 1``."""
    c = np.asarray(counts, dtype=float)
    if c.ndim < 2 or c.shape[-1] < 1:
        raise ValueError(f"`counts` must have shape (..., N, K), got {c.shape}")
    if np.any(c < 0):
        raise ValueError("`counts` must be non-negative")
    return c


def _multiplicity(multiplicity: ArrayLike | None, shape: tuple[int, ...]) -> FloatArray:
    """Item multiplicities; a batch of them (bootstrap) broadcasts against the rows."""
    if multiplicity is None:
        return np.ones(shape)
    return np.asarray(multiplicity, dtype=float)


def compress(counts: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Distinct rows of ``(N, K)`` counts and how many items share each.

    Statistics of the ``N`` items equal those of the distinct rows weighted by their
    multiplicities; with few categories and annotators there are few distinct rows.

    >>> rows, mult = compress([[2, 0], [1, 1], [2, 0]])
    >>> rows.tolist(), mult.tolist()
    ([[1, 1], [2, 0]], [1, 2])
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.size == 0:
        return c.reshape(0, c.shape[-1]), np.zeros(0, dtype=np.int64)
    base = int(c.max()) + 1
    k = c.shape[1]
    if k * np.log2(max(base, 2)) <= 24:  # small code space: one bincount, no sort
        powers = base ** np.arange(k - 1, -1, -1, dtype=np.int64)  # first column most significant
        code = np.empty(c.shape[0], dtype=np.int64)
        for start in range(0, c.shape[0], 16384):  # Horner in cache-sized blocks
            block = c[start : start + 16384]
            part = block[:, 0].copy()
            for j in range(1, k):
                part *= base
                part += block[:, j]
            code[start : start + 16384] = part
        mult = np.bincount(code, minlength=int(base**k))
        present = np.flatnonzero(mult)
        rows = (present[:, None] // powers) % base
        return rows, mult[present]
    rows, mult = np.unique(c, axis=0, return_counts=True)
    return rows, mult


def _safe_div(num: ArrayLike, den: ArrayLike) -> FloatArray:
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class ChanceCorrected:
    """A chance-corrected coefficient with Gwet's linearised standard error.

    Attributes
    ----------
    estimate, p_a, p_e, standard_error
        Arrays of the batch shape.
    n_items
        Items with at least one rating (the ``n`` of the variance).
    n_pairable
        Items with at least two ratings.
    """

    estimate: FloatArray
    p_a: FloatArray
    p_e: FloatArray
    standard_error: FloatArray
    n_items: FloatArray
    n_pairable: FloatArray

    def confidence_interval(
        self, confidence_level: float = 0.95, scale: str = "linear"
    ) -> tuple[FloatArray, FloatArray]:
        """``estimate -/+ t_{n-1} SE`` (Gwet 2008, 2021), on the coefficient's scale or on
        ``log(1 - coefficient)``.

        ``scale="log1m"``: the t interval for ``log(1 - c)`` with the delta-method SE
        ``SE / (1 - c)``, mapped back, ``1 - (1 - c) exp(+/- t SE / (1 - c))``; it stretches
        downwards near the upper bound 1, where the linear interval under-covers. For AC1
        and Brennan-Prediger over coverage_study/'s several-annotator grid (4,000 studies per
        cell) it moves the worst coverage at 20 union positives from 0.897 / 0.863 to
        0.942 / 0.938 (none under 0.935; at most 0.973), at the same median width. For
        Fleiss' kappa it does not help (worst 0.857 vs 0.849 at 20, 0.909 vs 0.915 at 50).
        """
        t = special.stdtrit(np.maximum(self.n_items - 1, 1), 0.5 + confidence_level / 2)
        if scale == "log1m":
            gap = np.maximum(1 - self.estimate, 1e-12)
            with np.errstate(over="ignore", invalid="ignore"):
                h = t * self.standard_error / gap
                return within(1 - gap * np.exp(h), 1 - gap * np.exp(-h), KAPPA_RANGE)
        if scale != "linear":
            raise ValueError(f"`scale` must be 'linear' or 'log1m', got {scale!r}")
        t_se = t * self.standard_error
        return within(self.estimate - t_se, self.estimate + t_se, KAPPA_RANGE)


def chance_corrected(
    counts: ArrayLike,
    chance: str = "fleiss",
    weights: ArrayLike | None = None,
    sampling_fraction: float = 0.0,
    multiplicity: ArrayLike | None = None,
) -> ChanceCorrected:
    """Fleiss' kappa, Gwet's AC1/AC2 or Brennan-Prediger, with Gwet's standard error.

    Parameters
    ----------
    counts
        ``(..., N, K)`` per-item category counts (items with no rating are ignored).
    chance
        ``"fleiss"``, ``"gwet"`` (AC1, or AC2 with weights) or ``"brennan-prediger"``.
    weights
        ``(K, K)`` agreement weights (default identity).
    sampling_fraction
        ``f = n / N_population`` for the finite-population correction (default 0).
    multiplicity
        ``(..., N)`` number of items with each row of counts (default 1 each).

    Examples
    --------
    Krippendorff's (2011) reliability data, AC1 (irrCAC: 0.77544, SE 0.14295):

    >>> counts = [[3,0,0,0,0],[0,3,1,0,0],[0,0,4,0,0],[0,0,4,0,0],[0,4,0,0,0],[1,1,1,1,0],
    ...           [0,0,0,4,0],[3,1,0,0,0],[0,4,0,0,0],[0,0,0,0,3],[2,0,0,0,0],[0,0,1,0,0]]
    >>> res = chance_corrected(counts, "gwet")
    >>> round(float(res.estimate), 5), round(float(res.standard_error), 5)
    (0.77544, 0.14295)
    """
    if chance not in CHANCE_MODELS:
        raise ValueError(f"`chance` must be one of {CHANCE_MODELS}, got {chance!r}")
    c = as_counts(counts)
    k = c.shape[-1]
    w = np.eye(k) if weights is None else np.asarray(weights, dtype=float)
    r = c.sum(axis=-1)  # (..., N)
    mult = _multiplicity(multiplicity, r.shape)
    rated = r >= 1
    pairable = r >= 2
    n = (mult * rated).sum(axis=-1)
    n2 = (mult * pairable).sum(axis=-1)
    weighted = c @ w.T  # n*_ik
    sum_q = (c * (weighted - 1.0)).sum(axis=-1)
    pa_i = np.where(pairable, _safe_div(sum_q, r * (r - 1)), 0.0)
    p_a = _safe_div((mult * pa_i).sum(axis=-1), n2)
    share = np.where(rated[..., None], _safe_div(c, r[..., None]), 0.0)  # n_ik / r_i
    pi = _safe_div((mult[..., None] * share).sum(axis=-2), n[..., None])  # (..., K)
    if chance == "fleiss":
        p_e = np.einsum("...k,kl,...l->...", pi, w, pi)
        pi_w = pi @ ((w + w.T) / 2)
        pe_i = (share * pi_w[..., None, :]).sum(axis=-1)
    elif chance == "gwet":
        scale = w.sum() / (k * (k - 1)) if k > 1 else np.nan
        p_e = scale * (pi * (1 - pi)).sum(axis=-1)
        pe_i = scale * (share * (1 - pi)[..., None, :]).sum(axis=-1)
    else:
        p_e = np.broadcast_to(w.sum() / k**2, p_a.shape).astype(float)
        pe_i = None
    terms = (pa_i, pe_i, rated, pairable, mult)
    return linearised_variance(p_a, p_e, terms, n, n2, sampling_fraction)


def linearised_variance(
    p_a: FloatArray,
    p_e: FloatArray,
    terms: tuple[FloatArray, FloatArray | None, NDArray, NDArray, FloatArray],
    n: FloatArray,
    n2: FloatArray,
    sampling_fraction: float = 0.0,
) -> ChanceCorrected:
    """The coefficient and Gwet's linearised SE from ``p_a``, ``p_e`` and the per-item
    ``terms`` ``(pa_i, pe_i, rated, pairable, multiplicity)`` (``pe_i`` None: fixed p_e)."""
    pa_i, pe_i, rated, pairable, mult = terms
    estimate = _safe_div(p_a - p_e, 1 - p_e)
    scale_n = _safe_div(n, n2)[..., None]
    one_minus_pe = (1 - p_e)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):  # undefined cases stay NaN
        c_i = scale_n * (pa_i - p_e[..., None] * pairable) / one_minus_pe
        if pe_i is not None:
            c_i = c_i - 2 * (1 - estimate)[..., None] * (pe_i - p_e[..., None]) / one_minus_pe
    dev = np.where(rated, c_i - estimate[..., None], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (1 - sampling_fraction) / (n * (n - 1)) * (mult * dev**2).sum(axis=-1)
        se = np.where(n >= 2, np.sqrt(var), np.nan)  # one item: no variance, never inf
    return ChanceCorrected(estimate, p_a, p_e, se, n, n2)


def fleiss_kappa(counts: ArrayLike, weights: ArrayLike | None = None) -> FloatArray:
    """Fleiss' kappa (generalised to unequal numbers of ratings per item).

    >>> round(float(fleiss_kappa([[3, 0], [0, 3], [2, 1], [3, 0]])), 4)
    0.625
    """
    return chance_corrected(counts, "fleiss", weights).estimate


def fleiss_kappa_null_se(counts: ArrayLike, multiplicity: ArrayLike | None = None) -> FloatArray:
    """Fleiss-Nee-Landis (1979) standard error of Fleiss' kappa **under kappa = 0**.

    ``Var_0 = 2 / (N m (m-1)) [(sum p_j q_j)^2 - sum p_j q_j (q_j - p_j)] / (sum p_j q_j)^2``
    for ``N`` items with ``m`` ratings each (``m`` is the mean number of ratings if they
    differ). For testing kappa = 0 only; it is not an interval's standard error.
    """
    c = as_counts(counts)
    r = c.sum(axis=-1)
    w = _multiplicity(multiplicity, r.shape)
    n = (w * (r >= 1)).sum(axis=-1)
    total = (w * r).sum(axis=-1)
    m = _safe_div(total, n)
    p = _safe_div((w[..., None] * c).sum(axis=-2), total[..., None])
    pq = p * (1 - p)
    s = pq.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = 2.0 / (n * m * (m - 1)) * _safe_div(s**2 - (pq * (1 - 2 * p)).sum(axis=-1), s**2)
        return np.sqrt(var)


def category_kappas(counts: ArrayLike) -> FloatArray:
    """Fleiss' category-specific kappas ``(P_j - p_j) / (1 - p_j)``, shape ``(..., K)``.

    ``P_j = sum_i n_ij (n_ij - 1) / sum_i n_ij (r_i - 1)`` is the specific agreement of
    category j (see :func:`specific_agreement`) and ``p_j`` its share of all ratings.
    """
    c = as_counts(counts)
    p = _safe_div(c.sum(axis=-2), c.sum(axis=(-2, -1))[..., None])
    return _safe_div(specific_agreement(c) - p, 1 - p)


def specific_agreement(counts: ArrayLike, multiplicity: ArrayLike | None = None) -> FloatArray:
    """Specific agreement of every category (Uebersax), shape ``(..., K)``.

    ``p_s(j) = sum_i n_ij (n_ij - 1) / sum_i n_ij (r_i - 1)``: pick a rating in category j
    at random, then another annotator of the same item; ``p_s(j)`` is the probability that
    it is in category j too. With two annotators and category j positive it is
    ``PSA = 2a / (2a + b + c)``.

    >>> [round(float(x), 6) for x in specific_agreement([[2, 0]] * 6 + [[1, 1]] * 35
    ...                                                 + [[0, 2]] * 459)]
    [0.255319, 0.963274]
    """
    c = as_counts(counts)
    r = c.sum(axis=-1, keepdims=True)
    mult = _multiplicity(multiplicity, r.shape[:-1])[..., None]
    return _safe_div((mult * c * (c - 1)).sum(axis=-2), (mult * c * (r - 1)).sum(axis=-2))


def specific_agreement_se(counts: ArrayLike, multiplicity: ArrayLike | None = None) -> FloatArray:
    """Linearised standard error of :func:`specific_agreement`, shape ``(..., K)``.

    ``p_s(j)`` is a ratio of item totals ``R = sum y_i / sum x_i`` with
    ``y_i = n_ij (n_ij - 1)`` and ``x_i = n_ij (r_i - 1)``; its Taylor variance is
    ``sum_i (y_i - R x_i)^2 / (sum_i x_i)^2 * n / (n - 1)`` (docs/methods/several-annotators.md 4.2
    and 3.2).
    """
    c = as_counts(counts)
    r = c.sum(axis=-1, keepdims=True)
    w = _multiplicity(multiplicity, r.shape[:-1])[..., None]
    y = c * (c - 1)
    x = c * (r - 1)
    x_total = (w * x).sum(axis=-2)
    ratio = _safe_div((w * y).sum(axis=-2), x_total)
    n = (w[..., 0] * (r[..., 0] >= 2)).sum(axis=-1)[..., None]
    resid = np.where(r >= 2, y - ratio[..., None, :] * x, 0.0)
    var = _safe_div((w * resid**2).sum(axis=-2), x_total**2) * _safe_div(n, n - 1)
    with np.errstate(invalid="ignore"):
        return np.sqrt(var)


def specific_agreement_interval(
    estimate: ArrayLike, standard_error: ArrayLike, confidence_level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Wald interval for specific agreement on the logit scale, mapped back.

    ``expit(logit(p) -/+ z SE / (p (1 - p)))`` with the linearised SE of
    :func:`specific_agreement_se`; where ``p`` is 0 or 1 (no logit) the Wald interval
    clipped to [0, 1]. Over coverage_study/'s several-annotator grid (4,000 studies per cell,
    coverage_study/coverage.md) the worst coverage of specific positive agreement goes from
    0.849 to 0.886 at 20 union positives and from 0.915 to 0.933 at 50 (11 cells under
    against 53 for the plain Wald); at 180 union positives 0.938.

    >>> lo, hi = specific_agreement_interval(0.9, 0.05)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.7518, 0.9639)
    """
    p = np.asarray(estimate, dtype=float)
    se = np.asarray(standard_error, dtype=float)
    z = special.ndtri(0.5 + confidence_level / 2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        centre = np.log(p / (1 - p))
        step = z * se / (p * (1 - p))
        lo, hi = special.expit(centre - step), special.expit(centre + step)
    inside = (p > 0) & (p < 1) & np.isfinite(step)
    return (
        np.where(inside, lo, np.clip(p - z * se, 0, 1)),
        np.where(inside, hi, np.clip(p + z * se, 0, 1)),
    )


def pairwise_agreement(counts: ArrayLike, multiplicity: ArrayLike | None = None) -> FloatArray:
    """Observed pairwise agreement ``p_a`` over items with at least two ratings."""
    return chance_corrected(counts, "brennan-prediger", multiplicity=multiplicity).p_a


# --------------------------------------------------------------------------- sparse patterns


@dataclass(frozen=True)
class Patterns:
    """Distinct per-item count patterns, stored by their non-zero counts.

    Pattern ``p`` puts ``counts[p, j]`` ratings in category ``categories[p, j]``
    (``(P, L)`` arrays, padded with count 0); ``multiplicity[p]`` items share it. ``L`` is
    the most categories one item uses (at most its number of ratings), so memory is linear
    in the ratings whatever the number of categories ``K``, and the statistics on patterns
    (``*_patterns`` here and in :mod:`planner.statistics.alpha`) cost ``O(P L + K)`` per bootstrap
    resample where the dense ``(P, K)`` forms cost ``O(P K^2)``. Patterns come in the order
    of :func:`compress` (dense rows ascending), so a bootstrap draws the same resamples.
    """

    categories: NDArray[np.int64]
    counts: NDArray[np.float64]
    multiplicity: NDArray[np.int64]
    n_categories: int

    @property
    def n_patterns(self) -> int:
        return int(self.counts.shape[0])

    @property
    def totals(self) -> FloatArray:
        """``(P,)`` ratings per pattern (``r_i``)."""
        return self.counts.sum(axis=1)

    def dense(self) -> FloatArray:
        """The ``(P, K)`` count matrix (for tests and small ``K``)."""
        out = np.zeros((self.n_patterns, self.n_categories))
        np.add.at(out, (np.arange(self.n_patterns)[:, None], self.categories), self.counts)
        return out

    def matrix(self, entries: ArrayLike | None = None) -> sparse.csr_matrix:
        """Sparse ``(P, K)`` matrix with ``entries`` ``(P, L)`` (default the counts)."""
        data = self.counts if entries is None else np.asarray(entries, dtype=float)
        rows = np.broadcast_to(np.arange(self.n_patterns)[:, None], data.shape)
        keep = self.counts > 0
        return sparse.csr_matrix(
            (data[keep], (rows[keep], self.categories[keep])),
            shape=(self.n_patterns, self.n_categories),
        )

    def pair_sums(self, kernel: ArrayLike | None = None, *, distance: bool = False) -> FloatArray:
        """``sum_jl n_pj n_pl kernel[c_pj, c_pl]`` per pattern, over its own categories.

        ``kernel`` is ``(K, K)`` (``None``: the identity), or with ``distance=True`` the
        category values ``x`` ``(K,)`` and the kernel ``(x_c - x_k)^2``; ``O(P L^2)``.
        """
        if kernel is None:
            return (self.counts**2).sum(axis=1)
        table = np.asarray(kernel, dtype=float)
        at = table[self.categories] if distance else None
        total = np.zeros(self.n_patterns)
        for j in range(self.counts.shape[1]):
            if at is not None:
                inner = (at[:, j, None] - at) ** 2
            else:
                inner = table[self.categories[:, j, None], self.categories]
            total += self.counts[:, j] * (inner * self.counts).sum(axis=1)
        return total

    def per_category(self, multiplicity: ArrayLike, entries: ArrayLike | None = None) -> FloatArray:
        """``sum_p multiplicity_p entries_pk``, shape ``(..., K)``, in ``O(nnz)`` per batch row."""
        m = np.asarray(multiplicity, dtype=float)
        flat = m.reshape(-1, m.shape[-1])
        out = np.asarray((self.matrix(entries).T @ flat.T).T)
        return out.reshape(m.shape[:-1] + (self.n_categories,))


def patterns_from_counts(counts: ArrayLike) -> Patterns:
    """:class:`Patterns` of a dense ``(N, K)`` count matrix (through :func:`compress`).

    >>> p = patterns_from_counts([[2, 0], [1, 1], [2, 0]])
    >>> p.dense().tolist(), p.multiplicity.tolist()
    ([[1.0, 1.0], [2.0, 0.0]], [1, 2])
    """
    rows, mult = compress(as_counts(counts))
    k = rows.shape[1]
    width = max(1, int((rows > 0).sum(axis=1).max(initial=0)))
    order = np.argsort(rows == 0, axis=1, kind="stable")[:, :width]  # non-zero columns first
    values = np.take_along_axis(rows, order, axis=1).astype(float)
    return Patterns(order.astype(np.int64), values, mult.astype(np.int64), k)


def patterns_from_codes(codes: ArrayLike, n_categories: int) -> Patterns:
    """:class:`Patterns` of ``(N, m)`` category codes (``-1`` = missing), linear in ratings.

    Never builds the ``(N, K)`` counts. Each item's ratings are sorted, runs of one code
    give its ``(category, count)`` pairs, and distinct patterns are found on a key that
    orders them as :func:`compress` orders dense rows: a pair ``(c, n)`` is keyed
    ``(K - c) (m + 1) + n`` (an earlier category, or more ratings in it, is a larger dense
    row), padding is 0 (a row that stops is smaller).

    >>> p = patterns_from_codes([[0, 0], [0, 1], [0, 0]], 2)
    >>> p.dense().tolist(), p.multiplicity.tolist()
    ([[1.0, 1.0], [2.0, 0.0]], [1, 2])
    """
    c = np.sort(np.asarray(codes, dtype=np.int64), axis=1)
    n, m = c.shape
    k = int(n_categories)
    valid = c >= 0
    start = valid.copy()
    start[:, 1:] &= c[:, 1:] != c[:, :-1]
    run = np.cumsum(start.ravel()) - 1  # run id of every cell (valid cells only matter)
    run_count = np.bincount(run[valid.ravel()], minlength=int(start.sum()))
    slot = np.cumsum(start, axis=1) - 1  # position of a run inside its item
    width = max(1, int(start.sum(axis=1).max(initial=0)))
    cats = np.zeros((n, width), dtype=np.int64)
    cnts = np.zeros((n, width), dtype=np.int64)
    where = np.nonzero(start)
    cats[where[0], slot[where]] = c[where]
    cnts[where[0], slot[where]] = run_count
    return _distinct_patterns(cats, cnts, k, m)


def _distinct_patterns(
    cats: NDArray[np.int64],
    cnts: NDArray[np.int64],
    k: int,
    m: int,
    weights: NDArray[np.int64] | None = None,
) -> Patterns:
    """Distinct rows of ``(N, L)`` (category, count) pairs, in :func:`compress` order.

    ``m`` bounds any count; ``weights`` ``(N,)`` is how many items each row stands for.
    """
    key = np.where(cnts > 0, (k - cats) * (m + 1) + cnts, 0)
    base = (k + 1) * (m + 1) + 1
    width = key.shape[1]
    if width * np.log2(base) < 62:  # one integer per item: a 1-d sort
        code = np.zeros(key.shape[0], dtype=np.int64)
        for j in range(width):
            code = code * base + key[:, j]
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    mult = np.bincount(inverse, weights=weights, minlength=len(first))
    return Patterns(cats[first], cnts[first].astype(float), np.round(mult).astype(np.int64), k)


def patterns_from_ratings(
    item_index: ArrayLike,
    label_index: ArrayLike,
    n_rows: int,
    n_categories: int,
    weights: ArrayLike | None = None,
) -> Patterns:
    """:class:`Patterns` of sparse ratings: one (row, category code) pair per rating.

    Linear in the ratings, whatever the numbers of annotators and categories: ratings are
    sorted by (row, code), runs give each row's ``(category, count)`` pairs. ``weights``
    ``(n_rows,)`` is how many identical items each row stands for (default one each).

    >>> p = patterns_from_ratings([0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 0, 0], 3, 2)
    >>> p.dense().tolist(), p.multiplicity.tolist()
    ([[1.0, 1.0], [2.0, 0.0]], [1, 2])
    """
    cats, cnts, most = row_category_counts(item_index, label_index, n_rows)
    w = None if weights is None else np.asarray(weights, dtype=float)
    return _distinct_patterns(cats, cnts, int(n_categories), most, w)


def row_category_counts(
    item_index: ArrayLike, label_index: ArrayLike, n_rows: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Each row's ``(category, count)`` pairs of sparse ratings, linear in the ratings.

    Returns ``(categories, counts, most)``: ``(n_rows, L)`` arrays padded with count 0
    (``L`` the most categories one row uses) and the largest count. Not deduplicated:
    :func:`patterns_from_ratings` finds the distinct rows; statistics that need every
    row (Conger's kappa, :mod:`planner.statistics.conger`) use them as they are.
    """
    item = np.asarray(item_index, dtype=np.int64)
    label = np.asarray(label_index, dtype=np.int64)
    order = np.lexsort((label, item))
    item, label = item[order], label[order]
    start = np.ones(item.size, dtype=bool)
    start[1:] = (item[1:] != item[:-1]) | (label[1:] != label[:-1])
    run_count = np.bincount(np.cumsum(start) - 1) if item.size else np.zeros(0, np.int64)
    run_item, run_cat = item[start], label[start]
    first_of_item = np.ones(run_item.size, dtype=bool)
    first_of_item[1:] = run_item[1:] != run_item[:-1]
    positions = np.arange(run_item.size)
    slot = positions - np.maximum.accumulate(np.where(first_of_item, positions, 0))
    width = max(1, int(slot.max(initial=0)) + 1)
    cats = np.zeros((int(n_rows), width), dtype=np.int64)
    cnts = np.zeros((int(n_rows), width), dtype=np.int64)
    cats[run_item, slot] = run_cat
    cnts[run_item, slot] = run_count
    return cats, cnts, int(run_count.max(initial=0))


def chance_corrected_patterns(
    patterns: Patterns,
    chance: str = "fleiss",
    weights: ArrayLike | None = None,
    multiplicity: ArrayLike | None = None,
) -> ChanceCorrected:
    """:func:`chance_corrected` on :class:`Patterns`, in ``O(P L + K)`` per batch row.

    ``multiplicity`` ``(..., P)`` defaults to the patterns' own; weighted Fleiss' chance
    term is one ``(..., K) @ (K, K)`` product per batch (nominal data, AC1/AC2 and
    Brennan-Prediger are ``O(K)`` per batch row).
    """
    if chance not in CHANCE_MODELS:
        raise ValueError(f"`chance` must be one of {CHANCE_MODELS}, got {chance!r}")
    p = patterns
    k = p.n_categories
    w = None if weights is None else np.asarray(weights, dtype=float)
    r = p.totals
    mult = np.asarray(p.multiplicity if multiplicity is None else multiplicity, dtype=float)
    rated, pairable = r >= 1, r >= 2
    n = mult @ rated.astype(float)
    n2 = mult @ pairable.astype(float)
    sum_q = p.pair_sums(w) - r
    pa_i = np.where(pairable, _safe_div(sum_q, r * (r - 1)), 0.0)
    p_a = _safe_div(mult @ pa_i, n2)
    share = _safe_div(p.counts, np.where(rated, r, 1.0)[:, None])  # n_ik / r_i on non-zeros
    pi = _safe_div(p.per_category(mult, share), n[..., None])  # (..., K)
    w_sum = float(k) if w is None else float(w.sum())
    pe_i: FloatArray | None
    if chance == "fleiss":
        if w is None:
            p_e, pi_w = (pi**2).sum(axis=-1), pi
        else:  # two BLAS products (an einsum over K^2 per resample is ten times slower)
            pw = pi @ w
            p_e = (pw * pi).sum(axis=-1)
            pi_w = pw if np.array_equal(w, w.T) else (pw + pi @ w.T) / 2
        pe_i = (share * np.take(pi_w, p.categories, axis=-1)).sum(axis=-1)
    elif chance == "gwet":
        scale = w_sum / (k * (k - 1)) if k > 1 else np.nan
        p_e = scale * (pi * (1 - pi)).sum(axis=-1)
        pe_i = scale * (share * (1 - np.take(pi, p.categories, axis=-1))).sum(axis=-1)
    else:
        p_e = np.broadcast_to(w_sum / k**2, np.shape(p_a)).astype(float)
        pe_i = None
    return linearised_variance(p_a, p_e, (pa_i, pe_i, rated, pairable, mult), n, n2)


def pairwise_agreement_patterns(
    patterns: Patterns, multiplicity: ArrayLike | None = None
) -> FloatArray:
    """:func:`pairwise_agreement` on :class:`Patterns`: ``O(P)`` per batch row after one
    ``O(P L)`` pass."""
    p = patterns
    r = p.totals
    mult = np.asarray(p.multiplicity if multiplicity is None else multiplicity, dtype=float)
    pairable = r >= 2
    pa_i = np.where(pairable, _safe_div(p.pair_sums() - r, r * (r - 1)), 0.0)
    return _safe_div(mult @ pa_i, mult @ pairable.astype(float))


def specific_agreement_patterns(
    patterns: Patterns, multiplicity: ArrayLike | None = None, category: int | None = None
) -> FloatArray:
    """:func:`specific_agreement` on :class:`Patterns`: ``(..., K)``, or ``(...)`` for one
    ``category`` (``O(P L)`` per batch row)."""
    p = patterns
    mult = np.asarray(p.multiplicity if multiplicity is None else multiplicity, dtype=float)
    y = p.counts * (p.counts - 1)
    x = p.counts * (p.totals[:, None] - 1)
    if category is None:
        return _safe_div(p.per_category(mult, y), p.per_category(mult, x))
    mine = p.categories == category
    return _safe_div(mult @ (y * mine).sum(1), mult @ (x * mine).sum(1))


def specific_agreement_se_patterns(patterns: Patterns) -> FloatArray:
    """:func:`specific_agreement_se` on :class:`Patterns`, shape ``(K,)``."""
    p = patterns
    w = p.multiplicity.astype(float)
    r = p.totals[:, None]
    y = p.counts * (p.counts - 1)
    x = p.counts * (r - 1)
    x_total = p.per_category(w, x)
    ratio = _safe_div(p.per_category(w, y), x_total)
    n = float(w @ (r[:, 0] >= 2))
    resid = np.where((r >= 2) & (p.counts > 0), y - ratio[p.categories] * x, 0.0)
    var = _safe_div(p.per_category(w, resid**2), x_total**2) * _safe_div(n, n - 1)
    with np.errstate(invalid="ignore"):
        return np.sqrt(var)


def fleiss_kappa_null_se_patterns(patterns: Patterns) -> FloatArray:
    """:func:`fleiss_kappa_null_se` on :class:`Patterns`."""
    p = patterns
    w = p.multiplicity.astype(float)
    r = p.totals
    n = w @ (r >= 1)
    total = w @ r
    m = _safe_div(total, n)
    share = _safe_div(p.per_category(w), total)
    pq = share * (1 - share)
    s = pq.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        var = 2.0 / (n * m * (m - 1)) * _safe_div(s**2 - (pq * (1 - 2 * share)).sum(), s**2)
        return np.sqrt(var)
