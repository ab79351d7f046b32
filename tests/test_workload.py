"""The SimPy operations model: hand calculations, analytic hours, reproducibility, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.operations.workload import (
    Operation,
    analytic_person_hours,
    calendar_days,
    simulate_schedule,
)
from planner.output.jsonout import json_ready, schedule_document

runner = CliRunner()


def _op(**kwargs):
    base = dict(
        items_per_stratum=(100,),
        seconds_per_item=(90.0,),
        contested_rate=(0.0,),
        labels_per_item=1,
        annotators=1,
        hours_per_day=4,
        days_per_week=5,
        time_spread=0.0,
        adjudicators=0,
    )
    base.update(kwargs)
    return Operation(**base)


@pytest.mark.parametrize(
    ("items", "expected_days", "expected_hours"),
    [
        (100, 1, 2.5),  # 9,000 s = 2.5 h: one 4-hour day
        (160, 1, 4.0),  # exactly one shift
        (161, 2, 4.025),
        (1000, 9, 25.0),  # 25 h = 6.25 shifts -> 7 working days -> Mon..Fri + Mon, Tue = day 9
    ],
)
def test_one_annotator_fixed_times_match_the_hand_calculation(items, expected_days, expected_hours):
    result = simulate_schedule(_op(items_per_stratum=(items,)), runs=2, rng=1)
    assert result.calendar_days_median == expected_days
    assert result.person_hours_median == pytest.approx(expected_hours)
    # one annotator with fixed times never waits: busy the whole working clock
    assert result.annotator_utilisation == pytest.approx(1.0)


def test_calendar_days_week_pattern():
    shift = 8 * 3600
    assert [calendar_days(d * shift, shift, 5) for d in (1, 5, 6, 10, 11)] == [1, 5, 8, 12, 15]
    assert calendar_days(0, shift, 5) == 0
    assert calendar_days(3 * shift, shift, 7) == 3


def test_two_labels_each_split_evenly_between_two_annotators():
    # 2 annotators, 2 distinct labels per item: each labels every item -> same days as one
    result = simulate_schedule(
        _op(items_per_stratum=(1000,), labels_per_item=2, annotators=2), runs=2, rng=1
    )
    assert result.calendar_days_median == 9 and result.person_hours_median == pytest.approx(50.0)


@pytest.mark.slow
def test_simulated_hours_match_the_analytic_hours():
    op = _op(
        items_per_stratum=(600, 300),
        seconds_per_item=(60.0, 150.0),
        contested_rate=(0.1, 0.3),
        labels_per_item=2,
        annotators=4,
        time_spread=0.6,
        attention_check_share=0.05,
        attention_fail_rate=0.1,
        requalification_hours=0.5,
        adjudicators=1,
        adjudication_seconds=200,
    )
    result = simulate_schedule(op, runs=300, rng=4)
    hours = np.array(
        [
            (r.annotator_busy_seconds + r.adjudicator_busy_seconds + r.requalification_seconds)
            / 3600
            for r in result.records
        ]
    )
    se = hours.std(ddof=1) / np.sqrt(hours.size)
    assert abs(hours.mean() - analytic_person_hours(op)) < 4 * se
    assert 0 < result.annotator_utilisation <= 1 and 0 < result.adjudicator_utilisation <= 1
    assert result.calendar_days_p90 >= result.calendar_days_median


def test_same_seed_same_schedule():
    op = _op(items_per_stratum=(300,), labels_per_item=2, annotators=3, time_spread=0.5)
    a, b, c = (
        json.dumps(json_ready(schedule_document(simulate_schedule(op, runs=20, rng=s))))
        for s in (9, 9, 10)
    )
    assert a == b and a != c


def test_every_label_is_done_by_distinct_annotators():
    with pytest.raises(InvalidInput, match="distinct annotators"):
        _op(labels_per_item=3, annotators=2)


def test_schedule_command_json_and_errors():
    result = runner.invoke(
        app,
        [
            "schedule",
            "--items",
            "400",
            "--team-size",
            "2",
            "--hours-per-day",
            "4",
            "--runs",
            "10",
            "--seed",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["runs"] == 10 and doc["calendar_days_median"] > 0 and doc["seed"] == 3
    assert doc["person_hours_median"] == pytest.approx(doc["analytic_person_hours"], rel=0.05)
    bad = runner.invoke(app, ["schedule", "--items", "400", "--team-size", "1"])
    assert bad.exit_code == 2 and "distinct annotators" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_the_team_defaults_are_set_once_for_the_operation_and_schedule_s_team():
    from dataclasses import fields

    from planner.application.schedule_team import TeamSettings
    from planner.data.scenario import TEAM_DEFAULTS
    from planner.operations.workload import Operation

    team = TeamSettings()
    assert {f.name: getattr(team, f.name) for f in fields(TeamSettings)} == TEAM_DEFAULTS
    operation = {f.name: f.default for f in fields(Operation)}
    assert all(operation[key] == value for key, value in TEAM_DEFAULTS.items() if key != "runs")
    # the values docs/schedule.md states (team size 5, runs 200) and the 8-hour, 5-day week
    assert (team.annotators, team.hours_per_day, team.days_per_week, team.runs) == (5, 8.0, 5, 200)
