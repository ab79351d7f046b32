"""The one sample-size search: every strategy against a brute-force scan of the criterion."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.errors import TargetUnreachable
from planner.sizing.sample_size_search import (
    Evaluations,
    crossing_standard_error,
    first_crossing,
    scan_until_stays,
    smallest_passing,
    smallest_passing_each,
    smallest_passing_near,
    stays_from,
    unreachable_error,
)

thresholds = st.integers(min_value=1, max_value=50_000)
starts = st.integers(min_value=1, max_value=60_000)


def _brute_smallest(passes, max_value):
    """The smallest passing integer by walking up from 1 (the independent answer)."""
    return next((m for m in range(1, max_value + 1) if passes(m)), max_value + 1)


@given(threshold=thresholds, start=starts)
def test_every_monotone_bracket_finds_the_threshold(threshold, start):
    passes = lambda m: m >= threshold  # noqa: E731
    assert smallest_passing(passes, start, 100_000) == threshold
    assert smallest_passing_near(passes, start, 100_000) == threshold
    assert smallest_passing_near(passes, start, 100_000, share=0.3) == threshold
    for share in (None, 0.02, 0.005):
        assert first_crossing(
            lambda m: float(passes(m)), 1.0, start, 100_000, step_share=share
        ).n == (threshold)


@given(
    values=st.lists(st.floats(0, 1), min_size=1, max_size=300).map(sorted),
    target=st.floats(0, 1),
    start=st.integers(1, 400),
)
def test_first_crossing_of_a_monotone_curve_equals_the_scan(values, target, start):
    """A nondecreasing criterion given by a table: the crossing is the brute-force one,
    the curve holds exactly the evaluated sizes, and ``value`` is the criterion there."""
    top = len(values)
    criterion = lambda n: values[n - 1]  # noqa: E731
    found = first_crossing(criterion, target, start, top)
    assert found.n == _brute_smallest(lambda n: criterion(n) >= target, top)
    assert found.reached == (found.n <= top)
    assert found.value == criterion(min(found.n, top))
    assert all(v == criterion(n) for n, v in found.curve)
    assert [n for n, _ in found.curve] == sorted({n for n, _ in found.curve})


def test_unreachable_targets_are_reported_not_raised_by_first_crossing():
    found = first_crossing(lambda n: n / 1000, 0.99, 10, 500)
    assert (found.n, found.reached, found.value) == (501, False, 0.5)
    with pytest.raises(TargetUnreachable, match="^500$"):
        smallest_passing(lambda m: False, 10, 500)
    with pytest.raises(TargetUnreachable, match="^500$"):
        smallest_passing_near(lambda m: False, 10, 500)


def test_evaluations_call_the_criterion_once_per_size():
    calls = []
    values = Evaluations(lambda n: calls.append(n) or n / 100)
    found = first_crossing(values, 0.37, 80, 100)
    assert found.n == 37
    assert sorted(calls) == sorted(set(calls)) == [n for n, _ in values.curve]


@pytest.mark.slow
@given(
    thresholds=st.lists(st.integers(1, 5000), min_size=1, max_size=20),
    high=st.integers(1, 6000),
)
def test_vectorised_bisection_equals_one_search_per_member(thresholds, high):
    limit = np.array(thresholds)
    got = smallest_passing_each(
        lambda n: n >= limit, np.zeros(limit.size), np.full(limit.size, high), 4000
    )
    want = [t if t <= 4000 else 4001 for t in thresholds]
    assert got.tolist() == want


def test_the_scan_plans_the_size_from_which_a_sawtooth_stays_above_the_target():
    # passes from 40 on except at 41, 45, 60: a monotone search would stop at 40
    dips = {41, 45, 60}
    criterion = lambda n: 0.9 if n >= 40 and n not in dips else 0.7  # noqa: E731
    scan = scan_until_stays(criterion, 0.8, range(10, 10_000), 10_000)
    assert scan.first_crossing == 40
    assert scan.searched_to == 90  # max(2 * 40, 40 + 50)
    assert stays_from(scan.evaluated, 0.8) == 61
    assert set(scan.evaluated) == set(range(10, 91))


def test_the_scan_extends_while_the_last_size_misses_and_stops_at_max_value():
    # reaches 0.8 at 40, misses at 90 and at 180, passes again at 360
    criterion = lambda n: 0.9 if n == 40 or n >= 300 else 0.5  # noqa: E731
    scan = scan_until_stays(criterion, 0.8, range(1, 1000), 1000)
    assert (scan.first_crossing, scan.searched_to) == (40, 360)
    never = scan_until_stays(lambda n: 0.1, 0.8, range(1, 200), 199)
    assert (never.first_crossing, never.searched_to, never.last_value) == (None, 199, 0.1)


def test_crossing_standard_error_is_the_assurance_se_over_its_slope():
    # A(n) = n / 1000 near n = 500 on R = 400 studies: se = sqrt(.25 / 400) / 0.001 = 25 items
    assert crossing_standard_error(lambda n: n / 1000, 500, 400) == pytest.approx(25.0)
    assert np.isnan(crossing_standard_error(lambda n: 0.5, 500, 400))


def test_an_unreachable_target_names_the_width_assurance_and_max_items():
    # the search's message: what was searched, how far it got, what to change
    err = unreachable_error("psa", 0.01, 0.5, 1000, 0.1234)
    assert str(err) == (
        "width 0.01 for psa is not reached with assurance 0.5 even at max_items 1000: the "
        "share of studies that reach it there is 0.123; widen width, lower assurance or "
        "raise max_items"
    )
    assert err.parameters == ("width", "assurance", "max_items")
    # a pilot's hybrid assurance, no metric named and no share known
    hybrid = unreachable_error(None, 0.05, 0.8, 500, criterion="hybrid assurance")
    assert (
        str(hybrid) == "width 0.05 is not reached with hybrid assurance 0.8 even at max_items 500"
    )
