"""List the functions in Python files that are longer than a limit (default 80 lines).

A function's length is counted from its ``def`` line to its last line, leaving out the
option declarations of a Typer command's signature: the lines of the signature itself
(from ``def`` to the line before the body) are not counted when a parameter is annotated
with ``typer.Option`` or ``typer.Argument``, since those are declarations, not logic.
Nested functions are counted inside their parent and also on their own.

Usage: ``python tools/long_functions.py [--limit N] PATH ...`` (files or folders; default
``planner``). Prints ``path:line name length`` for each long function and exits 1 if any.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

LIMIT = 80


@dataclass(frozen=True)
class LongFunction:
    """A function longer than the limit: where it is and how many lines it counts."""

    path: str
    line: int
    name: str
    length: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name} {self.length}"


def _is_typer_declaration(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether any parameter of the function is annotated with ``typer.Option``/``Argument``."""
    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.annotation is not None and any(
            isinstance(sub, ast.Attribute) and sub.attr in {"Option", "Argument"}
            for sub in ast.walk(arg.annotation)
        ):
            return True
    return False


def function_length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function, without the signature of a Typer command (its option declarations)."""
    end = node.end_lineno or node.lineno
    start = node.body[0].lineno if _is_typer_declaration(node) else node.lineno
    return end - start + 1


def _python_files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.py"))
        else:
            yield path


def long_functions(paths: Iterable[Path | str], limit: int = LIMIT) -> list[LongFunction]:
    """The functions in ``paths`` (files or folders) longer than ``limit`` lines."""
    found = []
    for path in _python_files(Path(p) for p in paths):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = function_length(node)
                if length > limit:
                    found.append(LongFunction(str(path), node.lineno, node.name, length))
    return sorted(found, key=lambda f: (f.path, f.line))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["planner"], type=Path)
    parser.add_argument("--limit", type=int, default=LIMIT)
    options = parser.parse_args(argv)
    found = long_functions(options.paths, options.limit)
    for function in found:
        print(function)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
