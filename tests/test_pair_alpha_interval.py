"""Krippendorff's alpha of two annotators who rated every item (binary labels).

For such a pair alpha is ``pi + (1 - pi) / (2 n)`` with ``pi`` Scott's pi (Fleiss' kappa of
two annotators, the intraclass kappa), so it estimates the population intraclass kappa;
``agree`` gives it the calibrated Donner-Eliasziw score interval of that kappa. Checked here
against the ``krippendorff`` package, against the identity written out by hand, and by an
independent simulation of its coverage.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.labels import ratings_from_matrix
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.statistics.intervals import kappa_gof_interval


def _codes(a: int, b: int, c: int, d: int) -> np.ndarray:
    """Items x 2 annotators: a both positive, b only the first, c only the second, d neither."""
    first = np.repeat([1.0, 1.0, 0.0, 0.0], [a, b, c, d])
    second = np.repeat([1.0, 0.0, 1.0, 0.0], [a, b, c, d])
    return np.stack([first, second], axis=1)


def _scott_pi(a: int, b: int, c: int, d: int) -> float:
    """Scott's pi written out: (p_o - p_e) / (1 - p_e) with pooled marginals."""
    n = a + b + c + d
    p_o = (a + d) / n
    pi = (2 * a + b + c) / (2 * n)
    p_e = pi**2 + (1 - pi) ** 2
    return (p_o - p_e) / (1 - p_e)


tables = st.tuples(*[st.integers(0, 60)] * 4).filter(
    lambda t: sum(t) >= 2 and t[0] + t[1] + t[2] > 0 and t[1] + t[2] + t[3] > 0
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tables)
def test_pair_alpha_is_scotts_pi_moved_by_one_over_2n(table):
    a, b, c, d = table
    codes = _codes(a, b, c, d)
    report = measure_agreement(ratings_from_matrix(codes), MeasureSettings(n_boot=100), rng=1)
    alpha = report.coefficients["krippendorff_alpha"]
    n = sum(table)
    pi = _scott_pi(*table)
    peer = krippendorff.alpha(reliability_data=codes.T, level_of_measurement="nominal")
    assert alpha.estimate == pytest.approx(peer, abs=1e-9)
    assert alpha.estimate == pytest.approx(pi + (1 - pi) / (2 * n), abs=1e-9)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tables)
def test_pair_alpha_and_fleiss_share_the_intraclass_score_interval(table):
    codes = _codes(*table)
    report = measure_agreement(ratings_from_matrix(codes), MeasureSettings(n_boot=100), rng=1)
    alpha = report.coefficients["krippendorff_alpha"]
    fleiss = report.coefficients["fleiss_kappa"]
    a, b, c, d = table
    ci = kappa_gof_interval([[a, b], [c, d]])
    assert alpha.method == fleiss.method == "intraclass score"
    assert (alpha.ci_low, alpha.ci_high) == pytest.approx((float(ci.low), float(ci.high)))
    assert (fleiss.ci_low, fleiss.ci_high) == pytest.approx((float(ci.low), float(ci.high)))
    if np.isfinite(alpha.ci_low):
        assert alpha.ci_low <= alpha.estimate <= alpha.ci_high + 1e-12


def test_bootstrap_option_keeps_the_item_bootstrap_for_a_pair():
    codes = _codes(6, 21, 14, 459)  # agree --counts 6,21,14,459
    settings_ = MeasureSettings(n_boot=200, bootstrap=True)
    alpha = measure_agreement(ratings_from_matrix(codes), settings_, rng=1).coefficients[
        "krippendorff_alpha"
    ]
    assert alpha.method.startswith("bootstrap")


def _population_alpha(cells: np.ndarray) -> float:
    """Population alpha of two annotators (the limit of many items): 1 - D_o / D_e with
    D_o = b + c and D_e = 2 pi (1 - pi), pi = a + (b + c) / 2."""
    a, b, c, _ = cells
    pi = a + (b + c) / 2
    return 1 - (b + c) / (2 * pi * (1 - pi))


def _exchangeable(prevalence: float, kappa: float) -> np.ndarray:
    """Cells (a, b, c, d) of two exchangeable annotators with this intraclass kappa."""
    s = prevalence * (1 - prevalence)
    both = prevalence**2 + kappa * s
    one = 2 * s * (1 - kappa)
    return np.array([both, one / 2, one / 2, 1 - both - one])


@pytest.mark.slow
@pytest.mark.parametrize(
    "cells",
    [
        _exchangeable(0.3, 0.3),  # where the profile interval covered 0.970 (U = 20)
        _exchangeable(0.05, 0.5),
        np.array([0.03, 0.07, 0.01, 0.89]),  # positive rates 10% and 4%: biased
    ],
    ids=["pi0.3-k0.3", "pi0.05-k0.5", "biased-10-4"],
)
def test_pair_alpha_interval_covers_at_20_union_positives(cells):
    # an independent simulation: 4,000 studies of n = 20 / P(union) items each, the
    # interval agree prints, and the population alpha written out above
    rng = np.random.default_rng(20261203)
    reps = 4000
    n = round(20 / (1 - cells[3]))
    counts = rng.multinomial(n, cells, size=reps).astype(float)
    ci = kappa_gof_interval(counts.reshape(reps, 2, 2))
    truth = _population_alpha(cells)
    covered = (ci.low <= truth) & (truth <= ci.high)
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(covered.mean() - 0.95) <= 0.015, covered.mean()
    assert se < 0.004


def test_few_union_positive_bands_are_the_coverage_study_ranges():
    # each band is the range of the coverage study's score-intraclass cells at both of its
    # ends (coverage_study/coverage.json: 10 and 15, 15 and 20 union positives)
    import json

    from planner.measuring.small_counts import INTRACLASS_FEW_BANDS

    rows = json.load(open("coverage_study/coverage.json"))["rows"]  # noqa: SIM115
    for (_, coef), bands in INTRACLASS_FEW_BANDS.items():
        for below, worst, best in bands:
            values = [
                r["coverage"]
                for r in rows
                if (r["coefficient"], r["method"]) == (coef, "score-intraclass")
                and r["union_positives"] in (below - 5, below)
            ]
            assert len(values) == 24, (coef, below)
            assert (worst, best) == pytest.approx((min(values), max(values)), abs=5e-4)


@pytest.mark.slow
def test_agree_notes_a_pair_below_15_union_positives():
    codes = _codes(3, 5, 4, 200)  # 12 union positives
    report = measure_agreement(ratings_from_matrix(codes), MeasureSettings(n_boot=100), rng=1)
    notes = [n for n in report.notes if "intraclass score interval" in n]
    assert len(notes) == 2  # Fleiss' kappa and alpha
    assert all("at 10-15 union positives" in n and "over-covers" in n for n in notes)
    later = measure_agreement(ratings_from_matrix(_codes(4, 6, 6, 200)), MeasureSettings(), rng=1)
    assert not any("intraclass score interval" in n for n in later.notes)  # 16: in band
