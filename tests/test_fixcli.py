"""Regressions for the tester's issues 10-12 on ``alt-test``, ``compat`` and ``fit``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()

CIBINARY = "compat kappasize CIBinary --kappa0 0.4 --kappaL 0.3 --kappaU 0.5 --props 0.3"


def _modules_after(arguments: list[str]) -> set[str]:
    """The modules a whole ``planner ARGUMENTS`` process has imported when it ends."""
    code = (
        "import sys\n"
        "from planner.cli.commands import app\n"
        "import typer\n"
        "try:\n"
        f"    typer.main.get_command(app)({arguments!r}, prog_name='planner')\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write('\\n'.join(sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return set(done.stderr.splitlines())


@pytest.mark.parametrize("sub", ["kappasize", "irr"])
def test_compat_subcommand_help_shows_help_as_a_flag(sub):
    # regression (issue 10): `planner compat kappasize --help` listed "--help <bool>"
    result = runner.invoke(app, ["compat", sub, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "--help" in result.stdout
    assert "<bool>" not in result.stdout


@pytest.mark.parametrize(
    "line",
    [CIBINARY, "compat kappasize PowerBinary --kappa0 0.4 --kappa1 0.6 --props 0.3"],
)
def test_compat_kappasize_process_keeps_heavy_modules_off(line):
    # regression (issue 10): scipy.stats (~0.4 s of start-up) was imported for a chi-squared
    # quantile and a binomial pmf; the other heavy libraries are not wanted either
    modules = _modules_after([*line.split(), "--seed", "1", "--json"])
    assert "planner.sizing.compat_kappasize" in modules  # the command did run
    for heavy in ("scipy.stats", "pandas", "matplotlib", "duckdb", "simpy"):
        assert heavy not in modules, heavy


def test_compat_kappasize_json_still_reproduces_r():
    # kappaSize's documented CIBinary example (R: 397 items), through the changed quantile
    result = runner.invoke(app, [*CIBINARY.split(), "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n"] == 397
