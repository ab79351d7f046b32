"""A leaver holding overlap-block items: both engines give the items back and finish."""

from __future__ import annotations

import datetime as dt
from itertools import combinations

import numpy as np
import pytest

from planner.errors import PlannerError
from planner.operations.team import Person, Team
from planner.operations.team_fast import fast_block
from planner.operations.team_outcome import simulate_team
from planner.operations.team_schedule import (
    Labelling,
    People,
    TeamOperation,
    assigned_in_advance,
    horizon_guess,
    reduce_block,
)

START = dt.date(2027, 1, 4)  # a Monday


def _operation(
    n_items: int = 600, *, attrition: float = 0.0, assignment: str = "next-free"
) -> TeamOperation:
    """Five annotators, three per item, 40 items for every pair; ``e`` works one hour on the
    first day only, so leaves with about half of their ~80 block items unlabelled."""
    people = [Person(name=name, seconds_per_item=60, hours_per_day=4) for name in "abcd"]
    people.append(Person(name="e", seconds_per_item=90, hours_per_day=1, end=START))
    team = Team(
        annotators=tuple(people),
        start=START,
        min_shared_items=40,
        attrition_weekly=attrition,
        assignment=assignment,
    )
    return TeamOperation(
        items_per_stratum=(n_items,),
        seconds_per_item=(60.0,),
        contested_rate=(0.0,),
        labels_per_item=3,
        team=team,
        budget_seconds=60.0,
    )


def _labelled(op: TeamOperation, engine: str, runs: int = 6, seed: int = 3):  # type: ignore[no-untyped-def]
    ann = People.of(op.team.annotators, op.budget_seconds, op.budget_seconds)
    horizon = horizon_guess(op, ann)
    rng = np.random.default_rng(seed)
    if engine == "fast":
        lab = fast_block(op, ann, runs, horizon, rng)
    else:
        events = Labelling(op, ann, runs, horizon, rng)
        lab = events.labelled() if events.run(None) else None
    assert lab is not None, "the run did not finish"
    adj = People.of((), 0.0, 1.0)
    return lab, reduce_block(lab, op, adj, horizon, rng)


def _fewest_shared(rec_run: np.ndarray, m: int) -> int:
    """The fewest items any pair labels together, counted item by item."""
    sets = [set(row.tolist()) for row in rec_run]
    return min(sum(1 for s in sets if a in s and b in s) for a, b in combinations(range(m), 2))


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ["next-free", "balanced"])
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_a_leaver_with_block_items_still_finishes_with_k_distinct_per_item(
    engine: str, assignment: str
) -> None:
    op = _operation(assignment=assignment)
    lab, reduced = _labelled(op, engine)
    m, k = len(op.team.annotators), op.labels_per_item
    block = assigned_in_advance(op)
    gave_back = 0
    for i in range(lab.rec.shape[0]):
        rec = lab.rec[i]
        assert (rec >= 0).all()
        assert all(len(set(row.tolist())) == k for row in rec)  # k distinct annotators each
        assert np.isfinite(lab.done[i]).all()
        gave_back += int((block != rec[: len(block)]).any(axis=1).sum())
        assert reduced.min_shared[i] == _fewest_shared(rec, m)
    assert gave_back > 0  # e left with block items: others took them


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_the_leaver_labels_nothing_after_their_last_day(engine: str) -> None:
    op = _operation()
    lab, _ = _labelled(op, engine)
    e = len(op.team.annotators) - 1
    assert (lab.last_end[:, e] <= 1.0).all()  # model time 1.0 = the end of the first day
    assert (lab.work[:, e] <= 3600 + 1e-6).all()  # their one working hour
    held = int((assigned_in_advance(op) == e).sum())
    assert (lab.items[:, e] < held).all()  # fewer labels than block items they held


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_the_schedule_reports_the_minimum_reached_and_names_short_pairs(engine: str) -> None:
    op = _operation()
    result = simulate_team(op, runs=8, rng=5, engine=engine)
    team = result.team
    assert team is not None
    assert team.min_shared_reached < team.min_shared_items
    assert team.short_pairs
    assert all("e" in (a, b) for a, b, _ in team.short_pairs)  # only the leaver's pairs
    assert min(c for _, _, c in team.short_pairs) == team.min_shared_reached
    assert any("share fewer than the 40 asked" in note for note in result.notes)


@pytest.mark.parametrize("engine", ["events", "fast"])
def test_attrition_with_an_overlap_block_finishes(engine: str) -> None:
    op = _operation(300, attrition=0.3)
    lab, reduced = _labelled(op, engine, runs=4)
    for i in range(lab.rec.shape[0]):
        assert all(len(set(row.tolist())) == op.labels_per_item for row in lab.rec[i])
        assert reduced.min_shared[i] == _fewest_shared(lab.rec[i], len(op.team.annotators))


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["events", "fast"])
def test_a_team_left_too_small_is_refused_naming_who_left_when(engine: str) -> None:
    people = (
        Person(name="ana", seconds_per_item=60, hours_per_day=4),
        Person(name="bo", seconds_per_item=60, hours_per_day=4, end=dt.date(2027, 1, 5)),
    )
    op = TeamOperation(
        items_per_stratum=(2000,),
        seconds_per_item=(60.0,),
        contested_rate=(0.0,),
        labels_per_item=2,
        team=Team(annotators=people, start=START),
        budget_seconds=60.0,
    )
    with pytest.raises(PlannerError, match=r"bo \(last day 2027-01-05\) left.*only ana stays"):
        simulate_team(op, runs=4, rng=1, engine=engine)


@pytest.mark.slow
def test_the_cli_refuses_a_team_left_too_small_in_one_line_with_exit_1() -> None:
    from typer.testing import CliRunner

    from planner.cli.commands import app

    args = ["schedule", "examples/team.toml", "--without", "bo@2027-01-06", "--runs", "4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "bo (last day 2027-01-05) left" in lines[0]
