"""The package type-checks and lints clean (mypy and ruff from the test extras)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent


def test_mypy_finds_no_type_errors():
    pytest.importorskip("mypy")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "planner"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-3000:]


def test_ruff_finds_no_lint_errors():
    pytest.importorskip("ruff")
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-3000:]
