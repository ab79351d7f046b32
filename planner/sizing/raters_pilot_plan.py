"""The plan of a pilot of several annotators, under the pilot's uncertainty.

A pilot label file of ``M`` annotators gives a plug-in model, its latent-class fit
(:func:`planner.sizing.raters_pilot.read_raters_pilot`), and ``D`` bootstrap refits, each a
plausible truth. :func:`plan_from_raters_pilot_file` (or :func:`plan_from_raters_pilot`, for
a pilot already read) plans the study of all ``M`` for that model
(:func:`planner.sizing.raters_plan.plan_several_annotators`) and then, with
:func:`with_pilot_uncertainty`, the smallest ``n`` whose hybrid assurance

``A_h(n) = (1 / D) sum_d P(half-width <= w | theta_d, n)``

reaches the target (:func:`planner.sizing.raters_pilot.raters_items_under_uncertainty`):
that ``n`` and its budget are the recommendation, and the plug-in answer stays in
``sizing`` as what holds if the fit were the truth. This is what
``plan --pilot FILE --annotators M`` and a scenario's ``[annotators] pilot_file`` print.

Every stream is a child of the plan's one seed: the bootstrap is
``default_rng([seed, PILOT_STREAM])``, the studies under uncertainty
``default_rng([seed, UNCERTAINTY_STREAM])``, the plug-in search the seed itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from planner.errors import InvalidInput
from planner.sizing.plan import Plan, PlanSettings, RatersPlan, Recommendation
from planner.sizing.precision import study_and_costs
from planner.sizing.raters_pilot import (
    RatersPilot,
    raters_items_under_uncertainty,
    read_raters_pilot,
)
from planner.sizing.raters_plan import plan_several_annotators
from planner.sizing.study_intervals import UNDEFINED_RULE
from planner.sizing.team_cost import study_budget
from planner.validation import RngLike, check_instance, seed_from

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
        How to read the file, as :func:`planner.sizing.raters_pilot.read_raters_pilot` takes
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
    the plug-in plan of its fit (:func:`plan_several_annotators`, seeded by ``rng``) and then
    :func:`with_pilot_uncertainty`.

    Raises
    ------
    InvalidInput
        Naming ``pilot`` when the metric is undefined under the pilot's fit, or its interval
        has no width there (annotators who never disagree).
    """
    check_instance("pilot", pilot, RatersPilot, "a RatersPilot (read_raters_pilot)")
    try:
        plan = plan_several_annotators(pilot.model, settings, rng=rng, progress=progress)
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
