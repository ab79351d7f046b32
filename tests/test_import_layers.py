"""Imports run down the layers of docs/design.md, function-local imports included.

Every ``import planner.X`` and ``from planner.X import ...`` in ``planner/`` is read with
:mod:`ast` (module level, inside functions, under ``TYPE_CHECKING``: all count). A module of
layer L may import its own layer and the layers below it, never one above; the top-level
modules (``errors``, ``validation``, ``examples``) import no layer at all. The imports that
still point upward are listed in :data:`KNOWN_UPWARD` by name: the list may only shrink (a
test fails when an entry is no longer needed, so that it is removed), and any new upward
import fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "planner"

#: bottom to top; the order docs/design.md states
LAYERS = (
    "statistics",
    "data",
    "operations",
    "measuring",
    "sizing",
    "application",
    "output",
    "cli",
    "web",
)
TOP_LEVEL = ("errors", "validation", "examples", "renamed")

#: upward imports still to be moved (importer, imported): none is left (every result is
#: serialised in output, no result has a ``to_dict``); none may be added.
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: a command that starts the layer above it: ``planner app`` serves the web layer's pages
ENTRY_POINTS = {("planner.cli.app", "planner.web.server")}


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _imported(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [name for name in names if name.startswith("planner.")]


def _layer(module: str) -> str:
    return module.split(".")[1]


def import_edges() -> set[tuple[str, str]]:
    """Every (importer, imported) pair of planner modules, function-local imports included."""
    edges = set()
    for path in PACKAGE.rglob("*.py"):
        importer = _module_name(path)
        for imported in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            edges.add((importer, imported))
    return edges


def upward(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The edges that import a layer above the importer's (or any layer, from the top level)."""
    found = set()
    for importer, imported in edges:
        source, target = _layer(importer), _layer(imported)
        if target not in LAYERS or source == target:
            continue
        if source in TOP_LEVEL or (
            source in LAYERS and LAYERS.index(target) > LAYERS.index(source)
        ):
            found.add((importer, imported))
    return found


def test_every_subpackage_is_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(LAYERS)
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert modules == set(TOP_LEVEL)


@pytest.mark.slow
def test_no_new_upward_import():
    new = upward(import_edges()) - KNOWN_UPWARD - ENTRY_POINTS
    assert new == set(), sorted(new)


@pytest.mark.slow
def test_every_known_upward_import_still_exists():
    gone = KNOWN_UPWARD - upward(import_edges())
    assert gone == set(), f"remove from KNOWN_UPWARD: {sorted(gone)}"


def test_design_map_states_the_layer_order():
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert " → ".join(f"`{layer}`" for layer in LAYERS) in text


def test_the_reader_finds_function_local_and_type_checking_imports():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from planner.output.jsonout import document\n"
        "def f():\n    import planner.cli.common\n    from planner.sizing import plan\n"
    )
    assert _imported(tree) == ["planner.output.jsonout", "planner.cli.common", "planner.sizing"]
    edges = {
        ("planner.statistics.x", "planner.output.jsonout"),
        ("planner.cli.a", "planner.data.b"),
    }
    assert upward(edges) == {("planner.statistics.x", "planner.output.jsonout")}
