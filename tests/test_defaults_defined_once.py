"""Every planning default is defined once and read from there: the application's merge, the
several-annotator costs, the Alt-Test plan, the budget and the command-line help all state
the values of the library's settings objects."""

import inspect
import re
from dataclasses import fields

from typer.testing import CliRunner

from planner.application.plan_options import ResolvedOptions
from planner.cli.commands import plan_app
from planner.operations.budget import SECONDS_PER_ITEM, labelling_budget
from planner.sizing.alt_test_plan import AltTestPlanSettings
from planner.sizing.items_bought import LabelCosts
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.search import SearchSettings

#: the merge's names for the settings' fields where they differ
RESOLVED_NAMES = {"confidence": "confidence_level"}


def _defaults(cls):
    return {f.name: f.default for f in fields(cls)}


def test_the_merge_starts_from_the_plan_settings_defaults():
    plan = _defaults(PlanSettings)
    for name, value in _defaults(ResolvedOptions).items():
        setting = RESOLVED_NAMES.get(name, name)
        if setting in plan:
            assert value == plan[setting], name


def test_the_plan_takes_the_searchs_target_and_effort_defaults():
    plan, search = _defaults(PlanSettings), _defaults(SearchSettings)
    for name in ("width", "confidence_level", "assurance", "metric", "max_items"):
        assert plan[name] == search[name], name
    assert plan["replicates"] == SearchSettings.PAIR_REPS


def test_every_labelling_cost_starts_at_one_seconds_per_item():
    budget = inspect.signature(labelling_budget).parameters["seconds_per_item"].default
    assert (
        PlanSettings().seconds_per_item
        == LabelCosts(2).seconds_per_item
        == AltTestPlanSettings(epsilon=0.2).seconds_per_item
        == budget
        == SECONDS_PER_ITEM
    )


def test_plan_help_states_the_library_defaults():
    text = " ".join(CliRunner().invoke(plan_app, ["--help"], terminal_width=200).output.split())
    text = re.sub(r"[│╭╮╰╯─]", " ", text)
    text = " ".join(text.split())
    settings = PlanSettings()
    for stated in (
        f"in [0.001, 1). Default {settings.width:g}.",
        f"in (0, 1). Default {settings.confidence_level:g}.",
        f"one item. Default {settings.seconds_per_item:g}.",
        f"[100, 1e6]. Default {settings.replicates}.",
    ):
        assert stated in text, stated


def _parameter_defaults(function):
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def test_alt_test_command_defaults_are_the_plan_settings_and_model_defaults():
    from planner.cli.alt_test import alt_test_command
    from planner.sizing.alt_test_model import alt_test_model

    cli = _parameter_defaults(alt_test_command)
    plan = _defaults(AltTestPlanSettings)
    for name in ("q", "min_items", "power", "replicates", "max_items", "seconds_per_item"):
        assert cli[name] == plan[name], name
    model = _parameter_defaults(alt_test_model)
    assert float(cli["human_error"]) == model["human_error"]
    assert (cli["llm_error"], cli["error_draw"]) == (model["llm_error"], model["error_draw"])


def test_testing_labels_and_planning_the_alt_test_share_their_defaults():
    from planner.measuring.alt_test import alt_test

    test = _parameter_defaults(alt_test)
    plan = _defaults(AltTestPlanSettings)
    assert (test["epsilon"], test["q"], test["min_items"]) == (
        plan["epsilon"],
        plan["q"],
        plan["min_items"],
    )


def test_a_scenarios_alt_test_without_keys_takes_the_library_defaults():
    from planner.application.alt_test_options import alt_test_settings
    from planner.data.scenario import Scenario
    from planner.sizing.alt_test_model import alt_test_model

    scenario = Scenario(name="bare", description="", path="bare.toml", alt_test={}, budget={})
    model, settings = alt_test_settings(scenario)
    assert model == alt_test_model()
    expected = AltTestPlanSettings(table=True)
    assert (settings.epsilon, settings.q, settings.power, settings.min_items) == (
        expected.epsilon,
        expected.q,
        expected.power,
        expected.min_items,
    )
    assert settings.replicates == expected.replicates


def test_a_several_annotator_study_simulates_as_many_studies_as_their_search():
    from planner.sizing.study_precision import RatersStudy

    assert RatersStudy("fleiss", 0.1).replicates == SearchSettings.SEVERAL_REPS
