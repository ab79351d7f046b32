"""The one plan result: a pair's plan and several annotators' plan are the same ``Plan`` type,
with the same names for the same things, and the hours per annotator follow the items billed."""

from __future__ import annotations

import dataclasses

import pytest

import planner as p
from planner import examples
from planner.errors import InvalidInput
from planner.operations.budget import labelling_budget
from planner.sizing.plan import Plan


@pytest.fixture(scope="module")
def pair_plan() -> Plan:
    settings = p.PlanSettings(metric="both", width=0.1, replicates=400)
    return p.make_plan(p.pair_from_annotators(0.1, 0.04), settings, rng=3)


@pytest.fixture(scope="module")
def several_plan() -> Plan:
    settings = p.PlanSettings(metric="fleiss", width=0.1, replicates=400)
    return p.make_plan(p.raters_model(0.3, 4, error_rate=0.1), settings, rng=3)


def test_pair_and_several_annotators_plans_are_one_type(pair_plan: Plan, several_plan: Plan):
    assert type(pair_plan) is type(several_plan) is Plan
    assert p.RatersPlan is Plan and p.PairPlan is Plan  # the names code imported stay valid
    names = {f.name for f in dataclasses.fields(Plan)}
    assert {"results", "budgets", "deciding_metric", "by_annotators", "worst_case"} <= names
    assert not pair_plan.several and several_plan.several


def test_the_deciding_metric_holds_the_items_and_the_budget(pair_plan: Plan, several_plan: Plan):
    for plan in (pair_plan, several_plan):
        assert plan.sizing is plan.results[plan.deciding_metric]
        assert plan.items == max(r.items for r in plan.results.values())
        assert plan.budget is plan.budgets[plan.deciding_metric] is plan.sizing_budget
    assert list(several_plan.results) == ["fleiss"]
    assert set(pair_plan.results) == {"psa", "kappa"}


def test_only_a_pair_has_psa_checks_and_only_several_the_fixed_hours_table(
    pair_plan: Plan, several_plan: Plan
):
    assert pair_plan.worst_case is not None and pair_plan.stop_rule is not None
    assert pair_plan.by_annotators == []
    assert several_plan.worst_case is None and several_plan.stop_rule is None
    assert [row.annotators for row in several_plan.by_annotators] == [2, 3, 4, 5, 6]


def test_hours_per_annotator_split_the_labelling_hours_over_the_pool(
    pair_plan: Plan, several_plan: Plan
):
    # a pair: every item labelled by both, 90 s a label (the settings' default)
    hours = labelling_budget(pair_plan.items, annotators_per_item=2, seconds_per_item=90.0)
    assert pair_plan.hours_per_annotator == pytest.approx(hours.labelling_hours / 2)
    assert pair_plan.hours_per_annotator == pytest.approx(pair_plan.items * 90 / 3600)
    assert several_plan.hours_per_annotator == pytest.approx(several_plan.items * 90 / 3600)


def test_hours_per_annotator_follow_the_recommendation_of_a_pilot(several_plan: Plan):
    recommended = p.Recommendation(
        metric="fleiss",
        items=2 * several_plan.items,
        union_positives=None,
        budget=labelling_budget(2 * several_plan.items, annotators_per_item=4),
        plug_in_items=several_plan.items,
    )
    plan = dataclasses.replace(several_plan, recommended=recommended)
    assert plan.items == 2 * several_plan.items
    assert plan.hours_per_annotator == pytest.approx(2 * several_plan.items * 90 / 3600)


@pytest.mark.slow
def test_a_pair_plan_is_refused_where_several_annotators_plan_is_needed(pair_plan: Plan):
    pilot = p.read_raters_pilot(
        examples.path("wide.csv"),
        {"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]},
        positive="unsupported",
        rng=1,
    )
    with pytest.raises(InvalidInput) as caught:
        p.with_pilot_uncertainty(pair_plan, pilot, pair_plan.settings)
    assert caught.value.parameter == "plan"
