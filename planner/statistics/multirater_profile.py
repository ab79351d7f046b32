"""Profile-likelihood intervals for several annotators' binary agreement coefficients.

The items of a study are independent draws of a per-item count row ``(n_i1, n_i0)``
(positives and negatives among the item's ``r_i`` ratings), so the counts of the distinct
rows are multinomial over every row that can occur (``j`` positives, ``j = 0..r``, for each
number of ratings ``r`` seen). Fleiss' kappa, Krippendorff's alpha and specific agreement
are functions of the row probabilities ``p``, and for a hypothesised value ``t0`` their
constraint is linear in ``p`` once the mean positive rate ``pi`` is fixed:

* Fleiss' kappa (``s_i = n_i1 / r_i``, ``q_i = [r_i >= 2]``, ``pa_i`` the item's pairwise
  agreement): ``E[s - pi] = 0`` and ``E[q (pa - 1 + 2 (1 - t0) pi (1 - pi))] = 0``, because
  ``p_a = kappa + (1 - kappa) p_e`` with ``p_e = 1 - 2 pi (1 - pi)``;
* Krippendorff's alpha (pairable items): ``E[n_1 - pi r] = 0`` and
  ``E[2 n_0 n_1 / (r - 1) - 2 (1 - t0) pi (1 - pi) r] = 0`` (``1 - D_o / D_e = t0``);
* specific agreement of a category: ``E[n (n - 1) - t0 n (r - 1)] = 0`` (no nuisance).

For linear constraints ``E[h] = 0`` the multinomial's maximum is the empirical-likelihood
dual (Owen 2001, ch. 3): ``l(p_hat) - max l = max_lambda sum_k n_k log(1 + lambda' h_k)``,
found by Newton's method; with a nuisance ``pi`` the profile minimises that over ``pi``
(a grid in ``logit(pi)``, then golden sections). The interval is
``{t0 : 2 min_pi max_lambda sum_k n_k log(1 + lambda' h_k(pi, t0)) <= t_nu^2}``, found on
each side of the estimate (bisection, then regula falsi), with the critical value
``t_nu^2`` (``nu`` the items with any rating in the rarer category, less one) in place of
``chi2_1 = z^2`` (:func:`critical_value`). Rows that can occur but were not observed carry a
pseudo-count of ``1e-4``: the likelihood may move mass onto them (an upper limit of kappa
needs items where all annotators agree on a positive, which a study at few positives may
not have), at a cost under ``1e-3`` in the likelihood ratio.

References
----------
Owen AB (2001) Empirical Likelihood. Chapman & Hall/CRC.
Venzon DJ, Moolgavkar SH (1988) A method for computing profile-likelihood-based
    confidence intervals. Appl Stat 37:87-94.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from planner.statistics.intervals import ConfidenceInterval, FloatArray
from planner.statistics.multirater import Patterns

#: pseudo-count of a row that can occur but was not observed (keeps the dual's log barrier)
UNSEEN_ROW = 1e-4
_NEWTON_STEPS = 40
_BISECTION_STEPS = 4
_FALSI_STEPS = 6
_PI_STEPS = (0.3, 0.08)
#: half a likelihood-ratio statistic this large is beyond any critical value ("outside"):
#: the largest, t_1(0.975)^2 / 2 = 80.8, is for two items in the rarer category
_FAR = 100.0


def binary_support(counts: ArrayLike) -> NDArray[np.float64]:
    """Every row ``(j, r - j)``, ``j = 0..r``, for each number of ratings ``r >= 1`` in ``counts``.

    >>> binary_support([[2, 0], [1, 1]]).tolist()
    [[0.0, 2.0], [1.0, 1.0], [2.0, 0.0]]
    """
    c = np.asarray(counts, dtype=float).reshape(-1, 2)
    totals = np.unique(c.sum(axis=1))
    rows = [(j, r - j) for r in totals if r >= 1 for j in range(int(r) + 1)]
    return np.array(rows, dtype=float).reshape(-1, 2)


def _with_support(
    counts: ArrayLike, multiplicity: ArrayLike | None
) -> tuple[FloatArray, FloatArray]:
    """Rows on the full support and their multiplicities ``(..., S)`` (unseen rows 0)."""
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"`counts` must have shape (N, 2) (binary labels), got {c.shape}")
    mult = np.ones(c.shape[0]) if multiplicity is None else np.asarray(multiplicity, float)
    support = binary_support(c)
    match = (c[:, None, :] == support[None, :, :]).all(axis=-1).astype(float)  # (N, S)
    return support, mult @ match


def el_dual(
    weights: FloatArray, h: FloatArray, start: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """``max_lambda sum_k w_k log(1 + lambda' h_k)`` for a batch: ``weights`` ``(B, S)``,
    ``h`` ``(B, S, d)`` with ``d`` 1 or 2; ``inf`` where zero is outside the convex hull of
    the ``h_k`` (the hypothesis cannot hold).

    Newton's method on the concave dual, with step halving that keeps every
    ``1 + lambda' h_k`` positive and the value increasing, only for the studies that need
    it. Its maximiser gives the constrained multinomial maximum
    ``p_k = w_k / (W (1 + lambda' h_k))`` (Owen 2001, sec. 3.14). Returns the maximum and
    the maximiser ``(B, 2)``; ``start`` (a nearby problem's maximiser) is used where it is
    feasible and better than ``lambda = 0``.
    """
    d = h.shape[-1]
    h1 = h[..., 0]
    h2 = h[..., 1] if d == 2 else np.zeros_like(h1)
    l1 = np.zeros(h1.shape[0])
    l2 = np.zeros(h1.shape[0])
    value = np.zeros(h1.shape[0])
    if start is not None:
        den = 1 + start[:, :1] * h1 + start[:, 1:] * h2
        good = (den > 0).all(axis=1)
        val = np.where(good, (weights * np.log(np.where(den > 0, den, 1.0))).sum(1), -1.0)
        good &= (val > 0) & (val < _FAR)
        l1, l2 = np.where(good, start[:, 0], 0.0), np.where(good, start[:, 1], 0.0)
        value = np.where(good, val, 0.0)
    active = np.arange(h1.shape[0])
    for _ in range(_NEWTON_STEPS):
        w, a1, a2 = weights[active], h1[active], h2[active]
        x1, x2 = l1[active], l2[active]
        den = 1 + x1[:, None] * a1 + x2[:, None] * a2
        r = w / den
        q = r / den
        g1, g2 = (r * a1).sum(1), (r * a2).sum(1)
        j11, j12, j22 = (q * a1 * a1).sum(1), (q * a1 * a2).sum(1), (q * a2 * a2).sum(1)
        if d == 1:
            s1, s2 = g1 / np.maximum(j11, 1e-300), np.zeros_like(g1)
        else:
            det = np.maximum(j11 * j22 - j12 * j12, 1e-300)
            s1, s2 = (j22 * g1 - j12 * g2) / det, (j11 * g2 - j12 * g1) / det
        old = value[active]
        t = np.ones(active.size)
        new = old.copy()
        moved = np.zeros(active.size, dtype=bool)
        for _ in range(40):
            todo = ~moved
            y1, y2 = x1[todo] + t[todo] * s1[todo], x2[todo] + t[todo] * s2[todo]
            tden = 1 + y1[:, None] * a1[todo] + y2[:, None] * a2[todo]
            feasible = (tden > 0).all(axis=1)
            tval = np.full(y1.shape, -np.inf)
            tval[feasible] = (w[todo][feasible] * np.log(tden[feasible])).sum(1)
            ok = tval >= old[todo]
            idx = np.flatnonzero(todo)[ok]
            x1[idx], x2[idx], new[idx] = y1[ok], y2[ok], tval[ok]
            moved[idx] = True
            if moved.all():
                break
            t[~moved] /= 2
        l1[active], l2[active], value[active] = x1, x2, new
        gain = new - old
        keep = (gain > 1e-10) & (new < _FAR)
        value[active[new >= _FAR]] = np.inf
        active = active[keep]
        if active.size == 0:
            break
    return value, np.stack([l1, l2], axis=1)


def _profile(
    weights: FloatArray,
    centre: FloatArray,
    h_of: Callable[[FloatArray], FloatArray],
    warm: list[FloatArray | None],
) -> tuple[FloatArray, FloatArray]:
    """``min_pi el_dual(weights, h_of(pi))`` and its minimiser, by two rounds of parabolic
    interpolation in ``u = logit(pi)`` around ``centre`` (a ``u``); the smallest value seen.

    The profile over ``pi`` is smooth and its minimiser moves little with the hypothesised
    value, so starting from the previous minimiser three points a round suffice.
    """

    lam = warm[0]

    def dual(u: FloatArray) -> FloatArray:
        value, _ = el_dual(weights, h_of(1 / (1 + np.exp(-u))), lam)
        return value

    best, lam = el_dual(weights, h_of(1 / (1 + np.exp(-centre))), lam)
    best_u = centre
    for spread in _PI_STEPS:
        left, right = dual(best_u - spread), dual(best_u + spread)
        with np.errstate(divide="ignore", invalid="ignore"):
            curve = left + right - 2 * best
            shift = np.where(
                np.isfinite(curve) & (curve > 0), spread * (left - right) / (2 * curve), 0.0
            )
        shift = np.clip(np.nan_to_num(shift), -3 * spread, 3 * spread)
        vertex = best_u + shift
        at_vertex = dual(vertex)
        for u, value in ((best_u - spread, left), (best_u + spread, right), (vertex, at_vertex)):
            better = value < best
            best_u, best = np.where(better, u, best_u), np.where(better, value, best)
    warm[0] = lam
    return best, best_u


def _limits(
    statistic: Callable[[FloatArray, int], FloatArray],
    estimate: FloatArray,
    bounds: tuple[float, float],
    crit: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Each side of ``estimate``: where ``statistic(t0, side)`` (half the likelihood-ratio
    statistic) reaches ``crit``; bisection, then regula falsi (Illinois) on the root
    ``sqrt(statistic) - sqrt(crit)``, which is close to linear in ``t0``."""
    out = []
    target = np.sqrt(crit)
    for side, end in enumerate(bounds):
        inner, outer = estimate.copy(), np.full_like(estimate, end)
        f_in = -target
        f_out = np.sqrt(statistic(outer, side)) - target
        at_end = f_out <= 0
        for step in range(_BISECTION_STEPS + _FALSI_STEPS):
            finite = np.isfinite(f_out)
            if step < _BISECTION_STEPS:
                finite = np.zeros_like(finite)
            with np.errstate(divide="ignore", invalid="ignore"):
                falsi = inner - f_in * (outer - inner) / (f_out - f_in)
            mid = np.where(finite, falsi, (inner + outer) / 2)
            f_mid = np.sqrt(statistic(mid, side)) - target
            ok = f_mid <= 0
            # Illinois: halve the kept end's value when the same end is kept twice
            f_in_new = np.where(ok, f_mid, f_in / 2 if step >= _BISECTION_STEPS else f_in)
            f_out_new = np.where(ok, f_out / 2 if step >= _BISECTION_STEPS else f_out, f_mid)
            inner, outer = np.where(ok, mid, inner), np.where(ok, outer, mid)
            f_in, f_out = f_in_new, f_out_new
        out.append(np.where(at_end, end, inner))
    return out[0], out[1]


def critical_value(support: FloatArray, seen: FloatArray, confidence_level: float) -> FloatArray:
    """Half the critical value of the likelihood-ratio statistic, per study: ``t_nu^2 / 2``
    with ``nu = u - 1`` and ``u`` the items with any rating in the rarer category (the union
    positives when positives are rarer), not ``chi2_1 / 2 = z^2 / 2``.

    The chi-square calibration assumes many informative items; at 20 union positives the
    plain profile interval covered 0.917 (M = 3, prevalence 0.05, Fleiss 0.3; 300 studies),
    with this one 0.947 (1,000 studies). The ``t`` quantile with the informative items'
    degrees of freedom is the usual small-sample widening (Gwet's ``t_{n-1}``), and it
    tends to ``chi2_1`` as they grow.
    """
    minority = np.minimum(seen @ (support[:, 0] > 0), seen @ (support[:, 1] > 0))
    dof = np.maximum(minority - 1, 1)
    return np.asarray(special.stdtrit(dof, 0.5 + confidence_level / 2) ** 2 / 2, dtype=float)


def _prepare(
    counts: ArrayLike, multiplicity: ArrayLike | None
) -> tuple[FloatArray, FloatArray, FloatArray, tuple[int, ...]]:
    """Support rows, observed multiplicities ``(B, S)``, the same with pseudo-counts, shape."""
    support, mult = _with_support(counts, multiplicity)
    shape = mult.shape[:-1]
    seen = mult.reshape(-1, support.shape[0])
    return support, seen, np.where(seen > 0, seen, UNSEEN_ROW), shape


def _binary_chance_interval(
    counts: ArrayLike,
    multiplicity: ArrayLike | None,
    confidence_level: float,
    terms: Callable[[FloatArray], tuple[FloatArray, FloatArray, FloatArray, FloatArray]],
) -> ConfidenceInterval:
    """The profile interval of a chance-corrected coefficient ``1 - D / (2 pi (1 - pi))``
    whose constraints are ``E[u - pi v] = 0`` and ``E[o - 2 (1 - t0) pi (1 - pi) v2] = 0``
    (``terms(support) = (u, v, o, v2)``); NaN where only one category is used."""
    support, seen, w, shape = _prepare(counts, multiplicity)
    u, v, o, v2 = terms(support)
    with np.errstate(divide="ignore", invalid="ignore"):
        seen_pi = (seen @ u) / (seen @ v)
        defined = (seen_pi > 0) & (seen_pi < 1) & ((seen @ v2) > 0)
        pi_hat = (w @ u) / (w @ v)
        estimate = 1 - (w @ o) / (w @ v2) / (2 * pi_hat * (1 - pi_hat))
    crit = critical_value(support, seen, confidence_level)[defined]
    w_ok, pi_ok, est_ok = w[defined], pi_hat[defined], estimate[defined]
    start = np.log(pi_ok / (1 - pi_ok))
    centres = [start.copy(), start.copy()]  # the last minimiser on each side
    warm: list[list[FloatArray | None]] = [[None], [None]]  # and its dual solution

    def statistic(t0: FloatArray, side: int) -> FloatArray:
        def h_of(pi: FloatArray) -> FloatArray:
            pp = (2 * (1 - t0) * pi * (1 - pi))[:, None]
            return np.stack([u - pi[:, None] * v, o - pp * v2], axis=-1)

        value, where = _profile(w_ok, centres[side], h_of, warm[side])
        centres[side] = np.where(np.isfinite(value), where, centres[side])
        return value

    low = np.full(w.shape[0], np.nan)
    high = np.full(w.shape[0], np.nan)
    if defined.any():
        lo, hi = _limits(statistic, est_ok, (-1.0 + 1e-9, 1.0 - 1e-9), crit)
        low[defined], high[defined] = lo, hi
    return ConfidenceInterval(low.reshape(shape), high.reshape(shape))


def _fleiss_terms(support: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    n1, n0 = support[:, 0], support[:, 1]
    r = n1 + n0
    pairable = r >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        disagree = np.where(pairable, 2 * n1 * n0 / (r * (r - 1)), 0.0)  # 1 - pa_i
    return n1 / r, np.ones_like(r), disagree, pairable.astype(float)


def _alpha_terms(support: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    n1, n0 = support[:, 0], support[:, 1]
    r = n1 + n0
    pairable = r >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        disagree = np.where(pairable, 2 * n1 * n0 / (r - 1), 0.0)
    values = np.where(pairable, r, 0.0)
    return np.where(pairable, n1, 0.0), values, disagree, values


_TERMS = {"fleiss_kappa": _fleiss_terms, "krippendorff_alpha": _alpha_terms}


def likelihood_ratio(
    counts: ArrayLike,
    multiplicity: ArrayLike | None,
    value: ArrayLike,
    coefficient: str = "fleiss_kappa",
) -> tuple[FloatArray, FloatArray]:
    """The profile likelihood-ratio statistic of ``coefficient = value`` and its critical value.

    ``2 min_pi max_lambda sum_k n_k log(1 + lambda' h_k(pi, value))`` per study (the
    statistic whose level set is the interval) and ``t_nu^2`` (:func:`critical_value`,
    doubled); ``coefficient`` is ``"fleiss_kappa"`` or ``"krippendorff_alpha"``. The
    interval covers ``value`` exactly when the statistic is at most the critical value (up
    to the root finder's tolerance), so one evaluation per study at the true value gives the
    coverage of any critical value (coverage_study/profile_calibration.py). NaN where the
    coefficient is undefined.

    >>> stat, crit = likelihood_ratio([[3, 0], [2, 1], [1, 2], [0, 3]], [5, 4, 6, 85], 0.377)
    >>> round(float(stat), 2), round(float(crit), 2)
    (4.6, 4.6)
    """
    support, seen, w, shape = _prepare(counts, multiplicity)
    u, v, o, v2 = _TERMS[coefficient](support)
    t0 = np.broadcast_to(np.asarray(value, dtype=float), shape).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        seen_pi = (seen @ u) / (seen @ v)
        defined = (seen_pi > 0) & (seen_pi < 1) & ((seen @ v2) > 0)
        pi_hat = (w @ u) / (w @ v)
    t_ok, pi_ok = t0[defined], pi_hat[defined]

    def h_of(pi: FloatArray) -> FloatArray:
        pp = (2 * (1 - t_ok) * pi * (1 - pi))[:, None]
        return np.stack([u - pi[:, None] * v, o - pp * v2], axis=-1)

    stat = np.full(w.shape[0], np.nan)
    if defined.any():
        half, _ = _profile(w[defined], np.log(pi_ok / (1 - pi_ok)), h_of, [None])
        stat[defined] = 2 * half
    crit = 2 * critical_value(support, seen, 0.95)
    return stat.reshape(shape), crit.reshape(shape)


def fleiss_kappa_profile_interval(
    counts: ArrayLike, multiplicity: ArrayLike | None = None, confidence_level: float = 0.95
) -> ConfidenceInterval:
    """Profile-likelihood interval for Fleiss' kappa of binary labels (module docstring).

    Parameters
    ----------
    counts
        ``(N, 2)`` per-item counts ``(positives, negatives)`` (or of any two categories:
        Fleiss' kappa is symmetric in them); items may have different numbers of ratings.
    multiplicity
        ``(..., N)`` items sharing each row (a batch of studies on the same rows).
    confidence_level
        Nominal coverage.

    Returns
    -------
    ConfidenceInterval
        Limits of shape ``(...)``; NaN where kappa is undefined (one category only).

    Examples
    --------
    >>> ci = fleiss_kappa_profile_interval([[3, 0], [2, 1], [1, 2], [0, 3]], [5, 4, 6, 85])
    >>> round(float(ci.low), 3), round(float(ci.high), 3)
    (0.377, 0.813)
    """
    return _binary_chance_interval(counts, multiplicity, confidence_level, _fleiss_terms)


def alpha_profile_interval(
    counts: ArrayLike, multiplicity: ArrayLike | None = None, confidence_level: float = 0.95
) -> ConfidenceInterval:
    """Profile-likelihood interval for Krippendorff's alpha of binary (nominal) labels.

    The population alpha ``1 - D_o / D_e`` over pairable values (items with at least two
    ratings); with every item rated by the same annotators it equals Fleiss' kappa, and so
    does the interval. Parameters as :func:`fleiss_kappa_profile_interval`.
    """
    return _binary_chance_interval(counts, multiplicity, confidence_level, _alpha_terms)


def specific_agreement_profile_interval(
    counts: ArrayLike,
    multiplicity: ArrayLike | None = None,
    category: int = 0,
    confidence_level: float = 0.95,
) -> ConfidenceInterval:
    """Profile-likelihood interval for the specific agreement of one category (binary labels).

    ``p_s = E[n (n - 1)] / E[n (r - 1)]`` (``n`` the item's ratings in ``category``): for
    ``t0`` the constraint ``E[n (n - 1) - t0 n (r - 1)] = 0`` is linear, so the statistic is
    one empirical-likelihood dual in one dimension, and the limits are bisected in [0, 1].

    >>> ci = specific_agreement_profile_interval([[2, 0], [1, 1], [0, 2]], [6, 35, 459])
    >>> round(float(ci.low), 3), round(float(ci.high), 3)
    (0.111, 0.436)
    """
    support, seen, w, shape = _prepare(counts, multiplicity)
    n = support[:, category]
    r = support.sum(axis=1)
    y, x = n * (n - 1), n * (r - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (w @ y) / (w @ x)
    defined = (seen @ x) > 0
    crit = critical_value(support, seen, confidence_level)[defined]
    w_ok, est_ok = w[defined], estimate[defined]

    def statistic(t0: FloatArray, side: int) -> FloatArray:
        return el_dual(w_ok, (y - t0[:, None] * x)[..., None])[0]

    low = np.full(w.shape[0], np.nan)
    high = np.full(w.shape[0], np.nan)
    if defined.any():
        lo, hi = _limits(statistic, est_ok, (0.0, 1.0), crit)
        low[defined], high[defined] = lo, hi
    return ConfidenceInterval(low.reshape(shape), high.reshape(shape))


def shifted_interval(
    interval: ConfidenceInterval, shift: ArrayLike, bounds: tuple[float, float] = (-1.0, 1.0)
) -> ConfidenceInterval:
    """``interval`` moved by ``shift`` and clipped to ``bounds``.

    Conger's kappa differs from Fleiss' kappa only in its chance term (each annotator's own
    marginals instead of the pooled ones), by ``c - f`` where ``c``, ``f`` are the two
    estimates; the Fleiss profile interval moved by that difference is a Conger interval
    that ignores the (small) sampling error of the difference itself. Its coverage is
    measured in coverage_study/ (docs/methods/several-annotator-intervals.md).

    >>> ci = shifted_interval(ConfidenceInterval(np.array(0.2), np.array(0.9)), 0.15)
    >>> float(ci.low), float(ci.high)
    (0.35, 1.0)
    """
    d = np.asarray(shift, dtype=float)
    return ConfidenceInterval(
        np.clip(interval.low + d, *bounds), np.clip(interval.high + d, *bounds)
    )


#: the coefficients :func:`patterns_profile_interval` computes
PROFILE_COEFFICIENTS = ("fleiss_kappa", "krippendorff_alpha", "specific_agreement")


def patterns_profile_interval(
    patterns: Patterns, coefficient: str, confidence_level: float = 0.95, category: int = 0
) -> ConfidenceInterval:
    """The profile interval of one of :data:`PROFILE_COEFFICIENTS` for binary
    :class:`~planner.statistics.multirater.Patterns` (``category``: specific agreement's).

    >>> from planner.statistics.multirater import patterns_from_counts
    >>> p = patterns_from_counts([[3, 0]] * 5 + [[2, 1]] * 4 + [[1, 2]] * 6 + [[0, 3]] * 85)
    >>> ci = patterns_profile_interval(p, "fleiss_kappa")
    >>> round(float(ci.low), 3), round(float(ci.high), 3)
    (0.377, 0.813)
    """
    if patterns.n_categories != 2:
        raise ValueError(f"profile intervals need binary labels, got {patterns.n_categories}")
    rows, mult = patterns.dense(), patterns.multiplicity.astype(float)
    if coefficient == "fleiss_kappa":
        return fleiss_kappa_profile_interval(rows, mult, confidence_level)
    if coefficient == "krippendorff_alpha":
        return alpha_profile_interval(rows, mult, confidence_level)
    if coefficient == "specific_agreement":
        return specific_agreement_profile_interval(rows, mult, category, confidence_level)
    raise ValueError(f"`coefficient` must be one of {PROFILE_COEFFICIENTS}, got {coefficient!r}")
