"""The quick default test run and the full run CI makes (docs/development.md, "Tests").

``python -m pytest`` skips the tests marked ``slow`` (pyproject's ``addopts``); the README's
test command, which ``.ci/run`` runs verbatim, selects every test.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_settings() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def readme_test_command() -> str:
    """The bash block under "Run the whole test suite" in README.md."""
    text = (ROOT / "README.md").read_text()
    after = text[text.index("Run the whole test suite") :]
    return re.search(r"```bash\n(.+?)\n```", after, re.S).group(1).strip()


def ci_marker_expression() -> str:
    """The ``-m`` expression of the README's pytest command (what CI runs)."""
    words = shlex.split(readme_test_command().split("&&")[-1])
    assert words[:3] == ["python", "-m", "pytest"], words
    options = words[3:]
    return options[options.index("-m") + 1]


def test_the_slow_marker_is_registered_and_skipped_by_default():
    settings = pytest_settings()
    assert any(m.split(":")[0].strip() == "slow" for m in settings["markers"])
    addopts = shlex.split(settings["addopts"])
    assert "--strict-markers" in addopts  # a misspelt marker is an error, not a silent mark
    assert addopts[addopts.index("-m") + 1] == "not slow"


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_test_command() in ci


def collected(*args: str) -> int:
    """How many tests ``pytest --collect-only`` finds with ``args`` and the doctests."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + ["-o", "addopts=--doctest-modules", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    counts = re.search(r"(\d+)(?:/(\d+))? tests? collected", result.stdout)
    assert counts is not None, result.stdout[-500:]
    return int(counts.group(1))


@pytest.mark.slow
def test_the_ci_command_selects_every_test():
    everything = collected()
    assert collected("-m", ci_marker_expression()) == everything
    assert collected("-m", "not slow") < everything  # and the default run leaves some out
