"""docs/large-files.md: every ``$`` command runs and prints what the page shows.

Each command runs in a subprocess, at 80 columns, from an empty folder into which
``planner examples --copy examples`` copied the example files. A command followed by an
``error:`` line must exit 1 or 2 and print exactly that line on stderr; any other must exit
0 and print the lines shown under it (``...`` marks lines left out) in that order.
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

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

PAGE = Path(__file__).parent.parent / "docs" / "large-files.md"


def _examples() -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) for every ``$`` line of the page's text blocks."""
    found: list[tuple[str, list[str]]] = []
    for body in re.findall(r"```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        for line in body.splitlines():
            if line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif found and line.strip():
                found[-1][1].append(line.rstrip())
    return found


EXAMPLES = _examples()


def test_the_page_shows_a_refusal_and_an_answer():
    assert len(EXAMPLES) >= 2
    assert any(lines[0].startswith("error:") for _, lines in EXAMPLES)
    assert any(not lines[0].startswith("error:") for _, lines in EXAMPLES)


@pytest.mark.parametrize(("command", "lines"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_the_command_prints_what_the_page_shows(command, lines, tmp_path):
    argv = [sys.executable, "-m", "planner", "examples", "--copy", "examples"]
    subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=True, timeout=120)
    words = shlex.split(command)
    assert words[0] == "planner"
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    argv = [sys.executable, "-m", "planner", *words[1:]]
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert "Traceback" not in out.stderr
    if lines[0].startswith("error:"):
        assert out.returncode in (1, 2) and out.stdout == ""
        assert out.stderr.strip().splitlines() == lines
        return
    assert out.returncode == 0, out.stderr[-2000:]
    printed = [line.rstrip() for line in (out.stdout + out.stderr).splitlines()]
    at = 0
    for shown in (line for line in lines if line != "..."):
        assert shown in printed[at:], f"not printed (in this order): {shown}"
        at = printed.index(shown, at) + 1
