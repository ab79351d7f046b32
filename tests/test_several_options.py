"""Which options ask for the several-annotator plan (``planner.application.several_options``).

``plan`` sizes one annotator pair unless an option describes something a pair is not: the
cases below are written out from the command's documented rule (``plan --help`` and
docs/plan-several-annotators.md), not from the function's code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.application.several_options import asks_for_several

SCENARIOS = Path(__file__).parent.parent / "scenarios"


@pytest.mark.parametrize(
    "options",
    [
        {"annotators": 3},
        {"annotators": 6, "prevalence": "0.1"},
        {"metric": "fleiss"},
        {"metric": "alpha"},
        {"metric": "conger"},
        {"categories": 3},
        {"prevalence": "0.2,0.3,0.5"},
        {"level": "ordinal"},
        {"per_item": 2, "annotators": 4},
        {"confusion": "0.9,0.1;0.2,0.8"},
        {"scenario": str(SCENARIOS / "web-toxicity-three-annotators.toml")},
    ],
)
def test_an_option_a_pair_cannot_have_asks_for_several_annotators(options):
    assert asks_for_several(options)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"annotators": 2, "prevalence": "0.08"},
        {"metric": "psa"},
        {"metric": "kappa"},
        {"metric": "both"},
        {"categories": 2},
        {"scenario": str(SCENARIOS / "unsupported-claims.toml")},
        {"scenario": "no-such-file.toml"},  # the pair's plan reports what is wrong with it
    ],
)
def test_a_pairs_options_stay_the_pairs_plan(options):
    assert not asks_for_several(options)


@given(st.integers(3, 6), st.sampled_from([None, "psa", "kappa", "fleiss", "alpha"]))
def test_any_count_above_two_is_several_whatever_the_metric(count, metric):
    assert asks_for_several({"annotators": count, "metric": metric})
