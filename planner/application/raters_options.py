"""A multi-rater plan from options over a scenario's ``[annotators]`` over the defaults.

:func:`raters_plan_from_options` is to ``plan --annotators M`` and ``plan SCENARIO`` (a
scenario with an ``[annotators]`` section, :mod:`planner.data.scenario_raters`) what
:mod:`planner.application.plan_options` is to the pair's plan: the one place where a value given
as an option wins over the scenario file, which wins over the documented default. An error
in a value that came from the file names the file and its key
("toxicity.toml: annotators.confusion row 2 of annotator 1 must sum to 1, got 0.9").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.application.fixed_size import (
    fixed_size_given,
    refuse_unpriced_budget,
    with_fixed_size,
)
from planner.application.precedence import SETTING_SOURCES, named_by_file, resolve_values
from planner.application.schedule_team import plan_pricing, pricing_note
from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.common_prevalence_model import AnyRatersModel, common_prevalence_model
from planner.sizing.label_patterns import contested_share
from planner.sizing.pilot_latent_class import RatersPilot, read_raters_pilot
from planner.sizing.plan import PlanSettings, RatersPlan, make_plan
from planner.sizing.plan_under_pilot import pilot_bootstrap_seed, plan_from_raters_pilot
from planner.validation import seed_from

if TYPE_CHECKING:
    from planner.sizing.team_cost import TeamPricing

#: library parameter -> (scenario section, key) for values a scenario can give
FROM_SCENARIO = {
    "n_annotators": ("annotators", "count"),
    "per_item": ("annotators", "per_item"),
    "n_categories": ("annotators", "categories"),
    "prevalence": ("annotators", "prevalence"),
    "error_rate": ("annotators", "error_rate"),
    "bias": ("annotators", "bias"),
    "confusion": ("annotators", "confusion"),
    "ambiguity": ("annotators", "ambiguity"),
    "kappa": ("annotators", "kappa"),
    "metric": ("annotators", "metric"),
    "level": ("annotators", "level"),
    **SETTING_SOURCES,
}
#: the defaults of an option given neither on the command line nor in the scenario: the
#: plan settings' own, save three annotators and 2,000 replicates (the several-annotator
#: search's: a rough search on 2,000 nested studies, then four times as many near its answer)
DEFAULTS: dict[str, Any] = {
    **{
        name: getattr(PlanSettings(), name)
        for name in (
            "width", "confidence_level", "assurance", "max_items", "seconds_per_item",
            "adjudication_seconds", "level",
        )
    },
    "n_annotators": 3,
    "replicates": 2000,
}  # fmt: skip
_NOT_WITH_KAPPA = ("error_rate", "bias", "confusion", "ambiguity")


def resolve(options: dict[str, Any], scenario: Any = None) -> tuple[dict[str, Any], set[str]]:
    """Every parameter's value (option, else scenario, else default) and which came from
    the scenario file (:func:`planner.application.precedence.resolve_values`)."""
    return resolve_values(options, scenario, FROM_SCENARIO, DEFAULTS)


def _model(values: dict[str, Any]) -> AnyRatersModel:
    prevalence = values["prevalence"]
    if prevalence is None:
        raise InvalidInput(
            "prevalence is required with several annotators: P or P1,...,PK",
            parameter="prevalence",
        )
    if isinstance(prevalence, list | tuple) and len(prevalence) == 1:
        prevalence = prevalence[0]
    if values["kappa"] is not None:
        clash = [name for name in _NOT_WITH_KAPPA if values[name] is not None]
        if clash:
            raise InvalidInput(
                "kappa gives kappaSize's common-prevalence model, which has no ground truth "
                f"and no per-annotator errors: it does not combine with {clash[0]}",
                parameter="kappa",
            )
        return common_prevalence_model(
            prevalence,
            values["n_annotators"],
            kappa=values["kappa"],
            n_categories=values["n_categories"],
        )
    confusion = values["confusion"]
    return raters_model(
        prevalence,
        values["n_annotators"],
        n_categories=values["n_categories"],
        error_rate=values["error_rate"],
        bias=values["bias"] if values["bias"] is not None else 0.0,
        confusion=None if confusion is None else [np.asarray(m) for m in confusion],
        ambiguity=values["ambiguity"] or 0.0,
        spread="uniform" if values["level"] == "nominal" else "adjacent",
    )


def settings_from_values(values: dict[str, Any], metric: str, **extra: Any) -> PlanSettings:
    """The plan settings of resolved ``values`` (:func:`resolve`) for ``metric``, with
    ``extra`` settings."""
    return PlanSettings(metric=metric, **{k: values[k] for k in SETTING_SOURCES}, **extra)


def _named_by_file(exc: InvalidInput, scenario: Any, from_file: set[str]) -> InvalidInput:
    """The error with its leading parameter name replaced by "file: section.key"."""
    return named_by_file(exc, scenario, from_file, FROM_SCENARIO)


def raters_model_from_options(options: dict[str, Any], scenario: Any = None) -> AnyRatersModel:
    """The model of the annotators that :func:`raters_plan_from_options` plans for."""
    values, from_file = resolve(options, scenario)
    try:
        return _model(values)
    except InvalidInput as exc:
        raise _named_by_file(exc, scenario, from_file) from None


#: the model's options, which a pilot file replaces
PILOT_REPLACES = (
    "prevalence", "error_rate", "bias", "confusion", "ambiguity", "kappa", "n_categories",
)  # fmt: skip


def _pilot_source(options: dict[str, Any], scenario: Any) -> tuple[Any, dict[str, Any], Any]:
    """The pilot file, its reader settings and positive label: the options' (which win),
    else the scenario's ``annotators.pilot_file`` (``None`` when neither names one)."""
    section = getattr(scenario, "annotators", None)
    in_file = section if section is not None and section.pilot_file is not None else None
    path = options.get("pilot")
    if path is not None and scenario is not None and in_file is None:
        raise InvalidInput(
            "pilot gives the annotators' model; it does not combine with a scenario's "
            "[annotators] model (give the scenario annotators.pilot_file instead)",
            parameter="pilot",
        )
    if in_file is None or path is not None:  # another file: the scenario's keys read its own
        return path, dict(options.get("pilot_reader") or {}), options.get("positive")
    reader = {**in_file.pilot_reader, **(options.get("pilot_reader") or {})}  # flags win
    return in_file.pilot_file, reader, options.get("positive") or in_file.pilot_positive


def _pilot(options: dict[str, Any], scenario: Any, seed: int) -> RatersPilot | None:
    """The pilot file's fit, when ``options`` or the scenario name one (its model replaces
    the options')."""
    path, reader, positive = _pilot_source(options, scenario)
    if path is None:
        return None
    clash = [name for name in PILOT_REPLACES if options.get(name) is not None]
    from_file = options.get("pilot") is None  # the scenario's annotators.pilot_file
    if clash and from_file:
        raise InvalidInput(
            f"{clash[0]} describes the annotators' model, which the pilot file "
            f"{scenario.path}: annotators.pilot_file gives",
            parameter=clash[0],
        )
    if clash:
        raise InvalidInput(
            f"pilot gives the annotators' model; it does not combine with {clash[0]}",
            parameter="pilot",
            parameters=(clash[0],),
        )
    bootstrap = pilot_bootstrap_seed(seed)
    try:
        pilot = read_raters_pilot(path, reader or None, positive=positive, rng=bootstrap)
    except InvalidInput as exc:
        if not from_file:
            raise
        key = "pilot_positive" if getattr(exc, "parameter", None) == "positive" else "pilot_file"
        raise InvalidInput(f"{scenario.path}: annotators.{key}: {exc}") from None
    m = options.get("n_annotators") or scenario_count(scenario)
    if m is not None and m != pilot.model.n_annotators:
        raise InvalidInput(
            f"n_annotators {m} does not match the pilot's {pilot.model.n_annotators} "
            f"annotators ({', '.join(pilot.annotators)}): the plan is for them",
            parameter="n_annotators",
        )
    return pilot


#: the plan settings that price a label and an adjudication for people without their own
COST_VALUES = ("seconds_per_item", "adjudication_seconds", "hourly_rate")


def scenario_count(scenario: Any) -> int | None:
    """The scenario's ``annotators.count``, or ``None`` (no scenario, or not given)."""
    section = getattr(scenario, "annotators", None)
    return None if section is None else section.count


def team_pricing_of(
    scenario: Any, labels_per_item: int, values: dict[str, Any], labels_parameter: str
) -> TeamPricing | None:
    """The named team's price of an item (``[[team.annotator]]`` and its adjudicators), as a
    pair's plan prices it (:func:`planner.application.schedule_team.plan_pricing`), or None
    without named annotators. ``labels_parameter`` names the parameter that set the labels
    per item (``n_annotators`` or ``per_item``) in the error of a team too small for them."""
    if scenario is None:
        return None
    costs = PlanSettings(**{k: values[k] for k in COST_VALUES})  # the budget's, for the rest
    return plan_pricing(
        scenario, costs, labels_per_item, from_file=False, labels_parameter=labels_parameter
    )


def raters_plan_from_options(
    options: dict[str, Any],
    scenario: Any = None,
    *,
    rng: np.random.Generator | int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RatersPlan:
    """The multi-rater plan for ``options`` (library parameter names, ``None`` = not given)
    over ``scenario`` (a :class:`planner.data.scenario_raters.RatersScenario`).

    ``options`` may also hold one of ``items``, ``hours`` or ``budget`` (the precision a
    study of that size buys: :func:`planner.sizing.precision.raters_fixed_size`) and
    ``curve`` (the assurance against items around the planned size, or the fixed size).

    Raises
    ------
    InvalidInput
        A value outside its range: named as the parameter, or as the file and key when it
        came from the scenario.
    """
    if getattr(scenario, "strata", ()):
        raise InvalidInput(
            f"{scenario.path}: several annotators over [[strata]] are planned as three designs "
            "(raters_comparison_from_options), not as one population"
        )
    if options.get("stratum_col") is not None:  # a pilot by stratum needs the strata
        why = (
            f"{Path(scenario.path).name} has no [[strata]]"
            if scenario is not None
            else "it needs a scenario with [[strata]]"
        )
        raise InvalidInput(f"stratum_col reads a file by stratum: {why}", parameter="stratum_col")
    values, from_file = resolve(options, scenario)
    seed = seed_from(rng)
    try:
        given = fixed_size_given(options)
        pilot = _pilot(options, scenario, seed)
        model = _model(values) if pilot is None else pilot.model
        metric = values["metric"] or ("psa" if model.n_categories == 2 else "fleiss")
        per_item = values["per_item"]
        k, labels_parameter = (
            (model.n_annotators, "n_annotators") if per_item is None else (per_item, "per_item")
        )
        team = team_pricing_of(scenario, k, values, labels_parameter)
        settings = settings_from_values(
            values, metric, level=values["level"], per_item=per_item, team=team
        )
        refuse_unpriced_budget(given, settings, contested_share(model), k)
        if pilot is None:
            plan = make_plan(model, settings, rng=seed, progress=progress)
        else:
            plan = plan_from_raters_pilot(pilot, settings, rng=seed, progress=progress)
        if team is not None:  # the recommendation's items are the ones billed
            plan.notes.append(pricing_note(team, plan.items, plan.budget.contested_items))
        plan = with_fixed_size(plan, given, curve=bool(options.get("curve")), seed=seed)
    except InvalidInput as exc:
        raise _named_by_file(exc, scenario, from_file) from None
    stated = values["confusion"] is not None or values["kappa"] is not None or plan.pilot
    if values["level"] != "nominal" and not stated:
        plan.notes.append(
            f"at level {values['level']} the annotators' errors fall on the adjacent categories "
            "(an error is one step away); at level nominal they spread evenly over the other "
            "categories: give `confusion` to state them otherwise"
        )
    return plan
