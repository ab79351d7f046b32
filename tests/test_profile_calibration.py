"""The calibration study of the profile interval (coverage_study/profile_calibration.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from coverage_study.grid import grid
from coverage_study.profile_calibration import calibrate, cell_statistics


def test_calibrate_counts_each_critical_value_by_hand():
    # W = 1, 5, undefined, 2; t critical value 4.6, ratings' 2.5; signs +, -, +, -
    stat = np.array([1.0, 5.0, np.nan, 2.0])
    crit = {"t": np.full(4, 4.6), "t-ratings": np.full(4, 2.5)}
    out = calibrate(stat, crit, np.array([1.0, -1.0, 1.0, -1.0]))
    chi2 = stats.chi2.ppf(0.95, 1)  # 3.84: covers W = 1 and 2
    assert out["mean_w"] == pytest.approx(8 / 3)
    assert out["t"] == {"coverage": 0.5, "miss_low": 0.0, "miss_high": 0.25}
    assert out["t-ratings"]["coverage"] == 0.5
    assert out["chi2"]["coverage"] == 0.5 and chi2 < 4
    # W / mean(W) <= 3.84 for W <= 10.2: every defined W
    assert out["bartlett-oracle"] == {"coverage": 0.75, "miss_low": 0.0, "miss_high": 0.0}


@pytest.mark.slow
def test_cell_statistics_reproduce_the_interval_coverage_of_the_study():
    # the t calibration at the truth gives the profile interval's coverage of the same studies
    from coverage_study.coverage import simulate_cell
    from coverage_study.methods import multi_methods

    cell = next(c for c in grid("multi")[0] if c.label == "M=3 pi=0.3 fleiss 0.5 bias=±0 U=50")
    stat, crit, sign = cell_statistics(cell, 200, 3)
    fleiss = [m for m in multi_methods(3, 10) if m.key == "fleiss_kappa/profile"]
    (row,) = simulate_cell(cell, fleiss, 200, 3)
    assert calibrate(stat, crit, sign)["t"]["coverage"] == pytest.approx(row.coverage, abs=0.006)


@pytest.mark.slow
def test_kappa_calibration_planner_column_is_the_coverage_study_profile_row():
    # the planner column is agree's Cohen's kappa profile interval: on the same studies it
    # reproduces the study's row (coverage_study/coverage.json) for a cell with few positives
    import json

    from coverage_study.kappa_calibration import cell_coverage

    label = "pi=0.1 kappa 0.2 h=0 U=20"
    rows = json.load(open("coverage_study/coverage.json"))["rows"]  # noqa: SIM115
    (row,) = [
        r
        for r in rows
        if (r["cell"], r["coefficient"], r["method"]) == (label, "cohen_kappa", "profile")
    ]
    cell = next(c for c in grid("two")[0] if c.label == label)
    cov = cell_coverage(cell, row["reps"], 20261201)
    assert cov["planner"] == pytest.approx(row["coverage"], abs=1.5e-3)
    assert cov["planner"] >= cov["t-union"] > cov["chi2"]  # nu <= union - 1: t_nu^2 larger
