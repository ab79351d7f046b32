"""Growing studies kept as reduced features (planner.sizing.studies.GrowingReducedStudies),
the draw behind the Alt-Test's search."""

from __future__ import annotations

import numpy as np
import pytest

from planner.sizing.studies import CLASS_GROUP, GrowingReducedStudies


def test_growing_studies_contain_the_smaller_ones_and_keep_the_multinomial_mean():
    p = np.array([0.5, 0.3, 0.2])
    reduce = np.array([[1, 0], [0, 1], [1, 1]])  # features: classes 0+2 and 1+2
    studies = GrowingReducedStudies(p, reduce, 4000, rng=3)
    small = studies.grow(40).copy()
    big = studies.grow(100)
    assert (big >= small).all()
    # E[counts @ reduce] = n p @ reduce; SE of a mean of 4,000 binomial counts < 0.13
    assert big.mean(axis=0) == pytest.approx(100 * p @ reduce, abs=0.5)
    with pytest.raises(ValueError, match="grow only"):
        studies.grow(50)


def test_classes_beyond_one_group_keep_the_law_of_each_class():
    c = CLASS_GROUP + 500
    p = np.full(c, 1.0 / c)
    reduce = np.zeros((c, 2))
    reduce[:CLASS_GROUP, 0] = 1  # the first group's classes
    reduce[CLASS_GROUP:, 1] = 1
    state = GrowingReducedStudies(p, reduce, 3000, rng=1).grow(200)
    share = CLASS_GROUP / c
    assert (state.sum(axis=1) == 200).all()
    # binomial(200, share): SE of the mean over 3,000 studies ~ 0.12
    assert state[:, 0].mean() == pytest.approx(200 * share, abs=0.5)
    assert state[:, 0].var() == pytest.approx(200 * share * (1 - share), rel=0.1)


def test_the_numbers_depend_on_the_seed_only():
    p, reduce = [0.6, 0.4], np.eye(2)
    a = GrowingReducedStudies(p, reduce, 2500, rng=7)
    a.grow(30)
    b = GrowingReducedStudies(p, reduce, 2500, rng=7)
    assert (a.grow(90) == b.grow(90)).sum() < a.state.size  # the path changes the draw
    c = GrowingReducedStudies(p, reduce, 2500, rng=7)
    c.grow(30)
    assert (c.grow(90) == a.state).all()
