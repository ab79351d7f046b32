"""The people of the labelling operation: who works when, how fast and at what rate.

A :class:`Person` has their own mean seconds per item, shift, weekdays, rate, absences and
first/last day; time spread, attention checks and requalification are theirs too. A
:class:`Team` holds the annotators and adjudicators, the first calendar day, the public
holidays, weekly attrition (a seat's person leaves; a replacement starts after
``replacement_days``), the assignment policy and the items every pair must share.

Precedence: a person's ``seconds_per_item`` replaces ``[budget].seconds_per_item`` for them
(a stratum's own time is scaled by their ratio to the budget's); a key a person does not give
takes the team's flat value (``hours_per_day``, ``days_per_week`` as the first weekdays, ...);
with a named team each person's ``hourly_rate`` prices their hours (the budget's rate is used
for people who give none).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from planner.data.scenario_team import (
    ASSIGNMENTS,
    TEAM_DATE_KEYS,
    WEEKDAYS,
    person_values,
    to_date,
    to_intervals,
)
from planner.errors import InvalidInput
from planner.validation import check, check_choice


@dataclass(frozen=True)
class Person:
    """One annotator or adjudicator (checked on creation, in parameter names).

    ``seconds_per_item`` None: the budget's (or the adjudication seconds, for an adjudicator);
    ``hourly_rate`` None: the budget's rate, if any.
    """

    name: str
    seconds_per_item: float | None = None
    hours_per_day: float = 8.0
    days: tuple[str, ...] = WEEKDAYS[:5]
    hourly_rate: float | None = None
    absent: tuple[tuple[dt.date, dt.date], ...] = ()
    start: dt.date | None = None
    end: dt.date | None = None
    time_spread: float = 0.5
    attention_check_share: float = 0.0
    attention_fail_rate: float = 0.0
    requalification_hours: float = 0.0

    def __post_init__(self) -> None:
        given = {k: getattr(self, k) for k in ("name", "hours_per_day", "time_spread")}
        for key in ("seconds_per_item", "hourly_rate", "start", "end"):
            if getattr(self, key) is not None:
                given[key] = getattr(self, key)
        for key in ("attention_check_share", "attention_fail_rate", "requalification_hours"):
            given[key] = getattr(self, key)
        given["days"] = list(self.days)
        given["absent"] = [f"{a}/{b}" for a, b in self.absent]
        checked = person_values("person", given)
        for key, value in checked.items():
            object.__setattr__(self, key, value)


@dataclass(frozen=True)
class Team:
    """The annotators and adjudicators with the team's calendar and policies."""

    annotators: tuple[Person, ...]
    adjudicators: tuple[Person, ...] = ()
    start: dt.date | None = None
    holidays: tuple[tuple[dt.date, dt.date], ...] = ()
    attrition_weekly: float = 0.0
    replacement_days: int = 10
    assignment: str = "next-free"
    min_shared_items: int = 30

    def __post_init__(self) -> None:
        if not self.annotators:
            raise InvalidInput("annotators must name at least one person", parameter="annotators")
        for key in TEAM_DATE_KEYS:
            object.__setattr__(self, key, check(key, getattr(self, key), TEAM_DATE_KEYS[key]))
        check_choice("assignment", self.assignment, ASSIGNMENTS)
        if self.start is not None:
            object.__setattr__(self, "start", to_date("start", self.start))
        holidays = [f"{a}/{b}" for a, b in self.holidays]
        object.__setattr__(self, "holidays", to_intervals("holidays", holidays))
        for role in ("annotators", "adjudicators"):
            names = [p.name for p in getattr(self, role)]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise InvalidInput(f"{role} names {twice[0]!r} twice", parameter=role)
        dated = any(p.absent or p.start or p.end for p in (*self.annotators, *self.adjudicators))
        if self.start is None and (dated or self.holidays):
            raise InvalidInput(
                "start (the first calendar day) is needed with dated absences, holidays or "
                "a person's start or end",
                parameter="start",
            )

    def with_person(self, person: Person) -> Team:
        """The team with one more annotator."""
        return replace(self, annotators=(*self.annotators, person))

    def without(self, name: str, from_date: dt.date | None = None) -> Team:
        """The team without annotator ``name`` (from ``from_date`` on, when given)."""
        names = [p.name for p in self.annotators]
        if name not in names:
            raise InvalidInput(
                f"without names no annotator of the team: {name!r} (the team: {', '.join(names)})",
                parameter="without",
            )
        if from_date is None:
            kept = tuple(p for p in self.annotators if p.name != name)
            if not kept:
                raise InvalidInput("without would leave no annotator", parameter="without")
            return replace(self, annotators=kept)
        if self.start is None:
            raise InvalidInput("without NAME@DATE needs the team's start date", parameter="without")
        last = from_date - dt.timedelta(days=1)
        people = tuple(replace(p, end=last) if p.name == name else p for p in self.annotators)
        return replace(self, annotators=people)


def person_rate(person: Person, hourly_rate: float | None) -> float | None:
    """A person's hourly rate: their own, else ``hourly_rate`` (the budget's; None: no cost).

    The one rule that prices a named person's hours, in a schedule run and in a plan's budget
    (:mod:`planner.sizing.team_cost`).
    """
    return person.hourly_rate if person.hourly_rate is not None else hourly_rate


def _weekdays(days_per_week: int) -> tuple[str, ...]:
    return WEEKDAYS[:days_per_week]


def _person_defaults(flat: Mapping[str, Any]) -> dict[str, Any]:
    """A person's keys from the team's flat values (what a person does not give)."""
    keys = ("hours_per_day", "time_spread", "attention_check_share", "attention_fail_rate")
    out = {k: flat[k] for k in (*keys, "requalification_hours") if k in flat}
    if "days_per_week" in flat:
        out["days"] = _weekdays(int(flat["days_per_week"]))
    return out


def team_from_settings(flat: Mapping[str, Any], named: Mapping[str, Any] | None = None) -> Team:
    """The :class:`Team` of a uniform team's flat values, or of named people over them.

    ``flat`` holds the flat ``[team]`` values (annotators, hours_per_day, days_per_week, ...);
    ``named`` the checked named-team keys (:func:`planner.data.scenario_team.named_team_values`).
    Without named annotators the team is ``annotators`` identical people ``annotator 1``, ...;
    likewise the adjudicators.
    """
    named = named or {}
    defaults = _person_defaults(flat)

    def people(role: str, count_key: str, label: str) -> tuple[Person, ...]:
        if role in named:
            return tuple(Person(**{**defaults, **p}) for p in named[role])
        count = int(flat.get(count_key, 0))
        return tuple(Person(name=f"{label} {i}", **defaults) for i in range(1, count + 1))

    options = {
        k: named[k] for k in ("start", "holidays", *TEAM_DATE_KEYS, "assignment") if k in named
    }
    return Team(
        annotators=people("annotator", "annotators", "annotator"),
        adjudicators=people("adjudicator", "adjudicators", "adjudicator"),
        **options,
    )


def person_from_text(text: str, defaults: Mapping[str, Any] | None = None) -> Person:
    """A person from ``name=cy,seconds_per_item=90,hours_per_day=6,days=mon+tue,hourly_rate=30``.

    Keys are :class:`Person`'s; ``days`` and ``absent`` take ``+``-separated lists; a bare
    first part is the name (``cy,hours_per_day=6``). Missing keys come from ``defaults``.
    """
    values: dict[str, Any] = dict(defaults or {})
    for i, part in enumerate(p.strip() for p in text.split(",")):
        key, sep, value = part.partition("=")
        if not sep and i == 0:
            key, value = "name", key
        elif not sep:
            raise InvalidInput(f"add takes KEY=VALUE parts, got {part!r}", parameter="add")
        key = key.strip()
        if key in ("days", "absent"):
            values[key] = tuple(v for v in value.split("+") if v)
        elif key in ("name", "start", "end"):
            values[key] = value.strip()
        else:
            try:
                values[key] = float(value)
            except ValueError:
                raise InvalidInput(
                    f"add's {key} must be a number, got {value!r}", parameter="add"
                ) from None
    if "absent" in values:
        values["absent"] = tuple(_interval_text(v) for v in values["absent"])
    try:
        return Person(**values)
    except TypeError as exc:
        raise InvalidInput(f"add takes the keys of a person: {exc}", parameter="add") from None


def _interval_text(value: str) -> tuple[dt.date, dt.date]:
    first, _, last = value.partition("/")
    return to_date("absent", first), to_date("absent", last or first)
