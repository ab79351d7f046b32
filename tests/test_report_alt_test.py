"""Scenario files that name an Alt-Test plan, and the report's Alt-Test and assurance figures.

The section's numbers are checked against ``alt_test_plan_summary`` called here with the
scenario's values typed in by hand and the seed the report records; the seed is checked
against its derivation from the report's seed (a spawned child, not ``seed + i``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from planner.application.schedule_options import operation_for
from planner.application.schedule_team import TeamSettings
from planner.data.scenario import load_scenario, scenario_from_dict
from planner.errors import InvalidInput
from planner.output.report import write_report
from planner.sizing.alt_test_plan import (
    AltTestPlanSettings,
    alt_test_model,
    alt_test_plan_summary,
)
from planner.sizing.exact import exact_psa_assurance
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import Plan, PlanSettings, make_plan

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
LLM_JUDGE = ROOT / "scenarios" / "llm-judge.toml"
SEED = 20261201  # llm-judge.toml's simulation.seed


def _scenario(alt_test: dict, **extra) -> dict:
    return {"name": "judge", "model": {"prevalence": 0.2}, "alt_test": alt_test, **extra}


# --------------------------------------------------------------------------- the scenario


def test_a_scenario_reads_its_alt_test_table():
    scenario = load_scenario(LLM_JUDGE)
    alt = scenario.alt_test
    assert alt["human_error"] == (0.1, 0.12, 0.15)
    assert alt["prevalences"] == (0.2, 0.8)
    assert alt["llm_error"] == 0.12 and alt["epsilon"] == 0.1 and alt["items"] == 300
    assert load_scenario("unsupported-claims").alt_test == {}
    assert scenario_from_dict(_scenario({"human_error": 0.2})).alt_test["human_error"] == 0.2


@pytest.mark.parametrize(
    ("alt_test", "message"),
    [
        ({"llm_error": 1.5}, "s: alt_test.llm_error must be a number in [0, 1], got 1.5"),
        ({"epsilon": 1}, "s: alt_test.epsilon must be a number in [0, 1), got 1"),
        ({"humans": 1}, "s: alt_test.humans must be a whole number in [2, 12], got 1"),
        ({"q": 0}, "s: alt_test.q must be a number in (0, 1), got 0"),
        ({"human_error": [0.1, "x"]}, "s: alt_test.human_error must be a number in [0, 1] or"),
        (
            {"human_error": [0.1]},
            "s: alt_test.human_error must list one error rate a human (a whole number in [2, 12]",
        ),
        (
            {"humans": 4, "human_error": [0.1, 0.2]},
            "s: alt_test.humans is 4 but alt_test.human_error lists 2",
        ),
        ({"prevalences": [0.5, 0.6]}, "s: alt_test.prevalences must sum to 1, got 1.1"),
        ({"prevalences": 0.5}, "s: alt_test.prevalences must be a list of numbers in (0, 1)"),
        ({"categories": 3, "prevalences": [0.5, 0.5]}, "s: alt_test.categories is 3 but"),
        ({"error_draw": "beta"}, "s: alt_test.error_draw must be uniform or prior, got 'beta'"),
        ({"items": 10}, "s: alt_test.items must be at least alt_test.min_items (30), got 10"),
        ({"llm": "gpt"}, "s: unknown key alt_test.llm; allowed: categories, epsilon"),
        ({}, "s: [alt_test] is empty; give its model (human_error, llm_error"),
    ],
)
def test_a_bad_alt_test_value_names_the_file_and_key(alt_test, message):
    with pytest.raises(InvalidInput) as caught:
        scenario_from_dict(_scenario(alt_test), "s")
    assert str(caught.value).startswith(message), str(caught.value)


# --------------------------------------------------------------------------- the report


@pytest.fixture(scope="module")
def judge_report(tmp_path_factory):
    folder = write_report(LLM_JUDGE, tmp_path_factory.mktemp("reports"), rng=SEED)
    return (
        folder,
        (folder / "report.md").read_text(),
        json.loads((folder / "figures.json").read_text()),
    )


def _row(markdown: str, label: str) -> str:
    found = re.search(r"^\| " + re.escape(label) + r" \| ([^|]+) \|$", markdown, re.MULTILINE)
    assert found, label
    return found.group(1).strip()


def test_the_alt_test_seed_is_a_spawned_child_of_the_report_seed(judge_report):
    _, _, figures = judge_report
    alt_seed = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(2**20 + 1,)))
    summary_stream, _ = np.random.SeedSequence(int(alt_seed.integers(2**63))).spawn(2)
    expected = int(np.random.default_rng(summary_stream).integers(2**63))
    assert figures["alt_test"]["summary"]["seed"] == expected
    assert expected not in (SEED, SEED + 1)


def test_the_alt_test_section_shows_the_summarys_numbers(judge_report):
    _, markdown, figures = judge_report
    seed = figures["alt_test"]["summary"]["seed"]
    # llm-judge.toml's [alt_test] and [budget], typed in by hand
    model = alt_test_model(human_error=[0.1, 0.12, 0.15], llm_error=0.12, prevalences=[0.2, 0.8])
    settings = AltTestPlanSettings(
        epsilon=0.1, q=0.05, power=0.8, items=300, seconds_per_item=60, hourly_rate=40.0,
        table=True,
    )  # fmt: skip
    expected = alt_test_plan_summary(model, settings, rng=seed)
    assert expected.n_items is not None and expected.pass_probability is not None
    section = markdown.split("## Alt-Test", 1)[1].split("## Rebuild", 1)[0]
    n = expected.n_items
    assert _row(section, "items (each labelled by all 3 humans and the LLM)") == f"{n:,}"
    assert _row(section, f"P(pass) at {n:,} items (target 0.8)") == (
        f"{expected.pass_probability:.3f}"
    )
    assert float(_row(section, "person-hours of the humans' labels (60 s an item)")) == (
        pytest.approx(3 * n * 60 / 3600, abs=0.05)
    )
    assert _row(section, "P(pass) at the study's 300 items") == (
        f"{expected.pass_probability_at_items:.3f}"
    )
    for m, items, hours in expected.table:
        assert f"| {m} | {items:,} | {hours:,.1f} |" in section
    assert model.describe() in " ".join(section.split())
    assert "figures/alt_test.png" in section


def test_the_pass_curve_rises_through_the_target_at_the_plan(judge_report):
    folder, _, figures = judge_report
    curve = figures["alt_test"]["curve"]
    planned = figures["alt_test"]["summary"]["n_items"]
    items, p = np.array(curve["items"]), np.array(curve["pass_probability"])
    assert planned in curve["items"] and 300 in curve["items"]
    assert items[0] == 30 and np.all(np.diff(items) > 0)
    # the search's own estimate at n is >= 0.8; another stream may miss by Monte Carlo error
    se = np.sqrt(0.8 * 0.2 / curve["replicates"])
    assert p[items == planned][0] >= 0.8 - 4 * se
    assert p[0] < 0.8 and p[-1] > 0.95
    assert (folder / "figures" / "alt_test.png").stat().st_size > 1000


def test_the_plan_is_where_the_reported_curve_stays_above_the_target(judge_report):
    # read off the figure's data here: the first size at or above 0.8, and the first from
    # which every size up to the largest searched stays there
    _, markdown, figures = judge_report
    summary, curve = figures["alt_test"]["summary"], figures["alt_test"]["curve"]
    walked = [
        (n, p)
        for n, p in zip(curve["items"], curve["pass_probability"], strict=True)
        if n <= summary["searched_to"]
    ]
    first = next(n for n, p in walked if p >= 0.8)
    stays = next(n for i, (n, _) in enumerate(walked) if all(p >= 0.8 for _, p in walked[i:]))
    assert (summary["first_crossing"], summary["n_items"]) == (first, stays)
    assert summary["searched_to"] >= 2 * first
    section = markdown.split("## Alt-Test")[1]
    if first != stays:
        assert f"first reaches 0.8 at {first:,} items but falls below it again" in section
    assert f"| {stays:,} | " in section and "the plan: stays above" in section


def test_a_report_without_alt_test_has_no_such_section(tmp_path):
    path = tmp_path / "pair.toml"
    path.write_text(
        'name = "pair"\n[model]\nprevalence = 0.2\nerror_rate = 0.06\n'
        "[target]\nwidth = 0.15\n[team]\nruns = 20\n[simulation]\nreplicates = 500\n"
    )
    folder = write_report(path, tmp_path / "out", rng=3)
    assert "Alt-Test" not in (folder / "report.md").read_text()
    assert "alt_test" not in json.loads((folder / "figures.json").read_text())
    assert not (folder / "figures" / "alt_test.png").exists()


def test_a_several_annotator_report_has_the_alt_test_section(tmp_path, judge_report):
    _, _, pair_figures = judge_report
    path = tmp_path / "three.toml"
    alt = LLM_JUDGE.read_text().split("[alt_test]", 1)[1]
    path.write_text(
        'name = "three"\n[annotators]\ncount = 3\nprevalence = 0.2\nerror_rate = 0.06\n'
        "[target]\nwidth = 0.15\n[budget]\nseconds_per_item = 60\nhourly_rate = 40.0\n"
        "[team]\nruns = 20\n[simulation]\nreplicates = 500\n[alt_test]" + alt
    )
    folder = write_report(path, tmp_path / "out", rng=SEED)
    markdown = (folder / "report.md").read_text()
    figures = json.loads((folder / "figures.json").read_text())
    assert "## Alt-Test" in markdown and (folder / "figures" / "alt_test.png").exists()
    # the same [alt_test], [budget] and seed as llm-judge.toml: the same Alt-Test numbers
    assert figures["alt_test"]["summary"] == pair_figures["alt_test"]["summary"]


# --------------------------------------------------------------------------- the assurance curve


def test_the_assurance_figure_of_a_pair_plan_is_the_exact_psa_assurance(judge_report):
    folder, markdown, figures = judge_report
    assurance = figures["assurance"]
    assert assurance["width"] == 0.08 and assurance["assurance"] == 0.8
    model = pair_from_annotators(0.2, 0.06)  # llm-judge.toml's [model]
    for point in assurance["curve"]["psa"]:  # Wilson: exact, independent of any seed
        exact = exact_psa_assurance(model, int(point["items"]), 0.08, 0.95, "wilson")
        assert point["assurance"] == pytest.approx(exact, abs=1e-12)
    plan = make_plan(model, PlanSettings(width=0.08, assurance=0.8), rng=1)
    assert assurance["planned"] == plan.items
    assert exact_psa_assurance(model, plan.items, 0.08, 0.95, "wilson") >= 0.8
    assert "figures/assurance.png" in markdown
    assert (folder / "figures" / "assurance.png").stat().st_size > 1000


def test_a_design_comparison_report_has_no_assurance_figure(tmp_path):
    enriched = (ROOT / "scenarios" / "unsupported-claims-enriched.toml").read_text()
    path = tmp_path / "enriched.toml"
    path.write_text(enriched.replace("runs = 200", "runs = 20"))
    folder = write_report(path, tmp_path / "out", rng=3)
    assert "assurance" not in json.loads((folder / "figures.json").read_text())
    assert "assurance.png" not in (folder / "report.md").read_text()


# --------------------------------------------------------------------------- Plan | Comparison


def test_operation_for_dispatches_on_the_result_type_not_on_an_attribute():
    # regression: operation_for took any object with a `designs` attribute for a Comparison
    plan = make_plan(pair_from_annotators(0.2, 0.06), PlanSettings(width=0.15), rng=1)
    assert isinstance(plan, Plan)
    team = TeamSettings(annotators=3)
    assert operation_for(plan, team).items_per_stratum == (plan.items,)

    class LooksLikeAComparison:
        designs = {"weighted": None}
        settings = plan.settings

    with pytest.raises(TypeError, match="takes a Plan or a Comparison"):
        operation_for(LooksLikeAComparison(), team)  # type: ignore[arg-type]


def test_an_unreachable_alt_test_says_so_without_empty_numbers(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'name = "bad"\n[model]\nprevalence = 0.2\nerror_rate = 0.06\n[target]\nwidth = 0.15\n'
        "[team]\nruns = 20\n[simulation]\nreplicates = 500\n"
        "[alt_test]\nhuman_error = 0.05\nllm_error = 0.4\nepsilon = 0.05\nreplicates = 500\n"
    )
    folder = write_report(path, tmp_path / "out", rng=3)
    section = (folder / "report.md").read_text().split("## Alt-Test", 1)[1]
    # the LLM trails every human by 0.35 x (1 - 1/2) in accuracy, far beyond epsilon
    assert "| items (each labelled by all 3 humans and the LLM) | unreachable |" in section
    assert "P(pass) at unreachable" not in section and "is not reached" in section
    curve = json.loads((folder / "figures.json").read_text())["alt_test"]["curve"]
    assert curve["planned"] is None and max(curve["pass_probability"]) < 0.05
