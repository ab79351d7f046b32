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
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.operations.team import Person
from planner.output.report_raters import raters_hours
from planner.sizing.annotator_model import raters_model
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings, make_plan
from planner.sizing.team_cost import label_shares, team_pricing

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


# --------------------------------------------------------------------------- adjudication

ADJUDICATED = (
    SCENARIO.replace("seed = 3\n", "seed = 3\nreplicates = 300\n").replace(
        "hourly_rate = 20\n", "hourly_rate = 20\nadjudication_seconds = 100\n"
    )
    + """
[[team.adjudicator]]
name = "zed"
seconds_per_item = 50
hourly_rate = 70
"""
)


def _unanimous_share(model) -> float:
    """``P(all M labels agree)`` by brute force over the ordered labels: the annotators label
    independently given the true class (no ambiguity), ``sum_t pi_t sum_l prod_j C_j[t, l]``."""
    return float(
        sum(
            pi * np.prod([model.confusion[j][t][label] for j in range(model.n_annotators)])
            for t, pi in enumerate(model.prevalences)
            for label in range(model.n_categories)
        )
    )


def _plan_json(tmp_path, text, *args):
    path = tmp_path / "team.toml"
    path.write_text(text)
    result = runner.invoke(app, ["plan", str(path), *args, "--json"])
    assert result.exit_code == 0, result.output
    return str(path), json.loads(result.stdout)


@pytest.mark.slow
def test_a_named_adjudicator_bills_the_contested_items_at_their_seconds_and_rate(tmp_path):
    path, doc = _plan_json(tmp_path, ADJUDICATED)
    n, budget = doc["items"], doc["budget"]
    contested = n * (1 - _unanimous_share(raters_model(0.2, 3, error_rate=0.05)))
    assert budget["contested_items"] == pytest.approx(contested)
    # zed's 50 s at 70 an hour, not the budget's 100 s at 20 an hour
    assert budget["adjudication_hours"] == pytest.approx(contested * 50 / 3600)
    cost, hours = team_bill(n)
    assert budget["cost"] == pytest.approx(cost + contested * 50 * 70 / 3600)
    assert budget["person_hours"] == pytest.approx(hours + contested * 50 / 3600)
    # the schedule's runs (an independent event simulation) bill the same people
    schedule = runner.invoke(app, ["schedule", path, "--json"])
    assert schedule.exit_code == 0, schedule.output
    run = json.loads(schedule.stdout)
    assert run["cost_median"] == pytest.approx(budget["cost"], rel=0.01)
    assert run["person_hours_median"] == pytest.approx(budget["person_hours"], rel=0.01)


@pytest.mark.slow
def test_without_adjudication_time_the_contested_items_are_counted_but_not_scheduled(tmp_path):
    text = SCENARIO.replace("seed = 3\n", "seed = 3\nreplicates = 300\n")
    path, doc = _plan_json(tmp_path, text)
    share = 1 - _unanimous_share(raters_model(0.2, 3, error_rate=0.05))
    assert doc["budget"]["contested_items"] == pytest.approx(doc["items"] * share)
    assert doc["budget"]["adjudication_hours"] == 0
    schedule = runner.invoke(app, ["schedule", path, "--json"])
    assert schedule.exit_code == 0, schedule.output
    run = json.loads(schedule.stdout)
    assert run["operation"]["contested_rate"] == [pytest.approx(share)]
    assert not any("adjudicates" in note for note in run["notes"])


def test_the_library_plan_of_several_annotators_bills_a_named_team():
    # three people label every item (k = M = 3): each one's seconds at their own rate
    people = (
        Person("ana", seconds_per_item=30, hourly_rate=50),
        Person("bo", seconds_per_item=60, hourly_rate=30),
        Person("cy", seconds_per_item=90, hourly_rate=20),
    )
    pricing = team_pricing(people, 3, 60.0, hourly_rate=20.0)
    model = raters_model(0.3, 3, error_rate=0.1)
    settings = PlanSettings(metric="fleiss", width=0.1, replicates=200, team=pricing)
    plan = make_plan(model, settings, rng=1)
    n = plan.items
    assert plan.budget.cost == pytest.approx(n * (30 * 50 + 60 * 30 + 90 * 20) / 3600)
    assert plan.budget.labelling_hours == pytest.approx(n * (30 + 60 + 90) / 3600)
    assert plan.budget.labels == 3 * n
    # the fixed-hours table spends the hours of every label at the budget's 60 s
    row = next(r for r in plan.by_annotators if r.annotators == 3)
    assert row.items == n


def test_a_team_priced_for_another_number_of_labels_an_item_is_refused():
    # priced for k = 2, the team would bill two labels an item of a study that gives three
    people = tuple(Person(name, seconds_per_item=60) for name in ("ana", "bo", "cy"))
    pricing = team_pricing(people, 2, 60.0, hourly_rate=20.0)
    settings = PlanSettings(metric="fleiss", width=0.1, replicates=200, team=pricing)
    with pytest.raises(InvalidInput) as raised:
        make_plan(raters_model(0.3, 3, error_rate=0.1), settings, rng=1)
    assert raised.value.parameter == "team"
    assert "priced for 2 labels an item" in str(raised.value)
    # the same team prices a pair (k = 2) without complaint
    pair_settings = replace(settings, metric="kappa")
    pair = make_plan(pair_from_annotators(0.3, (0.1, 0.1)), pair_settings, rng=1)
    assert pair.budget.labels == 2 * pair.items


def test_the_reports_hours_chart_bills_each_annotator_counts_labels_and_adjudication():
    # every bar of M = 2 .. 6 annotators: M labels of 60 s an item and 50 s on each item
    # whose M labels disagree (brute-force share), at 20 an hour
    model = raters_model(0.2, 3, error_rate=0.05)
    settings = PlanSettings(
        metric="fleiss", width=0.1, replicates=200, seconds_per_item=60.0,
        adjudication_seconds=50.0, hourly_rate=20.0,
    )  # fmt: skip
    bars = raters_hours(model, make_plan(model, settings, rng=1))
    several = [i for i, kind in enumerate(bars.kinds) if kind == "m"]
    assert len(several) == 5
    for m, i in zip(range(2, 7), several, strict=True):
        contested = 1 - _unanimous_share(raters_model(0.2, m, error_rate=0.05))
        seconds = bars.items[i] * (m * 60 + contested * 50)
        assert bars.hours[i] == pytest.approx(seconds / 3600)
        assert bars.costs[i] == pytest.approx(seconds / 3600 * 20)
    # a named team has its own size: the other counts say they are at the single rate
    people = tuple(Person(name, seconds_per_item=30) for name in ("ana", "bo", "cy"))
    team = replace(settings, team=team_pricing(people, 3, 60.0, hourly_rate=20.0))
    labels = raters_hours(model, make_plan(model, team, rng=1)).labels
    assert all("single rate" in labels[i] for i in several)
    assert "single rate" not in labels[0]
