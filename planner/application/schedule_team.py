"""``schedule``'s team: from a scenario's ``[team]`` and the options to the flat
:class:`TeamSettings` (:func:`resolve_team`) and to a named :class:`Team`.

Precedence (as for every option): the command line beats the scenario, which beats the
defaults. The team is *named* when the scenario lists ``[[team.annotator]]`` or dates
(``start``, ``holidays``), or when an option needs people or dates (``start``, ``deadline``,
``add``, ``without``, ``assignment``, ``min_shared_items``); otherwise the uniform team of the
flat keys runs through the SimPy model as before. A person's ``seconds_per_item`` replaces the
budget's for them (a stratum's time scales by their ratio to it); their ``hourly_rate`` prices
their hours (the budget's rate prices the hours of people who give none). ``team_size`` (the
flat ``annotators``) with named annotators is refused: the list is the team.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.data.scenario import TEAM_DEFAULTS, Scenario
from planner.data.scenario_team import NAMED_TEAM_KEYS, to_date
from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.operations.team import Team
    from planner.operations.team_schedule import TeamOperation
    from planner.operations.workload import Operation
    from planner.sizing.team_cost import TeamPricing


@dataclass(frozen=True)
class TeamSettings:
    """The labelling team of ``schedule`` (documented defaults; see :func:`resolve_team`)."""

    annotators: int = int(TEAM_DEFAULTS["annotators"])
    hours_per_day: float = TEAM_DEFAULTS["hours_per_day"]
    days_per_week: int = int(TEAM_DEFAULTS["days_per_week"])
    time_spread: float = TEAM_DEFAULTS["time_spread"]
    attention_check_share: float = TEAM_DEFAULTS["attention_check_share"]
    attention_fail_rate: float = TEAM_DEFAULTS["attention_fail_rate"]
    requalification_hours: float = TEAM_DEFAULTS["requalification_hours"]
    adjudicators: int = int(TEAM_DEFAULTS["adjudicators"])
    runs: int = int(TEAM_DEFAULTS["runs"])

    def operation_fields(self) -> dict[str, Any]:
        """The settings an :class:`~planner.operations.workload.Operation` takes (not runs)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "runs"}


def resolve_team(
    scenario: Scenario | None, cli_team: Mapping[str, Any] | None = None
) -> TeamSettings:
    """Team settings: defaults, then the scenario's [team], then the command line.

    Every value is checked against its rule in :data:`planner.validation.RULES` (a scenario's
    were checked at load, naming the file and key), so a bad option fails before planning.
    """
    from planner.validation import RULES, check

    team: dict[str, Any] = {f.name: getattr(TeamSettings(), f.name) for f in fields(TeamSettings)}
    if scenario is not None:  # the flat keys (the named people: application/schedule_team.py)
        team.update({k: v for k, v in scenario.team.items() if k in team})
    team.update({k: v for k, v in (cli_team or {}).items() if v is not None})
    return TeamSettings(**{key: check(key, value, RULES[key]) for key, value in team.items()})


@dataclass(frozen=True)
class TeamChanges:
    """``schedule``'s options about people and dates (None / empty: not given).

    ``add`` holds person specs (:func:`planner.operations.team.person_from_text`),
    ``without`` names, each optionally ``NAME@DATE`` (gone from that date on).
    """

    start: dt.date | None = None
    deadline: dt.date | None = None
    add: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    assignment: str | None = None
    min_shared_items: int | None = None
    engine: str = "auto"

    def given(self) -> list[str]:
        """The parameters given that need a named team."""
        keys = ("start", "deadline", "add", "without", "assignment", "min_shared_items")
        return [k for k in keys if getattr(self, k) not in (None, ())]


def named_values(scenario: Scenario | None) -> dict[str, Any]:
    """The scenario's named-team keys (people, dates, policies), checked at load."""
    if scenario is None:
        return {}
    return {k: v for k, v in scenario.team.items() if k in NAMED_TEAM_KEYS}


def wants_named(scenario: Scenario | None, changes: TeamChanges | None) -> bool:
    """Whether the schedule needs the person-by-person model."""
    return bool(named_values(scenario)) or bool(changes and changes.given())


def build_team(
    scenario: Scenario | None,
    flat: dict[str, Any],
    changes: TeamChanges,
    team_size_given: bool,
) -> Team:
    """The named team: the scenario's people (or ``annotators`` identical ones) with the
    command line's changes applied."""
    from planner.operations.team import person_from_text, team_from_settings

    named = dict(named_values(scenario))
    if "annotator" in named and team_size_given:
        raise InvalidInput(
            "team_size cannot change a team of named annotators (add or drop people by name)",
            parameter="team_size",
        )
    for key in ("start", "assignment", "min_shared_items"):
        if getattr(changes, key) is not None:
            named[key] = getattr(changes, key)
    team = team_from_settings(flat, named)
    for spec in changes.add:
        defaults: dict[str, Any] = {
            k: flat[k]
            for k in ("hours_per_day", "time_spread", "attention_check_share")
            if k in flat
        }
        person = person_from_text(spec, defaults)
        if person.name in {p.name for p in team.annotators}:
            raise InvalidInput(
                f"add names {person.name!r}, who is already on the team", parameter="add"
            )
        team = team.with_person(person)
    for spec in changes.without:
        name, _, when = spec.partition("@")
        team = team.without(name.strip(), to_date("without", when) if when else None)
    return team


def team_operation(
    op: Operation, team: Team, budget_seconds: float, hourly_rate: float | None
) -> TeamOperation:
    """The named team's operation for the work of ``op`` (items, strata, k, adjudication)."""
    from planner.operations.team_schedule import TeamOperation

    contested = any(rate > 0 for rate in op.contested_rate)
    if not (contested and op.adjudication_seconds > 0):  # nothing to adjudicate
        team = replace(team, adjudicators=())
    elif not team.adjudicators and op.adjudicators:
        from planner.operations.team import Person

        lead = team.annotators[0]
        people = tuple(
            Person(f"adjudicator {i}", hours_per_day=lead.hours_per_day, days=lead.days)
            for i in range(1, op.adjudicators + 1)
        )
        team = replace(team, adjudicators=people)
    return TeamOperation(
        items_per_stratum=op.items_per_stratum,
        seconds_per_item=op.seconds_per_item,
        contested_rate=op.contested_rate,
        labels_per_item=op.labels_per_item,
        team=team,
        budget_seconds=budget_seconds,
        adjudication_seconds=op.adjudication_seconds,
        hourly_rate=hourly_rate,
    )


#: ``plan``'s options (by name) as the several-annotator plan's parameters
SEVERAL_OPTIONS = {
    "prevalence": "prevalence",
    "error_rate": "error_rate",
    "bias": "bias",
    "ambiguity": "ambiguity",
    "kappa": "kappa",
    "width": "width",
    "confidence": "confidence_level",
    "assurance": "assurance",
    "metric": "metric",
    "replicates": "replicates",
    "max_items": "max_items",
    "seconds_per_item": "seconds_per_item",
    "adjudication_seconds": "adjudication_seconds",
    "hourly_rate": "hourly_rate",
}
#: options that describe one pair (refused with a several-annotator scenario)
PAIR_ONLY = ("union_rate", "psa", "pilot_counts", "pilot", "pair", "positive", "psa_method",
             "kappa_method", "annotators_per_item")  # fmt: skip
#: the pilot's options, which a several-annotator scenario with ``pilot_file`` takes too
PILOT_OPTIONS = ("pilot", "positive", "pilot_reader")


@dataclass(frozen=True)
class SeveralWork:
    """What a several-annotator plan gives its schedule: items, labels per item, the share
    of items whose labels are not unanimous (adjudicated), and a note."""

    items: int
    labels_per_item: int
    contested_rate: float
    notes: tuple[str, ...]


@dataclass(frozen=True)
class StrataWork:
    """What a study over strata gives its schedule: items, seconds per item and the share
    of items whose labels are not unanimous, per stratum (one design's, with its prevalence
    slice; or a study in progress's remaining items), the labels each item gets, and notes."""

    items: tuple[int, ...]
    seconds_per_item: tuple[float, ...]
    contested_rate: tuple[float, ...]
    labels_per_item: int
    notes: tuple[str, ...]


def given_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """The options given (``None`` and an empty mapping are not)."""
    return {k: v for k, v in (options or {}).items() if v is not None and v != {}}


def refuse_pair_options(
    scenario: Any, given: dict[str, Any], allowed: tuple[str, ...] = ()
) -> None:
    """One line for the first of :data:`PAIR_ONLY` given (but ``allowed``): it describes one
    pair, not the several-annotator ``scenario``."""
    for name in PAIR_ONLY:
        if name == "pilot" and name in given and name not in allowed:
            _refuse_pilot(scenario)
        if name in given and name not in allowed:
            raise InvalidInput(
                f"{name} describes one pair and does not combine with the several-annotator "
                f"scenario {Path(scenario.path).name}",
                parameter=name,
            )


def _refuse_pilot(scenario: Any) -> None:
    """A pilot file beside a several-annotator scenario: over strata it is read by stratum;
    else the scenario's ``[annotators]`` model is the model, and its ``pilot_file`` the way."""
    if getattr(scenario, "strata", None):
        raise InvalidInput(
            "a pilot of several annotators over strata is read by stratum: give the column "
            "naming each item's stratum (stratum_col)",
            parameter="pilot", parameters=("stratum_col",),
        )  # fmt: skip
    raise InvalidInput(
        f"pilot gives the annotators' model; it does not combine with the [annotators] model of "
        f"{Path(scenario.path).name} (give the scenario annotators.pilot_file instead)",
        parameter="pilot",
    )


def raters_work(scenario: Any, seed: int, options: dict[str, Any] | None = None) -> SeveralWork:
    """The work of a several-annotator scenario, from its plan with ``plan``'s options.

    The contested share is the plan's: ``1 - sum`` of the unanimous count patterns'
    probabilities for the ``k`` labels an item gets
    (:func:`planner.sizing.label_patterns.contested_share` of the plan's model; every subset
    of ``k`` of the ``M`` equally likely), as a pair's is its ``p_b + p_c``.

    Raises
    ------
    InvalidInput
        An option that describes one pair (``psa``, ``union_rate``, ...), named.
    """
    given = given_options(options)
    piloted = getattr(scenario.annotators, "pilot_file", None) is not None
    refuse_pair_options(scenario, given, allowed=PILOT_OPTIONS if piloted else ())
    library = {SEVERAL_OPTIONS[k]: v for k, v in given.items() if k in SEVERAL_OPTIONS}
    library |= {k: given[k] for k in PILOT_OPTIONS if piloted and k in given}
    for key in ("prevalence", "error_rate", "bias"):  # the several-annotator plan takes lists
        value = library.get(SEVERAL_OPTIONS[key])
        if value is not None and not isinstance(value, list | tuple):
            library[SEVERAL_OPTIONS[key]] = [value] if key != "prevalence" else value
    return several_work(library, scenario, seed)


def several_work(library: dict[str, Any], scenario: Any, seed: int) -> SeveralWork:
    """The work of the several-annotator plan of ``library`` (the parameters
    :func:`planner.application.raters_options.raters_plan_from_options` takes, as ``plan``
    builds them from its options) over ``scenario`` (a several-annotator scenario or None).

    The items and labels per item are the plan's ``n`` (its recommendation: under a pilot's
    uncertainty when there is a pilot) and ``k``; the contested share is
    ``contested_items / items`` of the plan's budget (as a pair's, whether or not an
    adjudication takes time; the note speaks of adjudication only when it does).
    """
    from planner.application.raters_options import raters_plan_from_options

    return work_of_several_plan(raters_plan_from_options(library, scenario, rng=seed), scenario)


def work_of_several_plan(plan: Any, scenario: Any = None) -> SeveralWork:
    """The work of a several-annotator plan already made (:func:`several_work`'s numbers):
    its recommended items, its ``k`` labels per item and its budget's contested share."""
    items, k = int(plan.items), int(plan.sizing.labels_per_item)
    contested = plan.budget.contested_items / max(plan.budget.items, 1)
    source = "the options" if scenario is None else Path(scenario.path).name
    basis = "" if plan.recommended is None else f" ({plan.recommended.basis})"
    note = (
        f"{source}: the several-annotator plan ({plan.sizing.metric}) "
        f"sizes {items:,} items{basis} with {k} annotators each; the schedule labels them"
    )
    if contested > 0 and plan.settings.adjudication_seconds > 0:
        note += f" and adjudicates the {contested:.1%} whose labels are not unanimous"
    return SeveralWork(items, k, contested, (note,))


def plan_pricing(
    scenario: Scenario | None,
    settings: Any,
    labels_per_item: int,
    from_file: bool = True,
    labels_parameter: str = "annotators_per_item",
) -> TeamPricing | None:
    """The price of an item by the scenario's named annotators (None without
    ``[[team.annotator]]``), for a pair's plan and several annotators' alike: the people
    ``schedule`` runs, adjudicators included, priced as its runs bill them
    (:func:`planner.sizing.team_cost.team_pricing`).

    ``settings`` give the budget's ``seconds_per_item``, ``adjudication_seconds`` and
    ``hourly_rate`` for people without their own (a :class:`planner.sizing.plan.
    PlanSettings`); the team's flat values are the scenario's ``[team]`` (:func:`resolve_team`).
    ``labels_parameter`` is the parameter that set the labels per item (a pair's
    ``annotators_per_item``; several annotators' ``n_annotators`` or ``per_item``), named in
    the error of a team too small for them; ``from_file``: a pair's labels per item came from
    the scenario (unless the command line gave them), so the error names the file's key.
    """
    if "annotator" not in named_values(scenario):
        return None
    from planner.sizing.team_cost import team_pricing

    team = build_team(scenario, asdict(resolve_team(scenario)), TeamChanges(), False)
    m, k = len(team.annotators), labels_per_item
    if k > m:  # named as the file's key when the scenario gave it
        name = labels_parameter
        if from_file and scenario is not None:
            default = "" if name in scenario.budget else " (the default)"
            name = f"{scenario.path}: budget.{name}{default}"
        raise InvalidInput(
            f"{name} must be at most the team's {m} annotator(s) (each item needs {k} distinct "
            f"annotators), got {k}",
            parameter=None if from_file else labels_parameter,
        )
    adjudication = settings.adjudication_seconds
    return team_pricing(
        team.annotators,
        labels_per_item,
        settings.seconds_per_item,
        adjudicators=team.adjudicators if adjudication > 0 else (),
        adjudication_seconds=adjudication,
        hourly_rate=settings.hourly_rate,
        assignment=team.assignment,
        min_shared_items=team.min_shared_items,
    )


#: the note of a design comparison whose budgets a named team bills
DESIGNS_PRICED_NOTE = (
    "the design comparison bills the named team person by person: each one's seconds per "
    "label (a stratum's scaled by their ratio to the budget's) and hourly rate"
)


def pricing_note(pricing: TeamPricing, items: int, contested_items: float = 0.0) -> str:
    """One line: how the named team's budget bills ``items`` items, ``contested_items`` of
    them adjudicated, person by person (a person's seconds are their busy seconds a task,
    attention checks included; :mod:`planner.sizing.team_cost`)."""
    work = [
        *zip(pricing.annotators, pricing.labels(items), strict=True),
        *((p, contested_items * p.share) for p in pricing.adjudicators),
    ]
    working = [(p, n) for p, n in work if n * p.seconds_per_item > 0]
    parts = [_person_part(p, n, "labels") for p, n in working if p in pricing.annotators]
    judged = [_person_part(p, n, "items adjudicated") for p, n in working[len(parts) :]]
    unpriced = [p.name for p, _ in working if p.hourly_rate is None]
    return (
        "the budget bills the named team person by person (each one's busy seconds a task, "
        f"attention checks included, and hourly rate; labels shared as the {pricing.assignment} "
        f"assignment shares them, at most one per item each): {'; '.join(parts)}"
        + (f"; adjudication: {'; '.join(judged)}" if judged else "")
        + (f"; no cost is given: {', '.join(unpriced)} without an hourly rate" if unpriced else "")
    )


def _person_part(person: Any, count: float, tasks: str) -> str:
    """``name N tasks at S s, H h at R/h`` (the rate left out when there is none)."""
    hours = count * person.seconds_per_item / 3600
    rate = "" if person.hourly_rate is None else f" at {person.hourly_rate:g}/h"
    done = f"{count:,.0f} {tasks} at {person.seconds_per_item:g} s"
    return f"{person.name} {done}, {hours:,.1f} h{rate}"
