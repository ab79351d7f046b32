"""No function in planner/ is longer than about 80 lines.

The checker is tools/long_functions.py (its own tests are in tests/test_house_rules.py); it does not
count a Typer command's option declarations.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from long_functions import LIMIT, long_functions  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes over 0.3 s alone

#: nothing is exempt
NOT_YET: tuple[str, ...] = ()


def _relative(path: str) -> str:
    return Path(path).resolve().relative_to(ROOT).as_posix()


def test_no_function_in_planner_is_over_80_lines():
    found = [
        f for f in long_functions([ROOT / "planner"]) if not _relative(f.path).startswith(NOT_YET)
    ]
    assert [f"{_relative(f.path)}:{f.line} {f.name} {f.length}" for f in found] == []


def test_the_limit_is_80_lines_and_the_checker_sees_the_whole_package():
    assert LIMIT == 80
    # the checker reads every subpackage (a long function anywhere would be found)
    every = long_functions([ROOT / "planner"], limit=10)
    folders = {Path(_relative(f.path)).parts[1] for f in every}
    assert {"statistics", "measuring", "sizing", "data", "output", "operations", "cli"} <= folders
