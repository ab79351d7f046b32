"""One call and one answer for a study in progress, a pair's or several annotators'.

``plan_remaining`` takes a pair's four counts or several annotators' labels, and both give a
:class:`RemainingPlan`; the values asserted here come from the first stage itself (its counts,
its items, its interval) and from the several-annotator method called directly.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import planner
from planner.errors import InvalidInput
from planner.sizing.midstudy import plan_remaining
from planner.sizing.midstudy_latent_class import plan_remaining_raters
from planner.sizing.midstudy_procedure import raters_batch_procedure
from planner.sizing.midstudy_result import RemainingPlan
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.pilot_latent_class import read_raters_ratings
from planner.sizing.plan import PlanSettings

ROOT = Path(__file__).parent.parent
READER = {"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]}
# a pair's first stage (both, a_only, b_only, neither): plan_remaining's docstring example
PAIR = (27, 20, 21, 532)
FEW = RemainingSettings(draws=40)


@pytest.fixture(scope="module")
def ratings():
    return read_raters_ratings(str(ROOT / "examples" / "wide.csv"), READER)


@pytest.fixture(scope="module")
def several(ratings):
    settings = PlanSettings(width=0.1, metric="fleiss", replicates=400)
    return plan_remaining(ratings, settings, FEW, positive="unsupported", rng=5), settings


def test_a_pairs_counts_give_a_remaining_plan_with_the_pairs_first_stage():
    plan = plan_remaining(PAIR, PlanSettings(width=0.1, replicates=400), rng=1)
    assert isinstance(plan, RemainingPlan)
    assert plan.counts == PAIR
    assert plan.labelled_items == sum(PAIR)
    assert plan.total_items == plan.labelled_items + plan.remaining_items
    # the several-annotator description is empty for a pair
    assert (plan.annotators, plan.pilot, plan.patterns, plan.source) == ((), None, None, "")


def test_several_annotators_labels_run_the_latent_class_plan(several, ratings):
    plan, settings = several
    direct = plan_remaining_raters(ratings, settings, FEW, positive="unsupported", rng=5)
    assert isinstance(plan, RemainingPlan)
    assert plan.counts is None and plan.stage is None
    assert plan.annotators == ("alice", "bob", "carol")
    assert plan.remaining_items == direct.remaining_items
    assert plan.assurance == direct.assurance
    assert plan.interval_now == direct.interval_now
    # the first stage's patterns hold every item with a label
    assert int(np.asarray(plan.multiplicity).sum()) == plan.labelled_items


def test_the_former_name_of_the_several_annotator_result_is_the_same_class():
    assert planner.RatersRemaining is RemainingPlan
    assert planner.RemainingPlan is RemainingPlan


def test_the_former_keyword_counts_still_works_with_a_warning():
    settings = PlanSettings(width=0.1, replicates=400)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = plan_remaining(counts=PAIR, plan_settings=settings, rng=2)
    assert any("counts is deprecated: use first_stage" in str(w.message) for w in caught)
    new = plan_remaining(PAIR, settings, rng=2)
    assert old.remaining_items == new.remaining_items


def test_a_positive_label_is_refused_with_a_pairs_counts():
    with pytest.raises(InvalidInput) as caught:
        plan_remaining(PAIR, positive="unsupported", rng=1)
    assert caught.value.parameter == "positive"


def test_the_several_annotator_batch_procedure_refuses_a_pairs_plan():
    plan = plan_remaining(PAIR, PlanSettings(width=0.1, replicates=400), rng=1)
    with pytest.raises(InvalidInput) as caught:
        raters_batch_procedure(plan, PlanSettings(), RemainingSettings(batch_size=50), rng=1)
    assert caught.value.parameter == "plan"


def test_a_result_is_frozen(several):
    plan, _ = several
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.remaining_items = 0  # type: ignore[misc]


def test_the_batch_procedure_takes_either_kind_of_plan_of_the_rest(several):
    from dataclasses import replace

    from planner.sizing.midstudy_procedure import batch_procedure

    knobs = RemainingSettings(batch_size=100)
    plan, settings = several
    settings = replace(settings, replicates=400)
    assert batch_procedure(plan, settings, knobs, rng=4) == raters_batch_procedure(
        plan, settings, knobs, rng=4
    )
    pair = plan_remaining(PAIR, PlanSettings(width=0.1, metric="kappa", replicates=400), rng=1)
    # a pair's plan runs on its counts for its metric, whatever the settings' metric says
    got = batch_procedure(pair, PlanSettings(width=0.1, replicates=400), knobs, rng=4)
    direct = PlanSettings(width=0.1, metric="kappa", replicates=400)
    assert got == batch_procedure(PAIR, direct, knobs, rng=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = batch_procedure(counts=PAIR, plan_settings=direct, remaining=knobs, rng=4)
    assert old == got
    assert any("counts is deprecated: use first_stage" in str(w.message) for w in caught)
