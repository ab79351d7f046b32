"""A plan from a pilot, under the pilot's uncertainty: the recommendation.

A plan whose model is a pilot's estimate (the plug-in plan) reaches its target only if the
pilot is the truth. The plan under the pilot's uncertainty averages the assurance over
plausible truths (the hybrid assurance, O'Hagan, Stevens & Campbell 2005); its size is the
recommendation, and the plug-in answer stays in the plan's ``results``.

* A pair's pilot counts ``(a, b, c, d)``: the truths are the posterior
  ``Dirichlet(counts + 1/2)`` of the four cells; PSA's plan by exact binomial sums
  (:func:`planner.sizing.uncertainty.items_under_uncertainty`), Cohen's kappa's by simulation
  (:func:`planner.sizing.uncertainty_kappa.kappa_items_under_uncertainty`), each called with
  the plan's own seed; the metric needing the most items decides
  (:func:`pilot_counts_uncertainty`, :func:`recommendation`).
* A pilot label file of ``M >= 3`` annotators: the truths are ``D`` item-bootstrap refits of
  its latent-class fit (:func:`planner.sizing.pilot_latent_class.read_raters_pilot`), and
  :func:`with_pilot_uncertainty` finds the smallest ``n`` whose hybrid assurance

  ``A_h(n) = (1 / D) sum_d P(half-width <= w | theta_d, n)``

  reaches the target (:func:`planner.sizing.uncertainty_refits.raters_items_under_uncertainty`).
  :func:`plan_from_raters_pilot_file` (or :func:`plan_from_raters_pilot`, for a pilot already
  read) plans the study of all ``M`` for the fit (:func:`planner.sizing.plan.make_plan`) and
  then adds it: what ``plan --pilot FILE --annotators M`` and a scenario's ``[annotators]
  pilot_file`` print. Every stream is a child of the plan's one seed: the bootstrap is
  ``default_rng([seed, PILOT_STREAM])``, the studies under uncertainty
  ``default_rng([seed, UNCERTAINTY_STREAM])``, the plug-in search the seed itself.

References
----------
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from planner.errors import InvalidInput, PlannerError
from planner.sizing.model import PairModel
from planner.sizing.pilot_latent_class import RatersPilot, read_raters_pilot
from planner.sizing.plan import Plan, PlanSettings, RatersPlan, Recommendation, make_plan
from planner.sizing.plan_settings import UNCERTAINTY_METHODS
from planner.sizing.precision import study_and_costs
from planner.sizing.search import SampleSizeResult
from planner.sizing.study_intervals import UNDEFINED_RULE
from planner.sizing.team_cost import study_budget
from planner.sizing.uncertainty_refits import raters_items_under_uncertainty
from planner.validation import RngLike, check_instance, seed_from


def pilot_counts_uncertainty(
    model: PairModel,
    settings: PlanSettings,
    results: dict[str, SampleSizeResult],
    draws: int,
    seed: int,
    notes: list[str],
) -> dict[str, Any]:
    """The plan under pilot uncertainty of each sized metric (a note where there is none),
    each called with the plan's seed."""
    if draws <= 0:
        notes.append(
            "pilot counts are used as the true cell probabilities; with few joint positives "
            "the planning PSA is itself uncertain, so compare with the worst case"
        )
        return {}
    out: dict[str, Any] = {}
    if "psa" in results:
        psa = _psa_uncertainty(model, settings, results, draws, seed, notes)
        if psa is not None:
            out["psa"] = psa
    if "kappa" in results:
        kappa = _kappa_uncertainty(model, settings, results, seed, notes)
        if kappa is not None:
            out["kappa"] = kappa
    return out


def recommendation(
    model: PairModel,
    results: dict[str, SampleSizeResult],
    by_metric: dict[str, Any],
    budget_for: Any,
) -> Recommendation | None:
    """The uncertainty-aware recommendation: per metric its answer under pilot uncertainty
    (the plug-in answer where there is none), the largest deciding; ``None`` without any."""
    if not by_metric:
        return None
    needs = {m: (by_metric[m].items if m in by_metric else r.items) for m, r in results.items()}
    metric = max(needs, key=lambda m: needs[m])
    items = int(needs[metric])
    return Recommendation(
        metric=metric,
        items=items,
        union_positives=items * model.union_rate,
        budget=budget_for(items),
        plug_in_items=results[metric].items,
    )


def _psa_uncertainty(
    model: PairModel,
    settings: PlanSettings,
    results: dict[str, SampleSizeResult],
    draws: int,
    seed: int,
    notes: list[str],
) -> Any:
    """PSA's plan under pilot uncertainty, or a note saying why there is none."""
    from planner.sizing.uncertainty import items_under_uncertainty

    if settings.psa_method not in UNCERTAINTY_METHODS:
        notes.append(
            "the plan under pilot uncertainty sizes PSA with the wilson, clopper-pearson or "
            "jeffreys interval only; the PSA answer above treats the pilot as the truth"
        )
        return None
    try:
        found = items_under_uncertainty(
            model, settings, draws=draws, plug_in_items=results["psa"].items, rng=seed
        )
    except PlannerError as exc:  # the plug-in plan stands; say why there is no second answer
        notes.append(f"no plan under pilot uncertainty for PSA: {exc}")
        return None
    notes.extend(f"PSA under pilot uncertainty: {note}" for note in found.notes)
    return found


def _kappa_uncertainty(
    model: PairModel,
    settings: PlanSettings,
    results: dict[str, SampleSizeResult],
    seed: int,
    notes: list[str],
) -> Any:
    """Kappa's plan under pilot uncertainty (Monte Carlo), or a note saying why there is none."""
    from planner.sizing.uncertainty_kappa import kappa_items_under_uncertainty

    if settings.kappa_method == "bootstrap":
        notes.append(
            "the plan under pilot uncertainty sizes kappa with the score, gof or fce interval "
            "only (the bootstrap is too slow); the kappa answer above treats the pilot as the truth"
        )
        return None
    try:
        found = kappa_items_under_uncertainty(
            model, settings, plug_in_items=results["kappa"].items, rng=seed
        )
    except PlannerError as exc:
        notes.append(f"no plan under pilot uncertainty for kappa: {exc}")
        return None
    notes.extend(f"kappa under pilot uncertainty: {note}" for note in found.notes)
    return found


#: spawn keys under the plan's seed: the pilot's bootstrap, the studies under uncertainty
PILOT_STREAM, UNCERTAINTY_STREAM = 4, 5


def pilot_bootstrap_seed(seed: int) -> int:
    """The seed of the pilot's bootstrap refits under the plan's ``seed``."""
    return seed_from(np.random.default_rng([seed, PILOT_STREAM]))


def with_pilot_uncertainty(
    plan: RatersPlan, pilot: RatersPilot, settings: PlanSettings
) -> RatersPlan:
    """``plan`` (of ``pilot.model``, with ``settings``) with the pilot, its plan under the
    pilot's uncertainty and that plan's budget, which become the recommendation.

    The studies under uncertainty are seeded from the plan's own seed (``plan.sizing.seed``,
    stream :data:`UNCERTAINTY_STREAM`), so the same plan gives the same answer. The notes are
    the pilot's (how it was read, what the fit assumes), then one that gives both answers,
    then the plan's.

    Raises
    ------
    TargetUnreachable
        When ``settings.max_items`` items do not reach the hybrid assurance.
    """
    check_instance("plan", plan, Plan, "a Plan of several annotators (make_plan)")
    if not plan.several:
        raise InvalidInput(
            "plan is a pair's; a pilot of several annotators takes the plan of its fit "
            "(make_plan of a RatersModel)",
            parameter="plan",
        )
    check_instance("pilot", pilot, RatersPilot, "a RatersPilot (read_raters_pilot)")
    s = plan.sizing
    seed = s.seed if s.seed is not None else seed_from(None)  # a search records its seed
    uncertainty = raters_items_under_uncertainty(
        pilot,
        study_and_costs(pilot.model, settings)[0],
        s.items,
        assurance=s.target_assurance,
        max_items=settings.max_items,
        rng=seed_from(np.random.default_rng([seed, UNCERTAINTY_STREAM])),
    )
    budget = study_budget(pilot.model, settings, uncertainty.items)
    both = (
        f"the recommendation, {uncertainty.items:,} items, counts the pilot's uncertainty "
        f"(hybrid assurance {uncertainty.hybrid_assurance:.3f}); {s.items:,} items reach the "
        f"target only if the pilot's fit is the truth (hybrid assurance "
        f"{uncertainty.plug_in_hybrid_assurance:.3f})"
    )
    return replace(
        plan,
        pilot=pilot,
        uncertainty=uncertainty,
        recommended=Recommendation(
            metric=settings.metric,
            items=uncertainty.items,
            union_positives=None,
            budget=budget,
            plug_in_items=s.items,
            basis="under the pilot's uncertainty",
        ),
        notes=[*pilot.notes, both, *plan.notes],
    )


def plan_from_raters_pilot_file(
    path: str | Path,
    settings: PlanSettings = PlanSettings(),  # noqa: B008 (frozen, so one shared default)
    *,
    reader: dict[str, Any] | None = None,
    positive: Any = None,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> RatersPlan:
    """The plan of all the annotators of the pilot label file ``path``, under its uncertainty.

    Parameters
    ----------
    path
        A label file of three to six annotators.
    settings
        Target, search effort and costs (``metric``: PSA by default; a pilot of three or
        more categories needs ``fleiss``, ``alpha`` or ``conger``).
    reader
        How to read the file, as :func:`planner.sizing.pilot_latent_class.read_raters_pilot` takes
        it (``layout``, ``item_col``, ``annotator_cols``, ...).
    positive
        The positive label of a binary pilot.
    rng
        The plan's seed (anything :func:`numpy.random.default_rng` takes): the bootstrap, the
        plug-in search and the studies under uncertainty are its streams.
    progress
        Called as ``progress(done, total)`` by the plug-in search.

    Examples
    --------
    >>> from planner import examples
    >>> plan = plan_from_raters_pilot_file(
    ...     examples.path("wide.csv"), PlanSettings(width=0.1, replicates=500),
    ...     reader={"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]},
    ...     positive="unsupported", rng=1,
    ... )
    >>> plan.pilot.annotators, plan.items == plan.recommended.items
    (('alice', 'bob', 'carol'), True)
    """
    seed = seed_from(rng)
    pilot = read_raters_pilot(path, reader, positive=positive, rng=pilot_bootstrap_seed(seed))
    return plan_from_raters_pilot(pilot, settings, rng=seed, progress=progress)


def plan_from_raters_pilot(
    pilot: RatersPilot,
    settings: PlanSettings = PlanSettings(),  # noqa: B008 (frozen, so one shared default)
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> RatersPlan:
    """The plan of a pilot already read (:func:`read_raters_pilot`), under its uncertainty:
    the plug-in plan of its fit (:func:`~planner.sizing.plan.make_plan`, seeded by ``rng``) and then
    :func:`with_pilot_uncertainty`.

    Raises
    ------
    InvalidInput
        Naming ``pilot`` when the metric is undefined under the pilot's fit, or its interval
        has no width there (annotators who never disagree).
    """
    check_instance("pilot", pilot, RatersPilot, "a RatersPilot (read_raters_pilot)")
    try:
        plan = make_plan(pilot.model, settings, rng=rng, progress=progress)
    except InvalidInput as exc:
        if exc.rule != UNDEFINED_RULE:
            raise
        why = str(exc).split(": change ", 1)[0].replace("this model", "the pilot's fit")
        raise InvalidInput(
            f"{pilot.source}: {why}; plan from another metric, or from a pilot whose "
            "annotators disagree on some items",
            parameter="pilot",
        ) from None
    return with_pilot_uncertainty(plan, pilot, settings)
