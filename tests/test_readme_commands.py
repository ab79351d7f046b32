"""Every command the README and the documentation site show runs from an empty folder.

The commands are read from the ```bash blocks and from the ``$ `` lines of the ```text blocks
of README.md and of every page under docs/ (in the README the first two bash blocks, the
install commands, are what CI itself runs). A ``$`` command followed in its block by an
``error:`` line must fail with exit 1 or 2 and print exactly that one line; every other
command must exit 0. They run as a user runs them, in a subprocess from an empty temporary
folder into which ``planner examples --copy examples`` (the quickstart's own first step)
copied the example files from the installed package, so that shipped scenarios and examples
are found through the package and nothing depends on the repository's working tree. A
command shown on several pages runs once; the output lines it must print are those of all
the pages that show it.
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

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
TEXTS = {page.relative_to(ROOT).as_posix(): page.read_text() for page in PAGES}


def _shown_outputs(text: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines the page shows under it) for every ``$`` command with
    ``--seed`` (so its output is reproducible); elisions (``...``) and blank lines are skipped."""
    shown: list[tuple[str, list[str]]] = []
    for body in re.findall(r"```text\n(.*?)```", text, re.S):
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


def _commands(text: str) -> list[tuple[str, str | None]]:
    """(command, expected error line or None) for every command of a page."""
    found: list[tuple[str, str | None]] = []
    for kind, body in re.findall(r"```(bash|text)\n(.*?)```", text, re.S):
        lines = body.splitlines()
        for i, line in enumerate(lines):
            if kind == "bash" and line.strip() and not line.startswith(("#", "python3 -m venv")):
                found.append((line.split("  #")[0].strip(), None))
            elif kind == "text" and line.startswith("$ "):
                following = lines[i + 1] if i + 1 < len(lines) else ""
                error = following if following.startswith("error:") else None
                found.append((line[2:].strip(), error))
    return found


def _all_commands() -> list[tuple[str, str | None]]:
    """Every page's commands, each (command, error) once, in the order first shown."""
    return list(dict.fromkeys(c for text in TEXTS.values() for c in _commands(text)))


def _all_outputs() -> list[tuple[str, list[str]]]:
    """Each seeded command once, with the output lines of every page that shows it."""
    merged: dict[str, list[str]] = {}
    for text in TEXTS.values():
        for command, lines in _shown_outputs(text):
            merged.setdefault(command, []).extend(lines)
    return [(command, list(dict.fromkeys(lines))) for command, lines in merged.items()]


COMMANDS = _all_commands()


def _copy_examples(folder: Path) -> None:
    """``planner examples --copy examples`` in ``folder``, as the README's quickstart does."""
    argv = [sys.executable, "-m", "planner", "examples", "--copy", "examples"]
    subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=True, timeout=120)


def test_the_readme_is_a_quickstart_with_one_example_of_every_job():
    """At most about 300 lines: the two set-up commands first, then each job's example."""
    assert len(README.splitlines()) <= 300
    bash = re.findall(r"```bash\n(.*?)```", README, re.S)
    assert bash[0].strip().endswith("pip install . && plan --prevalence 0.08 --width 0.08")
    assert bash[1].strip().endswith("'.[test]' && python -m pytest -m 'slow or not slow'")
    shown = [c for c, _ in _commands(README)]
    jobs = {" ".join(shlex.split(c)[:2]) for c in shown if c.startswith("planner ")}
    for job in ("agree", "fit", "alt-test", "compat", "schedule", "report"):
        assert f"planner {job}" in jobs, job
    assert any(c.startswith("plan --prevalence 0.08 --width 0.08") for c in shown)
    assert any("--annotators" in c for c in shown)


def test_the_pages_show_commands_of_every_kind():
    words = {shlex.split(c)[0] + " " + shlex.split(c)[1] for c, _ in COMMANDS}
    assert len(COMMANDS) >= 15
    for kind in ("planner agree", "planner schedule", "planner report", "planner fit"):
        assert kind in words
    for text in TEXTS.values():  # only the program's commands: each one is run here
        for command, _ in _commands(text):
            assert shlex.split(command)[0] in ("plan", "planner"), command


@pytest.mark.parametrize(("command", "error"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_documented_command_runs_from_a_clean_folder(command, error, tmp_path):
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


SHOWN = _all_outputs()


@pytest.mark.parametrize(("command", "lines"), SHOWN, ids=[c for c, _ in SHOWN])
def test_documented_output_is_what_the_command_prints(command, lines, tmp_path):
    """The output the pages show is the command's, line for line (at 80 columns)."""
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

    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", TEXTS["docs/scenarios.md"], re.M)
    assert set(shipped_scenarios()) <= set(rows), sorted(set(shipped_scenarios()) - set(rows))


def _plan_help() -> str:
    from typer.testing import CliRunner

    from planner.cli.commands import app

    result = CliRunner().invoke(app, ["plan", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    return " ".join(result.stdout.split())


def test_width_range_is_stated_the_same_in_help_docs_and_errors():
    from typer.testing import CliRunner

    from planner.cli.commands import app
    from planner.validation import RULES

    stated = RULES["width"].allowed.removeprefix("a number in ")  # the rule the library checks
    assert stated == "[0.001, 1)"
    assert f"in {stated}" in _plan_help()
    row = rf"^\| `--width` \| 0\.08 \| .*in {re.escape(stated)} \|$"
    assert re.search(row, TEXTS["docs/plan.md"], re.M)
    result = CliRunner().invoke(app, ["plan", "--prevalence", "0.08", "--width", "1.5"])
    assert result.exit_code == 2
    assert f"--width must be a number in {stated}, got 1.5" in result.stderr


def test_per_item_scope_is_stated_the_same_in_help_and_docs():
    help_text = _plan_help()
    page = " ".join(TEXTS["docs/plan-several-annotators.md"].split())
    for scope in ("2 to 5, k < M", "alpha, fleiss or psa"):
        assert scope in help_text
        assert scope in page
