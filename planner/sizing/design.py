"""Sampling designs over traffic strata: uniform, enriched, and stratified with weights.

Traffic is split into strata h with population shares ``W_h`` and cell probabilities
``p_h`` (a :class:`~planner.sizing.model.PairModel` each). Three designs answer different
questions (docs/methods/stratified-sampling.md section 3):

* **uniform**: items drawn at random from all traffic; the pooled table estimates
  agreement on traffic.
* **enriched**: strata sampled at chosen shares ``a_h`` (dense strata oversampled); the
  pooled, *unweighted* PSA describes the enriched mixture (hard cases), not traffic; each
  stratum's own PSA describes that stratum. A uniform slice is added to estimate prevalence.
* **weighted**: the same stratified sample with population weights ``W_h / n_h``: the
  combined ratio estimator ``g(sum_h W_h p_h_hat)`` describes traffic, with the
  Taylor-linearised variance ``V = sum_h W_h^2 S_h^2 / n_h`` (``S_h`` the within-stratum SD
  of the linearised residual ``u = grad g . e_cell``) and the cost-optimal allocation
  ``n_h proportional to W_h S_h / sqrt(c_h)`` with a floor per stratum. The design is
  sized with the interval its analysis reports (:func:`weighted_estimate`: a t interval
  with Satterthwaite's df on the logit scale, as ``planner agree --stratum-col``).

References
----------
Cochran WG (1977) Sampling Techniques, 3rd ed. Wiley. (Combined ratio estimator, optimum
    allocation.)
Sawade C, Landwehr N, Scheffer T (2010) Active estimation of F-measures. NIPS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing.exact import reaches_width, usable_half_width
from planner.sizing.model import PairModel
from planner.sizing.sample_size_search import smallest_passing
from planner.sizing.studies import NestedPatternStudies
from planner.statistics.stratified import weighted_from_tables
from planner.validation import MAX_STRATA, RULES, Rule, check, check_strata_effort

#: the search's first total: a whole number >= 1
_START = Rule("integer", lambda x: x >= 1, "a whole number >= 1")

FloatArray = NDArray[np.float64]
METRIC_GRADIENTS = ("psa", "kappa")


# --------------------------------------------------------------------------- estimator


def _cells(p: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    q = np.asarray(p, dtype=float)
    return q[..., 0], q[..., 1], q[..., 2], q[..., 3]


def metric_value(metric: str, cells: ArrayLike) -> FloatArray:
    """PSA or Cohen's kappa of ``(..., 4)`` cell proportions."""
    a, b, c, d = _cells(cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "psa":
            return 2 * a / (2 * a + b + c)
        p_a, p_b = a + b, a + c
        p_o = a + d
        p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
        return (p_o - p_e) / (1 - p_e)


def metric_gradient(metric: str, cells: ArrayLike) -> FloatArray:
    """Gradient ``dg/dp`` of PSA or kappa at ``(..., 4)`` cell proportions, shape ``(..., 4)``.

    PSA: ``(2(b+c), -2a, -2a, 0) / (2a+b+c)^2``. Kappa: ``dp_o/(1-p_e) - (1-p_o) dp_e/(1-p_e)^2``
    with ``dp_o = (1,0,0,1)`` and ``dp_e = (2p_B-1)(1,1,0,0) + (2p_A-1)(1,0,1,0)``.
    """
    a, b, c, d = _cells(cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "psa":
            x2 = (2 * a + b + c) ** 2
            return np.stack([2 * (b + c) / x2, -2 * a / x2, -2 * a / x2, 0 * a], axis=-1)
        p_a, p_b = a + b, a + c
        p_o = a + d
        p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
        one = np.ones_like(a)
        dpo = np.stack([one, 0 * a, 0 * a, one], axis=-1)
        dpe = (2 * p_b - 1)[..., None] * np.array([1.0, 1, 0, 0]) + (2 * p_a - 1)[
            ..., None
        ] * np.array([1.0, 0, 1, 0])
        return dpo / (1 - p_e)[..., None] - ((1 - p_o) / (1 - p_e) ** 2)[..., None] * dpe


def residual_sd(metric: str, stratum_cells: ArrayLike, population_cells: ArrayLike) -> FloatArray:
    """Within-stratum SD ``S_h`` of the linearised residual ``u = grad g(p) . e_cell``.

    ``stratum_cells`` ``(..., H, 4)``; ``population_cells`` ``(..., 4)``.
    """
    p_h = np.asarray(stratum_cells, dtype=float)
    u = metric_gradient(metric, population_cells)[..., None, :]
    mean = (p_h * u).sum(axis=-1)
    second = (p_h * u * u).sum(axis=-1)
    return np.sqrt(np.maximum(second - mean**2, 0.0))


#: the analysis's name (:mod:`planner.statistics.stratified`) of each design metric
ANALYSIS_NAMES = {"psa": "psa", "kappa": "cohen_kappa"}


def weighted_estimate(
    metric: str, tables: ArrayLike, shares: ArrayLike, confidence_level: float = 0.95
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Combined ratio estimate and the analysis's interval from stratified tables.

    The interval is the one ``planner agree --stratum-col`` reports
    (:func:`planner.statistics.stratified.weighted_from_tables`): the linearised variance
    ``V = sum_h W_h^2 s_h^2 / n_h`` (``s_h`` the within-stratum sample SD, divisor
    ``n_h - 1``, of the linearised residual at the estimate), a t quantile with
    Satterthwaite's ``nu = V^2 / sum_h (W_h^2 s_h^2 / n_h)^2 / (n_h - 1)`` degrees of
    freedom, on the logit scale for PSA (``logit g +- t sqrt(V) / (g (1 - g))``) and on
    ``log(1 - kappa)`` for kappa (``+- t sqrt(V) / (1 - kappa)``), mapped back. Its
    half-width is ``(high - low) / 2``.

    Parameters
    ----------
    tables
        ``(..., H, 2, 2)`` counts per stratum (positive first).
    shares
        ``(H,)`` population shares ``W_h``.

    Returns
    -------
    estimate, low, high
        Arrays of the batch shape (undefined intervals are NaN).
    """
    name = ANALYSIS_NAMES[metric]
    with np.errstate(divide="ignore", invalid="ignore"):
        fit = weighted_from_tables(name, tables, shares, confidence_level)
    return fit.estimate, fit.low, fit.high


def stratified_resample_values(
    counts: NDArray,
    shares: ArrayLike,
    value: Callable[[NDArray], NDArray],
    *,
    n_boot: int,
    rng: np.random.Generator,
) -> NDArray:
    """``(n_boot, S)`` coefficient values of stratified resamples of ``(S, H, P)`` studies.

    Each resample draws ``n_h`` items with replacement inside every stratum (a multinomial
    of the stratum's observed pattern shares), pools the strata at their weights,
    ``sum_h W_h counts_h / n_h``, and takes ``value`` of those ``(n_boot, S, P)`` shares.
    """
    w = np.asarray(shares, dtype=float)
    n_h = counts.sum(axis=-1)  # (S, H)
    pooled = np.zeros((n_boot, counts.shape[0], counts.shape[-1]))
    for h in range(counts.shape[1]):
        n = n_h[:, h]
        draws = rng.multinomial(
            n.astype(np.int64), counts[:, h] / n[:, None], size=(n_boot, counts.shape[0])
        )
        pooled += w[h] * draws / n[None, :, None]
    return value(pooled)


def stratified_bootstrap_limits(
    metric: str,
    tables: ArrayLike,
    shares: ArrayLike,
    confidence_level: float = 0.95,
    *,
    n_boot: int = 500,
    rng: np.random.Generator | int | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Stratified percentile bootstrap limits for ``(..., H, 2, 2)`` samples
    (:func:`stratified_resample_values` of PSA or kappa), vectorised over the leading axes."""
    generator = np.random.default_rng(rng)
    t = np.asarray(tables, dtype=float)
    t = t.reshape(-1, t.shape[-3], 4)  # (S, H, 4)
    values = stratified_resample_values(
        t, shares, lambda p: metric_value(metric, p), n_boot=n_boot, rng=generator
    )
    tail = (1 - confidence_level) / 2
    lo, hi = np.nanquantile(values, [tail, 1 - tail], axis=0)
    batch = np.shape(tables)[:-3]
    return lo.reshape(batch), hi.reshape(batch)


def stratified_bootstrap_interval(
    metric: str,
    tables: ArrayLike,
    shares: ArrayLike,
    confidence_level: float = 0.95,
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
) -> tuple[float, float]:
    """Percentile interval resampling items within each stratum of one ``(H, 2, 2)`` sample."""
    lo, hi = stratified_bootstrap_limits(
        metric, tables, shares, confidence_level, n_boot=n_boot, rng=rng
    )
    return float(lo), float(hi)


# --------------------------------------------------------------------------- allocation


def optimal_allocation(
    shares: ArrayLike,
    sds: ArrayLike,
    costs: ArrayLike,
    total_cost: float,
    floor: float = 0.0,
) -> FloatArray:
    """Cost-constrained optimum ``n_h = C (W_h S_h / sqrt c_h) / sum_k W_k S_k sqrt c_k``.

    Minimises ``sum_h W_h^2 S_h^2 / n_h`` subject to ``sum_h c_h n_h = C``
    (docs/methods/stratified-sampling.md 3.3),
    with every stratum given at least ``floor`` items: strata the formula puts below the
    floor are fixed there and the rest is re-optimised with the remaining budget.

    >>> optimal_allocation([0.8, 0.15, 0.05], [1.0, 2.0, 4.0], [1, 1, 1], 1500).round(1)
    array([923.1, 346.2, 230.8])
    """
    w = np.asarray(shares, dtype=float)
    s = np.asarray(sds, dtype=float)
    c = np.asarray(costs, dtype=float)
    fixed = np.zeros(w.size, dtype=bool)
    n = np.zeros(w.size)
    for _ in range(w.size + 1):
        free = ~fixed
        budget = total_cost - floor * c[fixed].sum()
        weight = w[free] * s[free] / np.sqrt(c[free])
        denom = (w[free] * s[free] * np.sqrt(c[free])).sum()
        n[fixed] = floor
        n[free] = budget * weight / denom if denom > 0 else budget / c[free].sum()
        below = free & (n < floor)
        if not below.any():
            return n
        fixed |= below
    return n


def linearised_variance(shares: ArrayLike, sds: ArrayLike, items: ArrayLike) -> float:
    """``sum_h W_h^2 S_h^2 / n_h`` (no finite-population correction)."""
    w, s, n = (np.asarray(x, dtype=float) for x in (shares, sds, items))
    return float((w**2 * s**2 / n).sum())


# --------------------------------------------------------------------------- search


@dataclass(frozen=True)
class DesignResult:
    """A sized design: items per stratum and what they buy.

    ``coverage`` is the share of fresh simulated studies of the design's size whose interval
    holds the value the design describes (``coverage_mc_se`` its binomial Monte Carlo SE).
    """

    design: str
    describes: str
    items_per_stratum: list[int]
    prevalence_slice_items: int
    union_positives: float
    half_width_median: float
    half_width_at_assurance: float
    assurance: float
    estimate_median: float
    #: simulated coverage of the design's interval at its items (``None``: not simulated)
    coverage: float | None = None
    coverage_mc_se: float | None = None

    @property
    def items(self) -> int:
        return int(sum(self.items_per_stratum)) + self.prevalence_slice_items


#: the population each design's agreement figure describes
DESCRIBES = {
    "uniform": "agreement on traffic: items drawn at random from all strata",
    "enriched": (
        "agreement on the enriched sample (hard cases), not on traffic; per-stratum PSA "
        "describes each stratum; the uniform slice estimates prevalence"
    ),
    "weighted": (
        "agreement on traffic: the stratified sample re-weighted by population shares "
        "(combined ratio estimator; linearised t interval with Satterthwaite df on the logit "
        "scale, log(1 - kappa) for kappa, as agree reports it by stratum)"
    ),
}


def stratified_result(
    design: str,
    items: list[int],
    union: NDArray,
    half_widths: NDArray,
    estimates: NDArray,
    settings: Any,
    slice_items: int = 0,
    slice_union_rate: float = 0.0,
) -> DesignResult:
    """A design sized by :func:`size_stratified`: its items, union positives (each stratum's
    union rate ``union``, the prevalence slice's ``slice_union_rate``) and what its
    simulated studies' half-widths reach at ``settings``' width and assurance."""
    hw = usable_half_width(half_widths)  # undefined and zero-width count as too wide
    return DesignResult(
        design=design,
        describes=DESCRIBES[design],
        items_per_stratum=items,
        prevalence_slice_items=slice_items,
        union_positives=float(np.dot(items, union) + slice_items * slice_union_rate),
        half_width_median=float(np.median(hw)),
        # the smallest half-width reached by the assurance share (no interpolation towards
        # an infinite, degenerate study's "half-width")
        half_width_at_assurance=float(np.quantile(hw, settings.assurance, method="inverted_cdf")),
        assurance=float(np.mean(reaches_width(hw, settings.width))),
        estimate_median=float(np.nanmedian(estimates)),
    )


class StratifiedPatternStudies:
    """Nested replicate studies of label-pattern counts per stratum (common random numbers
    across sizes): a pair's four ordered cells or several annotators' count patterns.

    ``keep_every_size`` (with 64-bit counts) keeps every size read, as a pair's studies do;
    otherwise only the neighbours of the last
    (:class:`~planner.sizing.studies.NestedPatternStudies`).
    """

    def __init__(
        self,
        probabilities: list[FloatArray],
        replicates: int,
        rng: np.random.Generator,
        *,
        keep_every_size: bool = False,
    ) -> None:
        check_strata_effort(len(probabilities), replicates)
        streams = rng.spawn(len(probabilities))
        dtype = np.int64 if keep_every_size else np.int32
        self.studies = [
            NestedPatternStudies(p, replicates, rng=s, keep_every_size=keep_every_size, dtype=dtype)
            for p, s in zip(probabilities, streams, strict=True)
        ]

    def tables(self, items: list[int]) -> NDArray:
        """``(R, H, P)`` pattern counts for ``items[h]`` items in stratum h."""
        return np.stack([s.counts(n) for s, n in zip(self.studies, items, strict=True)], axis=1)


class StratifiedStudies(StratifiedPatternStudies):
    """Nested replicate studies of a pair per stratum, read as ``(R, H, 2, 2)`` tables."""

    def __init__(self, models: list[PairModel], replicates: int, rng: np.random.Generator) -> None:
        cells = [np.asarray(m.cells, dtype=float) for m in models]
        super().__init__(cells, replicates, rng, keep_every_size=True)

    def tables(self, items: list[int]) -> NDArray:
        """``(R, H, 2, 2)`` tables for ``items[h]`` items in stratum h."""
        counts = super().tables(items)
        return counts.reshape(*counts.shape[:-1], 2, 2)


def split_items(total: int, proportions: ArrayLike, floor: int = 0) -> list[int]:
    """``total`` items split by ``proportions`` (largest remainders), each at least ``floor``."""
    p = np.asarray(proportions, dtype=float)
    p = p / p.sum()
    raw = p * total
    n = np.floor(raw).astype(int)
    short = total - n.sum()
    if short > 0:
        n[np.argsort(raw - n)[::-1][:short]] += 1
    return [max(int(x), floor) for x in n]


@dataclass(frozen=True)
class StratifiedSearch:
    """The target and effort of a stratified design's size search (:func:`size_stratified`).

    Attributes
    ----------
    width, assurance
        The target: the half-width reached with probability ``assurance``.
    replicates, max_items
        Simulated studies per evaluated size, and the largest total searched.
    floor
        Least items per stratum (0: none).
    start
        The search's first total (a delta-method guess).

    Each value is checked by its rule in :data:`planner.validation.RULES` (``floor`` as
    ``floor_items``). The target and effort have no defaults here: they are the plan's
    (:meth:`of` takes them from its :class:`~planner.sizing.plan.PlanSettings`).
    """

    width: float
    assurance: float
    replicates: int
    max_items: int
    floor: int = 0
    start: int = 100

    def __post_init__(self) -> None:
        for name in ("width", "assurance", "replicates", "max_items"):
            check(name, getattr(self, name), RULES[name])
        check("floor_items", self.floor, RULES["floor_items"], parameter="floor_items")
        check("start", self.start, _START)

    @classmethod
    def of(cls, settings: Any, *, floor: int = 0, start: int = 100) -> StratifiedSearch:
        """The search for ``settings``' target and effort (``width``, ``assurance``,
        ``replicates``, ``max_items``: a :class:`~planner.sizing.plan.PlanSettings`)."""
        return cls(
            settings.width,
            settings.assurance,
            settings.replicates,
            settings.max_items,
            floor,
            start,
        )


def size_stratified(
    models: list[Any],
    proportions: ArrayLike,
    statistic: Callable[[NDArray], tuple[NDArray, NDArray]],
    search: StratifiedSearch,
    *,
    rng: np.random.Generator,
    studies: Callable[[list[Any], int, np.random.Generator], Any] = StratifiedPatternStudies,
) -> tuple[list[int], NDArray, NDArray]:
    """Smallest total whose split by ``proportions`` reaches the width at the assurance.

    ``models`` are each stratum's ``(P,)`` pattern probabilities, simulated by ``studies``
    (:class:`StratifiedPatternStudies` by default) as ``(R, H, P)`` pattern counts.
    ``statistic`` maps the replicate studies to their half-widths and
    estimates (one call, so a design computes its interval once per evaluated size);
    ``search`` holds the target, the effort, the floor per stratum and the first total.
    The search finds the smallest total ``N`` with
    ``mean_r [half_width_r(split(N)) <= width] >= assurance``, ``split(N)`` the largest
    remainders of ``N * proportions`` raised to ``floor``.
    Returns the items per stratum, and the half-widths and estimates at that size.
    """
    width, assurance, max_items = search.width, search.assurance, search.max_items
    floor, start, replicates = search.floor, search.start, search.replicates
    if floor * len(models) > max_items:
        raise InvalidInput(
            f"floor_items must leave the design within max_items {max_items:,}: "
            f"{floor:,} items in each of {len(models)} strata are {floor * len(models):,}",
            parameter="floor_items",
            value=floor,
        )
    simulated = studies(models, replicates, rng)
    cache: dict[int, tuple[NDArray, NDArray]] = {}

    def evaluate(total: int) -> tuple[NDArray, NDArray]:
        if total not in cache:
            tables = simulated.tables(split_items(total, proportions, floor))
            cache[total] = statistic(tables)
        return cache[total]

    def passes(total: int) -> bool:
        # an undefined or zero-width interval is never narrow enough
        return float(np.mean(reaches_width(evaluate(total)[0], width))) >= assurance

    try:
        total = smallest_passing(passes, start, max_items)
    except TargetUnreachable:
        raise TargetUnreachable(
            f"width {width:g} is not reached by this design within max_items {max_items}",
            parameters=("width", "max_items"),
        ) from None
    split = split_items(total, proportions, floor)
    if sum(split) > max_items:  # the floor raised some strata past the search's total
        raise TargetUnreachable(
            f"width {width:g} is not reached by this design within max_items {max_items} "
            f"(with {floor} items at least per stratum)",
            parameters=("width", "max_items"),
        )
    hw, est = evaluate(total)
    return split, hw, est


def check_strata(models: list[Any], shares: ArrayLike) -> None:
    """At least two and at most :data:`~planner.validation.MAX_STRATA` strata, shares
    summing to 1."""
    if len(models) < 2:
        raise InvalidInput("a stratified design needs at least two strata")
    if len(models) > MAX_STRATA:
        raise InvalidInput(
            f"a stratified design takes at most {MAX_STRATA:,} strata, got {len(models):,}",
            parameter="strata",
        )
    if not np.isclose(np.sum(shares), 1.0):
        raise InvalidInput("strata shares must sum to 1")
