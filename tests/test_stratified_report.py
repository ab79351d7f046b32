"""The report of a design of strata prints the agree command that weights the strata, and
that command, run on labels with a stratum column, decides on the population-weighted PSA."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "planner", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_reports_agree_command_weights_the_strata(tmp_path):
    out = _run("report", "unsupported-claims-enriched", "--out", "out", "--seed", "7", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    markdown = (tmp_path / "out" / "unsupported-claims-enriched" / "report.md").read_text()
    section = markdown.split("## Recommendation\n", 1)[1].split("\n## ", 1)[0]
    command = next(line for line in section.splitlines() if line.startswith("planner agree"))
    words = shlex.split(command)
    assert words[:3] == ["planner", "agree", "LABELS.csv"]
    assert words[words.index("--stratum-col") + 1] == "STRATUM"
    assert words[words.index("--population-shares-from") + 1] == "unsupported-claims-enriched"
    labels = str(ROOT / "examples" / "stratified-labels.csv")
    args = [labels if w == "LABELS.csv" else "stratum" if w == "STRATUM" else w for w in words]
    run = _run(*args[1:], "--positive", "unsupported", "--seed", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Decision on the population-weighted psa:" in run.stdout
    assert "Decision on psa:" not in run.stdout  # the sample's unweighted decision is not made
