"""The pair is the M-annotator study model with M = 2: every way of stating it meets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.common_prevalence_model import common_prevalence_model
from planner.sizing.model import pair_from_annotators, pair_from_counts, pair_from_ordered
from planner.sizing.search import SearchSettings, find_sample_size
from planner.sizing.study_intervals import true_value
from planner.statistics.agreement import cohen_kappa


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    prevalence=st.floats(0.02, 0.6),
    errors=st.tuples(st.floats(0.0, 0.3), st.floats(0.0, 0.3)),
    biases=st.tuples(st.floats(-1, 1), st.floats(-1, 1)),
    ambiguity=st.floats(0, 1),
)
def test_a_pair_and_a_two_annotator_team_are_the_same_model(prevalence, errors, biases, ambiguity):
    """The pair's closed-form cells equal the M-annotator model's ordered patterns at M = 2,
    and going through ``pair()`` gives the same cells back (to rounding); an error rate and
    bias that no annotator can have at this prevalence is refused by both, naming it."""
    try:
        pair = pair_from_annotators(prevalence, errors, biases, ambiguity)
    except InvalidInput as refused:
        with pytest.raises(InvalidInput) as too:
            raters_model(prevalence, 2, error_rate=list(errors), bias=list(biases))
        assert too.value.parameter == refused.parameter
        return
    team = raters_model(
        prevalence, 2, error_rate=list(errors), bias=list(biases), ambiguity=ambiguity
    )
    np.testing.assert_allclose(
        pair.ordered_probabilities(), team.ordered_probabilities(), atol=1e-12
    )
    np.testing.assert_allclose(team.pair().cells, pair.cells, atol=1e-12)
    rows_p, probs_p = pair.count_patterns()
    rows_t, probs_t = team.count_patterns()
    np.testing.assert_array_equal(rows_p, rows_t)
    np.testing.assert_allclose(probs_p, probs_t, atol=1e-12)


def test_one_of_two_annotators_per_item_sees_their_mean_positive_rate():
    # a = .012, b = .042, c = .028: rate A = a + b = .054, rate B = a + c = .040
    rows, probs = pair_from_counts([6, 21, 14, 459]).count_patterns(per_item=1)
    assert rows.tolist() == [[0, 1], [1, 0]]
    np.testing.assert_allclose(probs, [(0.054 + 0.040) / 2, 1 - (0.054 + 0.040) / 2])


def test_the_headline_pair_plans_the_same_items_stated_as_a_team():
    # plan --prevalence 0.08 --width 0.08: 1,280 items (README), exact PSA search
    pair = find_sample_size(
        pair_from_annotators(0.08), SearchSettings(metric="psa", width=0.08), rng=1
    )
    team = find_sample_size(raters_model(0.08, 2), SearchSettings(metric="psa", width=0.08), rng=1)
    assert pair.items == team.items == 1280
    assert pair.basis == team.basis == "exact"


def test_the_several_annotator_search_takes_a_pair_as_m_equals_two():
    pair = pair_from_annotators(0.3, 0.05)
    team = raters_model(0.3, 2, error_rate=0.05)
    by_pair = find_sample_size(
        pair, SearchSettings(metric="fleiss", width=0.1, replicates=400), rng=3
    )
    by_team = find_sample_size(
        team, SearchSettings(metric="fleiss", width=0.1, replicates=400), rng=3
    )
    assert by_pair.n_annotators == 2
    assert abs(by_pair.items - by_team.items) <= 0.01 * by_team.items
    # Fleiss' kappa of two annotators with equal margins is the intraclass (Scott) kappa
    a, b, c, d = pair.cells
    p = a + (b + c) / 2
    scott = 1 - (b + c) / (2 * p * (1 - p))
    rows, probs = pair.count_patterns()
    assert true_value("fleiss", rows, probs) == pytest.approx(scott, abs=1e-9)


def test_kappasizes_common_model_of_two_annotators_is_a_pair_with_that_kappa():
    pair = common_prevalence_model(0.3, 2, kappa=0.6).pair()
    assert float(cohen_kappa(pair.table)) == pytest.approx(0.6, abs=1e-12)
    assert pair.cells[1] == pytest.approx(pair.cells[2])  # exchangeable: b = c
    assert pair.cells[0] + pair.cells[1] == pytest.approx(0.3)  # prevalence 0.3


def test_models_that_are_not_pairs_are_refused_in_parameter_names():
    with pytest.raises(InvalidInput, match="two annotators over two categories") as err:
        raters_model(0.3, 3).pair()
    assert err.value.parameter == "model"
    # two annotators over three categories are not the pair: sized as M annotators, whose
    # psa needs two categories
    with pytest.raises(InvalidInput, match="psa needs two categories") as err:
        find_sample_size(raters_model([0.5, 0.3, 0.2], 2))
    assert err.value.parameter == "metric"
    with pytest.raises(InvalidInput, match="sum to 1"):
        pair_from_ordered([[0.5, 0.2], [0.2, 0.2]])
