"""The command line, through Typer's runner and as real processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app, plan_app

runner = CliRunner()


def _plan(*args: str):
    return runner.invoke(plan_app, list(args))


def test_headline_command_json_has_the_promised_fields():
    result = _plan("--prevalence", "0.08", "--width", "0.08", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["seed"] == 1 and doc["replicates"] == 4000
    assert doc["inputs"]["width"] == 0.08 and doc["inputs"]["model"]["prevalence"] == 0.08
    assert doc["model"]["union_rate"] == pytest.approx(0.11457, abs=1e-4)
    psa = doc["results"]["psa"]
    for key in (
        "union_positives",
        "items",
        "budget",
        "half_width",
        "interval",
        "replicates",
        "assurance",
        "n_undefined",
    ):
        assert key in psa
    assert psa["half_width"]["median"] <= 0.08
    assert psa["budget"]["person_hours"] == pytest.approx(psa["items"] * 2 * 90 / 3600)
    assert doc["worst_case"]["union_positives_wilson_every_outcome"] == 182
    assert doc["stop_rule"]["union_positives"] > 0
    wc, sr = doc["worst_case"], doc["stop_rule"]
    assert wc["person_hours"] == pytest.approx(wc["items_at_model_union_rate"] * 2 * 90 / 3600)
    assert sr["person_hours_p90"] == pytest.approx(sr["items_p90"] * 2 * 90 / 3600)
    assert doc["recommendation"]["items"] == psa["items"]


@pytest.mark.slow
def test_same_seed_gives_byte_identical_output():
    args = ("--pilot-counts", "6,21,14,459", "--width", "0.08", "--seed", "11", "--metric", "both")
    first = _plan(*args, "--json")
    second = _plan(*args, "--json")
    assert first.exit_code == 0 and first.stdout == second.stdout
    table_1, table_2 = _plan(*args), _plan(*args)
    assert table_1.stdout == table_2.stdout


@pytest.mark.slow
def test_pilot_counts_plan_and_both_metrics():
    result = _plan(
        "--pilot-counts",
        "6,21,14,459",
        "--width",
        "0.08",
        "--json",
        "--seed",
        "2",
        "--metric",
        "both",
        "--hourly-rate",
        "40",
        "--adjudication-seconds",
        "120",
    )
    doc = json.loads(result.stdout)
    assert set(doc["results"]) == {"psa", "kappa"}
    assert doc["model"]["psa"] == pytest.approx(0.255319, abs=1e-6)
    # with a pilot the recommendation is the larger answer under the pilot's uncertainty
    under = [u["items_under_uncertainty"] for u in doc["uncertainty_by_metric"].values()]
    assert doc["recommendation"]["items"] == max(under)
    budget = doc["results"]["psa"]["budget"]
    expected_hours = doc["results"]["psa"]["items"] * (2 * 90 + 0.07 * 120) / 3600
    assert budget["person_hours"] == pytest.approx(expected_hours)
    assert budget["cost"] == pytest.approx(40 * expected_hours)


def test_planner_group_runs_plan_and_table_output():
    result = runner.invoke(app, ["plan", "--union-rate", "0.082", "--psa", "0.5", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "union positives" in result.stdout and "seed 3" in result.stdout


@pytest.mark.parametrize(
    ("args", "needle", "code"),
    [
        (["--prevalence", "0.08", "--width", "1.5"], "--width must be a number in [0.001, 1)", 2),
        (["--prevalence", "0.08", "--width", "abc"], "--width", 2),
        (["--prevalence", "0.02", "--error-rate", "0.05"], "--error-rate", 2),
        (["--width", "0.08"], "give exactly one of --prevalence", 2),
        (["--prevalence", "0.1", "--union-rate", "0.1", "--psa", "0.5"], "give exactly one", 2),
        (["--union-rate", "0.1"], "--union-rate and --psa go together", 2),
        (["--pilot-counts", "1,2,x,4"], "--pilot-counts", 2),
        (["--prevalence", "0.08", "--metric", "f1"], "--metric", 2),
        (["--prevalence", "0.08", "--assurance", "1"], "--assurance", 2),
        (["--prevalence", "0.08", "--psa-method", "exact"], "--psa-method", 2),
        (["--prevalence", "0.08", "--seconds-per-item", "0"], "--seconds-per-item", 2),
        (["--prevalence", "0.08", "--nope"], "No such option", 2),
        (["--prevalence", "0.08", "--width", "0.002", "--max-items", "5000"], "--max-items", 1),
    ],
)
def test_bad_input_is_one_line_with_the_right_exit_code(args, needle, code):
    result = _plan(*args, "--seed", "1")
    assert result.exit_code == code
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_help_has_examples():
    result = _plan("--help")
    assert result.exit_code == 0
    assert "plan --prevalence 0.08 --width 0.08" in result.stdout


@pytest.mark.slow
def test_real_processes_run_the_headline_command():
    cmd = [
        sys.executable,
        "-m",
        "planner",
        "plan",
        "--prevalence",
        "0.08",
        "--width",
        "0.08",
        "--seed",
        "4",
        "--json",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["results"]["psa"]["items"] > 0
    script = shutil.which("plan")
    if script:  # installed console script, exactly as the README types it
        out = subprocess.run(
            [script, "--prevalence", "0.08", "--width", "0.08"], capture_output=True, text=True
        )
        assert out.returncode == 0 and "items" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--prevalence", "2"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("planner ")
