"""A study in progress, simulated to its end: the final interval's coverage and the total n.

Two procedures continue from the labels in hand (the first stage, kept in the analysis):

* **a fixed second stage** (:func:`final_coverage`): label the re-planned ``m`` items and
  stop;
* **batches** (:func:`batch_procedure`): label ``B`` items at a time and re-plan after each
  batch, stopping when the re-plan asks for no more items. Once a batch is labelled it is
  observed, so the re-plan's assurance of stopping at once is 1 when the interval in hand
  reaches the width and 0 when not: the re-plan asks for no more exactly when the interval is
  narrow enough. The procedure is therefore "label in batches until the half-width is at
  most the width" (or ``max_items`` is reached), a data-dependent stopping rule whose
  coverage can fall below nominal, since stopping favours the samples whose interval happens
  to be narrow.

Each simulated study takes its own truth ``p_r`` from the first stage's posterior
``Dirichlet(counts + 1/2)`` (Jeffreys), starts from the first stage's counts and grows by
``multinomial(B, p_r)`` draws, every replicate at once (a loop over batches, never over
items); its final interval covers when it holds the truth's coefficient. :func:`run_batches`
is the common step, also for studies whose first stage is drawn from a model
(:func:`batches_from_model`) and for several annotators (:func:`raters_batch_procedure`). A
pair's tables grow as its four cells and their intervals are those of two annotators' label
patterns (:func:`planner.sizing.label_patterns.pair_patterns`, then
:func:`planner.sizing.study_intervals.study_intervals` with the pair's method), the same
interval code as several annotators'.

Several annotators (3 to 6): from the first stage's pattern multiplicities ``c0`` (kept in the
analysis), each simulated procedure ``r`` takes its truth ``theta_d`` (``d = r mod D``) from
the ``D`` bootstrap refits of the first stage's latent-class fit, the plausible truths the
plan itself averages over (:class:`planner.sizing.midstudy_latent_class.FinalStudies`), and grows
by ``c_r <- c_r + Multinomial(B, pi(theta_d))`` over the model's patterns, every procedure at
once. Its final interval covers when it holds ``theta_d``'s coefficient; the coverage ``C``
has the Monte Carlo SE ``sqrt(C (1 - C) / R)``.

:func:`batch_procedure` is the one call: a pair's counts, or the plan of the rest of either
kind (:class:`planner.sizing.midstudy_result.RemainingPlan`).

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
Chow YS, Robbins H (1965) On the asymptotic theory of fixed-width sequential confidence
    intervals for the mean. Ann Math Stat 36:457-462.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.renamed import renamed_keyword
from planner.sizing.exact import reaches_width, usable_half_width
from planner.sizing.label_patterns import pair_pattern_rows, pair_patterns
from planner.sizing.midstudy_result import RemainingPlan
from planner.sizing.midstudy_settings import RemainingSettings
from planner.validation import RngLike, check_choice, check_instance, seed_from

if TYPE_CHECKING:
    from planner.sizing.plan import PlanSettings

#: coverage below nominal by more than this many points gets a note with the remedy
COVERAGE_SLACK = 0.015
#: the most batches a simulated procedure runs (then batch_size is too small to simulate)
MAX_BATCHES = 2000


def _interval(tables: NDArray, metric: str, level: float, method: str) -> Any:
    """The pair's interval of each table ``(a, b, c, d)``, as the intervals of two
    annotators' label patterns (:func:`~planner.sizing.study_intervals.study_intervals` with
    the pair's ``method``)."""
    from planner.sizing.study_intervals import study_intervals

    cells = pair_patterns(np.asarray(tables).reshape(-1, 4), metric)
    return study_intervals(
        metric, pair_pattern_rows(metric), cells, confidence_level=level, method=method
    )


def true_value(cells: NDArray, metric: str) -> NDArray:
    """The coefficient of each truth (rows of cell probabilities ``(a, b, c, d)``)."""
    cells = np.asarray(cells, dtype=float).reshape(-1, 4)
    if metric == "psa":
        return 2 * cells[:, 0] / (2 * cells[:, 0] + cells[:, 1] + cells[:, 2])
    from planner.statistics.agreement import cohen_kappa

    return np.asarray(cohen_kappa(cells.reshape(-1, 2, 2)), dtype=float)


def covers(tables: NDArray, truth: NDArray, metric: str, level: float, method: str) -> NDArray:
    """Whether each table's interval holds its truth's coefficient."""
    ci = _interval(tables, metric, level, method)
    with np.errstate(invalid="ignore"):
        return np.asarray((ci.low <= truth + 1e-12) & (truth - 1e-12 <= ci.high))


def final_coverage(
    counts: tuple[int, ...],
    remaining: int,
    metric: str,
    level: float,
    method: str,
    replicates: int,
    seed: int,
) -> tuple[float, float]:
    """Coverage (and its standard error) of the final interval on the first stage plus
    ``remaining`` items, each simulated study from its own posterior truth."""
    rng = np.random.default_rng([seed, 25])
    cells = rng.dirichlet(np.asarray(counts, dtype=float) + 0.5, size=replicates)
    tables = np.asarray(counts)[None, :] + rng.multinomial(int(remaining), cells)
    hit = covers(tables, true_value(cells, metric), metric, level, method)
    share = float(hit.mean())
    return share, float(np.sqrt(share * (1 - share) / replicates))


def run_batches(
    start: NDArray,
    cells: NDArray,
    batch_size: int,
    narrow: Any,
    max_items: int,
    rng: np.random.Generator,
) -> tuple[NDArray, NDArray]:
    """Grow every study by ``batch_size`` items from ``cells`` until ``narrow(tables)`` holds
    (or the next batch would pass ``max_items``): the final ``(R, 4)`` tables and whether each
    stopped because it was narrow."""
    tables = np.array(start, dtype=np.int64, copy=True)
    done = np.asarray(narrow(tables), dtype=bool)
    for _ in range(MAX_BATCHES + 1):
        room = tables.sum(axis=1) + batch_size <= max_items
        active = ~done & room
        if not active.any():
            return tables, done
        tables[active] += rng.multinomial(batch_size, cells[active])
        done[active] = np.asarray(narrow(tables[active]), dtype=bool)
    raise InvalidInput(
        f"batch_size {batch_size:,} needs more than {MAX_BATCHES:,} batches before some "
        "simulated procedures reach the width; use a larger batch_size",
        parameter="batch_size",
    )


@dataclass(frozen=True)
class BatchProcedure:
    """The batch procedure simulated to its end (see the module docstring).

    ``coverage`` (``coverage_se``): share of finished studies whose final interval covers the
    truth; ``nominal`` the interval's level; ``total_items``: the mean and the 10th, 50th and
    90th percentiles of the total items; ``stopped_share``: share that reached the width
    before ``max_items``; ``truth``: where the simulated truths come from.
    """

    batch_size: int
    replicates: int
    coverage: float
    coverage_se: float
    nominal: float
    total_items: dict[str, float]
    stopped_share: float
    truth: str
    notes: list[str] = field(default_factory=list)


def _summary(
    tables: NDArray,
    stopped: NDArray,
    truth: NDArray,
    setting: dict[str, Any],
    where: str,
) -> BatchProcedure:
    metric, level, method = setting["metric"], setting["level"], setting["method"]
    hit = covers(tables, truth, metric, level, method)
    return summarise(hit, tables.sum(axis=1), stopped, setting, where)


def summarise(
    hit: NDArray,
    totals: NDArray,
    stopped: NDArray,
    setting: dict[str, Any],
    where: str,
) -> BatchProcedure:
    """The :class:`BatchProcedure` of finished procedures: whether each final interval covers
    its truth (``hit``), each total, whether each stopped at the width; ``setting`` holds the
    ``batch_size``, ``level`` and ``max_items``, ``where`` the truths' source.

    Coverage ``C = mean(hit)`` with Monte Carlo SE ``sqrt(C (1 - C) / R)``; a note when
    ``C < level - 0.015`` (:data:`COVERAGE_SLACK`) gives the remedy.
    """
    level = setting["level"]
    share = float(np.mean(hit))
    replicates = int(np.size(hit))
    se = float(np.sqrt(share * (1 - share) / replicates))
    notes = []
    if share < level - COVERAGE_SLACK:
        notes.append(
            f"labelling in batches of {setting['batch_size']:,} until the interval is narrow "
            f"enough, the final interval covers {share:.3f} (± {se:.3f}), below the nominal "
            f"{level:g} by {100 * (level - share):.1f} points: fix the total in advance "
            "(label the re-planned remaining items, then stop) or re-plan with a narrower "
            "interim width than the final target"
        )
    if stopped.mean() < 1:
        notes.append(
            f"{1 - stopped.mean():.1%} of the simulated procedures reached max_items "
            f"{setting['max_items']:,} before the width"
        )
    return BatchProcedure(
        batch_size=setting["batch_size"],
        replicates=replicates,
        coverage=share,
        coverage_se=se,
        nominal=level,
        total_items={
            "mean": float(totals.mean()),
            **{f"p{q}": float(np.quantile(totals, q / 100)) for q in (10, 50, 90)},
        },
        stopped_share=float(stopped.mean()),
        truth=where,
        notes=notes,
    )


def checked_batches(plan_settings: PlanSettings, remaining: RemainingSettings) -> int:
    """The batch size of a procedure, its settings checked (every kind of study in progress)."""
    from planner.sizing.plan import PlanSettings

    check_instance("plan_settings", plan_settings, PlanSettings, "a PlanSettings")
    check_instance("remaining", remaining, RemainingSettings, "a RemainingSettings")
    if remaining.batch_size is None:
        raise InvalidInput(
            "batch_size is needed: the procedure labels batches of that many items",
            parameter="batch_size",
        )
    return remaining.batch_size


def _setting(settings: PlanSettings, remaining: RemainingSettings) -> dict[str, Any]:
    """The procedure's batch size, metric (``psa`` or ``kappa``), target and interval."""
    from planner.sizing.midstudy_settings import interval_method

    checked_batches(settings, remaining)
    metric = check_choice("metric", settings.metric, ("psa", "kappa"))
    return {
        "batch_size": remaining.batch_size,
        "metric": metric,
        "width": settings.width,
        "level": settings.confidence_level,
        "method": interval_method(settings, metric),
        "max_items": settings.max_items,
    }


def _narrow(setting: dict[str, Any]) -> Any:
    def narrow(tables: NDArray) -> NDArray:
        ci = _interval(tables, setting["metric"], setting["level"], setting["method"])
        return np.asarray(usable_half_width(ci.half_width) <= setting["width"])

    return narrow


@renamed_keyword("counts", "first_stage")
def batch_procedure(
    first_stage: tuple[int, ...] | RemainingPlan,
    plan_settings: PlanSettings,
    remaining: RemainingSettings,
    *,
    rng: RngLike = None,
) -> BatchProcedure:
    """The batch procedure from the labels in hand, truths from their posterior.

    Parameters
    ----------
    first_stage
        A pair's first stage ``(both, a_only, b_only, neither)`` (formerly ``counts``, still
        accepted with a deprecation warning), or the plan of the rest
        (:class:`planner.sizing.midstudy_result.RemainingPlan`): a pair's runs on its counts
        for its metric, several annotators' is :func:`raters_batch_procedure`.
    plan_settings
        The coefficient (``metric``: ``"psa"`` or ``"kappa"``), the target ``width`` at
        ``confidence_level``, the interval (``psa_method`` or ``kappa_method``), the largest
        total ``max_items`` (a procedure stops before a batch that would pass it) and
        ``replicates`` simulated procedures (each with its own posterior truth).
    remaining
        ``batch_size``: items per batch; after each the interval is re-computed and the study
        stops when its half-width is at most ``width`` (the re-plan asks for no more).
    rng
        Anything :func:`numpy.random.default_rng` takes.
    """
    if isinstance(first_stage, RemainingPlan):
        if first_stage.counts is None:
            return raters_batch_procedure(first_stage, plan_settings, remaining, rng=rng)
        plan_settings = replace(plan_settings, metric=first_stage.metric)
        first_stage = first_stage.counts
    counts = first_stage
    setting = _setting(plan_settings, remaining)
    replicates = plan_settings.replicates
    generator = np.random.default_rng(seed_from(rng))
    cells = generator.dirichlet(np.asarray(counts, dtype=float) + 0.5, size=replicates)
    start = np.repeat(np.asarray(counts, dtype=np.int64)[None, :], replicates, axis=0)
    tables, stopped = run_batches(
        start, cells, setting["batch_size"], _narrow(setting), setting["max_items"], generator
    )
    where = "the first stage's posterior (Jeffreys: Dirichlet(counts + 1/2))"
    return _summary(tables, stopped, true_value(cells, setting["metric"]), setting, where)


def batches_from_model(
    cells: Any,
    plan_settings: PlanSettings,
    remaining: RemainingSettings,
    *,
    rng: RngLike = None,
) -> BatchProcedure:
    """The batch procedure of a whole study from the model ``cells`` ``(a, b, c, d)``: a first
    stage of ``remaining.first_items`` (default one batch) drawn from it, then batches as
    :func:`batch_procedure`."""
    setting = _setting(plan_settings, remaining)
    replicates = plan_settings.replicates
    first_items = remaining.first_items or setting["batch_size"]
    p = np.asarray(cells, dtype=float)
    if p.shape != (4,) or np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
        raise InvalidInput("cells must be four probabilities summing to 1", parameter="cells")
    generator = np.random.default_rng(seed_from(rng))
    start = generator.multinomial(first_items, p, size=replicates)
    many = np.repeat(p[None, :], replicates, axis=0)
    tables, stopped = run_batches(
        start, many, setting["batch_size"], _narrow(setting), setting["max_items"], generator
    )
    truth = np.full(replicates, float(true_value(p, setting["metric"])[0]))
    return _summary(tables, stopped, truth, setting, "the model")


#: the random stream of the batch procedure of a fresh plan, apart from the plan's own
PLAN_BATCH_STREAM = 26


def batches_for_plan(plan: Any, batch_size: int) -> BatchProcedure:
    """The batch procedure of a whole study from a pair's plan (a
    :class:`planner.sizing.plan.Plan`): re-plan every ``batch_size`` items from the start.

    The first stage is the first batch, drawn from the plan's model; the study then grows
    batch by batch until its interval of the plan's deciding metric reaches the plan's width
    (:func:`batches_from_model`), with the plan's interval method, ``max_items`` and
    replicates. Truths are the model's: a plan from a pilot uses its plug-in model.
    """
    return batches_from_model(
        np.asarray(plan.model.cells, dtype=float).reshape(4),
        replace(plan.settings, metric=plan.deciding_metric),
        RemainingSettings(batch_size=batch_size),
        rng=np.random.default_rng([plan.seed, PLAN_BATCH_STREAM]),
    )


def _raters_studies(plan: RemainingPlan, replicates: int) -> Any:
    """The plan's finished studies (patterns, first stage, truths), as the plan drew them."""
    from planner.sizing.midstudy_latent_class import FinalStudies
    from planner.sizing.study_precision import RatersStudy

    study = RatersStudy(
        plan.metric, plan.width, plan.level, None, plan.confidence_level, replicates
    )  # fmt: skip
    first = (np.asarray(plan.patterns), np.asarray(plan.multiplicity))
    assert plan.pilot is not None  # checked by raters_batch_procedure
    return FinalStudies(plan.pilot, study, first, replicates, plan.seed)


def raters_batch_procedure(
    plan: RemainingPlan,
    plan_settings: PlanSettings,
    remaining: RemainingSettings,
    *,
    rng: RngLike = None,
) -> BatchProcedure:
    """The batch procedure of a study of several annotators in progress (module docstring:
    truths from the first stage's bootstrap refits).

    Parameters
    ----------
    plan
        The plan of the rest (:func:`planner.sizing.midstudy_latent_class.plan_remaining_raters`):
        its first stage, metric, width, confidence level and bootstrap truths.
    plan_settings
        ``max_items`` (a procedure stops before a batch that would pass it) and ``replicates``,
        the simulated procedures (at least 400, fewer when the patterns are many, as the
        plan's second stages).
    remaining
        ``batch_size``: items per batch.
    rng
        Anything :func:`numpy.random.default_rng` takes.

    Returns
    -------
    BatchProcedure
        The final interval's coverage, the total items' mean and 10th, 50th and 90th
        percentiles, the share that stopped at the width, and the notes.
    """
    batch_size = checked_batches(plan_settings, remaining)
    from planner.sizing.study_intervals import study_intervals

    check_instance("plan", plan, RemainingPlan, "a RemainingPlan")
    if plan.pilot is None:
        raise InvalidInput(
            "plan is a pair's study in progress; its batch procedure is batch_procedure",
            parameter="plan",
        )
    at = _raters_studies(plan, plan_settings.replicates)
    cells = np.zeros((at.studies, at.patterns.shape[0]))
    cells[:, at.embed] = at.by_study  # the first stage's extra patterns have no probability
    start = np.repeat(at.first[None, :], at.studies, axis=0)

    def intervals(counts: NDArray) -> Any:
        return study_intervals(
            plan.metric, at.patterns, counts, level=plan.level,
            confidence_level=plan.confidence_level, n_categories=at.k,
        )  # fmt: skip

    def narrow(counts: NDArray) -> NDArray:
        return np.asarray(reaches_width(intervals(counts).half_width, plan.width))

    generator = np.random.default_rng(seed_from(rng))
    tables, stopped = run_batches(
        start, cells, batch_size, narrow, plan_settings.max_items, generator
    )
    ci = intervals(tables)
    with np.errstate(invalid="ignore"):
        hit = np.asarray((ci.low <= at.truth + 1e-12) & (at.truth - 1e-12 <= ci.high))
    setting = {
        "batch_size": batch_size,
        "level": plan.confidence_level,
        "max_items": plan_settings.max_items,
    }
    where = f"the {len(plan.pilot.draws)} bootstrap refits of the first stage's latent-class fit"
    return summarise(hit, tables.sum(axis=1), stopped, setting, where)
