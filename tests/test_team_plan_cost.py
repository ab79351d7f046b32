"""A pair plan with a named team bills each person's seconds and rate, as schedule does.

The hand computations: person ``j`` labels ``t_j = 3600 h_j d_j / s_j`` items a week at most;
the ``k`` labels of an item go to the fastest first, at most one per person (water-filling),
so the shares below are worked out in the comments, not by the code under test.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from tests.test_team_cost import SCENARIO as FOUR_PEOPLE
from tests.test_team_cost import team_bill

runner = CliRunner()

PAIR = """
name = "pair"

[model]
prevalence = 0.1
error_rate = 0.05

[target]
width = 0.1

[budget]
annotators_per_item = 2
seconds_per_item = 90

[simulation]
seed = 4

[team]
start = "2027-01-04"
runs = 4
time_spread = 0

[[team.annotator]]
name = "ana"
seconds_per_item = 60
hours_per_day = 4
hourly_rate = 30.0

[[team.annotator]]
name = "bo"
seconds_per_item = 120
hours_per_day = 8
hourly_rate = 40.0
"""

# both label every item: 60 s at 30 an hour and 120 s at 40 an hour
PAIR_SECONDS = 60 + 120
PAIR_COST = (60 * 30 + 120 * 40) / 3600

THREE = (
    PAIR.replace("seconds_per_item = 90\n", "seconds_per_item = 90\nhourly_rate = 20\n").replace(
        "hours_per_day = 4\n", "hours_per_day = 8\n"
    )
    + """
[[team.annotator]]
name = "cy"
seconds_per_item = 30
"""
)
# eight hours a day each: ana labels 960 items a day at 60 s, bo 240 at 120 s, cy 960 at 30 s.
# First the overlap block: every pair shares 30 items, one pair an item, 90 items (60 labels
# each). Then two labels an item in proportion to speed (0.57, 0.29, 1.14) caps cy at one a
# remaining item and ana and bo share the other 2 : 1: of n items cy labels n - 30, ana
# 2 (n + 30) / 3 and bo (n + 30) / 3.


def three_hours(n):  # (110 n + 1,500) / 3600
    return (2 * (n + 30) / 3 * 60 + (n + 30) / 3 * 120 + (n - 30) * 30) / 3600


def three_cost(n):  # cy at the budget's 20 an hour: (3,400 n + 66,000) / 3600
    return (2 * (n + 30) / 3 * 60 * 30 + (n + 30) / 3 * 120 * 40 + (n - 30) * 30 * 20) / 3600


def _json(*args):
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _write(tmp_path, text, name="team.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.slow
def test_the_plans_budget_bills_each_person_and_equals_the_schedules(tmp_path):
    path = _write(tmp_path, PAIR)
    plan = _json("plan", path)
    n = plan["items"] if "items" in plan else plan["recommendation"]["items"]
    budget = plan["recommendation"]["budget"]
    assert budget["cost"] == pytest.approx(n * PAIR_COST)
    assert budget["person_hours"] == pytest.approx(n * PAIR_SECONDS / 3600)
    assert plan["results"]["psa"]["budget"]["cost"] == pytest.approx(n * PAIR_COST)
    assert any("person by person" in note for note in plan["notes"])
    # no time spread and both label every item: every run costs exactly that
    schedule = _json("schedule", path)
    assert schedule["cost_median"] == pytest.approx(budget["cost"])
    assert schedule["person_hours_median"] == pytest.approx(budget["person_hours"])


def test_worst_case_and_stop_rule_are_priced_by_the_team(tmp_path):
    plan = _json("plan", _write(tmp_path, PAIR))
    worst = plan["worst_case"]
    assert worst["cost"] == pytest.approx(worst["items_at_model_union_rate"] * PAIR_COST)
    assert worst["person_hours"] == pytest.approx(
        worst["items_at_model_union_rate"] * PAIR_SECONDS / 3600
    )
    rule = plan["stop_rule"]
    expected = math.ceil(rule["expected_items"])
    assert rule["cost_expected"] == pytest.approx(expected * PAIR_COST)
    assert rule["cost_p90"] == pytest.approx(rule["items_p90"] * PAIR_COST)
    assert rule["person_hours_p90"] == pytest.approx(rule["items_p90"] * PAIR_SECONDS / 3600)


@pytest.mark.slow
def test_a_larger_team_shares_labels_by_speed_in_the_plan_and_the_schedule(tmp_path):
    path = _write(tmp_path, THREE)
    plan = _json("plan", path)
    n = plan["recommendation"]["items"]
    budget = plan["recommendation"]["budget"]
    assert budget["cost"] == pytest.approx(three_cost(n))
    assert budget["person_hours"] == pytest.approx(three_hours(n))
    schedule = _json("schedule", path)
    rows = {row["name"]: row for row in schedule["team"]["annotators"]}
    assert rows["cy"]["items"] == pytest.approx(n - 30)  # the fastest labels every other item
    assert rows["ana"]["items"] == pytest.approx(2 * (n + 30) / 3, abs=2)
    assert schedule["cost_median"] == pytest.approx(budget["cost"], rel=0.01)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "value", "items"),
    [
        ("--hours", "27", (27 * 3600 - 1500) / 110),  # 870 items
        ("--budget", "700", (700 * 3600 - 66_000) / 3400),  # 721 items
    ],
)
def test_hours_and_budget_buy_items_at_the_teams_cost(tmp_path, option, value, items):
    doc = _json("plan", _write(tmp_path, THREE), option, value)
    precision = doc["precision"]
    assert precision["items"] == math.floor(items + 1e-9)
    assert precision["cost"] == pytest.approx(three_cost(precision["items"]))
    assert precision["person_hours"] == pytest.approx(three_hours(precision["items"]))


@pytest.mark.slow
def test_a_budget_with_every_person_at_their_own_rate_needs_no_budget_rate(tmp_path):
    doc = _json("plan", _write(tmp_path, PAIR), "--budget", "550")
    assert doc["precision"]["items"] == math.floor(550 / PAIR_COST)  # 300 items at 1.8333


@pytest.mark.slow
def test_a_person_without_a_rate_and_no_budget_rate_leaves_the_cost_unpriced(tmp_path):
    text = PAIR.replace("hourly_rate = 40.0\n", "")
    doc = _json("plan", _write(tmp_path, text))
    assert doc["recommendation"]["budget"]["cost"] is None
    result = runner.invoke(app, ["plan", _write(tmp_path, text, "b.toml"), "--budget", "500"])
    assert result.exit_code != 0
    assert "hourly" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_a_balanced_team_gives_everyone_the_same_labels(tmp_path):
    text = THREE.replace("runs = 4\n", 'runs = 4\nassignment = "balanced"\n')
    plan = _json("plan", _write(tmp_path, text))
    n = plan["recommendation"]["items"]
    # the 90-item block (60 labels each), then round robin: label j of item i to (2 i + j) mod 3
    rest = np.bincount((2 * 90 + np.arange(2 * (n - 90))) % 3, minlength=3)
    seconds_rate = np.array([60 * 30, 120 * 40, 30 * 20])
    cost = float((60 + rest) @ seconds_rate) / 3600
    assert plan["recommendation"]["budget"]["cost"] == pytest.approx(cost)
    schedule = _json("schedule", _write(tmp_path, text, "b.toml"))
    assert schedule["cost_median"] == pytest.approx(cost)


@pytest.mark.parametrize("command", ["plan", "schedule"])
def test_more_labels_an_item_than_named_people_is_one_line_naming_the_key(tmp_path, command):
    text = PAIR.replace("annotators_per_item = 2", "annotators_per_item = 3")
    path = _write(tmp_path, text)
    result = runner.invoke(app, [command, path])
    assert result.exit_code in (1, 2)
    lines = result.output.strip().splitlines()
    assert lines == [
        f"error: {path}: budget.annotators_per_item must be at most the team's 2 annotator(s) "
        "(each item needs 3 distinct annotators), got 3"
    ]


SEVERAL = FOUR_PEOPLE.replace("seed = 3\n", "seed = 3\nreplicates = 300\n")
# weekly labels 4,800, 2,400, 1,600 and 600: ana and bo label every item, cy and di share the
# third label 1,600 : 600 (cy at the budget's 20 an hour)
CY, DI = 1600 / 2200, 600 / 2200
SEVERAL_SECONDS = 30 + 60 + CY * 90 + DI * 120
SEVERAL_COST = (30 * 50 + 60 * 30 + CY * 90 * 20 + DI * 120 * 10) / 3600


# the 60-item overlap block (tests/test_team_cost.py): ana and bo label n - 15 items,
# cy and di share n + 30 labels, so the bill is linear in n with a fixed part
BLOCK_SECONDS = -15 * (30 + 60) + 30 * (CY * 90 + DI * 120)
BLOCK_COST = (-15 * (30 * 50 + 60 * 30) + 30 * (CY * 90 * 20 + DI * 120 * 10)) / 3600


@pytest.mark.parametrize(
    ("option", "value", "items"),
    [
        ("--hours", "20", (20 * 3600 - BLOCK_SECONDS) / SEVERAL_SECONDS),
        ("--budget", "500", (500 - BLOCK_COST) / SEVERAL_COST),
    ],
)
@pytest.mark.slow
def test_several_annotators_buy_items_at_the_teams_cost(tmp_path, option, value, items):
    doc = _json("plan", _write(tmp_path, SEVERAL), option, value)
    precision = doc["precision"]
    assert precision["items"] == math.floor(items)
    cost, hours = team_bill(precision["items"])
    assert precision["cost"] == pytest.approx(cost)
    assert precision["person_hours"] == pytest.approx(hours)


@pytest.mark.slow
def test_a_hundred_hours_of_the_four_people_buy_1904_items(tmp_path):
    # (100 * 3600 - BLOCK_SECONDS) / SEVERAL_SECONDS = 1904.6 by the hand computation above
    # (1,913 if the block were billed at the steady-state shares)
    doc = _json("plan", _write(tmp_path, SEVERAL), "--hours", "100")
    assert doc["precision"]["items"] == 1904


THREE_OWN_RATES = """
[annotators]
count = 3
prevalence = 0.1
error_rate = 0.1

[target]
width = 0.1

[simulation]
replicates = 300

[[team.annotator]]
name = "ana"
hourly_rate = 30
[[team.annotator]]
name = "bo"
hourly_rate = 40
[[team.annotator]]
name = "cy"
hourly_rate = 50
"""


def test_several_annotators_with_their_own_rates_need_no_budget_rate(tmp_path):
    # regression: refused as "--budget needs --hourly-rate" although every label has a price;
    # an item is a label from each at the default 90 s: 90 (30 + 40 + 50) / 3600 = 3.00
    doc = _json("plan", _write(tmp_path, THREE_OWN_RATES), "--budget", "500")
    assert doc["precision"]["items"] == 500 // 3 == 166
    assert doc["precision"]["cost"] == pytest.approx(166 * 3.0)
