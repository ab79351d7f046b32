"""planner fit through Typer's runner, and the pair model plan takes from a fit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.sizing.fitted_pair import pair_model_from_fit
from planner.statistics.dawid_skene import fit_latent_classes
from planner.statistics.dawid_skene_settings import LatentClassSettings
from tests.test_dawid_skene import DATA, anesthesia_counts, loop_em

runner = CliRunner()


def _fit(*args: str):
    return runner.invoke(app, ["fit", *args])


def _one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def _write(tmp_path, frame: pd.DataFrame, name: str = "labels.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


@pytest.fixture
def first_ratings(tmp_path):
    """Dawid & Skene's anaesthesia data with observer 1's first rating of each patient only."""
    frame = pd.read_csv(DATA).drop_duplicates(["patient", "observer"])
    frame.columns = ["item", "annotator", "label"]
    return _write(tmp_path, frame), frame


def _binary_frame(seed: int = 3, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.25
    rows = []
    for j, (se, sp) in enumerate([(0.9, 0.95), (0.8, 0.97), (0.85, 0.9)]):
        p = np.where(truth, se, 1 - sp)
        labels = (rng.random(n) < p).astype(int)
        rows += [{"item": i, "annotator": f"r{j}", "label": int(v)} for i, v in enumerate(labels)]
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_json_fit_equals_the_independent_em(first_ratings):
    path, frame = first_ratings
    result = _fit(path, "--n-boot", "100", "--seed", "5", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "fit"
    assert doc["n_items"] == 45 and doc["annotators"] == ["1", "2", "3", "4", "5"]
    counts = np.zeros((45, 5, 4), dtype=np.int64)
    np.add.at(counts, (frame.item - 1, frame.annotator - 1, frame.label - 1), 1)
    prev, theta, loglik = loop_em(counts)
    got = [entry["estimate"] for entry in doc["prevalence"]]
    np.testing.assert_allclose(got, prev, atol=1e-7)
    assert doc["confusion"]["2"]["1"]["1"]["estimate"] == pytest.approx(theta[1, 0, 0], abs=1e-7)
    assert doc["log_likelihood"] == pytest.approx(loglik, abs=1e-6)
    interval = doc["prevalence"][0]["interval"]
    assert set(interval) == {"lower", "upper", "level", "method", "covers"}
    assert interval["level"] == 0.95 and interval["covers"] == "prevalence of class 1"
    assert interval["lower"] <= got[0] <= interval["upper"]
    assert doc["seed"] == 5 and doc["converged"] is True and "binary" not in doc


def test_tables_show_prevalences_confusions_and_the_fit(first_ratings):
    path, _ = first_ratings
    result = _fit(path, "--n-boot", "0")
    assert result.exit_code == 0, result.output
    for text in ("Class prevalences", "Annotator 5", "converged in", "log-likelihood", "45"):
        assert text in result.stdout


def test_binary_labels_give_plans_parametrisation(tmp_path):
    path = _write(tmp_path, _binary_frame())
    result = _fit(path, "--json", "--seed", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    binary = doc["binary"]
    assert binary["positive"] == 1
    pi = binary["prevalence"]
    for entry in binary["annotators"]:
        e = pi * (1 - entry["sensitivity"]) + (1 - pi) * (1 - entry["specificity"])
        assert entry["error_rate"] == pytest.approx(e)
        assert entry["bias"] == pytest.approx(2 * entry["false_positive_share"] - 1)
    table = _fit(path, "--n-boot", "0")
    assert "sensitivity" in table.stdout and "--error-rate" in table.stdout


def test_text_binary_labels_need_positive(tmp_path):
    frame = _binary_frame()
    frame["label"] = frame["label"].map({0: "no", 1: "yes"})
    path = _write(tmp_path, frame)
    result = _fit(path, "--n-boot", "0", "--json")
    assert result.exit_code == 0 and "give --positive" in result.stderr
    result = _fit(path, "--n-boot", "0", "--json", "--positive", "yes")
    assert json.loads(result.stdout)["binary"]["positive"] == "yes"
    line = _one_line_error(_fit(path, "--n-boot", "0", "--positive", "maybe"), 2)
    assert "--positive must be one of the labels" in line


# --------------------------------------------------------------------------- bad input


def test_two_annotators_exit_2(tmp_path):
    frame = _binary_frame()
    path = _write(tmp_path, frame[frame.annotator != "r2"])
    line = _one_line_error(_fit(path), 2)
    assert "at least 3 annotators" in line and "got 2" in line


def test_one_annotator_exit_2(tmp_path):
    frame = _binary_frame()
    line = _one_line_error(_fit(_write(tmp_path, frame[frame.annotator == "r0"])), 2)
    assert "annotators (1)" in line  # the reader refuses it before the fit


def test_one_category_exit_2(tmp_path):
    frame = _binary_frame().assign(label=1)
    line = _one_line_error(_fit(_write(tmp_path, frame)), 2)
    assert "at least 2 categories" in line


def test_no_item_rated_twice_exit_2(tmp_path):
    frame = pd.DataFrame(
        {"item": [1, 2, 3, 4], "annotator": ["a", "b", "c", "a"], "label": [0, 1, 0, 1]}
    )
    line = _one_line_error(_fit(_write(tmp_path, frame)), 2)
    assert "no item has two ratings" in line  # the reader refuses it; the library too (below)


def test_non_convergence_exit_1_names_the_flag(first_ratings):
    path, _ = first_ratings
    line = _one_line_error(_fit(path, "--max-iter", "1"), 1)
    assert "--max-iter = 1 iterations" in line and "raise --max-iter" in line


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [("--n-boot", "10", "--n-boot must be"), ("--confidence", "1.5", "--confidence must")],
)
def test_bad_options_exit_2(first_ratings, flag, value, expected):
    path, _ = first_ratings
    assert expected in _one_line_error(_fit(path, flag, value), 2)


def test_repeated_conflicting_ratings_are_refused_with_repeats_refuse(tmp_path):
    frame = pd.read_csv(DATA)
    frame.columns = ["item", "annotator", "label"]
    line = _one_line_error(_fit(_write(tmp_path, frame), "--repeats", "refuse"), 2)
    assert "more than once with different labels" in line


def test_fit_uses_repeated_ratings_of_dawid_and_skenes_data():
    # regression: planner fit refused the anaesthesia file (observer 1 rated each patient
    # three times); by default it now keeps every rating, as Dawid & Skene's counts do
    result = _fit(
        str(DATA), "--item-col", "patient", "--annotator-col", "observer",
        "--label-col", "rating", "--n-boot", "0", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    expected = fit_latent_classes(
        anesthesia_counts(), LatentClassSettings(categories=[1, 2, 3, 4], n_boot=0)
    )
    assert [p["estimate"] for p in doc["prevalence"]] == pytest.approx(
        expected.prevalence.tolist(), abs=1e-9
    )
    # Dawid & Skene (1979), Table 2: class prevalences 0.40, 0.42, 0.11, 0.07
    assert [p["estimate"] for p in doc["prevalence"]] == pytest.approx(
        [0.40, 0.42, 0.11, 0.07], abs=0.006
    )
    assert "repeated rating(s) of an item by the same annotator kept" in result.stderr


def test_repeats_keep_is_refused_by_the_duckdb_engine():
    args = [str(DATA), "--item-col", "patient", "--annotator-col", "observer"]
    line = _one_line_error(
        _fit(*args, "--label-col", "rating", "--repeats", "keep", "--engine", "duckdb"), 2
    )
    assert line.startswith("error: --repeats keep") and "pandas engine only" in line


# --------------------------------------------------------------------------- pair model


def _cells(pi, se, sp):
    """METHODS.md 6.1: the 2x2 cells of two conditionally independent annotators."""
    (se_a, se_b), (sp_a, sp_b) = se, sp
    return [
        pi * se_a * se_b + (1 - pi) * (1 - sp_a) * (1 - sp_b),
        pi * se_a * (1 - se_b) + (1 - pi) * (1 - sp_a) * sp_b,
        pi * (1 - se_a) * se_b + (1 - pi) * sp_a * (1 - sp_b),
        pi * (1 - se_a) * (1 - se_b) + (1 - pi) * sp_a * sp_b,
    ]


@pytest.fixture(scope="module")
def binary_fit():
    from planner.data.reading import ratings_from_long

    return fit_latent_classes(
        ratings_from_long(_binary_frame(n=2000)), LatentClassSettings(n_boot=0)
    )


def test_pair_model_of_two_named_annotators(binary_fit):
    rates = binary_fit.binary()
    model = pair_model_from_fit(binary_fit, ("r0", "r2"))
    expected = _cells(rates.prevalence, rates.sensitivity[[0, 2]], rates.specificity[[0, 2]])
    np.testing.assert_allclose(model.cells, expected, atol=1e-12)
    assert "r0 and r2" in model.assumptions["description"]
    assert model.assumptions["fitted_annotators"] == ["r0", "r2"]


def test_pair_model_default_is_the_average_annotator(binary_fit):
    rates = binary_fit.binary()
    model = pair_model_from_fit(binary_fit)
    se, sp = rates.sensitivity.mean(), rates.specificity.mean()
    np.testing.assert_allclose(
        model.cells, _cells(rates.prevalence, (se, se), (sp, sp)), atol=1e-12
    )
    assert "average of the 3 fitted annotators" in model.assumptions["description"]


@pytest.mark.parametrize(
    ("pair", "message"),
    [(("r0", "zz"), "pair must name two of the fitted annotators"), (("r1", "r1"), "different")],
)
def test_pair_model_refuses_unknown_pairs(binary_fit, pair, message):
    with pytest.raises(InvalidInput, match=message):
        pair_model_from_fit(binary_fit, pair)


def test_the_old_spelling_bootstrap_still_counts_the_refits_with_a_note(first_ratings):
    path, _ = first_ratings
    old = _fit(path, "--bootstrap", "100", "--seed", "5", "--json")
    new = _fit(path, "--n-boot", "100", "--seed", "5", "--json")
    assert old.exit_code == new.exit_code == 0, old.output
    assert "--bootstrap is deprecated in fit: use --n-boot" in old.stderr
    old_doc, new_doc = json.loads(old.stdout), json.loads(new.stdout)
    assert old_doc["n_boot"] == 100 and old_doc["prevalence"] == new_doc["prevalence"]
    both = _fit(path, "--bootstrap", "100", "--n-boot", "200")
    assert "give --n-boot once" in _one_line_error(both, 2)


def test_the_library_takes_the_old_keyword_with_a_warning():
    with pytest.warns(DeprecationWarning, match="bootstrap is deprecated: use n_boot"):
        assert LatentClassSettings(bootstrap=0).n_boot == 0
