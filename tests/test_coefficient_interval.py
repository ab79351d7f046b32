"""Coefficient.confidence_interval(level): the reported interval at the report's level, and
at another level the interval measure_agreement reports when asked for that level."""

from __future__ import annotations

import math

import numpy as np
import pytest

from planner.data.labels import ratings_from_counts, ratings_from_matrix
from planner.errors import InvalidInput
from planner.measuring.measure import Coefficient, measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from tests.conftest import FLEISS_1971_DIAGNOSES, KRIPPENDORFF_2011


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _ordinal_pair():
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 6, size=80)
    other = np.clip(truth + rng.integers(-1, 2, size=80), 1, 5)
    return ratings_from_matrix(np.column_stack([truth, other]))


CASES = {
    "pair, closed forms": (lambda: ratings_from_counts(6, 21, 14, 459), {"positive": "1"}),
    "pair, fce": (lambda: ratings_from_counts(6, 21, 14, 459), {"kappa_method": "fce"}),
    "pair, bootstrap": (
        lambda: ratings_from_counts(6, 21, 14, 459),
        {"positive": "1", "bootstrap": True, "n_boot": 300},
    ),
    "fleiss 1971": (lambda: ratings_from_matrix(FLEISS_1971_DIAGNOSES), {}),
    "fleiss 1971, bootstrap": (
        lambda: ratings_from_matrix(FLEISS_1971_DIAGNOSES),
        {"bootstrap": True, "n_boot": 200},
    ),
    "krippendorff 2011, ordinal": (
        lambda: ratings_from_matrix(np.array(list(KRIPPENDORFF_2011.values()), float).T),
        {"level": "ordinal"},
    ),
    "ordinal pair, weighted wald": (
        _ordinal_pair,
        {"level": "ordinal", "weights": "quadratic", "weighted_kappa_method": "wald"},
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_interval_at_the_report_level_is_the_reported_interval(case):
    make, options = CASES[case]
    report = measure_agreement(make(), MeasureSettings(**options), rng=7)
    for c in report.coefficients.values():
        low, high = c.confidence_interval(report.confidence_level)
        assert _same(low, c.ci_low) and _same(high, c.ci_high), c.name


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_interval_at_another_level_is_measure_agreements_at_that_level(case):
    make, options = CASES[case]
    report = measure_agreement(make(), MeasureSettings(**options), rng=7)
    again = measure_agreement(make(), MeasureSettings(confidence_level=0.9, **options), rng=7)
    assert set(again.coefficients) == set(report.coefficients)
    for name, c in report.coefficients.items():
        low, high = c.confidence_interval(0.9)
        other = again.coefficients[name]
        assert _same(low, other.ci_low) and _same(high, other.ci_high), name


def test_observed_agreement_at_090_is_the_wilson_interval():
    # independent: Wilson's score interval for 465 agreements in 500 items at z_{0.95}
    c = measure_agreement(ratings_from_counts(6, 21, 14, 459), rng=1).coefficients
    p, n, z = 465 / 500, 500, 1.6448536269514722
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = c["observed_agreement"].confidence_interval(0.9)
    assert low == pytest.approx(center - half, abs=1e-12)
    assert high == pytest.approx(center + half, abs=1e-12)
    pabak = c["pabak"].confidence_interval(0.9)
    assert pabak.low == pytest.approx(2 * low - 1) and pabak.high == pytest.approx(2 * high - 1)


def test_a_wider_level_gives_a_wider_interval():
    report = measure_agreement(ratings_from_matrix(FLEISS_1971_DIAGNOSES), rng=3)
    for c in report.coefficients.values():
        narrow, wide = c.confidence_interval(0.8), c.confidence_interval(0.99)
        assert wide.low <= narrow.low and narrow.high <= wide.high, c.name


def test_no_interval_raises_a_value_error_naming_the_coefficient():
    c = Coefficient("krippendorff_alpha", 0.7, math.nan, math.nan, "none", 50, "no interval")
    with pytest.raises(ValueError, match="krippendorff_alpha has no interval"):
        c.confidence_interval(0.9)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, math.nan])
def test_a_level_outside_0_1_is_refused(level):
    c = measure_agreement(ratings_from_counts(6, 21, 14, 459), rng=1).coefficients["psa"]
    with pytest.raises(InvalidInput, match="confidence_level"):
        c.confidence_interval(level)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--bootstrap", "--n-boot", "200"]])
def test_the_printed_intervals_at_both_levels(extra):
    # `planner agree --json` at 0.95 and at 0.9; the library's coefficients at 0.95 recompute both
    import json

    from typer.testing import CliRunner

    from planner.cli.commands import app

    def printed(level: str) -> dict:
        args = ["agree", "--counts", "6,21,14,459", "--json", "--seed", "4", *extra]
        result = CliRunner().invoke(app, [*args, "--confidence", level])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["coefficients"]

    options = {"bootstrap": True, "n_boot": 200} if extra else {}
    report = measure_agreement(
        ratings_from_counts(6, 21, 14, 459), MeasureSettings(**options), rng=4
    )
    for level, doc in ((0.95, printed("0.95")), (0.9, printed("0.9"))):
        assert set(doc) == set(report.coefficients)
        for name, entry in doc.items():
            low, high = report.coefficients[name].confidence_interval(level)
            interval = entry["interval"]
            assert (low, high) == (interval["lower"], interval["upper"]), (name, level)
