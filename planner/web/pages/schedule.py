"""The Schedule page: the team (its size, or named people as a table) -> finish dates, the
per-annotator table and the cost.

The page writes its fields as a scenario file (the model and target that size the study,
the budget, and ``[team]`` with one ``[[team.annotator]]`` per row of the people table)
and runs :func:`planner.application.schedule_options.run_schedule` on it, the function
``planner schedule schedule.toml`` calls: a named team runs person by person, a team
given by its size through the SimPy model. ``items`` replaces the plan by a fixed number
of items (``--items``); ``deadline`` asks the probability of finishing by a date; ``add``
and ``without`` are ``--add`` and ``--without`` (someone joins, someone leaves).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Field, Page, PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

SCENARIO_FILE = "schedule.toml"

#: the people of the example scenario ``team.toml`` (planner examples)
DEFAULT_PEOPLE = """name,seconds_per_item,hours_per_day,hourly_rate,days,absent
ana,60,4,30,mon+tue+wed+thu+fri,2027-01-06/2027-01-08
bo,120,8,40,,
"""
NUMBER_COLUMNS = ("seconds_per_item", "hours_per_day", "hourly_rate", "time_spread")
LIST_COLUMNS = ("days", "absent")

FIELDS = (
    Field(
        "people",
        "Named annotators (CSV)",
        "table",
        DEFAULT_PEOPLE,
        "One row per annotator: name and optionally seconds_per_item, hours_per_day, "
        "hourly_rate, days (mon+tue+...), absent (FROM/TO dates, '+' between). Empty: a "
        "uniform team of team_size.",
    ),
    Field("team_size", "Team size (no named annotators)", "integer", None, "Empty: 5."),
    Field("start", "First working day (YYYY-MM-DD)", "text", "2027-01-04"),
    Field("deadline", "Deadline (YYYY-MM-DD)", "text", None),
    Field(
        "add",
        "Add people (as --add, ';' between)",
        "text",
        None,
        "What if someone joins: 'cy,seconds_per_item=80,hours_per_day=6,hourly_rate=35'.",
    ),
    Field(
        "without",
        "Drop people (as --without, ',' between)",
        "text",
        None,
        "What if someone leaves: a name, or NAME@DATE (gone from that date on), e.g. "
        "ana@2027-01-11.",
    ),
    Field("items", "Items (instead of planning them)", "integer", None),
    Field("prevalence", "Prevalence (the plan's model)", "number", "0.1"),
    Field("error_rate", "Error rate (the plan's model)", "number", "0.05"),
    Field("width", "Target half-width", "number", "0.1"),
    Field("assurance", "Assurance", "number", "0.5"),
    Field("annotators_per_item", "Annotators per item", "integer", "2"),
    Field("seconds_per_item", "Seconds per label", "number", "90"),
    Field("adjudication_seconds", "Seconds per adjudicated item", "number", "0"),
    Field("hourly_rate", "Hourly rate", "number", None),
    Field("hours_per_day", "Hours per day", "number", None, "Empty: 8 (named people: their own)."),
    Field("days_per_week", "Working days a week (uniform team)", "integer", None, "Empty: 5."),
    Field("adjudicators", "Adjudicators", "integer", "1"),
    Field("runs", "Simulated runs", "integer", "200"),
    Field("seed", "Seed", "integer", "4"),
)
NAMES = tuple(f.name for f in FIELDS)
SECTIONS = {
    "model": ("prevalence", "error_rate"),
    "target": ("width", "assurance"),
    "budget": ("annotators_per_item", "seconds_per_item", "adjudication_seconds", "hourly_rate"),
    "simulation": ("seed",),
}
UNIFORM = ("hours_per_day", "days_per_week")  # [team] keys (defaults of named people too)
#: scenario keys whose field has another name
KEYS = {"team.annotators": "team_size", "team.annotator": "people", "team.runs": "runs"}
FIELD_OF = {"annotators": "team_size", "n_items": "items"}


def _person(row: Mapping[str, str], number: int) -> dict[str, Any]:
    person: dict[str, Any] = {}
    for key, text in row.items():
        if text == "":
            continue
        if key in NUMBER_COLUMNS:
            try:
                person[key] = float(text)
            except ValueError:
                raise InvalidInput(
                    f"people row {number}: {key} must be a number, got {text!r}",
                    parameter="people",
                ) from None
        elif key in LIST_COLUMNS:
            person[key] = [part.strip() for part in text.split("+") if part.strip()]
        else:
            person[key] = text
    return person


def people(text: str | None) -> list[dict[str, Any]]:
    """The people table as ``[[team.annotator]]`` tables (none: a uniform team)."""
    if text is None or not str(text).strip():
        return []
    return [_person(row, i) for i, row in enumerate(shared.csv_rows(text, "people"), start=1)]


def _lines(section: str, table: Mapping[str, Any]) -> list[str]:
    return [f"[{section}]", *(f"{k} = {shared.toml_value(v)}" for k, v in table.items()), ""]


def scenario_toml(values: Mapping[str, Any]) -> str:
    """The scenario file of the page's values (the ``toml`` a result shows)."""
    lines = ['name = "schedule"', 'description = "A team\'s schedule from the planning app."', ""]
    for section, keys in SECTIONS.items():
        given = {k: values[k] for k in keys if values.get(k) is not None}
        if given:
            lines += _lines(section, given)
    named = people(values.get("people"))
    if named and values.get("team_size") is not None:
        raise InvalidInput(
            "team_size and people both give the team: empty the people table for a team of "
            "team_size identical annotators, or leave team_size empty",
            parameter="team_size",
            parameters=("people",),
        )
    team: dict[str, Any] = {"start": values.get("start"), "annotators": values.get("team_size")}
    team.update({k: values.get(k) for k in (*UNIFORM, "adjudicators", "runs")})
    lines += _lines("team", {k: v for k, v in team.items() if v is not None})
    for person in named:
        lines += _lines("[team.annotator]", person)
    return "\n".join(lines)


def _specs(text: str | None, separator: str) -> tuple[str, ...]:
    """The ``add`` (``;`` between people) or ``without`` (``,`` between) field's entries."""
    if text is None:
        return ()
    return tuple(part.strip() for part in str(text).split(separator) if part.strip())


def _changes(values: Mapping[str, Any]) -> Any:
    from planner.application.schedule_team import TeamChanges
    from planner.data.scenario_team import to_date

    deadline = values.get("deadline")
    return TeamChanges(
        deadline=None if deadline is None else to_date("deadline", deadline),
        add=_specs(values.get("add"), ";"),
        without=_specs(values.get("without"), ","),
    )


def _command(values: Mapping[str, Any]) -> str:
    """``planner schedule schedule.toml`` with the page's options, ``--add`` and
    ``--without`` once per person."""
    options = {"items": values.get("items"), "deadline": values.get("deadline")}
    words = [command_line(["schedule"], options, positional=[SCENARIO_FILE])]
    for flag, specs in (("--add", _specs(values.get("add"), ";")),
                        ("--without", _specs(values.get("without"), ","))):  # fmt: skip
        words += [f"{flag} {shlex.quote(spec)}" for spec in specs]
    return " ".join(words)


def scheduled(values: Mapping[str, Any], progress: Progress | None) -> tuple[Any, str]:
    """The schedule of the page's values, and the scenario file it ran."""
    from planner.application.plan_options import PlanOptions
    from planner.application.schedule_options import run_schedule

    toml = scenario_toml({**values, "seed": shared.seed_of(values)})
    with shared.private_file(toml.encode("utf-8"), SCENARIO_FILE) as path:
        try:
            _, result = run_schedule(
                str(path),
                PlanOptions(),
                {},
                lambda seed: shared.seed_of({"seed": seed}),
                items=values.get("items"),
                progress=progress,
                changes=_changes(values),
            )
        except InvalidInput as exc:
            text = str(exc).replace(str(path), SCENARIO_FILE)
            moved = InvalidInput(text, parameter=exc.parameter, parameters=exc.parameters)
            moved = shared.on_field(moved, NAMES, FIELD_OF, "") if moved.parameter else moved
            raise shared.scenario_field(moved, KEYS, NAMES, "people") from None
    return result, toml


def _python(toml: str, values: Mapping[str, Any]) -> str:
    deadline = values.get("deadline")
    return shared.python_call(
        [
            "import datetime",
            "from pathlib import Path",
            "from planner.application.plan_options import PlanOptions",
            "from planner.application.schedule_options import run_schedule",
            "from planner.application.schedule_team import TeamChanges",
            "",
            f"Path({SCENARIO_FILE!r}).write_text({toml!r})",
            "changes = TeamChanges(deadline="
            + ("None" if deadline is None else f"datetime.date.fromisoformat({deadline!r})")
            + f", add={_specs(values.get('add'), ';')!r}"
            + f", without={_specs(values.get('without'), ',')!r})",
            f"_, result = run_schedule({SCENARIO_FILE!r}, PlanOptions(), {{}}, lambda seed: seed,",
            f"                         items={values.get('items')!r}, changes=changes)",
            "print(result.calendar_days_median, result.person_hours_median, result.cost_median)",
        ]
    )


def _finish(result: Any) -> dict[str, str]:
    """Finish dates (days without a start) at the 10th, 50th and 90th percentiles."""
    team = result.team
    if team is None:
        return {
            "finish-p50": f"{result.calendar_days_median:.1f} days",
            "finish-p90": f"{result.calendar_days_p90:.1f} days",
        }
    finish = team.finish_dates or {k: f"{v:.1f} days" for k, v in team.finish_days.items()}
    return {f"finish-{k}": str(v) for k, v in finish.items()}


def _people_table(result: Any) -> Any:
    team = result.team
    rows = [
        (p.name, p.role, shared.whole(p.items), shared.hours(p.hours),
         f"{p.utilisation:.0%}", shared.money(p.cost))
        for p in (*team.annotators, *team.adjudicators)
    ]  # fmt: skip
    return shared.table(
        "Per annotator (medians over runs)",
        ("name", "role", "items", "hours", "utilisation", "cost"),
        rows,
        "annotators-table",
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The team's schedule: finish dates, people, hours and cost."""
    from planner.output.jsonout import schedule_document
    from planner.output.plots import burndown
    from planner.output.report_figures import burndown_band

    result, toml = scheduled(values, progress)
    cost = result.cost_median if result.team is None else result.team.cost_median
    headline = {
        "items": shared.whole(sum(result.operation.items_per_stratum)),
        "person-hours": shared.hours(result.person_hours_median),
        "cost": shared.money(cost),
        **_finish(result),
        "calendar-days": f"{result.calendar_days_median:.1f}",
    }
    if result.team is not None and result.team.p_deadline is not None:
        headline["p-deadline"] = shared.share(result.team.p_deadline)
    tables = () if result.team is None else (_people_table(result),)
    return PageResult(
        headline=headline,
        command=_command(values),
        python=_python(toml, values),
        toml=toml,
        tables=tables,
        figures=(
            shared.figure(
                "burndown",
                "The share of items still open against calendar days, median and 10-90 % band",
                burndown,
                burndown_band(result),
            ),
        ),
        notes=tuple(result.notes),
        document=schedule_document(result),
    )


PAGE = Page(
    slug="schedule",
    title="Schedule",
    summary="The team, by its size or person by person: finish dates, each annotator's items, "
    "hours and cost, as planner schedule simulates them.",
    fields=FIELDS,
    compute=compute,
)
