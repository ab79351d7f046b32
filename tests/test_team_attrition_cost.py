"""What someone leaving mid-study does to the schedule's hours and cost.

By hand (no time spread, so every run is the same): three annotators, 8 h a day from Monday
4 January 2027, two labels an item, no overlap block, 3,000 items (6,000 labels).

* Equal speed (60 s, 480 labels a day each), rates 10, 20, 30. Everyone stays: 2,000 labels
  each, 100 h, cost ``2000 * 60 / 3600 * (10 + 20 + 30) = 2,000``. ana (rate 10) leaves from
  Wednesday: 960 labels on Monday and Tuesday, bo and cy ``(6000 - 960) / 2 = 2,520`` each:
  still 100 h (labels moved between people of the same speed), cost
  ``(960 * 10 + 2520 * 20 + 2520 * 30) / 60 = 2,260``.
* ana twice as fast (30 s, 960 labels a day, one per item): staying she labels all 3,000
  items (25 h) and bo and cy 1,500 each (25 h each): 75 h. Leaving from Wednesday she gave
  1,920 (16 h); the other 1,080 items' 2,160 labels fall to bo and cy (1,020 more each):
  16 + 34 + 34 = 84 h.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
SCENARIO = """
name = "three-one-leaves"

[model]
prevalence = 0.2
error_rate = 0.05

[budget]
annotators_per_item = 2
seconds_per_item = 60

[simulation]
seed = 1

[team]
start = "2027-01-04"
runs = 1
time_spread = 0
min_shared_items = 0

[[team.annotator]]
name = "ana"
hourly_rate = 10
{ana}

[[team.annotator]]
name = "bo"
hourly_rate = 20

[[team.annotator]]
name = "cy"
hourly_rate = 30
"""
LEAVES = ["--without", "ana@2027-01-06"]


def _schedule(tmp_path: Path, *extra: str, ana: str = "") -> dict:
    path = tmp_path / "leave.toml"
    path.write_text(SCENARIO.format(ana=ana))
    args = ["schedule", str(path), "--items", "3000", "--json", "--quiet", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _labels(doc: dict) -> dict[str, float]:
    return {row["name"]: row["labels"] for row in doc["team"]["annotators"]}


@pytest.mark.slow
def test_a_leaver_as_fast_as_the_others_keeps_the_hours_but_not_the_cost(tmp_path: Path) -> None:
    stay, leave = _schedule(tmp_path), _schedule(tmp_path, *LEAVES)
    assert _labels(stay) == {"ana": 2000, "bo": 2000, "cy": 2000}
    assert _labels(leave) == {"ana": 960, "bo": 2520, "cy": 2520}
    assert stay["person_hours_median"] == pytest.approx(100)
    assert leave["person_hours_median"] == pytest.approx(100)
    assert stay["cost_median"] == pytest.approx(2000)
    assert leave["cost_median"] == pytest.approx((960 * 10 + 2520 * 20 + 2520 * 30) / 60)
    assert leave["calendar_days_median"] > stay["calendar_days_median"]


@pytest.mark.slow
def test_a_faster_leaver_raises_the_person_hours(tmp_path: Path) -> None:
    fast = "seconds_per_item = 30"
    stay, leave = _schedule(tmp_path, ana=fast), _schedule(tmp_path, *LEAVES, ana=fast)
    assert _labels(stay) == {"ana": 3000, "bo": 1500, "cy": 1500}
    assert _labels(leave) == {"ana": 1920, "bo": 2040, "cy": 2040}
    assert stay["person_hours_median"] == pytest.approx(75)
    assert leave["person_hours_median"] == pytest.approx(84)
    assert leave["cost_median"] == pytest.approx(16 * 10 + 34 * 20 + 34 * 30)


@pytest.mark.slow
def test_a_leaver_s_unfinished_label_goes_to_someone_else(tmp_path: Path) -> None:
    # with a time spread a label can straddle the leaver's last working second: it was
    # refused as "cannot finish"; the others label it and the study finishes
    doc = _schedule(tmp_path, *LEAVES, "--time-spread", "0.5")
    labels = _labels(doc)
    assert sum(labels.values()) == 6000
    assert labels["ana"] <= 2 * 480 * 1.5  # two days at most, whatever the spread
    assert doc["team"]["finish"]["p50"] > "2027-01-06"


def test_the_calendar_time_engine_also_gives_a_leaver_s_last_label_to_the_others(
    tmp_path: Path,
) -> None:
    # 12,000 items (24,000 labels) run on the calendar-time engine (over 20,000 labels): a
    # task that cannot end was sorted in by its start and made the finish infinite
    path = tmp_path / "leave.toml"
    path.write_text(SCENARIO.format(ana=""))
    args = ["schedule", str(path), "--items", "12000", "--time-spread", "0.5", "--runs", "2"]
    result = runner.invoke(app, [*args, *LEAVES, "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    labels = _labels(doc)
    assert sum(labels.values()) == 24_000
    assert labels["ana"] <= 2 * 480 * 1.5
