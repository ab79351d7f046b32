"""docs/several-annotators.md: every ``$`` command runs and prints the lines the page shows.

As for the README (tests/test_readme_commands.py): each command runs in a subprocess at 80
columns from an empty folder into which ``planner examples --copy examples`` copied the
example files; a command followed by an ``error:`` line must fail with exit 1 or 2 and print
exactly that line, every other must exit 0 and print every line shown under it (``...``
marks what the page leaves out).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PAGE = (Path(__file__).parent.parent / "docs" / "several-annotators.md").read_text()


def _examples() -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) for every ``$`` line of the page's text blocks."""
    found: list[tuple[str, list[str]]] = []
    for body in re.findall(r"```text\n(.*?)```", PAGE, re.S):
        for line in body.splitlines():
            if line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif found and line.strip() and line.strip() != "...":
                found[-1][1].append(line.rstrip())
    return found


EXAMPLES = _examples()


def test_the_page_shows_every_new_path():
    commands = " ".join(c for c, _ in EXAMPLES)
    for option in ("--items", "--hours", "--budget", "--curve", "--pilot", "planner report"):
        assert option in commands


@pytest.mark.parametrize(("command", "lines"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_page_command_prints_what_the_page_shows(command, lines, tmp_path):
    copy = [sys.executable, "-m", "planner", "examples", "--copy", "examples"]
    subprocess.run(copy, cwd=tmp_path, capture_output=True, text=True, check=True, timeout=120)
    words = shlex.split(command)
    program = {"plan": ["plan"], "planner": []}[words[0]]
    argv = [sys.executable, "-m", "planner", *program, *words[1:]]
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert "Traceback" not in out.stderr
    if lines and lines[0].startswith("error:"):
        assert out.returncode in (1, 2)
        assert out.stderr.strip().splitlines() == lines
        return
    assert out.returncode == 0, out.stderr[-2000:]
    printed = {line.rstrip() for line in (out.stdout + out.stderr).splitlines()}
    missing = [line for line in lines if line not in printed]
    assert missing == [], "\n".join(missing[:5])
