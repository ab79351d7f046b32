"""Library messages and notes name parameters, never command-line flags.

The library is called from Python, from scenario files, from the web pages and from the CLI;
only the CLI has flags. An error carries the parameters its sentence names
(``InvalidInput.parameters``) and a result's note writes them in backticks
(``"drop `bootstrap`"``); the CLI renders both as flags (:func:`planner.cli.common.
flag_message`, :func:`planner.errors.shown_note` under :func:`planner.errors.
parameters_named`). So no string of a library module (errors, notes, and the tables
either is built from; docstrings aside) spells ``--flag``, but those listed in
:data:`FLAGS_ALLOWED` with the reason. ``tests/test_public_api.py`` reads the raises alone.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner import MeasureSettings, measure_agreement
from planner.cli.commands import app
from planner.cli.common import flag_for, flag_message
from planner.data.labels import ratings_from_counts
from planner.errors import InvalidInput, parameters_named, shown_note

PACKAGE = Path(__file__).resolve().parent.parent / "planner"
#: the layers that speak to a user of one front end: they may name its flags (``output``
#: prints advice such as the command to rerun)
FRONT_ENDS = ("cli", "web", "output")
FLAG = re.compile(r"(?<![\w-])--[a-z]")
#: ``(module, text in the string)`` that may name a flag, and why
FLAGS_ALLOWED = {
    # the source of ratings typed as four counts: a JSON value (``"source": "--counts"``)
    ("data/labels.py", "--counts"),
    # what each shipped example file is for: the command that reads it
    ("examples.py", "for agree --"),
    ("examples.py", "for plan --labelled"),
}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree``'s module, classes and functions."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def flagged_strings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each string constant (f-string parts too) of ``source`` that
    names a flag, docstrings aside."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and FLAG.search(node.value)
    ]


def _library_modules() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] not in FRONT_ENDS
    )


def test_the_scan_finds_flags_in_messages_notes_and_tables_but_not_in_docstrings():
    source = "\n".join(
        [
            '"""A module about --items."""',
            "raise InvalidInput(f'{x} needs --prevalence', parameter='x')",
            "notes.append('use ' + '--psa-method wilson')",
            "OPTIONS = {'annotators': '--error-rate and --bias'}",
            "raise InvalidInput('items needs prevalence', parameters=('items', 'prevalence'))",
            "def f():",
            '    """Reads --counts."""',
            "    return '-- a dash, not a flag'",
        ]
    )
    assert sorted(line for line, _ in flagged_strings(source)) == [2, 3, 4]


@pytest.mark.slow
def test_no_library_string_names_a_flag_but_the_listed_ones():
    hits = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in _library_modules()
        for line, text in flagged_strings(path.read_text(encoding="utf-8"))
        if not any(
            str(path.relative_to(PACKAGE)) == module and allowed in text
            for module, allowed in FLAGS_ALLOWED
        )
    ]
    assert hits == [], "\n".join(hits)


@pytest.mark.parametrize(
    ("message", "parameters", "shown"),
    [
        ("kappa needs prevalence", ("kappa", "prevalence"), "--kappa needs --prevalence"),
        ("lower n_items", ("n_items",), "lower --items"),
        ("confidence_level too high", ("confidence_level",), "--confidence too high"),
    ],
)
def test_the_cli_names_the_parameters_of_a_library_message_as_flags(message, parameters, shown):
    assert flag_message(InvalidInput(message, parameters=parameters)) == shown


def test_a_note_names_its_parameters_by_name_from_python():
    assert (
        shown_note("use `psa_method` wilson; `n_boot` lower")
        == "use psa_method wilson; n_boot lower"
    )


def test_the_cli_names_a_note_parameter_as_its_flag_and_keeps_unknown_names():
    with parameters_named(flag_for):
        shown = shown_note("use `kappa_method` score, `confidence_level` or `no_such_thing`")
    assert shown == "use --kappa-method score, --confidence or no_such_thing"


def test_agree_shows_the_library_advice_as_flags_on_stderr_and_in_json():
    counts = ["agree", "--counts", "6,21,14,459", "--bootstrap", "--n-boot", "100", "--seed", "1"]
    library = measure_agreement(
        ratings_from_counts(6, 21, 14, 459), MeasureSettings(bootstrap=True, n_boot=100), rng=1
    )
    assert any("drop `bootstrap`:" in n for n in library.notes)
    runner = CliRunner()
    doc = json.loads(runner.invoke(app, [*counts, "--json"]).stdout)
    assert any("drop --bootstrap:" in n for n in doc["notes"])
    assert not any("`" in n for n in doc["notes"])
    text = runner.invoke(app, counts)
    assert text.exit_code == 0
    assert "use --kappa-method score without --bootstrap" in " ".join(text.stderr.split())
