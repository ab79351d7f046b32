"""A study of several annotators in progress: how many more items, the first stage kept.

The labels in hand of ``M = 3`` to ``6`` annotators are the study's first stage: their
patterns (per item, how many labels fell in each category; for Conger's and the mean pairwise
Cohen's kappa, each annotator's label) stay in the final analysis. The truth is not known;
as for a pilot of several annotators (:mod:`planner.sizing.pilot_latent_class`), the first stage is
fitted by Dawid & Skene's latent-class model and ``D`` item-bootstrap refits of the fit are
its plausible truths ``theta_d``. With ``m`` items still to label, the final multiplicities
are the first stage's ``c0`` plus a second stage ``Multinomial(m, pi(theta_d))`` over the
model's patterns, and the hybrid assurance is

``A_h(m) = (1 / D) sum_d P(half-width on c0 + c2 <= w | theta_d)``,

estimated from ``R`` simulated second stages (stage ``r`` under truth ``r mod D``, the same
random stream at every ``m``). :func:`plan_remaining_raters` gives the smallest ``m`` with
``A_h(m) >=`` the target (its Monte Carlo SE: that of ``A_h`` over the curve's slope), the
interval now, the assurance of stopping now (0 or 1: the first stage is observed) and of
continuing to a planned total, the budget of the remaining items, and the final interval's
coverage (the share of the simulated finished studies whose interval holds the truth's
coefficient).

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
Dawid AP, Skene AM (1979) Maximum likelihood estimation of observer error-rates using the
    EM algorithm. J R Stat Soc C 28:20-28.
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing.exact import reaches_width, usable_half_width
from planner.sizing.items_bought import LabelCosts
from planner.sizing.label_patterns import contested_share
from planner.sizing.midstudy_result import RemainingPlan, check_total, narrow_now_note, share_se
from planner.sizing.midstudy_settings import RATERS_DRAWS, RemainingSettings
from planner.sizing.pilot_latent_class import RatersPilot, raters_pilot_from_ratings
from planner.sizing.study_intervals import (
    INTERVAL_METHODS,
    ORDERED_METRICS,
    pattern_space,
    study_intervals,
    true_value,
)
from planner.sizing.study_precision import RatersStudy, checked_study
from planner.sizing.team_cost import priced_budget
from planner.sizing.uncertainty_refits import HYBRID_CELLS
from planner.validation import RngLike, check_instance, seed_from

if TYPE_CHECKING:
    from planner.sizing.plan import PlanSettings

#: spawn keys under the plan's seed: the bootstrap, the second stages, the coverage now
BOOTSTRAP_STREAM, STAGE_STREAM, NOW_STREAM = 4, 5, 6
#: the spawn key of the batch procedure (``batch_size``)
BATCH_STREAM = 8


#: the former name of a study of several annotators' plan, kept as an alias: both kinds of
#: study in progress answer with :class:`planner.sizing.midstudy_result.RemainingPlan`
RatersRemaining = RemainingPlan


def first_stage_patterns(
    ratings: Any, pilot: RatersPilot, metric: str
) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """The first stage's distinct patterns (categories in the fit's order), their items, and
    how many items an ordered metric leaves out (an annotator's label missing).

    Count patterns ``(P, K)`` for fleiss, alpha and psa; each annotator's label ``(P, M)``
    for conger and kappa (only the items every annotator labelled).
    """
    from planner.statistics.dawid_skene import counts_from_ratings

    names = [str(c) for c in ratings.categories]
    order = [names.index(c) for c in pilot.categories]
    who = [list(ratings.annotators).index(a) for a in pilot.annotators]
    counts = counts_from_ratings(ratings)[:, who][:, :, order]  # (N, M, K)
    weights = getattr(ratings, "weights", None)
    if weights is not None:  # rows that stand for several items
        counts = np.repeat(counts, np.asarray(weights, dtype=np.int64), axis=0)
    left_out = 0
    if metric in ORDERED_METRICS:
        complete = (counts.sum(axis=2) == 1).all(axis=1)
        left_out = int((~complete).sum())
        rows = counts[complete].argmax(axis=2)
    else:
        rows = counts.sum(axis=1)
        rows = rows[rows.sum(axis=1) > 0]
    if rows.shape[0] == 0:
        raise InvalidInput(
            f"{ratings.source}: no item has every annotator's label, which metric {metric} "
            "needs; use fleiss, alpha or psa",
            parameter="metric",
        )
    patterns, multiplicity = np.unique(rows, axis=0, return_counts=True)
    return patterns.astype(np.int64), multiplicity.astype(np.int64), left_out


class FinalStudies:
    """Finished studies: the first stage plus ``m`` simulated items, study ``r`` under the
    bootstrap truth ``r mod D``; ``narrow(m)`` and ``covers(m)`` per study, the same random
    stream at every ``m`` (common random numbers)."""

    def __init__(
        self,
        pilot: RatersPilot,
        study: RatersStudy,
        first: tuple[NDArray[np.int64], NDArray[np.int64]],
        studies: int,
        seed: int,
    ) -> None:
        self.study, self.seed, self.k = study, seed, pilot.model.n_categories
        model_patterns, by_truth = _truth_probabilities(pilot, study)
        index = {tuple(int(x) for x in row): i for i, row in enumerate(first[0])}
        for row in model_patterns:
            index.setdefault(tuple(int(x) for x in row), len(index))
        self.patterns = np.array(list(index), dtype=np.int64)
        self.embed = np.array([index[tuple(int(x) for x in r)] for r in model_patterns])
        self.first = np.zeros(len(index), dtype=np.int64)
        self.first[: len(first[1])] = first[1]
        self.studies = int(min(max(studies, 400), max(400, HYBRID_CELLS // len(index))))
        which = np.arange(self.studies) % by_truth.shape[0]
        self.by_study = by_truth[which]
        truths = [
            true_value(study.metric, model_patterns, p, study.level, self.k) for p in by_truth
        ]
        self.truth = np.asarray(truths, dtype=float)[which]
        self._seen: dict[int, tuple[NDArray, NDArray]] = {}

    def intervals(self, m: int) -> Any:
        """The final intervals of the finished studies after ``m`` more items."""
        rng = np.random.default_rng([self.seed, STAGE_STREAM])
        counts = np.repeat(self.first[None, :], self.studies, axis=0)
        counts[:, self.embed] += rng.multinomial(int(m), self.by_study)
        s = self.study
        return study_intervals(
            s.metric, self.patterns, counts, level=s.level,
            confidence_level=s.confidence_level, n_categories=self.k,
        )  # fmt: skip

    def _outcomes(self, m: int) -> tuple[NDArray, NDArray]:
        if m not in self._seen:
            ci = self.intervals(m)
            narrow = np.asarray(reaches_width(ci.half_width, self.study.width))
            with np.errstate(invalid="ignore"):
                covers = np.asarray(
                    (ci.low <= self.truth + 1e-12) & (self.truth - 1e-12 <= ci.high)
                )
            self._seen[m] = (narrow, covers)
        return self._seen[m]

    def __call__(self, m: int) -> float:
        """``A_h(m)``: the share of finished studies whose interval reaches the width."""
        return float(self._outcomes(m)[0].mean())

    def coverage(self, m: int) -> float:
        """The share of finished studies whose interval holds its truth's coefficient."""
        return float(self._outcomes(m)[1].mean())


def _truth_probabilities(
    pilot: RatersPilot, study: RatersStudy
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The model's patterns of ``study.metric`` and ``(D, P)`` their probabilities under each
    bootstrap truth."""
    from planner.sizing.annotator_model import raters_model

    tables: list[dict[tuple[int, ...], float]] = []
    for prevalence, confusion in pilot.draws:
        model = raters_model(list(prevalence), pilot.model.n_annotators, confusion=confusion)
        patterns, probs = pattern_space(model, study.metric)
        tables.append(
            {tuple(int(x) for x in r): float(p) for r, p in zip(patterns, probs, strict=True)}
        )
    rows = sorted(set().union(*tables))
    probabilities = np.array([[t.get(r, 0.0) for r in rows] for t in tables])
    return np.array(rows, dtype=np.int64), probabilities / probabilities.sum(axis=1)[:, None]


def _interval_now(
    study: RatersStudy, first: tuple[NDArray, NDArray], k: int
) -> tuple[float, tuple[float, float], float]:
    ci = study_intervals(
        study.metric, first[0], first[1].astype(float), level=study.level,
        confidence_level=study.confidence_level, n_categories=k,
    )  # fmt: skip
    low, high = float(ci.low), float(ci.high)
    return float(ci.estimate), (low, high), float(usable_half_width((high - low) / 2))


def _coverage_now(pilot: RatersPilot, study: RatersStudy, items: int, seed: int) -> float:
    """The interval's coverage at ``items`` items if the plug-in fit were the truth (4,000
    simulated studies)."""
    k = pilot.model.n_categories
    patterns, probs = pattern_space(pilot.model, study.metric)
    truth = true_value(study.metric, patterns, probs, study.level, k)
    counts = np.random.default_rng([seed, NOW_STREAM]).multinomial(items, probs, size=4000)
    ci = study_intervals(
        study.metric, patterns, counts, level=study.level,
        confidence_level=study.confidence_level, n_categories=k,
    )  # fmt: skip
    with np.errstate(invalid="ignore"):
        return float(np.mean((ci.low <= truth + 1e-12) & (truth - 1e-12 <= ci.high)))


def _remaining(
    at: FinalStudies, target: float, half_now: float, max_items: int
) -> tuple[int, float]:
    """The smallest ``m`` with ``A_h(m) >= target`` and its Monte Carlo SE (that of
    ``A_h`` over the slope between ``0.9 m`` and ``1.1 m``); the search starts where the
    half-width now, shrinking as ``1 / sqrt(n)``, would reach the width."""
    from planner.sizing.sample_size_search import smallest_passing_near

    n0 = int(at.first.sum())
    max_more = max_items - n0
    ratio = half_now / at.study.width
    start = max(int(n0 * ratio**2) - n0, 1) if np.isfinite(ratio) else n0

    try:
        m = smallest_passing_near(lambda n: at(n) >= target, start, max_more)
    except TargetUnreachable:
        m = max_more + 1
    if m > max_more or at(m) < target:
        raise TargetUnreachable(
            f"width {at.study.width:g} is not reached with assurance {target:g} even when the "
            f"study grows by {max_more:,} more items (max_items)",
            parameters=("width", "assurance", "max_items"),
        )
    a = at(m)
    low, high = max(1, int(0.9 * m)), min(max_more, int(np.ceil(1.1 * m)))
    slope = (at(high) - at(low)) / max(high - low, 1)
    se = float(np.sqrt(a * (1 - a) / at.studies))
    return int(m), float(se / slope) if slope > 0 else float("inf")


def plan_remaining_raters(
    ratings: Any,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    positive: Any = None,
    rng: RngLike = None,
) -> RemainingPlan:
    """The items still to label when the labels in hand of 3 to 6 annotators stay in the
    final analysis (the module docstring gives the method).

    Parameters
    ----------
    ratings
        The labels so far (:class:`planner.data.labels.Ratings`).
    plan_settings
        The target and costs (:class:`planner.sizing.plan.PlanSettings`): ``width``,
        ``confidence_level`` and ``assurance`` of the final interval; ``metric``
        ``"fleiss"``, ``"alpha"`` (Krippendorff's ``level``), ``"psa"`` (specific positive
        agreement, two categories; with more categories the default psa plans ``"fleiss"``,
        with a note), ``"conger"`` or ``"kappa"`` (mean pairwise Cohen's); the budget of the
        remaining items (every annotator labels every item; the contested share is the
        fit's); ``max_items``, the largest total searched; ``replicates`` simulated second stages
        per size (at least 400, fewer when the patterns are many).
    remaining
        ``planned_items`` (adds the hybrid assurance of continuing to it), ``batch_size``
        (adds the batch procedure simulated to its end,
        :func:`planner.sizing.midstudy_procedure.raters_batch_procedure`), ``draws``,
        the bootstrap refits of the first stage (its plausible truths), and ``hours`` or
        ``budget`` (``bought``: :func:`planner.sizing.midstudy_budget.raters_bought`).
    positive
        The positive label of two categories (0/1 and false/true labels need none).
    rng
        Anything :func:`numpy.random.default_rng` takes; the seed used is recorded.

    Raises ``InvalidInput`` (a value outside its range, named by its parameter; not 3 to 6
    annotators; a pair's ``psa_method``, ``kappa_method`` or ``annotators_per_item`` set) or
    ``TargetUnreachable``.
    """
    from planner.sizing.plan import PlanSettings

    settings = plan_settings if plan_settings is not None else PlanSettings()
    knobs = remaining if remaining is not None else RemainingSettings()
    check_instance("plan_settings", settings, PlanSettings, "a PlanSettings")
    check_instance("remaining", knobs, RemainingSettings, "a RemainingSettings")
    _refuse_pair_options(settings)
    seed = seed_from(rng)
    bootstrap = seed_from(np.random.default_rng([seed, BOOTSTRAP_STREAM]))
    pilot = raters_pilot_from_ratings(
        ratings, positive=positive, draws=knobs.draws_or(RATERS_DRAWS), rng=bootstrap
    )
    chosen, switched = settings.metric, []
    if chosen == "psa" and pilot.model.n_categories > 2:
        chosen, switched = "fleiss", [PSA_NEEDS_TWO.format(k=pilot.model.n_categories)]
    study, labels = checked_study(
        pilot.model,
        RatersStudy(
            chosen, settings.width, settings.level, None, settings.confidence_level,
            settings.replicates,
        ),
    )  # fmt: skip
    first = first_stage_patterns(ratings, pilot, study.metric)
    n0 = int(first[1].sum())
    check_total(settings.max_items, n0)
    prices = LabelCosts(
        labels, settings.seconds_per_item, settings.adjudication_seconds,
        settings.hourly_rate, settings.team,
    )  # fmt: skip
    costs = (prices, contested_share(pilot.model))  # the contested share counted, as a pair's
    targets = (settings.assurance, settings.max_items, knobs.planned_items)
    result = _plan(pilot, study, first, targets, costs, seed)
    if (knobs.hours, knobs.budget) != (None, None):  # what they buy, on the plan's studies
        from planner.sizing.midstudy_budget import raters_bought

        at = FinalStudies(pilot, study, first[:2], study.replicates, seed)
        result = replace(result, bought=raters_bought(at, knobs, *costs))
    result = _with_batches(result, settings, knobs, seed)
    return replace(result, notes=[*switched, *result.notes])


def _with_batches(
    result: RemainingPlan, settings: PlanSettings, knobs: RemainingSettings, seed: int
) -> RemainingPlan:
    """The plan with its batch procedure (``knobs.batch_size``), on its own random stream."""
    if knobs.batch_size is None:
        return result
    from planner.sizing.midstudy_procedure import raters_batch_procedure

    batch_rng = np.random.default_rng([seed, BATCH_STREAM])
    batches = raters_batch_procedure(result, settings, knobs, rng=batch_rng)
    return replace(result, batches=batches, notes=[*result.notes, *batches.notes])


def _plan(
    pilot: RatersPilot,
    study: RatersStudy,
    first: tuple[NDArray[np.int64], NDArray[np.int64], int],
    targets: tuple[float, int, int | None],
    costs: tuple[LabelCosts, float],
    seed: int,
) -> RemainingPlan:
    """The search, the assurances, the budget and the coverage of a checked plan."""
    target, max_items, planned_items = targets
    n0 = int(first[1].sum())
    estimate, interval, half_now = _interval_now(study, first[:2], pilot.model.n_categories)
    at = FinalStudies(pilot, study, first[:2], study.replicates, seed)
    narrow_now = half_now <= study.width
    remaining, mc_se = (0, 0.0) if narrow_now else _remaining(at, target, half_now, max_items)
    planned = None
    if planned_items is not None:
        more = planned_items - n0
        planned = at(more) if more > 0 else float(narrow_now)
    budget = priced_budget(costs[0], remaining, costs[1])
    reached = at(remaining)
    return RemainingPlan(
        labelled_items=n0, annotators=pilot.annotators, categories=pilot.categories,
        positive=pilot.positive, patterns=first[0], multiplicity=first[1],
        metric=study.metric, method=INTERVAL_METHODS[study.metric], level=study.level,
        width=study.width, confidence_level=study.confidence_level, target_assurance=target,
        estimate=estimate, interval_now=interval, half_width_now=half_now,
        coverage_now=_coverage_now(pilot, study, n0, seed), remaining_items=remaining,
        remaining_mc_se=mc_se, total_items=n0 + remaining, assurance=reached,
        assurance_se=share_se(reached, at.studies), assurance_now=float(narrow_now),
        planned_items=planned_items, assurance_planned=planned, budget=budget,
        final_coverage=at.coverage(remaining),
        final_coverage_se=share_se(at.coverage(remaining), at.studies),
        basis=f"{at.studies:,} simulated second stages, each under one of {len(pilot.draws)} "
        "bootstrap refits of the first stage's latent-class fit, added to the first stage",
        seed=seed, studies=at.studies, pilot=pilot, source=pilot.source,
        notes=_notes(pilot, study, first[2], half_now, narrow_now), costs=costs[0],
    )  # fmt: skip


def _notes(
    pilot: RatersPilot,
    study: RatersStudy,
    left_out: int,
    half_now: float,
    narrow_now: bool,
) -> list[str]:
    notes = list(pilot.notes)
    if left_out:
        notes.append(
            f"{left_out:,} items lack some annotator's label and are left out of the first "
            f"stage of {study.metric} (it needs every annotator on every item)"
        )
    if narrow_now:
        notes.insert(0, narrow_now_note(half_now, study.width))
    return notes


#: PSA needs two categories: the default metric of several categories is Fleiss' kappa
PSA_NEEDS_TWO = (
    "psa needs two categories and the labels in hand have {k}: planned for fleiss (name "
    "metric fleiss, alpha, conger or kappa to choose)"
)


def _refuse_pair_options(settings: PlanSettings) -> None:
    """Refuse a pair's option set to other than its default (``psa_method``,
    ``kappa_method``, ``annotators_per_item``): a study of several annotators does not take
    them."""
    from planner.sizing.plan import PlanSettings

    default = PlanSettings()
    for name in ("psa_method", "kappa_method", "annotators_per_item"):
        if getattr(settings, name) != getattr(default, name):
            raise InvalidInput(
                f"{name} applies to a study of two annotators; the labels in hand are of "
                "several, every one labelling every item",
                parameter=name,
            )


def plan_remaining_raters_from_file(
    path: str,
    plan_settings: PlanSettings | None = None,
    remaining: RemainingSettings | None = None,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    rng: RngLike = None,
) -> RemainingPlan:
    """:func:`plan_remaining_raters` from a label file of the items labelled so far (read as
    :func:`planner.sizing.pilot_latent_class.read_raters_pilot` reads a pilot; ``reader``: its
    options; ``positive``: the positive label of two categories).

    Raises
    ------
    InvalidInput
        Any of :func:`plan_remaining_raters`'s.
    """
    from planner.sizing.pilot_latent_class import read_raters_ratings

    ratings = read_raters_ratings(path, reader)
    return plan_remaining_raters(ratings, plan_settings, remaining, positive=positive, rng=rng)
