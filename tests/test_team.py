"""Named teams: dates and costs by hand, absences, deadlines, k of M, the two engines."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from planner.errors import InvalidInput
from planner.operations.calendar import date_of
from planner.operations.team import Person, Team, person_from_text
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import TeamOperation
from planner.operations.workload import Operation, simulate_schedule

MONDAY = dt.date(2027, 1, 4)


def _pair(absent=(), engine="auto"):
    ana = Person(
        "ana", seconds_per_item=60, hours_per_day=4, hourly_rate=30, time_spread=0, absent=absent
    )
    bo = Person("bo", seconds_per_item=120, hours_per_day=8, hourly_rate=40, time_spread=0)
    op = TeamOperation((1440,), (90.0,), (0.0,), 2, Team((ana, bo), start=MONDAY))
    return simulate_team(op, runs=2, rng=5, engine=engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_two_people_finish_and_cost_by_hand(engine):
    # ana: 1,440 x 60 s = 24 h at 4 h a day = 6 working days; bo: 1,440 x 120 s = 48 h at 8 h
    # = 6 working days. Mon 4 Jan .. Fri 8 Jan is 5, so the 6th is Mon 11 Jan.
    # cost: 24 h x 30 + 48 h x 40 = 720 + 1,920 = 2,640
    result = _pair(engine=engine)
    team = result.team
    assert team.finish_dates == {"p10": "2027-01-11", "p50": "2027-01-11", "p90": "2027-01-11"}
    assert result.cost_median == pytest.approx(2640)
    rows = {row.name: row for row in team.annotators}
    assert rows["ana"].items == 1440 and rows["ana"].hours == pytest.approx(24)
    assert rows["bo"].cost == pytest.approx(1920)
    assert rows["ana"].utilisation == pytest.approx(1.0)
    assert team.min_shared_reached == 1440  # both label every item


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_an_absence_moves_the_finish_by_the_days_lost(engine):
    # ana off Wed 6 .. Fri 8 Jan: her 6 working days are Mon 4, Tue 5, Mon 11 .. Thu 14
    result = _pair(absent=((dt.date(2027, 1, 6), dt.date(2027, 1, 8)),), engine=engine)
    assert result.team.finish_dates["p50"] == "2027-01-14"
    assert result.team.bottleneck == "ana"
    assert result.cost_median == pytest.approx(2640)


def _stochastic(deadline=None, runs=60, engine="auto", k=2):
    people = tuple(
        Person(name, seconds_per_item=s, hours_per_day=h, time_spread=0.6, hourly_rate=30)
        for name, s, h in (("a", 50, 6), ("b", 80, 4), ("c", 120, 8))
    )
    op = TeamOperation((2000,), (90.0,), (0.0,), k, Team(people, start=MONDAY))
    return simulate_team(op, runs=runs, rng=11, deadline=deadline, engine=engine)


@pytest.mark.slow
def test_deadline_probability_is_the_share_of_runs_finished_by_it():
    first = _stochastic()
    days = first.team.finish_by_run
    deadline = date_of(MONDAY, int(np.median(days)))
    result = _stochastic(deadline=deadline)
    finished = [date_of(MONDAY, int(d)) <= deadline for d in result.team.finish_by_run]
    assert result.team.p_deadline == pytest.approx(sum(finished) / len(finished))
    assert 0 < result.team.p_deadline <= 1


@pytest.mark.slow
def test_three_of_five_with_unequal_speeds_finish_at_the_pooled_rate():
    seconds = (30, 45, 60, 90, 180)
    people = tuple(
        Person(f"p{s}", seconds_per_item=s, hours_per_day=8, time_spread=0) for s in seconds
    )
    n, k = 3000, 3
    op = TeamOperation((n,), (90.0,), (0.0,), k, Team(people, start=MONDAY))
    result = simulate_team(op, runs=2, rng=1)
    # pooled: in T seconds of shift person p labels T / s_p, so T = n k / sum(1 / s_p)
    pooled_days = n * k / sum(1 / s for s in seconds) / (8 * 3600)
    equal_share_days = n * k / len(seconds) * max(seconds) / (8 * 3600)
    working_days = (
        np.busday_count(MONDAY, dt.date.fromisoformat(result.team.finish_dates["p50"])) + 1
    )
    assert abs(working_days - pooled_days) <= 0.1 * pooled_days + 1  # +1: a day is counted whole
    assert working_days < equal_share_days / 2
    assert result.team.min_shared_reached >= 30


@pytest.mark.slow
def test_the_fast_computation_matches_the_event_model_on_a_small_team():
    events = _stochastic(runs=100, engine="events", k=2)
    fast = _stochastic(runs=100, engine="fast", k=2)
    e, f = events.team.finish_by_run, fast.team.finish_by_run
    assert abs(np.median(e) - np.median(f)) <= 1
    assert events.person_hours_median == pytest.approx(fast.person_hours_median, rel=0.03)
    for a, b in zip(events.team.annotators, fast.team.annotators, strict=True):
        assert a.items == pytest.approx(b.items, rel=0.05)


def test_a_uniform_balanced_team_gives_the_simpy_models_days():
    people = tuple(Person(f"x{i}", hours_per_day=4, time_spread=0) for i in range(3))
    team = Team(people, assignment="balanced", min_shared_items=0)
    op = TeamOperation((1000,), (90.0,), (0.0,), 2, team)
    ours = simulate_team(op, runs=2, rng=1)
    reference = Operation(
        items_per_stratum=(1000,),
        seconds_per_item=(90.0,),
        contested_rate=(0.0,),
        labels_per_item=2,
        annotators=3,
        hours_per_day=4,
        days_per_week=5,
        time_spread=0.0,
        adjudicators=0,
    )
    simpy_days = simulate_schedule(reference, runs=2, rng=1).calendar_days_median
    assert ours.calendar_days_median == simpy_days
    # by hand: 2,000 labels / 3 = 667 labels x 90 s = 16.7 h = 4.2 shifts of 4 h: 5 working days
    assert simpy_days == 5


@pytest.mark.slow
def test_fast_people_label_more_under_next_free():
    people = (
        Person("quick", seconds_per_item=30, time_spread=0),
        Person("slow", seconds_per_item=120, time_spread=0),
        Person("mid", seconds_per_item=60, time_spread=0),
    )
    op = TeamOperation((900,), (90.0,), (0.0,), 2, Team(people, min_shared_items=0))
    rows = {r.name: r.items for r in simulate_team(op, runs=1, rng=1).team.annotators}
    assert rows["quick"] > rows["mid"] > rows["slow"]
    assert sum(rows.values()) == 1800


@pytest.mark.slow
def test_adjudication_and_attrition_run():
    people = tuple(Person(f"p{i}", time_spread=0.3) for i in range(4))
    team = Team(
        people,
        adjudicators=(Person("judge", seconds_per_item=200, hourly_rate=50, time_spread=0),),
        start=MONDAY,
        attrition_weekly=0.2,
        replacement_days=7,
    )
    op = TeamOperation((800,), (90.0,), (0.2,), 2, team, adjudication_seconds=150, hourly_rate=20)
    result = simulate_team(op, runs=20, rng=3)
    judge = result.team.adjudicators[0]
    assert judge.items == pytest.approx(160, rel=0.2)  # 20 % of 800 contested
    assert judge.hours == pytest.approx(judge.items * 200 / 3600)
    calm = simulate_team(
        TeamOperation(
            (800,),
            (90.0,),
            (0.2,),
            2,
            Team(people, adjudicators=team.adjudicators, start=MONDAY),
            adjudication_seconds=150,
            hourly_rate=20,
        ),
        runs=20,
        rng=3,
    )
    assert result.calendar_days_median >= calm.calendar_days_median


def test_add_and_without():
    base = Team((Person("ana"), Person("bo"), Person("cy")), start=MONDAY)
    assert [p.name for p in base.with_person(person_from_text("dee,hours_per_day=6")).annotators][
        -1
    ] == "dee"
    assert [p.name for p in base.without("bo").annotators] == ["ana", "cy"]
    later = base.without("bo", dt.date(2027, 1, 11))
    assert later.annotators[1].end == dt.date(2027, 1, 10)
    with pytest.raises(InvalidInput, match="no annotator of the team"):
        base.without("zed")


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Person("a", days=("mon", "funday")), "weekdays among"),
        (lambda: Person("a", days=()), "no working days"),
        (lambda: Person("a", absent=((dt.date(2027, 1, 9), dt.date(2027, 1, 5)),)), "inverted"),
        (
            lambda: Person(
                "a",
                absent=((MONDAY, dt.date(2027, 1, 8)), (dt.date(2027, 1, 6), dt.date(2027, 1, 7))),
            ),
            "overlapping",
        ),
        (
            lambda: TeamOperation((10,), (90.0,), (0.0,), 3, Team((Person("a"), Person("b")))),
            "at most the team's 2",
        ),
        (
            lambda: simulate_team(
                TeamOperation((10,), (90.0,), (0.0,), 1, Team((Person("a"),), start=MONDAY)),
                deadline=dt.date(2026, 12, 1),
            ),
            "on or after the start",
        ),
    ],
)
def test_bad_people_and_plans_are_one_line(make, match):
    with pytest.raises(InvalidInput, match=match) as info:
        make()
    assert "\n" not in str(info.value)


def test_a_person_who_never_works_is_refused():
    friday = dt.date(2027, 1, 8)
    gone = Person("gone", start=MONDAY, end=friday, absent=((MONDAY, friday),))
    op = TeamOperation((10,), (90.0,), (0.0,), 1, Team((Person("a"), gone), start=MONDAY))
    with pytest.raises(InvalidInput, match="gone has no working day"):
        simulate_team(op, runs=1, rng=1)


# --- scenario files and the command line ------------------------------------------------

TEAM_FILE = """
[model]
prevalence = 0.1

[budget]
annotators_per_item = 2
seconds_per_item = 90

[team]
start = "2027-01-04"
runs = 4
time_spread = 0

[[team.annotator]]
name = "ana"
seconds_per_item = 60
hours_per_day = 4
hourly_rate = 30.0
{ana}

[[team.annotator]]
name = "bo"
seconds_per_item = 120
hours_per_day = 8
hourly_rate = 40.0
"""


def _team_file(tmp_path, ana="", extra=""):
    path = tmp_path / "team.toml"
    path.write_text(TEAM_FILE.format(ana=ana).replace("[team]\n", "[team]\n" + extra))
    return path


def _schedule_cli(*args):
    from typer.testing import CliRunner

    from planner.cli.commands import app

    return CliRunner().invoke(app, ["schedule", *args])


@pytest.mark.slow
def test_the_command_line_gives_the_hand_computed_dates_and_the_deadline(tmp_path):
    import json

    path = _team_file(tmp_path)
    out = _schedule_cli(
        str(path), "--items", "1440", "--seed", "2", "--deadline", "2027-01-08", "--json"
    )
    assert out.exit_code == 0, out.output
    team = json.loads(out.stdout)["team"]
    assert team["finish"]["p50"] == "2027-01-11" and team["cost_median"] == pytest.approx(2640)
    assert team["p_finish_by_deadline"] == 0.0  # all runs finish on the 11th, after the 8th
    absent = _team_file(tmp_path, ana='absent = ["2027-01-06/2027-01-08"]')
    out = _schedule_cli(str(absent), "--items", "1440", "--seed", "2", "--json")
    assert json.loads(out.stdout)["team"]["finish"]["p50"] == "2027-01-14"


@pytest.mark.slow
def test_add_and_without_are_one_option_away(tmp_path):
    import json

    path = _team_file(tmp_path)
    base = ["--items", "1440", "--seed", "2", "--json", "--annotators-per-item", "1"]
    days = {}
    for name, extra in (
        ("base", []),
        ("plus", ["--add", "cy,seconds_per_item=60,hours_per_day=8"]),
        ("minus", ["--without", "bo@2027-01-05"]),
    ):
        out = _schedule_cli(str(path), *base, *extra)
        assert out.exit_code == 0, out.output
        days[name] = json.loads(out.stdout)["team"]["finish_days"]["p50"]
    # alone from Tue 5 Jan, ana's 60 s labels (4 h a day) set the pace
    assert days["plus"] < days["base"] < days["minus"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ana", "extra", "args", "message"),
    [
        ('days = ["mon", "funday"]', "", (), "team.annotator[1].days must list weekdays"),
        ("days = []", "", (), "team.annotator[1].days must be a non-empty list"),
        (
            'absent = ["2027-01-09/2027-01-05"]',
            "",
            (),
            "team.annotator[1].absent must be an interval",
        ),
        (
            'absent = ["2027-01-05/2027-01-08", "2027-01-07"]',
            "",
            (),
            "team.annotator[1].absent has overlapping intervals",
        ),
        ("", "annotators = 3\n", (), "team.annotators = 3 beside [[team.annotator]]"),
        (
            "",
            "",
            ("--annotators-per-item", "3"),
            "--annotators-per-item must be at most the team's 2",
        ),
        (
            "",
            "",
            ("--deadline", "2026-12-31"),
            "--deadline must be on or after the start 2027-01-04",
        ),
        ("", "", ("--deadline", "soon"), "--deadline must be an ISO date"),
    ],
)
def test_bad_team_input_is_one_line_naming_the_file_and_key(tmp_path, ana, extra, args, message):
    path = _team_file(tmp_path, ana=ana, extra=extra)
    out = _schedule_cli(str(path), "--items", "100", *args)
    assert out.exit_code in (1, 2), out.output
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    if not args:
        assert lines[0].startswith(f"error: {path}: ")


@pytest.mark.slow
def test_schedule_takes_plans_model_options():
    import json

    items = {}
    for error in ("0.02", "0.08"):
        out = _schedule_cli(
            "--prevalence",
            "0.1",
            "--error-rate",
            error,
            "--width",
            "0.1",
            "--runs",
            "2",
            "--seed",
            "1",
            "--json",
        )
        assert out.exit_code == 0, out.output
        items[error] = sum(json.loads(out.stdout)["operation"]["items_per_stratum"])
    # noisier annotators: a lower PSA, a wider interval at each n, more items for the width
    assert items["0.08"] > items["0.02"]
    out = _schedule_cli("--prevalence", "0.1", "--kappa", "0.6", "--runs", "2", "--seed", "1")
    assert out.exit_code == 0, out.output


def test_adding_someone_already_on_the_team_names_add():
    from typer.testing import CliRunner

    from planner.cli.commands import app

    team = str(Path(__file__).parent.parent / "examples" / "team.toml")
    for extra in (["--add", "ana"], ["--add", "dee", "--add", "dee"]):
        result = CliRunner().invoke(app, ["schedule", team, *extra, "--runs", "2", "--seed", "1"])
        assert result.exit_code == 2
        name = extra[-1]
        assert result.stderr.strip().splitlines() == [
            f"error: --add names {name!r}, who is already on the team"
        ]
