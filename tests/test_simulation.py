"""Simulated studies: distribution, reproducibility and independence from memory knobs."""

from __future__ import annotations

import numpy as np
import pytest

from planner.sizing.studies import BLOCK_SIZE, NestedStudies, simulate_tables

CELLS = (0.05, 0.04, 0.03, 0.88)


def test_tables_have_the_multinomial_moments():
    n, reps = 400, 20_000
    tables = simulate_tables(CELLS, n, reps, rng=1).reshape(reps, 4)
    assert np.all(tables.sum(axis=1) == n)
    p = np.array(CELLS)
    mean_se = np.sqrt(n * p * (1 - p) / reps)
    assert np.all(np.abs(tables.mean(axis=0) - n * p) < 4 * mean_se)
    assert np.allclose(tables.var(axis=0), n * p * (1 - p), rtol=0.05)


def test_blocks_at_once_never_changes_the_answer():
    a = simulate_tables(CELLS, 250, 3500, rng=42, blocks_at_once=1)
    b = simulate_tables(CELLS, 250, 3500, rng=42, blocks_at_once=4)
    np.testing.assert_array_equal(a, b)


def test_first_block_does_not_depend_on_how_many_replicates():
    small = simulate_tables(CELLS, 250, BLOCK_SIZE, rng=42)
    large = simulate_tables(CELLS, 250, 3 * BLOCK_SIZE, rng=42)
    np.testing.assert_array_equal(small, large[:BLOCK_SIZE])


def test_same_seed_same_tables_different_seed_different_tables():
    np.testing.assert_array_equal(
        simulate_tables(CELLS, 100, 10, rng=3), simulate_tables(CELLS, 100, 10, rng=3)
    )
    assert not np.array_equal(
        simulate_tables(CELLS, 100, 10, rng=3), simulate_tables(CELLS, 100, 10, rng=4)
    )


def test_nested_studies_are_nested():
    studies = NestedStudies(CELLS, 2500, rng=5)
    sizes = [1000, 100, 10_000, 550, 3000, 0, 1]
    tables = {n: studies.tables(n).reshape(-1, 4) for n in sizes}
    ordered = sorted(sizes)
    for small, big in zip(ordered, ordered[1:], strict=False):
        assert np.all(tables[small] <= tables[big])
        assert np.all(tables[small].sum(axis=1) == small)
    np.testing.assert_array_equal(studies.tables(550).reshape(-1, 4), tables[550])


@pytest.mark.parametrize("order", [(2000, 300), (300, 2000), (100, 2000, 300)])
def test_bridged_sizes_have_the_multinomial_law(order):
    # Whatever order the sizes are asked in, the tables at 300 items are Multinomial(300, p).
    reps = 20_000
    studies = NestedStudies(CELLS, reps, rng=sum(order))
    for n in order:
        studies.tables(n)
    t = studies.tables(300).reshape(reps, 4)
    p = np.array(CELLS)
    assert np.all(np.abs(t.mean(axis=0) - 300 * p) < 4 * np.sqrt(300 * p * (1 - p) / reps))
    # covariance n (diag(p) - p p^T); the SE of a sample covariance is about
    # sqrt(v_i v_j / reps), sqrt(2) times that on the diagonal
    true_cov = 300 * (np.diag(p) - np.outer(p, p))
    v = np.diag(true_cov)
    assert np.all(np.abs(np.cov(t.T) - true_cov) < 5 * np.sqrt(np.outer(v, v) / reps))


def test_bad_arguments():
    with pytest.raises(ValueError, match="cells"):
        simulate_tables((0.5, 0.5), 10, 10)
    with pytest.raises(ValueError, match="replicates"):
        simulate_tables(CELLS, 10, 0)
    with pytest.raises(ValueError, match="n_items"):
        NestedStudies(CELLS, 10, rng=1).tables(-1)
