"""What a kappaSize or irr sample size delivers, by simulating studies of that size.

Studies are drawn as counts of per-item label patterns (one ``Generator.multinomial`` per
replicate, never item by item) from the model the R function assumes, and analysed with
the planner's own intervals:

* kappaSize (:mod:`planner.sizing.compat_kappasize`): R exchangeable raters; binary
  outcomes from kappaSize's mixture model (with two raters the Bloch-Kraemer
  common-correlation model), K categories from the Dirichlet-multinomial model with
  intraclass correlation kappa. Two raters with a binary outcome: the Donner-Eliasziw
  goodness-of-fit interval (:func:`~planner.statistics.intervals.kappa_gof_interval`);
  otherwise Fleiss' kappa with Gwet's linearised variance and a t interval
  (:func:`~planner.statistics.multirater.chance_corrected_patterns`).
* irr (:mod:`planner.sizing.compat_irr`): two raters, the table the function assumes at
  ``k1``; Cohen's kappa with the score interval (binary) or the Fleiss-Cohen-Everitt Wald
  interval (K categories).

Reported: for CI* the *assurance* (share of studies whose lower limit is at least kappaL and,
with kappaU, whose upper limit is at most kappaU) and the coverage of the true kappa; for
FixedN* the distribution of the lower limit; for Power* and irr the simulated power.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from planner.renamed import renamed_field, renamed_keyword
from planner.sizing.compat_irr import IrrResult
from planner.sizing.compat_kappasize import (
    CIResult,
    FixedNResult,
    KappaSizeSetting,
    PowerResult,
    agreement_cells,
)
from planner.validation import RULES, RngLike, check, seed_from

FloatArray = NDArray[np.float64]
GOF = "Donner-Eliasziw goodness-of-fit interval (kappa_gof_interval)"
FLEISS = "Fleiss' kappa, Gwet linearised variance, t interval (chance_corrected_patterns)"
SCORE = "Cohen's kappa score interval (kappa_score_interval)"
FCE = "Cohen's kappa Wald interval with the Fleiss-Cohen-Everitt SE"


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class CompatVerdict:
    """What ``n_items`` delivers over ``replicates`` simulated studies (``None``: not reported).

    Attributes
    ----------
    assurance
        CI*: share of studies with lower limit >= kappaL (and upper <= kappaU): both at
        once, which with two limits set at their expected values is rare.
    share_lower_ok, share_upper_ok
        CI*: share with lower limit >= kappaL, and with upper limit <= kappaU (each near 0.5
        under kappaSize's expected-limit criterion).
    coverage, nominal_coverage
        CI*: share of intervals that contain the true kappa, and the level they claim.
    mean_lower, mean_upper
        Mean simulated limits.
    lower_quantiles
        FixedN*: 10 %, 50 % and 90 % points of the lower limit.
    share_at_least
        FixedN*: share of studies whose lower limit reaches kappaSize's kappaL.
    power, power_proportional
        Power* and irr: share of studies that reject ``H0`` (for N2.cohen.kappa, at Flack's
        worst-case table and at the table ``(1 - k1) m_i m_j + k1 m_i [i = j]``).
    n_undefined
        Studies whose interval is undefined (counted as failing).
    """

    n_items: int
    replicates: int
    seed: int
    true_kappa: float
    method: str
    confidence_level: float
    model: str
    assurance: float | None = None
    share_lower_ok: float | None = None
    share_upper_ok: float | None = None
    coverage: float | None = None
    nominal_coverage: float | None = None
    mean_lower: float | None = None
    mean_upper: float | None = None
    lower_quantiles: tuple[float, float, float] | None = None
    share_at_least: float | None = None
    power: float | None = None
    power_proportional: float | None = None
    n_undefined: int = 0


# ------------------------------------------------------------------ kappaSize's models


def common_prevalence_patterns(
    props: Sequence[float], raters: int, kappa: float
) -> tuple[FloatArray, FloatArray]:
    """Per-item count patterns ``(P, K)`` and their probabilities ``(P,)`` under kappaSize's
    common-prevalence model: ``raters`` exchangeable raters, class proportions ``props`` and
    intraclass kappa ``kappa`` (no ground truth, no rater bias).

    Parameters
    ----------
    props
        kappaSize's ``props``: one value (binary: the positive proportion ``p``) or the
        ``K >= 3`` class proportions summing to 1.
    raters
        Ratings per item.
    kappa
        The intraclass kappa; Fleiss' kappa of the model is exactly ``kappa``.

    Returns
    -------
    rows, probabilities
        Binary: the ``R + 1`` rows ``(positives, negatives)`` with kappaSize's mixture
        probabilities ``(1 - kappa) Binomial(R, p) + kappa [all positive or all negative]``
        (with two raters the Bloch-Kraemer common-correlation model). ``K`` categories:
        every split of ``R`` ratings over the ``K`` categories (columns in the order of
        ``props``), with the Dirichlet-multinomial probability
        ``R! / prod c_j! * prod_j prod_{i < c_j} (p_j (1 - kappa) + i kappa)
        / prod_{i < R} (1 - kappa + i kappa)`` (``kappa = 1 / (tau + 1)``).

    Examples
    --------
    >>> rows, p = common_prevalence_patterns([0.3], 2, 0.4)
    >>> rows.tolist(), p.round(4).tolist()
    ([[0.0, 2.0], [1.0, 1.0], [2.0, 0.0]], [0.574, 0.252, 0.174])
    """
    r = int(raters)
    if len(props) == 1:
        positives = np.arange(r + 1)
        rows = np.column_stack([positives, r - positives]).astype(float)
        return rows, agreement_cells(kappa, props, r)
    p = np.asarray(props, dtype=float)
    k = p.size
    rows_list = [c for c in itertools.product(range(r + 1), repeat=k) if sum(c) == r]
    rows = np.array(rows_list, dtype=float)
    denominator = math.prod(1 - kappa + i * kappa for i in range(r))
    probs = np.empty(len(rows_list))
    for index, counts in enumerate(rows_list):
        ways = math.factorial(r) / math.prod(math.factorial(c) for c in counts)
        rising = math.prod(
            p[j] * (1 - kappa) + i * kappa for j in range(k) for i in range(counts[j])
        )
        probs[index] = ways * rising / denominator
    return rows, probs


def kappasize_patterns(setting: KappaSizeSetting, kappa: float) -> tuple[FloatArray, FloatArray]:
    """Per-item count patterns ``(P, K)`` and their probabilities ``(P,)`` under kappaSize's
    model at ``kappa`` (:func:`common_prevalence_patterns` with the setting's props and
    raters)."""
    return common_prevalence_patterns(setting.props, setting.raters, kappa)


def _kappasize_limits(
    setting: KappaSizeSetting, kappa: float, n: int, level: float, replicates: int, seed: int
) -> tuple[FloatArray, FloatArray, str]:
    """Lower and upper limits ``(replicates,)`` of simulated studies of ``n`` items."""
    rows, probs = kappasize_patterns(setting, kappa)
    draws = np.random.default_rng(seed).multinomial(n, probs / probs.sum(), size=replicates)
    if setting.n_categories == 2 and setting.raters == 2:
        from planner.statistics.intervals import kappa_gof_interval

        # patterns are 0, 1, 2 positives: (a, b + c, d) = (both, one, neither)
        tables = np.zeros((replicates, 2, 2))
        tables[:, 0, 0], tables[:, 0, 1], tables[:, 1, 1] = draws[:, 2], draws[:, 1], draws[:, 0]
        ci = kappa_gof_interval(tables, level)
        return np.asarray(ci.low), np.asarray(ci.high), GOF
    from planner.statistics.multirater import Patterns, chance_corrected_patterns

    k = rows.shape[1]
    patterns = Patterns(
        np.tile(np.arange(k), (rows.shape[0], 1)), rows, np.ones(rows.shape[0], np.int64), k
    )
    fit = chance_corrected_patterns(patterns, "fleiss", multiplicity=draws)
    low, high = fit.confidence_interval(level)
    return np.asarray(low), np.asarray(high), FLEISS


def _model_text(setting: KappaSizeSetting, kappa: float) -> str:
    family = (
        "kappaSize's binary mixture model"
        if setting.n_categories == 2
        else "Dirichlet-multinomial model"
    )
    props = ", ".join(f"{p:g}" for p in setting.props)
    return f"{family}: {setting.raters} raters, props {props}, intraclass kappa {kappa:g}"


def _reps(replicates: int) -> int:
    return int(check("replicates", replicates, RULES["replicates"]))


@renamed_keyword("n_reps", "replicates")
def check_ci(result: CIResult, *, replicates: int = 2000, rng: RngLike = None) -> CompatVerdict:
    """Assurance and coverage of the interval at kappaSize's ``n`` (true kappa = kappa0).

    kappaSize puts the *expected* limits at kappaL and kappaU, so the assurance is near 0.5
    (the median study), not the guarantee the documentation's wording suggests.
    """
    replicates, seed = _reps(replicates), seed_from(rng)
    s = result.setting
    level = 1 - s.alpha if result.two_sided else 1 - 2 * s.alpha
    low, high, method = _kappasize_limits(s, s.kappa0, result.n, level, replicates, seed)
    defined = np.isfinite(low) & np.isfinite(high)
    lower_ok = defined & (low >= result.kappaL)
    upper_ok = defined & (high <= result.kappaU) if result.kappaU is not None else None
    ok = lower_ok if upper_ok is None else lower_ok & upper_ok
    covered = defined & (low <= s.kappa0)
    if result.kappaU is not None:
        covered &= high >= s.kappa0
    return CompatVerdict(
        result.n,
        replicates,
        seed,
        s.kappa0,
        method,
        level,
        _model_text(s, s.kappa0),
        assurance=float(ok.mean()),
        share_lower_ok=float(lower_ok.mean()),
        share_upper_ok=None if upper_ok is None else float(upper_ok.mean()),
        coverage=float(covered.mean()),
        nominal_coverage=level if result.two_sided else 1 - s.alpha,
        mean_lower=float(np.nanmean(low)),
        mean_upper=float(np.nanmean(high)),
        n_undefined=int((~defined).sum()),
    )


@renamed_keyword("n_reps", "replicates")
def check_fixed_n(
    result: FixedNResult, *, replicates: int = 2000, rng: RngLike = None
) -> CompatVerdict:
    """Distribution of the one-sided lower limit with ``n`` items at kappa0."""
    replicates, seed = _reps(replicates), seed_from(rng)
    s = result.setting
    level = 1 - 2 * s.alpha
    low, _, method = _kappasize_limits(s, s.kappa0, result.n, level, replicates, seed)
    defined = np.isfinite(low)
    q10, q50, q90 = (float(x) for x in np.nanquantile(low, [0.1, 0.5, 0.9]))
    return CompatVerdict(
        result.n,
        replicates,
        seed,
        s.kappa0,
        method,
        level,
        _model_text(s, s.kappa0),
        mean_lower=float(np.nanmean(low)),
        lower_quantiles=(q10, q50, q90),
        share_at_least=float((defined & (low >= result.kappaL - 1e-12)).mean()),
        n_undefined=int((~defined).sum()),
    )


@renamed_keyword("n_reps", "replicates")
def check_power(
    result: PowerResult, *, replicates: int = 2000, rng: RngLike = None
) -> CompatVerdict:
    """Simulated power at ``N_ceiling`` items when kappa is kappa1: the share of studies
    whose two-sided ``1 - alpha`` interval excludes kappa0 (kappaSize's chi-square test with
    one degree of freedom is two-sided)."""
    replicates, seed = _reps(replicates), seed_from(rng)
    s = result.setting
    level = 1 - s.alpha
    low, high, method = _kappasize_limits(
        s, result.kappa1, result.N_ceiling, level, replicates, seed
    )
    defined = np.isfinite(low) & np.isfinite(high)
    reject = defined & ((low > s.kappa0) | (high < s.kappa0))
    return CompatVerdict(
        result.N_ceiling,
        replicates,
        seed,
        result.kappa1,
        method,
        level,
        _model_text(s, result.kappa1),
        power=float(reject.mean()),
        mean_lower=float(np.nanmean(low)),
        mean_upper=float(np.nanmean(high)),
        n_undefined=int((~defined).sum()),
    )


@renamed_keyword("n_reps", "replicates")
def check_kappasize(
    result: CIResult | FixedNResult | PowerResult, *, replicates: int = 2000, rng: RngLike = None
) -> CompatVerdict:
    """:func:`check_ci`, :func:`check_fixed_n` or :func:`check_power`, by result type."""
    if isinstance(result, CIResult):
        return check_ci(result, replicates=replicates, rng=rng)
    if isinstance(result, FixedNResult):
        return check_fixed_n(result, replicates=replicates, rng=rng)
    return check_power(result, replicates=replicates, rng=rng)


# ------------------------------------------------------------------ irr


def _irr_rejects(
    result: IrrResult, table: FloatArray, replicates: int, seed: int
) -> tuple[float, int, str]:
    """Share of ``replicates`` studies of ``result.N`` items drawn from ``table`` rejecting H0."""
    from planner.statistics.agreement import cohen_kappa
    from planner.statistics.intervals import (
        kappa_score_interval,
        kappa_standard_error,
        normal_quantile,
    )

    k = table.shape[0]
    level = 1 - result.alpha if result.twosided else 1 - 2 * result.alpha
    probs = np.clip(table.ravel(), 0, None)
    draws = np.random.default_rng(seed).multinomial(result.N, probs / probs.sum(), size=replicates)
    tables = draws.reshape(replicates, k, k).astype(float)
    if k == 2:
        ci = kappa_score_interval(tables, level)
        low, high, method = np.asarray(ci.low), np.asarray(ci.high), SCORE
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            est, se = cohen_kappa(tables), kappa_standard_error(tables)
        z = normal_quantile(level)
        low, high, method = est - z * se, est + z * se, FCE
    defined = np.isfinite(low) & np.isfinite(high)
    if result.twosided:
        reject = (low > result.k0) | (high < result.k0)
    elif result.k1 > result.k0:
        reject = low > result.k0
    else:
        reject = high < result.k0
    return float((defined & reject).mean()), int((~defined).sum()), method


@renamed_keyword("n_reps", "replicates")
def check_irr(result: IrrResult, *, replicates: int = 2000, rng: RngLike = None) -> CompatVerdict:
    """Simulated power of the test at irr's ``N`` when the true kappa is ``k1``."""
    replicates, seed = _reps(replicates), seed_from(rng)
    table = np.asarray(result.table_k1)
    power, undefined, method = _irr_rejects(result, table, replicates, seed)
    level = 1 - result.alpha if result.twosided else 1 - 2 * result.alpha
    proportional = None
    if result.function == "N2.cohen.kappa":
        m = np.asarray(result.margins[0])
        flat = (1 - result.k1) * np.outer(m, m) + result.k1 * np.diag(m)
        if (flat >= 0).all():
            proportional, _, _ = _irr_rejects(result, flat, replicates, seed)
        model = "two raters with margins mrg; Flack's worst-case table at k1"
    else:
        model = "two raters with positive rates rate1, rate2 and Cohen's kappa k1"
    return CompatVerdict(
        result.N,
        replicates,
        seed,
        result.k1,
        method,
        level,
        model,
        power=power,
        power_proportional=proportional,
        n_undefined=undefined,
    )
