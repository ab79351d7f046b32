"""A multi-rater plan: items, hours for every label, and how precision changes with M.

:func:`plan_several_annotators` (:func:`planner.sizing.plan.make_plan` with a model of
several annotators) sizes the study
(:func:`planner.sizing.search.find_sample_size`), bills every label
(``items * labels per item``, as a pair's plan bills them: at the single rate or by a named
team, person by person, :func:`planner.sizing.team_cost.study_budget`; in a
``k``-of-``M`` design also the hours per annotator of the pool, ``items * k / M`` labels each
on average) and, at the hours of those labels at the budget's seconds, shows what
``M = 2 .. 6`` annotators per item would buy: items ``= floor(hours * 3600 / (M *
seconds_per_item))`` and the plug-in half-width at the expected counts of that study (the team
cycled from the given annotators).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from planner.operations.budget import SECONDS_PER_HOUR, labelling_hours
from planner.sizing.plan import Plan, PlanSettings, PrecisionRow, RatersPlan
from planner.sizing.raters_common import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.raters_model import MAX_ANNOTATORS, RatersModel
from planner.sizing.search import SampleSizeResult, find_sample_size
from planner.sizing.study_intervals import expected_half_width, pattern_space
from planner.sizing.team_cost import study_budget
from planner.validation import RngLike, check_instance, seed_from


def describe_model(model: AnyRatersModel) -> dict[str, Any]:
    """The model as the plan reports it: which kind, and its parameters."""
    if isinstance(model, CommonPrevalenceModel):
        return model.describe()
    return {
        "kind": "confusion",
        "n_annotators": model.n_annotators,
        "n_categories": model.n_categories,
        "prevalences": list(model.prevalences),
        "confusion": [[list(r) for r in mat] for mat in model.confusion],
        "ambiguity": model.ambiguity,
    }


def precision_by_annotators(
    model: AnyRatersModel,
    sizing: SampleSizeResult,
    hours: float,
    seconds_per_item: float,
) -> list[PrecisionRow]:
    """Items and plug-in half-width for ``M = 2 .. 6`` annotators per item at ``hours``."""
    rows = []
    for m in range(2, MAX_ANNOTATORS + 1):
        items = int(np.floor(hours * SECONDS_PER_HOUR / (m * seconds_per_item)))
        patterns, probs = pattern_space(model.with_annotators(m), sizing.metric)
        hw = expected_half_width(
            sizing.metric,
            patterns,
            probs,
            max(items, 2),
            level=sizing.level,
            confidence_level=sizing.confidence_level,
            n_categories=model.n_categories,
        )
        rows.append(PrecisionRow(m, items, labelling_hours([items], [seconds_per_item], m), hw))
    return rows


def _coverage_notes(sizing: SampleSizeResult) -> list[str]:
    """A note when the interval under-covers at the planned size."""
    if not sizing.under_covers:
        return []
    return [
        f"the {sizing.metric} interval under-covers here: {sizing.coverage:.3f} of "
        f"{sizing.replicates} simulated studies held the true value, against "
        f"{sizing.confidence_level:g} nominal; treat the half-width as optimistic"
    ]


def plan_several_annotators(
    model: AnyRatersModel,
    settings: PlanSettings,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> RatersPlan:
    """Size a study of several annotators and bill every label: what
    :func:`planner.sizing.plan.make_plan` does for a model of several annotators.

    The target, search effort, ``metric``, ``level`` and ``per_item`` of ``settings`` go to
    :func:`planner.sizing.search.find_sample_size`; ``seconds_per_item`` (one
    annotator, one item), ``hourly_rate``, ``adjudication_seconds`` (for each item whose
    labels do not all agree: :func:`planner.sizing.label_patterns.contested_share`) and a
    named ``team`` (each person's seconds and rate) bill the budget, as a pair's plan bills
    it (:func:`planner.sizing.team_cost.study_budget`); ``progress`` is passed to the
    search. The fixed-hours table spends the hours of every label at ``seconds_per_item``.

    Examples
    --------
    >>> from planner.sizing.plan import PlanSettings, make_plan
    >>> from planner.sizing.raters_model import raters_model
    >>> settings = PlanSettings(metric="fleiss", width=0.1, replicates=200)
    >>> plan = make_plan(raters_model(0.3, 4), settings, rng=1)
    >>> plan.budget.labels == 4 * plan.sizing.items
    True
    """
    what = "a PairModel, RatersModel or CommonPrevalenceModel (raters_model, ...)"
    check_instance("model", model, (RatersModel, CommonPrevalenceModel), what)
    s, per_item = settings, settings.per_item
    rng = seed_from(rng)  # as the search takes it: the seed it records
    sizing = find_sample_size(
        model, s.search_settings(s.metric, several=True), rng=rng, progress=progress
    )
    budget = study_budget(model, settings, sizing.items)
    notes = _coverage_notes(sizing)
    if per_item is None:  # every label at the budget's seconds, as the table's rows bill
        hours = labelling_hours([sizing.items], [s.seconds_per_item], model.n_annotators)
        table = precision_by_annotators(model, sizing, hours, s.seconds_per_item)
        if isinstance(model, RatersModel) and len(set(model.confusion)) > 1:
            notes.append("the table at fixed hours cycles the given annotators to reach M")
    else:
        table = []
    return Plan(
        model=model,
        settings=settings,
        results={sizing.metric: sizing},
        budgets={sizing.metric: budget},
        deciding_metric=sizing.metric,
        seed=rng,
        notes=notes,
        by_annotators=table,
    )
