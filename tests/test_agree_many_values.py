"""agree with many distinct interval/ratio values: no K x K tables, memory linear in the data.

``planner agree`` on 8,000 items x 3 log-normal scores (24,000
distinct values) at the interval level grew to 23 GB (the V x V agreement weights, the pair
tables and the per-pair diagnostics). Above ``MANY_VALUES`` distinct values only the
coefficients linear in the data are reported.
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.labels import ratings_from_matrix
from planner.measuring.measure import MANY_VALUES, measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.jsonout import load_schema
from planner.statistics import alpha as ka

pytestmark = pytest.mark.slow

runner = CliRunner()
_PEAK_LIMIT = 400_000_000  # bytes; one 10^5 x 10^5 float table alone is 80 GB


def _scores(items: int, seed: int, missing: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.lognormal(0.0, 1.0, items)[:, None] * rng.lognormal(0.0, 0.2, (items, 3))
    data[rng.random(data.shape) < missing] = np.nan
    return data


def _peak(call):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_hundred_thousand_distinct_values_through_the_library(level):
    data = _scores(34_000, seed=0, missing=0.02)
    ratings = ratings_from_matrix(data)
    assert ratings.n_categories > 90_000
    report, peak = _peak(
        lambda: measure_agreement(ratings, MeasureSettings(level=level, n_boot=100), rng=0)
    )
    assert peak < _PEAK_LIMIT
    alpha = report.coefficients["krippendorff_alpha"]
    independent = (
        ka.interval_alpha_from_values(data)
        if level == "interval"
        else ka.ratio_alpha_from_values(data)
    )
    assert alpha.estimate == pytest.approx(float(independent), abs=1e-10)
    assert set(report.coefficients) == {"observed_agreement", "krippendorff_alpha"}
    assert any("are not reported" in note and "Conger" in note for note in report.notes)
    assert report.decision is not None and report.decision.metric == "krippendorff_alpha"
    if level == "interval":
        assert alpha.ci_low < alpha.estimate < alpha.ci_high


def test_hundred_thousand_distinct_values_through_the_cli(tmp_path):
    data = _scores(34_000, seed=1)
    frame = pd.DataFrame(data.round(6), columns=["r1", "r2", "r3"])
    path = tmp_path / "scores.csv"
    frame["group"] = np.where(np.arange(len(frame)) % 3 == 0, "a", "b")
    frame.rename_axis("item").reset_index().to_csv(path, index=False)
    args = ["agree", str(path), "--layout", "wide", "--annotators", "r1,r2,r3", "--level"]
    args += [
        "interval",
        "--by",
        "group",
        "--n-boot",
        "200",
        "--json",
        "--seed",
        "1",
    ]  # --by: dense counts before
    result, peak = _peak(lambda: runner.invoke(app, args))
    assert result.exit_code == 0, result.output
    assert peak < _PEAK_LIMIT
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    alpha = doc["coefficients"]["krippendorff_alpha"]
    assert alpha["se"] > 0
    expected = ka.interval_alpha_from_values(frame[["r1", "r2", "r3"]].to_numpy())
    assert alpha["estimate"] == pytest.approx(float(expected), abs=1e-10)
    assert all("cohen_kappa" not in pair for pair in doc["diagnostics"]["per_pair"])
    groups = {g["group"]: g for g in doc["diagnostics"]["by"]["groups"]}
    assert groups["a"]["items"] + groups["b"]["items"] == len(frame)


def test_text_table_with_many_values_prints(tmp_path):
    frame = pd.DataFrame(_scores(1_000, seed=2).round(6), columns=["r1", "r2", "r3"])
    path = tmp_path / "scores.csv"
    frame.rename_axis("item").reset_index().to_csv(path, index=False)
    result = runner.invoke(app, ["agree", str(path), "--layout", "wide", "--level", "ratio"])
    assert result.exit_code == 0, result.output
    assert "Krippendorff" in result.output and "not reported" in result.output  # notes: stderr


@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_many_values_alpha_equals_the_krippendorff_package(level, monkeypatch):
    krippendorff = pytest.importorskip("krippendorff")
    from planner.measuring import measured_data

    # the package's memory grows with items x values^2: take the many-values path on a
    # case it runs
    monkeypatch.setattr(measured_data, "MANY_VALUES", 50)
    data = np.round(_scores(80, seed=3, missing=0.1), 2)
    ratings = ratings_from_matrix(data)
    assert ratings.n_categories > 50
    report = measure_agreement(ratings, MeasureSettings(level=level, n_boot=100), rng=0)
    ref = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
    assert "conger_kappa_quadratic" not in report.coefficients
    assert report.coefficients["krippendorff_alpha"].estimate == pytest.approx(ref, abs=1e-10)


def test_few_values_keep_every_coefficient():
    data = np.round(_scores(300, seed=4), 0)
    ratings = ratings_from_matrix(data)
    assert ratings.n_categories <= MANY_VALUES
    report = measure_agreement(ratings, MeasureSettings(level="interval", n_boot=100), rng=0)
    assert "conger_kappa_quadratic" in report.coefficients
    assert all("cohen_kappa" in pair for pair in report.diagnostics["per_pair"])


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_many_categories_at_the_nominal_and_ordinal_levels(level):
    # before: ordinal built the K x K weights, nominal the per-pair K x K tables (out of
    # memory); now the per-pair diagnostics keep observed agreement only
    data = _scores(6_000, seed=5)
    ratings = ratings_from_matrix(data)
    report, peak = _peak(
        lambda: measure_agreement(ratings, MeasureSettings(level=level, n_boot=100), rng=0)
    )
    assert peak < _PEAK_LIMIT
    assert all(set(pair) == {"annotators", "items", "observed_agreement"}
               for pair in report.diagnostics["per_pair"])  # fmt: skip
    alpha = report.coefficients["krippendorff_alpha"].estimate
    ref = ka.krippendorff_alpha_patterns(ratings.count_patterns(), None, level)
    assert alpha == pytest.approx(float(ref), abs=1e-12)
    if level == "nominal":  # marginals only: still reported
        assert "fleiss_kappa" in report.coefficients
    else:
        assert "fleiss_kappa_quadratic" not in report.coefficients
