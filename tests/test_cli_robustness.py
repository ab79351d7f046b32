"""The command line under stress: no traceback, plans right at any scale.

Each test reproduces a defect of the reliability audit and fails on the code before the fix.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app, plan_app
from planner.errors import InvalidInput
from planner.sizing.design import split_items
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]
FAST = ("--seed", "1", "--replicates", "100")


def _one_error_line(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def _boom(*_args, **_kwargs):
    raise ZeroDivisionError("float division by zero\nsecond line")


# --------------------------------------------------------------- the last-resort handler


@pytest.mark.parametrize("entry", ["plan_app", "app"])
def test_unexpected_exception_is_one_line_exit_1(monkeypatch, entry):
    monkeypatch.setattr("planner.application.plan_options.run_plan", _boom)
    args = ["--prevalence", "0.08", *FAST]
    result = (
        runner.invoke(plan_app, args)
        if entry == "plan_app"
        else runner.invoke(app, ["plan", *args])
    )
    line = _one_error_line(result, 1)
    assert line == (
        "error: internal error: ZeroDivisionError: float division by zero "
        "(rerun with --debug to see the traceback)"
    )
    assert isinstance(result.exception, SystemExit)  # not an exception escaping the CLI


@pytest.mark.parametrize(
    ("entry", "args", "env"),
    [
        (plan_app, ["--prevalence", "0.08", "--debug"], {}),
        (app, ["--debug", "plan", "--prevalence", "0.08"], {}),
        (app, ["plan", "--prevalence", "0.08"], {"PLANNER_DEBUG": "1"}),
    ],
)
def test_debug_shows_the_traceback(monkeypatch, entry, args, env):
    monkeypatch.setattr("planner.application.plan_options.run_plan", _boom)
    result = runner.invoke(entry, args, env=env)
    assert result.exit_code == 1
    assert "Traceback" in result.stderr and "ZeroDivisionError" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: internal error")


def test_debug_is_off_again_on_the_next_run(monkeypatch):
    monkeypatch.setattr("planner.application.plan_options.run_plan", _boom)
    runner.invoke(plan_app, ["--prevalence", "0.08", "--debug"])
    result = runner.invoke(plan_app, ["--prevalence", "0.08"], env={"PLANNER_DEBUG": None})
    _one_error_line(result, 1)


def test_ctrl_c_is_one_line_exit_130(monkeypatch):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("planner.application.plan_options.run_plan", interrupted)
    for result in (
        runner.invoke(plan_app, ["--prevalence", "0.08"]),
        runner.invoke(app, ["plan", "--prevalence", "0.08"]),
    ):
        assert _one_error_line(result, 130) == "error: interrupted"


def test_broken_pipe_is_quiet(monkeypatch):
    def closed(_document):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("planner.cli.commands.emit_json", closed)
    result = runner.invoke(plan_app, ["--prevalence", "0.08", "--json", *FAST])
    assert result.exit_code == 1 and result.stderr == ""


@pytest.mark.slow
def test_broken_pipe_in_a_real_pipeline_is_quiet():
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner", "plan", "--prevalence", "0.08", "--json", *FAST],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before planner writes (`| head -0`)
    stderr = proc.stderr.read().decode()
    assert proc.wait() in (0, 1)
    assert stderr == ""


def test_numpy_warnings_are_one_note_line(monkeypatch):
    import planner.application.plan_options as plan_options

    make_plan = plan_options.make_plan

    def warns(*args, **kwargs):  # the plan, after two numpy warnings
        np.divide(np.ones(2), np.zeros(2))
        np.log(-np.ones(1))
        return make_plan(*args, **kwargs)

    monkeypatch.setattr(plan_options, "make_plan", warns)
    result = runner.invoke(plan_app, ["--prevalence", "0.08", "--json", *FAST])
    assert result.exit_code == 0
    json.loads(result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: numerical warnings"), result.stderr
    assert "divide by zero" in lines[0] and "RuntimeWarning" not in result.stderr
    debug = runner.invoke(plan_app, ["--prevalence", "0.08", "--json", "--debug", *FAST])
    assert "RuntimeWarning" in debug.stderr


# --------------------------------------------------------------- the stratified comparison


@given(
    total=st.integers(0, 100_000),
    weights=st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=300),
)
def test_split_items_sums_to_n_and_each_part_is_within_one(total, weights):
    parts = split_items(total, weights)
    share = np.asarray(weights) / np.sum(weights)
    assert sum(parts) == total
    assert np.all(np.abs(np.asarray(parts) - total * share) < 1 + 1e-9)
    assert min(parts) >= 0


def _strata_toml(path: Path, n: int) -> Path:
    lines = ['name = "many"', "[model]", "error_rate = 0.01", "[simulation]", "replicates = 100"]
    for i in range(n):
        prevalence = 0.05 if i % 2 else 0.25
        lines += [
            "[[strata]]",
            f'name = "s{i}"',
            f"size = {1 + i % 3}",
            f"prevalence = {prevalence}",
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_uniform_design_reports_the_searched_n_at_1000_strata(tmp_path):
    # before the fix: 0 items (each stratum's share rounded to 0) and divide-by-zero warnings
    path = _strata_toml(tmp_path / "many.toml", 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = runner.invoke(plan_app, [str(path), "--json", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no warning note
    uniform = json.loads(result.stdout)["designs"]["uniform"]
    assert uniform["items"] == sum(uniform["items_per_stratum"]) > 0
    # an independent check: the uniform design is sized on the population mixture alone, so
    # one stratum per prevalence with the same shares needs the same items
    shares = np.array([1 + i % 3 for i in range(1000)], dtype=float)
    high = float(shares[::2].sum() / shares.sum())
    two = tmp_path / "two.toml"
    two.write_text(
        "[model]\nerror_rate = 0.01\n[simulation]\nreplicates = 100\n"
        f'[[strata]]\nname = "high"\nshare = {high!r}\nprevalence = 0.25\n'
        f'[[strata]]\nname = "low"\nshare = {1 - high!r}\nprevalence = 0.05\n'
    )
    reference = json.loads(runner.invoke(plan_app, [str(two), "--json", "--seed", "5"]).stdout)
    expected = reference["designs"]["uniform"]["items"]
    assert abs(uniform["items"] - expected) <= 0.02 * expected


# --------------------------------------------------------------- messages name their source


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (  # annotator B never says positive: before the fix a kappa plan was printed
            ["--prevalence", "0.03", "--error-rate", "0.01,0.03", "--bias", "1,-1"],
            ["the model implies PSA 0", "change --error-rate or --bias"],
        ),
        (
            ["--prevalence", "0.9", "--error-rate", "0.2", "--bias", "1"],
            ["--error-rate 0.2 with --bias 1", "false-positive rate of 2", "--prevalence 0.9"],
        ),
        (["--union-rate", "0.1", "--psa", "0"], ["the model implies PSA 0", "change --psa"]),
        (["--prevalence", "0.1", "--error-rate", "nan"], ["--error-rate must be a number in"]),
        (["--prevalence", "0.1", "--bias", "1,2,3"], ["--bias takes one value or two"]),
        (["--pilot-counts", "1,-2,3,4"], ["--pilot-counts must be a whole number"]),
        (["--union-rate", "0.1", "--psa", "2"], ["--psa must be a number in [0, 1], got 2"]),
        (["--union-rate", "0.1", "--psa", "0.5", "--ambiguity", "0"], ["--ambiguity needs"]),
        (["--prevalence", "0.08", "--width", "1e-200"], ["--width must be a number in [0.001"]),
        (["--prevalence", "0.08", "--replicates", "5"], ["--replicates must be a whole number"]),
        (["--prevalence", "0.08", "--confidence", "nan"], ["--confidence must be a number"]),
        (["--prevalence", "0.08", "--kappa-method", "x", "--metric", "kappa"], ["--kappa-method"]),
    ],
)
def test_model_and_settings_errors_name_flags(args, needles):
    line = _one_error_line(runner.invoke(plan_app, [*args, "--seed", "1"]), 2)
    for needle in needles:
        assert needle in line
    assert "np." not in line


def test_infeasible_annotator_is_refused_in_parameter_names():
    with pytest.raises(InvalidInput, match="error_rate 0.05 with bias 0") as info:
        pair_from_annotators(0.02, 0.05)
    assert info.value.parameter == "error_rate" and "--" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"width": 1.5}, "width must be a number in [0.001, 1), got 1.5"),
        ({"width": 1e-200}, "width must be a number in [0.001, 1), got 1e-200"),
        (
            {"replicates": np.int64(5)},
            "replicates must be a whole number in [100, 1,000,000], got 5",
        ),
        ({"confidence_level": float("nan")}, "confidence_level must be a number in (0, 1)"),
        ({"hourly_rate": -1.0}, "hourly_rate must be a number in [0, 1e9], got -1"),
        ({"psa_method": "exact"}, "psa_method must be one of wilson"),
    ],
)
def test_plan_settings_name_parameters(kwargs, needle):
    with pytest.raises(InvalidInput) as info:
        PlanSettings(**kwargs)
    assert str(info.value).startswith(needle) and "--" not in str(info.value)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (
            "[model]\nprevalence = 0.03\nerror_rate = [0.01, 0.03]\nbias = [1, -1]\n",
            ["s.toml: the model implies PSA 0", "change model.error_rate or model.bias"],
        ),
        (
            "[model]\nprevalence = 0.02\nerror_rate = 0.05\n",
            ["s.toml: model.error_rate 0.05 with model.bias 0", "at model.prevalence 0.02"],
        ),
        (
            '[model]\nerror_rate = 0.3\n[[strata]]\nname = "a"\nshare = 0.5\nprevalence = 0.5\n'
            '[[strata]]\nname = "b"\nshare = 0.5\nprevalence = 0.02\n',
            ["s.toml: stratum 'b': model.error_rate 0.3", "strata[2].prevalence 0.02"],
        ),
        (
            "[model]\nunion_rate = 0.1\npsa = 0.5\nerror_rate = 0.1\n",
            ["s.toml: model.error_rate needs model.prevalence"],
        ),
        (
            '[model]\nprevalence = 0.1\n[target]\npsa_method = "exact"\n',
            ["s.toml: target.psa_method must be one of wilson"],
        ),
    ],
)
def test_scenario_errors_name_the_file_and_key(tmp_path, text, needles):
    line = _one_error_line(runner.invoke(plan_app, [_write(tmp_path, text), *FAST]), 2)
    for needle in needles:
        assert needle in line
    assert "--" not in line


# --------------------------------------------------------------- options never ignored silently


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--metric", "psa", "--kappa-method", "fce"], "--kappa-method fce is not used"),
        (["--metric", "kappa", "--psa-method", "wald"], "--psa-method wald is not used"),
    ],
)
def test_unused_method_is_a_note(args, needle):
    result = runner.invoke(plan_app, ["--prevalence", "0.08", *args, "--json", *FAST])
    assert result.exit_code == 0
    assert any(needle in note for note in json.loads(result.stdout)["notes"])
    assert f"note: {needle}" in result.stderr


def test_model_options_replacing_a_scenario_model_are_a_note(tmp_path):
    path = _write(tmp_path, "[model]\nprevalence = 0.02\n")
    result = runner.invoke(plan_app, [path, "--pilot-counts", "6,21,14,459", "--json", *FAST])
    notes = json.loads(result.stdout)["notes"]
    assert any("replace the [model] of" in note for note in notes)


def test_annotator_options_with_a_stratified_scenario_are_refused(tmp_path):
    path = _write(
        tmp_path,
        '[[strata]]\nname = "a"\nshare = 0.5\nprevalence = 0.3\n'
        '[[strata]]\nname = "b"\nshare = 0.5\nprevalence = 0.05\n',
    )
    line = _one_error_line(runner.invoke(plan_app, [path, "--error-rate", "0.01", *FAST]), 2)
    assert "--error-rate cannot change the stratified scenario" in line
