"""From a scenario file and command-line options to what ``schedule`` runs.

The operation that carries out a plan (or one design of a comparison over strata,
:func:`operation_for`), ``schedule``'s run of it (:func:`run_schedule`: plan unless the items
are given, then simulate the operation with the uniform team or person by person), and the
schedule section ``plan`` adds for a scenario with a ``[team]`` (:func:`schedule_for_plan`).
Options take the precedence of :mod:`planner.application.plan_options`; the team is a
:class:`~planner.application.schedule_team.TeamSettings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.application.plan_options import (
    PlanOptions,
    ResolvedOptions,
    model_on_command_line,
    resolve,
    run_plan,
)
from planner.application.schedule_team import (
    StrataWork,
    TeamChanges,
    TeamSettings,
    build_team,
    raters_work,
    resolve_team,
    team_operation,
    wants_named,
    work_of_several_plan,
)
from planner.data.scenario import Scenario, load_scenario
from planner.errors import InvalidInput
from planner.sizing.plan import Plan

if TYPE_CHECKING:  # compare loads only for stratified scenarios
    from collections.abc import Callable

    from planner.operations.workload import Operation
    from planner.sizing.compare import Comparison


DESIGNS = ("uniform", "enriched", "weighted")


def _stratified_operation(result: Comparison, design: str) -> tuple[list, list, list]:
    """Items, seconds and contested rates per stratum of one design of a comparison: each
    stratum's share of items whose labels do not all agree, in the strata the designs were
    sized on (a pair's ``p_b + p_c``, from the scenario or a pilot; several annotators'), and
    the prevalence slice's (traffic's)."""
    import numpy as np

    chosen = result.designs[design]
    items: list[float] = list(chosen.items_per_stratum)
    seconds = [s["seconds_per_item"] for s in result.strata]
    strata = result.design_strata
    if strata is None:
        raise ValueError("a comparison with the strata its designs were sized on is needed")
    contested = np.asarray(strata.contested(strata.probabilities), dtype=float).tolist()
    if chosen.prevalence_slice_items:
        shares = [s["share"] for s in result.strata]
        items.append(chosen.prevalence_slice_items)
        seconds.append(float(sum(w * s for w, s in zip(shares, seconds, strict=False))))
        if result.raters is not None:
            contested.append(result.population["contested_rate"])
        else:
            contested.append(float(sum(w * c for w, c in zip(shares, contested, strict=False))))
    return items, seconds, contested


def _work(result: Plan | Comparison, design: str) -> tuple[list, list, list, int]:
    """Items, seconds and contested rates per stratum, and the labels each item gets."""
    from planner.sizing.compare import Comparison

    settings = result.settings
    match result:
        case Comparison():
            labels = settings.annotators_per_item
            if result.raters is not None:  # every annotator, or per_item of them, on each item
                labels = result.raters.labels_per_item
            return (*_stratified_operation(result, design), labels)
        case Plan() if result.several:  # the recommendation's items, k labels each
            work = work_of_several_plan(result)
            items, contested = [work.items], [work.contested_rate]
            return items, [settings.seconds_per_item], contested, work.labels_per_item
        case Plan():
            items, contested = [result.items], [result.model.contested_rate]
            return items, [settings.seconds_per_item], contested, settings.annotators_per_item
    raise TypeError(f"operation_for takes a Plan or a Comparison, got {type(result).__name__}")


def operation_for(
    result: Plan | Comparison, team: TeamSettings, design: str = "weighted"
) -> Operation:
    """The labelling operation that carries out a plan (or one design of a comparison), of a
    pair or of several annotators (the items of the plan's recommendation, each labelled
    ``k`` times, the items whose labels are not unanimous adjudicated)."""
    from planner.operations.workload import Operation
    from planner.validation import RULES, check, check_choice

    check_choice("design", design, DESIGNS)
    items, seconds, contested, labels = _work(result, design)
    check("the items to schedule", sum(int(n) for n in items), RULES["items"])
    return Operation(
        items_per_stratum=tuple(int(n) for n in items),
        seconds_per_item=tuple(float(s) for s in seconds),
        contested_rate=tuple(float(c) for c in contested),
        labels_per_item=int(labels),
        **team.operation_fields(),
        adjudication_seconds=result.settings.adjudication_seconds,
        hourly_rate=result.settings.hourly_rate,
    )


ITEMS_REPLACE = ("prevalence", "pilot_counts", "union_rate", "psa", "width", "assurance")


def _schedule_notes(
    scenario: Scenario | None, cli: dict[str, Any], items: int | None, design: str | None
) -> list[str]:
    """Refuse options that contradict ``items``; notes for the options that have no effect."""
    from planner.validation import check_choice

    if items is not None:
        given = [k for k in ITEMS_REPLACE if cli.get(k) is not None]
        if given:
            raise InvalidInput(
                f"items fixes the study's size, so {', '.join(given)} would have no effect; "
                "drop them or drop items",
                parameter="items",
                parameters=("items", *given),
            )
    elif cli.get("contested_rate") is not None:
        raise InvalidInput(
            "contested_rate applies only with items; a planned study takes that share from "
            "its model",
            parameter="contested_rate",
            parameters=("items",),
        )
    if design is None:
        return []
    check_choice("design", design, DESIGNS)
    # a pilot read by stratum is each stratum's model: the strata stay, and so does the design
    from planner.application.raters_strata_options import pilot_by_stratum

    column = pilot_by_stratum(cli, scenario).get("stratum_col")  # given, or annotators.pilot_*
    by_stratum = cli.get("pilot") is not None and column is not None
    cli_model = model_on_command_line(cli) and not by_stratum
    if items is not None:
        why = "with `items` no design is planned"
    elif scenario is None or not scenario.strata:
        why = "the study has no strata to allocate"
    elif cli_model:
        why = "model options on the command line replace the scenario's strata"
    else:
        return []
    return [f"`design` {design} has no effect: {why}"]


def run_schedule(
    scenario_path: str | None,
    options: PlanOptions,
    cli_team: Mapping[str, Any],
    seed_fn: Callable[[int | None], int],
    *,
    items: int | None = None,
    design: str | None = None,
    progress=None,  # type: ignore[no-untyped-def]
    changes: TeamChanges | None = None,
    work: StrataWork | None = None,
) -> Any:
    """Plan (unless ``items`` or ``work`` is given) and simulate the operation that carries
    it out; ``work`` is given work per stratum (a stratified study in progress's remaining
    items, :func:`planner.application.strata_in_progress.remaining_work`).

    Every value is checked before any work starts, by the rules in
    :data:`planner.validation.RULES` (the team here and in
    :class:`~planner.operations.workload.Operation`,
    the budget by the plan's settings or the operation). ``design`` defaults to weighted;
    given where it has no effect, it yields a note on the result. A several-annotator
    scenario (``[annotators]``) is planned by its own plan, which gives the items and the
    annotators per item. A named team (people in the scenario's ``[team]``, or ``changes``
    that need them: :mod:`planner.application.schedule_team`) runs person by person
    (:func:`planner.operations.team_outcome.simulate_team`); a uniform team through the
    SimPy model. Returns ``(plan or None, ScheduleResult)``.
    """
    from planner.data.scenario_raters import RatersScenario
    from planner.operations.workload import simulate_schedule
    from planner.validation import RULES, check

    scenario = load_scenario(scenario_path) if scenario_path else None
    cli = options.given()
    several = isinstance(scenario, RatersScenario)
    merged = resolve(None if several else scenario, cli)
    if several and scenario is not None:  # its budget and seed (the rest: its own plan's)
        budget = {**_budget_of(scenario), "seed": scenario.simulation.get("seed")}
        merged = replace(merged, **{k: v for k, v in budget.items() if cli.get(k) is None})
    team = resolve_team(scenario, cli_team)
    notes = _schedule_notes(scenario, cli, items if work is None else sum(work.items), design)
    seed = seed_fn(merged.seed)
    check("seed", seed, RULES["seed"])
    plan = None
    given = (items, work, options.contested_rate or 0.0)
    shape, merged, said = _known_work(scenario, cli, merged, seed, given, design)
    notes = [*notes, *said]
    named = wants_named(scenario, changes)
    if named:  # the flat team may be smaller than k: the named team is checked instead
        team = replace(team, annotators=max(team.annotators, merged.annotators_per_item))
    if shape is not None:
        operation = _operation_of(shape, merged, team)
    else:
        plan, operation, said = _planned_operation(scenario_path, options, seed, team, design)
        notes = [*notes, *said]
    if scenario is not None and scenario.alt_test:
        notes.append("the LLM judge's labels take no human time: the schedule counts the humans'")
    if not named:
        result = simulate_schedule(operation, runs=team.runs, rng=seed, progress=progress)
        return plan, result.with_notes(notes)
    return plan, _named_schedule(
        scenario, operation, merged, team, cli_team, changes, seed, progress
    ).with_notes(notes)


Shape = tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]


def _known_work(
    scenario: Any,
    cli: dict[str, Any],
    merged: ResolvedOptions,
    seed: int,
    given: tuple[int | None, StrataWork | None, float],
    design: str | None,
) -> tuple[Shape | None, ResolvedOptions, list[str]]:
    """The work known before a pair's plan: items, seconds and contested shares per stratum
    (None when the pair's plan sizes it), ``merged`` with its labels per item, and notes.

    ``given`` is ``(items, work, contested_rate)``: work per stratum as given, else a
    several-annotator scenario's design over its strata or its plan, else ``items`` at the
    budget's seconds and ``contested_rate``.
    """
    from planner.data.scenario_raters import RatersScenario
    from planner.validation import RULES, check

    items, strata, contested = given
    several, notes = isinstance(scenario, RatersScenario), []
    if strata is None and several and items is None and getattr(scenario, "strata", None):
        from planner.application.raters_strata_options import strata_work

        strata = strata_work(scenario, seed, cli, design or "weighted")
    if strata is not None:
        notes = list(strata.notes)
        merged = replace(merged, annotators_per_item=strata.labels_per_item)
        return (strata.items, strata.seconds_per_item, strata.contested_rate), merged, notes
    if several and items is None:
        if cli.get("stratum_col") is not None:  # no strata here (those above returned)
            raise InvalidInput(
                f"stratum_col reads a file by stratum: {Path(scenario.path).name} has no "
                "[[strata]]",
                parameter="stratum_col",
            )
        sized = raters_work(scenario, seed, cli)
        items, contested, notes = sized.items, sized.contested_rate, list(sized.notes)
        merged = replace(merged, annotators_per_item=sized.labels_per_item)
    elif several and cli.get("annotators_per_item") is None:  # given items: the file's labels
        section = getattr(scenario, "annotators", None)
        labels = getattr(section, "per_item", None) or getattr(section, "count", None)
        if labels is not None:
            merged = replace(merged, annotators_per_item=int(labels))
    if items is None:
        return None, merged, notes
    items = check("items", items, RULES["items"])
    return ((items,), (merged.seconds_per_item,), (contested,)), merged, notes


def _planned_operation(
    scenario_path: str | None,
    options: PlanOptions,
    seed: int,
    team: TeamSettings,
    design: str | None,
) -> tuple[Plan | Comparison, Operation, list[str]]:
    """The plan ``run_plan`` makes of the options, the operation that carries it out (one
    design of a comparison), and what the schedule says of it."""
    plan = run_plan(scenario_path, options, lambda _: seed)
    operation = operation_for(plan, team, design or "weighted")
    notes = []
    rows = getattr(plan, "strata", None) or []
    if any(row.get("model_source") == "pilot" for row in rows):  # a pilot read by stratum
        from planner.sizing.strata_file import PILOT_STRATA_NOTE

        notes.append(PILOT_STRATA_NOTE)
    return plan, operation, notes


def _operation_of(
    shape: tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]],
    merged: ResolvedOptions,
    team: TeamSettings,
) -> Operation:
    """The operation of given work: items, seconds per item and contested shares per
    stratum, labelled at ``merged``'s labels per item by ``team``."""
    from planner.operations.workload import Operation
    from planner.validation import RULES, check

    labels = check("annotators_per_item", merged.annotators_per_item, RULES["labels_per_item"])
    return Operation(
        items_per_stratum=shape[0],
        seconds_per_item=shape[1],
        contested_rate=shape[2],
        labels_per_item=labels,
        **team.operation_fields(),
        adjudication_seconds=merged.adjudication_seconds,
        hourly_rate=merged.hourly_rate,
    )


def _budget_of(scenario: Any) -> dict[str, Any]:
    """The budget keys of a several-annotator scenario (its other sections are its plan's)."""
    keys = ("seconds_per_item", "adjudication_seconds", "hourly_rate")
    return {k: scenario.budget[k] for k in keys if k in scenario.budget}


def _named_schedule(  # type: ignore[no-untyped-def]
    scenario,
    operation,
    merged: ResolvedOptions,
    team: TeamSettings,
    cli_team,
    changes,
    seed,
    progress,
) -> Any:
    """The person-by-person schedule of ``operation``'s work by the named team."""
    from planner.operations.team_outcome import simulate_team

    changes = changes or TeamChanges()
    people = build_team(scenario, asdict(team), changes, cli_team.get("annotators") is not None)
    op = team_operation(operation, people, merged.seconds_per_item, merged.hourly_rate)
    return simulate_team(
        op,
        runs=team.runs,
        rng=seed,
        deadline=changes.deadline,
        progress=progress,
        engine=changes.engine,
    )


PLAN_SECTION_RUNS = 50


def schedule_for_plan(
    scenario_path: str | None,
    result: Any,
    *,
    runs: int | None = PLAN_SECTION_RUNS,
    seed: int | None = None,
) -> Any:
    """The schedule section of ``plan`` (a pair's plan, several annotators' or a comparison
    of designs): only when the scenario has a [team] table.

    Uses at most ``runs`` runs (:data:`PLAN_SECTION_RUNS` keeps ``plan`` quick; None: the
    team's own number, as ``planner schedule`` and reports run) and ``seed`` (default the
    plan's). A named team runs person by person.
    """
    if not scenario_path:
        return None
    from planner.operations.workload import simulate_schedule

    scenario = load_scenario(scenario_path)
    if not scenario.team:
        return None
    seed = result.seed if seed is None else seed
    team = resolve_team(scenario)
    if wants_named(scenario, None):  # the flat team may be smaller than k: the named is checked
        labels = _work(result, "weighted")[3]
        team = replace(team, annotators=max(team.annotators, labels))
    operation = operation_for(result, team, "weighted")
    runs = team.runs if runs is None else min(team.runs, runs)
    if wants_named(scenario, None):
        from planner.operations.team_outcome import simulate_team

        people = build_team(scenario, asdict(team), TeamChanges(), False)
        settings = result.settings
        op = team_operation(operation, people, settings.seconds_per_item, settings.hourly_rate)
        return simulate_team(op, runs=runs, rng=seed)
    return simulate_schedule(operation, runs=runs, rng=seed)
