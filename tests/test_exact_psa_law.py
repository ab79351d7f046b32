"""The exact law of a PSA interval's half-width: its assurance is the exact assurance's
sum, and its quantiles count the studies without union positives as infinitely wide, as
simulated studies do."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import InvalidInput
from planner.sizing.exact import (
    exact_psa_assurance,
    exact_psa_law,
    half_width_quantiles,
    usable_half_width,
)
from planner.sizing.model import pair_from_counts
from planner.statistics.intervals import psa_interval


@settings(max_examples=40, deadline=None)
@given(
    cells=st.sampled_from([[30, 10, 10, 950], [5, 3, 2, 990], [200, 50, 40, 710], [2, 1, 1, 96]]),
    n=st.integers(min_value=1, max_value=3000),
    width=st.floats(min_value=0.02, max_value=0.5),
    method=st.sampled_from(["wilson", "clopper-pearson", "jeffreys"]),
)
@pytest.mark.slow
def test_the_laws_assurance_is_the_exact_assurance(cells, n, width, method):
    model = pair_from_counts(cells)
    law = exact_psa_law(model, n, 0.95, method)
    assert law.assurance(width) == pytest.approx(
        exact_psa_assurance(model, n, width, 0.95, method), abs=1e-9
    )


def test_studies_without_union_positives_are_the_laws_widest():
    # union rate 0.01: at 30 items P(U = 0) = 0.99^30 = 0.74, so the median study has no
    # interval. P(U >= 2) = 0.036 and, given one union positive, a = 1 with J = 0.5
    # (P = 0.112, the narrower of U = 1's intervals): the p10 is the table [[1, 0], [0, 0]]
    model = pair_from_counts([5, 3, 2, 990])
    law = exact_psa_law(model, 30)
    assert law.no_interval == pytest.approx(0.99**30)
    assert law.cumulative[-1] == pytest.approx(1 - 0.99**30, abs=1e-12)
    p10, p50, p90 = law.quantiles((0.1, 0.5, 0.9))
    assert p50 == p90 == np.inf
    assert p10 == pytest.approx(psa_interval(np.array([[1, 0], [0, 0]])).half_width)


def test_the_laws_quantiles_match_simulated_studies_where_few_have_an_interval():
    model = pair_from_counts([20, 10, 10, 960])  # union rate 0.04: P(U = 0) at 40 items 0.195
    rng = np.random.default_rng(5)
    tables = rng.multinomial(40, np.asarray(model.cells, float).ravel(), size=20_000)
    hw = usable_half_width(psa_interval(tables.reshape(-1, 2, 2)).half_width)
    law = exact_psa_law(model, 40)
    for q, exact in zip((0.1, 0.5, 0.9), law.quantiles((0.1, 0.5, 0.9)), strict=True):
        assert exact == pytest.approx(float(np.quantile(hw, q, method="inverted_cdf")), rel=0.02)
    assert law.quantiles((0.9,)) == [np.inf]


def test_the_laws_assurance_refuses_a_width_that_is_not_a_number():
    law = exact_psa_law(pair_from_counts([30, 10, 10, 950]), 200)
    with pytest.raises(InvalidInput) as refused:
        law.assurance(float("nan"))
    assert refused.value.parameter == "width"


half_widths = st.lists(
    st.one_of(st.floats(0.001, 1.0), st.just(float("nan")), st.just(0.0)), min_size=1, max_size=60
)


@settings(max_examples=200, deadline=None)
@given(values=half_widths, q=st.floats(0.01, 0.99))
def test_simulated_half_width_quantiles_are_order_statistics_with_undefined_widest(values, q):
    # the empirical quantile: the ceil(q n)-th smallest half-width, undefined (NaN) and zero
    # widths counted as infinite; inf where that study has no usable interval, never NaN
    hw = np.array(values)
    usable = np.sort(np.where(np.isnan(hw) | (hw == 0), np.inf, hw))
    expected = usable[int(np.ceil(q * len(hw) - 1e-9)) - 1]
    (got,) = half_width_quantiles(hw, (q,))
    assert not np.isnan(got)
    assert got == expected
