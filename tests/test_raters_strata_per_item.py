"""Several annotators over strata when each item gets ``k`` of the ``M`` annotators.

The designs average each stratum's label-pattern probabilities over the ``C(M, k)`` subsets
of annotators. The check here simulates label by label instead: every item draws its true
class, then ``k`` distinct annotators at random, then each one's label from their confusion
matrix. The weighted analysis (``agree --stratum-col``'s combined ratio estimator) of those
studies must reach the target at the planned size, clearly miss it well below, and cover
traffic's specific positive agreement, computed in closed form over the pairs of annotators.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.scenario_raters import raters_scenario_from_dict
from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.compare import StrataOptions, compare_raters_designs, enriched_shares
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.raters_strata import raters_strata
from planner.statistics.stratified import weighted_from_pattern_counts

runner = CliRunner()

SHARES = (0.1, 0.9)
PREVALENCES = (0.4, 0.05)
M, K = 4, 2
ERRORS = (0.03, 0.05, 0.08, 0.1)  # four different annotators
WIDTH, ASSURANCE = 0.1, 0.8
SCENARIO = {
    "annotators": {"count": M, "per_item": K, "error_rate": list(ERRORS)},
    "strata": [
        {"name": "flagged", "share": SHARES[0], "prevalence": PREVALENCES[0]},
        {"name": "rest", "share": SHARES[1], "prevalence": PREVALENCES[1]},
    ],
}


def _models():
    return [raters_model(p, M, error_rate=list(ERRORS)) for p in PREVALENCES]


def _plan():
    scenario = raters_scenario_from_dict(SCENARIO)
    strata = raters_strata(["flagged", "rest"], list(SHARES), [60.0, 60.0], _models(), K)
    settings = PlanSettings(width=WIDTH, assurance=ASSURANCE, replicates=600, per_item=K)
    options = StrataOptions(scenario, list(PREVALENCES), enriched_shares(scenario, strata))
    return compare_raters_designs(strata, settings, options, rng=11)


def _label_by_label(items: list[int], replicates: int, rng: np.random.Generator) -> np.ndarray:
    """``(R, H, K + 1)`` items per number of positive labels, simulated item by item."""
    counts = np.zeros((replicates, len(items), K + 1))
    for h, (model, n) in enumerate(zip(_models(), items, strict=True)):
        confusion = np.asarray(model.confusion)  # (M, 2, 2): [annotator, truth, label]
        truth = (rng.random((replicates, n)) < model.prevalences[1]).astype(int)
        who = np.argsort(rng.random((replicates, n, M)), axis=-1)[..., :K]  # k distinct
        says_positive = confusion[who, truth[..., None], 1]
        positives = (rng.random((replicates, n, K)) < says_positive).sum(axis=-1)
        counts[:, h] = (positives[..., None] == np.arange(K + 1)).sum(axis=1)
    return counts


def _traffic_psa() -> float:
    """Uebersax's PSA of two labels an item: ``2 P(both) / (P(one) + 2 P(both))``, each
    probability averaged over the six equally likely pairs of annotators and the strata."""
    both = one = 0.0
    for share, model in zip(SHARES, _models(), strict=True):
        c = np.asarray(model.confusion)
        for i, j in itertools.combinations(range(M), 2):
            for t, pi in enumerate(model.prevalences):
                p, q = c[i, t, 1], c[j, t, 1]
                both += share * pi * p * q / 6
                one += share * pi * (p * (1 - q) + q * (1 - p)) / 6
    return 2 * both / (one + 2 * both)


def _weighted(items: list[int], replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rows = np.array([[K - p, p] for p in range(K + 1)])
    counts = _label_by_label(items, replicates, np.random.default_rng(seed))
    found = weighted_from_pattern_counts("psa", rows, counts, list(SHARES), 0.95, positive=1)
    return found.low, found.high


@pytest.mark.slow
def test_the_weighted_design_of_two_of_four_holds_at_its_size_and_fails_well_below():
    weighted = _plan().designs["weighted"]
    items = list(weighted.items_per_stratum)
    replicates = 2000
    low, high = _weighted(items, replicates, seed=5)
    reached = np.nan_to_num((high - low) / 2, nan=np.inf) <= WIDTH
    se = math.sqrt(ASSURANCE * (1 - ASSURANCE) / replicates)
    assert reached.mean() >= ASSURANCE - 3 * se
    truth = _traffic_psa()
    assert np.mean((low <= truth) & (truth <= high)) >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / 2000)
    low, high = _weighted([max(2, int(0.6 * n)) for n in items], replicates, seed=6)
    assert (np.nan_to_num((high - low) / 2, nan=np.inf) <= WIDTH).mean() < 0.5


@pytest.mark.slow
def test_two_labels_an_item_need_more_items_than_four_and_bill_two_labels_each():
    two = _plan()
    scenario = raters_scenario_from_dict({**SCENARIO, "annotators": {"count": M}})
    strata = raters_strata(["flagged", "rest"], list(SHARES), [60.0, 60.0], _models())
    every = compare_raters_designs(
        strata,
        PlanSettings(width=WIDTH, assurance=ASSURANCE, replicates=600),
        StrataOptions(scenario, list(PREVALENCES), enriched_shares(scenario, strata)),
        rng=11,
    )
    assert two.designs["weighted"].items > every.designs["weighted"].items
    cost = two.costs["weighted"].budget
    assert cost.labels == K * cost.items
    assert cost.labelling_hours == pytest.approx(cost.items * K * 60 / 3600)


def test_the_strata_and_the_settings_must_agree_on_per_item():
    scenario = raters_scenario_from_dict(SCENARIO)
    strata = raters_strata(["flagged", "rest"], list(SHARES), [60.0, 60.0], _models(), K)
    options = StrataOptions(scenario, list(PREVALENCES), enriched_shares(scenario, strata))
    with pytest.raises(InvalidInput) as caught:
        compare_raters_designs(strata, PlanSettings(width=WIDTH), options, rng=1)
    assert caught.value.parameter == "per_item"
    with pytest.raises(InvalidInput) as caught:
        raters_strata(["flagged", "rest"], list(SHARES), [60.0, 60.0], _models(), M)
    assert caught.value.parameter == "per_item"


TOML = """
name = "two-of-four"

[annotators]
count = 4
per_item = {per_item}
error_rate = 0.05

[[strata]]
name = "flagged"
share = 0.1
prevalence = 0.4

[[strata]]
name = "rest"
share = 0.9
prevalence = 0.05

[target]
width = 0.1

[simulation]
seed = 3
replicates = 300
"""


@pytest.mark.slow
def test_plan_and_schedule_take_per_item_over_strata(tmp_path):
    path = tmp_path / "two-of-four.toml"
    path.write_text(TOML.format(per_item=2))
    done = runner.invoke(app, ["plan", str(path), "--json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["annotators"]["count"] == 4 and doc["annotators"]["per_item"] == 2
    assert any("2 of 4 annotators" in note for note in doc["notes"])
    schedule = runner.invoke(app, ["schedule", str(path), "--json"])
    assert schedule.exit_code == 0, schedule.output
    assert json.loads(schedule.stdout)["operation"]["labels_per_item"] == 2


def test_per_item_of_every_annotator_over_strata_is_one_line_naming_the_key(tmp_path):
    path = tmp_path / "four-of-four.toml"
    path.write_text(TOML.format(per_item=4))
    done = runner.invoke(app, ["plan", str(path)])
    assert done.exit_code in (1, 2)
    assert done.output.strip().splitlines() == [
        f"error: {path}: annotators.per_item must be less than the 4 annotators of the pool, got 4"
    ]


@pytest.mark.slow
def test_plan_per_item_overrides_the_files_and_schedule_says_it_labels_the_files(tmp_path):
    path = tmp_path / "two-of-four.toml"
    path.write_text(TOML.format(per_item=2))
    done = runner.invoke(app, ["plan", str(path), "--per-item", "3", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["annotators"]["per_item"] == 3
    done = runner.invoke(app, ["schedule", str(path), "--per-item", "3"])
    assert done.exit_code == 2
    assert done.output.strip().splitlines() == [
        f"error: --per-item does not change the strata designs that schedule labels for {path}: "
        "set annotators.per_item in the file (plan takes --per-item to compare the designs)"
    ]
