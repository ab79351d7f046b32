"""R kappaSize 1.2 (Rotondi 2018) reproduced: CI*, FixedN* and Power* sample sizes.

kappaSize sizes studies of the intraclass kappa of ``raters`` (2-6) exchangeable raters
(no rater bias) under a common-prevalence model, by the goodness-of-fit approach of Donner &
Eliasziw (1992), extended to several raters and categories by Donner & Rotondi (2010) and
Rotondi & Donner (2012). Each item falls in one of a few *agreement cells* whose
probabilities depend on kappa and the category proportions ``props``:

* binary outcome (``*Binary``): the number of raters, 0..R, who call the item positive. The
  model is the mixture "with probability kappa every rater gives one label drawn from
  ``props``, otherwise the raters label independently":
  ``P_k = (1 - kappa) Binom(k; R, p) + kappa (p [k = R] + (1 - p) [k = 0])``. With two
  raters this is the Bloch-Kraemer common-correlation model (the beta-binomial one).
* K = 3, 4, 5 categories (``*3Cats`` ...): "all R raters agree on category j" for each j,
  and "not all agree", with the all-agree probabilities of the Dirichlet-multinomial model
  of intraclass correlation kappa:
  ``P_j = p_j prod_{i=1}^{R-1} (p_j + kappa (i - p_j)) / (1 + kappa (i - 1))``.

Both are what kappaSize's polynomial tables evaluate (checked term by term in the tests).
The GOF distance between a planning value ``kappa0`` and a limit ``kappa1`` over ``n``
items is ``X2 = sum_cells (n P(kappa0) - n P(kappa1))^2 / (n P(kappa1))``, compared with
``chi2_1`` at ``1 - alpha`` (two limits) or ``1 - 2 alpha`` (one limit: ``kappaU``
omitted, as in R).

* ``CI*``: the smallest ``n`` in 11, 12, ... whose distance to ``kappaL`` (and to
  ``kappaU``) reaches the critical value; the test is R's literal ``|X2 - 0.001| >= crit``.
* ``FixedN*``: walk ``kappaL`` down from ``kappa0`` in steps of 0.001 (repeated float
  subtraction, as R does) until the distance at ``n`` reaches the critical value.
* ``Power*``: ``N = lambda / sum_cells (P(kappa1) - P(kappa0))^2 / P(kappa0)``, with
  ``lambda`` the non-centrality at which ``chi2_1(lambda)`` exceeds its ``1 - alpha``
  quantile with probability ``power``, found by kappaSize's own bisection (stopping when
  the CDF is within 1e-5 of ``1 - power``), so ``N`` matches R's to the printed digits.

Every answer is capped at :data:`N_MAX` (10^9 items, the same for CI*, Power* and irr): a
larger one is refused, as is ``power <= alpha`` (no non-centrality gives it) and a one-sided
``alpha >= 0.5`` (its level ``1 - 2 alpha`` would not be positive).

The CI criterion puts the *expected* limit at ``kappaL``: about half the studies of that
size get a lower limit below it (docs/methods/compat.md, "Compatibility with kappaSize and irr";
:mod:`planner.sizing.compat_check` simulates it).

References
----------
Donner A, Eliasziw M (1992) Stat Med 11:1511-1519.
Donner A, Rotondi MA (2010) Int J Biostat 6:31.
Rotondi MA, Donner A (2012) J Clin Epidemiol 65:778-784.
Rotondi MA (2018) kappaSize: Sample Size Estimation Functions for Studies of Interobserver
    Agreement, R package 1.2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from planner.errors import SEARCH_STEPS, InvalidInput, PlannerError, SearchLimit
from planner.validation import RULES, check, shown

FloatArray = NDArray[np.float64]

#: kappaSize's functions by their R names: (kind, number of categories)
FUNCTIONS: dict[str, tuple[str, int]] = {
    f"{kind}{cats}": (kind, k)
    for kind in ("CI", "FixedN", "Power")
    for cats, k in (("Binary", 2), ("3Cats", 3), ("4Cats", 4), ("5Cats", 5))
}
_N_START = 11  # kappaSize's search begins at n = 11
#: the most items any compat answer may be (CI*, Power*, irr alike): the simulation that
#: checks an answer draws counts of that many items, and no agreement study is larger
N_MAX = 10**9
_STEP = 0.001  # FixedN*: kappaL walks down in these steps


@dataclass(frozen=True)
class KappaSizeSetting:
    """The checked arguments of one kappaSize call (``props`` as the function uses them)."""

    function: str
    kappa0: float
    props: tuple[float, ...]
    raters: int
    alpha: float

    @property
    def n_categories(self) -> int:
        return FUNCTIONS[self.function][1]

    def cells(self, kappa: float | FloatArray) -> FloatArray:
        """Agreement-cell probabilities at ``kappa``, shape ``kappa.shape + (cells,)``."""
        return agreement_cells(kappa, self.props, self.raters)


@dataclass(frozen=True)
class CIResult:
    """``CI*``: the number of items ``n`` whose expected limits are ``kappaL`` (and ``kappaU``)."""

    setting: KappaSizeSetting
    kappaL: float  # noqa: N815 - R's name
    kappaU: float | None  # noqa: N815 - R's name
    n: int
    chi_crit: float

    @property
    def two_sided(self) -> bool:
        return self.kappaU is not None


@dataclass(frozen=True)
class FixedNResult:
    """``FixedN*``: the expected lower limit ``kappaL`` that ``n`` items give."""

    setting: KappaSizeSetting
    n: int
    kappaL: float  # noqa: N815 - R's name
    chi_crit: float


@dataclass(frozen=True)
class PowerResult:
    """``Power*``: ``N`` items (``N_ceiling`` rounded up) for the GOF test of kappa0 vs kappa1."""

    setting: KappaSizeSetting
    kappa1: float
    power: float
    N: float
    N_ceiling: int
    noncentrality: float


def agreement_cells(kappa: float | FloatArray, props: Sequence[float], raters: int) -> FloatArray:
    """kappaSize's cell probabilities (module docstring) at ``kappa``.

    Binary (``props`` of length 1: the positive proportion): ``raters + 1`` cells, the
    number of positive labels 0..R. K categories: ``K + 1`` cells, "not all agree" first,
    then "all agree on category j".

    >>> agreement_cells(0.4, [0.3], 2).round(4).tolist()
    [0.574, 0.252, 0.174]
    """
    k = np.asarray(kappa, dtype=float)[..., None]
    p = np.asarray(props, dtype=float)
    if p.size == 1:
        x = np.arange(raters + 1)
        coefficients = np.array([math.comb(raters, int(i)) for i in x], dtype=float)
        independent = coefficients * p[0] ** x * (1 - p[0]) ** (raters - x)  # binomial pmf
        together = np.where(x == raters, p[0], 0.0) + np.where(x == 0, 1 - p[0], 0.0)
        return (1 - k) * independent + k * together
    agree = np.broadcast_to(p, k.shape[:-1] + p.shape).copy()
    for i in range(1, raters):
        agree = agree * (p + k * (i - p)) / (1 + k * (i - 1))
    return np.concatenate([1 - agree.sum(axis=-1, keepdims=True), agree], axis=-1)


def _gof(cells0: FloatArray, cells1: FloatArray, n: float | FloatArray) -> FloatArray:
    """kappaSize's distance ``sum (n P0 - n P1)^2 / (n P1)`` over the last axis (NaN terms
    dropped, as R's ``na.rm=TRUE``)."""
    n = np.asarray(n, dtype=float)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (n * cells0 - n * cells1) ** 2 / (n * cells1)
    return np.nansum(terms, axis=-1)


def _setting(
    function: str, kappa0: float, props: float | Sequence[float] | None, raters: int, alpha: float
) -> KappaSizeSetting:
    k = FUNCTIONS[function][1]
    if props is None:  # R has no default for props either
        raise InvalidInput(f"props is required by {function}", parameter="props")
    kappa0 = check("kappa0", kappa0, RULES["compat_kappa"])
    raters = check("raters", raters, RULES["compat_raters"])
    alpha = check("alpha", alpha, RULES["compat_alpha"])
    values = (props,) if isinstance(props, int | float) else tuple(props)
    wanted = "1 or 2 values" if k == 2 else f"{k} values"
    if len(values) not in ((1, 2) if k == 2 else (k,)):
        raise InvalidInput(
            f"props must have {wanted} for {function}, got {len(values)}", parameter="props"
        )
    checked = tuple(check("props", v, RULES["compat_kappa"]) for v in values)
    if len(checked) > 1 and abs(sum(checked) - 1) >= 0.001:  # kappaSize's tolerance
        raise InvalidInput(
            f"props must sum to 1 (within 0.001), got {shown(sum(checked))}", parameter="props"
        )
    return KappaSizeSetting(function, kappa0, checked[:1] if k == 2 else checked, raters, alpha)


def one_sided_alpha(alpha: float) -> float:
    """``alpha`` of a one-sided limit or test: below 0.5, as its level ``1 - 2 alpha`` is."""
    if not alpha < 0.5:
        raise InvalidInput(
            f"alpha must be below 0.5 for a one-sided limit or test (the level is one minus "
            f"twice it), got {shown(alpha)}",
            parameter="alpha",
            value=alpha,
            rule="a number in (0, 0.5)",
        )
    return alpha


def _not_yet(stat: FloatArray, crit: float) -> NDArray[np.bool_]:
    """R's loop condition ``abs(X2 - 0.001) < crit`` (NaN counts as "not yet")."""
    with np.errstate(invalid="ignore"):
        return ~(np.abs(stat - 0.001) >= crit)


def _first_n(setting: KappaSizeSetting, limits: list[float], crit: float) -> int:
    """The first n = 11, 12, ... at which every limit's distance passes R's test.

    The distance is linear in n, so the analytic crossing narrows the search to a window
    that is then scanned with R's exact arithmetic.
    """
    cells0 = setting.cells(setting.kappa0)
    per_item = [float(_gof(cells0, setting.cells(lim), 1.0)) for lim in limits]
    if not all(math.isfinite(s) and s > 0 for s in per_item):
        raise PlannerError("the limits are too close to kappa0 for any number of items")
    guess = max(math.ceil((crit + 0.001) / s) for s in per_item)
    if guess > N_MAX:
        raise PlannerError(f"more than {N_MAX:,} items would be needed")
    start = max(_N_START, guess - 50)
    ns = np.arange(start, guess + 51, dtype=float)
    ready = np.ones(ns.shape, dtype=bool)
    for lim in limits:
        ready &= ~_not_yet(_gof(cells0, setting.cells(lim), ns), crit)
    if not ready.any() or (start > _N_START and ready[0]):  # float trouble near the crossing
        raise PlannerError("kappaSize's search did not settle; the limits are too close")
    return int(ns[np.argmax(ready)])


def _ci(
    function: str,
    kappa0: float,
    kappaL: float,
    kappaU: float | None,
    props: float | Sequence[float] | None,
    raters: int,
    alpha: float,
) -> CIResult:
    setting = _setting(function, kappa0, props, raters, alpha)
    kappaL = check("kappaL", kappaL, RULES["compat_kappa"])
    if kappaL >= setting.kappa0:
        raise InvalidInput(
            f"kappaL must be below kappa0 ({shown(setting.kappa0)}), got {shown(kappaL)}",
            parameter="kappaL",
        )
    limits = [kappaL]
    if kappaU is not None:
        kappaU = check("kappaU", kappaU, RULES["compat_kappa"])
        if kappaU <= setting.kappa0:
            raise InvalidInput(
                f"kappaU must be above kappa0 ({shown(setting.kappa0)}), got {shown(kappaU)}",
                parameter="kappaU",
            )
        limits.append(kappaU)
    if kappaU is None:
        one_sided_alpha(setting.alpha)
    crit = _chi2_quantile(1 - alpha if kappaU is not None else 1 - 2 * alpha)
    return CIResult(setting, kappaL, kappaU, _first_n(setting, limits, crit), crit)


def _fixed_n(
    function: str,
    kappa0: float,
    n: int,
    props: float | Sequence[float] | None,
    raters: int,
    alpha: float,
) -> FixedNResult:
    setting = _setting(function, kappa0, props, raters, alpha)
    n = check("n", n, RULES["compat_n"])
    one_sided_alpha(setting.alpha)
    crit = _chi2_quantile(1 - 2 * alpha)
    steps = int(round((setting.kappa0 + 1) / _STEP)) + 1  # no further than kappa = -1
    walk = np.subtract.accumulate(np.r_[setting.kappa0, np.full(steps, _STEP)])[1:]
    stat = _gof(setting.cells(setting.kappa0), setting.cells(walk), float(n))
    done = ~_not_yet(stat, crit)
    if not done.any():
        raise PlannerError(
            f"with {n} items no lower limit down to kappa = -1 is far enough from kappa0"
        )
    return FixedNResult(setting, n, float(walk[np.argmax(done)]), crit)


def _power(
    function: str,
    kappa0: float,
    kappa1: float,
    props: float | Sequence[float] | None,
    raters: int,
    alpha: float,
    power: float,
) -> PowerResult:
    setting = _setting(function, kappa0, props, raters, alpha)
    kappa1 = check("kappa1", kappa1, RULES["compat_kappa"])
    power = check("power", power, RULES["compat_power"])
    c0, c1 = setting.cells(setting.kappa0), setting.cells(kappa1)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_item = float(((c1 - c0) ** 2 / c0).sum())
    if not (math.isfinite(per_item) and per_item > 0):
        raise InvalidInput(
            f"kappa1 must differ from kappa0 ({shown(setting.kappa0)}), got {shown(kappa1)}",
            parameter="kappa1",
        )
    lam = noncentrality(alpha, power)
    n_raw = lam / per_item
    if not n_raw <= N_MAX:  # one cap for every compat answer (and its simulation)
        raise PlannerError(f"more than {N_MAX:,} items would be needed")
    return PowerResult(setting, kappa1, power, n_raw, math.ceil(n_raw), lam)


def _chi2_quantile(q: float, df: int = 1) -> float:
    """The ``q`` quantile of chi-squared with ``df`` degrees of freedom (R's ``qchisq``).

    One degree of freedom is the square of a normal quantile (the standard library's);
    scipy.stats costs ~0.4 s and scipy.special ~0.15 s of start-up, which ``compat`` avoids.

    >>> round(_chi2_quantile(0.95), 4)
    3.8415
    """
    if df == 1:
        return NormalDist().inv_cdf((1 + q) / 2) ** 2
    from scipy.special import gammaincinv

    return float(2 * gammaincinv(df / 2, q))  # as scipy.stats.chi2.ppf


def _ncx2_cdf(x: float, df: int, nc: float) -> float:
    """P(X <= x) for X noncentral chi-squared (``df``, non-centrality ``nc``).

    With one degree of freedom X = (Z + sqrt(nc))^2, so the CDF is
    Phi(sqrt(x) - sqrt(nc)) - Phi(-sqrt(x) - sqrt(nc)), in erfc for accuracy in the tails.
    """
    if df == 1:
        r, m = math.sqrt(x), math.sqrt(nc)
        return 0.5 * (math.erfc((m - r) / math.sqrt(2)) - math.erfc((m + r) / math.sqrt(2)))
    from scipy.special import chndtr  # as scipy.stats.ncx2.cdf for nc > 0

    return float(chndtr(x, df, nc))


def noncentrality(alpha: float, power: float, df: int = 1) -> float:
    """kappaSize's non-centrality: ``lambda`` with ``P(chi2_df(lambda) > chi2_df(1-alpha))``
    equal to ``power``, by its own bracketing and bisection (tolerance 1e-5 on the CDF).

    >>> round(noncentrality(0.05, 0.8), 2)
    7.85
    """
    crit = _chi2_quantile(1 - alpha, df)
    target = (1 - (1 - (1 - power) * 2)) / 2  # R: (1 - conf)/2 with conf = 1 - 2(1 - power)
    if not power > alpha:  # at lambda = 0 the test rejects with probability alpha
        raise InvalidInput(
            f"power must exceed alpha ({shown(alpha)}), got {shown(power)}",
            parameter="power",
            value=power,
            rule="a number in (alpha, 1)",
        )

    def cdf(lam: float) -> float:
        return _ncx2_cdf(crit, df, lam)

    # cdf falls from 1 - alpha (lambda = 0) to 0, and 1 - power < 1 - alpha: each bracket
    # ends, and the bisection halves the bracket; SEARCH_STEPS bounds all three loops
    low, mid, high = crit, 2 * crit, 3 * crit
    for _ in range(SEARCH_STEPS):
        if cdf(low) >= target:
            break
        low, mid = low / 4, low
    for _ in range(SEARCH_STEPS):
        if cdf(high) <= target:
            break
        mid, high = high, high + crit
    for _ in range(SEARCH_STEPS):  # R's loop: at least one halving, then |cdf - target|
        if cdf(mid) < target:
            mid, high = (low + mid) / 2, mid
        else:
            low, mid = mid, (mid + high) / 2
        if abs(cdf(mid) - target) <= 1e-5:
            return mid
    raise SearchLimit(
        f"the non-centrality for power {shown(power)} at alpha {shown(alpha)} did not settle "
        f"in {SEARCH_STEPS} steps"
    )


# ---------------------------------------------------------------- the R functions, by name


def CIBinary(  # noqa: N802 - R's name
    kappa0: float,
    kappaL: float,
    kappaU: float | None = None,
    props: float | Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> CIResult:
    """kappaSize ``CIBinary``: items for expected limits kappaL (and kappaU), binary outcome.

    ``props`` is the positive proportion, or both proportions (summing to 1); R has no
    default for it, and neither has this (``None`` raises). An omitted ``kappaU`` is
    one-sided (critical value at ``1 - 2 alpha``). Search as in the module docstring
    (n = 11, 12, ...).

    >>> CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.3).n
    397
    """
    return _ci("CIBinary", kappa0, kappaL, kappaU, props, raters, alpha)


def CI3Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappaL: float,
    kappaU: float | None = None,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> CIResult:
    """kappaSize ``CI3Cats``: as :func:`CIBinary` for three categories (``props`` of 3)."""
    return _ci("CI3Cats", kappa0, kappaL, kappaU, props, raters, alpha)


def CI4Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappaL: float,
    kappaU: float | None = None,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> CIResult:
    """kappaSize ``CI4Cats``: as :func:`CIBinary` for four categories."""
    return _ci("CI4Cats", kappa0, kappaL, kappaU, props, raters, alpha)


def CI5Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappaL: float,
    kappaU: float | None = None,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> CIResult:
    """kappaSize ``CI5Cats``: as :func:`CIBinary` for five categories."""
    return _ci("CI5Cats", kappa0, kappaL, kappaU, props, raters, alpha)


def FixedNBinary(  # noqa: N802 - R's name
    kappa0: float,
    n: int,
    props: float | Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> FixedNResult:
    """kappaSize ``FixedNBinary``: the expected lower limit of kappa with ``n`` items.

    ``kappaL`` walks down from ``kappa0`` in steps of 0.001 until the one-sided GOF distance
    at ``n`` reaches ``chi2_1(1 - 2 alpha)``; R requires ``n > 10``.
    """
    return _fixed_n("FixedNBinary", kappa0, n, props, raters, alpha)


def FixedN3Cats(  # noqa: N802 - R's name
    kappa0: float,
    n: int,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> FixedNResult:
    """kappaSize ``FixedN3Cats``: as :func:`FixedNBinary` for three categories."""
    return _fixed_n("FixedN3Cats", kappa0, n, props, raters, alpha)


def FixedN4Cats(  # noqa: N802 - R's name
    kappa0: float,
    n: int,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> FixedNResult:
    """kappaSize ``FixedN4Cats``: as :func:`FixedNBinary` for four categories."""
    return _fixed_n("FixedN4Cats", kappa0, n, props, raters, alpha)


def FixedN5Cats(  # noqa: N802 - R's name
    kappa0: float,
    n: int,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
) -> FixedNResult:
    """kappaSize ``FixedN5Cats``: as :func:`FixedNBinary` for five categories."""
    return _fixed_n("FixedN5Cats", kappa0, n, props, raters, alpha)


def PowerBinary(  # noqa: N802 - R's name
    kappa0: float,
    kappa1: float,
    props: float | Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.80,
) -> PowerResult:
    """kappaSize ``PowerBinary``: items for the GOF test of kappa0 against kappa1.

    >>> r = PowerBinary(kappa0=0.4, kappa1=0.6, props=0.3)
    >>> round(r.N, 3), r.N_ceiling
    (190.456, 191)
    """
    return _power("PowerBinary", kappa0, kappa1, props, raters, alpha, power)


def Power3Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappa1: float,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.80,
) -> PowerResult:
    """kappaSize ``Power3Cats``: as :func:`PowerBinary` for three categories."""
    return _power("Power3Cats", kappa0, kappa1, props, raters, alpha, power)


def Power4Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappa1: float,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.80,
) -> PowerResult:
    """kappaSize ``Power4Cats``: as :func:`PowerBinary` for four categories."""
    return _power("Power4Cats", kappa0, kappa1, props, raters, alpha, power)


def Power5Cats(  # noqa: N802 - R's name
    kappa0: float,
    kappa1: float,
    props: Sequence[float] | None = None,
    raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.80,
) -> PowerResult:
    """kappaSize ``Power5Cats``: as :func:`PowerBinary` for five categories."""
    return _power("Power5Cats", kappa0, kappa1, props, raters, alpha, power)


def kappasize(function: str, **arguments: object) -> CIResult | FixedNResult | PowerResult:
    """Call the kappaSize function named ``function`` (R's spelling) with ``arguments``."""
    if not isinstance(function, str) or function not in FUNCTIONS:
        raise InvalidInput(
            f"FUNCTION must be one of kappaSize's {', '.join(FUNCTIONS)} (R's names); "
            f"got {shown(function)}",
            parameter="function",
        )
    kind = FUNCTIONS[function][0]
    allowed = {
        "CI": ("kappa0", "kappaL", "kappaU", "props", "raters", "alpha"),
        "FixedN": ("kappa0", "n", "props", "raters", "alpha"),
        "Power": ("kappa0", "kappa1", "props", "raters", "alpha", "power"),
    }[kind]
    unused = [
        name for name, value in arguments.items() if value is not None and name not in allowed
    ]
    if unused:
        raise InvalidInput(f"{unused[0]} is not an argument of {function}", parameter=unused[0])
    required = {"CI": ("kappa0", "kappaL", "props"), "FixedN": ("kappa0", "n", "props")}.get(
        kind, ("kappa0", "kappa1", "props")
    )
    missing = [name for name in required if arguments.get(name) is None]
    if missing:
        raise InvalidInput(f"{missing[0]} is required by {function}", parameter=missing[0])
    given = {name: arguments[name] for name in allowed if arguments.get(name) is not None}
    return globals()[function](**given)  # type: ignore[no-any-return]
