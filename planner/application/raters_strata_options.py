"""The designs over strata of a scenario whose ``[annotators]`` label ``[[strata]]``.

:func:`raters_comparison_from_options` is what ``plan SCENARIO`` runs for such a scenario:
the options over the scenario over the defaults (:func:`planner.application.raters_options.
resolve`), one annotator model per stratum, and the uniform, enriched and weighted designs
(:func:`planner.sizing.compare.compare_raters_designs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.application.raters_options import resolve, settings_from_values, team_pricing_of
from planner.application.schedule_team import (
    DESIGNS_PRICED_NOTE,
    PILOT_OPTIONS,
    SEVERAL_OPTIONS,
    StrataWork,
    given_options,
    refuse_pair_options,
)
from planner.errors import InvalidInput
from planner.sizing.annotator_model import check_per_item
from planner.sizing.compare import (
    Comparison,
    StrataOptions,
    compare_raters_designs,
    enriched_shares,
)
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.raters_strata import (
    STRATA_METRICS,
    RatersStrata,
    raters_strata,
    stratum_raters_models,
)
from planner.sizing.study_intervals import UNDEFINED_RULE
from planner.validation import RULES, check, seed_from

#: options a comparison of designs over strata has no use for (each stratum states its
#: prevalence; the annotators label two categories, by error rates)
NOT_WITH_STRATA = (
    "prevalence", "n_categories", "confusion", "kappa", "level", "pilot",
    "items", "hours", "budget", "error_rate", "bias", "ambiguity",
)  # fmt: skip
#: the scenario keys of the designs (``[design]``), their defaults those of StrataOptions
DESIGN_KEYS = ("floor_items", "prevalence_width")


def has_strata(scenario: Any) -> bool:
    """Whether a several-annotator scenario has ``[[strata]]``."""
    return bool(getattr(scenario, "strata", ()))


def _refuse_options(options: dict[str, Any], scenario: Any) -> None:
    given = [k for k in NOT_WITH_STRATA if options.get(k) not in (None, {}, False)]
    if pilot_by_stratum(options, scenario).get("stratum_col") is not None:  # read by stratum
        given = [k for k in given if k != "pilot"]
    if options.get("curve"):
        given.append("curve")
    if not given:
        return
    name = given[0]
    if name in ("items", "hours", "budget", "curve"):
        why = "the designs size each stratum's items themselves"
    elif name == "prevalence":
        why = "each stratum states its own prevalence"
    elif name in ("error_rate", "bias", "ambiguity") and pilot_by_stratum(options, scenario):
        why = "each stratum's model is its pilot counts, read by stratum"
    elif name in ("error_rate", "bias", "ambiguity"):
        why = "set it in the file's [annotators] or [[strata]]"
    elif name == "pilot":
        why = (
            "a pilot of several annotators over strata is read by stratum: give the column "
            "naming each item's stratum (stratum_col)"
        )
    else:
        why = "the annotators label two categories, by error rates"
    raise InvalidInput(
        f"{name} does not combine with the strata of {Path(scenario.path).name}: {why}",
        parameter=name,
    )


def _named(parameter: str, from_file: set[str], scenario: Any, section: str) -> str:
    """A parameter as its value's source names it: the file's key, else the parameter."""
    return f"{scenario.path}: {section}" if parameter in from_file else parameter


def _count(values: dict[str, Any], from_file: set[str], scenario: Any) -> int:
    """The annotators on every item: 3 to 6 (two over strata are a pair's scenario)."""
    name = _named("n_annotators", from_file, scenario, "annotators.count")
    count = int(check(name, values["n_annotators"], RULES["n_annotators"]))
    if count == 2:
        raise InvalidInput(
            f"{name} 2 over [[strata]] is a pair: describe it with [model] and [[strata]] "
            "(no [annotators]), whose designs size Cohen's kappa and PSA",
            parameter="n_annotators" if name == "n_annotators" else None,
        )
    return count


def _per_item(values: dict[str, Any], from_file: set[str], scenario: Any, count: int) -> int | None:
    """``k`` of the ``count`` annotators on each item (2 to ``count - 1``), or None: all."""
    if values["per_item"] is None:
        return None
    try:
        return check_per_item(values["per_item"], count)
    except InvalidInput as exc:
        if "per_item" not in from_file:
            raise
        raise InvalidInput(f"{scenario.path}: annotators.{exc}") from None


def _metric(values: dict[str, Any], from_file: set[str], scenario: Any) -> str:
    """``psa`` (the default) or ``fleiss``: the metrics with a weighted interval."""
    metric = values["metric"] or "psa"
    if metric not in STRATA_METRICS:
        name = _named("metric", from_file, scenario, "annotators.metric")
        raise InvalidInput(
            f"{name} {metric} has no population-weighted interval over strata for several "
            f"annotators; give {' or '.join(STRATA_METRICS)}",
            parameter="metric" if name == "metric" else None,
        )
    return str(metric)


def _check_team(scenario: Any, labels: int, key: str) -> None:
    """A named team gives every item ``labels`` labels from different people (``key``, the
    scenario key that set them): it needs that many."""
    named = (getattr(scenario, "team", None) or {}).get("annotator") or []
    if named and len(named) < labels:
        raise InvalidInput(
            f"{scenario.path}: [team] names {len(named)} annotators, but every item gets "
            f"{key} {labels} labels from different people: name at least {labels}"
        )


@dataclass(frozen=True)
class ScenarioStrata:
    """A several-annotator scenario's strata resolved: their models, the plan's settings (the
    metric's, the labels an item, a named team's prices) and the designs' options."""

    strata: RatersStrata
    settings: PlanSettings
    extra: StrataOptions
    notes: tuple[str, ...] = ()


def raters_strata_of(options: dict[str, Any], scenario: Any) -> ScenarioStrata:
    """``scenario``'s strata with ``options`` (library parameter names, ``None`` = not
    given) over the scenario over the defaults: one annotator model per stratum.

    Raises
    ------
    InvalidInput
        An option the strata have no use for, a metric without a weighted interval, or a
        stratum whose model is infeasible (named as the file's key, ``strata[2].error_rate``,
        or the section's, ``annotators.error_rate``).
    """
    _refuse_options(options, scenario)
    values, from_file = resolve(options, scenario)
    count = _count(values, from_file, scenario)
    per_item = _per_item(values, from_file, scenario, count)
    metric = _metric(values, from_file, scenario)
    labels = count if per_item is None else per_item
    _check_team(scenario, labels, "annotators.count" if per_item is None else "annotators.per_item")
    parameter = "n_annotators" if per_item is None else "per_item"
    team = team_pricing_of(scenario, labels, values, parameter)  # named people, or None
    settings = settings_from_values(
        values, metric, annotators_per_item=labels, per_item=per_item, team=team
    )

    def key(name: str, i: int) -> str:  # a stratum's own key, else the section's
        own = getattr(scenario.strata[i - 1], name, None) is not None
        return f"strata[{i}].{name}" if own else f"annotators.{name}"

    defaults = {k: values[k] for k in ("error_rate", "bias", "ambiguity")}
    models = stratum_raters_models(
        scenario.strata, count, defaults, key, lambda i: f"{scenario.path}: "
    )
    strata = raters_strata(
        [s.name for s in scenario.strata],
        [s.share for s in scenario.strata],
        [s.seconds_per_item or settings.seconds_per_item for s in scenario.strata],
        models,
        per_item,
    )
    pilot = _pilot_patterns(options, scenario, strata)
    prevalences = [s.prevalence for s in scenario.strata]
    if pilot is not None:  # each stratum's patterns are its pilot's
        strata = replace(strata, probabilities=pilot.probabilities)
        prevalences = list(pilot.probabilities @ strata.patterns[:, 1] / strata.labels_per_item)
    extra = StrataOptions(
        scenario=scenario,
        prevalences=prevalences,
        enriched=enriched_shares(scenario, strata),  # type: ignore[arg-type]
        pilot_counts=None if pilot is None else pilot.counts,
        **{k: scenario.design[k] for k in DESIGN_KEYS if k in scenario.design},
    )
    return ScenarioStrata(strata, settings, extra, () if pilot is None else pilot.notes)


def pilot_by_stratum(options: dict[str, Any], scenario: Any) -> dict[str, Any]:
    """The pilot read by stratum: ``pilot``, ``stratum_col``, ``positive`` and
    ``pilot_reader`` as given, else the scenario's ``annotators.pilot_file``,
    ``pilot_stratum_col``, ``pilot_positive`` and reader keys (a pilot file given on the
    command line is read by the command line's reader options only). Empty without one."""
    section = getattr(scenario, "annotators", None)
    own = {
        "pilot": getattr(section, "pilot_file", None),
        "stratum_col": getattr(section, "pilot_stratum_col", None),
        "positive": getattr(section, "pilot_positive", None),
        "pilot_reader": getattr(section, "pilot_reader", None),
    }
    if options.get("pilot") is not None:  # the command line's file: not read as the scenario's
        own.update(pilot=None, pilot_reader=None)
    chosen = {k: options.get(k) if options.get(k) not in (None, {}) else v for k, v in own.items()}
    return chosen if chosen["stratum_col"] is not None or chosen["pilot"] is not None else {}


def _pilot_patterns(options: dict[str, Any], scenario: Any, strata: RatersStrata) -> Any:
    """A pilot read by stratum (:func:`pilot_by_stratum`): each stratum's items per count
    pattern (:func:`planner.sizing.strata_file.pilot_pattern_strata`); None without one."""
    pilot = pilot_by_stratum(options, scenario)
    if not pilot or pilot["stratum_col"] is None:
        return None
    if pilot["pilot"] is None:
        raise InvalidInput(
            "stratum_col names the strata of a file read by stratum: give that file (pilot)",
            parameter="stratum_col",
            parameters=("stratum_col", "pilot"),
        )
    from planner.sizing.strata_file import pilot_pattern_strata

    try:
        return pilot_pattern_strata(
            pilot["pilot"], list(strata.names), pilot["stratum_col"], strata.patterns,
            positive=pilot["positive"], reader=pilot["pilot_reader"] or None,
        )  # fmt: skip
    except InvalidInput as exc:
        named = _named_by_scenario(exc, options, scenario)
        if named is None:
            raise
        raise named from None


def _named_by_scenario(
    exc: InvalidInput, options: dict[str, Any], scenario: Any
) -> Exception | None:
    """A pilot reader's refusal with the scenario's settings named by their keys
    (``annotators.pilot_positive``): the keys the command line did not give, and the reader's
    keys too when the file is the scenario's own; a file given on the command line is read
    by the command line's reader options, whose refusals keep their own words (None)."""
    from planner.data.layout import LayoutUnclear, RoleConflict
    from planner.data.scenario import pilot_error_by_keys

    own = {k: f"pilot_{k}" for k in ("positive", "stratum_col") if options.get(k) is None}
    file_of_scenario = options.get("pilot") is None
    if file_of_scenario:
        return pilot_error_by_keys(exc, "annotators", own, source=scenario.path, reader=True)
    if not own or isinstance(exc, LayoutUnclear | RoleConflict):
        return None
    return pilot_error_by_keys(exc, "annotators", own, source=scenario.path, reader=False)


def raters_comparison_from_options(
    options: dict[str, Any],
    scenario: Any,
    *,
    rng: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """The three designs of ``scenario``'s strata with ``options`` (library parameter
    names, ``None`` = not given) over the scenario over the defaults
    (:func:`raters_strata_of`).

    Raises
    ------
    InvalidInput
        As :func:`raters_strata_of`, or a metric with no interval of positive width under
        the strata's models.
    """
    resolved = raters_strata_of(options, scenario)
    settings = resolved.settings
    try:
        found = compare_raters_designs(
            resolved.strata, settings, resolved.extra, rng=seed_from(rng), progress=progress
        )
    except InvalidInput as exc:
        if exc.rule != UNDEFINED_RULE:
            raise
        raise InvalidInput(
            f"{scenario.path}: {settings.metric} has no interval of positive width under the "
            "strata's models (the annotators never disagree, or never flag an item): change "
            "annotators.error_rate or strata[].error_rate"
        ) from None
    found.notes.extend(resolved.notes)
    if settings.team is not None:
        found.notes.append(DESIGNS_PRICED_NOTE)
    return found


def strata_work(scenario: Any, seed: int, options: dict[str, Any], design: str) -> StrataWork:
    """The work of ``design`` (uniform, enriched or weighted) of ``scenario``'s strata, sized
    with ``schedule``'s plan options (:data:`~planner.application.schedule_team.
    SEVERAL_OPTIONS` names)."""
    given = given_options(options)
    # a pilot read by stratum (given, or the scenario's annotators.pilot_file): its options
    # are the model
    by_stratum = bool(pilot_by_stratum(given, scenario))
    refuse_pair_options(scenario, given, allowed=PILOT_OPTIONS if by_stratum else ())
    library = {SEVERAL_OPTIONS[k]: v for k, v in given.items() if k in SEVERAL_OPTIONS}
    if by_stratum:
        library |= {k: given[k] for k in (*PILOT_OPTIONS, "stratum_col") if k in given}
    comparison = raters_comparison_from_options(library, scenario, rng=seed)
    chosen = comparison.designs[design]
    rows = comparison.strata
    items = list(chosen.items_per_stratum)
    seconds = [row["seconds_per_item"] for row in rows]
    contested = [row["contested_rate"] for row in rows]
    if chosen.prevalence_slice_items:
        items.append(chosen.prevalence_slice_items)
        seconds.append(float(sum(r["share"] * r["seconds_per_item"] for r in rows)))
        contested.append(comparison.population["contested_rate"])
    labels = comparison.raters.labels_per_item  # type: ignore[union-attr]
    note = (
        f"{Path(scenario.path).name}: the {design} design over its strata sizes "
        f"{chosen.items:,} items with {labels} annotators each; the schedule labels them"
    )
    return StrataWork(tuple(items), tuple(seconds), tuple(contested), labels, (note,))
