"""Planning PSA under pilot uncertainty: hybrid assurance over the pilot's posterior.

A pilot of ``m`` items gives counts ``(a, b, c, d)``. Used as the truth (the plug-in plan)
they ignore that a small pilot says little about the cell probabilities. Here the cell
probabilities ``p`` get the posterior ``Dirichlet(counts + 1/2)`` (the Jeffreys prior), and

* the **hybrid assurance** at ``n`` items is ``E_p[A(n; p)]``, the study's assurance
  ``A(n; p) = P(half-width <= width | p)`` averaged over the posterior (O'Hagan, Stevens &
  Campbell 2005); ``items`` is the smallest ``n`` where it reaches the target;
* each posterior draw (a plausible truth) needs its own ``n_p``; their median, 80th and
  90th percentiles say how much the answer depends on what the pilot could not pin down.

**One grid for every draw.** ``A(n; p) = sum_U Bin(U; n, r) A(U; J)`` with the union rate
``r = a + b + c`` and ``J = a / r`` (docs/methods/two-annotators.md 1.2). Whether a study's
interval is
narrow depends only on ``(a, U)``, not on ``p``: the narrow outcomes are computed once, as
runs of ``a`` for each ``U`` below ``U*``, the union positives from which on *every*
outcome is narrow. So ``A(U; J) = sum over runs of Bin-cdf differences`` for all draws at
once, and ``A(n; p) = 1 - sum_{U < U*} Bin(U; n, r) (1 - A(U; J))``: a ``(draws, U*)``
array per evaluated ``n``, so that a bisection over ``n`` for every draw at once costs
about 30 such arrays, never a search per draw.

**Posterior draws: randomised lattices over two independent Betas.** ``A(n; p)`` depends on
``p`` only through ``r`` and ``J``, and under ``Dirichlet(alpha)`` these are independent,
``r ~ Beta(alpha_a + alpha_b + alpha_c, alpha_d)`` and ``J ~ Beta(alpha_a, alpha_b + alpha_c)``
(the aggregation and neutrality properties of the Dirichlet). The hybrid assurance is thus an
integral over the unit square, ``E[A] = int A(n; F_r^-1(u), F_J^-1(v)) du dv``. It is estimated
by a randomised quasi-Monte Carlo rule: ``R`` (:data:`REPLICATES`) copies of the Fibonacci
lattice of ``m`` points, ``(i / m, frac(i g / m))`` with ``g`` the Fibonacci number before
``m``, each shifted by its own uniform random vector and folded by the baker's transform
``u -> 1 - |2u - 1|`` (Hickernell 2002), mapped through the two Beta quantile functions. Every
``n`` is evaluated on the same points (common random numbers), so the estimated assurance is a
smooth, increasing function of ``n``. Each copy is an unbiased estimate of ``E[A]``: the items
it alone gives, ``n_k``, are ``R`` independent replicates, and the answer's Monte Carlo
standard error is ``sd(n_k) / sqrt(R)``; the answer itself is the smallest ``n`` where the
mean over all ``R m`` points reaches the target. ``m`` grows along the Fibonacci numbers until
that standard error is at most :data:`MAX_RELATIVE_SE` of the answer.

**Seeds.** ``items_under_uncertainty(..., rng=s)`` takes the lattices' shifts from
``numpy.random.default_rng(s).random(2)``, called once per replicate (the same shifts for
every lattice size: ``lattice_cells(counts, draws // REPLICATES, default_rng(s))`` are the
answer's draws), and :func:`planner.sizing.plan.make_plan` passes the plan's
own seed: the library called with the seed of a ``plan`` run gives that run's answer.

References
----------
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
Hickernell FJ (2002) Obtaining O(N^-2+e) convergence for lattice quadrature rules. In Monte
    Carlo and Quasi-Monte Carlo Methods 2000, Springer, 274-289.
L'Ecuyer P, Lemieux C (2000) Variance reduction via lattice rules. Manag Sci 46:1214-1235.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, step_guard
from planner.sizing.exact import log_gamma, usable_half_width
from planner.sizing.model import PairModel
from planner.sizing.plan import PlanSettings
from planner.sizing.sample_size_search import smallest_passing_each
from planner.statistics.intervals import psa_conditional_interval
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

#: PSA methods with a union-positive count from which every outcome is narrow
METHODS = ("wilson", "clopper-pearson", "jeffreys")
#: the largest U* served (width about 0.017 at 95 %): beyond it a plan under uncertainty
#: costs seconds per thousand draws, and the plan says so instead
MAX_UNION_POSITIVES = 4000
PERCENTILES = (0.5, 0.8, 0.9)
#: lattice sizes (Fibonacci numbers: the two-dimensional lattices with the best spacing)
LATTICE_POINTS = (21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584)
#: independently shifted copies of the lattice (the replicates of the standard error)
REPLICATES = 16
#: posterior draws to start from: 16 lattices of 55 points
DRAWS = REPLICATES * 55
#: the largest Monte Carlo standard error accepted, as a share of the answer
MAX_RELATIVE_SE = 0.005
#: the largest posterior lattice grown, in cells ``draws * U*`` of the ``(draws, U*)`` array
#: each evaluated ``n`` costs: a degenerate pilot (no or one disagreement, a narrow width, a
#: high assurance) spreads the draws' needs so widely that the lattices would grow to 41,344
#: draws (over a minute); the search stops at the last size within the bound, about 10 s on
#: one core, and the result's note gives the standard error reached. The first size is
#: always searched.
MAX_LATTICE_CELLS = 2_000_000
#: the kappa plan under pilot uncertainty (:mod:`planner.sizing.uncertainty_kappa`): at most
#: this many posterior draws x items (at the plug-in plan's items); fewer draws beyond it
MAX_DRAW_ITEMS = 64_000_000


@dataclass(frozen=True)
class NarrowOutcomes:
    """The outcomes ``(a, U)`` whose PSA interval reaches the width, for ``U < u_star``.

    ``runs_u[k]``, ``runs_lo[k]``, ``runs_hi[k]``: the ``a`` in ``[lo, hi]`` are narrow at
    ``U = runs_u[k]``; from ``u_star`` union positives on every ``a`` is narrow.
    """

    u_star: int
    runs_u: NDArray[np.int64]
    runs_lo: NDArray[np.int64]
    runs_hi: NDArray[np.int64]


def _ternary_peak(hw: Any, lo: NDArray, hi: NDArray) -> NDArray:
    """Where the unimodal ``hw(a, rows)`` peaks on the integers of ``[lo, hi]``, per row."""
    rows = np.arange(lo.size)
    left, right = lo.copy(), hi.copy()
    guard = step_guard("the ternary search for the widest outcome")
    while np.any(right - left > 2):
        guard()
        active = right - left > 2
        third = np.floor((right - left) / 3)
        m1, m2 = left + third, right - third
        rising = hw(m1, rows) < hw(m2, rows)
        left = np.where(active & rising, m1 + 1, left)
        right = np.where(active & ~rising, m2, right)
    candidates = np.stack([left, np.minimum(left + 1, right), right])
    values = np.stack([hw(c, rows) for c in candidates])
    return candidates[np.argmax(values, axis=0), rows]


def _boundary(narrow: Any, low: NDArray, high: NDArray, rising: bool) -> NDArray:
    """On a monotone side, the last narrow ``a`` in ``[low, high]`` (``low - 1`` if none) when
    the half-width rises, or the first (``high + 1`` if none) when it falls; by bisection."""
    rows = np.arange(low.size)
    if rising:  # narrow on [low, a1]: find a1
        lo, hi = low - 1, high.copy()
        guard = step_guard("the bisection for the narrow outcomes")
        while np.any(hi > lo):
            guard()
            mid = np.ceil((lo + hi) / 2)
            ok = (hi > lo) & narrow(np.maximum(mid, low), rows)
            lo, hi = np.where(ok, mid, lo), np.where(ok | (hi == lo), hi, mid - 1)
        return lo
    lo, hi = low.copy(), high + 1  # narrow on [a2, high]: find a2
    guard = step_guard("the bisection for the narrow outcomes")
    while np.any(hi > lo):
        guard()
        mid = np.floor((lo + hi) / 2)
        ok = (hi > lo) & narrow(np.minimum(mid, high), rows)
        hi, lo = np.where(ok, mid, hi), np.where(ok | (hi == lo), lo, mid + 1)
    return lo


def narrow_outcomes(width: float, confidence_level: float, method: str) -> NarrowOutcomes:
    """Runs of narrow outcomes ``a`` for each ``U``, and ``U*`` (every outcome narrow).

    Given ``U``, the half-width of the conditional PSA intervals is unimodal in ``a`` on
    ``1 .. U - 1`` (see :func:`planner.sizing.exact.conditional_psa_assurance`), so the narrow
    interior outcomes are the runs ``[1, a1]`` and ``[a2, U - 1]``, found by a ternary search
    for the peak and two bisections, vectorised over ``U``; ``a = 0`` and ``a = U`` are
    checked on their own. ``U*`` is the smallest ``U`` from which every ``U`` of the grid (to
    1.3 times the delta-method worst case, at least 20 beyond ``U*``) has every outcome narrow.
    Tests compare the runs with the full ``(U, a)`` grid.
    """
    from planner.sizing.search import worst_case_union_positives

    cap = int(1.3 * worst_case_union_positives(width, confidence_level)["delta"]) + 60
    us = np.arange(1, cap + 1, dtype=float)

    def hw(a: NDArray, rows: NDArray) -> NDArray:
        u = us[rows]
        half = psa_conditional_interval(np.clip(a, 0, u), u, confidence_level, method)
        return usable_half_width(half.half_width)

    def narrow(a: NDArray, rows: NDArray) -> NDArray:
        return hw(a, rows) <= width

    every = np.arange(cap)
    zero, full = narrow(np.zeros(cap), every), narrow(us, every)
    one, last = np.ones(cap), np.maximum(us - 1, 1)
    peak = _ternary_peak(hw, one, last)
    interior = (us >= 2) & narrow(peak, every)  # every interior outcome is narrow
    a1 = np.where(interior, last, _boundary(narrow, one, peak, rising=True))
    a2 = np.where(interior, us, _boundary(narrow, peak + 1, last, rising=False))
    a1 = np.where(us >= 2, a1, 0)  # U = 1 has no interior
    a2 = np.where(us >= 2, a2, us)
    whole = zero & full & ((us < 2) | interior)
    failing = np.flatnonzero(~whole)
    u_star = int(us[failing[-1]] + 1) if failing.size else 1
    if u_star > cap - 20:
        raise InvalidInput(
            f"width {width:g} with the {method} interval: no union-positive count found from "
            "which every outcome is narrow",
            parameter="width",
        )
    keep = us < u_star
    # the low run [0 or 1, a1] and the high run [a2, U - 1 or U]; one run when they meet
    low_lo = np.where(zero, 0, 1)
    high_hi = np.where(full, us, us - 1)
    meet = a2 <= a1 + 1
    low_hi = np.where(meet, high_hi, a1)
    runs = [
        (keep & (low_hi >= low_lo), low_lo, low_hi),
        (keep & ~meet & (high_hi >= a2), a2, high_hi),
    ]
    u_runs = np.concatenate([us[m] for m, _, _ in runs])
    lo_runs = np.concatenate([lo[m] for m, lo, _ in runs])
    hi_runs = np.concatenate([hi[m] for m, _, hi in runs])
    return NarrowOutcomes(
        u_star=u_star,
        runs_u=u_runs.astype(np.int64),
        runs_lo=lo_runs.astype(np.int64),
        runs_hi=hi_runs.astype(np.int64),
    )


def _failure_given_union(outcomes: NarrowOutcomes, jaccard: NDArray) -> NDArray:
    """``(draws, U*)``: ``1 - A(U; J_d)`` for ``U = 0 .. U* - 1`` (``A(0) = 0``)."""
    from scipy import special  # lazily: only the pilot plan needs the binomial cdf

    j = jaccard[:, None]
    u = outcomes.runs_u[None, :]

    def cdf(k: NDArray) -> NDArray:
        return np.where(k >= 0, special.bdtr(np.maximum(k, 0), u, j), 0.0)

    mass = cdf(outcomes.runs_hi[None, :]) - cdf(outcomes.runs_lo[None, :] - 1)
    reached = np.zeros((jaccard.size, outcomes.u_star))
    rows = np.arange(jaccard.size)[:, None]
    np.add.at(reached, (rows, outcomes.runs_u[None, :]), mass)  # runs of one U add up
    return np.clip(1.0 - reached, 0.0, 1.0)


class DrawAssurance:
    """Assurance ``A(n_d; p_d)`` of studies of ``n_d`` items, for every posterior draw."""

    def __init__(self, cells: NDArray, outcomes: NarrowOutcomes) -> None:
        cells = np.asarray(cells, dtype=float)
        self.union_rate = cells[:, :3].sum(axis=1)
        self.jaccard = cells[:, 0] / self.union_rate
        self.failure = _failure_given_union(outcomes, self.jaccard)
        self.u = np.arange(outcomes.u_star, dtype=float)[None, :]
        self._log_r = np.log(self.union_rate)[:, None]
        self._log_q = np.log1p(-self.union_rate)[:, None]
        self._lg_u = log_gamma(self.u + 1)

    def __call__(self, n_items: NDArray | int) -> NDArray:
        """``(draws,)`` assurance at ``n_items`` (one per draw, or one for all).

        ``log Bin(U; n, r) = log n! - log (n - U)! - log U! + U log r + (n - U) log(1 - r)``
        with ``log n! - log (n - U)! = sum_{k=1..U} log(n - k + 1)``, a cumulative sum of
        logarithms (cheaper than a log-gamma per cell); ``U > n`` has probability 0.
        """
        n = np.broadcast_to(np.asarray(n_items, dtype=float), self.union_rate.shape)[:, None]
        inside = self.u <= n
        with np.errstate(divide="ignore"):
            falling = np.log(np.maximum(n - self.u[:, 1:] + 1, 0.0))
        head = np.zeros((n.shape[0], 1))
        log_pmf = np.concatenate([head, np.cumsum(falling, axis=1)], axis=1) - self._lg_u
        log_pmf = log_pmf + self.u * self._log_r + np.where(inside, n - self.u, 0.0) * self._log_q
        pmf = np.where(inside, np.exp(log_pmf), 0.0)
        return np.clip(1.0 - np.sum(pmf * self.failure, axis=1), 0.0, 1.0)


def _bracket(at: DrawAssurance, u_star: int) -> NDArray:
    """Items at which a draw almost surely has ``U* `` union positives (every outcome
    narrow): the upper end of each draw's search (checked, widened if it fails)."""
    return np.ceil((u_star + 8 * np.sqrt(u_star) + 10) / at.union_rate)


@dataclass(frozen=True)
class PilotUncertainty:
    """The PSA plan under pilot uncertainty (see the module's docstring).

    Attributes
    ----------
    items
        Smallest ``n`` whose hybrid assurance (averaged over the posterior) reaches the target.
    items_mc_se
        Its Monte Carlo standard error: ``sd(n_k) / sqrt(replicates)`` over the items each
        independently shifted lattice gives on its own.
    hybrid_assurance
        The hybrid assurance at ``items`` (``hybrid_assurance_se`` its standard error over
        the replicates); ``plug_in_hybrid_assurance`` the same at the plug-in plan's items
        (how often the plug-in plan really reaches the width).
    draws, replicates
        Posterior draws in all, and the shifted lattices they form (``draws / replicates``
        points each).
    per_truth
        Percentiles (``"p50"``, ``"p80"``, ``"p90"``) of the items each posterior draw needs.
    psa_posterior
        Posterior 10th, 50th and 90th percentiles of PSA.
    """

    counts: tuple[int, int, int, int]
    width: float
    confidence_level: float
    target_assurance: float
    method: str
    draws: int
    items: int
    items_mc_se: float
    hybrid_assurance: float
    hybrid_assurance_se: float
    plug_in_items: int | None
    plug_in_hybrid_assurance: float | None
    per_truth: dict[str, int]
    psa_posterior: dict[str, float]
    unreachable_share: float
    seed: int
    replicates: int = REPLICATES
    prior: str = "Jeffreys: Dirichlet(counts + 1/2)"
    notes: list[str] = field(default_factory=list)
    metric: str = "psa"

    @property
    def basis(self) -> str:
        """How the answer is computed, in words."""
        return (
            f"Monte Carlo over {self.draws:,} posterior draws ({self.replicates} randomly "
            f"shifted lattices of {self.draws // self.replicates}), exact binomial sums for "
            "each draw"
        )

    @property
    def explanation(self) -> str:
        """What the difference between the answers means, in words."""
        p50, p90 = self.per_truth["p50"], self.per_truth["p90"]
        text = (
            f"averaged over what the pilot leaves open, {self.items:,} items "
            f"(± {self.items_mc_se:.1f} Monte Carlo SE) reach the width "
            f"with probability {self.target_assurance:g}; half of the plausible truths need at "
            f"most {p50:,} items, and one in ten needs more than {p90:,}"
        )
        if self.plug_in_items is not None and self.plug_in_hybrid_assurance is not None:
            text += (
                f"; the plug-in plan's {self.plug_in_items:,} items (if the pilot were the "
                f"truth) reach it with probability {self.plug_in_hybrid_assurance:.2f} once the "
                "pilot's uncertainty is counted"
            )
        return text


def posterior_cells(counts: tuple[int, ...], draws: int, rng: np.random.Generator) -> NDArray:
    """``(draws, 4)`` cell probabilities from ``Dirichlet(counts + 1/2)``."""
    return rng.dirichlet(np.asarray(counts, dtype=float) + 0.5, size=draws)


def shifted_lattice(points: int, shift: NDArray) -> NDArray:
    """``(points, 2)``: the Fibonacci lattice of ``points`` (one of :data:`LATTICE_POINTS`),
    shifted by ``shift`` modulo 1 and folded by the baker's transform ``1 - |2u - 1|``."""
    generator = LATTICE_POINTS[LATTICE_POINTS.index(points) - 1]
    i = np.arange(points, dtype=float)[:, None]
    u = np.mod(i * np.array([1.0, generator]) / points + np.asarray(shift)[None, :], 1.0)
    return 1.0 - np.abs(2.0 * u - 1.0)


def posterior_rates(counts: tuple[int, ...], uniforms: NDArray) -> tuple[NDArray, NDArray]:
    """Union rate ``r`` and ``J`` of the posterior ``Dirichlet(counts + 1/2)`` at the quantile
    levels ``uniforms[:, 0]`` and ``uniforms[:, 1]``: ``r ~ Beta(a + b + c + 3/2, d + 1/2)``
    and ``J ~ Beta(a + 1/2, b + c + 1)``, independent (module docstring)."""
    from scipy import special  # lazily: only the pilot plan needs the Beta quantiles

    alpha = np.asarray(counts, dtype=float) + 0.5
    u = np.clip(uniforms, 1e-12, 1 - 1e-12)
    rate = special.betaincinv(alpha[:3].sum(), alpha[3], u[:, 0])
    jaccard = special.betaincinv(alpha[0], alpha[1] + alpha[2], u[:, 1])
    return rate, jaccard


def lattice_cells(counts: tuple[int, ...], points: int, rng: np.random.Generator) -> NDArray:
    """``(REPLICATES * points, 4)`` cells ``(rJ, r(1 - J), 0, 1 - r)``: replicate ``k`` is the
    rows ``k * points .. (k + 1) * points - 1``, its lattice shifted by the ``k``-th pair of
    ``rng.random(2)``. Only ``r`` and ``J`` matter for PSA, so ``b`` and ``c`` are merged."""
    uniforms = np.concatenate([shifted_lattice(points, rng.random(2)) for _ in range(REPLICATES)])
    rate, jaccard = posterior_rates(counts, uniforms)
    return np.stack([rate * jaccard, rate * (1 - jaccard), np.zeros_like(rate), 1 - rate], axis=1)


def target_of(settings: PlanSettings) -> tuple[float, float, float, int]:
    """The target of a plan under pilot uncertainty (checked by :class:`PlanSettings`)."""
    return settings.width, settings.confidence_level, settings.assurance, settings.max_items


def pilot_counts_of(pilot: Any) -> Any:
    """The four pilot counts of ``pilot``: the counts themselves, or those a
    :class:`~planner.sizing.model.PairModel` was made from."""
    if isinstance(pilot, PairModel):
        counts = pilot.assumptions.get("pilot_counts")
        if counts is None:
            raise InvalidInput(
                "the model is not made from pilot counts (pair_from_counts): the plan under "
                "pilot uncertainty needs them",
                parameter="pilot",
            )
        return counts
    return pilot


def checked_counts(counts: Any) -> tuple[int, int, int, int]:
    if not isinstance(counts, list | tuple | np.ndarray):
        raise InvalidInput(
            f"pilot_counts must be four counts, got {type(counts).__name__}",
            parameter="pilot_counts",
        )
    values = tuple(int(check("pilot_counts", v, RULES["pilot_count"])) for v in counts)
    if len(values) != 4:
        raise InvalidInput(
            f"pilot_counts takes four counts both,a_only,b_only,neither; got {len(values)}",
            parameter="pilot_counts",
        )
    if sum(values[:3]) == 0:
        raise InvalidInput(
            "pilot_counts has no union positives: PSA cannot be planned", parameter="pilot_counts"
        )
    return values  # type: ignore[return-value]


@dataclass(frozen=True)
class HybridItems:
    """The search's answer on one set of lattices: the items each draw needs, the answer over
    all draws, the answer of each replicate alone, and their Monte Carlo standard error."""

    per_draw: NDArray
    items: int
    per_replicate: NDArray
    mc_se: float
    #: the lattices stopped short of the precision at :data:`MAX_LATTICE_CELLS`
    bounded: bool = False


def _hybrid_items(
    at: DrawAssurance, outcomes: NarrowOutcomes, assurance: float, max_items: int
) -> HybridItems:
    """The items each draw needs; the smallest ``n`` whose mean assurance over the draws
    reaches ``assurance``, over all draws and over each replicate's draws (searched between
    the draws' smallest and largest needs)."""
    draws = at.union_rate.size
    points = draws // REPLICATES
    per_draw = smallest_passing_each(
        lambda n: at(n) >= assurance, np.zeros(draws), _bracket(at, outcomes.u_star), max_items
    )
    # every draw reaches the target from max(per_draw) on, none below min(per_draw)
    low, high = max(int(per_draw.min()) - 1, 0), int(per_draw.max())
    pooled = smallest_passing_each(
        lambda n: np.array([at(n[0]).mean() >= assurance]),
        np.array([low]),
        np.array([high]),
        max_items,
    )
    per_replicate = smallest_passing_each(
        lambda n: at(np.repeat(n, points)).reshape(REPLICATES, points).mean(axis=1) >= assurance,
        np.full(REPLICATES, low),
        np.full(REPLICATES, high),
        max_items,
    )
    se = float(np.std(per_replicate, ddof=1) / np.sqrt(REPLICATES))
    return HybridItems(per_draw, int(pooled[0]), per_replicate, se)


def within_lattice_bound(points: int, u_star: int) -> bool:
    """Whether :data:`REPLICATES` lattices of ``points`` over ``U*`` union positives stay
    within :data:`MAX_LATTICE_CELLS` cells (``REPLICATES * points * U* <= bound``)."""
    return REPLICATES * points * u_star <= MAX_LATTICE_CELLS


def _search_to_precision(
    values: tuple[int, int, int, int],
    outcomes: NarrowOutcomes,
    assurance: float,
    draws: int,
    max_items: int,
    seed: int,
) -> tuple[DrawAssurance, HybridItems]:
    """Lattices of growing size (from ``draws`` in all, along :data:`LATTICE_POINTS`) until
    the answer's standard error is at most :data:`MAX_RELATIVE_SE` of it, or the largest
    within :data:`MAX_LATTICE_CELLS` (the first size always)."""
    sizes = [m for m in LATTICE_POINTS[1:] if REPLICATES * m >= draws] or [LATTICE_POINTS[-1]]
    allowed = sizes[:1] + [m for m in sizes[1:] if within_lattice_bound(m, outcomes.u_star)]
    for points in allowed:  # each size with the same shifts: the first draws of the seed's stream
        at = DrawAssurance(lattice_cells(values, points, np.random.default_rng(seed)), outcomes)
        found = _hybrid_items(at, outcomes, assurance, max_items)
        if found.items > max_items or found.mc_se <= MAX_RELATIVE_SE * found.items:
            return at, found
    return at, replace(found, bounded=len(allowed) < len(sizes))


def items_under_uncertainty(
    pilot: Any,
    settings: PlanSettings | None = None,
    *,
    draws: int = DRAWS,
    plug_in_items: int | None = None,
    rng: RngLike = None,
) -> PilotUncertainty:
    """Items for PSA whose assurance, averaged over the pilot's posterior, reaches the target.

    Parameters
    ----------
    pilot
        Pilot counts ``(both, a_only, b_only, neither)``, or a
        :class:`~planner.sizing.model.PairModel` made from them
        (:func:`~planner.sizing.model.pair_from_counts`).
    settings
        The target (:class:`~planner.sizing.plan.PlanSettings`): ``width`` (half-width of
        the PSA interval), ``confidence_level``, ``assurance`` (the required probability),
        ``psa_method`` (one of :data:`METHODS`) and ``max_items`` (largest ``n`` searched;
        a draw that needs more counts as unreachable). ``None``: the defaults.
    draws
        Posterior draws to start from (each a plausible truth): :data:`REPLICATES` shifted
        lattices of the smallest Fibonacci size that holds them; more when the answer's
        Monte Carlo standard error exceeds :data:`MAX_RELATIVE_SE` of it, up to
        :data:`MAX_LATTICE_CELLS` (a note says so when they stop short).
    plug_in_items
        The plug-in plan's items, to report their hybrid assurance (optional).
    rng
        Anything :func:`numpy.random.default_rng` takes; the seed used is recorded, and the
        lattices' shifts come from ``numpy.random.default_rng(seed)``.

    Examples
    --------
    >>> u = items_under_uncertainty([6, 21, 14, 459], PlanSettings(width=0.08), rng=1)
    >>> u.items_mc_se <= 0.005 * u.items
    True
    """
    settings = PlanSettings() if settings is None else settings
    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if plug_in_items is not None:
        plug_in_items = check("plug_in_items", plug_in_items, RULES["items"])
    values = checked_counts(pilot_counts_of(pilot))
    width, confidence_level, assurance, max_items = target_of(settings)
    method = check_choice("psa_method", settings.psa_method, METHODS)
    draws = check("draws", draws, RULES["draws"])
    seed = seed_from(rng)
    outcomes = narrow_outcomes(width, confidence_level, method)
    if outcomes.u_star > MAX_UNION_POSITIVES:
        raise InvalidInput(
            f"width {width:g} is below what the plan under pilot uncertainty serves (every "
            f"outcome is narrow only from {outcomes.u_star:,} union positives, more than "
            f"{MAX_UNION_POSITIVES:,}); use a width of at least 0.02",
            parameter="width",
        )
    at, found = _search_to_precision(values, outcomes, assurance, draws, max_items, seed)
    if found.items > max_items:
        from planner.errors import TargetUnreachable

        raise TargetUnreachable(
            f"width {width:g} is not reached with hybrid assurance {assurance:g} even at "
            f"max_items {max_items}",
            parameters=("width", "assurance", "max_items"),
        )
    target = (width, confidence_level, assurance, max_items)
    return _result(values, target, method, at, found, plug_in_items, seed)


def _result(
    values: tuple[int, int, int, int],
    target: tuple[float, float, float, int],
    method: str,
    at: DrawAssurance,
    found: HybridItems,
    plug_in_items: int | None,
    seed: int,
) -> PilotUncertainty:
    """The :class:`PilotUncertainty` of a finished search."""
    width, confidence_level, assurance, max_items = target
    draws = at.union_rate.size
    per_draw = found.per_draw
    at_items = at(found.items).reshape(REPLICATES, -1).mean(axis=1)
    per_truth = {
        f"p{round(100 * q)}": int(np.quantile(per_draw, q, method="inverted_cdf"))
        for q in PERCENTILES
    }
    psa = 2 * at.jaccard / (1 + at.jaccard)
    notes = []
    if found.mc_se > MAX_RELATIVE_SE * found.items:
        why = (
            f" (the lattices stopped at the bound of {MAX_LATTICE_CELLS:,} draw-by-union-"
            "positive cells, which keeps the search to seconds)"
            if found.bounded
            else ""
        )
        notes.append(
            f"the answer's Monte Carlo SE is {found.mc_se:.1f} items even with {draws:,} "
            f"posterior draws, more than {MAX_RELATIVE_SE:.1%} of it{why}"
        )
    return PilotUncertainty(
        counts=values,
        width=width,
        confidence_level=confidence_level,
        target_assurance=assurance,
        method=method,
        draws=draws,
        items=found.items,
        items_mc_se=found.mc_se,
        hybrid_assurance=float(at_items.mean()),
        hybrid_assurance_se=float(np.std(at_items, ddof=1) / np.sqrt(REPLICATES)),
        plug_in_items=plug_in_items,
        plug_in_hybrid_assurance=(
            None if plug_in_items is None else float(at(plug_in_items).mean())
        ),
        per_truth=per_truth,
        psa_posterior={f"p{q}": float(np.quantile(psa, q / 100)) for q in (10, 50, 90)},
        unreachable_share=float(np.mean(per_draw > max_items)),
        seed=seed,
        notes=notes,
    )


def hybrid_assurance_curve(u: PilotUncertainty, items: list[int]) -> list[dict[str, float]]:
    """Hybrid assurance against items on the answer's own posterior draws (the lattices of
    ``u.seed``), at ``items``, ``u.items`` and the points
    :func:`planner.sizing.assurance_curve.refined_curve` adds; at ``u.items`` it is
    ``u.hybrid_assurance``."""
    from planner.sizing.assurance_curve import refined_curve

    cells = lattice_cells(u.counts, u.draws // u.replicates, np.random.default_rng(u.seed))
    at = DrawAssurance(cells, narrow_outcomes(u.width, u.confidence_level, u.method))
    return refined_curve(lambda n: float(at(n).mean()), [*items, u.items])
