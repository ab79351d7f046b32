"""Planning Cohen's kappa under pilot uncertainty: hybrid assurance by Monte Carlo.

The PSA plan under pilot uncertainty (:mod:`planner.sizing.uncertainty`) is exact because a
PSA interval depends only on ``(a, U)``. A kappa interval depends on the whole table, so here
the hybrid assurance at ``n`` items,

    ``E_p[P(half-width <= width | n, p)]``,  ``p ~ Dirichlet(counts + 1/2)`` (Jeffreys),

is estimated by simulation: each of the simulated studies gets its **own** posterior
truth ``p_r`` and is drawn as ``multinomial(n, p_r)``, so the share of narrow intervals is an
unbiased estimate of the hybrid assurance. The truths are randomised quasi-Monte Carlo
draws (:func:`sobol_posterior_cells`): digitally shifted Sobol points ``u_r`` in
``(0, 1)^4`` mapped to the Dirichlet through gamma quantiles,
``g_rk = F^{-1}_{Gamma(alpha_k)}(u_rk)``, ``p_r = g_r / sum_k g_rk``; they fill the
posterior more evenly than iid draws, so the posterior's part of the Monte Carlo variance
falls (the studies' own multinomial noise stays). The number of draws is
:func:`posterior_draws`: the power of two at or above ``2 replicates`` (Sobol points balance at
powers of two; 8,192 at the default 4,000), fewer when ``draws x plug-in items`` would pass
:data:`~planner.sizing.uncertainty.MAX_DRAW_ITEMS` (a note says so). Over 12 seeds the
answer's spread is 0.13-0.31 % of ``n`` for widths 0.06-0.12 on three pilots, 0.58 % (one
item) at 178 items (coverage_study/kappa_pilot_error.py; iid draws at 4,000 gave
0.15-0.72 %; docs/methods/pilot-uncertainty.md 10.3b). The studies grow with ``n`` (common
random numbers: the study at ``n`` items holds the study at any smaller size, as
:class:`planner.sizing.studies.NestedStudies`), so the estimate moves smoothly with ``n``
and a bisection over ``n`` is monotone up to Monte Carlo noise.

The items each plausible truth needs (their percentiles) come from a cheap per-draw
approximation, not a search per draw: the large-sample (Fleiss, Cohen & Everitt 1969)
items ``z^2 Q(p) / width^2`` of each draw, scaled by the ratio of the plug-in plan's
searched items to the same approximation at the pilot's own proportions (so that the
assurance and the small-sample behaviour of the chosen interval, calibrated at the pilot's
point, carry over to the draws). The result says so (``per_truth_basis``).

References
----------
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.renamed import renamed_field
from planner.sizing.exact import reaches_width
from planner.sizing.plan import PlanSettings
from planner.sizing.sample_size_search import crossing_standard_error, first_crossing
from planner.sizing.studies import NestedPatternStudies
from planner.sizing.uncertainty import (
    MAX_DRAW_ITEMS,
    MAX_RELATIVE_SE,
    PERCENTILES,
    checked_counts,
    pilot_counts_of,
    target_of,
)
from planner.statistics.intervals import (
    KAPPA_METHODS,
    kappa_interval,
    kappa_standard_error,
    normal_quantile,
)
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

#: how the per-truth percentiles are computed, in words (said in the output)
PER_TRUTH_BASIS = (
    "large-sample (FCE) items of each posterior draw, calibrated by the plug-in plan's "
    "searched items at the pilot's proportions"
)


#: fewest posterior draws, however far the work bound binds
MIN_DRAWS = 1024


def posterior_draws(replicates: int, plug_in_items: int) -> int:
    """Posterior draws of the kappa plan: the power of two at or above ``2 replicates``, halved
    while ``draws x plug_in_items`` passes :data:`~planner.sizing.uncertainty.MAX_DRAW_ITEMS`
    (at least :data:`MIN_DRAWS`).

    >>> posterior_draws(4000, 1341), posterior_draws(4000, 20000)
    (8192, 2048)
    """
    draws = 1 << max(0, math.ceil(math.log2(2 * replicates)))
    while draws > MIN_DRAWS and draws * plug_in_items > MAX_DRAW_ITEMS:
        draws //= 2
    return draws


#: Sobol's first four dimensions (Joe & Kuo 2008, new-joe-kuo-6.21201): the degree ``s``,
#: the polynomial's inner coefficients ``a`` and the initial direction numbers ``m``
#: (the first dimension is van der Corput's, every ``m_k = 1``)
SOBOL_DIMENSIONS = ((1, 0, (1,)), (2, 1, (1, 3)), (3, 1, (1, 3, 1)))
SOBOL_BITS = 32


def _direction_numbers(degree: int, inner: int, initial: tuple[int, ...]) -> list[int]:
    """``v_k = m_k 2^(32 - k)``, ``m_k = 2 a_1 m_(k-1) ^ ... ^ 2^s m_(k-s) ^ m_(k-s)``."""
    m = list(initial)
    for k in range(degree, SOBOL_BITS):
        new = m[k - degree] ^ (m[k - degree] << degree)
        for j in range(1, degree):
            if (inner >> (degree - 1 - j)) & 1:
                new ^= m[k - j] << j
        m.append(new)
    return [m[k] << (SOBOL_BITS - 1 - k) for k in range(SOBOL_BITS)]


def sobol_points(n: int, rng: np.random.Generator) -> NDArray:
    """``(n, 4)`` digitally shifted Sobol points in ``(0, 1)^4``.

    Point ``i`` is ``x_i = XOR_k [bit k of i] v_k`` per dimension (Sobol 1967; direction
    numbers :data:`SOBOL_DIMENSIONS`), XORed with a random 32-bit shift per dimension and
    jittered uniformly within its last binary digit: each point is uniform on the cube, the
    set keeps the net's balance (Owen 2003, "Quasi-Monte Carlo sampling").

    >>> u = sobol_points(8, np.random.default_rng(1))
    >>> np.sort(np.floor(u[:, 0] * 8)).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    """
    tables = [[1 << (SOBOL_BITS - 1 - k) for k in range(SOBOL_BITS)]]
    tables += [_direction_numbers(*d) for d in SOBOL_DIMENSIONS]
    v = np.array(tables, dtype=np.uint64)  # (4, bits)
    i = np.arange(n, dtype=np.uint64)
    x = np.zeros((n, 4), dtype=np.uint64)
    for k in range(max(1, int(n - 1).bit_length())):
        x ^= np.where(((i >> np.uint64(k)) & np.uint64(1))[:, None] == 1, v[:, k], np.uint64(0))
    shift = rng.integers(0, 1 << SOBOL_BITS, size=4, dtype=np.uint64)
    return ((x ^ shift).astype(float) + rng.random((n, 4))) / float(1 << SOBOL_BITS)


def sobol_posterior_cells(counts: tuple[int, ...], draws: int, rng: np.random.Generator) -> NDArray:
    """``(draws, 4)`` randomised quasi-Monte Carlo draws of ``Dirichlet(counts + 1/2)``.

    Shifted Sobol points ``u`` (:func:`sobol_points`) through the gamma quantile
    functions, ``g_k = F^{-1}(u_k; alpha_k)``, normalised: ``p = g / sum_k g_k``
    (a Dirichlet is independent gammas normalised; Devroye 1986, XI.4.1).
    """
    from scipy import special

    alpha = np.asarray(counts, dtype=float) + 0.5
    u = np.clip(sobol_points(draws, rng), 1e-15, 1 - 1e-15)
    gammas = special.gammaincinv(alpha, u)  # the Gamma(alpha, 1) quantile of u
    return gammas / gammas.sum(axis=1, keepdims=True)


class PosteriorStudies(NestedPatternStudies):
    """Simulated studies, each with its own truth (a row of ``cells``), that grow with ``n``.

    The nested pattern-count studies of :mod:`planner.sizing.studies` over four cells, one
    truth per study, drawn from ``rng`` itself; ``tables(n)`` is ``(R, 2, 2)``: study ``r``
    after its first ``n`` items.
    """

    def __init__(self, cells: NDArray, rng: np.random.Generator) -> None:
        cells = np.asarray(cells, dtype=float)
        super().__init__(
            cells, len(cells), rng=rng, keep_every_size=True, dtype=np.int64, one_stream=True
        )
        self.cells = cells

    def tables(self, n_items: int) -> NDArray:
        """The ``(R, 2, 2)`` tables of the studies after ``n_items`` items."""
        return self.counts(n_items).reshape(-1, 2, 2)


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class KappaPilotUncertainty:
    """The kappa plan under pilot uncertainty (see the module's docstring).

    ``items`` is the smallest ``n`` whose simulated hybrid assurance reaches the target;
    ``hybrid_assurance`` that estimate at ``items`` (``standard_error`` its Monte Carlo
    error), ``plug_in_hybrid_assurance`` the same at the plug-in plan's items. ``items_mc_se``
    is the Monte Carlo standard error of ``items`` by the delta method: ``standard_error``
    divided by the slope of the simulated assurance around ``items``,
    ``(A(n + h) - A(n - h)) / 2h`` with ``h`` about 5 % of ``n``. ``per_truth``: percentiles of
    the items each posterior draw needs, by :data:`PER_TRUTH_BASIS`. ``replicates`` is the
    number of posterior draws (one study each, :func:`posterior_draws`); the SEs use the iid
    binomial formula, which the quasi-random draws do not exceed (a conservative figure).
    """

    counts: tuple[int, int, int, int]
    width: float
    confidence_level: float
    target_assurance: float
    method: str
    replicates: int
    items: int
    hybrid_assurance: float
    standard_error: float
    items_mc_se: float
    plug_in_items: int
    plug_in_hybrid_assurance: float
    per_truth: dict[str, int]
    kappa_posterior: dict[str, float]
    seed: int
    metric: str = "kappa"
    per_truth_basis: str = PER_TRUTH_BASIS
    prior: str = "Jeffreys: Dirichlet(counts + 1/2)"
    notes: list[str] = field(default_factory=list)

    @property
    def basis(self) -> str:
        """How the answer is computed, in words."""
        return (
            f"randomised quasi-Monte Carlo over {self.replicates:,} posterior draws (shifted "
            "Sobol points mapped to the Dirichlet through gamma quantiles), one simulated "
            "study of each (nested across n: common random numbers)"
        )

    @property
    def explanation(self) -> str:
        """What the difference between the answers means, in words."""
        p50, p90 = self.per_truth["p50"], self.per_truth["p90"]
        return (
            f"averaged over what the pilot leaves open, {self.items:,} items "
            f"(± {self.items_mc_se:.0f} Monte Carlo SE) reach the kappa "
            f"width with probability {self.target_assurance:g}; half of the plausible truths "
            f"need at most about {p50:,} items, and one in ten more than about {p90:,}; the "
            f"plug-in plan's {self.plug_in_items:,} items (if the pilot were the truth) reach "
            f"it with probability {self.plug_in_hybrid_assurance:.2f} once the pilot's "
            "uncertainty is counted"
        )


class HybridAssurance:
    """The simulated hybrid assurance at ``n`` items: the share of the studies (each with its
    own posterior truth) whose kappa interval reaches the width; kept per ``n``."""

    def __init__(
        self, studies: PosteriorStudies, width: float, confidence_level: float, method: str
    ) -> None:
        self.studies, self.width = studies, width
        self.confidence_level, self.method = confidence_level, method
        self.evaluated: dict[int, float] = {}

    def __call__(self, n: int) -> float:
        if n not in self.evaluated:
            ci = kappa_interval(self.studies.tables(n), self.confidence_level, self.method)
            self.evaluated[n] = float(np.mean(reaches_width(ci.half_width, self.width)))
        return self.evaluated[n]


def _per_truth(
    cells: NDArray, counts: tuple[int, ...], width: float, level: float, plug_in: int
) -> dict[str, int]:
    """Percentiles of each draw's items by :data:`PER_TRUTH_BASIS`."""
    z = normal_quantile(level)
    q_draws = np.asarray(kappa_standard_error(cells.reshape(-1, 2, 2)), dtype=float) ** 2
    pilot = np.asarray(counts, dtype=float) / sum(counts)
    q_pilot = float(kappa_standard_error(pilot.reshape(2, 2))) ** 2
    scale = plug_in / max(z * z * q_pilot / width**2, 1.0)
    needs = np.ceil(scale * z * z * np.where(np.isfinite(q_draws), q_draws, np.inf) / width**2)
    return {
        f"p{round(100 * q)}": int(min(np.quantile(needs, q, method="inverted_cdf"), 2**62))
        for q in PERCENTILES
    }


def _checked_method(method: str) -> str:
    method = check_choice("kappa_method", method, KAPPA_METHODS)
    if method == "bootstrap":
        raise InvalidInput(
            "kappa_method bootstrap is too slow for the plan under pilot uncertainty; use score, "
            "gof or fce",
            parameter="kappa_method",
        )
    return method


def kappa_items_under_uncertainty(
    pilot: Any,
    settings: PlanSettings | None = None,
    *,
    plug_in_items: int,
    rng: RngLike = None,
) -> KappaPilotUncertainty:
    """Items for Cohen's kappa whose hybrid assurance over the pilot's posterior reaches the
    target, by Monte Carlo (see the module's docstring).

    Parameters
    ----------
    pilot
        Pilot counts ``(both, a_only, b_only, neither)``, or a
        :class:`~planner.sizing.model.PairModel` made from them.
    settings
        The target (:class:`~planner.sizing.plan.PlanSettings`): ``width`` (half-width of
        the kappa interval), ``confidence_level``, ``assurance``, ``kappa_method`` (one of
        :data:`KAPPA_METHODS` but the bootstrap), ``replicates`` (the simulated studies, each with
        its own posterior truth, are :func:`posterior_draws` of it) and ``max_items``
        (largest ``n`` searched). ``None``: the defaults.
    plug_in_items
        The plug-in plan's kappa items: the search's start, and the calibration of the
        per-truth approximation.
    rng
        Anything :func:`numpy.random.default_rng` takes; the seed used is recorded, the
        posterior truths and the studies come from ``numpy.random.default_rng(seed).spawn(2)``,
        and :func:`planner.sizing.plan.make_plan` passes the plan's own seed.

    Raises
    ------
    TargetUnreachable
        The hybrid assurance stays below the target up to ``max_items``.
    """
    settings = PlanSettings() if settings is None else settings
    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    values = checked_counts(pilot_counts_of(pilot))
    width, confidence_level, assurance, max_items = target_of(settings)
    method = _checked_method(settings.kappa_method)
    plug_in_items = check("plug_in_items", plug_in_items, RULES["max_items"])
    replicates = posterior_draws(settings.replicates, plug_in_items)
    seed = seed_from(rng)
    truth_rng, study_rng = np.random.default_rng(seed).spawn(2)
    cells = sobol_posterior_cells(values, replicates, truth_rng)
    assurance_at = HybridAssurance(
        PosteriorStudies(cells, study_rng), width, confidence_level, method
    )
    items = first_crossing(assurance_at, assurance, plug_in_items, max_items).n
    if items > max_items:
        raise _unreachable(width, assurance, max_items)
    reached = assurance_at(items)
    items_se = crossing_standard_error(
        assurance_at, items, replicates, max_value=max_items, flat=np.inf
    )
    kappas = np.asarray(_cohen_kappa(cells), dtype=float)
    return KappaPilotUncertainty(
        counts=values,
        width=width,
        confidence_level=confidence_level,
        target_assurance=assurance,
        method=method,
        replicates=replicates,
        items=items,
        hybrid_assurance=reached,
        standard_error=float(np.sqrt(reached * (1 - reached) / replicates)),
        items_mc_se=items_se,
        plug_in_items=plug_in_items,
        plug_in_hybrid_assurance=assurance_at(plug_in_items),
        per_truth=_per_truth(cells, values, width, confidence_level, plug_in_items),
        kappa_posterior={f"p{q}": float(np.nanquantile(kappas, q / 100)) for q in (10, 50, 90)},
        seed=seed,
        notes=_notes(settings.replicates, replicates, plug_in_items, items, items_se),
    )


def _notes(
    replicates: int, draws: int, plug_in_items: int, items: int, items_se: float
) -> list[str]:
    """A note when the work bound cut the draws, and when the answer's MC SE is above
    :data:`~planner.sizing.uncertainty.MAX_RELATIVE_SE` of it."""
    notes = []
    if draws < posterior_draws(replicates, 0):
        notes.append(
            f"{draws:,} posterior draws, not {posterior_draws(replicates, 0):,}: the work bound of "
            f"{MAX_DRAW_ITEMS:,} draws x items at the plug-in plan's {plug_in_items:,} items "
            "binds, which keeps the search to seconds"
        )
    if items_se > MAX_RELATIVE_SE * items:
        notes.append(
            f"the answer's Monte Carlo SE is {items_se:.1f} items with {draws:,} posterior "
            f"draws, more than {MAX_RELATIVE_SE:.1%} of it"
        )
    return notes


def _unreachable(width: float, assurance: float, max_items: int) -> TargetUnreachable:
    return TargetUnreachable(
        f"width {width:g} for kappa is not reached with hybrid assurance {assurance:g} "
        f"even at max_items {max_items}",
        parameters=("width", "assurance", "max_items"),
    )


def _cohen_kappa(cells: NDArray) -> NDArray:
    from planner.statistics.agreement import cohen_kappa

    return np.asarray(cohen_kappa(cells.reshape(-1, 2, 2)))
