"""schedule on a several-annotator scenario: plan's model options, and adjudication of the
items whose labels are not unanimous.

The contested share is computed here from the confusion matrices, not by the code under test:
with all ``M`` labelling, ``1 - sum_t pi_t (prod_j C_j[t, 0] + prod_j C_j[t, 1])``; with ``k``
of them drawn at random per item, the same averaged over the ``C(M, k)`` subsets.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
PREVALENCE = 0.3
CONFUSION = [  # per annotator, rows the truth (negative, positive), columns the label
    [[0.95, 0.05], [0.10, 0.90]],
    [[0.90, 0.10], [0.20, 0.80]],
    [[0.97, 0.03], [0.05, 0.95]],
]
SCENARIO = """
name = "three-adjudicated"

[annotators]
count = 3
{per_item}
prevalence = {prevalence}
confusion = {confusion}
metric = "fleiss"

[target]
width = 0.1

[budget]
seconds_per_item = 60
hourly_rate = 20
adjudication_seconds = 120

[simulation]
replicates = 300
seed = 11

[team]
runs = 40
time_spread = 0
adjudicators = 1
"""


def contested(k: int) -> float:
    """P(the k labels of an item are not all the same), averaged over the subsets of k."""
    pi = np.array([1 - PREVALENCE, PREVALENCE])
    c = np.array(CONFUSION)
    shares = []
    for subset in itertools.combinations(range(3), k):
        same = sum(pi[t] * (np.prod(c[list(subset), t, 0]) + np.prod(c[list(subset), t, 1]))
                   for t in (0, 1))  # fmt: skip
        shares.append(1 - same)
    return float(np.mean(shares))


def _scenario(tmp_path, per_item=""):
    path = tmp_path / "several.toml"
    text = SCENARIO.format(per_item=per_item, prevalence=PREVALENCE, confusion=CONFUSION)
    path.write_text(text)
    return str(path)


def _json(*args):
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(("per_item", "k"), [("", 3), ("per_item = 2", 2)])
def test_schedule_adjudicates_the_items_whose_labels_are_not_unanimous(tmp_path, per_item, k):
    share = contested(k)
    doc = _json("schedule", _scenario(tmp_path, per_item))
    operation = doc["operation"]
    assert operation["labels_per_item"] == k
    assert operation["contested_rate"][0] == pytest.approx(share)
    n = sum(operation["items_per_stratum"])
    runs = doc["runs"]
    # each item is contested with probability `share`: the mean over runs of the adjudicated
    # items is within 4 standard errors of n share
    adjudicated = doc["person_hours_median"] - n * k * 60 / 3600  # hours of adjudication
    sd = math.sqrt(n * share * (1 - share))
    assert adjudicated * 3600 / 120 == pytest.approx(n * share, abs=4 * sd)
    labelling_cost = n * k * 60 / 3600 * 20
    expected_cost = labelling_cost + n * share * 120 / 3600 * 20
    assert doc["cost_median"] == pytest.approx(expected_cost, abs=4 * sd * 120 / 3600 * 20)
    assert doc["adjudicator_utilisation"] is not None and doc["adjudicator_utilisation"] > 0
    assert runs == 40


def test_the_plan_and_the_schedule_use_the_same_contested_share(tmp_path):
    path = _scenario(tmp_path)
    plan = _json("plan", path)
    budget = plan["budget"]
    assert budget["contested_items"] == pytest.approx(budget["items"] * contested(3))
    schedule = _json("schedule", path)
    assert sum(schedule["operation"]["items_per_stratum"]) == budget["items"]


@pytest.mark.slow
def test_schedule_passes_plans_model_options_to_the_several_annotator_plan(tmp_path):
    path = _scenario(tmp_path)
    text = (
        (tmp_path / "several.toml")
        .read_text()
        .replace(f"confusion = {CONFUSION}", "error_rate = 0.05")
    )
    (tmp_path / "several.toml").write_text(text)
    wide = _json("plan", path, "--width", "0.2")
    schedule = _json("schedule", path, "--width", "0.2")
    assert sum(schedule["operation"]["items_per_stratum"]) == wide["budget"]["items"]
    narrow = _json("schedule", path, "--error-rate", "0.02")
    plan = _json("plan", path, "--error-rate", "0.02")
    assert sum(narrow["operation"]["items_per_stratum"]) == plan["budget"]["items"]


@pytest.mark.parametrize("option", [["--psa", "0.5"], ["--union-rate", "0.2"]])
def test_pair_only_options_are_refused_in_one_line(tmp_path, option):
    result = runner.invoke(app, ["schedule", _scenario(tmp_path), *option])
    assert result.exit_code != 0
    assert "several-annotator" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
