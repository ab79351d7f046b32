"""PSA's worst case and stop rule as typed results (planner.sizing.sampling_rules)."""

from __future__ import annotations

import dataclasses

import pytest
from scipy import stats

from planner import PlanSettings, StopRule, WorstCase, make_plan, pair_from_annotators
from planner.output.jsonout import plan_document


@pytest.fixture(scope="module")
def plan():
    return make_plan(pair_from_annotators(0.08), PlanSettings(width=0.08, replicates=500), rng=1)


def test_the_plan_carries_frozen_worst_case_and_stop_rule(plan):
    assert isinstance(plan.worst_case, WorstCase) and isinstance(plan.stop_rule, StopRule)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.worst_case.cost = 1.0  # type: ignore[misc]


def test_stop_rule_items_are_the_negative_binomial_of_its_union_positives(plan):
    # an independent computation: items until the U-th union positive, rate r
    rule, r = plan.stop_rule, plan.model.union_rate
    u = rule.union_positives
    assert rule.expected_items == pytest.approx(u / r)
    p90 = rule.items_p90
    assert stats.binom.sf(u - 1, p90, r) >= 0.9 > stats.binom.sf(u - 1, p90 - 1, r)
    labels = p90 * plan.settings.annotators_per_item  # every item labelled by the pair
    assert rule.person_hours_p90 == pytest.approx(labels * plan.settings.seconds_per_item / 3600)


def test_json_holds_every_field_and_costs_only_for_a_named_team(plan):
    document = plan_document(plan)
    assert document["worst_case"] == dataclasses.asdict(plan.worst_case)
    fields = [f.name for f in dataclasses.fields(StopRule)]
    assert list(document["stop_rule"]) == [f for f in fields if not f.startswith("cost_")]
    kappa_only = make_plan(
        pair_from_annotators(0.08), PlanSettings(metric="kappa", width=0.15, replicates=500), rng=1
    )
    assert kappa_only.stop_rule is None and plan_document(kappa_only)["stop_rule"] is None
