"""Agreement coefficients: published values, peer cross-checks and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from planner.statistics import agreement as ag

tables_2x2 = arrays(np.int64, (2, 2), elements=st.integers(0, 500)).filter(lambda t: t.sum() > 0)


def test_chapter_table_reference_values(chapter_table):
    # Seed 001 (the PSA chapter) and docs/methods/two-annotators.md 1.1 "Check on the table".
    assert ag.positive_agreement(chapter_table) == pytest.approx(0.255319, abs=1e-6)
    assert ag.negative_agreement(chapter_table) == pytest.approx(0.963274, abs=1e-6)
    assert ag.cohen_kappa(chapter_table) == pytest.approx(0.219447, abs=1e-6)
    assert ag.observed_agreement(chapter_table) == pytest.approx(0.930)
    assert ag.pabak(chapter_table) == pytest.approx(0.860)
    assert ag.prevalence_index(chapter_table) == pytest.approx(-0.906)
    assert ag.bias_index(chapter_table) == pytest.approx(0.014)
    assert ag.jaccard(chapter_table) == pytest.approx(0.146341, abs=1e-6)
    assert ag.union_positives(chapter_table) == 41


def test_lecture_worked_examples():
    # Seed 000 (Lecture 8), worked examples 1 and 2. The lecture writes A2 in rows and A1
    # in columns; kappa is symmetric, so the orientation does not matter.
    assert round(float(ag.cohen_kappa([[7, 4], [8, 81]])), 3) == 0.471
    assert float(ag.cohen_kappa([[49, 1], [1, 49]])) == pytest.approx(0.96)
    # Quick check: p_o = 0.5 with 50/50 marginals gives kappa 0.
    assert float(ag.cohen_kappa([[25, 25], [25, 25]])) == pytest.approx(0.0)


def test_agree_specific_agreement_example():
    # Agree's (Uebersax) example table [[106, 38], [38, 118]]: positive agreement 0.7564.
    # There the positive category is the second one (118 joint positives): 2*118/312.
    # planner puts the positive category first, so the same table reads [[118, 38], [38, 106]].
    assert ag.positive_agreement([[118, 38], [38, 106]]) == pytest.approx(0.7564, abs=1e-4)
    assert ag.negative_agreement([[106, 38], [38, 118]]) == pytest.approx(0.7564, abs=1e-4)


def test_sas_kappa_example_three_categories():
    # statsmodels' SAS reference for Cohen's kappa: [[0,4,1],[0,8,0],[0,1,5]] -> 0.4842.
    assert ag.cohen_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]]) == pytest.approx(0.4842, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, (4, 4), elements=st.integers(0, 60)).filter(lambda t: t.sum() > 1))
def test_cohen_kappa_matches_statsmodels(table):
    from statsmodels.stats.inter_rater import cohens_kappa

    ours = float(ag.cohen_kappa(table))
    for weights, wt in [(None, None), ("linear", "linear"), ("quadratic", "quadratic")]:
        ours = float(ag.cohen_kappa(table, weights=weights))
        if not np.isfinite(ours):
            continue
        theirs = cohens_kappa(table, wt=wt, return_results=False)
        assert ours == pytest.approx(theirs, abs=1e-10)


@given(tables_2x2)
def test_psa_and_kappa_symmetric_in_annotators(table):
    swapped = table.T
    for stat in (ag.positive_agreement, ag.negative_agreement, ag.cohen_kappa, ag.jaccard):
        np.testing.assert_equal(stat(table), stat(swapped))
    assert ag.bias_index(swapped) == pytest.approx(-ag.bias_index(table))


@given(tables_2x2)
def test_byrt_identity(table):
    # kappa = (PABAK - PI^2 + BI^2) / (1 - PI^2 + BI^2)  (docs/methods/two-annotators.md 1.1)
    kappa = ag.cohen_kappa(table)
    pi, bi = ag.prevalence_index(table), ag.bias_index(table)
    den = 1 - pi**2 + bi**2
    if np.isfinite(kappa) and den > 1e-9:
        assert kappa == pytest.approx((ag.pabak(table) - pi**2 + bi**2) / den, abs=1e-9)


@pytest.mark.slow
@given(tables_2x2)
def test_psa_is_f1_of_one_annotator_against_the_other(table):
    a, b, c, _ = (float(x) for x in table.ravel())
    if a > 0:
        precision, recall = a / (a + b), a / (a + c)
        f1 = 2 * precision * recall / (precision + recall)
        assert ag.positive_agreement(table) == pytest.approx(f1)


@pytest.mark.slow
@given(st.lists(tables_2x2, min_size=1, max_size=8))
def test_vectorised_equals_looped(tables):
    stack = np.stack(tables)
    for stat in (ag.positive_agreement, ag.cohen_kappa, ag.pabak, ag.prevalence_index):
        looped = np.array([stat(t) for t in tables])
        np.testing.assert_array_equal(stat(stack), looped)


def test_perfect_agreement_and_degenerate_tables():
    assert ag.positive_agreement([[10, 0], [0, 90]]) == 1.0
    assert ag.cohen_kappa([[10, 0], [0, 90]]) == 1.0
    # Nobody flags anything: PSA and kappa are undefined (NaN), NSA is 1.
    assert np.isnan(ag.positive_agreement([[0, 0], [0, 50]]))
    assert np.isnan(ag.cohen_kappa([[0, 0], [0, 50]]))
    assert ag.negative_agreement([[0, 0], [0, 50]]) == 1.0


def test_bad_tables_raise():
    with pytest.raises(ValueError, match="shape"):
        ag.cohen_kappa([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        ag.cohen_kappa([[1, -1], [0, 2]])
    with pytest.raises(ValueError, match="2, 2"):
        ag.positive_agreement(np.ones((3, 3)))
