"""The one search's settings and dispatch: a pair, two annotators as the pair, M annotators."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from planner.cli.commands import plan_app
from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.model import pair_from_annotators
from planner.sizing.search import SearchSettings, find_sample_size


@pytest.mark.parametrize(
    ("changes", "parameter"),
    [
        ({"metric": "f1"}, "metric"),
        ({"width": 1.5}, "width"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"assurance": 1.0}, "assurance"),
        ({"replicates": 3}, "replicates"),
        ({"max_items": 2}, "max_items"),
        ({"n_boot": 5}, "n_boot"),
        ({"per_item": 9}, "per_item"),
        ({"level": "ratio"}, "level"),
        ({"metric": "kappa", "method": "wilson"}, "method"),
        ({"metric": "fleiss", "method": "wilson"}, "method"),
        ({"metric": "conger", "per_item": 2}, "metric"),
    ],
)
def test_settings_refuse_a_bad_value_in_its_parameter_name(changes, parameter):
    with pytest.raises(InvalidInput) as err:
        SearchSettings(**changes)
    assert err.value.parameter == parameter


def test_replicates_default_by_kind_and_an_explicit_value_wins():
    settings = SearchSettings()
    assert settings.replicates is None
    assert settings.replicates_for(several=False) == SearchSettings.PAIR_REPS == 4000
    assert settings.replicates_for(several=True) == SearchSettings.SEVERAL_REPS == 2000
    assert SearchSettings(replicates=300).replicates_for(several=True) == 300


def test_a_pair_gets_the_pair_defaults_and_three_annotators_theirs():
    pair = find_sample_size(pair_from_annotators(0.08), SearchSettings(width=0.1), rng=1)
    assert (pair.replicates, pair.basis, pair.method, pair.n_annotators) == (
        4000,
        "exact",
        "wilson",
        2,
    )
    team = find_sample_size(raters_model(0.2, 3), SearchSettings(metric="fleiss"), rng=1)
    assert (team.replicates, team.basis, team.n_annotators, team.labels_per_item) == (
        2000,
        "monte-carlo",
        3,
        3,
    )
    assert team.search_reps == 4 * 2000 and team.assurance_goal > 0.5
    assert team.exact_items is None and team.seed == 1


def test_two_annotators_over_two_categories_are_the_pair_for_kappa_too():
    # the same four cells, so the same nested tables and the same answer
    settings = SearchSettings(metric="kappa", width=0.15, replicates=300)
    by_pair = find_sample_size(raters_model(0.3, 2).pair(), settings, rng=4)
    by_team = find_sample_size(raters_model(0.3, 2), settings, rng=4)
    assert by_team == by_pair
    assert by_team.method == "score"


def test_settings_the_model_does_not_allow_are_refused_in_parameter_names():
    with pytest.raises(InvalidInput) as err:
        find_sample_size(raters_model(0.2, 3), SearchSettings(method="wilson"))
    assert err.value.parameter == "method"
    with pytest.raises(InvalidInput) as err:
        find_sample_size(raters_model(0.2, 3), SearchSettings(metric="alpha", per_item=3))
    assert err.value.parameter == "per_item"
    with pytest.raises(InvalidInput) as err:
        find_sample_size(pair_from_annotators(0.2), SearchSettings(per_item=2))
    assert err.value.parameter == "per_item"
    with pytest.raises(InvalidInput) as err:
        find_sample_size(raters_model(0.2, 3), "psa")  # type: ignore[arg-type]
    assert err.value.parameter == "settings"


def test_the_two_annotator_plan_of_a_confusion_matrix_is_the_pairs_exact_plan():
    # plan --annotators 2 with a confusion matrix sizes the same four cells as the pair
    confusion = [[0.95, 0.05], [0.1, 0.9]]
    args = ["--annotators", "2", "--confusion", "0.95,0.05;0.1,0.9", "--prevalence", "0.1"]
    args += ["--metric", "psa", "--width", "0.1", "--seed", "1", "--quiet"]
    pair = raters_model(0.1, 2, confusion=confusion).pair()
    expected = find_sample_size(pair, SearchSettings(width=0.1), rng=1)
    assert expected.basis == "exact"
    done = CliRunner().invoke(plan_app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["items"] == expected.items
    shown = CliRunner().invoke(plan_app, args, env={"COLUMNS": "100"}).output
    assert "binomial sums; two annotators are the pair" in shown


def test_plan_settings_hand_the_search_their_target_and_the_pair_s_interval_method():
    from planner.sizing.plan import PlanSettings

    plan = PlanSettings(width=0.05, assurance=0.8, replicates=500, kappa_method="profile")
    pair = plan.search_settings("kappa")
    assert (pair.metric, pair.width, pair.assurance, pair.replicates) == ("kappa", 0.05, 0.8, 500)
    assert pair.method == "profile"
    assert plan.search_settings("psa").method == plan.psa_method


def test_several_annotators_search_takes_level_and_per_item_not_a_pair_method():
    from planner.sizing.plan import PlanSettings

    plan = PlanSettings(metric="alpha", level="ordinal", per_item=2)
    several = plan.search_settings("alpha", several=True)
    assert (several.level, several.per_item, several.method) == ("ordinal", 2, None)
