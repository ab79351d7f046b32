"""Mid-study planning: the labels in hand are the study's first stage; how many more items?

A study of two annotators has labelled ``n0`` items, with counts ``(a0, b0, c0, d0)``
(both flag, only A, only B, neither). The first stage is kept in the final analysis (an
internal pilot, Wittes & Brittain 1990), so the question is not a fresh study's size but the
items ``m`` still to label for the final interval, on all ``n0 + m`` items, to reach the
half-width ``width`` with probability ``assurance``. :func:`plan_remaining` answers it:

* the interval now (estimate, half-width, and the interval's coverage if the estimate were
  the truth),
* ``remaining_items``: the smallest ``m`` whose hybrid assurance, averaged over the first
  stage's posterior ``Dirichlet(counts + 1/2)``, reaches the target
  (:mod:`planner.sizing.midstudy_assurance`: exact binomial sums for PSA, simulation for
  Cohen's kappa), with its Monte Carlo standard error,
* the total, the hours and cost still to spend, the assurance of stopping now (known: the
  interval in hand is narrow enough or not) and of continuing to ``planned_items``,
* the final interval's coverage when the remaining items are labelled, by simulation
  (:mod:`planner.sizing.midstudy_procedure`).

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.errors import InvalidInput, TargetUnreachable
from planner.renamed import renamed_keyword
from planner.sizing.exact import usable_half_width
from planner.sizing.items_bought import LabelCosts
from planner.sizing.midstudy_result import RemainingPlan, check_total, narrow_now_note
from planner.sizing.midstudy_settings import PAIR_DRAWS, RemainingSettings
from planner.sizing.team_cost import priced_budget
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

if TYPE_CHECKING:
    from planner.data.labels import Ratings
    from planner.sizing.plan import PlanSettings

#: the metrics a mid-study plan sizes ("both": the one that needs more items decides)
METRICS = ("psa", "kappa", "both")


@dataclass(frozen=True)
class _Target:
    width: float
    level: float
    assurance: float
    method: str
    max_items: int


def _checked(counts: Any) -> tuple[int, int, int, int]:
    if not isinstance(counts, list | tuple | np.ndarray) or len(counts) != 4:
        raise InvalidInput(
            "counts takes the first stage's four counts both,a_only,b_only,neither",
            parameter="counts",
        )
    values = tuple(int(check("counts", v, RULES["pilot_count"])) for v in counts)
    if sum(values[:3]) == 0:
        raise InvalidInput(
            "counts has no item flagged by either annotator: the labels in hand say nothing "
            "about agreement on positives",
            parameter="counts",
        )
    return values  # type: ignore[return-value]


def _interval_now(
    counts: tuple[int, ...], metric: str, target: _Target
) -> tuple[float, tuple[float, float], float]:
    """The estimate, interval and (usable) half-width of the labels in hand."""
    from planner.statistics import agreement
    from planner.statistics.intervals import kappa_interval, psa_interval

    table = np.asarray(counts, dtype=float).reshape(2, 2)
    if metric == "psa":
        estimate = agreement.positive_agreement(table)
        ci = psa_interval(table, target.level, target.method)
    else:
        estimate = agreement.cohen_kappa(table)
        ci = kappa_interval(table, target.level, target.method)
    half = float(usable_half_width(ci.half_width))
    return float(estimate), (float(ci.low), float(ci.high)), half


def _psa_remaining(counts: tuple[int, ...], target: _Target, seed: int, draws: int) -> Any:
    """``(remaining, mc_se, assurance, assurance_se, assurance_at)`` for PSA."""
    from planner.sizing.midstudy_assurance import StageAssurance
    from planner.sizing.midstudy_budget import DrawMean
    from planner.sizing.search import worst_case_union_positives
    from planner.sizing.uncertainty import (
        LATTICE_POINTS,
        MAX_RELATIVE_SE,
        MAX_UNION_POSITIVES,
        REPLICATES,
        _hybrid_items,
        lattice_cells,
        narrow_outcomes,
    )

    a0, u0 = counts[0], sum(counts[:3])
    if worst_case_union_positives(target.width, target.level)["delta"] > MAX_UNION_POSITIVES:
        raise InvalidInput(  # checked before the grid of narrow outcomes is built
            f"width {target.width:g} is below what the mid-study plan of PSA serves (every "
            f"outcome is narrow only from more than {MAX_UNION_POSITIVES:,} union positives); "
            "use a width of at least 0.02",
            parameter="width",
        )
    outcomes = narrow_outcomes(target.width, target.level, target.method)
    more = max(outcomes.u_star - u0, 0)
    sizes = [m for m in LATTICE_POINTS[1:] if REPLICATES * m >= draws] or [LATTICE_POINTS[-1]]
    max_more = target.max_items - sum(counts)
    for points in sizes:  # the same shifts for every size: the seed's first draws
        cells = lattice_cells(counts, points, np.random.default_rng(seed))
        at = StageAssurance(cells, outcomes, a0, u0)
        # the bracket of each draw's search: K more union positives make every outcome narrow
        found = _hybrid_items(at, replace(outcomes, u_star=more), target.assurance, max_more)
        if found.items > max_more or found.mc_se <= MAX_RELATIVE_SE * found.items:
            break
    if found.items > max_more:
        _unreachable(target)
    reached = at(found.items).reshape(REPLICATES, -1).mean(axis=1)
    assurance_at = DrawMean(at)  # the mean over the draws, which it counts
    se = float(np.std(reached, ddof=1) / np.sqrt(REPLICATES))
    return found.items, found.mc_se, float(reached.mean()), se, assurance_at


def _kappa_remaining(counts: tuple[int, ...], target: _Target, seed: int, replicates: int) -> Any:
    """``(remaining, mc_se, assurance, assurance_se, assurance_at)`` for Cohen's kappa."""
    from planner.sizing.midstudy_assurance import FirstStageStudies
    from planner.sizing.sample_size_search import crossing_standard_error, first_crossing
    from planner.sizing.uncertainty import posterior_cells
    from planner.sizing.uncertainty_kappa import HybridAssurance

    truth_rng, study_rng = np.random.default_rng(seed).spawn(2)
    cells = posterior_cells(counts, replicates, truth_rng)
    studies = FirstStageStudies(cells, np.asarray(counts), study_rng)
    at = HybridAssurance(studies, target.width, target.level, target.method)
    max_more = target.max_items - sum(counts)
    remaining = first_crossing(at, target.assurance, max(sum(counts) // 2, 1), max_more).n
    if remaining > max_more:
        _unreachable(target)
    reached = at(remaining)
    se = float(np.sqrt(reached * (1 - reached) / replicates))
    items_se = crossing_standard_error(at, remaining, replicates, max_value=max_more, flat=np.inf)
    return remaining, items_se, reached, se, at


def _unreachable(target: _Target) -> None:
    raise TargetUnreachable(
        f"width {target.width:g} is not reached with assurance {target.assurance:g} even when "
        f"the study grows to max_items {target.max_items}",
        parameters=("width", "assurance", "max_items"),
    )


def _coverage_now(counts: tuple[int, ...], metric: str, target: _Target, seed: int) -> float:
    """The interval's coverage at the first stage's size, if its estimate were the truth:
    exact for PSA (a sum over ``a ~ Bin(U0, J)``), simulated (4,000 tables) for kappa."""
    from planner.statistics.intervals import kappa_interval, psa_conditional_interval

    a0, u0 = counts[0], sum(counts[:3])
    if metric == "psa":
        from scipy import stats

        j = a0 / u0
        truth = 2 * j / (1 + j)
        a = np.arange(u0 + 1)
        ci = psa_conditional_interval(a, np.full(a.shape, u0), target.level, target.method)
        covers = (ci.low <= truth + 1e-12) & (truth - 1e-12 <= ci.high)
        return float(np.sum(stats.binom.pmf(a, u0, j) * covers))
    from planner.statistics.agreement import cohen_kappa

    p = np.asarray(counts, dtype=float) / sum(counts)
    tables = np.random.default_rng(seed).multinomial(sum(counts), p, size=4000)
    ci = kappa_interval(tables.reshape(-1, 2, 2), target.level, target.method)
    truth = float(cohen_kappa(p.reshape(2, 2)))
    with np.errstate(invalid="ignore"):
        return float(np.mean((ci.low <= truth) & (truth <= ci.high)))


def _target(settings: PlanSettings, metric: str) -> _Target:
    """The target of one metric: the settings' width, level, assurance and method (the
    plan under pilot uncertainty's methods for PSA, any kappa method but the bootstrap)."""
    from planner.sizing.uncertainty import METHODS
    from planner.sizing.uncertainty_kappa import _checked_method

    if metric == "psa":
        chosen = check_choice("psa_method", settings.psa_method, METHODS)
    else:
        try:
            chosen = _checked_method(settings.kappa_method)
        except InvalidInput as exc:  # the kappa plan's own parameter
            raise InvalidInput(
                str(exc).replace("method", "kappa_method", 1), parameter="kappa_method"
            ) from None
    return _Target(
        settings.width, settings.confidence_level, settings.assurance, chosen, settings.max_items
    )


@renamed_keyword("counts", "first_stage")
def plan_remaining(
    first_stage: Any,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    positive: Any = None,
    rng: RngLike = None,
) -> RemainingPlan:
    """The items still to label when the first stage's labels stay in the final analysis.

    One call for every study in progress that is not stratified: a pair's four counts are
    planned here, the labels of 3 to 6 annotators by
    :func:`planner.sizing.midstudy_latent_class.plan_remaining_raters`; both answer with a
    :class:`planner.sizing.midstudy_result.RemainingPlan`.

    Parameters
    ----------
    first_stage
        A pair's counts ``(both, a_only, b_only, neither)``, or the labels of several
        annotators (:class:`planner.data.labels.Ratings`). Formerly ``counts`` (still
        accepted, with a deprecation warning).
    plan_settings
        The target and costs (:class:`planner.sizing.plan.PlanSettings`; default its
        defaults): ``width``, ``confidence_level`` and ``assurance`` of the final interval;
        ``metric`` ``"psa"`` (interval ``psa_method``: ``"wilson"``, ``"clopper-pearson"``
        or ``"jeffreys"``), ``"kappa"`` (``kappa_method``: ``"score"``, ``"profile"``,
        ``"gof"`` or ``"fce"``), or ``"both"``: each metric's plan in ``by_metric``, the
        result itself the one that needs more items; the budget of the remaining items
        (:func:`planner.sizing.team_cost.priced_budget`: a named team's, ``team``, person by
        person; the contested share is the first stage's ``(b0 + c0) / n0``); ``max_items``,
        the largest total (first stage included) searched; ``replicates``, kappa's simulated
        studies and the finished studies of ``final_coverage``.
    remaining
        The mid-study knobs (:class:`planner.sizing.midstudy_settings.RemainingSettings`):
        ``planned_items`` adds the hybrid assurance of continuing to the original plan;
        ``batch_size`` the simulated batch procedure
        (:func:`planner.sizing.midstudy_procedure.batch_procedure`); ``draws`` PSA's
        posterior draws to start from.
    positive
        Several annotators' labels of two categories: the positive one (0/1 and false/true
        labels need none). A pair's counts already say which cell is positive.
    rng
        Anything :func:`numpy.random.default_rng` takes; the seed used is recorded.

    Raises ``InvalidInput`` (a value outside its range, named by its parameter) or
    ``TargetUnreachable`` (the target is not reached below ``max_items`` in all).

    Examples
    --------
    >>> from planner.sizing.plan import PlanSettings
    >>> r = plan_remaining([27, 20, 21, 532], PlanSettings(width=0.08), rng=1)
    >>> r.total_items == r.labelled_items + r.remaining_items
    True
    """
    from planner.sizing.plan import PlanSettings

    if _several_annotators(first_stage):
        from planner.sizing.midstudy_latent_class import plan_remaining_raters

        return plan_remaining_raters(
            first_stage, plan_settings, remaining, positive=positive, rng=rng
        )
    if positive is not None:
        raise InvalidInput(
            "positive names the positive label of several annotators' labels; a pair's "
            "counts (both, a_only, b_only, neither) already count positives",
            parameter="positive",
        )
    settings = plan_settings if plan_settings is not None else PlanSettings()
    knobs = remaining if remaining is not None else RemainingSettings()
    check_instance("plan_settings", settings, PlanSettings, "a PlanSettings")
    check_instance("remaining", knobs, RemainingSettings, "a RemainingSettings")
    return _pair_remaining(_checked(first_stage), settings, knobs, seed_from(rng))


def _pair_remaining(
    values: tuple[int, int, int, int],
    settings: PlanSettings,
    knobs: RemainingSettings,
    seed: int,
) -> RemainingPlan:
    """A pair's plan of the rest, per metric (``"both"``: the one that needs more items,
    with each metric's plan in ``by_metric``)."""
    metric = check_choice("metric", settings.metric, METRICS)
    check_total(settings.max_items, sum(values))
    plans = {
        m: _plan(values, m, _target(settings, m), settings, knobs, seed)
        for m in (("psa", "kappa") if metric == "both" else (metric,))
    }
    if len(plans) == 1:
        return next(iter(plans.values()))
    deciding = max(plans.values(), key=lambda p: p.remaining_items)
    return replace(deciding, by_metric=plans)


def _several_annotators(first_stage: Any) -> bool:
    """Whether the first stage is several annotators' labels rather than a pair's counts."""
    if isinstance(first_stage, list | tuple | np.ndarray):
        return False
    from planner.data.labels import Ratings

    return isinstance(first_stage, Ratings)


#: how the remaining items are computed, per metric (``{replicates}``: kappa's simulated studies)
BASIS = {
    "psa": "exact binomial sums over the second stage, averaged over the first stage's "
    "posterior (Jeffreys)",
    "kappa": "{replicates:,} simulated second stages, each from its own posterior truth "
    "(Jeffreys), added to the first stage",
}


def _search(
    values: tuple[int, int, int, int],
    metric: str,
    target: _Target,
    seed: int,
    effort: tuple[int, int],
) -> tuple[int, float, float, float, Any]:
    """``(remaining, mc_se, assurance, assurance_se, assurance_at)``; 0 more items (and no
    ``assurance_at``) when the interval in hand is already narrow enough; ``effort`` is PSA's
    posterior draws and kappa's simulated studies."""
    draws, replicates = effort
    if _interval_now(values, metric, target)[2] <= target.width:
        return 0, 0.0, 1.0, 0.0, None
    if metric == "psa":
        return _psa_remaining(values, target, seed, draws)
    return _kappa_remaining(values, target, seed, replicates)


def _planned(
    planned_items: int | None, labelled: int, narrow_now: bool, assurance_at: Any
) -> tuple[float | None, list[str]]:
    """The assurance of continuing to the original plan's total, and a note when it is
    already reached."""
    if planned_items is None:
        return None, []
    more = planned_items - labelled
    if more <= 0:
        return 1.0 if narrow_now else 0.0, [
            f"the original plan's {planned_items:,} items are already labelled "
            f"({labelled:,}): continuing to it is stopping now"
        ]
    return (1.0 if assurance_at is None else float(assurance_at(more))), []


def _plan(
    values: tuple[int, int, int, int],
    metric: str,
    target: _Target,
    settings: PlanSettings,
    knobs: RemainingSettings,
    seed: int,
) -> RemainingPlan:
    from planner.sizing.midstudy_budget import bought
    from planner.sizing.midstudy_procedure import batch_procedure, final_coverage

    labelled = sum(values)
    replicates = settings.replicates
    estimate, interval, half_now = _interval_now(values, metric, target)
    narrow_now = half_now <= target.width
    effort = (knobs.draws_or(PAIR_DRAWS), replicates)
    remaining, mc_se, reached, reached_se, assurance_at = _search(
        values, metric, target, seed, effort
    )
    planned, notes = _planned(knobs.planned_items, labelled, narrow_now, assurance_at)
    if narrow_now:
        notes.insert(0, narrow_now_note(half_now, target.width))
    # a named team's (settings.team) person by person, else the single rate
    budget = priced_budget(settings, remaining, (values[1] + values[2]) / labelled)
    coverage, coverage_se = final_coverage(
        values, remaining, metric, target.level, target.method, replicates, seed
    )
    batches = None
    if knobs.batch_size is not None:
        batches = batch_procedure(values, replace(settings, metric=metric), knobs, rng=seed)
        notes.extend(batches.notes)
    return RemainingPlan(
        counts=values,
        labelled_items=labelled,
        metric=metric,
        method=target.method,
        width=target.width,
        confidence_level=target.level,
        target_assurance=target.assurance,
        estimate=estimate,
        interval_now=interval,
        half_width_now=half_now,
        coverage_now=_coverage_now(values, metric, target, seed),
        remaining_items=int(remaining),
        remaining_mc_se=float(mc_se),
        total_items=labelled + int(remaining),
        assurance=float(reached),
        assurance_se=float(reached_se),
        assurance_now=1.0 if narrow_now else 0.0,
        planned_items=knobs.planned_items,
        assurance_planned=planned,
        budget=budget,
        final_coverage=coverage,
        final_coverage_se=coverage_se,
        basis=BASIS[metric].format(replicates=replicates),
        seed=seed,
        notes=notes,
        batches=batches,
        bought=bought(values, metric, target, settings, knobs, seed, assurance_at),
        costs=LabelCosts(
            settings.annotators_per_item,
            settings.seconds_per_item,
            settings.adjudication_seconds,
            settings.hourly_rate,
            settings.team,
        ),  # fmt: skip
    )


def read_labels_in_hand(path: str | Path, reader: dict[str, Any] | None = None) -> Ratings:
    """The labels in hand of a study in progress, read once from ``path`` as ``plan --pilot``
    reads a pilot (``reader``: the reader's options: layout, columns, format, missing, engine,
    memory_limit, temp_dir; :func:`planner.sizing.pilot_latent_class.read_raters_ratings`).

    Raises
    ------
    InvalidInput
        ``path`` that names no file, or any of the reader's refusals.
    """
    from planner.sizing.pilot_latent_class import read_raters_ratings

    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(f"path must name a label file, got {path!r}", parameter="path")
    return read_raters_ratings(str(path), reader)


def plan_remaining_from_file(
    path: str,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    pair: tuple[str, str] | None = None,
    positive: str | None = None,
    reader: dict[str, Any] | None = None,
    rng: RngLike = None,
) -> Any:
    """:func:`plan_remaining_from_ratings` of the label file ``path`` of the items labelled
    so far, read once (:func:`read_labels_in_hand`; ``reader``: the reader's options)."""
    ratings = read_labels_in_hand(path, reader)
    return plan_remaining_from_ratings(
        ratings, plan_settings, remaining, pair=pair, positive=positive, rng=rng
    )


def plan_remaining_from_ratings(
    ratings: Ratings,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    pair: tuple[str, str] | None = None,
    positive: str | None = None,
    rng: RngLike = None,
) -> Any:
    """:func:`plan_remaining` from the labels in hand (:class:`planner.data.labels.Ratings`).

    Two annotators' labels are counted as ``plan --pilot`` counts a pilot
    (:func:`planner.sizing.pilot.pilot_from_ratings`: ``pair`` chooses two annotators,
    ``positive`` the positive label); the result's ``stage`` is what the file held.

    Labels of 3 to 6 annotators without ``pair`` are a study of several annotators:
    :func:`planner.sizing.midstudy_latent_class.plan_remaining_raters` plans it (``level``,
    Krippendorff's, in ``plan_settings``) and its result is returned.

    Raises
    ------
    InvalidInput
        Labels of more than six annotators without ``pair``, a ``level`` other than nominal
        for a pair, or any of :func:`plan_remaining`'s.
    """
    from planner.sizing.pilot import pilot_from_ratings
    from planner.sizing.plan import PlanSettings

    settings = plan_settings if plan_settings is not None else PlanSettings()
    stage = pilot_from_ratings(ratings, pair=pair, positive=positive)
    if stage.counts is None and pair is None and 3 <= len(stage.annotators) <= 6:
        from planner.sizing.midstudy_latent_class import plan_remaining_raters

        return plan_remaining_raters(ratings, settings, remaining, positive=positive, rng=rng)
    if settings.level != "nominal":
        raise InvalidInput(
            "level is Krippendorff's alpha's, planned for several annotators; a pair's study "
            "in progress plans psa or kappa",
            parameter="level",
        )
    if stage.counts is None:
        raise InvalidInput(
            f"{stage.source}: {len(stage.annotators)} annotators; say which two the study in "
            "progress is planned for with pair A,B",
            parameter="pair",
        )
    return replace(plan_remaining(stage.counts, settings, remaining, rng=rng), stage=stage)
