"""The command-line fuzz: every command, every option, no traceback, nothing written astray.

The fuzz itself is in ``tests/test_fuzz_*.py`` (one module per group of commands) over
``tests/cli_fuzzing.py`` (values, input files, the sandboxed run and its checks; read its
docstring for the list of checks). This module checks that the fuzz knows every option of
every command, read from the Typer apps themselves: a new option fails here until it has
its values in a fuzz table.

CI runs a deterministic slice (tests/conftest.py; all fuzz modules together well under a
minute). The exploration, more than 3,000 invocations in all, logged instead of failing
and summarised at the end (the exit-code mix, each kind of problem with a reproducer),
runs from the repository root with::

    nice -n 10 python -m tests.cli_fuzzing explore /tmp/planner-fuzz

(the folder is emptied first; it keeps the log, fuzz.jsonl, and sandbox/inputs/, the files
the reproducers name; FUZZ_TIMEOUT, default 60 there, bounds each invocation).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from hypothesis import given
from hypothesis import strategies as st

from planner.cli.commands import app, plan_app
from tests.cli_fuzzing import (
    APP_OPTIONS,
    FLAG,
    Opt,
    choice,
    digest,
    fuzz_settings,
    invoke,
    options,
    problems,
    run,
    runner,
)
from tests.test_fuzz_agree import agree_options, fit_options
from tests.test_fuzz_alt_test_compat import IRR_OPTIONS, KAPPASIZE_OPTIONS, alt_test_options
from tests.test_fuzz_plan import plan_options
from tests.test_fuzz_schedule_report import (
    EXAMPLES_OPTIONS,
    SCENARIOS_OPTIONS,
    report_options,
    schedule_options,
)

NOWHERE = Path("/nonexistent")
#: the options of the groups themselves (``planner --version``, ``planner compat``)
GROUP_OPTIONS: dict[str, dict[str, Opt]] = {
    "planner": {
        "--version": FLAG,
        "--debug": FLAG,
        # prints the script and exits; only the three shells Typer documents
        "--show-completion": Opt(choice("bash", "zsh", "fish"), choice("bash", "zsh", "fish")),
    },
    "planner compat": {},
}
#: options the fuzz knows but never runs: --install-completion writes to the user's shell
#: rc files (~/.bashrc, ~/.zshrc, fish's config), outside any sandbox the fuzz can check
NOT_RUN: dict[str, dict[str, None]] = {"planner": {"--install-completion": None}}
TABLES = {
    "plan": plan_options(NOWHERE),
    "plan-script": plan_options(NOWHERE),
    "agree": agree_options(NOWHERE),
    "fit": fit_options(NOWHERE),
    "alt-test": alt_test_options(NOWHERE),
    "compat kappasize": KAPPASIZE_OPTIONS,
    "compat irr": IRR_OPTIONS,
    "schedule": schedule_options(NOWHERE),
    "report": report_options(NOWHERE),
    "scenarios": SCENARIOS_OPTIONS,
    "examples": {**EXAMPLES_OPTIONS, "--copy": None},
    "app": APP_OPTIONS,  # never run: it serves until stopped
}


def _commands() -> dict[str, list[str]]:
    """Every leaf command of the two apps with its options (``--help`` aside)."""
    found: dict[str, list[str]] = {}

    def walk(command, name: str) -> None:  # noqa: ANN001
        flags = [o for p in command.params for o in getattr(p, "opts", []) if o.startswith("-")]
        subcommands = getattr(command, "commands", None)
        found[f"planner {name}".strip() if subcommands else name] = [
            f for f in flags if f != "--help"
        ]
        for sub, child in (subcommands or {}).items():
            walk(child, f"{name} {sub}".strip())

    walk(typer.main.get_command(app), "")
    walk(typer.main.get_command(plan_app), "")
    found["plan-script"] = found.pop("")
    return found


def test_the_fuzz_knows_every_command_and_option():
    tables = {**TABLES, **GROUP_OPTIONS}
    tables = {c: {**t, **NOT_RUN.get(c, {})} for c, t in tables.items()}
    commands = _commands()
    assert set(commands) == set(tables), "a command the fuzz does not run (or no longer exists)"
    unknown = {c: sorted(set(flags) - set(tables[c])) for c, flags in commands.items()}
    stale = {c: sorted(set(tables[c]) - set(flags)) for c, flags in commands.items()}
    assert not any(unknown.values()), f"options the fuzz does not know: {unknown}"
    assert not any(stale.values()), f"options the fuzz knows that no longer exist: {stale}"


def test_every_kappasize_function_is_fuzzed():
    from planner.sizing.compat_kappasize import FUNCTIONS
    from tests.test_fuzz_alt_test_compat import FUNCTIONS as FUZZED

    assert sorted(FUZZED) == sorted(FUNCTIONS) and len(FUZZED) == 12


SHORT = [["plan", "--prevalence", "0.2", "--replicates", "100"], ["plan", "--prevalence", "2"]]
SHORT += [["agree", "--counts", "6,21,14,459"], ["compat", "irr", "N.cohen.kappa"], ["fit"]]
SHORT += [["scenarios"], ["nothing"], ["compat"], []]


@pytest.mark.slow
@fuzz_settings(ci=8, explore=60)
@given(data=st.data())
def test_fuzz_group_options(fuzz_dir, data):
    """``planner --version``, ``planner --debug CMD ...`` (a traceback allowed, nothing else)."""
    args = data.draw(options(GROUP_OPTIONS["planner"], max_size=2))
    run("", args + data.draw(st.sampled_from(SHORT)), fuzz_dir)


@pytest.mark.parametrize("args", [["--help"], ["plan", "--help"], ["agree", "--help"], []])
def test_help_and_no_arguments_are_clean(args):
    result = runner.invoke(app, args)
    assert result.exit_code in (0, 2) and "Traceback" not in result.output


# ----------------------------------------------------------------------------- the checks


class _Result:
    """What the runner returns, as far as :func:`problems` reads it."""

    def __init__(self, code: int, stdout: str = "", stderr: str = "") -> None:
        self.exit_code, self.exception = code, None
        self.stdout, self.stderr, self.output = stdout, stderr, stdout + stderr


@pytest.mark.parametrize(
    ("result", "args", "expected"),
    [
        (_Result(0, "ok\n"), [], []),
        (_Result(3), [], ["exit code 3"]),
        (_Result(0, "a \x1b]0;t\x07 b"), [], ["raw control character '\\x1b' on stdout"]),
        (_Result(2, "", "note: x\nerror: y\n"), [], []),
        (_Result(2, "", "error: y\nmore\n"), [], ["2 lines on stderr besides notes"]),
        (_Result(0, "{"), ["--json"], ["invalid JSON on stdout"]),
        (_Result(1, "", "error: internal error: E\n"), [], ["error: internal error: E"]),
        (_Result(1, "", "Traceback\nerror: internal error: E\n"), ["--debug"], []),
    ],
)
def test_the_checks_see_what_they_look_for(result, args, expected):
    found = problems("agree", args, result)
    assert len(found) == len(expected)
    assert all(p.startswith(e) for p, e in zip(found, expected, strict=True))


@pytest.mark.slow
def test_the_sandbox_sees_a_write_outside_it_and_a_changed_input(fuzz_dir, tmp_path):
    outside = tmp_path / "contested.csv"
    result, found = invoke(
        "agree", ["--counts", "6,21,14,459", "--contested", str(outside)], fuzz_dir
    )
    assert result.exit_code == 0 and outside.exists()
    assert any(p.startswith("wrote outside the temporary folder") for p in found)
    before = digest(fuzz_dir / "inputs")
    victim = fuzz_dir / "inputs" / "long.csv"
    text = victim.read_text()
    victim.write_text(text + "4,A,no\n")
    try:
        assert digest(fuzz_dir / "inputs") != before
    finally:
        victim.write_text(text)
    assert digest(fuzz_dir / "inputs") == before
