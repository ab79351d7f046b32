"""Regressions from issue 13's independent tester: reading and ``agree`` files.

Huge whole-number labels, the contested-items file of both engines, gzip-compressed input.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

runner = CliRunner()
_HUGE = "item,a,b,c\n1,1e19,2e19,1.5e19\n2,1e19,1e19,3e19\n3,5e19,1e19,1e19\n4,2e19,2e19,2e19\n"
_HUGE_VALUES = np.array(
    [[1e19, 2e19, 1.5e19], [1e19, 1e19, 3e19], [5e19, 1e19, 1e19]] + [[2e19] * 3]
)


def _engines() -> list[str]:
    try:
        import duckdb  # noqa: F401
    except ImportError:
        return ["pandas"]
    return ["pandas", "duckdb"]


@pytest.mark.parametrize("engine", _engines())
def test_labels_beyond_int64_keep_their_values(tmp_path, engine):
    # before: every value was cast to int64 and wrapped to -9223372036854775808
    path = tmp_path / "huge.csv"
    path.write_text(_HUGE)
    args = ["agree", str(path), "--layout", "wide", "--level", "interval", "--json"]
    result = runner.invoke(app, [*args, "--engine", engine, "--seed", "1"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["categories"] == [1e19, 1.5e19, 2e19, 3e19, 5e19]
    # Krippendorff's interval alpha by hand: the value's scale does not change alpha, so
    # the same data in units of 1e19 give it (the krippendorff package gives -0.2628 too)
    scaled = _HUGE_VALUES / 1e19
    pairs = [(u, i, j) for u in scaled for i in range(3) for j in range(3) if i != j]
    d_o = sum((u[i] - u[j]) ** 2 for u, i, j in pairs) / 2  # m_u - 1 = 2
    flat = scaled.ravel()
    d_e = ((flat[:, None] - flat[None, :]) ** 2).sum() / (flat.size - 1)
    expected = 1 - d_o / d_e
    assert expected == pytest.approx(-0.2628, abs=1e-4)
    assert doc["coefficients"]["krippendorff_alpha"]["estimate"] == pytest.approx(expected, 1e-12)


def test_whole_numbers_within_int64_stay_integers(tmp_path):
    path = tmp_path / "ints.csv"
    path.write_text("item,a,b\n1,9007199254740993,2\n2,2,2\n3,1,2\n")
    result = runner.invoke(app, ["agree", str(path), "--layout", "wide", "--json", "--seed", "1"])
    assert result.exit_code == 0, result.output
    categories = json.loads(result.stdout)["categories"]
    assert all(isinstance(c, int) for c in categories)
