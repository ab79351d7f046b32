"""R irr 0.84.1 sample sizes for Cohen's kappa reproduced: ``N.cohen.kappa`` and ``N2.cohen.kappa``.

Both size a one-sided (``twosided=False``, R's default) or two-sided z-test of
``H0: kappa = k0`` when the true kappa is ``k1``, with the large-sample variance of Fleiss,
Cohen & Everitt (1969)::

    N = [ (z_{1 - alpha/d} tau(k0) + z_{power} tau(k1)) / (k1 - k0) ]^2,   d = 1 or 2,

and return ``ceiling(N)``; ``N_raw`` here is the unrounded value.

* ``N.cohen.kappa(rate1, rate2, k1, k0)`` (Cantor 1996): binary labels; ``tau(k)^2`` is ``n``
  times the FCE variance at the 2 x 2 table with positive rates ``rate1``, ``rate2`` and
  kappa ``k``. R's argument roles: ``k1`` is the true kappa, ``k0`` the null value. (irr's
  example text says "H0: kappa = 0.7 vs kappa = 0.85" but passes ``k1=0.7, k0=0.85``;
  METHODS.md 7.6. We keep R's roles.)
* ``N2.cohen.kappa(mrg, k1, k0)`` (Flack, Afifi, Lachenbruch & Schouten 1988): K categories,
  both raters with margins ``mrg``; ``tau(k)`` is the *largest* FCE standard deviation over
  all K x K tables with those margins and kappa ``k``. With the margins and the trace fixed
  the variance is linear in the cells, so the maximum is a linear program (irr uses lpSolve;
  here scipy's HiGHS).

References
----------
Cantor AB (1996) Sample-size calculations for Cohen's kappa. Psychol Methods 1:150-153.
Flack VF, Afifi AA, Lachenbruch PA, Schouten HJA (1988) Sample size determinations for the two
    rater kappa statistic. Psychometrika 53:321-325.
Fleiss JL, Cohen J, Everitt BS (1969) Psychol Bull 72:323-327.
Gamer M, Lemon J, Fellows I, Singh P (2019) irr: Various Coefficients of Interrater
    Reliability and Agreement, R package 0.84.1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, PlannerError
from planner.sizing.compat_kappasize import N_MAX, one_sided_alpha
from planner.statistics.intervals import kappa_standard_error
from planner.validation import RULES, check, shown

FloatArray = NDArray[np.float64]
FUNCTIONS = ("N.cohen.kappa", "N2.cohen.kappa")
_SUM_TOLERANCE = 1e-9  # irr demands sum(mrg) == 1 exactly; decimal input rarely sums exactly


@dataclass(frozen=True)
class IrrResult:
    """An irr sample size: ``N`` (the integer R prints) and ``N_raw``.

    ``table_k1`` is the table the answer assumes under ``k1`` (Cantor: the 2 x 2 table
    with the raters' rates; Flack: the worst-case table of the linear program).
    """

    function: str
    k1: float
    k0: float
    alpha: float
    power: float
    twosided: bool
    margins: tuple[tuple[float, ...], tuple[float, ...]]
    N: int
    N_raw: float
    tau_k1: float
    tau_k0: float
    table_k1: tuple[tuple[float, ...], ...]


def binary_cells(rate1: float, rate2: float, kappa: float) -> FloatArray:
    """The 2 x 2 cell probabilities with positive rates ``rate1`` (rows), ``rate2`` (columns)
    and Cohen's kappa ``kappa`` (docs/methods/sample-size.md 2.3).

    >>> binary_cells(0.5, 0.5, 0.7).round(3).tolist()
    [[0.425, 0.075], [0.075, 0.425]]
    """
    p_e = rate1 * rate2 + (1 - rate1) * (1 - rate2)
    p_o = kappa * (1 - p_e) + p_e
    both = (p_o - 1 + rate1 + rate2) / 2
    return np.array([[both, rate1 - both], [rate2 - both, 1 - rate1 - rate2 + both]])


def _tau(table: FloatArray) -> float:
    """``sqrt(n Var_FCE)`` of Cohen's kappa at cell probabilities ``table`` (n = 1)."""
    return float(kappa_standard_error(table))


def _common(
    k1: float, k0: float, alpha: float, power: float, twosided: bool
) -> tuple[float, float, float, float]:
    k1 = check("k1", k1, RULES["irr_kappa"])
    k0 = check("k0", k0, RULES["irr_kappa"])
    alpha = check("alpha", alpha, RULES["compat_alpha"])
    power = check("power", power, RULES["compat_power"])
    if not twosided:
        one_sided_alpha(alpha)
    if not power > alpha:  # at k1 = k0 the test rejects with probability alpha
        raise InvalidInput(
            f"power must exceed alpha ({shown(alpha)}), got {shown(power)}",
            parameter="power",
            value=power,
            rule="a number in (alpha, 1)",
        )
    if k1 == k0:
        raise InvalidInput(f"k1 must differ from k0 ({shown(k0)}), got {shown(k1)}", parameter="k1")
    return k1, k0, alpha, power


def _size(
    tau1: float, tau0: float, k1: float, k0: float, alpha: float, power: float, twosided: bool
) -> tuple[int, float]:
    z_alpha = NormalDist().inv_cdf(1 - alpha / (2 if twosided else 1))
    z_power = NormalDist().inv_cdf(power)
    raw = ((z_alpha * tau0 + z_power * tau1) / (k1 - k0)) ** 2
    if not raw <= N_MAX:  # the cap every compat answer shares
        raise PlannerError(f"more than {N_MAX:,} items would be needed")
    return math.ceil(raw), raw


def N_cohen_kappa(  # noqa: N802 - R's name
    rate1: float,
    rate2: float,
    k1: float,
    k0: float,
    alpha: float = 0.05,
    power: float = 0.8,
    twosided: bool = False,
) -> IrrResult:
    """irr ``N.cohen.kappa`` (Cantor 1996): items for the test of kappa ``k0`` when it is ``k1``.

    >>> N_cohen_kappa(0.5, 0.5, 0.7, 0.85).N
    96
    """
    rate1 = check("rate1", rate1, RULES["irr_rate"])
    rate2 = check("rate2", rate2, RULES["irr_rate"])
    k1, k0, alpha, power = _common(k1, k0, alpha, power, twosided)
    tables = {}
    for name, kappa in (("k1", k1), ("k0", k0)):
        table = binary_cells(rate1, rate2, kappa)
        if (table < 0).any():
            raise InvalidInput(
                f"{name} must be a kappa that positive rates {shown(rate1)} and {shown(rate2)} "
                f"allow, got {shown(kappa)}",
                parameter=name,
            )
        tables[name] = table
    tau1, tau0 = _tau(tables["k1"]), _tau(tables["k0"])
    n, raw = _size(tau1, tau0, k1, k0, alpha, power, twosided)
    rates = ((rate1, 1 - rate1), (rate2, 1 - rate2))
    shown_table = tuple(tuple(float(x) for x in row) for row in tables["k1"])
    return IrrResult(
        "N.cohen.kappa", k1, k0, alpha, power, twosided, rates, n, raw, tau1, tau0, shown_table
    )


def max_tau(margins: Sequence[float], kappa: float) -> tuple[float, FloatArray]:
    """Flack et al.'s largest ``sqrt(n Var_FCE)`` over K x K tables with both margins
    ``margins`` and kappa ``kappa``, and the table that attains it (a linear program).

    With ``p_e = sum m_i^2`` and ``p_o = kappa (1 - p_e) + p_e`` fixed, the FCE numerator is
    ``p_o (1 - p_e)^2 + sum_ij c_ij p_ij - (p_o p_e - 2 p_e + p_o)^2`` (scaled by
    ``(1 - p_e)^2``) with ``c_ii = -4 (1 - p_o) m_i ((1 - p_e) - (1 - p_o) m_i)`` and
    ``c_ij = (1 - p_o)^2 (m_i + m_j)^2``; it is maximised over ``p_ij >= 0`` with row and
    column sums ``m`` and trace ``p_o``.
    """
    from scipy.optimize import linprog

    m = np.asarray(margins, dtype=float)
    k = m.size
    p_e = float((m * m).sum())
    p_o = kappa + p_e * (1 - kappa)
    if not p_o > 0:
        raise InvalidInput(
            f"k1 and k0 must leave some agreement with margins {shown(list(m))}, got {shown(kappa)}"
        )
    gap = 1 - p_o
    cost = gap**2 * (m[:, None] + m[None, :]) ** 2
    np.fill_diagonal(cost, -gap * 2 * m * (2 * (1 - p_e) - gap * 2 * m))
    rows = np.kron(np.eye(k), np.ones(k))  # sum_j p_ij = m_i
    cols = np.kron(np.ones(k), np.eye(k))  # sum_i p_ij = m_j
    trace = np.eye(k).reshape(1, -1)
    a_eq = np.vstack([rows, cols, trace])
    b_eq = np.r_[m, m, p_o]
    fit = linprog(-cost.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if fit.status != 0:
        raise InvalidInput(
            f"no table has margins {shown(list(m))} and kappa {shown(kappa)}", parameter="mrg"
        )
    tau_sq = p_o * (1 - p_e) ** 2 - fit.fun - (p_o * p_e - 2 * p_e + p_o) ** 2
    if not tau_sq > 0:
        raise InvalidInput(f"margins {shown(list(m))} with kappa {shown(kappa)} leave no variance")
    return math.sqrt(tau_sq) / (1 - p_e) ** 2, fit.x.reshape(k, k)


def N2_cohen_kappa(  # noqa: N802 - R's name
    mrg: Sequence[float],
    k1: float,
    k0: float,
    alpha: float = 0.05,
    power: float = 0.8,
    twosided: bool = False,
) -> IrrResult:
    """irr ``N2.cohen.kappa`` (Flack et al. 1988): as :func:`N_cohen_kappa` for 2-10
    categories with common margins ``mrg``, at the worst-case table (:func:`max_tau`).

    >>> N2_cohen_kappa([0.2, 0.25, 0.55], k1=0.6, k0=0.4).N
    101
    """
    margins = tuple(check("mrg", v, RULES["irr_margin"]) for v in mrg)
    if not 2 <= len(margins) <= 10:
        raise InvalidInput(
            f"mrg must have 2 to 10 values (irr's range), got {len(margins)}", parameter="mrg"
        )
    if abs(sum(margins) - 1) > _SUM_TOLERANCE:
        raise InvalidInput(f"mrg must sum to 1, got {shown(sum(margins))}", parameter="mrg")
    k1, k0, alpha, power = _common(k1, k0, alpha, power, twosided)
    tau0, _ = max_tau(margins, k0)
    tau1, table = max_tau(margins, k1)
    n, raw = _size(tau1, tau0, k1, k0, alpha, power, twosided)
    shown_table = tuple(tuple(float(x) for x in row) for row in table)
    return IrrResult(
        "N2.cohen.kappa",
        k1,
        k0,
        alpha,
        power,
        twosided,
        (margins, margins),
        n,
        raw,
        tau1,
        tau0,
        shown_table,
    )


def irr(function: str, **arguments: object) -> IrrResult:
    """Call the irr function named ``function`` (R's spelling) with ``arguments``."""
    if not isinstance(function, str) or function not in FUNCTIONS:
        raise InvalidInput(
            f"FUNCTION must be one of irr's {', '.join(FUNCTIONS)} (R's names); "
            f"got {shown(function)}",
            parameter="function",
        )
    binary = function == "N.cohen.kappa"
    needed = ("rate1", "rate2", "k1", "k0") if binary else ("mrg", "k1", "k0")
    other = ("mrg",) if binary else ("rate1", "rate2")
    unused = [name for name in other if arguments.get(name) is not None]
    if unused:
        raise InvalidInput(f"{unused[0]} is not an argument of {function}", parameter=unused[0])
    missing = [name for name in needed if arguments.get(name) is None]
    if missing:
        raise InvalidInput(f"{missing[0]} is required by {function}", parameter=missing[0])
    given = {k: v for k, v in arguments.items() if v is not None and k not in other}
    call = N_cohen_kappa if binary else N2_cohen_kappa
    return call(**given)  # type: ignore[arg-type]
