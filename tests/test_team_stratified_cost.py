"""A stratified scenario's design comparison bills a named team person by person.

By hand: two annotators label every item (two labels an item, two people). A stratum's
seconds per item scale by the person's ratio to the budget's 120 s (ana 60 s: half, bo 150 s:
1.25), so a design of ``n_h`` items in strata of ``s_h`` seconds (the enriched design's
prevalence slice at the population's mean, ``0.2 * 120 + 0.8 * 60 = 72`` s) takes
``W = sum_h n_h s_h`` seconds of work, ana ``0.5 W`` and bo ``1.25 W``, and costs
``(0.5 W * 90 + 1.25 W * 40) / 3600``.
The single rate (50 an hour at 120 s) would give another cost; the schedule's simulated
weighted design (no time spread: deterministic) must agree with the plan's bill.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

pytestmark = pytest.mark.slow  # every test here takes over 0.3 s alone

runner = CliRunner()
SCENARIO = """
name = "two-clinicians-stratified"

[model]
error_rate = 0.02

[[strata]]
name = "high"
share = 0.2
prevalence = 0.2

[[strata]]
name = "low"
share = 0.8
prevalence = 0.02
seconds_per_item = 60

[target]
metric = "psa"
width = 0.1

[budget]
annotators_per_item = 2
seconds_per_item = 120
hourly_rate = 50

[simulation]
replicates = 300
seed = 7

[team]
runs = 4
time_spread = 0

[[team.annotator]]
name = "ana"
seconds_per_item = 60
hourly_rate = 90

[[team.annotator]]
name = "bo"
seconds_per_item = 150
hourly_rate = 40
"""
SECONDS = [120.0, 60.0]  # the strata's seconds per item
SLICE_SECONDS = 0.2 * 120 + 0.8 * 60


def hand_bill(items: list[int], slice_items: int) -> tuple[float, float]:
    """Person-hours and cost: each person labels every item, at their ratio to 120 s."""
    work = sum(n * s for n, s in zip(items, SECONDS, strict=True)) + slice_items * SLICE_SECONDS
    ana, bo = work * 60 / 120 / 3600, work * 150 / 120 / 3600
    return ana + bo, 90 * ana + 40 * bo


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("strat") / "strat.toml"
    path.write_text(SCENARIO)
    return path


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("design", ["uniform", "enriched", "weighted"])
def test_each_design_is_billed_at_each_persons_seconds_and_rate(
    scenario: Path, design: str
) -> None:
    chosen = _json("plan", str(scenario))["designs"][design]
    hours, cost = hand_bill(chosen["items_per_stratum"], chosen["prevalence_slice_items"])
    assert chosen["budget"]["person_hours"] == pytest.approx(hours)
    assert chosen["budget"]["cost"] == pytest.approx(cost)
    single_rate = 50 * chosen["budget"]["person_hours"]
    assert chosen["budget"]["cost"] != pytest.approx(single_rate)


def test_the_schedule_of_the_weighted_design_costs_what_the_plan_bills(scenario: Path) -> None:
    weighted = _json("plan", str(scenario))["designs"]["weighted"]["budget"]
    run = _json("schedule", str(scenario))
    assert run["cost_median"] == pytest.approx(weighted["cost"], rel=1e-6)
    assert run["person_hours_median"] == pytest.approx(weighted["person_hours"], rel=1e-6)
