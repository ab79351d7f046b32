"""No CLI module uses another CLI module's private names (``_name``): what two commands share
lives in a public function (the application layer's, or ``planner.cli.common``'s).

Read with :mod:`ast`: ``from planner.cli.X import _name`` and ``X._name`` where ``X`` is a
``planner.cli`` module the importer imported (``from planner.cli import X``, ``import
planner.cli.X as X``), function-local imports included.
"""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).parent.parent / "planner" / "cli"


def private_uses(source: str, own: str) -> list[str]:
    """``module._name`` for every private name of another ``planner.cli`` module used."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "planner.cli":
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"planner.cli.{alias.name}"
            elif node.module.startswith("planner.cli.") and node.module != own:
                found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("planner.cli.") and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and aliases[node.value.id] != own
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{aliases[node.value.id]}.{node.attr}")
    return found


def test_the_scan_finds_both_ways_of_reaching_a_private_name() -> None:
    source = (
        "from planner.cli.plan_raters import _hidden\n"
        "def f():\n"
        "    from planner.cli import plan_raters\n"
        "    return plan_raters._other, plan_raters.public\n"
    )
    assert private_uses(source, "planner.cli.schedule") == [
        "planner.cli.plan_raters._hidden",
        "planner.cli.plan_raters._other",
    ]
    assert private_uses(source.replace("_hidden", "shown"), "planner.cli.plan_raters") == []


def test_no_cli_module_uses_another_cli_modules_private_names() -> None:
    found = {}
    for path in sorted(CLI.rglob("*.py")):
        own = "planner.cli." + ".".join(path.relative_to(CLI).with_suffix("").parts)
        uses = private_uses(path.read_text(encoding="utf-8"), own)
        if uses:
            found[own] = uses
    assert found == {}
