"""docs/mid-study.md: every ``$`` command runs from an empty folder (after ``planner examples
--copy examples``) and prints, line for line at 80 columns, the output the page shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PAGE = Path(__file__).parent.parent / "docs" / "mid-study.md"


def _shown() -> list[tuple[str, list[str]]]:
    shown = []
    for body in re.findall(r"```text\n(.*?)```", PAGE.read_text(), re.S):
        command, lines = None, []
        for line in [*body.splitlines(), "$ "]:
            if line.startswith("$ "):
                if command:
                    shown.append((command, lines))
                command, lines = line[2:].strip(), []
            elif line.strip():
                lines.append(line.rstrip())
    return shown


SHOWN = _shown()


def test_the_page_shows_the_commands():
    assert [c.split()[:3] for c, _ in SHOWN] == [
        ["plan", "--labelled", "examples/labelled-600.csv"],
        ["plan", "--labelled", "examples/wide.csv"],
        ["plan", "--labelled", "examples/stratified-labels.csv"],
        ["plan", "--labelled", "examples/stratified-labels-three.csv"],
        ["plan", "--labelled", "examples/labelled-600.csv"],
        ["plan", "--labelled", "examples/wide.csv"],
        ["plan", "--labelled", "examples/stratified-labels.csv"],
        ["plan", "--prevalence", "0.08"],
        ["plan", "--labelled", "examples/labelled-600.csv"],
        ["plan", "--labelled", "examples/wide.csv"],
        ["plan", "--labelled", "examples/stratified-labels.csv"],
        ["planner", "schedule", "--labelled"],
        ["planner", "schedule", "--labelled"],
        ["planner", "report", "unsupported-claims"],
    ]


@pytest.mark.parametrize(("command", "lines"), SHOWN, ids=[c for c, _ in SHOWN])
def test_the_page_shows_what_the_command_prints(command, lines, tmp_path):
    copy = [sys.executable, "-m", "planner", "examples", "--copy", "examples"]
    subprocess.run(copy, cwd=tmp_path, capture_output=True, text=True, check=True, timeout=120)
    words = shlex.split(command)
    words = words[1:] if words[0] == "planner" else words  # `planner schedule`, `plan`
    argv = [sys.executable, "-m", "planner", *words]
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    printed = [line.rstrip() for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert _segments_in_order(printed, lines)


def _segments_in_order(printed: list[str], lines: list[str]) -> bool:
    """The page's lines, cut at "..." elisions, each run found whole in ``printed``, in
    order; without an elision the two are equal."""
    if "..." not in lines:
        return printed == lines
    at = 0
    runs: list[list[str]] = [[]]
    for line in lines:
        runs.append([]) if line == "..." else runs[-1].append(line)
    for run in (r for r in runs if r):
        found = next(
            (i for i in range(at, len(printed) - len(run) + 1) if printed[i : i + len(run)] == run),
            None,
        )
        if found is None:
            return False
        at = found + len(run)
    return printed[-1] == lines[-1] or lines[-1] == "..."


def test_the_library_example_gives_the_page_s_numbers():
    from planner.sizing.midstudy import plan_remaining
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan import PlanSettings

    result = plan_remaining(
        (30, 27, 13, 530), PlanSettings(), RemainingSettings(planned_items=1280), rng=1
    )
    assert (result.remaining_items, result.total_items) == (570, 1170)
    assert "(570, 1170)" in PAGE.read_text()
