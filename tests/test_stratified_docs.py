"""docs/stratified-analysis.md: its ``$`` commands print what the page shows, its Python prints
its comment's number, and the hand computation on the page is the command's PSA."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
PAGE = (ROOT / "docs" / "stratified-analysis.md").read_text()


def _blocks() -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) of every ``$`` line in the page's text blocks."""
    found = []
    for body in re.findall(r"```text\n(.*?)```", PAGE, re.S):
        lines = body.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(lines)
            shown = [ln.rstrip() for ln in lines[start + 1 : end] if ln.strip() and ln != "..."]
            found.append((lines[start][2:], shown))
    return found


RUNNABLE = [(c, s) for c, s in _blocks() if "LABELS.csv" not in c]


def test_the_page_shows_runnable_commands():
    assert len(RUNNABLE) >= 2


@pytest.mark.parametrize(("command", "shown"), RUNNABLE, ids=[c[:60] for c, _ in RUNNABLE])
def test_the_page_shows_what_the_command_prints(command, shown, tmp_path):
    subprocess.run([sys.executable, "-m", "planner", "examples", "--copy", "examples"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)  # fmt: skip
    words = shlex.split(command)
    argv = [sys.executable, "-m", "planner", *words[1:]]
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    if shown and shown[0].startswith("error:"):
        assert out.returncode in (1, 2)
        assert out.stderr.strip().splitlines() == shown
        return
    assert out.returncode == 0, out.stderr
    printed = [line.rstrip() for line in out.stdout.splitlines()]
    start = printed.index(shown[0])  # the shown part is one run of consecutive lines
    assert printed[start : start + len(shown)] == shown


def test_the_python_example_prints_its_number(monkeypatch):
    code = PAGE.split("```python\n", 1)[1].split("```", 1)[0]
    claimed = re.findall(r"#\s*([0-9.]+)\s*$", code, re.M)
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "stratified-analysis.md", "exec"), {})
    assert out.getvalue().split() == claimed


def test_the_hand_computation_on_the_page():
    # the page's per-stratum tables (both, only A, only B; items) and shares
    tables = [(45, 4, 11, 120), (14, 5, 9, 150), (19, 5, 1, 40), (7, 7, 4, 290)]
    shares = [0.04, 0.10, 0.01, 0.85]
    both = sum(w * a / n for w, (a, _, _, n) in zip(shares, tables, strict=True))
    union = sum(w * (2 * a + b + c) / n for w, (a, b, c, n) in zip(shares, tables, strict=True))
    assert f"{both:.6f}" in PAGE and f"{union:.6f}" in PAGE
    assert f"{2 * both / union:.4f}" in PAGE
