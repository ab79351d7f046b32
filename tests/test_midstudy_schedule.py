"""planner schedule --labelled FILE: the schedule of the items a study in progress still needs.

The dates are checked against a hand computation for a deterministic team (no spread in the
time per label): two annotators, both labelling every item at 90 s, 4 hours a working day, so
the rest takes ceil(90 m / 3600 / 4) working days from the start (weekends skipped, numpy's
business-day calendar).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.jsonout import load_schema
from planner.sizing.midstudy import plan_remaining_from_file
from planner.sizing.plan import PlanSettings

ROOT = Path(__file__).parent.parent
LABELLED = str(ROOT / "examples" / "labelled-600.csv")
runner = CliRunner()


@pytest.mark.slow
def test_finish_dates_of_the_rest_match_a_hand_computation():
    args = ["schedule", "--labelled", LABELLED, "--width", "0.08", "--team-size", "2"]
    args += ["--hours-per-day", "4", "--time-spread", "0", "--start", "2027-01-08"]
    result = runner.invoke(app, [*args, "--runs", "20", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    remaining = plan_remaining_from_file(LABELLED, PlanSettings(), rng=1).remaining_items
    assert doc["in_progress"]["remaining_items"] == remaining
    assert doc["in_progress"]["labelled_items"] == 600
    assert doc["in_progress"]["total_items"] == 600 + remaining
    days = math.ceil(remaining * 90 / 3600 / 4)  # each annotator labels every item
    finish = np.busday_offset(np.datetime64("2027-01-08"), days - 1, roll="forward")
    assert doc["team"]["finish"] == {"p10": str(finish), "p50": str(finish), "p90": str(finish)}
    assert doc["person_hours_median"] == remaining * 2 * 90 / 3600


@pytest.mark.slow
def test_tables_and_refusals():
    base = ["schedule", "--labelled", LABELLED, "--width", "0.08", "--runs", "20", "--seed", "1"]
    tables = runner.invoke(app, base)
    assert tables.exit_code == 0, tables.output
    assert "Study in progress: done so far and still to do" in tables.stdout
    both = runner.invoke(app, [*base, "--items", "100"])
    assert both.exit_code == 2 and "--items" in both.stderr


def test_a_study_already_narrow_enough_is_done_and_exits_0():
    from planner.statistics.intervals import psa_interval

    done = runner.invoke(app, ["schedule", "--labelled", LABELLED, "--width", "0.2"])
    assert done.exit_code == 0 and done.stdout.startswith("done: 600 items labelled")
    doc = json.loads(
        runner.invoke(app, ["schedule", "--labelled", LABELLED, "--width", "0.2", "--json"]).stdout
    )
    now = doc["in_progress"]
    assert doc["status"] == "done" and now["remaining_items"] == 0
    # the interval now, computed from the file's own 2x2 table (Wilson for PSA)
    counts = plan_remaining_from_file(LABELLED, PlanSettings(width=0.2), rng=1).counts
    ci = psa_interval(np.asarray(counts, dtype=float).reshape(2, 2), 0.95, "wilson")
    assert now["interval_now"] == [float(ci.low), float(ci.high)] and now["half_width_now"] <= 0.2


@pytest.mark.slow
def test_a_stratified_study_in_progress_schedules_the_rest_of_every_stratum():
    """schedule --labelled --stratum-col: the items still to label are the stratified plan's
    (the library's, same seed), per stratum and in all; the schedule labels that many."""
    from planner.sizing.strata_file import plan_remaining_strata_from_file

    strata_file = str(ROOT / "examples" / "stratified-labels.csv")
    args = ["schedule", "unsupported-claims-enriched", "--labelled", strata_file]
    args += ["--stratum-col", "stratum", "--positive", "unsupported", "--runs", "20"]
    result = runner.invoke(app, [*args, "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    plan = plan_remaining_strata_from_file(
        strata_file, "unsupported-claims-enriched", "stratum", positive="unsupported", rng=1
    )
    now = doc["in_progress"]
    assert now["remaining_items"] == plan.remaining_items == sum(s.remaining for s in plan.strata)
    assert now["remaining_by_stratum"] == {s.name: s.remaining for s in plan.strata}
    assert now["labelled_items"] == 600
    assert sum(doc["operation"]["items_per_stratum"]) == plan.remaining_items
    assert "does not look like a random sample of the design" in result.stderr


def test_a_stratum_column_needs_the_stratified_scenario():
    strata_file = str(ROOT / "examples" / "stratified-labels.csv")
    args = ["schedule", "--labelled", strata_file, "--stratum-col", "stratum"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --stratum-col with --labelled needs the stratified design: a scenario"
    ]


def test_the_rest_of_each_stratum_is_scheduled_at_that_strata_seconds(short_first_stage):
    """Regression: the rest was run as one stratum at the budget's 90 s, so when it fell in
    the 100 s and 120 s strata the schedule's hours were not the plan's (33.04 against 33.61).
    The analytic person-hours are recomputed from the file with pandas: two labels of each
    stratum's seconds, plus the scenario's 120 s of adjudication for each item whose labels
    differ."""
    import pandas as pd

    args = ["schedule", "unsupported-claims-enriched", "--labelled", str(short_first_stage),
            "--stratum-col", "stratum", "--positive", "unsupported", "--runs", "20", "--seed",
            "1", "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    rest = doc["in_progress"]["remaining_by_stratum"]
    assert rest["user complaints"] > 0 and rest["flagged by an automated check"] > 0
    held = pd.read_csv(short_first_stage)
    differ = held.groupby(["stratum", "item"]).label.nunique() > 1
    seconds = {"flagged by an automated check": 100.0, "user complaints": 120.0}
    hours = sum(
        n * (2 * seconds.get(name, 90.0) + differ[name].mean() * 120.0) / 3600
        for name, n in rest.items()
    )
    assert doc["analytic_person_hours"] == pytest.approx(hours, rel=1e-9)
    assert doc["in_progress"]["budget"]["person_hours"] == pytest.approx(hours, rel=1e-9)


STRATA_ARGS = ["schedule", "unsupported-claims-enriched", "--labelled",
               str(ROOT / "examples" / "stratified-labels.csv"), "--stratum-col", "stratum",
               "--positive", "unsupported", "--runs", "20", "--seed", "1"]  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (["--seconds-per-item", "200"],
         "error: --seconds-per-item does not apply to a stratified study in progress"),
        (["--metric", "kappa"], "error: --metric does not apply to a stratified study in progress"),
        (["--contested-rate", "1.5"],
         "error: --contested-rate must be a number in [0, 1], got 1.5"),
    ],
)  # fmt: skip
def test_a_stratified_study_in_progress_refuses_what_it_cannot_honour(extra, line):
    # regression: the schedule ran each stratum's own seconds whatever --seconds-per-item said,
    # and clamped a contested share of 1.5 to 1
    result = runner.invoke(app, [*STRATA_ARGS, *extra])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [line]


def test_three_labels_an_item_are_what_the_stratified_schedule_labels():
    # regression: the plan of the rest billed 3 labels an item (37.17 person-hours), the
    # schedule labelled 2 (24.99). Hand count: 3 labels of each stratum's seconds, plus 120 s
    # for the contested share of the remaining items the plan reports
    result = runner.invoke(app, [*STRATA_ARGS, "--annotators-per-item", "3", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    operation = doc["operation"]
    assert operation["labels_per_item"] == 3
    items = np.array(operation["items_per_stratum"])
    hours = (3 * items * np.array(operation["seconds_per_item"])).sum() / 3600
    hours += doc["in_progress"]["budget"]["contested_items"] * 120 / 3600
    assert doc["analytic_person_hours"] == pytest.approx(hours, rel=1e-9)
    assert doc["in_progress"]["budget"]["person_hours"] == pytest.approx(hours, rel=1e-9)


def test_a_missing_positive_label_is_asked_for_not_called_wrong():
    # regression: "--positive must be one of the file's labels" when --positive was not given
    args = STRATA_ARGS[: STRATA_ARGS.index("--positive")] + ["--runs", "20"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --positive must name the label that counts: the file's labels are supported, "
        "unsupported"
    )


def test_the_stratified_rest_is_planned_with_the_replicates_and_cap_given():
    # regression: schedule kept the scenario's 4,000 second stages (489 items) where plan used
    # --replicates 200 (496), and scheduled 487 items under --max-items 100, which plan refuses
    labelled = ["--labelled", STRATA_ARGS[3], "--stratum-col", "stratum", "--positive",
                "unsupported", "--seed", "3", "--replicates", "200", "--json"]  # fmt: skip
    plan = runner.invoke(app, ["plan", "--scenario", "unsupported-claims-enriched", *labelled])
    schedule = runner.invoke(
        app, ["schedule", "unsupported-claims-enriched", *labelled, "--runs", "20"]
    )
    assert plan.exit_code == 0 and schedule.exit_code == 0, plan.output + schedule.output
    remaining = json.loads(plan.stdout)["remaining_items"]
    assert json.loads(schedule.stdout)["in_progress"]["remaining_items"] == remaining
    capped = runner.invoke(app, [*STRATA_ARGS, "--max-items", "100"])
    assert capped.exit_code == 1
    assert "below --max-items 100" in capped.stderr


def test_kappa_method_is_refused_for_a_stratified_study_in_progress():
    result = runner.invoke(app, [*STRATA_ARGS, "--kappa-method", "score"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --kappa-method does not apply to a stratified study in progress"
    )
