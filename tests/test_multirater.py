"""Multi-annotator coefficients: published values, peer cross-checks, properties, coverage."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from planner.statistics import alpha as ka
from planner.statistics import multirater as mr


def test_fleiss_1971_diagnoses(diagnoses_counts):
    res = mr.chance_corrected(diagnoses_counts, "fleiss")
    assert float(res.estimate) == pytest.approx(0.4302445, abs=1e-7)  # R irr kappam.fleiss
    assert float(res.standard_error) == pytest.approx(0.05420, abs=5e-6)  # Gwet / irrCAC
    # R irr 0.84.1 prints z = 17.65 (Fleiss-Nee-Landis variance under kappa = 0)
    z = float(res.estimate) / float(mr.fleiss_kappa_null_se(diagnoses_counts))
    assert z == pytest.approx(17.65183, abs=1e-4)
    np.testing.assert_allclose(
        mr.category_kappas(diagnoses_counts), [0.245, 0.245, 0.520, 0.471, 0.566], atol=1e-3
    )


def test_gwet_ac1_reference_values(krippendorff_counts):
    # irrCAC on Krippendorff's C data: AC1 0.77544, SE 0.14295, p_a 0.81818, p_e 0.19032.
    res = mr.chance_corrected(krippendorff_counts, "gwet")
    assert float(res.estimate) == pytest.approx(0.77544, abs=5e-6)
    assert float(res.standard_error) == pytest.approx(0.14295, abs=5e-6)
    assert float(res.p_a) == pytest.approx(0.81818, abs=5e-6)
    assert float(res.p_e) == pytest.approx(0.19032, abs=5e-6)
    # The chapter's 2x2 table as two ratings per item: AC1 0.92311, SE 0.01342.
    counts = np.array([[2, 0]] * 6 + [[1, 1]] * 35 + [[0, 2]] * 459)
    res = mr.chance_corrected(counts, "gwet")
    assert float(res.estimate) == pytest.approx(0.92311, abs=5e-6)
    assert float(res.standard_error) == pytest.approx(0.01342, abs=5e-6)


def test_uebersax_specific_agreement_reduces_to_psa_and_nsa():
    counts = np.array([[2, 0]] * 6 + [[1, 1]] * 35 + [[0, 2]] * 459)
    np.testing.assert_allclose(mr.specific_agreement(counts), [0.255319, 0.963274], atol=1e-6)
    # With complete data it equals Fleiss' P_j, so kappa_j = (p_s - p_j)/(1 - p_j).


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.int64, (30,), elements=st.integers(0, 3)).map(lambda a: a.reshape(-1)),
    st.integers(3, 6),
)
def test_fleiss_matches_statsmodels_on_complete_data(seed_values, m):
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(int(seed_values.sum()) + m)
    counts = rng.multinomial(m, [0.5, 0.3, 0.2], size=40)
    ours = float(mr.fleiss_kappa(counts))
    if np.isfinite(ours):
        assert ours == pytest.approx(fleiss_kappa(counts), abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(2, 5))
def test_alpha_matches_krippendorff_package_with_missing_data(seed, m, k):
    import krippendorff

    rng = np.random.default_rng(seed)
    n = 25
    truth = rng.integers(0, k, n)
    data = np.where(rng.random((n, m)) < 0.7, truth[:, None], rng.integers(0, k, (n, m)))
    data = data.astype(float) + 1  # values 1..k (ratio needs positive values)
    data[rng.random((n, m)) < 0.2] = np.nan
    values = np.arange(1, k + 1, dtype=float)
    counts = np.stack([(data == v).sum(axis=1) for v in values], axis=1)
    present = np.unique(data[~np.isnan(data)])
    if len(present) < 2 or (counts.sum(1) >= 2).sum() < 2:
        return
    for level in ka.LEVELS:
        ours = float(ka.krippendorff_alpha(counts, values, level))
        theirs = krippendorff.alpha(
            reliability_data=data.T, level_of_measurement=level, value_domain=values
        )
        assert ours == pytest.approx(theirs, abs=1e-9), level
    assert float(ka.interval_alpha_from_values(data)) == pytest.approx(
        float(ka.krippendorff_alpha(counts, values, "interval")), abs=1e-9
    )
    assert ka.ratio_alpha_from_values(data, block=3) == pytest.approx(
        float(ka.krippendorff_alpha(counts, values, "ratio")), abs=1e-9
    )


@settings(max_examples=40, deadline=None)
@given(arrays(np.int64, (12, 4), elements=st.integers(0, 3)))
def test_relabelling_categories_and_compressing_items_change_nothing(counts):
    if (counts.sum(axis=1) >= 2).sum() < 2:
        return
    perm = np.array([2, 0, 3, 1])
    rows, mult = mr.compress(counts)
    for fn in (
        lambda c, w=None: mr.chance_corrected(c, "fleiss", multiplicity=w).estimate,
        lambda c, w=None: mr.chance_corrected(c, "gwet", multiplicity=w).standard_error,
        lambda c, w=None: ka.krippendorff_alpha(c, multiplicity=w),
        lambda c, w=None: mr.fleiss_kappa_null_se(c, w),
        # per-category values permute with the categories: compare their sums
        lambda c, w=None: np.nansum(mr.specific_agreement_se(c, w)),
        lambda c, w=None: np.nansum(mr.specific_agreement(c, w)),
    ):
        base = float(fn(counts))
        if not np.isfinite(base):
            continue
        assert float(fn(counts[:, perm])) == pytest.approx(base, abs=1e-12)
        assert float(fn(rows, mult)) == pytest.approx(base, abs=1e-12)
        # items in another order
        assert float(fn(counts[::-1])) == pytest.approx(base, abs=1e-12)


def test_batched_multiplicities_equal_looped(krippendorff_counts):
    rows, mult = mr.compress(krippendorff_counts)
    rng = np.random.default_rng(3)
    draws = rng.multinomial(mult.sum(), mult / mult.sum(), size=5)
    batched = ka.krippendorff_alpha(rows, np.arange(1, 6), "ordinal", multiplicity=draws)
    looped = [
        float(ka.krippendorff_alpha(rows, np.arange(1, 6), "ordinal", multiplicity=d))
        for d in draws
    ]
    np.testing.assert_allclose(batched, looped)
    batched = mr.chance_corrected(rows, "fleiss", multiplicity=draws).standard_error
    looped = [
        float(mr.chance_corrected(rows, "fleiss", multiplicity=d).standard_error) for d in draws
    ]
    np.testing.assert_allclose(batched, looped)


def _beta_binomial_counts(rng, n_items, m, pi, rho):
    """Exchangeable binary annotators: true kappa = alpha = rho (docs/methods/annotator-models.md
    6.3)."""
    tau = 1 / rho - 1
    p = rng.beta(pi * tau, (1 - pi) * tau, size=n_items)
    positives = rng.binomial(m, p)
    return np.stack([positives, m - positives], axis=1)


@pytest.mark.slow
def test_fleiss_gwet_interval_coverage_by_simulation():
    # docs/methods/several-annotators.md 4.1: binary, m = 4, N = 80, kappa = 0.6: Gwet's SE covers
    # about 0.944,
    # the Fleiss-Nee-Landis null SE only about 0.82.
    rng = np.random.default_rng(2024)
    reps = 1500
    covered_gwet = covered_null = 0
    for _ in range(reps):
        counts = _beta_binomial_counts(rng, 80, 4, 0.3, 0.6)
        res = mr.chance_corrected(counts, "fleiss")
        lo, hi = res.confidence_interval(0.95)
        covered_gwet += lo <= 0.6 <= hi
        se0 = mr.fleiss_kappa_null_se(counts)
        covered_null += abs(res.estimate - 0.6) <= 1.96 * se0
    assert abs(covered_gwet / reps - 0.95) < 0.02  # MC SE 0.006
    assert covered_null / reps < 0.88


@pytest.mark.slow
def test_alpha_item_bootstrap_coverage_by_simulation():
    # docs/methods/several-annotators.md 4.4: resampling items covers about 0.93 at pi 0.3, rho
    # 0.6, N = 200, m = 3.
    rng = np.random.default_rng(7)
    reps, n_boot = 400, 500
    covered = 0
    for _ in range(reps):
        counts = _beta_binomial_counts(rng, 200, 3, 0.3, 0.6)
        rows, mult = mr.compress(counts)
        draws = rng.multinomial(mult.sum(), mult / mult.sum(), size=n_boot)
        boot = ka.krippendorff_alpha(rows, multiplicity=draws)
        lo, hi = np.quantile(boot, [0.025, 0.975])
        covered += lo <= 0.6 <= hi
    assert 0.90 <= covered / reps <= 0.975  # MC SE 0.011


def test_specific_agreement_se_matches_delta_method_for_two_annotators():
    # With two annotators the linearised SE of p_s(positive) is the Graham-Bull delta SE
    # (0.08401 on the chapter table) up to the n/(n-1) factor.
    counts = np.array([[2, 0]] * 6 + [[1, 1]] * 35 + [[0, 2]] * 459)
    se = mr.specific_agreement_se(counts)[0]
    assert se == pytest.approx(0.08401 * np.sqrt(500 / 499), abs=2e-5)
