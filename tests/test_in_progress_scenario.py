"""A study in progress that is not stratified, planned with its scenario: the scenario's target
and costs under the flags, the same rest in plan, schedule and report, and a named team that
bills the rest person by person.

The references are independent of the code under test: the library's plan of the rest with
the scenario's values written out here, and the named team's cost computed by hand from
examples/team.toml (every item labelled by both people, at their own seconds and rates).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.application.in_progress import remaining_from_file, remaining_settings
from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.midstudy import plan_remaining_from_file
from planner.sizing.plan_settings import PlanSettings
from tests.stratified_reference import NAMED_TEAM

ROOT = Path(__file__).parent.parent
LABELS = str(ROOT / "examples" / "labelled-600.csv")
TEAM = ROOT / "examples" / "team.toml"
runner = CliRunner()


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def by_hand():
    """unsupported-claims.toml's [target] and [budget], written out: +/-0.08 at 95 %, with
    assurance 0.9; 2 labels an item at 90 s, 120 s an adjudication, 40 an hour."""
    settings = PlanSettings(
        width=0.08, confidence_level=0.95, assurance=0.9, annotators_per_item=2,
        seconds_per_item=90, adjudication_seconds=120, hourly_rate=40.0,
    )  # fmt: skip
    return plan_remaining_from_file(LABELS, settings, rng=1)


def test_plan_with_a_scenario_plans_to_its_target_and_costs(by_hand):
    doc = _json("plan", "--labelled", LABELS, "--scenario", "unsupported-claims", "--seed", "1")
    assert doc["remaining_items"] == by_hand.remaining_items == 768
    assert doc["assurance"] >= 0.9 and doc["inputs"]["assurance"] == 0.9
    assert doc["budget"]["cost"] == pytest.approx(by_hand.budget.cost, rel=1e-12)


def test_a_flag_replaces_the_scenarios_value():
    doc = _json("plan", "--labelled", LABELS, "unsupported-claims", "--width", "0.1", "--seed", "1")
    settings = PlanSettings(
        width=0.1, assurance=0.9, seconds_per_item=90, adjudication_seconds=120, hourly_rate=40.0
    )
    assert (
        doc["remaining_items"] == plan_remaining_from_file(LABELS, settings, rng=1).remaining_items
    )


@pytest.mark.slow
def test_schedule_and_report_plan_the_same_rest_as_plan(tmp_path, by_hand):
    # regression: schedule --labelled FILE SCENARIO planned 570 items at assurance 0.5, the
    # flags' defaults, while report planned the scenario's 768
    schedule = _json(
        "schedule", "--labelled", LABELS, "unsupported-claims", "--seed", "1", "--runs", "5"
    )
    assert schedule["in_progress"]["remaining_items"] == by_hand.remaining_items
    assert schedule["in_progress"]["budget"]["cost"] == pytest.approx(by_hand.budget.cost)
    out = tmp_path / "r"
    made = runner.invoke(
        app, ["report", "unsupported-claims", "--labelled", LABELS, "--seed", "1", "--out",
              str(out), "--quiet"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    text = next(out.rglob("report.md")).read_text()
    assert "| still to label | 768 |" in text
    assert f"| cost still to spend | {by_hand.budget.cost:,.2f} |" in text


def _team_scenario(tmp_path: Path) -> str:
    shutil.copy(TEAM, tmp_path / "team.toml")
    return str(tmp_path / "team.toml")


@pytest.mark.slow
def test_a_named_team_bills_the_rest_person_by_person(tmp_path):
    path = _team_scenario(tmp_path)
    doc = _json("plan", "--labelled", LABELS, "--scenario", path, "--seed", "1")
    n = doc["remaining_items"]
    # examples/team.toml: ana 60 s a label at 30 an hour, bo 120 s at 40; both label every item
    assert doc["budget"]["person_hours"] == pytest.approx(n * (60 + 120) / 3600)
    assert doc["budget"]["cost"] == pytest.approx(n * (60 * 30 + 120 * 40) / 3600)
    (note,) = [x for x in doc["notes"] if "person by person" in x]
    assert "ana" in note and "bo" in note
    schedule = _json("schedule", "--labelled", LABELS, path, "--seed", "1", "--runs", "50")
    assert schedule["cost_median"] == pytest.approx(doc["budget"]["cost"], rel=0.01)
    # regression: the report had no cost still to spend (the budget's single rate is unset)
    out = tmp_path / "r"
    made = runner.invoke(
        app, ["report", path, "--labelled", LABELS, "--seed", "1", "--out", str(out), "--quiet"]
    )
    assert made.exit_code == 0, made.output
    text = next(out.rglob("report.md")).read_text()
    assert f"| cost still to spend | {doc['budget']['cost']:,.2f} |" in text


def test_a_stratified_scenario_is_read_by_stratum():
    result = runner.invoke(
        app, ["plan", "--labelled", LABELS, "--scenario", "unsupported-claims-enriched"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "unsupported-claims-enriched.toml has [[strata]]: its study in progress is read by "
        "stratum; name the label file's stratum column with --stratum-col"
    )


def test_a_several_annotator_scenario_must_count_the_files_annotators():
    with pytest.raises(InvalidInput, match="annotators.count 3 does not match"):
        remaining_from_file(LABELS, "web-toxicity-three-annotators", rng=1)


def test_the_settings_are_the_given_over_the_scenarios_over_the_defaults(tmp_path):
    scenario = load_scenario("unsupported-claims")
    settings = remaining_settings(scenario, {"width": 0.1, "assurance": None})
    assert (settings.width, settings.assurance, settings.hourly_rate) == (0.1, 0.9, 40.0)
    assert settings.team is None
    assert remaining_settings(None, {}) == PlanSettings()
    named = remaining_settings(load_scenario(_team_scenario(tmp_path)), {})
    assert named.team is not None and named.team.labels_per_item == 2


#: an item's cost and person-seconds by the three: each labels every item
THREE_COST, THREE_SECONDS = (60 * 30 + 120 * 40 + 90 * 35) / 3600, 60 + 120 + 90


@pytest.mark.slow
def test_several_annotators_rest_and_what_hours_buy_are_billed_by_the_named_team(tmp_path):
    shipped = Path(load_scenario("web-toxicity-three-annotators").path).read_text()
    path = tmp_path / "three.toml"
    path.write_text(shipped + NAMED_TEAM)
    wide = str(ROOT / "examples" / "wide.csv")
    args = ["plan", "--labelled", wide, "--scenario", str(path), "--positive", "unsupported"]
    doc = _json(*args, "--seed", "1")
    n = doc["remaining_items"]
    assert n > 0 and doc["budget"]["cost"] == pytest.approx(n * THREE_COST)
    assert doc["budget"]["person_hours"] == pytest.approx(n * THREE_SECONDS / 3600)
    bought = _json(*args, "--seed", "1", "--hours", "20")["bought"]
    assert bought["bought_items"] == int(20 * 3600 // THREE_SECONDS)
    assert bought["budget_spent"]["cost"] == pytest.approx(bought["bought_items"] * THREE_COST)


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--labelled", LABELS, "{s}"],
        ["plan", "--labelled", LABELS, "{s}", "--stratum-col", "stratum"],
        ["schedule", "--labelled", LABELS, "{s}"],
        ["schedule", "--labelled", LABELS, "{s}", "--stratum-col", "stratum"],
        ["report", "{s}", "--labelled", LABELS],
    ],
    ids=["plan", "plan-strata", "schedule", "schedule-strata", "report"],
)
def test_a_scenarios_refusal_keeps_its_keys_as_keys(tmp_path, args):
    # regression: "allowed: alt_test, --budget, ...": the scenario was read where flags are named
    bad = tmp_path / "bad.toml"
    bad.write_text("x = 1\n")
    result = runner.invoke(app, [a.replace("{s}", str(bad)) for a in args])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "unknown key x; allowed: alt_test, budget, description" in line


def test_without_a_seed_plan_schedule_and_report_draw_the_scenarios():
    # regression: plan --labelled and schedule --labelled drew a fresh seed (769 or 768 items)
    # where report used [simulation] seed
    seed = load_scenario("unsupported-claims").simulation["seed"]
    settings = PlanSettings(
        width=0.08, assurance=0.9, seconds_per_item=90, adjudication_seconds=120, hourly_rate=40.0
    )
    expected = plan_remaining_from_file(LABELS, settings, rng=seed).remaining_items
    plan = _json("plan", "--labelled", LABELS, "unsupported-claims")
    assert (plan["seed"], plan["remaining_items"]) == (seed, expected)
    schedule = _json("schedule", "--labelled", LABELS, "unsupported-claims", "--runs", "5")
    assert (schedule["seed"], schedule["in_progress"]["remaining_items"]) == (seed, expected)


def test_a_scenario_may_be_given_as_a_path(tmp_path):
    path = Path(_team_scenario(tmp_path))
    assert remaining_from_file(Path(LABELS), path, rng=1).remaining_items == (
        remaining_from_file(LABELS, str(path), rng=1).remaining_items
    )


def _three_person_team(tmp_path: Path) -> str:
    """examples/team.toml and a third person, cy: 90 s a label at 35 an hour."""
    path = tmp_path / "team3.toml"
    path.write_text(
        TEAM.read_text()
        + '\n[[team.annotator]]\nname = "cy"\nseconds_per_item = 90\nhourly_rate = 35.0\n'
    )
    return str(path)


@pytest.mark.slow
def test_a_pair_scenarios_team_bills_each_of_the_files_annotators(tmp_path):
    # regression: "team is priced for 2 labels an item but the study gives each item 3"
    wide = str(ROOT / "examples" / "wide.csv")
    args = ["plan", "--labelled", wide, "--scenario", _three_person_team(tmp_path)]
    doc = _json(*args, "--positive", "unsupported", "--width", "0.04", "--seed", "1")
    n = doc["remaining_items"]
    assert n > 0 and doc["budget"]["cost"] == pytest.approx(n * THREE_COST)
    assert doc["budget"]["labels"] == 3 * n
    assert any("a label from each of them" in x for x in doc["notes"])


def test_a_team_smaller_than_the_files_annotators_is_refused_by_its_count():
    wide = str(ROOT / "examples" / "wide.csv")
    with pytest.raises(InvalidInput, match="labels are from 3 annotators, but .* names 2"):
        remaining_from_file(wide, str(TEAM), positive="unsupported", rng=1)


def test_a_several_annotator_count_is_checked_before_its_team_is_priced(tmp_path):
    # regression: "team is priced for 3 labels an item but the study gives each item 2"
    shipped = Path(load_scenario("web-toxicity-three-annotators").path).read_text()
    path = tmp_path / "three.toml"
    path.write_text(shipped + NAMED_TEAM)
    result = runner.invoke(app, ["plan", "--labelled", LABELS, "--scenario", str(path)])
    assert result.exit_code == 2
    assert "annotators.count 3 does not match the labels in hand" in result.stderr
    assert "team_pricing" not in result.stderr


def test_the_named_teams_note_bills_its_adjudicator_and_says_when_a_rate_is_missing(tmp_path):
    path = _team_scenario(tmp_path)
    args = ["plan", "--labelled", LABELS, "--scenario", path, "--seed", "1"]
    doc = _json(*args, "--adjudication-seconds", "120")
    (note,) = [x for x in doc["notes"] if "person by person" in x]
    contested = doc["budget"]["contested_items"]
    # team.toml names no adjudicator: the budget's 120 s an adjudication, and no rate for it
    assert f"adjudication: adjudicator 1 {contested:,.0f} items adjudicated at 120 s" in note
    assert note.endswith("no cost is given: adjudicator 1 without an hourly rate")
    assert doc["budget"]["cost"] is None
    assert doc["inputs"]["team"]["annotators"][0]["name"] == "ana"
    assert _json(*args)["budget"]["cost"] is not None  # nobody adjudicates: nobody unpriced


def test_the_schedule_of_the_rest_carries_its_plans_notes_and_prices_by_person(tmp_path):
    path = _team_scenario(tmp_path)
    doc = _json("schedule", "--labelled", LABELS, path, "--seed", "1", "--runs", "5")
    assert any("person by person" in x for x in doc["in_progress"]["notes"])
    table = runner.invoke(app, ["plan", "--labelled", LABELS, "--scenario", path, "--seed", "1"])
    (row,) = [x for x in table.stdout.splitlines() if "cost still to spend" in x]
    assert "each person at their rate" in row
    assert _json("plan", "--labelled", LABELS, "--seed", "1")["inputs"]["team"] is None


@pytest.mark.parametrize(
    "command",
    [
        ["plan", "--labelled", LABELS, "{s}"],
        ["schedule", "--labelled", LABELS, "{s}"],
        ["report", "{s}", "--labelled", LABELS, "--out", "{out}"],
    ],
    ids=["plan", "schedule", "report"],
)
def test_a_scenarios_value_is_refused_by_its_key(tmp_path, command):
    # regression: plan and schedule said "--max-items must exceed ..." of the scenario's value,
    # and report said "already --labelled"
    text = Path(load_scenario("unsupported-claims").path).read_text()
    path = tmp_path / "capped.toml"
    path.write_text(text.replace("[simulation]\n", "[simulation]\nmax_items = 500\n"))
    args = [a.replace("{s}", str(path)).replace("{out}", str(tmp_path / "r")) for a in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"error: {path}: simulation.max_items must exceed the 600 items already labelled, got 500"
    )


def test_a_flag_over_the_scenarios_value_is_refused_as_the_flag(tmp_path):
    result = runner.invoke(
        app, ["plan", "--labelled", LABELS, "unsupported-claims", "--max-items", "500"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "--max-items must exceed the 600 items already labelled, got 500"
    )


def test_report_and_plan_refuse_a_stratified_scenario_in_the_same_words(tmp_path):
    plan = runner.invoke(app, ["plan", "--labelled", LABELS, "unsupported-claims-enriched"])
    report = runner.invoke(
        app, ["report", "unsupported-claims-enriched", "--labelled", LABELS, "--out", str(tmp_path)]
    )
    assert plan.exit_code == report.exit_code == 2
    assert plan.stderr == report.stderr


@pytest.mark.slow
def test_the_rests_json_records_the_costs_it_was_billed_at():
    doc = _json("plan", "--labelled", LABELS, "unsupported-claims", "--seed", "1")
    # unsupported-claims.toml's [budget], as written out in by_hand
    costs = {k: doc["inputs"][k] for k in ("annotators_per_item", "seconds_per_item")}
    assert costs == {"annotators_per_item": 2, "seconds_per_item": 90}
    assert (doc["inputs"]["adjudication_seconds"], doc["inputs"]["hourly_rate"]) == (120, 40)
    wide = str(ROOT / "examples" / "wide.csv")
    several = _json("plan", "--labelled", wide, "--positive", "unsupported", "--seed", "1")
    assert several["inputs"]["annotators_per_item"] == 3  # a label from each of the three


@pytest.mark.slow
def test_the_schedule_of_a_several_annotator_rest_labels_each_item_by_all_of_them(tmp_path):
    # regression: the schedule ran "2 of 3 annotators each" (cost 1,611) where the plan bills
    # a label from each of the file's three (2,956 by hand)
    wide = str(ROOT / "examples" / "wide.csv")
    path = _three_person_team(tmp_path)
    base = ["--labelled", wide, "--positive", "unsupported", "--width", "0.04", "--seed", "1"]
    plan = _json("plan", *base, "--scenario", path)
    schedule = _json("schedule", *base, path, "--runs", "20")
    n = plan["remaining_items"]
    assert schedule["in_progress"]["remaining_items"] == n
    # every person labels every item: the schedule's median cost is the plan's up to the
    # runs' time spread (two labels an item would cost about a third less)
    assert schedule["cost_median"] == pytest.approx(n * THREE_COST, rel=0.01)
    refused = runner.invoke(app, ["schedule", *base, path, "--annotators-per-item", "2"])
    assert refused.exit_code == 2
    assert "--annotators-per-item 2 does not match the labels in hand" in refused.stderr


def test_the_schedule_prints_the_plan_of_the_rests_notes(tmp_path):
    path = _team_scenario(tmp_path)
    result = runner.invoke(
        app, ["schedule", "--labelled", LABELS, path, "--seed", "1", "--runs", "5"]
    )
    assert result.exit_code == 0, result.output
    assert "note: the budget bills the named team person by person" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("with_team", [False, True])
def test_the_label_file_is_read_once(tmp_path, monkeypatch, with_team):
    # a large label file costs one read: counting its annotators for the named team and the
    # plan of the rest (a several-annotator fit included) share it
    import planner.data.engine_duckdb as engines

    reads: list[str] = []
    real = engines.read_with_engine

    def counted(path, *args, **kwargs):
        reads.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(engines, "read_with_engine", counted)
    wide = str(ROOT / "examples" / "wide.csv")
    scenario = _three_person_team(tmp_path) if with_team else None
    plan = remaining_from_file(
        wide, scenario, positive="unsupported", width=0.1, replicates=400, rng=1
    )
    assert reads == [wide] and len(plan.annotators) == 3
