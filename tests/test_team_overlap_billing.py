"""A several-annotator plan's budget bills a named team's overlap block.

Hand computation (independent of the code under test). Three named annotators, two labels per
item (``per_item = 2``), every pair sharing ``min_shared_items = 30`` items: with two labels an
item covers one pair, so the overlap block is 90 items, 30 per pair, and each person labels 60
of them. ana takes 30 s a label, bo and cy 120 s, all at 20 an hour.

* next-free: ana, four times as fast, would label every item, but she is not on the 30 block
  items of the pair (bo, cy): she labels ``n - 30`` items and bo and cy ``(n + 30) / 2`` each,
  so ``n`` items cost ``((n - 30) 30 + (n + 30) 120) / 3600 = (150 n + 2700) / 3600`` hours.
  100 hours buy ``floor((360000 - 2700) / 150) = 2382`` items (2400 without the block).
* balanced: after the block, round robin (label ``j`` of item ``i`` to ``(i k + j) mod 3``)
  gives each ``2 (n - 90) / 3`` more labels; 100 hours buy 2000 items: at 2000 the labels are
  1334, 1333, 1333 (99.98 h), at 2001 1334 each (100.05 h).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
SCENARIO = """
name = "three-billed-person-by-person"

[annotators]
count = 3
per_item = 2
prevalence = 0.3
error_rate = 0.05
metric = "fleiss"

[target]
width = 0.1

[budget]
seconds_per_item = 90
hourly_rate = 20

[simulation]
replicates = 200
seed = 11

[team]
runs = 10
time_spread = 0
min_shared_items = 30
{assignment}

[[team.annotator]]
name = "ana"
seconds_per_item = 30

[[team.annotator]]
name = "bo"
seconds_per_item = 120

[[team.annotator]]
name = "cy"
seconds_per_item = 120
"""


def _plan(tmp_path: Path, *args: str, assignment: str = "") -> dict:
    path = tmp_path / "three.toml"
    path.write_text(SCENARIO.format(assignment=assignment))
    result = runner.invoke(app, ["plan", str(path), *args, "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def next_free_hours(n: int) -> float:
    return ((n - 30) * 30 + (n + 30) * 120) / 3600


@pytest.mark.parametrize(("option", "value"), [("--hours", "100"), ("--budget", "2000")])
def test_hours_and_budget_buy_the_items_the_overlap_block_leaves(
    tmp_path: Path, option: str, value: str
) -> None:
    precision = _plan(tmp_path, option, value)["precision"]
    assert precision["items"] == 2382
    assert precision["person_hours"] == pytest.approx(next_free_hours(2382))
    assert next_free_hours(2383) > 100


def test_the_plan_s_budget_bills_the_block_at_its_planned_items(tmp_path: Path) -> None:
    budget = _plan(tmp_path)["budget"]
    n = budget["items"]
    assert n >= 90  # the block fits within the plan
    assert budget["person_hours"] == pytest.approx(next_free_hours(n))
    assert budget["cost"] == pytest.approx(20 * next_free_hours(n))


def test_balanced_assignment_is_billed_round_robin_after_the_block(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "--hours", "100", assignment='assignment = "balanced"')
    hours = (1334 * 30 + 1333 * 120 * 2) / 3600
    assert plan["precision"]["items"] == 2000
    assert plan["precision"]["person_hours"] == pytest.approx(hours)
