"""The report of a several-annotator scenario: its plan, budget, schedule and figures agree.

The numbers are read back from the files the report writes and checked against each other
and against computations written here: the labels and person-hours from the items, the
plug-in items of the hours figure from the expected-counts half-width, the assurance curve
around the planned size, and the schedule labelling the plan's items with three labels each.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from planner.output.jsonout import load_schema
from planner.output.report import write_report
from planner.sizing.annotator_model import raters_model
from planner.sizing.study_intervals import pattern_space, study_intervals

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
SCENARIO = ROOT / "scenarios" / "web-toxicity-three-annotators.toml"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(SCENARIO, tmp_path_factory.mktemp("reports"), rng=5)


def _json(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def test_plan_budget_and_schedule_hold_the_same_study(report):
    plan, schedule = _json(report, "plan.json"), _json(report, "schedule.json")
    Draft202012Validator(load_schema()).validate(plan)
    items = plan["items"]
    assert plan["command"] == "plan-raters" and plan["sizing"]["labels_per_item"] == 3
    assert plan["budget"]["labels"] == 3 * items
    assert plan["budget"]["person_hours"] == pytest.approx(3 * items * 30 / 3600)  # 30 s a label
    assert plan["budget"]["cost"] == pytest.approx(plan["budget"]["person_hours"] * 25)
    assert schedule["operation"]["items_per_stratum"] == [items]
    assert schedule["operation"]["labels_per_item"] == 3
    text = (report / "report.md").read_text(encoding="utf-8")
    assert f"Label {items:,} items, each by all 3 annotators ({3 * items:,} labels)" in text
    for figure in ("half_width", "hours", "assurance", "burndown", "estimates"):
        assert f"(figures/{figure}.png)" in text and (report / "figures" / f"{figure}.png").exists()


def test_assurance_curve_crosses_the_target_at_the_planned_size(report):
    plan, figures = _json(report, "plan.json"), _json(report, "figures.json")
    points = {p["items"]: p["assurance"] for p in figures["assurance"]["curve"]["psa"]}
    n, target = plan["items"], plan["sizing"]["target_assurance"]
    assert n in points
    se = math.sqrt(target * (1 - target) / plan["sizing"]["replicates"])
    assert points[n] >= target - 4 * se
    below = [a for m, a in points.items() if m <= 0.8 * n]
    assert below and max(below) < target - 0.1


def _model():
    # the scenario's [annotators]: prevalence 0.05, errors 0.02/0.025/0.03, bias 0/0.2/-0.2
    return raters_model(
        0.05, 3, error_rate=[0.02, 0.025, 0.03], bias=[0.0, 0.2, -0.2], ambiguity=0.2
    )


def test_hours_figure_buys_the_target_at_expected_counts(report):
    hours = _json(report, "figures.json")["hours"]
    width = 0.05
    bars = zip(hours["labels"], hours["items"], hours["hours"], strict=True)
    for label, items, person_hours in bars:
        if "plug-in" not in label:
            continue
        m = int(label.split()[0])
        patterns, probs = pattern_space(_model().with_annotators(m), "psa")

        def half_width(n, patterns=patterns, probs=probs):
            return float(study_intervals("psa", patterns, probs * n).half_width)

        # the plug-in rule: the expected-counts half-width at those items is the target
        assert half_width(items) == pytest.approx(width, rel=0.01), label
        assert person_hours == pytest.approx(items * m * 30 / 3600)


def test_half_width_curve_meets_the_plan_near_its_size(report):
    plan, figures = _json(report, "plan.json"), _json(report, "figures.json")
    curve = figures["half_width"]
    n = plan["items"]
    at = int(np.argmin([abs(i - n) for i in curve["items"]]))
    nearest = curve["items"][at]
    # the median half-width shrinks as 1/sqrt(n): read at the planned size
    scaled = curve["median"][at] * math.sqrt(nearest / n)
    assert scaled == pytest.approx(plan["sizing"]["half_width_median"], rel=0.03)
    assert all(a >= b for a, b in zip(curve["median"], curve["median"][1:], strict=False))


def test_same_seed_same_report(report, tmp_path):
    again = write_report(SCENARIO, tmp_path, rng=5)
    for name in ("report.md", "plan.json", "schedule.json", "figures.json"):
        assert (again / name).read_text(encoding="utf-8") == (report / name).read_text(
            encoding="utf-8"
        )
