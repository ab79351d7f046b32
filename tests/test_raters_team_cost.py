"""A several-annotator plan with a named team bills each person's seconds and rate.

Four people, three labels an item: by hand, the two fastest label every item (a person labels
an item at most once) and the other two share the third label in proportion to their weekly
throughput; the plan's cost is checked against that and against ``schedule``'s simulated cost
of the same team (no time spread, so the runs are deterministic).

The overlap block (every pair shares the default ``min_shared_items = 30``): three labels an
item cover three of the six pairs, and the greedy covering cycles through the four triples
``{0,1,2}, {0,1,3}, {0,2,3}, {1,2,3}`` (each lowers every pair's need by two), so 15 cycles:
60 items, 45 each. ana and bo are not on the 15 block items of ``{1,2,3}`` and ``{0,2,3}``,
so they label ``n - 15`` items each, and cy and di share the other ``3 n - 2 (n - 15) = n + 30``
labels 1600 : 600.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.sizing.raters_team_cost import label_shares

runner = CliRunner()
SCENARIO = """
name = "three-of-four"

[annotators]
count = 3
prevalence = 0.2
error_rate = 0.05
metric = "fleiss"

[target]
width = 0.03

[budget]
seconds_per_item = 60
hourly_rate = 20

[simulation]
seed = 3

[team]
runs = 10
time_spread = 0

[[team.annotator]]
name = "ana"
seconds_per_item = 30
hourly_rate = 50

[[team.annotator]]
name = "bo"
hourly_rate = 30

[[team.annotator]]
name = "cy"
seconds_per_item = 90

[[team.annotator]]
name = "di"
seconds_per_item = 120
hours_per_day = 4
hourly_rate = 10
"""


CY, DI = 1600 / 2200, 600 / 2200


def team_bill(n: int) -> tuple[float, float]:
    """Cost and person-hours of ``n >= 60`` items by hand (module docstring): ana and bo
    ``n - 15`` labels each, cy and di ``(n + 30)`` shared 1600 : 600 (cy at the budget's 20)."""
    fast, slow = n - 15, n + 30
    cost = (fast * (30 * 50 + 60 * 30) + slow * (CY * 90 * 20 + DI * 120 * 10)) / 3600
    hours = (fast * (30 + 60) + slow * (CY * 90 + DI * 120)) / 3600
    return cost, hours


@pytest.mark.slow
def test_plan_cost_is_each_persons_labels_at_their_rate(tmp_path):
    path = tmp_path / "team.toml"
    path.write_text(SCENARIO)
    result = runner.invoke(app, ["plan", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    n = doc["items"]
    # weekly throughput 4800, 2400, 1600, 600 labels: ana and bo label every item, cy and di
    # share the third label 1600 : 600 (cy without a rate: the budget's 20 an hour)
    cost, hours = team_bill(n)
    assert doc["budget"]["cost"] == pytest.approx(cost)
    assert doc["budget"]["person_hours"] == pytest.approx(hours)
    assert any("person by person" in line for line in doc["notes"])
    schedule = runner.invoke(app, ["schedule", str(path), "--json"])
    assert schedule.exit_code == 0, schedule.output
    run = json.loads(schedule.stdout)
    assert run["cost_median"] == pytest.approx(doc["budget"]["cost"], rel=0.02)
    assert run["person_hours_median"] == pytest.approx(doc["budget"]["person_hours"], rel=0.02)


def test_label_shares_cap_at_one_label_per_item_and_add_up():
    shares = label_shares([5.0, 1.0, 1.0, 1.0], 300, 2)
    assert shares[0] == 300 and sum(shares) == pytest.approx(600)
    assert shares[1] == shares[2] == shares[3] == pytest.approx(100)
    assert label_shares([1.0, 1.0, 1.0], 10, 3) == [10, 10, 10]
