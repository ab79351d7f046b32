"""Every command the README shows runs from an empty folder, after ``planner examples --copy``.

The commands are read from the README's ```bash blocks and from the ``$ `` lines of its
```text blocks (the first two bash blocks, the install commands, are what CI itself runs).
A ``$`` command followed in its block by an ``error:`` line must fail with exit 1 or 2 and
print exactly that one line; every other command must exit 0. They run as a user runs them,
in a subprocess from an empty temporary folder into which ``planner examples --copy examples``
(the README's own first step) copied the example files from the installed package, so that
shipped scenarios and examples are found through the package and nothing depends on the
repository's working tree.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def _shown_outputs() -> list[tuple[str, list[str]]]:
    """(command, the output lines the README shows under it) for every ``$`` command with
    ``--seed`` (so its output is reproducible); elisions (``...``) and blank lines are skipped."""
    shown: list[tuple[str, list[str]]] = []
    for body in re.findall(r"```text\n(.*?)```", README, re.S):
        command: str | None = None
        lines: list[str] = []
        for line in [*body.splitlines(), "$ "]:
            if line.startswith("$ "):
                if command and "--seed" in command and lines:
                    shown.append((command, lines))
                command, lines = line[2:].strip(), []
            elif line.strip() and "..." not in line and not line.startswith("error:"):
                lines.append(line.rstrip())
    return shown


def _commands() -> list[tuple[str, str | None]]:
    """(command, expected error line or None) for every README command."""
    found: list[tuple[str, str | None]] = []
    for kind, body in re.findall(r"```(bash|text)\n(.*?)```", README, re.S):
        lines = body.splitlines()
        for i, line in enumerate(lines):
            if kind == "bash" and line.strip() and not line.startswith(("#", "python3 -m venv")):
                found.append((line.split("  #")[0].strip(), None))
            elif kind == "text" and line.startswith("$ "):
                following = lines[i + 1] if i + 1 < len(lines) else ""
                error = following if following.startswith("error:") else None
                found.append((line[2:].strip(), error))
    return found


COMMANDS = _commands()


def _copy_examples(folder: Path) -> None:
    """``planner examples --copy examples`` in ``folder``, as the README's quickstart does."""
    argv = [sys.executable, "-m", "planner", "examples", "--copy", "examples"]
    subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=True, timeout=120)


def test_the_readme_shows_commands_of_every_kind():
    words = {shlex.split(c)[0] + " " + shlex.split(c)[1] for c, _ in COMMANDS}
    assert len(COMMANDS) >= 15
    for kind in ("planner agree", "planner schedule", "planner report"):
        assert kind in words
    assert any(c.startswith("plan --prevalence 0.08 --width 0.08") for c, _ in COMMANDS)


@pytest.mark.parametrize(("command", "error"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command_runs_from_a_clean_folder(command, error, tmp_path):
    _copy_examples(tmp_path)
    words = shlex.split(command)
    program = {"plan": ["plan"], "planner": []}[words[0]]
    argv = [sys.executable, "-m", "planner", *program, *words[1:]]
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in out.stderr
    if error is None:
        assert out.returncode == 0, out.stderr[-2000:]
    else:
        assert out.returncode in (1, 2)
        assert out.stderr.strip().splitlines() == [error.removesuffix(" ...")] or (
            error.endswith("...") and out.stderr.startswith(error.removesuffix("..."))
        ), out.stderr


SHOWN = _shown_outputs()


@pytest.mark.parametrize(("command", "lines"), SHOWN, ids=[c for c, _ in SHOWN])
def test_readme_output_is_what_the_command_prints(command, lines, tmp_path):
    """The output the README shows is the command's, line for line (at 80 columns)."""
    _copy_examples(tmp_path)
    words = shlex.split(command)
    program = {"plan": ["plan"], "planner": []}[words[0]]
    argv = [sys.executable, "-m", "planner", *program, *words[1:]]
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    printed = {line.rstrip() for line in (out.stdout + out.stderr).splitlines()}
    missing = [line for line in lines if line not in printed]
    assert missing == [], "\n".join(missing[:5])


def test_the_scenario_table_lists_every_shipped_scenario():
    from planner.data.scenario import shipped_scenarios

    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", README, re.M)
    assert set(shipped_scenarios()) <= set(rows), sorted(set(shipped_scenarios()) - set(rows))
