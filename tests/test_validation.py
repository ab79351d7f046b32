"""The one per-annotator rule: one value for every annotator, or one each, each checked.

The pair's model (``pair_from_annotators``), its agreement targets (``pair_from_agreement``)
and the several-annotator model (``raters_model``) all take ``error_rate`` and ``bias`` this
way; the properties hold for every count of annotators the models take.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.model import pair_from_annotators
from planner.validation import check_per_annotator

rates = st.floats(0.0, 0.3, allow_nan=False)


@given(count=st.integers(2, 6), value=rates)
def test_one_value_is_every_annotators(count, value):
    assert check_per_annotator("error_rate", value, count) == (value,) * count


@given(values=st.lists(rates, min_size=2, max_size=6))
def test_one_value_each_is_kept_in_order(values):
    assert check_per_annotator("error_rate", values, len(values)) == tuple(values)


@given(count=st.integers(2, 6), length=st.integers(2, 8))
def test_another_length_is_refused_naming_the_parameter(count, length):
    if length == count:
        return
    with pytest.raises(InvalidInput) as caught:
        check_per_annotator("bias", [0.0] * length, count)
    assert caught.value.parameter == "bias" and f"got {length}" in str(caught.value)


@pytest.mark.parametrize("bad", ["0.1", None, {"a": 0.1}, [0.1, "x"], [0.1, 0.7]])
def test_a_value_of_the_wrong_kind_or_range_is_refused(bad):
    with pytest.raises(InvalidInput) as caught:
        check_per_annotator("error_rate", bad, 2)
    assert caught.value.parameter == "error_rate"


@given(error=st.floats(0.001, 0.2), bias=st.floats(-0.5, 0.5), count=st.integers(2, 6))
def test_one_value_or_the_same_value_for_each_is_the_same_model(error, bias, count):
    # the pair's model, and the several-annotator model of ``count`` (a pair at 2)
    assert (
        pair_from_annotators(0.3, error, bias).cells
        == pair_from_annotators(0.3, (error, error), [bias, bias]).cells
    )
    several = raters_model(0.3, count, error_rate=error, bias=bias)
    assert several == raters_model(0.3, count, error_rate=[error] * count, bias=(bias,) * count)


def test_the_pairs_type_error_says_two_numbers():
    with pytest.raises(InvalidInput, match="error_rate must be a number or two numbers, got str"):
        pair_from_annotators(0.1, error_rate="0.1")
