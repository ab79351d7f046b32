"""Library error messages name parameters, never command-line flags.

The library is called from Python, from scenario files and from the CLI; only the CLI has
flags, and it renders a message's parameters as flags (:func:`planner.cli.common.
flag_message`). So every string a library module puts into the first argument of an
``InvalidInput(...)`` or of a raised ``...Error(...)`` / ``TargetUnreachable(...)`` (string
constants and the literal parts of f-strings) must not spell ``--flag``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from planner.cli.common import flag_message
from planner.errors import InvalidInput

PACKAGE = Path(__file__).resolve().parent.parent / "planner"
#: the layers that have flags: they may name them
FLAG_LAYERS = ("cli", "web")
#: the exception constructors whose message the scan reads
ERRORS = re.compile(r"(InvalidInput|TargetUnreachable|SearchLimit|\w*Error)$")
FLAG = re.compile(r"(?<![\w-])--[a-z]")


def _library_modules() -> list[Path]:
    """Every planner module outside the CLI and web layers."""
    return sorted(
        p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] not in FLAG_LAYERS
    )


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _literal_parts(node: ast.AST) -> list[str]:
    """The literal text of ``node``: a string constant, an f-string's literal parts,
    both sides of ``+`` and both branches of a conditional expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [p for v in node.values for p in _literal_parts(v)]
    if isinstance(node, ast.BinOp):
        return _literal_parts(node.left) + _literal_parts(node.right)
    if isinstance(node, ast.IfExp):
        return _literal_parts(node.body) + _literal_parts(node.orelse)
    return []


def flagged_messages(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each error message literal in ``source`` that names a flag."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and ERRORS.match(_callee(node)) and node.args:
            for text in _literal_parts(node.args[0]):
                if FLAG.search(text):
                    hits.append((node.lineno, text))
    return hits


def test_the_scan_finds_a_flag_in_an_f_string_and_in_a_constant():
    source = (
        "raise InvalidInput(f'{x} needs --prevalence', parameter='x')\n"
        "raise ValueError('use ' + '--items')\n"
        "raise InvalidInput('items needs prevalence')\n"
        "note('--prevalence is advice, not an error')\n"
    )
    assert [line for line, _ in flagged_messages(source)] == [1, 2]


def test_no_library_error_message_names_a_flag():
    hits = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text!r}"
        for path in _library_modules()
        for line, text in flagged_messages(path.read_text(encoding="utf-8"))
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
