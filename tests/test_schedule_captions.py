"""The uniform and the named team's schedule tables say alike what person-hours are."""

from __future__ import annotations

import datetime as dt

from rich.console import Console

from planner.operations.team import Person, Team
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import TeamOperation
from planner.operations.workload import Operation, simulate_schedule
from planner.output.render import render_schedule
from planner.output.words import PERSON_HOURS_MEANING


def _person_hours_row(result) -> str:  # type: ignore[no-untyped-def]
    console = Console(record=True, width=300)
    render_schedule(result, console)
    rows = [line for line in console.export_text().splitlines() if "person-hours" in line]
    assert len(rows) == 1
    return rows[0]


def test_the_uniform_team_table_says_person_hours_are_working_hours_added_up() -> None:
    op = Operation(
        items_per_stratum=(200,),
        seconds_per_item=(60.0,),
        contested_rate=(0.0,),
        labels_per_item=2,
        annotators=3,
    )
    assert PERSON_HOURS_MEANING in _person_hours_row(simulate_schedule(op, runs=5, rng=1))


def test_the_named_team_table_says_the_same_words() -> None:
    team = Team(annotators=(Person("ana"), Person("bo")), start=dt.date(2027, 1, 4))
    op = TeamOperation((200,), (60.0,), (0.0,), 2, team, budget_seconds=60.0)
    assert PERSON_HOURS_MEANING in _person_hours_row(simulate_team(op, runs=5, rng=1))
