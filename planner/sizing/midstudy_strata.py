"""A stratified study in progress: the remaining items per stratum, the first stage kept.

A stratified design labels stratum ``h`` at the design share ``a_h`` of the total and weights
it by its population share ``W_h`` (the population-weighted, linearised ratio interval of
:mod:`planner.statistics.stratified`, which ``agree --stratum-col`` reports). The first stage
holds ``n0_h`` items of each stratum with 2x2 counts ``(a, b, c, d)_h``. For a final total
``T`` each stratum is brought to its design share: ``m_h(T) = max(ceil(a_h T), floor) - n0_h``
more items (none when the first stage already holds more). The truth of each stratum is
drawn from its posterior ``Dirichlet(counts_h + 1/2)`` (Jeffreys), the second stage is
``Multinomial(m_h, p_h)``, and the hybrid assurance of ``T`` is the share of finished studies
whose weighted interval has half-width at most the width (the same random stream at every
``T``). :func:`plan_remaining_strata` gives the smallest ``T`` that reaches the target, each
stratum's remaining items, the interval now and the final interval's coverage of the truth's
population PSA ``2 sum W_h a_h / (2 sum W_h a_h + sum W_h (b_h + c_h))``.

**Is the first stage a sample of the design?** A chi-square goodness-of-fit test compares the
first stage's strata counts with ``n0 a_h``: ``X2 = sum_h (n0_h - n0 a_h)^2 / (n0 a_h)`` on
``H - 1`` degrees of freedom. Below :data:`SHARES_P_VALUE` a note says so, with the stratum
whose share differs most: the first stage was not drawn as the design says (an enriched start,
a stratum labelled first), and the remaining items restore the design's shares.

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
Cochran WG (1977) Sampling Techniques, 3rd ed. Wiley (5.9, the cost-optimal allocation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.operations.budget import Budget, stratified_budget
from planner.sizing.exact import usable_half_width
from planner.sizing.midstudy_settings import RemainingSettings
from planner.validation import RngLike, check_instance, seed_from

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from planner.sizing.midstudy_budget import BoughtItems
    from planner.sizing.midstudy_procedure import BatchProcedure
    from planner.sizing.plan import PlanSettings

#: below this p-value of the chi-square test the first stage's strata shares get a note
SHARES_P_VALUE = 0.01
#: the random stream of the simulated second stages
STAGE_STREAM = 7


@dataclass(frozen=True)
class StratumRemaining:
    """One stratum: its population share, design share, items in hand and still to label."""

    name: str
    share: float
    design_share: float
    labelled: int
    remaining: int
    union_positives: int

    @property
    def total(self) -> int:
        return self.labelled + self.remaining


@dataclass(frozen=True)
class SharesCheck:
    """The chi-square goodness of fit of the first stage's strata counts to the design's."""

    statistic: float
    df: int
    p_value: float
    stratum: str
    observed_share: float
    design_share: float


@dataclass(frozen=True)
class StratifiedRemaining:
    """How many more items a stratified study needs, stratum by stratum
    (:func:`plan_remaining_strata`); the attributes a pair's plan has mean the same."""

    strata: tuple[StratumRemaining, ...]
    metric: str
    width: float
    confidence_level: float
    target_assurance: float
    labelled_items: int
    estimate: float
    interval_now: tuple[float, float]
    half_width_now: float
    remaining_items: int
    total_items: int
    #: the design's total ``T`` the strata are brought to (``total_items`` is larger when the
    #: first stage holds more than ``a_h T`` of some stratum)
    design_total: int
    assurance: float
    assurance_se: float
    assurance_now: float
    final_coverage: float
    final_coverage_se: float
    budget: Budget
    shares_check: SharesCheck
    replicates: int
    seed: int
    notes: list[str] = field(default_factory=list)
    source: str = ""
    #: with ``batch_size``: the batch procedure
    #: (:func:`planner.sizing.midstudy_strata_procedure.strata_batch_procedure`)
    batches: BatchProcedure | None = None
    #: with ``hours`` or ``budget``: what they buy
    bought: BoughtItems | None = None

    @property
    def basis(self) -> str:
        return (
            f"{self.replicates:,} simulated second stages per stratum, each from its own "
            "posterior truth (Jeffreys), added to the first stage; population-weighted interval"
        )


def _weighted(tables: NDArray, shares: NDArray, level: float) -> Any:
    from planner.statistics.stratified import weighted_from_tables

    return weighted_from_tables("psa", tables.reshape(*tables.shape[:-1], 2, 2), shares, level)


def shares_check(labelled: NDArray, design: NDArray, names: list[str]) -> SharesCheck:
    """The chi-square goodness of fit of ``labelled`` (items per stratum) to ``design``."""
    from scipy import stats

    n0 = labelled.sum()
    expected = n0 * design
    statistic = float(((labelled - expected) ** 2 / expected).sum())
    worst = int(np.argmax(np.abs(labelled / n0 - design)))
    return SharesCheck(
        statistic=statistic,
        df=len(names) - 1,
        p_value=float(stats.chi2.sf(statistic, len(names) - 1)),
        stratum=names[worst],
        observed_share=float(labelled[worst] / n0),
        design_share=float(design[worst]),
    )


class _StratifiedStudies:
    """Finished studies for a final total ``T``: the first stage plus ``m_h(T)`` items of
    each stratum from its posterior truth; narrow and covering, per study."""

    def __init__(
        self, counts: NDArray, shares: NDArray, design: NDArray, floor: int, setting: Any
    ) -> None:
        self.counts, self.shares, self.design, self.floor = counts, shares, design, floor
        self.width, self.level, self.replicates, self.seed = setting
        rng = np.random.default_rng([self.seed, STAGE_STREAM])
        self.cells = np.stack(
            [rng.dirichlet(c + 0.5, size=self.replicates) for c in counts], axis=1
        )  # (R, H, 4)
        w = shares[None, :, None] * self.cells
        pop = w.sum(axis=1)
        self.truth = 2 * pop[:, 0] / (2 * pop[:, 0] + pop[:, 1] + pop[:, 2])
        self._seen: dict[int, tuple[float, float]] = {}

    def more(self, total: int) -> NDArray[np.int64]:
        """``m_h(T)``: the items each stratum still needs to reach its design share of ``T``."""
        wanted = np.maximum(np.ceil(self.design * total - 1e-9), self.floor)
        return np.maximum(wanted.astype(np.int64) - self.counts.sum(axis=1), 0)

    def intervals(self, total: int) -> Any:
        """The finished studies' weighted intervals at the final total ``T``."""
        rng = np.random.default_rng([self.seed, STAGE_STREAM, 1])
        tables = np.repeat(self.counts[None].astype(np.int64), self.replicates, axis=0)
        for h, m in enumerate(self.more(total)):
            if m:
                tables[:, h] += rng.multinomial(int(m), self.cells[:, h])
        return _weighted(tables, self.shares, self.level)

    def coverage_stopping_now(self) -> float:
        """The coverage of the study that stops at its first stage: the first stage's own
        interval against each posterior truth (no stratum is topped up)."""
        ci = _weighted(self.counts.astype(float), self.shares, self.level)
        with np.errstate(invalid="ignore"):
            covers = (ci.low <= self.truth + 1e-12) & (self.truth - 1e-12 <= ci.high)
        return float(np.mean(covers))

    def __call__(self, total: int) -> tuple[float, float]:
        """``(assurance, coverage)`` at the final total ``T``."""
        if total not in self._seen:
            ci = self.intervals(total)
            narrow = usable_half_width((ci.high - ci.low) / 2) <= self.width
            with np.errstate(invalid="ignore"):
                covers = (ci.low <= self.truth + 1e-12) & (self.truth - 1e-12 <= ci.high)
            self._seen[total] = (float(np.mean(narrow)), float(np.mean(covers)))
        return self._seen[total]


@dataclass(frozen=True)
class StrataStage:
    """A stratified study's first stage and design: ``counts`` ``(H, 4)`` per stratum
    ``(both, a_only, b_only, neither)``; the strata's ``names``, population ``shares`` and the
    design's ``design_shares`` (both summing to 1); ``floor_items``, the fewest items the
    design gives any stratum; ``seconds_per_item`` per stratum (``None``: the settings')."""

    counts: ArrayLike
    names: list[str]
    shares: ArrayLike
    design_shares: ArrayLike
    floor_items: int = 0
    seconds_per_item: ArrayLike | None = None


def plan_remaining_strata(
    stage: StrataStage,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    rng: RngLike = None,
) -> StratifiedRemaining:
    """The items still to label in each stratum of a stratified design (module docstring).

    Parameters
    ----------
    stage
        The first stage and the design (:class:`StrataStage`).
    plan_settings
        The final weighted interval's target ``width``, ``confidence_level`` and
        ``assurance``; the budget of the remaining items (``annotators_per_item``,
        ``seconds_per_item`` unless the stage gives them per stratum,
        ``adjudication_seconds``, ``hourly_rate``); ``max_items`` (largest total searched)
        and ``replicates`` (simulated studies per total).
    remaining
        ``batch_size``: adds the batch procedure simulated to its end
        (:func:`planner.sizing.midstudy_strata_procedure.strata_batch_procedure`);
        ``hours`` or ``budget``: what they buy, allocated by the design
        (:func:`planner.sizing.midstudy_strata_budget.strata_bought`).
    rng
        The random source.

    Raises ``InvalidInput`` (named by its parameter) or ``TargetUnreachable``.
    """
    from planner.sizing.midstudy_strata_budget import strata_bought
    from planner.sizing.plan import PlanSettings

    s = plan_settings if plan_settings is not None else PlanSettings()
    check_instance("plan_settings", s, PlanSettings, "a PlanSettings")
    table, w, a = _checked_strata(stage.counts, stage.names, stage.shares, stage.design_shares)
    names, floor_items = stage.names, stage.floor_items
    width, level, target = s.width, s.confidence_level, s.assurance
    max_items, replicates = s.max_items, s.replicates
    seconds_per_item = (
        s.seconds_per_item if stage.seconds_per_item is None else stage.seconds_per_item
    )
    annotators_per_item, adjudication_seconds, hourly_rate = (
        s.annotators_per_item, s.adjudication_seconds, s.hourly_rate,
    )  # fmt: skip
    seed = seed_from(rng)
    now = _weighted(table.astype(float), w, level)
    half_now = float(usable_half_width((now.high - now.low) / 2))
    studies = _StratifiedStudies(table, w, a, int(floor_items), (width, level, replicates, seed))
    n0 = int(table.sum())
    total = n0 if half_now <= width else _smallest_total(studies, target, n0, max_items)
    more = studies.more(total) if total > n0 else np.zeros(len(names), dtype=np.int64)
    reached, coverage = studies(total) if total > n0 else (1.0, studies.coverage_stopping_now())
    check_shares = shares_check(table.sum(axis=1), a, list(names))
    strata = tuple(
        StratumRemaining(n, float(wh), float(ah), int(t.sum()), int(m), int(t[:3].sum()))
        for n, wh, ah, t, m in zip(names, w, a, table, more, strict=True)
    )
    contested = (table[:, 1] + table[:, 2]) / np.maximum(table.sum(axis=1), 1)
    seconds = np.broadcast_to(np.asarray(seconds_per_item, dtype=float), w.shape)
    budget = stratified_budget(
        more, seconds, contested, annotators_per_item=annotators_per_item,
        adjudication_seconds=adjudication_seconds, hourly_rate=hourly_rate,
    )  # fmt: skip
    bought = strata_bought(studies, (seconds, contested), s, remaining, list(names))
    result = StratifiedRemaining(
        strata=strata, metric="psa", width=width, confidence_level=level,
        target_assurance=target, labelled_items=n0, estimate=float(now.estimate),
        interval_now=(float(now.low), float(now.high)), half_width_now=half_now,
        remaining_items=int(more.sum()), total_items=n0 + int(more.sum()), assurance=reached,
        design_total=int(total),
        assurance_se=math.sqrt(reached * (1 - reached) / replicates),
        assurance_now=float(half_now <= width), final_coverage=coverage,
        final_coverage_se=math.sqrt(coverage * (1 - coverage) / replicates), budget=budget,
        shares_check=check_shares, replicates=replicates, seed=seed,
        notes=_shares_note(check_shares), bought=bought,
    )  # fmt: skip
    return _with_batches(result, stage, s, remaining)


def _with_batches(
    result: StratifiedRemaining,
    stage: StrataStage,
    settings: PlanSettings,
    remaining: RemainingSettings | None,
) -> StratifiedRemaining:
    """The plan with its batch procedure (``remaining.batch_size``): the same seed, so the
    same posterior truths as the plan's finished studies."""
    if remaining is None or remaining.batch_size is None:
        return result
    from dataclasses import replace

    from planner.sizing.midstudy_strata_procedure import strata_batch_procedure

    batches = strata_batch_procedure(stage, settings, remaining, rng=result.seed)
    return replace(result, batches=batches, notes=[*result.notes, *batches.notes])


def _checked_strata(
    counts: Any, names: list[str], shares: Any, design_shares: Any
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    table = np.asarray(counts, dtype=np.int64)
    w, a = np.asarray(shares, dtype=float), np.asarray(design_shares, dtype=float)
    if table.ndim != 2 or table.shape[1] != 4 or not len(names) == table.shape[0] == w.size:
        raise InvalidInput("counts takes four counts per stratum", parameter="counts")
    if a.shape != w.shape or np.any(a <= 0) or abs(a.sum() - 1) > 1e-6:
        raise InvalidInput(
            "design_shares must be one positive share per stratum, summing to 1",
            parameter="design_shares",
        )
    return table, w, a


def _smallest_total(studies: _StratifiedStudies, target: float, n0: int, max_items: int) -> int:
    from planner.sizing.sample_size_search import smallest_passing_near

    def passes(total: int) -> bool:
        return studies(total)[0] >= target

    try:
        return int(smallest_passing_near(passes, 2 * n0, max_items))
    except TargetUnreachable:
        raise TargetUnreachable(
            f"width {studies.width:g} is not reached with assurance {target:g} below "
            f"max_items {max_items}",
            parameters=("width", "assurance", "max_items"),
        ) from None


def _shares_note(c: SharesCheck) -> list[str]:
    if c.p_value >= SHARES_P_VALUE:
        return []
    return [
        f"the first stage does not look like a random sample of the design: its strata shares "
        f"differ from the design's (chi-square goodness of fit {c.statistic:.1f} on {c.df} df, "
        f"p = {c.p_value:.2g}; most in {c.stratum!r}, {c.observed_share:.1%} of the items in "
        f"hand against the design's {c.design_share:.1%}); the remaining items bring each "
        "stratum to its design share, and the weighted interval counts each by its population "
        "share"
    ]


def design_of(scenario: Any) -> dict[str, Any]:
    """A stratified scenario's design: names, population shares, the population-weighted
    design's cost-optimal shares ``a_h ~ W_h S_h / sqrt(c_h)`` (as ``plan`` sizes it), its
    floor, each stratum's seconds per item, and the ``[target]`` and ``[budget]`` settings."""
    from planner.sizing.compare import Strata
    from planner.sizing.design import optimal_allocation, residual_sd
    from planner.sizing.plan import PlanSettings

    if not scenario.strata:
        raise InvalidInput(
            f"{scenario.path}: a stratified study in progress needs a scenario with [[strata]]",
            parameter="scenario",
        )
    if getattr(scenario, "annotators", None) is not None:
        raise InvalidInput(
            f"{scenario.path}: a stratified study in progress is planned for two annotators; "
            "this scenario's [annotators] label every item of its strata, which the plan of the "
            "remaining items does not take yet",
            parameter="scenario",
        )
    budget = scenario.budget
    settings = PlanSettings(seconds_per_item=float(budget.get("seconds_per_item", 90.0)))
    strata = Strata.of(scenario, settings)
    cells = np.array([np.asarray(m.cells, dtype=float).reshape(4) for m in strata.models])
    population = np.asarray(strata.population.cells, dtype=float).reshape(4)
    sds = residual_sd("psa", cells, population)
    allocation = optimal_allocation(strata.shares, sds, strata.seconds, 1.0)
    target = scenario.target
    return {
        "names": [s.name for s in scenario.strata],
        "shares": strata.shares,
        "design_shares": allocation / allocation.sum(),
        "floor_items": int(scenario.design.get("floor_items", 0)),
        "seconds_per_item": strata.seconds,
        "settings": {
            "width": target.get("width"),
            "confidence_level": target.get("confidence"),
            "assurance": target.get("assurance"),
            "annotators_per_item": budget.get("annotators_per_item"),
            "adjudication_seconds": budget.get("adjudication_seconds"),
            "hourly_rate": budget.get("hourly_rate"),
        },  # fmt: skip
    }


def stratum_counts(
    ratings: Any, stratum_col: str, names: list[str], positive: Any
) -> NDArray[np.int64]:
    """``(H, 4)`` ``(both, a_only, b_only, neither)`` per stratum of a pair's label file, the
    strata in the order of ``names`` (every value of the column must be one)."""
    from planner.measuring.stratified import check_population_shares, stratum_pair_tables

    if ratings.n_annotators != 2 or ratings.n_categories != 2:
        raise InvalidInput(
            f"{ratings.source}: a stratified study in progress is planned for two annotators "
            f"and two labels, found {ratings.n_annotators} and {ratings.n_categories}",
            parameter="labelled",
        )
    if stratum_col not in ratings.groups:
        raise InvalidInput(
            f"stratum_col {stratum_col!r} is not a column read from {ratings.source}",
            parameter="stratum_col",
        )
    text = np.asarray([str(v) for v in ratings.groups[stratum_col]])
    found = sorted(set(text.tolist()))
    check_population_shares({n: 1 / len(names) for n in names}, found, stratum_col, ratings.source)
    index = {n: i for i, n in enumerate(names)}
    tables = stratum_pair_tables(ratings, np.array([index[t] for t in text]), len(names))
    labels = [str(c).lower() for c in ratings.categories]
    chosen = positive if positive is not None else next(
        (p for p in ("1", "true") if p in labels and set(labels) <= {"0", "1", "false", "true"}),
        None,
    )  # fmt: skip
    if chosen is None or str(chosen).lower() not in labels:
        raise InvalidInput(
            f"positive must name the positive label, one of {', '.join(labels)}",
            parameter="positive",
        )
    if labels.index(str(chosen).lower()) == 1:  # positive first: (both, a_only, b_only, neither)
        tables = tables[:, ::-1, ::-1]
    return np.ascontiguousarray(tables).reshape(len(names), 4)


def plan_remaining_strata_from_file(
    path: str,
    scenario: Any,
    stratum_col: str,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    remaining: RemainingSettings | None = None,
    **plan: Any,
) -> StratifiedRemaining:
    """:func:`plan_remaining_strata` from a pair's label file with a stratum column and a
    stratified scenario (a path or a shipped name): the design is the scenario's
    population-weighted design (:func:`design_of`); ``plan`` overrides its ``[target]`` and
    ``[budget]`` settings; ``remaining`` as :func:`plan_remaining_strata` takes it."""
    from dataclasses import replace

    from planner.data.scenario import load_scenario
    from planner.sizing.plan import PlanSettings
    from planner.sizing.raters_pilot import read_raters_ratings

    design = design_of(load_scenario(scenario))
    options = dict(reader or {})
    options["by"] = (*options.get("by", ()), stratum_col)
    ratings = read_raters_ratings(path, options)
    counts = stratum_counts(ratings, stratum_col, design["names"], positive)
    settings = {k: v for k, v in design["settings"].items() if v is not None}
    settings.update({k: v for k, v in plan.items() if v is not None})
    rng = settings.pop("rng", None)
    stage = StrataStage(
        counts, design["names"], design["shares"], design["design_shares"],
        floor_items=design["floor_items"], seconds_per_item=design["seconds_per_item"],
    )  # fmt: skip
    result = plan_remaining_strata(stage, PlanSettings(**settings), remaining, rng=rng)
    return replace(result, source=str(ratings.source), notes=[*ratings.notes, *result.notes])
