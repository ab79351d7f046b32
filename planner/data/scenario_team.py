"""The people of a scenario's ``[team]``: named annotators and adjudicators, dates, holidays.

A uniform team is the flat keys of ``[team]`` (``annotators = 5``, ``hours_per_day``, ...). A
named team lists its people instead; each person's keys default to the flat ones::

    [team]
    start = "2027-01-04"          # first calendar day; results become dates
    holidays = ["2027-01-06"]     # no one works these days
    attrition_weekly = 0.02       # chance a seat's person leaves in a given week
    replacement_days = 10         # calendar days until a leaver's replacement starts
    min_shared_items = 30         # items every pair of annotators labels together
    assignment = "next-free"      # or "balanced" (round robin)

    [[team.annotator]]
    name = "ana"
    seconds_per_item = 60         # replaces [budget].seconds_per_item for her
    hours_per_day = 4
    days = ["mon", "tue", "wed", "thu", "fri"]
    hourly_rate = 30.0
    absent = ["2027-01-06/2027-01-08"]   # inclusive ISO intervals, or single dates
    start = "2027-01-11"          # joins late (optional); end = "..." leaves early

    [[team.adjudicator]]          # the same keys; seconds_per_item is per adjudicated item

The rules here are shared by the scenario loader (messages name ``file: team.annotator[1].days``)
and by the library's :class:`planner.operations.team.Person` (messages name the parameter).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from planner.errors import InvalidInput
from planner.validation import RULES, Rule, check, check_choice, shown

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ASSIGNMENTS = ("next-free", "balanced")
PERSON_NUMBERS: dict[str, Rule] = {
    "seconds_per_item": RULES["seconds_per_item"],
    "hours_per_day": RULES["hours_per_day"],
    "hourly_rate": RULES["hourly_rate"],
    "time_spread": RULES["time_spread"],
    "attention_check_share": RULES["attention_check_share"],
    "attention_fail_rate": RULES["attention_fail_rate"],
    "requalification_hours": RULES["requalification_hours"],
}
PERSON_KEYS = ("name", *PERSON_NUMBERS, "days", "absent", "start", "end")
TEAM_DATE_KEYS: dict[str, Rule] = {
    "attrition_weekly": Rule("number", lambda x: 0 <= x < 1, "a number in [0, 1)"),
    "replacement_days": Rule("integer", lambda x: 0 <= x <= 3650, "a whole number in [0, 3,650]"),
    "min_shared_items": Rule(
        "integer", lambda x: 0 <= x <= 1_000_000, "a whole number in [0, 1,000,000]"
    ),
}
NAMED_TEAM_KEYS = ("start", "holidays", *TEAM_DATE_KEYS, "assignment", "annotator", "adjudicator")
_ISO = "an ISO date YYYY-MM-DD"


def to_date(name: str, value: Any) -> dt.date:
    """An ISO date (text ``YYYY-MM-DD`` or a TOML date); else one line naming ``name``."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise InvalidInput(f"{name} must be {_ISO}, got {shown(value)}", parameter=_param(name))


def to_interval(name: str, value: Any) -> tuple[dt.date, dt.date]:
    """``"first/last"`` (inclusive) or one date, as ``(first, last)``; inverted: refused."""
    if isinstance(value, str) and "/" in value:
        first_text, _, last_text = value.partition("/")
        first, last = to_date(name, first_text), to_date(name, last_text)
    else:
        first = last = to_date(name, value)
    if last < first:
        raise InvalidInput(
            f"{name} must be an interval FIRST/LAST with FIRST on or before LAST, got "
            f"{shown(value)} (inverted)",
            parameter=_param(name),
        )
    return first, last


def to_intervals(name: str, value: Any) -> tuple[tuple[dt.date, dt.date], ...]:
    """A list of date intervals, none overlapping another (sorted by first day)."""
    if not isinstance(value, list | tuple):
        raise InvalidInput(
            f"{name} must be a list of ISO dates or intervals FIRST/LAST, got {shown(value)}",
            parameter=_param(name),
        )
    intervals = sorted(to_interval(name, v) for v in value)
    for (a_first, a_last), (b_first, b_last) in zip(intervals, intervals[1:], strict=False):
        if b_first <= a_last:
            raise InvalidInput(
                f"{name} has overlapping intervals {a_first}/{a_last} and {b_first}/{b_last}",
                parameter=_param(name),
            )
    return tuple(intervals)


def to_weekdays(name: str, value: Any) -> tuple[str, ...]:
    """Weekday names (mon ... sun, any case), at least one, each once."""
    if not isinstance(value, list | tuple) or not value:
        raise InvalidInput(
            f"{name} must be a non-empty list of weekdays ({', '.join(WEEKDAYS)}), got "
            f"{shown(value)} (an annotator with no working days)",
            parameter=_param(name),
        )
    days = []
    for day in value:
        text = day.strip().lower() if isinstance(day, str) else ""
        key = text[:3]
        if text not in WEEKDAYS and text not in _FULL_NAMES:
            raise InvalidInput(
                f"{name} must list weekdays among {', '.join(WEEKDAYS)}, got {shown(day)}",
                parameter=_param(name),
            )
        days.append(key)
    if len(set(days)) != len(days):
        raise InvalidInput(f"{name} lists a weekday twice: {shown(value)}", parameter=_param(name))
    return tuple(sorted(days, key=WEEKDAYS.index))


def _param(name: str) -> str | None:
    """The parameter an error is about, when ``name`` is a plain identifier."""
    return name if name.isidentifier() else None


def person_values(prefix: str, table: Any) -> dict[str, Any]:
    """One ``[[team.annotator]]`` (or adjudicator) table checked; ``prefix`` names it.

    Returns the given keys, converted (dates as :class:`datetime.date`, weekdays as names).
    """
    if not isinstance(table, dict):
        raise InvalidInput(f"{prefix} must be a table")
    unknown = sorted(set(table) - set(PERSON_KEYS))
    if unknown:
        raise InvalidInput(
            f"unknown key {prefix}.{unknown[0]}; allowed: {', '.join(sorted(PERSON_KEYS))}"
        )
    if "name" not in table:
        raise InvalidInput(f"{prefix} needs name")
    out: dict[str, Any] = {
        "name": check(f"{prefix}.name", table["name"], Rule("text", bool, "non-empty text"))
    }
    for key, rule in PERSON_NUMBERS.items():
        if key in table:
            out[key] = check(f"{prefix}.{key}", table[key], rule)
    if "days" in table:
        out["days"] = to_weekdays(f"{prefix}.days", table["days"])
    if "absent" in table:
        out["absent"] = to_intervals(f"{prefix}.absent", table["absent"])
    for key in ("start", "end"):
        if key in table:
            out[key] = to_date(f"{prefix}.{key}", table[key])
    if "start" in out and "end" in out and out["end"] < out["start"]:
        raise InvalidInput(f"{prefix}.end ({out['end']}) is before {prefix}.start ({out['start']})")
    return out


def named_team_values(source: str, table: dict[str, Any]) -> dict[str, Any]:
    """The named-team keys of ``[team]`` checked (messages name ``source: team.KEY``).

    A flat ``annotators = N`` beside ``[[team.annotator]]`` (or ``adjudicators`` beside
    ``[[team.adjudicator]]``) is refused: the list is the team.
    """
    out: dict[str, Any] = {}
    if "start" in table:
        out["start"] = to_date(f"{source}: team.start", table["start"])
    if "holidays" in table:
        out["holidays"] = to_intervals(f"{source}: team.holidays", table["holidays"])
    for key, rule in TEAM_DATE_KEYS.items():
        if key in table:
            out[key] = check(f"{source}: team.{key}", table[key], rule)
    if "assignment" in table:
        out["assignment"] = check_choice(
            f"{source}: team.assignment", table["assignment"], ASSIGNMENTS
        )
    for role, flat in (("annotator", "annotators"), ("adjudicator", "adjudicators")):
        if role not in table:
            continue
        if flat in table:
            raise InvalidInput(
                f"{source}: team.{flat} = {shown(table[flat])} beside [[team.{role}]]: the list "
                f"names the team, drop team.{flat}"
            )
        people = table[role]
        if not isinstance(people, list) or not people:
            raise InvalidInput(
                f"{source}: team.{role} must be an array of tables ([[team.{role}]])"
            )
        checked = [person_values(f"{source}: team.{role}[{i}]", p) for i, p in enumerate(people, 1)]
        names = [p["name"] for p in checked]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InvalidInput(f"{source}: team.{role} names {twice[0]!r} twice")
        out[role] = checked
    dated = _dated_keys(out)
    if dated and "start" not in out:
        raise InvalidInput(
            f"{source}: {dated[0]} is a date, so team.start (the first calendar day) is needed"
        )
    return out


def _dated_keys(team: dict[str, Any]) -> list[str]:
    """The keys that hold dates (absences, holidays, a person's start or end)."""
    keys = ["team.holidays"] if team.get("holidays") else []
    for role in ("annotator", "adjudicator"):
        for i, person in enumerate(team.get(role, ()), 1):
            keys += [f"team.{role}[{i}].{k}" for k in ("absent", "start", "end") if person.get(k)]
    return keys
