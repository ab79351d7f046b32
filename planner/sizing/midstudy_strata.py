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

**Several annotators.** With ``M`` annotators over strata (each item labelled by all of them,
or by ``k`` drawn at random), a stratum's counts are its items per count pattern ``(k - j, j)``
(``j`` of the item's ``k`` labels positive), the posterior is ``Dirichlet(counts_h + 1/2)``
over those patterns, and the interval is the population-weighted one of specific positive
agreement (Uebersax) or Fleiss' kappa on the patterns' item features
(:func:`planner.statistics.stratified.weighted_from_pattern_counts`), whose truth is
``g(sum_h W_h E_h[y])``: :class:`StrataAnalysis` says which.

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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.operations.budget import Budget
from planner.sizing.exact import usable_half_width
from planner.sizing.midstudy_result import share_se
from planner.sizing.midstudy_settings import RemainingSettings
from planner.validation import RngLike, check_choice, check_instance, seed_from

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from planner.sizing.midstudy_budget import BoughtItems
    from planner.sizing.midstudy_procedure import BatchProcedure
    from planner.sizing.plan import PlanSettings
    from planner.sizing.team_cost import TeamPricing

#: below this p-value of the chi-square test the first stage's strata shares get a note
SHARES_P_VALUE = 0.01
#: the random stream of the simulated second stages
STAGE_STREAM = 7


@dataclass(frozen=True)
class StratumRemaining:
    """One stratum: its population share, design share, items in hand and still to label,
    and what its remaining items are priced at (seconds per item, and the share of items
    whose labels are not unanimous, adjudicated: the labels in hand's)."""

    name: str
    share: float
    design_share: float
    labelled: int
    remaining: int
    union_positives: int
    seconds_per_item: float
    contested_rate: float

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
    #: labels each item gets: a pair's 2, or several annotators' ``M`` (``k`` of ``M``)
    labels_per_item: int = 2
    #: the named team that billed ``budget`` person by person (None: the single rate)
    team: TeamPricing | None = field(default=None, repr=False)

    @property
    def team_priced(self) -> bool:
        """Whether a named team billed ``budget`` person by person (else the single rate)."""
        return self.team is not None

    @property
    def metric_name(self) -> str:
        """The coefficient in words: ``PSA`` or ``Fleiss' kappa``."""
        return "Fleiss' kappa" if self.metric == "fleiss" else "PSA"

    @property
    def basis(self) -> str:
        return (
            f"{self.replicates:,} simulated second stages per stratum, each from its own "
            "posterior truth (Jeffreys), added to the first stage; population-weighted interval"
        )


#: the metrics a stratified study in progress of several annotators sizes, as the weighted
#: analysis names them (a pair's sizes PSA)
PATTERN_METRICS = {"psa": "psa", "fleiss": "fleiss_kappa"}
#: category 1 of a count pattern ``(negatives, positives)`` is the positive label
POSITIVE = 1


@dataclass(frozen=True)
class StrataAnalysis:
    """What a stratum's counts are and how the weighted interval reads them: a pair's four
    cells ``(both, a_only, b_only, neither)`` (``patterns`` ``None``, PSA), or several
    annotators' items per count pattern, ``patterns`` ``(P, 2)`` (negatives, positives), for
    ``metric`` ``psa`` or ``fleiss``."""

    metric: str = "psa"
    patterns: NDArray[np.int64] | None = None

    @property
    def columns(self) -> int:
        """Counts per stratum: 4 cells, or one per pattern."""
        return 4 if self.patterns is None else len(self.patterns)

    def weighted(self, counts: NDArray, shares: NDArray, level: float) -> Any:
        """The population-weighted interval of ``(..., H, columns)`` counts."""
        from planner.statistics import stratified

        if self.patterns is None:
            tables = counts.reshape(*counts.shape[:-1], 2, 2)
            return stratified.weighted_from_tables("psa", tables, shares, level)
        name = PATTERN_METRICS[self.metric]
        return stratified.weighted_from_pattern_counts(
            name, self.patterns, counts, shares, level, positive=POSITIVE
        )

    def truth(self, probabilities: NDArray, shares: NDArray) -> NDArray:
        """Traffic's coefficient of ``(R, H, columns)`` stratum probabilities, ``(R,)``."""
        pop = (shares[None, :, None] * probabilities).sum(axis=1)
        if self.patterns is None:
            return np.asarray(2 * pop[:, 0] / (2 * pop[:, 0] + pop[:, 1] + pop[:, 2]))
        from planner.statistics.stratified import multirater_coefficient, multirater_features

        y = multirater_features(self.patterns, POSITIVE)
        value, _ = multirater_coefficient(PATTERN_METRICS[self.metric], 2)(pop @ y)
        return np.asarray(value)

    def contested(self, table: NDArray) -> NDArray:
        """Each stratum's share of items whose labels do not all agree."""
        if self.patterns is None:
            disagree = table[:, 1] + table[:, 2]
        else:
            unanimous = (self.patterns == self.patterns.sum(axis=1, keepdims=True)).any(axis=1)
            disagree = table[:, ~unanimous].sum(axis=1)
        return np.asarray(disagree / np.maximum(table.sum(axis=1), 1))

    def union_positives(self, table: NDArray) -> NDArray:
        """Each stratum's items that some annotator flags."""
        if self.patterns is None:
            return np.asarray(table[:, :3].sum(axis=1))
        return np.asarray(table[:, self.patterns[:, POSITIVE] > 0].sum(axis=1))

    @property
    def labels_per_item(self) -> int | None:
        """Labels an item gets (``None``: a pair's, the settings')."""
        return None if self.patterns is None else int(self.patterns[0].sum())


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
        self,
        counts: NDArray,
        shares: NDArray,
        design: NDArray,
        floor: int,
        setting: Any,
        analysis: StrataAnalysis | None = None,
    ) -> None:
        self.counts, self.shares, self.design, self.floor = counts, shares, design, floor
        self.width, self.level, self.replicates, self.seed = setting
        self.analysis = analysis if analysis is not None else StrataAnalysis()
        rng = np.random.default_rng([self.seed, STAGE_STREAM])
        self.cells = np.stack(
            [rng.dirichlet(c + 0.5, size=self.replicates) for c in counts], axis=1
        )  # (R, H, columns)
        self.truth = self.analysis.truth(self.cells, shares)
        self._seen: dict[int, tuple[float, float]] = {}

    def weighted(self, tables: NDArray) -> Any:
        """The weighted intervals of ``(..., H, columns)`` counts."""
        return self.analysis.weighted(tables, self.shares, self.level)

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
        return self.weighted(tables)

    def coverage_stopping_now(self) -> float:
        """The coverage of the study that stops at its first stage: the first stage's own
        interval against each posterior truth (no stratum is topped up)."""
        ci = self.weighted(self.counts.astype(float))
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
    design gives any stratum; ``seconds_per_item`` per stratum (``None``: the settings').

    Several annotators: ``patterns`` ``(P, 2)`` count patterns (negatives, positives; every
    item gets the same number of labels) and ``counts`` ``(H, P)`` the items per pattern;
    ``metric`` is ``psa`` or ``fleiss`` (a pair's is PSA).
    """

    counts: ArrayLike
    names: list[str]
    shares: ArrayLike
    design_shares: ArrayLike
    floor_items: int = 0
    seconds_per_item: ArrayLike | None = None
    patterns: ArrayLike | None = None
    metric: str = "psa"

    @property
    def analysis(self) -> StrataAnalysis:
        """How the weighted interval reads the counts (checked)."""
        if self.patterns is None:
            if self.metric != "psa":
                raise InvalidInput(
                    f"metric {self.metric!r}: a pair's stratified study in progress is "
                    "planned for psa",
                    parameter="metric", value=self.metric, rule="psa",
                )  # fmt: skip
            return StrataAnalysis()
        check_choice("metric", self.metric, tuple(PATTERN_METRICS))
        rows = np.asarray(self.patterns, dtype=np.int64)
        if rows.ndim != 2 or rows.shape[1] != 2 or len(set(rows.sum(axis=1).tolist())) != 1:
            raise InvalidInput(
                "patterns takes (negatives, positives) count rows, the same labels an item",
                parameter="patterns",
            )
        return StrataAnalysis(self.metric, rows)


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
        The first stage and the design (:class:`StrataStage`): a pair's, or several
        annotators' count patterns.
    plan_settings
        The final weighted interval's target ``width``, ``confidence_level`` and
        ``assurance``; the budget of the remaining items (``annotators_per_item``,
        ``seconds_per_item`` unless the stage gives them per stratum,
        ``adjudication_seconds``, ``hourly_rate``); ``max_items`` (largest total searched)
        and ``replicates`` (simulated studies per total). With several annotators, each
        item is billed the patterns' labels (``annotators_per_item`` is theirs).
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

    s, analysis = _stage_settings(stage, plan_settings)
    table, w, a = _checked_strata(
        stage.counts, stage.names, stage.shares, stage.design_shares, analysis.columns
    )
    names, seed = list(stage.names), seed_from(rng)
    now = analysis.weighted(table.astype(float), w, s.confidence_level)
    half_now = float(usable_half_width((now.high - now.low) / 2))
    setting = (s.width, s.confidence_level, s.replicates, seed)
    studies = _StratifiedStudies(table, w, a, int(stage.floor_items), setting, analysis)
    n0, narrow_now = int(table.sum()), half_now <= s.width
    # the design total may be below n0 (a stratum over-held) and still add items elsewhere
    total = n0 if narrow_now else _smallest_total(studies, s.assurance, n0, s.max_items)
    more = np.zeros(len(names), dtype=np.int64) if narrow_now else studies.more(total)
    reached, coverage = (1.0, studies.coverage_stopping_now()) if narrow_now else studies(total)
    check_shares = shares_check(table.sum(axis=1), a, names)
    union = analysis.union_positives(table)
    seconds = np.broadcast_to(
        np.asarray(s.seconds_per_item if stage.seconds_per_item is None else stage.seconds_per_item,
                   dtype=float),
        w.shape,
    )  # fmt: skip
    prices = (seconds, analysis.contested(table))
    strata = tuple(
        StratumRemaining(n, float(wh), float(ah), int(t.sum()), int(m), int(u), float(c), float(q))
        for n, wh, ah, t, m, u, c, q in zip(names, w, a, table, more, union, *prices, strict=True)
    )
    result = StratifiedRemaining(
        strata=strata, metric=analysis.metric, width=s.width, confidence_level=s.confidence_level,
        target_assurance=s.assurance, labelled_items=n0, estimate=float(now.estimate),
        interval_now=(float(now.low), float(now.high)), half_width_now=half_now,
        remaining_items=int(more.sum()), total_items=n0 + int(more.sum()), assurance=reached,
        design_total=int(total), assurance_se=share_se(reached, s.replicates),
        assurance_now=float(half_now <= s.width), final_coverage=coverage,
        final_coverage_se=share_se(coverage, s.replicates),
        budget=_remaining_budget(more, prices, s), shares_check=check_shares,
        replicates=s.replicates, seed=seed, notes=_shares_note(check_shares),
        bought=strata_bought(studies, prices, s, remaining, names),
        labels_per_item=analysis.labels_per_item or s.annotators_per_item,
        team=s.team,
    )  # fmt: skip
    return _with_batches(result, stage, s, remaining)


def _stage_settings(
    stage: StrataStage, plan_settings: PlanSettings | None
) -> tuple[PlanSettings, StrataAnalysis]:
    """The settings (several annotators: billed the patterns' labels an item) and the
    analysis of ``stage``."""
    from dataclasses import replace

    from planner.sizing.plan import PlanSettings

    s = plan_settings if plan_settings is not None else PlanSettings()
    check_instance("plan_settings", s, PlanSettings, "a PlanSettings")
    check_instance("stage", stage, StrataStage, "a StrataStage")
    analysis = stage.analysis
    if analysis.labels_per_item is not None:
        s = replace(s, annotators_per_item=analysis.labels_per_item)
    return s, analysis


def _remaining_budget(more: NDArray, prices: tuple[NDArray, NDArray], s: PlanSettings) -> Budget:
    """The budget of ``more`` items per stratum at their seconds and contested shares, the
    named team's person by person or the single rate."""
    from planner.sizing.team_cost import priced_strata_budget

    return priced_strata_budget(s, more, *prices)


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
    counts: Any, names: list[str], shares: Any, design_shares: Any, columns: int = 4
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    table = np.asarray(counts, dtype=np.int64)
    w, a = np.asarray(shares, dtype=float), np.asarray(design_shares, dtype=float)
    if table.ndim != 2 or table.shape[1] != columns or not len(names) == table.shape[0] == w.size:
        what = "four counts" if columns == 4 else f"{columns} counts (one per pattern)"
        raise InvalidInput(f"counts takes {what} per stratum", parameter="counts")
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
