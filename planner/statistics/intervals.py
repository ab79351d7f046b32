"""Confidence intervals for PSA and Cohen's kappa, vectorised over stacked tables.

Every function takes ``(..., 2, 2)`` counts and returns a :class:`ConfidenceInterval`
whose ``low`` and ``high`` have shape ``(...)``; the half-width is
``(high - low) / 2``. Undefined intervals (no union positives for PSA, a single category
for kappa) are NaN.

Nothing of scipy is imported at module level: even :mod:`scipy.special` costs about
0.3 s of start-up (it pulls in scipy's array-API layer, which imports most of numpy's
submodules), and the ``plan`` command is meant to start fast. The normal quantile comes
from :class:`statistics.NormalDist` (Wichura's AS241, accurate to about 1e-16); only the
Clopper-Pearson and Jeffreys intervals import :mod:`scipy.special` (for ``betaincinv``),
when they are called.

References
----------
Wilson EB (1927) Probable inference, the law of succession, and statistical inference.
    JASA 22:209-212.
Clopper CJ, Pearson ES (1934) The use of confidence or fiducial limits illustrated in the
    case of the binomial. Biometrika 26:404-413.
Graham P, Bull B (1998) Approximate standard errors and confidence intervals for indices of
    positive and negative agreement. J Clin Epidemiol 51:763-771.
Fleiss JL, Cohen J, Everitt BS (1969) Large sample standard errors of kappa and weighted
    kappa. Psychol Bull 72:323-327.
Donner A, Eliasziw M (1992) A goodness-of-fit approach to inference procedures for the kappa
    statistic. Stat Med 11:1511-1519.
Bloch DA, Kraemer HC (1989) 2 x 2 kappa coefficients: measures of agreement or association.
    Biometrics 45:269-287.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.statistics.agreement import as_tables, binary_cells, cohen_kappa, positive_agreement

FloatArray = NDArray[np.float64]

PSA_METHODS = ("wilson", "clopper-pearson", "jeffreys", "wald", "bootstrap")
KAPPA_METHODS = ("score", "gof", "fce", "bootstrap", "profile")
#: Resamples of a bootstrap interval on each simulated study of a plan (the sample-size
#: search, fixed-size precision, the assurance curve): fewer than a measured study's
SIMULATED_BOOTSTRAP_RESAMPLES = 1000
#: The quantity each kappa interval estimates (``gof`` assumes one common positive rate).
KAPPA_ESTIMANDS = {
    "profile": "Cohen's kappa",
    "score": "Cohen's kappa",
    "gof": "intraclass kappa",
    "fce": "Cohen's kappa",
    "bootstrap": "Cohen's kappa",
}
_BOOTSTRAP_CHUNK = 256  # tables resampled at once; fixed so chunking never changes answers
_BISECTION_STEPS = 48


class ConfidenceInterval(NamedTuple):
    """Lower and upper confidence limits, arrays of the batch shape."""

    low: FloatArray
    high: FloatArray

    @property
    def half_width(self) -> FloatArray:
        """``(high - low) / 2``."""
        return (np.asarray(self.high) - np.asarray(self.low)) / 2.0


#: the range of every kappa-type coefficient (Cohen's, Fleiss', weighted, AC1, Brennan-
#: Prediger, ...) and of every proportion (PSA, observed and specific agreement)
KAPPA_RANGE = (-1.0, 1.0)
PROPORTION_RANGE = (0.0, 1.0)


def within(low: ArrayLike, high: ArrayLike, bounds: tuple[float, float]) -> ConfidenceInterval:
    """The interval ``[low, high]`` clipped to its parameter's range ``bounds`` (NaN kept).

    Wald-type limits ``estimate -/+ z SE`` can pass the range the parameter lives in; no
    interval planner reports does.

    >>> ci = within(np.array([-1.2, np.nan]), np.array([0.4, np.nan]), KAPPA_RANGE)
    >>> ci.low.tolist(), ci.high.tolist()
    ([-1.0, nan], [0.4, nan])
    """
    return ConfidenceInterval(np.clip(low, *bounds), np.clip(high, *bounds))


def _check_confidence_level(confidence_level: float) -> float:
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"`confidence_level` must be in (0, 1), got {confidence_level}")
    return float(confidence_level)


@lru_cache(maxsize=64)
def normal_quantile(confidence_level: float) -> float:
    """Two-sided normal critical value ``z = Phi^-1((1 + confidence_level) / 2)``.

    >>> round(normal_quantile(0.95), 5)
    1.95996
    """
    return NormalDist().inv_cdf(0.5 + _check_confidence_level(confidence_level) / 2.0)


# --------------------------------------------------------------------------- binomial


def wilson_interval(
    successes: ArrayLike, trials: ArrayLike, confidence_level: float = 0.95
) -> ConfidenceInterval:
    """Wilson score interval for a binomial proportion.

    Centre ``(p + z^2/2m) / (1 + z^2/m)`` and half-width
    ``z sqrt(p(1-p)/m + z^2/4m^2) / (1 + z^2/m)`` with ``p = k/m`` (Wilson 1927).
    NaN where ``trials == 0``.

    >>> ci = wilson_interval(6, 41)
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.0688, 0.2844)
    """
    z = normal_quantile(confidence_level)
    k = np.asarray(successes, dtype=float)
    m = np.asarray(trials, dtype=float)
    valid = m > 0
    m_safe = np.where(valid, m, 1.0)
    p = k / m_safe
    denom = 1.0 + z * z / m_safe
    centre = (p + z * z / (2 * m_safe)) / denom
    half = z * np.sqrt(p * (1 - p) / m_safe + z * z / (4 * m_safe * m_safe)) / denom
    # at k = 0 and k = m the limits are exactly 0 and 1; avoid rounding just inside them
    low = np.where(valid, np.where(k > 0, np.clip(centre - half, 0.0, 1.0), 0.0), np.nan)
    high = np.where(valid, np.where(k < m, np.clip(centre + half, 0.0, 1.0), 1.0), np.nan)
    return ConfidenceInterval(low, high)


def clopper_pearson_interval(
    successes: ArrayLike, trials: ArrayLike, confidence_level: float = 0.95
) -> ConfidenceInterval:
    """Clopper-Pearson ("exact") interval from beta quantiles; conservative."""
    from scipy import special  # lazily: see the module note on start-up time

    tail = (1.0 - _check_confidence_level(confidence_level)) / 2.0
    k = np.asarray(successes, dtype=float)
    m = np.asarray(trials, dtype=float)
    valid = m > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, special.betaincinv(np.maximum(k, 1e-300), m - k + 1, tail), 0.0)
        high = np.where(
            k < m, special.betaincinv(k + 1, np.maximum(m - k, 1e-300), 1.0 - tail), 1.0
        )
    return ConfidenceInterval(np.where(valid, low, np.nan), np.where(valid, high, np.nan))


def jeffreys_interval(
    successes: ArrayLike, trials: ArrayLike, confidence_level: float = 0.95
) -> ConfidenceInterval:
    """Jeffreys interval: Beta(k + 1/2, m - k + 1/2) quantiles.

    With the modification of Brown, Cai & DasGupta (2001, Stat Sci 16:101-133): the lower
    limit is 0 at ``k = 0`` and the upper limit 1 at ``k = m``.
    """
    from scipy import special  # lazily: see the module note on start-up time

    tail = (1.0 - _check_confidence_level(confidence_level)) / 2.0
    k = np.asarray(successes, dtype=float)
    m = np.asarray(trials, dtype=float)
    valid = m > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, special.betaincinv(k + 0.5, m - k + 0.5, tail), 0.0)
        high = np.where(k < m, special.betaincinv(k + 0.5, m - k + 0.5, 1.0 - tail), 1.0)
    return ConfidenceInterval(np.where(valid, low, np.nan), np.where(valid, high, np.nan))


_BINOMIAL_INTERVALS: dict[str, Callable[..., ConfidenceInterval]] = {
    "wilson": wilson_interval,
    "clopper-pearson": clopper_pearson_interval,
    "jeffreys": jeffreys_interval,
}


# --------------------------------------------------------------------------- PSA


def psa_from_jaccard(j: ArrayLike) -> FloatArray:
    """Map the Jaccard index to PSA, ``2J / (1 + J)`` (strictly increasing)."""
    j = np.asarray(j, dtype=float)
    return 2.0 * j / (1.0 + j)


def jaccard_from_psa(psa: ArrayLike) -> FloatArray:
    """Inverse of :func:`psa_from_jaccard`, ``PSA / (2 - PSA)``."""
    psa = np.asarray(psa, dtype=float)
    return psa / (2.0 - psa)


def psa_conditional_interval(
    joint_positives: ArrayLike,
    union_positives: ArrayLike,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> ConfidenceInterval:
    """PSA interval from a binomial interval for ``J = a / U`` given ``U``, mapped to PSA.

    Given the union positives ``U``, ``a ~ Binomial(U, J)`` exactly under multinomial
    sampling of items, and ``PSA = 2J / (1 + J)`` is increasing, so the coverage for PSA
    equals that of the binomial interval for ``J``.

    Parameters
    ----------
    joint_positives, union_positives
        ``a`` and ``U = a + b + c``, broadcastable arrays.
    method
        ``"wilson"`` (default), ``"clopper-pearson"`` or ``"jeffreys"``.
    """
    if method not in _BINOMIAL_INTERVALS:
        raise ValueError(f"`method` must be one of {sorted(_BINOMIAL_INTERVALS)}, got {method!r}")
    ci = _BINOMIAL_INTERVALS[method](joint_positives, union_positives, confidence_level)
    return ConfidenceInterval(psa_from_jaccard(ci.low), psa_from_jaccard(ci.high))


def psa_standard_error(table: ArrayLike) -> FloatArray:
    """Delta-method standard error of PSA, ``sqrt(4a(b+c)(a+b+c)) / (2a+b+c)^2``.

    (Graham & Bull 1998 form, re-derived in docs/methods/two-annotators.md section 1.4.)
    """
    a, b, c, _ = binary_cells(table)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(4 * a * (b + c) * (a + b + c)) / (2 * a + b + c) ** 2
    return np.where(a + b + c > 0, se, np.nan)


def psa_interval(
    table: ArrayLike,
    confidence_level: float = 0.95,
    method: str = "wilson",
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> ConfidenceInterval:
    """Confidence interval for positive specific agreement.

    Parameters
    ----------
    table
        Counts, shape ``(..., 2, 2)`` (positive category first).
    confidence_level
        Two-sided level, in (0, 1).
    method
        ``"wilson"`` (default; Wilson interval for ``J`` given ``U``, mapped to PSA),
        ``"clopper-pearson"`` (conservative), ``"jeffreys"``, ``"wald"`` (delta method,
        clipped to [0, 1]; collapses when ``a = 0`` or ``b + c = 0``) or ``"bootstrap"``
        (percentile, resampling items).
    n_boot, rng
        Used by the bootstrap only.

    Examples
    --------
    The worked example's pilot table (6 both, 21 A only, 14 B only, 459 neither):

    >>> ci = psa_interval([[6, 21], [14, 459]])
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.1288, 0.4429)
    """
    a, b, c, _ = binary_cells(table)
    if method in _BINOMIAL_INTERVALS:
        return psa_conditional_interval(a, a + b + c, confidence_level, method)
    if method == "wald":
        z = normal_quantile(confidence_level)
        est = positive_agreement(table)
        se = psa_standard_error(table)
        return ConfidenceInterval(np.clip(est - z * se, 0, 1), np.clip(est + z * se, 0, 1))
    if method == "bootstrap":
        return psa_bootstrap_interval(table, confidence_level, n_boot=n_boot, rng=rng)
    raise ValueError(f"`method` must be one of {PSA_METHODS}, got {method!r}")


def psa_bootstrap_interval(
    table: ArrayLike,
    confidence_level: float = 0.95,
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> ConfidenceInterval:
    """Percentile bootstrap interval for PSA, resampling items, drawn as two binomials.

    PSA depends on a resampled table only through ``(a*, U*)``. Resampling ``n`` items with
    replacement gives ``U* ~ Binomial(n, U/n)`` and, given ``U*``,
    ``a* ~ Binomial(U*, a/U)``: exactly the law of the full multinomial resample, with two
    draws instead of a four-cell multinomial. Resamples with ``U* = 0`` are dropped.
    """
    if n_boot < 10:
        raise ValueError(f"`n_boot` must be at least 10, got {n_boot}")
    tail = (1.0 - _check_confidence_level(confidence_level)) / 2.0
    generator = np.random.default_rng(rng)
    a, b, c, d = binary_cells(table)
    batch_shape = np.shape(a)
    a, u = np.ravel(a), np.ravel(a + b + c)
    n = u + np.ravel(d)
    low = np.full(a.shape, np.nan)
    high = np.full(a.shape, np.nan)
    for start in range(0, a.size, _BOOTSTRAP_CHUNK):
        chunk = slice(start, start + _BOOTSTRAP_CHUNK)
        ok = u[chunk] > 0
        if not ok.any():
            continue
        n_c, u_c, a_c = n[chunk][ok], u[chunk][ok], a[chunk][ok]
        u_star = generator.binomial(n_c.astype(np.int64), u_c / n_c, size=(n_boot, n_c.size))
        a_star = generator.binomial(u_star, a_c / u_c)
        with np.errstate(invalid="ignore", divide="ignore"):
            psa_star = 2.0 * a_star / (a_star + u_star)
        if np.all(u_star > 0):
            qs = np.quantile(psa_star, [tail, 1 - tail], axis=0)
        else:
            qs = np.nanquantile(psa_star, [tail, 1 - tail], axis=0)
        low[chunk][ok], high[chunk][ok] = qs[0], qs[1]
    return ConfidenceInterval(low.reshape(batch_shape), high.reshape(batch_shape))


# --------------------------------------------------------------------------- kappa


def kappa_standard_error(table: ArrayLike) -> FloatArray:
    """Fleiss-Cohen-Everitt (1969) large-sample standard error of Cohen's kappa.

    For ``K x K`` tables with cell proportions ``p_ij``, margins ``p_i.`` and ``p_.j``::

        Var = [ sum_i p_ii {1 - (p_i. + p_.i)(1 - k)}^2
              + (1 - k)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
              - {k - p_e (1 - k)}^2 ] / [ n (1 - p_e)^2 ]

    This is the non-null variance, for intervals; do not use it to test kappa = 0.

    >>> round(float(kappa_standard_error([[6, 21], [14, 459]])), 5)
    0.08625
    """
    t = as_tables(table)
    n = t.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
        rows = p.sum(axis=-1)
        cols = p.sum(axis=-2)
        kappa = cohen_kappa(t)[..., None]
        p_e = (rows * cols).sum(axis=-1)
        diag = np.diagonal(p, axis1=-2, axis2=-1)
        term1 = (diag * (1 - (rows + cols) * (1 - kappa)) ** 2).sum(axis=-1)
        spread = (cols[..., :, None] + rows[..., None, :]) ** 2
        off = (p * spread).sum(axis=(-2, -1)) - (diag * np.diagonal(spread, 0, -2, -1)).sum(-1)
        k = kappa[..., 0]
        var = (term1 + (1 - k) ** 2 * off - (k - p_e * (1 - k)) ** 2) / (n * (1 - p_e) ** 2)
    return np.sqrt(np.maximum(var, 0.0))


def _binary_fce_variance(
    pa: FloatArray, pb: FloatArray, pc: FloatArray, pd: FloatArray
) -> FloatArray:
    """``n Var(kappa_hat)`` (Fleiss-Cohen-Everitt) at binary cell probabilities.

    The 2 x 2 case of :func:`kappa_standard_error`, written out cell by cell so that it can
    be evaluated at hypothesised cells (the score interval) without building tables.
    """
    r1, c1 = pa + pb, pa + pc
    r2, c2 = 1 - r1, 1 - c1
    pe = r1 * c1 + r2 * c2
    k = (pa + pd - pe) / (1 - pe)
    diag = pa * (1 - (r1 + c1) * (1 - k)) ** 2 + pd * (1 - (r2 + c2) * (1 - k)) ** 2
    off = pb * (c1 + r2) ** 2 + pc * (c2 + r1) ** 2
    return (diag + (1 - k) ** 2 * off - (k - pe * (1 - k)) ** 2) / (1 - pe) ** 2


def kappa_range(rate_a: ArrayLike, rate_b: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Smallest and largest Cohen's kappa two annotators with these positive rates can reach.

    With positive rates ``p_A`` and ``p_B`` the joint positive probability lies in
    ``[max(0, p_A + p_B - 1), min(p_A, p_B)]`` and kappa is increasing in it; under bias
    (``p_A != p_B``) the largest kappa is below 1.

    >>> low, high = kappa_range(0.3, 0.1)
    >>> round(float(low), 4), round(float(high), 4)
    (-0.1765, 0.4118)
    """
    pa, pb = np.asarray(rate_a, dtype=float), np.asarray(rate_b, dtype=float)
    pe = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = (1 - pa - pb + 2 * np.maximum(0.0, pa + pb - 1) - pe) / (1 - pe)
        high = (1 - pa - pb + 2 * np.minimum(pa, pb) - pe) / (1 - pe)
    return low, high


def _bisect_limits(
    statistic: Callable[[FloatArray], FloatArray],
    centre: FloatArray,
    low_end: FloatArray,
    high_end: FloatArray,
    crit: float,
) -> tuple[FloatArray, FloatArray]:
    """``{k : statistic(k) <= crit}`` by bisection on each side of ``centre``.

    Where the statistic is within ``crit`` at an end of the range, that end is the limit.
    """

    def side(end: FloatArray) -> FloatArray:
        inside, outside = centre.copy(), end.copy()
        for _ in range(_BISECTION_STEPS):
            mid = (inside + outside) / 2
            ok = statistic(mid) <= crit
            inside = np.where(ok, mid, inside)
            outside = np.where(ok, outside, mid)
        return np.where(statistic(end) <= crit, end, (inside + outside) / 2)

    return side(low_end), side(high_end)


def kappa_score_interval(table: ArrayLike, confidence_level: float = 0.95) -> ConfidenceInterval:
    """Score interval for Cohen's kappa itself (binary, two annotators, bias allowed).

    The set of ``k0`` with ``n (k_hat - k0)^2 <= z^2 V(k0)``, where ``V(k0)`` is ``n`` times
    the Fleiss-Cohen-Everitt variance evaluated at the cells that have the observed positive
    rates ``p_A``, ``p_B`` and Cohen's kappa ``k0`` (docs/methods/sample-size.md 2.3 builds the
    same cells).
    As the Wilson interval does for a proportion, the variance is taken under the
    hypothesised value, not at the estimate, so the interval never collapses when a cell is
    empty. Beyond the kappas the observed rates allow (:func:`kappa_range`) the variance at
    the nearest reachable kappa is used, so the interval can pass the estimate when it sits
    on its bound (for example when one annotator's positives are a subset of the other's).

    Unlike :func:`kappa_gof_interval` it does not assume a common positive rate: it targets
    Cohen's kappa under annotator bias. NaN where kappa is undefined or an annotator uses one
    category only (the rates then fix kappa at 0 and no interval is informative).

    >>> ci = kappa_score_interval([[333, 667], [0, 2333]])
    >>> round(float(ci.low), 4) <= 0.4114 <= round(float(ci.high), 4)
    True
    """
    a, b, c, d = binary_cells(table)
    n = a + b + c + d
    z2 = normal_quantile(confidence_level) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = np.where(n > 0, (a + b) / n, 0.5)
        pb = np.where(n > 0, (a + c) / n, 0.5)
        defined = (n > 0) & (pa > 0) & (pa < 1) & (pb > 0) & (pb < 1)
        pa, pb = np.where(defined, pa, 0.5), np.where(defined, pb, 0.5)
        pe = pa * pb + (1 - pa) * (1 - pb)
        k_hat = np.where(defined, ((a + d) / np.where(n > 0, n, 1.0) - pe) / (1 - pe), 0.0)
        k_min, k_max = kappa_range(pa, pb)

        def statistic(k0: FloatArray) -> FloatArray:
            k = np.clip(k0, k_min, k_max)
            joint = (k * (1 - pe) + pe - 1 + pa + pb) / 2
            var = _binary_fce_variance(joint, pa - joint, pb - joint, 1 - pa - pb + joint)
            stat = n * (k_hat - k0) ** 2 / np.maximum(var, 0.0)
            return np.where(k0 == k_hat, 0.0, stat)  # the estimate itself is always inside

        low, high = _bisect_limits(
            statistic, k_hat, np.full_like(k_hat, -1.0), np.ones_like(k_hat), z2
        )
    return ConfidenceInterval(np.where(defined, low, np.nan), np.where(defined, high, np.nan))


def _gof_statistic(
    kappa: FloatArray, pi: FloatArray, observed: tuple[FloatArray, ...], n: FloatArray
) -> FloatArray:
    """Donner-Eliasziw chi-square of (a, b + c, d) against the common-correlation model."""
    q = pi * (1 - pi)
    expected = (
        n * (pi * pi + kappa * q),
        n * 2 * q * (1 - kappa),
        n * ((1 - pi) ** 2 + kappa * q),
    )
    total = np.zeros_like(kappa)
    with np.errstate(invalid="ignore", divide="ignore"):
        for o, e in zip(observed, expected, strict=True):
            term = np.where(o > 0, (o - e) ** 2 / np.where(e > 0, e, 0.0), e)
            total = total + np.where(e > 0, term, np.where(o > 0, np.inf, 0.0))
    return total


def intraclass_kappa_variance(kappa: ArrayLike, prevalence: ArrayLike) -> FloatArray:
    """``n Var`` of the intraclass kappa estimate with the prevalence estimated.

    Bloch & Kraemer (1989): ``(1 - k) [(1 - k)(1 - 2k) + k (2 - k) / (2 pi (1 - pi))]``.
    The Donner-Eliasziw statistic equals ``n (k_I - k)^2 / V0(k)`` with ``V0`` the variance
    *as if* ``pi`` were known; the ratio ``c = V / V0`` (1 at ``k = 0``, up to about 1.12
    for rare labels) is how far the plain GOF statistic exceeds chi-square.
    """
    k = np.asarray(kappa, dtype=float)
    q = np.asarray(prevalence, dtype=float) * (1 - np.asarray(prevalence, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (1 - k) * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * q))


def kappa_gof_interval(
    table: ArrayLike, confidence_level: float = 0.95, *, calibrated: bool = True
) -> ConfidenceInterval:
    """Donner & Eliasziw (1992) goodness-of-fit interval for the *intraclass* kappa.

    Under the common-correlation model both annotators share the positive rate ``pi`` and
    the probabilities of 2, 1 and 0 positive labels per item are
    ``pi^2 + k pi(1-pi)``, ``2 pi(1-pi)(1-k)`` and ``(1-pi)^2 + k pi(1-pi)``. With
    ``pi = (2a+b+c)/2n`` fixed, the plain interval (``calibrated=False``) is
    ``{k : X^2(k) <= chi2_1(confidence_level)}``, found by bisection on each side of the
    intraclass estimate ``k_I = 1 - (b+c) / (2 n pi (1-pi))``, within
    ``max(-pi/(1-pi), -(1-pi)/pi) <= k <= 1``.

    Plugging in ``pi`` makes ``X^2(k)`` tend to ``c(k) chi2_1`` rather than ``chi2_1``
    (``c`` up to 1.12 at prevalence <= 0.05, where the plain interval converges to about
    0.935 coverage). The default ``calibrated=True`` scales the critical value by ``c(k)``,
    the ratio of the Bloch-Kraemer variance (:func:`intraclass_kappa_variance`) to the
    known-``pi`` variance; this is the score interval
    ``{k : n (k_I - k)^2 <= z^2 V_BK(k)}``.

    The interval targets the intraclass kappa and assumes no annotator bias; under bias it
    misses Cohen's kappa (use :func:`kappa_score_interval`).

    >>> ci = kappa_gof_interval([[6, 21], [14, 459]], calibrated=False)
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.0853, 0.3935)
    """
    a, b, c, d = binary_cells(table)
    n = a + b + c + d
    crit = normal_quantile(confidence_level) ** 2  # chi-square(1) quantile
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = (2 * a + b + c) / (2 * n)
        defined = (pi > 0) & (pi < 1)
        pi = np.where(defined, pi, 0.5)
        q = pi * (1 - pi)
        k_hat = 1 - (b + c) / (2 * n * q)
        k_min = np.maximum(-pi / (1 - pi), -(1 - pi) / pi)
    observed = (a, b + c, d)

    def plain(k: FloatArray) -> FloatArray:
        return _gof_statistic(k, pi, observed, n)

    def score(k: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            var = intraclass_kappa_variance(k, pi)
            stat = n * (k_hat - k) ** 2 / np.where(var > 0, var, 0.0)
        return np.where((var > 0) | (k == k_hat), stat, np.inf)

    low, high = _bisect_limits(
        score if calibrated else plain, k_hat, k_min, np.ones_like(k_hat), crit
    )
    return ConfidenceInterval(np.where(defined, low, np.nan), np.where(defined, high, np.nan))


def kappa_interval(
    table: ArrayLike,
    confidence_level: float = 0.95,
    method: str = "score",
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> ConfidenceInterval:
    """Confidence interval for kappa (binary, two annotators).

    Parameters
    ----------
    method
        ``"profile"`` (profile likelihood on the 2 x 2 multinomial, bias allowed,
        :func:`planner.statistics.kappa_profile.kappa_profile_interval`; what ``agree``
        prints), ``"score"`` (the default here and in planning: score interval for Cohen's
        kappa at the observed positive rates, :func:`kappa_score_interval`), ``"gof"``
        (calibrated Donner-Eliasziw goodness of fit for the *intraclass* kappa, which
        assumes no annotator bias), ``"fce"`` (Wald
        with the Fleiss-Cohen-Everitt standard error; under-covers with few union
        positives) or ``"bootstrap"`` (percentile, resampling items).
        :data:`KAPPA_ESTIMANDS` names the quantity each one estimates.
    """
    if method == "score":
        return kappa_score_interval(table, confidence_level)
    if method == "profile":
        from planner.statistics.kappa_profile import kappa_profile_interval

        return kappa_profile_interval(table, confidence_level)
    if method == "gof":
        return kappa_gof_interval(table, confidence_level)
    if method == "fce":
        z = normal_quantile(confidence_level)
        est = cohen_kappa(table)
        se = kappa_standard_error(table)
        return within(est - z * se, est + z * se, KAPPA_RANGE)
    if method == "bootstrap":
        return bootstrap_interval(table, cohen_kappa, confidence_level, n_boot=n_boot, rng=rng)
    raise ValueError(f"`method` must be one of {KAPPA_METHODS}, got {method!r}")


# --------------------------------------------------------------------------- coverage notes

#: Lowest simulated coverage of nominal-95 % intervals that under-cover with few union
#: positives, over the two-annotator grid (prevalence 0.02-0.3, kappa 0.2-0.8, unbiased
#: and biased pairs; 4,000 studies per cell, MC SE 0.0035): ``(union positives up to,
#: coverage)`` bands from the rows at 20 and 50 union positives. From 150 union positives
#: on every method is within 1.5 points of 0.95 of its own estimand (GOF's is the intraclass
#: kappa, which it misses Cohen's kappa for under bias). The kappa score interval keeps 0.94-0.97
#: except under strong bias with few union positives: 0.916 at 20 (positive rates
#: 0.08/0.02, kappa at its bound) and 0.882 at about 11 (exact enumeration, 120 items,
#: rates 0.08/0.02, kappa 0.2). Methods not listed stay within 0.94-0.97.
UNDER_COVERAGE: dict[tuple[str, str], tuple[tuple[int, float], ...]] = {
    ("psa", "wald"): ((35, 0.878), (100, 0.914)),
    ("psa", "bootstrap"): ((35, 0.891), (100, 0.926)),
    ("kappa", "fce"): ((35, 0.872), (100, 0.913)),
    ("kappa", "bootstrap"): ((35, 0.892), (100, 0.925)),
    ("kappa", "score"): ((15, 0.882), (35, 0.916)),
    # agree's other coefficients (peer statistics), keyed by coefficient and
    # method as `agree` reports them: the worst coverage in coverage_study/coverage.md and
    # coverage.json (4,000 studies per cell, MC SE 0.0035-0.006) at 20, 50 and 180 union
    # positives of the binary label, over 2-5 annotators, Fleiss' kappa 0.2-0.8, prevalence
    # 0.05 and 0.3, unbiased and biased (+/-0.8) annotators; PABAK from the two-annotator
    # grid. A band at 250 only where a row at 180 is still flagged.
    ("fleiss_kappa", "gwet-t"): ((35, 0.849), (100, 0.915), (250, 0.934)),
    ("gwet_ac1", "gwet-t"): ((35, 0.897), (100, 0.931)),
    ("brennan_prediger", "gwet-t"): ((35, 0.863), (100, 0.915)),
    ("krippendorff_alpha", "bootstrap"): ((35, 0.854), (100, 0.910), (250, 0.932)),
    ("specific_positive", "wald-linearised"): ((35, 0.849), (100, 0.915), (250, 0.933)),
    ("pabak", "wilson"): ((35, 0.930), (100, 0.934)),
    # Conger's kappa (3-5 annotators, from the pattern rows) and the logit-scale Wald for
    # several annotators' specific positive agreement (agree's default), in
    # coverage_study/coverage.md like the rows above: Conger worst 0.850 at 20 union positives,
    # 0.915 at 50, 0.934 at 180; specific agreement 0.886, 0.933, 0.938.
    ("conger_kappa", "gwet-t"): ((35, 0.850), (100, 0.915), (250, 0.934)),
    ("specific_positive", "wald-logit"): ((35, 0.886), (100, 0.933)),
    # Weighted Cohen's kappa, keyed by *items* (not union positives): K = 3 and 5 ordered
    # levels, four shapes of disagreement (spread 0.4-0.7 levels, bias 0/0.4, skewed and
    # flat prevalences), linear and quadratic weights, 2,000 tables per cell, B = 500:
    # worst at 30, 60 and 150 items; from 500 items both keep 0.936-0.957.
    ("weighted_kappa", "bootstrap"): ((45, 0.879), (100, 0.904), (300, 0.928)),
    ("weighted_kappa", "wald"): ((45, 0.845), (100, 0.890), (300, 0.917)),
}
_BETTER = {
    "psa": "use `psa_method` wilson",
    "kappa": "use `kappa_method` score",
    "kappa score": "label more items: no kappa interval here keeps 0.95 with so few",
    "weighted_kappa wald": "drop `weighted_kappa_method` wald: the bootstrap covers better",
}
#: How a note names a (coefficient, method) key of :data:`UNDER_COVERAGE` (default
#: "the {method} interval for {metric}").
_SHOWN = {
    ("fleiss_kappa", "gwet-t"): "Gwet-variance t interval for Fleiss' kappa",
    ("gwet_ac1", "gwet-t"): "Gwet-variance t interval for Gwet's AC1",
    ("brennan_prediger", "gwet-t"): "Gwet-variance t interval for Brennan-Prediger",
    ("krippendorff_alpha", "bootstrap"): "item-bootstrap interval for Krippendorff's alpha",
    ("specific_positive", "wald-linearised"): "linearised Wald interval for specific "
    "positive agreement",
    ("specific_positive", "wald-logit"): "logit-scale Wald interval for specific "
    "positive agreement",
    ("pabak", "wilson"): "interval for PABAK (2 x Wilson on p_o - 1)",
    ("conger_kappa", "gwet-t"): "Gwet-variance t interval for Conger's kappa",
    ("weighted_kappa", "bootstrap"): "item-bootstrap interval for weighted kappa",
    ("weighted_kappa", "wald"): "Wald (FCE SE) interval for weighted kappa",
}
_MORE_ITEMS = "label more items"


def coverage_note(
    metric: str,
    method: str,
    union_positives: float,
    advice: str | None = None,
    counted: str = "union positives",
) -> str | None:
    """One line when ``union_positives`` are in a regime where ``method`` under-covers.

    ``advice`` (for example ``"use `kappa_method` score"``, a parameter in backticks, which
    :func:`planner.errors.shown_note` names as the front end does) replaces the default remedy;
    ``counted`` names what ``union_positives`` counts (for data without a positive class,
    say). ``None`` when the method keeps its coverage there (see :data:`UNDER_COVERAGE`).

    >>> note = coverage_note("psa", "wald", 22)
    >>> note[:55]
    'with 22 union positives the wald interval for psa cover'
    >>> note[55:]
    's as little as 0.88 (0.95 intended); use `psa_method` wilson'
    >>> coverage_note("fleiss_kappa", "gwet-t", 22)[:75]
    "with 22 union positives the Gwet-variance t interval for Fleiss' kappa cove"
    >>> coverage_note("fleiss_kappa", "gwet-t", 400) is None
    True
    """
    for up_to, coverage in UNDER_COVERAGE.get((metric, method), ()):
        if union_positives <= up_to:
            shown = _SHOWN.get((metric, method), f"{method} interval for {metric}")
            remedy = advice or _BETTER.get(f"{metric} {method}", _BETTER.get(metric, _MORE_ITEMS))
            return (
                f"with {union_positives:,.0f} {counted} the {shown} covers as little as "
                f"{coverage:.2f} (0.95 intended); {remedy}"
            )
    return None


# --------------------------------------------------------------------------- bootstrap


def bootstrap_interval(
    table: ArrayLike,
    statistic: Callable[[NDArray[Any]], FloatArray],
    confidence_level: float = 0.95,
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> ConfidenceInterval:
    """Percentile bootstrap interval, resampling items as multinomial counts.

    Each resample of a table with ``n`` items is ``Multinomial(n, table / n)``, which is
    exactly what resampling ``n`` items with replacement gives, without touching items.
    Resamples where the statistic is undefined are dropped (the seeds' code sets them to
    1.0 instead, which biases the upper limit).

    Parameters
    ----------
    table
        Counts, shape ``(..., K, K)``.
    statistic
        Function of ``(..., K, K)`` tables returning ``(...)``.
    """
    if n_boot < 10:
        raise ValueError(f"`n_boot` must be at least 10, got {n_boot}")
    tail = (1.0 - _check_confidence_level(confidence_level)) / 2.0
    generator = np.random.default_rng(rng)
    t = as_tables(table)
    batch_shape, k = t.shape[:-2], t.shape[-1]
    flat = t.reshape(-1, k * k)
    n = flat.sum(axis=1)
    low = np.full(flat.shape[0], np.nan)
    high = np.full(flat.shape[0], np.nan)
    for start in range(0, flat.shape[0], _BOOTSTRAP_CHUNK):
        chunk = slice(start, start + _BOOTSTRAP_CHUNK)
        n_c = n[chunk].astype(np.int64)
        probs = flat[chunk] / np.where(n[chunk] > 0, n[chunk], 1.0)[:, None]
        draws = generator.multinomial(n_c, probs, size=(n_boot, len(n_c)))
        values = statistic(draws.reshape(n_boot, len(n_c), k, k))
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(values).sum(axis=0) > 0
            if ok.any():
                qs = np.nanquantile(values[:, ok], [tail, 1 - tail], axis=0)
                low[chunk][ok], high[chunk][ok] = qs[0], qs[1]
    return ConfidenceInterval(low.reshape(batch_shape), high.reshape(batch_shape))
