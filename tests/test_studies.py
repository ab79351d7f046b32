"""The one simulation of studies as pattern counts: law, nesting, and the pair as M = 2."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from planner.sizing.annotator_model import raters_model
from planner.sizing.studies import (
    ROW_BY_ROW_COLUMNS,
    NestedPatternStudies,
    NestedStudies,
    multivariate_hypergeometric,
    simulate_pattern_counts,
    simulate_tables,
)
from planner.sizing.study_intervals import pattern_space, study_intervals
from planner.statistics.ordered_kappas import mean_pairwise_kappa_patterns

PATTERNS = np.array([0.30, 0.05, 0.10, 0.15, 0.25, 0.15])


def test_a_pairs_tables_are_its_four_pattern_counts():
    cells = [0.05, 0.04, 0.03, 0.88]
    np.testing.assert_array_equal(
        simulate_tables(cells, 300, 2500, rng=7).reshape(-1, 4),
        simulate_pattern_counts(cells, 300, 2500, rng=7),
    )
    pair = NestedStudies(cells, 2500, rng=8)
    patterns = NestedPatternStudies(cells, 2500, rng=8, keep_every_size=True)
    for n in (400, 90, 1000, 250):
        np.testing.assert_array_equal(pair.tables(n).reshape(-1, 4), patterns.counts(n))


@pytest.mark.parametrize("keep_every_size", [False, True])
@pytest.mark.parametrize("order", [(2000, 300), (100, 2000, 300), (50, 100, 1500, 700, 300)])
def test_nested_counts_at_any_size_have_the_multinomial_law(keep_every_size, order):
    """Whatever sizes were read before, and whichever are kept, the counts at 300 items are
    Multinomial(300, p): mean n p and covariance n (diag(p) - p p^T) within Monte Carlo error."""
    reps = 20_000
    studies = NestedPatternStudies(PATTERNS, reps, rng=sum(order), keep_every_size=keep_every_size)
    for n in order:
        studies.counts(n)
    t = studies.counts(300).astype(float)
    assert np.all(t.sum(axis=1) == 300)
    p = PATTERNS
    assert np.all(np.abs(t.mean(axis=0) - 300 * p) < 4 * np.sqrt(300 * p * (1 - p) / reps))
    true_cov = 300 * (np.diag(p) - np.outer(p, p))
    v = np.diag(true_cov)
    assert np.all(np.abs(np.cov(t.T) - true_cov) < 5 * np.sqrt(np.outer(v, v) / reps))


def test_every_size_kept_gives_nested_studies_in_any_reading_order():
    studies = NestedPatternStudies(PATTERNS, 1500, rng=3, keep_every_size=True, dtype=np.int64)
    sizes = [1000, 100, 10_000, 550, 3000, 0, 1]
    counts = {n: studies.counts(n) for n in sizes}
    ordered = sorted(sizes)
    for small, big in zip(ordered, ordered[1:], strict=False):
        assert np.all(counts[small] <= counts[big])
    assert counts[550].dtype == np.int64


def test_bad_probabilities_and_sizes_are_refused():
    with pytest.raises(ValueError, match="probabilities"):
        simulate_pattern_counts([0.5, 0.6], 10, 10)
    with pytest.raises(ValueError, match="n_items"):
        simulate_pattern_counts(PATTERNS, -1, 10)
    with pytest.raises(ValueError, match="replicates"):
        NestedPatternStudies(PATTERNS, 0, rng=1)


@pytest.mark.slow
def test_wide_subsamples_row_by_row_have_the_multivariate_hypergeometric_law():
    """Past ROW_BY_ROW_COLUMNS columns (the ordered patterns of several annotators) each row
    is subsampled by numpy's own draw: counts within the row's colours, ``nsample`` in all,
    and mean ``nsample * colors / total`` within Monte Carlo error."""
    cols = ROW_BY_ROW_COLUMNS + 6
    colors = np.zeros((4000, cols), dtype=np.int64)
    colors[:, :6] = [30, 0, 12, 5, 40, 13]  # 100 items in six used patterns, the rest empty
    out = multivariate_hypergeometric(np.random.default_rng(11), colors, 25)
    assert np.all((0 <= out) & (out <= colors)) and np.all(out.sum(axis=1) == 25)
    p = colors[0, :6] / 100
    # variance of a hypergeometric count: n p (1 - p) (N - n) / (N - 1)
    sd = np.sqrt(25 * p * (1 - p) * 75 / 99 / 4000)
    assert np.all(np.abs(out[:, :6].mean(axis=0) - 25 * p) <= 4 * sd + 1e-12)


def test_ordered_pattern_intervals_ignore_patterns_no_study_uses():
    """The mean pairwise kappa of studies whose counts sit on a few of the K^M ordered
    patterns equals the one computed over every pattern (zero counts add nothing)."""
    model = raters_model([0.4, 0.3, 0.3], 4, error_rate=0.2)
    patterns, probs = pattern_space(model, "kappa")
    counts = simulate_pattern_counts(probs, 12, 5, rng=2)
    assert not counts.any(axis=0).all()  # some of the 81 patterns unused
    narrow = study_intervals("kappa", patterns, counts, n_categories=3)
    est, se, n = mean_pairwise_kappa_patterns(patterns, 3, counts.astype(float))
    np.testing.assert_allclose(narrow.estimate, est, rtol=1e-12)
    t = stats.t.ppf(0.975, n - 1)
    np.testing.assert_allclose(narrow.half_width, t * se, rtol=1e-12)


def test_studies_with_a_truth_each_follow_their_own_row():
    """One truth per study (posterior draws): study r's counts have mean n p_r, and a
    study grown from one stream is the generator's own multinomial draw of that row."""
    rows = np.where(np.arange(4000)[:, None] % 2 == 0, [0.7, 0.1, 0.1, 0.1], [0.1, 0.2, 0.3, 0.4])
    studies = NestedPatternStudies(rows, 4000, rng=9, keep_every_size=True, one_stream=True)
    counts = studies.counts(200).astype(float)
    for parity in (0, 1):
        p = rows[parity]
        mean = counts[parity::2].mean(axis=0)
        assert np.all(np.abs(mean - 200 * p) < 4 * np.sqrt(200 * p * (1 - p) / 2000))
    np.testing.assert_array_equal(
        studies.counts(200), np.random.default_rng(9).multinomial(200, rows)
    )
    smaller = studies.counts(50)
    assert np.all(smaller <= studies.counts(200)) and np.all(smaller.sum(axis=1) == 50)
    with pytest.raises(ValueError, match="one row"):
        NestedPatternStudies(rows[:10], 4000, rng=1)
