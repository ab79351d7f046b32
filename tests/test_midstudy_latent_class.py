"""A study of several annotators in progress (plan --labelled on a file of three annotators).

The test's own simulation never calls the planner's search or its interval code: the first
stage is read here with the csv module (per item, how many labels and how many positive), the
second stage is drawn item by item under the plan's bootstrap truths (a true class, then each
annotator's label from that truth's confusion matrix), and specific positive agreement's
interval is Uebersax's ratio with its linearised variance and a logit Wald step, written here
for items with any number of labels (Uebersax 1982; the ratio estimator's variance: Cochran
1977, 6.3).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.output.jsonout import load_schema
from planner.sizing.midstudy import plan_remaining_from_file
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.plan import PlanSettings

ROOT = Path(__file__).parent.parent
WIDE = ROOT / "examples" / "wide.csv"
READER = {"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]}
FLAGS = ["--layout", "wide", "--annotator-cols", "alice,bob,carol", "--positive", "unsupported"]
Z95 = 1.959963984540054  # the standard normal's 0.975 quantile
runner = CliRunner()


def first_stage() -> tuple[np.ndarray, np.ndarray]:
    """Per item of wide.csv: positive labels n1 and labels k (empty cells are no label)."""
    positives, labels = [], []
    with open(WIDE, newline="") as handle:
        for row in csv.DictReader(handle):
            given = [row[a] for a in ("alice", "bob", "carol") if row[a]]
            positives.append(sum(v == "unsupported" for v in given))
            labels.append(len(given))
    return np.array(positives), np.array(labels)


def psa_interval(n1: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimate and 95 % limits per study (rows): R = sum y / sum x, y = n1 (n1 - 1),
    x = n1 (k - 1), Var = sum (y - R x)^2 / (sum x)^2 * n / (n - 1), Wald on logit R."""
    n1, k = n1.astype(float), k.astype(float)
    n = n1.shape[-1]
    y, x = n1 * (n1 - 1), n1 * (k - 1)
    ratio = y.sum(-1) / x.sum(-1)
    var = ((y - ratio[..., None] * x) ** 2).sum(-1) / x.sum(-1) ** 2 * n / (n - 1)
    step = Z95 * np.sqrt(var) / (ratio * (1 - ratio))
    centre = np.log(ratio / (1 - ratio))
    return ratio, 1 / (1 + np.exp(-(centre - step))), 1 / (1 + np.exp(-(centre + step)))


def second_stage(draws, items: int, studies: int, rng) -> np.ndarray:
    """``(studies, items)`` positive labels of three annotators, study r under truth r mod D."""
    which = np.arange(studies) % len(draws)
    prevalence = np.array([d[0][1] for d in draws])[which]
    confusion = np.array([d[1] for d in draws])[which]  # (S, M, 2, 2)
    truth = rng.random((studies, items)) < prevalence[:, None]
    p_positive = np.where(
        truth[..., None], confusion[:, None, :, 1, 1], confusion[:, None, :, 0, 1]
    )
    return (rng.random(p_positive.shape) < p_positive).sum(axis=-1)


def assurance_with_first_stage(draws, more: int, width: float, studies: int, seed: int) -> float:
    """Share of finished studies (the file's items plus ``more`` simulated) whose interval
    has half-width at most ``width``."""
    n1, k = first_stage()
    added = second_stage(draws, more, studies, np.random.default_rng(seed))
    positives = np.concatenate([np.repeat(n1[None, :], studies, axis=0), added], axis=1)
    labels = np.concatenate([np.repeat(k[None, :], studies, axis=0), np.full(added.shape, 3)], 1)
    _, low, high = psa_interval(positives, labels)
    return float(np.mean((high - low) / 2 <= width))


@pytest.fixture(scope="module")
def psa_plan():
    return plan_remaining_from_file(
        str(WIDE), PlanSettings(width=0.05), RemainingSettings(planned_items=1500),
        reader=READER, positive="unsupported", rng=3,
    )  # fmt: skip


@pytest.mark.slow
def test_interval_now_is_the_files_specific_agreement(psa_plan):
    n1, k = first_stage()
    estimate, low, high = psa_interval(n1, k)
    assert psa_plan.labelled_items == len(n1) == 600
    assert psa_plan.annotators == ("alice", "bob", "carol")
    assert psa_plan.estimate == pytest.approx(float(estimate), rel=1e-9)
    assert psa_plan.interval_now == pytest.approx((float(low), float(high)), rel=1e-9)
    assert psa_plan.half_width_now == pytest.approx(float(high - low) / 2, rel=1e-9)
    assert psa_plan.half_width_now > 0.05 and psa_plan.assurance_now == 0


@pytest.mark.slow
def test_remaining_items_hold_in_an_independent_simulation_and_fail_at_80_percent(psa_plan):
    p, studies = psa_plan, 4000
    assert p.total_items == p.labelled_items + p.remaining_items
    at = assurance_with_first_stage(p.pilot.draws, p.remaining_items, 0.05, studies, 11)
    below = assurance_with_first_stage(
        p.pilot.draws, int(0.8 * p.remaining_items), 0.05, studies, 12
    )
    assert abs(at - 0.5) < 0.03  # the criterion at the answer
    assert below < 0.5 - 0.15  # clearly lower at 80 % of the remaining items
    se = math.sqrt(0.25 / studies + 0.25 / p.studies)
    assert abs(at - p.assurance) < 4 * se


@pytest.mark.slow
def test_original_plan_and_budget(psa_plan):
    p = psa_plan
    more = 1500 - p.labelled_items
    expected = assurance_with_first_stage(p.pilot.draws, more, 0.05, 3000, 13)
    assert p.assurance_planned == pytest.approx(expected, abs=4 * math.sqrt(0.25 / 3000) * 1.5)
    # every annotator labels every remaining item, 90 s each
    assert p.budget.labels == 3 * p.remaining_items
    assert p.budget.person_hours == pytest.approx(3 * p.remaining_items * 90 / 3600)


def test_final_coverage_is_near_nominal(psa_plan):
    # the finished studies' interval is the linearised logit Wald one: near 0.95, not exact
    assert abs(psa_plan.final_coverage - 0.95) < 0.02


@pytest.mark.slow
def test_cli_json_keys_and_schema():
    result = runner.invoke(
        app,
        ["plan", "--labelled", str(WIDE), *FLAGS, "--width", "0.06", "--metric", "fleiss",
         "--seed", "2", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    body = doc["result"] if "result" in doc else doc
    assert body["metric"] == "fleiss" and body["labelled"]["annotators"] == [
        "alice", "bob", "carol",
    ]  # fmt: skip
    assert body["total_items"] == 600 + body["remaining_items"]
    assert body["recommendation"]["items"] == body["remaining_items"]
    assert body["half_width_now"] > 0.06


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--annotators", "4"], "--annotators 4 does not match"),
        (["--metric", "both"], "--metric"),
    ],
)
def test_cli_refuses_in_one_line(extra, needle):
    result = runner.invoke(app, ["plan", "--labelled", str(WIDE), *FLAGS, *extra, "--seed", "1"])
    assert result.exit_code in (1, 2)
    assert needle in result.output and "Traceback" not in result.output


def test_level_is_refused_for_a_pair():
    with pytest.raises(InvalidInput, match="^level is Krippendorff") as exc:
        plan_remaining_from_file(
            str(ROOT / "examples" / "labelled-600.csv"), PlanSettings(level="ordinal"), rng=1
        )
    assert exc.value.parameter == "level"
