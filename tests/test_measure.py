"""measure_agreement: published values end to end, decisions, degenerate data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from planner.data.labels import ratings_from_counts, ratings_from_matrix
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import ratings_from_wide
from planner.errors import InvalidInput
from planner.measuring.decision import decide
from planner.measuring.diagnostics import contested_rows
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document
from tests.conftest import FLEISS_1971_DIAGNOSES, KRIPPENDORFF_2011


def _krippendorff_ratings():
    return ratings_from_wide(
        pd.DataFrame(KRIPPENDORFF_2011).astype("Float64"), ReaderSettings(item_col=None)
    )


@pytest.mark.parametrize(
    ("level", "expected"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_values_end_to_end(level, expected):
    report = measure_agreement(_krippendorff_ratings(), MeasureSettings(level=level), rng=1)
    alpha = report.coefficients["krippendorff_alpha"]
    assert round(alpha.estimate, 3) == expected
    assert alpha.ci_low < alpha.estimate < alpha.ci_high
    assert 0 <= report.summary["alpha_below_min"]["probability"] <= 1


def test_fleiss_1971_end_to_end():
    report = measure_agreement(ratings_from_matrix(FLEISS_1971_DIAGNOSES), rng=1)
    fleiss = report.coefficients["fleiss_kappa"]
    assert fleiss.estimate == pytest.approx(0.4302445, abs=1e-7)
    # t interval with Gwet's SE 0.05420 on 29 degrees of freedom
    assert (fleiss.ci_high - fleiss.ci_low) / 2 == pytest.approx(2.04523 * 0.05420, abs=2e-4)
    assert report.summary["fleiss_kappa_test_zero"]["z"] == pytest.approx(17.65183, abs=1e-4)


def test_chapter_table_end_to_end():
    report = measure_agreement(ratings_from_counts(6, 21, 14, 459), rng=3)
    c = report.coefficients
    assert c["psa"].estimate == pytest.approx(0.255319, abs=1e-6)
    assert (c["psa"].ci_low, c["psa"].ci_high) == pytest.approx((0.1288, 0.4429), abs=1e-4)
    assert c["nsa"].estimate == pytest.approx(0.963274, abs=1e-6)
    assert c["cohen_kappa"].estimate == pytest.approx(0.219447, abs=1e-6)
    # Default: the score interval for Cohen's kappa, checked against statsmodels'
    # variance in tests/test_kappa_intervals.py; here its label and the FCE reference.
    assert c["cohen_kappa"].method.endswith("for Cohen's kappa")
    assert c["cohen_kappa"].ci_low < c["cohen_kappa"].estimate < c["cohen_kappa"].ci_high
    fce = measure_agreement(
        ratings_from_counts(6, 21, 14, 459), MeasureSettings(kappa_method="fce"), rng=3
    )
    # docs/methods/two-annotators.md 1.3: Wald with the FCE SE 0.08625, (0.0504, 0.3885).
    assert (fce.coefficients["cohen_kappa"].ci_low, fce.coefficients["cohen_kappa"].ci_high) == (
        pytest.approx((0.0504, 0.3885), abs=1e-4)
    )
    assert c["gwet_ac1"].estimate == pytest.approx(0.92311, abs=1e-5)
    assert c["pabak"].estimate == pytest.approx(0.86)
    s = report.summary
    assert (s["joint_positives"], s["union_positives"]) == (6, 41)
    assert s["prevalence_index"] == pytest.approx(-0.906)
    assert s["bias_index"] == pytest.approx(0.014)
    assert s["positive_rate_by_annotator"] == pytest.approx({"A": 0.054, "B": 0.04})
    # The chapter: alpha "lands within a couple of hundredths of the kappa".
    assert abs(c["krippendorff_alpha"].estimate - c["cohen_kappa"].estimate) < 0.02
    # The interval straddles both thresholds: the decision reads the interval.
    assert report.decision.verdict == "inconclusive"


def test_sas_reference_cohen_kappa_three_categories():
    # statsmodels' SAS printout: [[0,4,1],[0,8,0],[0,1,5]] -> kappa 0.4842, ASE 0.1380,
    # 95 % limits 0.2137 to 0.7547; linear weights 0.4701.
    rows = []
    for i, row in enumerate([[0, 4, 1], [0, 8, 0], [0, 1, 5]]):
        for j, n in enumerate(row):
            rows += [[i, j]] * n
    report = measure_agreement(
        ratings_from_matrix(rows), MeasureSettings(kappa_method="fce"), rng=1
    )
    kappa = report.coefficients["cohen_kappa"]
    assert kappa.estimate == pytest.approx(0.4842, abs=1e-4)
    assert (kappa.ci_low, kappa.ci_high) == pytest.approx((0.2137, 0.7547), abs=1e-4)
    from planner.statistics.agreement import cohen_kappa

    assert cohen_kappa(np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]]), "linear") == pytest.approx(
        0.4701, abs=1e-4
    )


@pytest.mark.slow
def test_decisions_read_the_interval():
    assert decide("psa", 0.8, 0.7, 0.9, 0.4, 0.65).verdict == "demonstrated"
    assert decide("psa", 0.2, 0.1, 0.35, 0.4, 0.65).verdict == "not demonstrated"
    assert decide("psa", 0.7, 0.6, 0.8, 0.4, 0.65).verdict == "inconclusive"  # point above
    good = measure_agreement(ratings_from_counts(400, 20, 20, 2000), rng=1)
    assert good.decision.verdict == "demonstrated"
    bad = measure_agreement(ratings_from_counts(20, 200, 200, 2000), rng=1)
    assert bad.decision.verdict == "not demonstrated"


@pytest.mark.slow
def test_degenerate_data_never_crashes():
    one_category = measure_agreement(ratings_from_matrix([["x", "x"]] * 10), rng=1)
    kappa = one_category.coefficients["cohen_kappa"]
    assert math.isnan(kappa.estimate) and "one category" in kappa.note
    assert any("chance-corrected coefficients are undefined" in n for n in one_category.notes)
    perfect = measure_agreement(ratings_from_counts(10, 0, 0, 90), rng=1)
    assert perfect.coefficients["cohen_kappa"].estimate == 1.0
    assert perfect.coefficients["psa"].estimate == 1.0
    no_positive = measure_agreement(ratings_from_counts(0, 0, 0, 50), rng=1)
    assert math.isnan(no_positive.coefficients["psa"].estimate)
    assert "no item was flagged" in no_positive.coefficients["psa"].note
    doc = agreement_document(no_positive)
    assert doc["coefficients"]["psa"]["estimate"] is None  # NaN -> null in JSON


@pytest.mark.slow
def test_same_seed_same_report_and_bootstrap_everywhere():
    ratings = _krippendorff_ratings()
    a = agreement_document(measure_agreement(ratings, MeasureSettings(bootstrap=True), rng=5))
    b = agreement_document(measure_agreement(ratings, MeasureSettings(bootstrap=True), rng=5))
    assert a == b
    assert all("bootstrap" in c["interval"]["method"] for c in a["coefficients"].values())


def test_permuting_annotators_leaves_values_unchanged():
    frame = pd.DataFrame(KRIPPENDORFF_2011).astype("Float64")
    forward = measure_agreement(ratings_from_wide(frame, ReaderSettings(item_col=None)), rng=2)
    reverse = measure_agreement(
        ratings_from_wide(frame[frame.columns[::-1]], ReaderSettings(item_col=None)), rng=2
    )
    for name, coef in forward.coefficients.items():
        assert coef.estimate == pytest.approx(reverse.coefficients[name].estimate)


def test_diagnostics_find_who_flags_alone():
    rows = [[1, 1, 1]] * 10 + [[1, 0, 0]] * 8 + [[0, 0, 0]] * 50 + [[0, 1, 1]] * 2
    report = measure_agreement(ratings_from_matrix(rows, ["careless", "b", "c"]), rng=1)
    per = report.diagnostics["per_annotator"]
    assert per["careless"]["flags_alone"] == 8 and per["b"]["flags_alone"] == 0
    assert per["careless"]["misses_alone"] == 2
    pair = next(p for p in report.diagnostics["per_pair"] if p["annotators"] == ["b", "c"])
    assert pair["psa"] == 1.0
    header, contested = contested_rows(ratings_from_matrix(rows, ["careless", "b", "c"]))
    assert header == ["item", "careless", "b", "c"] and len(contested) == 10


def test_bad_options():
    ratings = ratings_from_counts(6, 21, 14, 459)
    # the library names its parameters; the CLI names the flags (tests/test_cli_agree.py)
    with pytest.raises(InvalidInput, match="^level must be one of"):
        measure_agreement(ratings, MeasureSettings(level="weird"))
    with pytest.raises(InvalidInput, match="^decide_on must be one of"):
        measure_agreement(ratings, MeasureSettings(decide_on="nonsense"))
    with pytest.raises(InvalidInput, match="^not_demonstrated_below must be at most"):
        measure_agreement(ratings, MeasureSettings(not_demonstrated_below=0.7, demonstrated_at=0.5))
    with pytest.raises(InvalidInput, match="^positive 'maybe' is not a label") as info:
        measure_agreement(ratings, MeasureSettings(positive="maybe"))
    assert info.value.parameter == "positive" and info.value.value == "maybe"


def test_ordinal_text_labels_need_an_order():
    frame = pd.DataFrame({"a": ["low", "high", "mid"], "b": ["low", "mid", "mid"]})
    with pytest.raises(InvalidInput, match="level ordinal needs numeric labels or order"):
        unordered = ratings_from_wide(frame, ReaderSettings(item_col=None))
        measure_agreement(unordered, MeasureSettings(level="ordinal"))
    ordered = ratings_from_wide(frame, ReaderSettings(item_col=None, order=["low", "mid", "high"]))
    report = measure_agreement(ordered, MeasureSettings(level="ordinal"), rng=1)
    assert np.isfinite(report.coefficients["krippendorff_alpha"].estimate)
