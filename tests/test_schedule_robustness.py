"""``schedule`` checks what it is given and runs in bounded memory.

Regression tests for the defects of the reliability audit: command-line team and budget
values that skipped the checks (tracebacks, negative hours and costs), counts without bounds
(hangs), memory that grew with runs x items, options silently ignored and numpy reprs in
messages.
"""

from __future__ import annotations

import json
import math
import tracemalloc

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.operations.workload import (
    BURNDOWN_POINTS,
    MAX_STEPS,
    Operation,
    simulate_schedule,
    steps_per_run,
)

runner = CliRunner()
FAST = ["--items", "60", "--runs", "2", "--seed", "1"]


def _schedule(*args: str):
    return runner.invoke(app, ["schedule", *args])


def _one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output and "np." not in result.stderr
    return lines[0]


def _op(**kwargs):
    base = dict(items_per_stratum=(50,), seconds_per_item=(90.0,), contested_rate=(0.0,))
    base.update(kwargs)
    return Operation(**base)


# --- defect 1: command-line team and budget values get the [team] table's checks ---------

TEAM_AND_BUDGET_CASES = [
    # the audit's tracebacks
    ("--hours-per-day", "nan", "--hours-per-day must be a number in (0, 24], got nan"),
    ("--time-spread", "-1", "--time-spread must be a number in [0, 3] (lognormal sigma), got -1"),
    ("--attention-check-share", "1.5", "--attention-check-share must be a number in [0, 1)"),
    ("--attention-fail-rate", "nan", "--attention-fail-rate must be a number in [0, 1], got nan"),
    ("--seconds-per-item", "inf", "--seconds-per-item must be a number in (0, 1e6], got inf"),
    (
        "--team-size",
        str(10**30),
        f"--team-size must be a whole number in [1, 10,000], got {10**30}",
    ),
    ("--adjudicators", str(10**30), "--adjudicators must be a whole number in [0, 1,000]"),
    ("--days-per-week", "0", "--days-per-week must be a whole number in [1, 7], got 0"),
    # the audit's silent nonsense: negative person-hours and a negative cost
    ("--requalification-hours", "-28", "--requalification-hours must be a number >= 0, got -28"),
    ("--hourly-rate", "-5", "--hourly-rate must be a number in [0, 1e9], got -5"),
    ("--adjudication-seconds", "-1", "--adjudication-seconds must be a number in [0, 1e6], got -1"),
    ("--contested-rate", "2", "--contested-rate must be a number in [0, 1], got 2"),
    ("--annotators-per-item", "0", "--annotators-per-item must be a whole number in [1, 1,000]"),
    ("--seed", str(10**30), "--seed must be a whole number in [0, 9,223,372,036,854,775,807]"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("flag", "value", "message"), TEAM_AND_BUDGET_CASES)
def test_command_line_team_and_budget_values_are_checked(flag, value, message):
    line = _one_line_error(_schedule(*FAST, flag, value))
    assert line.startswith(f"error: {message}")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hours_per_day", float("nan")),
        ("time_spread", -1.0),
        ("attention_check_share", 1.5),
        ("requalification_hours", -28.0),
        ("annotators", 10**30),
        ("days_per_week", 0),
        ("adjudication_seconds", float("inf")),
        ("hourly_rate", -5.0),
    ],
)
def test_one_validation_for_library_and_command_line(key, value):
    """The library names the parameter; the CLI says the same with the flag in its place."""
    with pytest.raises(InvalidInput) as caught:
        _op(**{key: value})
    assert caught.value.parameter == key
    library = str(caught.value)
    assert library.startswith(f"{key} must be ")
    flag = "--team-size" if key == "annotators" else "--" + key.replace("_", "-")
    line = _one_line_error(
        _schedule(*FAST, flag, repr(value) if isinstance(value, float) else str(value))
    )
    assert line == f"error: {flag}{library[len(key) :]}"


def test_the_old_team_size_flag_still_works_with_a_one_line_note():
    result = _schedule(*FAST, "--annotators", "3", "--json")
    assert result.exit_code == 0
    notes = [line for line in result.stderr.splitlines() if "deprecated" in line]
    assert notes == [
        "note: --annotators is deprecated in schedule (it means a count elsewhere): use --team-size"
    ]
    assert json.loads(result.stdout)["operation"]["annotators"] == 3


def test_scenario_team_values_are_checked_naming_the_file_and_key(tmp_path):
    path = tmp_path / "team.toml"
    path.write_text("[model]\nprevalence = 0.1\n\n[team]\nhours_per_day = nan\n")
    line = _one_line_error(_schedule(str(path), "--items", "50"))
    assert line == f"error: {path}: team.hours_per_day must be a number in (0, 24], got nan"


def test_numpy_values_are_shown_as_typed():
    with pytest.raises(
        InvalidInput, match=r"annotators must be a whole number in \[1, 10,000\], got 0$"
    ):
        _op(annotators=np.int64(0))
    with pytest.raises(InvalidInput, match=r"got nan$"):
        _op(seconds_per_item=(np.float64("nan"),))
    with pytest.raises(InvalidInput, match="distinct annotators each item needs, got 1$"):
        _op(labels_per_item=np.int64(2), annotators=np.int64(1))


def test_per_stratum_values_need_one_value_per_stratum():
    with pytest.raises(InvalidInput, match="one value per stratum"):
        _op(items_per_stratum=(10, 20))
    with pytest.raises(InvalidInput, match="items_per_stratum in total must be"):
        _op(items_per_stratum=(0,))


def test_values_are_converted_on_creation():
    op = _op(annotators=np.int64(3), hours_per_day=4, items_per_stratum=(np.int64(7),))
    assert type(op.annotators) is int and type(op.hours_per_day) is float
    assert type(op.items_per_stratum[0]) is int


# --- defect 2: bounds on every count that scales time -------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--items", "10", "--runs", "100001"],
            "--runs must be a whole number in [1, 100,000], got 100001",
        ),
        (
            ["--items", "10", "--runs", "1000000000"],
            "--runs must be a whole number in [1, 100,000]",
        ),
        (
            ["--items", "10000001"],
            "--items must be a whole number in [1, 10,000,000], got 10000001",
        ),
        (["--items", "0"], "--items must be a whole number in [1, 10,000,000], got 0"),
        (
            ["--items", "10000000", "--runs", "100"],
            f"runs x steps per run must be at most {MAX_STEPS:,}, got 100 x 20,000,000 = "
            "2,000,000,000",
        ),
        (
            ["--items", "10000000", "--annotators-per-item", "3"],
            "items x annotators per item must be at most 20,000,000 (the labels one run holds), "
            "got 10,000,000 x 3 = 30,000,000",
        ),
        (["--items", "1000000", "--seconds-per-item", "1e6"], "the operation would take about"),
        (
            ["--items", "10000000", "--adjudication-seconds", "1e6", "--contested-rate", "1"],
            "the operation would take about 3.47e+08 working days of one person, more than the "
            "1,000,000 the schedule simulates",
        ),
    ],
)
def test_counts_that_scale_time_are_bounded(args, message):
    line = _one_line_error(_schedule(*args, "--seed", "1"))
    assert line.startswith(f"error: {message}")


def test_steps_count_adjudications_and_attention_checks():
    op = _op(
        items_per_stratum=(100, 100),
        seconds_per_item=(60.0, 60.0),
        contested_rate=(0.5, 0.1),
        labels_per_item=2,
        annotators=4,
        adjudication_seconds=30.0,
        attention_check_share=0.1,
    )
    assert steps_per_run(op) == 400 + 20 * 60 + 200 * 4
    assert steps_per_run(_op(contested_rate=(1.0,))) == 100  # no adjudication time: no queue


def test_a_cost_that_would_overflow_is_refused():
    with pytest.raises(InvalidInput, match="hourly_rate must be a number in \\[0, 1e9\\]"):
        _op(items_per_stratum=(10_000,), hourly_rate=1e306)


# --- defect 3: memory O(runs + items), a progress report per run ---------------------------


def _peak_bytes(runs: int) -> int:
    op = _op(
        items_per_stratum=(20_000,), annotators=4, contested_rate=(0.1,), adjudication_seconds=30.0
    )
    tracemalloc.start()
    simulate_schedule(op, runs=runs, rng=2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


@pytest.mark.slow
def test_memory_does_not_grow_with_runs_times_items():
    # before the fix every run's completion times were kept: 40 runs held 10x what 4 held
    assert _peak_bytes(40) < 1.5 * _peak_bytes(4)


def test_records_hold_no_per_item_arrays_and_progress_is_reported_per_run():
    calls = []
    result = simulate_schedule(_op(), runs=3, rng=5, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert all(not isinstance(v, np.ndarray) for r in result.records for v in vars(r).values())


def test_each_run_has_its_own_stream_whatever_the_number_of_runs():
    op = _op(items_per_stratum=(300,), labels_per_item=2, annotators=3)
    three = simulate_schedule(op, runs=3, rng=11).records
    five = simulate_schedule(op, runs=5, rng=11).records
    assert five[:3] == three


@pytest.mark.parametrize(("items", "step"), [(100, 1), (2000, 4)])
def test_burndown_matches_the_hand_calculation_on_a_coarse_grid(items, step):
    # one annotator, fixed one-shift items, seven-day weeks: item i is done on day i
    op = _op(
        items_per_stratum=(items,),
        seconds_per_item=(3600.0,),
        labels_per_item=1,
        annotators=1,
        hours_per_day=1.0,
        days_per_week=7,
        time_spread=0.0,
        adjudicators=0,
    )
    result = simulate_schedule(op, runs=2, rng=1)
    days = np.asarray(result.burndown_days)
    assert result.calendar_days_median == items
    assert len(days) <= BURNDOWN_POINTS + 2 and np.all(np.diff(days) == step) and days[0] == 0
    expected = 1.0 - np.minimum(days, items) / items
    for curve in (result.burndown_median, result.burndown_p10, result.burndown_p90):
        np.testing.assert_allclose(curve, expected, atol=1e-12)
    assert days[-1] >= items and result.burndown_median[-1] == 0


def test_large_schedule_command_gives_json_and_bounded_output():
    result = _schedule("--items", "3000", "--runs", "4", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert len(doc["burndown_days"]) <= BURNDOWN_POINTS + 2 and doc["notes"] == []
    assert math.isclose(doc["burndown_median"][0], 1.0) and doc["burndown_median"][-1] == 0


# --- defect 4: options that would be ignored ----------------------------------------------


@pytest.mark.parametrize(
    ("args", "note"),
    [
        (
            ["--items", "50", "--design", "enriched"],
            "--design enriched has no effect: with --items no design is planned",
        ),
        (
            ["--prevalence", "0.2", "--width", "0.2", "--design", "uniform"],
            "--design uniform has no effect: the study has no strata to allocate",
        ),
    ],
)
def test_an_ignored_design_is_a_note_on_stderr_and_in_json(args, note):
    result = _schedule(*args, "--runs", "2", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"note: {note}"
    assert json.loads(result.stdout)["notes"] == [note]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--prevalence", "0.2", "--contested-rate", "0.3"],
            "--contested-rate applies only with --items",
        ),
        (
            ["--items", "50", "--prevalence", "0.2"],
            "--items fixes the study's size, so --prevalence",
        ),
        (
            ["--items", "50", "--width", "0.1", "--assurance", "0.8"],
            "so --width, --assurance would",
        ),
    ],
)
def test_options_without_effect_are_refused(args, message):
    line = _one_line_error(_schedule(*args, "--runs", "2", "--seed", "1"))
    assert message in line


def test_a_bad_design_is_refused_even_where_it_would_not_apply():
    line = _one_line_error(_schedule("--items", "50", "--design", "bogus"))
    assert line == "error: --design must be one of uniform, enriched, weighted; got 'bogus'"


def test_a_plan_too_large_to_schedule_says_so():
    from dataclasses import replace

    from planner.application.schedule_options import operation_for
    from planner.application.schedule_team import TeamSettings
    from planner.sizing.model import pair_from_annotators
    from planner.sizing.plan import PlanSettings, make_plan

    # a real Plan (operation_for dispatches on Plan | Comparison), made too large to schedule
    small = make_plan(pair_from_annotators(0.2, 0.05), PlanSettings(width=0.2), rng=1)
    plan = replace(
        small, results={m: replace(r, items=20_000_000) for m, r in small.results.items()}
    )
    with pytest.raises(InvalidInput, match=r"^the items to schedule must be a whole number in"):
        operation_for(plan, TeamSettings())
