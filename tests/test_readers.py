"""One reader for every command: engines, plan --pilot from a latent-class fit, --quiet.

Independent checks: the two engines against each other on the same small files, and the
plan of a three-annotator pilot against ``plan`` from the 2x2 cells of the fitted average
annotator written out here in closed form (docs/methods/annotator-models.md 6.1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reading import ratings_from_long
from planner.statistics.dawid_skene import fit_latent_classes
from planner.statistics.dawid_skene_settings import LatentClassSettings

pytest.importorskip("duckdb")

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
WIDE = str(ROOT / "examples" / "wide.csv")  # three annotators: alice, bob, carol


def _run(*args: str):
    return runner.invoke(app, list(args))


def _json(*args: str) -> dict:
    result = _run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _three_annotators(seed: int = 3, n: int = 400) -> pd.DataFrame:
    """Binary labels of three annotators with known sensitivity and specificity."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.25
    rows = []
    for j, (se, sp) in enumerate([(0.9, 0.95), (0.8, 0.97), (0.85, 0.9)]):
        labels = (rng.random(n) < np.where(truth, se, 1 - sp)).astype(int)
        rows += [{"item": i, "annotator": f"r{j}", "label": int(v)} for i, v in enumerate(labels)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def pilot3(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("readers") / "pilot3.csv"
    _three_annotators().to_csv(path, index=False)
    return str(path)


# --------------------------------------------------------------------------- plan --pilot, 3+


def test_pilot_of_three_annotators_plans_from_the_fitted_average_annotator(pilot3):
    doc = _json("plan", "--pilot", pilot3, "--width", "0.08", "--seed", "1")
    fit = fit_latent_classes(ratings_from_long(_three_annotators()), LatentClassSettings(n_boot=0))
    rates = fit.binary()
    pi, se, sp = rates.prevalence, rates.sensitivity.mean(), rates.specificity.mean()
    # two conditionally independent copies of the average annotator (methods 6.1)
    cells = [
        pi * se * se + (1 - pi) * (1 - sp) ** 2,
        pi * se * (1 - se) + (1 - pi) * (1 - sp) * sp,
        pi * (1 - se) * se + (1 - pi) * sp * (1 - sp),
        pi * (1 - se) ** 2 + (1 - pi) * sp * sp,
    ]
    model = doc["model"]
    got = [model[k] for k in ("both", "a_only", "b_only", "neither")]
    np.testing.assert_allclose(got, cells, atol=1e-12)
    # the same study stated as plan's prevalence, error rate and bias (methods 6.2)
    fp, fn = (1 - pi) * (1 - sp), pi * (1 - se)
    stated = _json(
        "plan", "--prevalence", repr(float(pi)), "--error-rate", repr(float(fp + fn)),
        "--bias", repr(float((fp - fn) / (fp + fn))), "--width", "0.08", "--seed", "1",
    )  # fmt: skip
    assert doc["results"]["psa"]["items"] == stated["results"]["psa"]["items"]
    pilot = doc["pilot"]
    assert pilot["pair"] is None and pilot["counts"] is None
    assert "average of the 3 fitted annotators (r0, r1, r2)" in pilot["model"]
    assert any("independently given the true class" in n for n in pilot["notes"])


def test_pilot_of_three_annotators_says_how_in_the_table(pilot3):
    result = _run("plan", "--pilot", pilot3, "--width", "0.08", "--seed", "1")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the table on stdout, the model's note on stderr
    assert "latent-class (Dawid & Skene) fit" in text and "independently" in text


@pytest.mark.slow
def test_pilot_with_a_pair_still_plans_from_the_pairs_counts():
    read = ("--layout", "wide", "--annotator-cols", "alice,bob,carol")
    doc = _json("plan", "--pilot", WIDE, *read, "--positive", "unsupported", "--pair", "bob,carol")
    assert doc["pilot"]["pair"] == ["bob", "carol"] and doc["pilot"]["counts"] is not None


def test_pilot_is_refused_for_a_multi_rater_plan(pilot3):
    # regression: plan --annotators 3 --pilot FILE ignored the pilot without a word
    result = _run("plan", "--annotators", "3", "--prevalence", "0.2", "--pilot", pilot3)
    assert result.exit_code == 2
    assert "--pilot" in result.stderr and "does not combine" in result.stderr


# --------------------------------------------------------------------------- engines


@pytest.mark.slow
def test_plan_pilot_gives_the_same_plan_on_both_engines(pilot3):
    plans = [
        _json("plan", "--pilot", pilot3, "--pair", "r0,r1", "--seed", "2", "--engine", engine)
        for engine in ("pandas", "duckdb")
    ]
    assert plans[0]["pilot"]["counts"] == plans[1]["pilot"]["counts"]
    assert plans[0]["results"] == plans[1]["results"]
    fitted = [
        _json("plan", "--pilot", pilot3, "--engine", e, "--seed", "2") for e in ("pandas", "duckdb")
    ]
    np.testing.assert_allclose(
        [fitted[0]["model"][k] for k in ("both", "a_only", "b_only", "neither")],
        [fitted[1]["model"][k] for k in ("both", "a_only", "b_only", "neither")],
        atol=1e-12,
    )


def test_fit_gives_the_same_fit_on_both_engines(pilot3):
    fits = [
        _json("fit", pilot3, "--n-boot", "0", "--engine", engine) for engine in ("pandas", "duckdb")
    ]
    for key in ("prevalence", "annotators", "n_items"):
        if isinstance(fits[0][key], list) and fits[0][key] and isinstance(fits[0][key][0], dict):
            np.testing.assert_allclose(
                [p["estimate"] for p in fits[0][key]],
                [p["estimate"] for p in fits[1][key]],
                atol=1e-12,
            )
        else:
            assert fits[0][key] == fits[1][key]
    np.testing.assert_allclose(
        [r["error_rate"] for r in fits[0]["binary"]["annotators"]],
        [r["error_rate"] for r in fits[1]["binary"]["annotators"]],
        atol=1e-12,
    )


def test_alt_test_gives_the_same_result_on_both_engines(tmp_path):
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 80)
    rows = []
    for name, error in (("h1", 0.2), ("h2", 0.25), ("h3", 0.3), ("llm", 0.2)):
        wrong = rng.random(80) < error
        labels = np.where(wrong, (truth + rng.integers(1, 3, 80)) % 3, truth)
        rows += [{"item": i, "annotator": name, "label": int(v)} for i, v in enumerate(labels)]
    path = tmp_path / "alt.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    docs = [
        _json("alt-test", str(path), "--llm", "llm", "--epsilon", "0.1", "--engine", engine)
        for engine in ("pandas", "duckdb")
    ]
    for doc in docs:
        doc.pop("input", None)
    assert docs[0] == docs[1]


def test_memory_options_need_a_pilot():
    result = _run("plan", "--prevalence", "0.1", "--memory-limit", "1GB")
    assert result.exit_code == 2 and "--memory-limit" in result.stderr


# --------------------------------------------------------------------------- --quiet, bars


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--prevalence", "0.08", "--seed", "1"),
        ("agree", "--counts", "6,21,14,459", "--seed", "1"),
        ("fit", "PILOT", "--n-boot", "100", "--seed", "1"),
        ("alt-test", "--plan", "--epsilon", "0.2", "--replicates", "200", "--seed", "1"),
    ],
)
def test_quiet_is_accepted_and_json_draws_no_bar(args, pilot3, monkeypatch):
    import rich.console

    args = tuple(pilot3 if a == "PILOT" else a for a in args)
    assert _run(*args, "--quiet").exit_code == 0
    # as if stderr were a terminal: a bar could be drawn, but --json and --quiet draw none
    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    for flag in ("--json", "--quiet"):
        result = _run(*args, flag)
        assert result.exit_code == 0, result.output
        assert "━" not in result.stderr and "eta" not in result.stderr, result.stderr


def test_fit_draws_a_bar_on_a_terminal(pilot3, monkeypatch):
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    result = _run("fit", pilot3, "--n-boot", "100", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "bootstrap refits" in result.stderr


def test_report_takes_quiet():
    result = _run("report", "--help")
    assert result.exit_code == 0 and "--quiet" in result.stdout


def test_measure_agreement_reports_its_four_steps():
    from planner.data.labels import ratings_from_counts
    from planner.measuring.measure import measure_agreement

    calls: list[tuple[int, int]] = []
    measure_agreement(
        ratings_from_counts(6, 21, 14, 459), rng=1, progress=lambda *a: calls.append(a)
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_agree_draws_a_bar_on_a_terminal_and_none_with_json(monkeypatch):
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    shown = _run("agree", "--counts", "6,21,14,459", "--bootstrap", "--seed", "1")
    assert shown.exit_code == 0 and "measuring agreement" in shown.stderr
    quiet = _run("agree", "--counts", "6,21,14,459", "--bootstrap", "--seed", "1", "--json")
    assert quiet.exit_code == 0 and "measuring agreement" not in quiet.stderr


def test_fit_counts_a_glob_of_files_with_duckdb(pilot3, tmp_path):
    frame = pd.read_csv(pilot3)
    half = frame["item"] < 200
    frame[half].to_csv(tmp_path / "a.csv", index=False)
    frame[~half].to_csv(tmp_path / "b.csv", index=False)
    whole = _json("fit", pilot3, "--n-boot", "0")
    parts = _json("fit", str(tmp_path / "*.csv"), "--n-boot", "0")
    np.testing.assert_allclose(
        [p["estimate"] for p in parts["prevalence"]],
        [p["estimate"] for p in whole["prevalence"]],
        atol=1e-12,
    )


def test_multi_rater_search_reports_its_two_steps():
    from planner.sizing.annotator_model import raters_model
    from planner.sizing.plan import PlanSettings, make_plan

    calls: list[tuple[int, int]] = []
    settings = PlanSettings(metric="fleiss", width=0.1, replicates=200)
    make_plan(raters_model(0.3, 3), settings, rng=1, progress=lambda *a: calls.append(a))
    assert calls == [(1, 2), (2, 2)]


@pytest.mark.slow
def test_multi_rater_plan_draws_a_bar_on_a_terminal_only_without_json(monkeypatch):
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    args = ("plan", "--annotators", "3", "--prevalence", "0.3", "--replicates", "200")
    shown = _run(*args, "--seed", "1")
    assert shown.exit_code == 0 and "sizing" in shown.stderr
    for flag in ("--json", "--quiet"):
        hidden = _run(*args, "--seed", "1", flag)
        assert hidden.exit_code == 0 and "sizing" not in hidden.stderr
