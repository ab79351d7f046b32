"""``plan SCENARIO`` shows the Alt-Test plan of a scenario's ``[alt_test]``.

The section's numbers are checked against ``alt_test_plan_summary`` called here with the
scenario's values typed in by hand, at the seed derived by hand from the plan's seed (the
stream ``report`` draws its Alt-Test section from: a spawned child, then its first child), so
``plan`` and ``report`` give the same items at one seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.application.alt_test_options import HumanEffort, alt_test_for_plan
from planner.cli.commands import app
from planner.output.jsonout import load_schema
from planner.sizing.alt_test_plan import (
    AltTestPlanSettings,
    alt_test_model,
    alt_test_plan_summary,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
LLM_JUDGE = ROOT / "scenarios" / "llm-judge.toml"
SEED = 20261201  # llm-judge.toml's simulation.seed
runner = CliRunner()


def _summary_seed(seed: int) -> int:
    """The Alt-Test's summary seed under a plan's seed, derived without the library."""
    stream = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**20 + 1,)))
    summary, _ = np.random.SeedSequence(int(stream.integers(2**63))).spawn(2)
    return int(np.random.default_rng(summary).integers(2**63))


@pytest.fixture(scope="module")
def by_hand():
    # llm-judge.toml's [alt_test] and [budget], typed in by hand
    model = alt_test_model(human_error=[0.1, 0.12, 0.15], llm_error=0.12, prevalences=[0.2, 0.8])
    settings = AltTestPlanSettings(
        epsilon=0.1, q=0.05, power=0.8, items=300, seconds_per_item=60, hourly_rate=40.0
    )
    return alt_test_plan_summary(model, settings, rng=_summary_seed(SEED))


def test_the_plans_alt_test_is_the_scenarios_model_at_the_reports_seed(by_hand):
    summary = alt_test_for_plan(str(LLM_JUDGE), SEED)
    assert summary is not None and summary.seed == by_hand.seed
    assert summary.n_items == by_hand.n_items and by_hand.n_items is not None
    assert summary.pass_probability == by_hand.pass_probability
    assert summary.pass_probability_at_items == by_hand.pass_probability_at_items
    assert summary.person_hours == pytest.approx(by_hand.n_items * 3 * 60 / 3600)
    assert summary.table == ()  # the table of 2 to 6 humans is the report's


def test_a_scenario_without_alt_test_adds_nothing():
    assert alt_test_for_plan(None, SEED) is None
    assert alt_test_for_plan(str(ROOT / "scenarios" / "unsupported-claims.toml"), SEED) is None


def test_plan_prints_and_emits_the_section(by_hand):
    shown = runner.invoke(app, ["plan", str(LLM_JUDGE), "--replicates", "200"])
    assert shown.exit_code == 0, shown.output
    assert "Alt-Test: can the LLM judge replace a human?" in shown.stdout
    row = next(line for line in shown.stdout.splitlines() if "items (each labelled by" in line)
    assert f" {by_hand.n_items} " in row
    emitted = runner.invoke(app, ["plan", str(LLM_JUDGE), "--replicates", "200", "--json"])
    alt = json.loads(emitted.stdout)["alt_test"]
    assert alt["plan"]["n_items"] == by_hand.n_items and alt["seed"] == by_hand.seed
    assert alt["pass_probability_at_items"]["n_items"] == 300
    assert alt["pass_probability_at_items"]["probability"] == by_hand.pass_probability_at_items


def _scenario(tmp_path: Path, head: str, alt_test: str) -> str:
    path = tmp_path / "judge.toml"
    path.write_text(f'name = "judge"\n{head}\n[alt_test]\n{alt_test}\n')
    return str(path)


def test_several_annotators_plan_carries_the_section(tmp_path):
    head = "[annotators]\ncount = 3\nprevalence = 0.1\n[target]\nwidth = 0.1"
    path = _scenario(tmp_path, head, "human_error = 0.1\nllm_error = 0.1\nepsilon = 0.1")
    result = runner.invoke(app, ["plan", path, "--json", "--seed", "5", "--replicates", "200"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["command"] == "plan-raters"
    assert list(Draft202012Validator(load_schema()).iter_errors(doc)) == []
    model = alt_test_model(humans=3, human_error=0.1, llm_error=0.1)
    expected = alt_test_plan_summary(
        model, AltTestPlanSettings(epsilon=0.1, seconds_per_item=90.0), rng=_summary_seed(5)
    )
    assert doc["alt_test"]["plan"]["n_items"] == expected.n_items is not None


def test_an_alt_test_out_of_reach_leaves_the_agreement_plan_standing(tmp_path):
    # the LLM errs eight times as often as the humans: the expected advantage of every
    # human exceeds the margin, so no number of items passes
    path = _scenario(
        tmp_path,
        "[model]\nprevalence = 0.1",
        "human_error = 0.05\nllm_error = 0.4\nepsilon = 0.05",
    )
    result = runner.invoke(app, ["plan", path, "--json", "--seed", "3", "--replicates", "200"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["recommendation"]["items"] > 0
    assert doc["alt_test"]["plan"] is None
    assert "cannot be expected to pass at any number of items" in doc["alt_test"]["unreachable"]
    assert list(Draft202012Validator(load_schema()).iter_errors(doc)) == []


def test_the_command_lines_seconds_per_item_prices_the_alt_test_too(by_hand):
    # llm-judge.toml's [budget] says 60 s; the command line's 30 s halves the humans' hours
    summary = alt_test_for_plan(str(LLM_JUDGE), SEED, HumanEffort(seconds_per_item=30.0))
    assert summary is not None and summary.n_items == by_hand.n_items
    assert summary.person_hours == pytest.approx(by_hand.n_items * 3 * 30 / 3600)
    shown = runner.invoke(
        app, ["plan", str(LLM_JUDGE), "--replicates", "200", "--seconds-per-item", "30", "--json"]
    )
    assert shown.exit_code == 0, shown.output
    alt = json.loads(shown.stdout)["alt_test"]
    assert alt["plan"]["budget"]["person_hours"] == pytest.approx(by_hand.n_items * 3 * 30 / 3600)
