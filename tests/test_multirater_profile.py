"""Profile-likelihood intervals for several annotators (planner.statistics.multirater_profile).

The limits are checked against an independent computation: the multinomial log-likelihood
maximised with scipy's SLSQP under the constraint "coefficient = limit", whose likelihood-ratio
statistic must equal the calibrated critical value t_nu^2 (nu = union positives - 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy import stats as sps

from planner.measuring.measure_settings import MeasureSettings
from planner.statistics import multirater_profile as mp
from planner.statistics.multirater import (
    chance_corrected,
    patterns_from_counts,
    specific_agreement,
)

# three annotators, per-item positives j = 3, 2, 1, 0: every row observed (no pseudo-counts)
ROWS = np.array([[3, 0], [2, 1], [1, 2], [0, 3]], dtype=float)
MULT = np.array([5.0, 4.0, 6.0, 85.0])


def _fleiss_of(p: np.ndarray, m: int = 3) -> float:
    """Fleiss' kappa of row probabilities p_j (j positives of m), written out directly."""
    j = np.arange(m, -1, -1)  # ROWS order: 3, 2, 1, 0 positives
    pi = float(p @ (j / m))
    pa = float(p @ ((j * (j - 1) + (m - j) * (m - j - 1)) / (m * (m - 1))))
    pe = pi**2 + (1 - pi) ** 2
    return (pa - pe) / (1 - pe)


def _specific_of(p: np.ndarray, m: int = 3) -> float:
    j = np.arange(m, -1, -1)
    return float(p @ (j * (j - 1))) / float(p @ (j * (m - 1)))


def _lr_statistic(counts: np.ndarray, fn, value: float) -> float:
    """2 [l(n/N) - max_{p: fn(p) = value} l(p)], by SLSQP on the simplex."""
    n = counts.sum()
    top = float(counts @ np.log(counts / n))

    def neg(p: np.ndarray) -> float:
        return -float(counts @ np.log(np.maximum(p, 1e-300)))

    cons = [
        {"type": "eq", "fun": lambda p: p.sum() - 1},
        {"type": "eq", "fun": lambda p: fn(p) - value},
    ]
    best = np.inf
    for start in (counts / n, np.full(counts.size, 1 / counts.size), (counts + 5) / (n + 20)):
        res = optimize.minimize(
            neg,
            start,
            method="SLSQP",
            bounds=[(1e-12, 1)] * counts.size,
            constraints=cons,
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if res.success:
            best = min(best, res.fun)
    return 2 * (top - -best) if np.isfinite(best) else np.inf


def _critical(union_positives: float) -> float:
    """t_nu^2 with nu = union positives - 1 (the calibrated critical value)."""
    return float(sps.t.ppf(0.975, union_positives - 1) ** 2)


def test_fleiss_limits_have_the_calibrated_likelihood_ratio():
    ci = mp.fleiss_kappa_profile_interval(ROWS, MULT)
    crit = _critical(MULT[:3].sum())  # 15 items with any positive
    for limit in (float(ci.low), float(ci.high)):
        assert _lr_statistic(MULT, _fleiss_of, limit) == pytest.approx(crit, rel=2e-3)
    estimate = float(chance_corrected(ROWS, "fleiss", multiplicity=MULT).estimate)
    assert float(ci.low) < estimate < float(ci.high)


def test_specific_agreement_limits_have_the_calibrated_likelihood_ratio():
    ci = mp.specific_agreement_profile_interval(ROWS, MULT, category=0)
    crit = _critical(MULT[:3].sum())
    for limit in (float(ci.low), float(ci.high)):
        assert _lr_statistic(MULT, _specific_of, limit) == pytest.approx(crit, rel=2e-3)
    assert float(ci.low) < specific_agreement(ROWS, MULT)[0] < float(ci.high)


def test_alpha_interval_equals_fleiss_with_complete_data():
    # with every item rated by all annotators alpha's constraints are M times Fleiss'
    fleiss = mp.fleiss_kappa_profile_interval(ROWS, MULT)
    alpha = mp.alpha_profile_interval(ROWS, MULT)
    assert float(alpha.low) == pytest.approx(float(fleiss.low), abs=1e-6)
    assert float(alpha.high) == pytest.approx(float(fleiss.high), abs=1e-6)


@pytest.mark.slow
def test_unseen_row_gets_mass_like_the_full_multinomial():
    # no item with all three positive: the multinomial over all four rows may still put mass
    # there, and the limits match its likelihood ratio (the 1e-4 pseudo-count costs < 1e-3)
    mult = np.array([0.0, 8.0, 10.0, 82.0])
    ci = mp.fleiss_kappa_profile_interval(ROWS, mult)
    crit = _critical(18)
    seen = mult > 0

    def lr(value: float) -> float:  # SLSQP over all four rows; the empty one adds 0 log p
        n = mult.sum()
        top = float(mult[seen] @ np.log(mult[seen] / n))
        res = optimize.minimize(
            lambda p: -float(mult[seen] @ np.log(np.maximum(p[seen], 1e-300))),
            np.full(4, 0.25),
            method="SLSQP",
            bounds=[(0, 1)] * 4,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": lambda p: _fleiss_of(p) - value},
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return 2 * (top + res.fun)

    for limit in (float(ci.low), float(ci.high)):
        assert lr(limit) == pytest.approx(crit, rel=5e-3)


@pytest.mark.slow
def test_batch_equals_one_at_a_time():
    rng = np.random.default_rng(5)
    mult = rng.multinomial(200, [0.03, 0.04, 0.08, 0.85], size=6).astype(float)
    batch = mp.fleiss_kappa_profile_interval(ROWS, mult)
    for i in range(6):
        one = mp.fleiss_kappa_profile_interval(ROWS, mult[i])
        assert float(one.low) == pytest.approx(batch.low[i], abs=1e-4)
        assert float(one.high) == pytest.approx(batch.high[i], abs=1e-4)


def test_one_category_only_is_undefined():
    ci = mp.fleiss_kappa_profile_interval(ROWS, [0, 0, 0, 50])
    assert np.isnan(ci.low) and np.isnan(ci.high)
    sa = mp.specific_agreement_profile_interval(ROWS, [0, 0, 0, 50], category=0)
    assert np.isnan(sa.low)


def test_patterns_entry_point_and_missing_ratings():
    counts = [[3, 0]] * 5 + [[2, 1]] * 4 + [[1, 2]] * 6 + [[0, 3]] * 85 + [[1, 0]] * 3
    p = patterns_from_counts(counts)
    ci = mp.patterns_profile_interval(p, "fleiss_kappa")
    est = float(chance_corrected(counts, "fleiss").estimate)
    assert float(ci.low) < est < float(ci.high)
    with pytest.raises(ValueError, match="coefficient"):
        mp.patterns_profile_interval(p, "cohen_kappa")


def test_shifted_interval_clips():
    ci = mp.shifted_interval(mp.ConfidenceInterval(np.array([0.2]), np.array([0.95])), 0.1)
    assert ci.low.tolist() == pytest.approx([0.3]) and ci.high.tolist() == [1.0]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=4, max_size=4).filter(lambda c: sum(c[:3]) >= 2))
def test_interval_holds_the_estimate(counts):
    mult = np.array(counts, dtype=float) + np.array([0, 0, 0, 50])
    ci = mp.fleiss_kappa_profile_interval(ROWS, mult)
    est = float(chance_corrected(ROWS, "fleiss", multiplicity=mult).estimate)
    if np.isfinite(ci.low):
        assert -1 <= float(ci.low) <= est + 1e-6 and est - 1e-6 <= float(ci.high) <= 1


@pytest.mark.slow
def test_coverage_at_the_worst_cells():
    """The profile interval covers within 1.5 points of 0.95 where the Gwet t interval
    covered least (coverage_study/coverage.md: 0.849-0.863 at 20 union positives)."""
    from coverage_study.coverage import simulate_cell
    from coverage_study.grid import grid
    from coverage_study.methods import multi_methods

    cells, _ = grid("multi")
    wanted = {"M=3 pi=0.05 fleiss 0.3 bias=±0 U=20", "M=4 pi=0.05 fleiss 0.3 bias=±0.8 U=20"}
    for cell in (c for c in cells if c.label in wanted):
        methods = [
            m
            for m in multi_methods(cell.n_annotators, 10)
            if m.name in ("profile", "profile-shifted")
        ]
        for row in simulate_cell(cell, methods, 1000, 7):
            se = np.sqrt(0.95 * 0.05 / 1000)
            assert abs(row.coverage - 0.95) < 0.015 + 2 * se, (cell.label, row.method)


def test_few_union_positive_bands_are_the_coverage_study_ranges():
    # each band of the notes below 20 union positives is the range of the coverage study's
    # cells at both of its ends (coverage_study/coverage.json: 10 and 15, 15 and 20)
    import json

    from planner.measuring.small_counts import PROFILE_FEW_BANDS

    rows = json.load(open("coverage_study/coverage.json"))["rows"]  # noqa: SIM115
    method = {"conger_kappa": "profile-shifted"}
    for (annotators, coef), bands in PROFILE_FEW_BANDS.items():
        measured = "fleiss_kappa" if (annotators, coef) == ("3+", "krippendorff_alpha") else coef
        for below, worst, best in bands:
            values = [
                r["coverage"]
                for r in rows
                if (r["coefficient"], r["method"]) == (measured, method.get(coef, "profile"))
                and r["regime"].startswith("multi")
                and (r["n_annotators"] >= 3) == (annotators == "3+")
                and r["union_positives"] in (below - 5, below)
            ]
            assert len(values) >= 24, (annotators, coef, below)
            assert (worst, best) == pytest.approx((min(values), max(values)), abs=5e-4)


@pytest.mark.slow
def test_agree_notes_below_20_union_positives_with_three_annotators():
    from planner.data.labels import ratings_from_matrix
    from planner.measuring.measure import measure_agreement

    codes = np.zeros((200, 3))
    codes[:6] = 1  # 6 items all positive, 6 with two, 4 with one: 16 union positives
    codes[6:12, :2] = 1
    codes[12:16, 0] = 1
    report = measure_agreement(ratings_from_matrix(codes), MeasureSettings(n_boot=100), rng=1)
    notes = [n for n in report.notes if "in the coverage study at 15-20 union positives" in n]
    assert len(notes) == 4  # Fleiss, Conger, alpha, specific agreement
    assert all(n.startswith("with 16 union positives the profile-likelihood") for n in notes)
    assert any("interval for Conger's kappa covered" in n for n in notes)
    few = measure_agreement(
        ratings_from_matrix(codes[8:]), MeasureSettings(n_boot=100), rng=1
    )  # 8 union positives
    assert sum("is not measured" in n for n in few.notes) == 4
    fleiss = report.coefficients["fleiss_kappa"]
    ci = mp.patterns_profile_interval(
        patterns_from_counts(np.stack([codes.sum(1), 3 - codes.sum(1)], 1)), "fleiss_kappa"
    )
    assert (fleiss.ci_low, fleiss.ci_high) == pytest.approx((float(ci.low), float(ci.high)))
    pair = measure_agreement(ratings_from_matrix(codes[:, :2]), MeasureSettings(n_boot=100), rng=1)
    assert pair.coefficients["krippendorff_alpha"].method == "intraclass score"
    assert not any("not measured" in n for n in pair.notes)  # a pair's was measured from 10


def _alpha_of_pair(p: np.ndarray) -> float:
    """Population Krippendorff's alpha of a pair from the probabilities of (2, 1, 0)
    positives: 1 - D_o / D_e with D_o = P(1 positive), D_e = 2 pi (1 - pi)."""
    pi = p[0] + p[1] / 2
    return 1 - p[1] / (2 * pi * (1 - pi))


@pytest.mark.slow
def test_incomplete_pair_alpha_is_the_profile_interval_with_the_calibrated_likelihood_ratio():
    # agree --counts 6,21,14,459 (6 items both positive, 35 with one, 459 neither) and 20
    # negative items rated by one annotator only: a complete pair gets the intraclass score
    # interval (test_pair_alpha_interval.py), an incomplete one the profile interval
    from planner.data.labels import ratings_from_matrix
    from planner.measuring.measure import measure_agreement

    codes = np.zeros((520, 2))
    codes[:6] = 1
    codes[6:27, 0] = 1
    codes[27:41, 1] = 1
    codes[500:, 1] = np.nan
    alpha = measure_agreement(ratings_from_matrix(codes), rng=1).coefficients["krippendorff_alpha"]
    assert alpha.method == "profile likelihood, t-calibrated"
    counts = np.array([6.0, 35.0, 459.0])  # items with a single rating carry no pairable value
    crit = _critical(41)  # 41 union positives
    for limit in (alpha.ci_low, alpha.ci_high):
        assert _lr_statistic(counts, _alpha_of_pair, limit) == pytest.approx(crit, rel=2e-3)
    assert alpha.ci_low < alpha.estimate < alpha.ci_high


def test_likelihood_ratio_at_a_value_is_the_constrained_multinomial_maximum():
    for value in (0.2, 0.45, 0.7):
        stat, crit = mp.likelihood_ratio(ROWS, MULT, value)
        assert float(stat) == pytest.approx(_lr_statistic(MULT, _fleiss_of, value), rel=2e-3)
        assert float(crit) == pytest.approx(_critical(MULT[:3].sum()), rel=1e-9)


@pytest.mark.slow
def test_statistic_at_the_truth_decides_coverage_as_the_interval_does():
    # coverage_study/profile_calibration.py reads coverage off W(truth) <= t_nu^2: on
    # simulated studies of three annotators at 20 union positives, each study's interval
    # holds the value exactly when the statistic there is within the critical value
    # (studies within 1e-3 of the boundary, where the root finder's tolerance decides, aside)
    rng = np.random.default_rng(5)
    probs = np.array([0.02, 0.03, 0.06, 0.89])  # 3, 2, 1, 0 positives of three
    mult = rng.multinomial(180, probs, size=300).astype(float)
    truth = 0.35
    ci = mp.fleiss_kappa_profile_interval(ROWS, mult)
    stat, crit = mp.likelihood_ratio(ROWS, mult, np.full(300, truth))
    ok = np.isfinite(stat) & (np.abs(stat - crit) > 1e-3)
    inside = (ci.low <= truth) & (truth <= ci.high)
    assert ok.sum() > 250
    assert np.array_equal(inside[ok], (stat <= crit)[ok])
