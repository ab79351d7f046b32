"""Regressions from issue 13's independent tester: reading and ``agree`` files.

Huge whole-number labels, the contested-items file of both engines, gzip-compressed input.
"""

from __future__ import annotations

import json
from pathlib import Path

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


def _long_file(path, n_annotators: int, ids: list[str]) -> None:
    rng = np.random.default_rng(len(ids) + n_annotators)
    lines = ["item,annotator,label"]
    for item in ids:
        for a in range(n_annotators):
            if rng.random() < 0.7:  # missing ratings: empty cells in the wide file
                label = rng.choice(["yes", "no, not", "x"])
                lines.append(f'{item},"ann, {a:02d}","{label}"')
    path.write_text("\n".join(lines) + "\n")


_CONTESTED_CASES = {
    "wide example": (None, ["--layout", "wide", "--annotators", "alice,bob,carol"]),
    "long text ids": (("b", "a", "c10", "c9", "d", "e", "f", "g"), ["--layout", "long"]),
    "long integer ids": (("010", "2", "9", "11", "3", "5", "4", "7"), ["--layout", "long"]),
}


@pytest.mark.skipif(_engines() == ["pandas"], reason="needs the duckdb package")
@pytest.mark.parametrize("case", sorted(_CONTESTED_CASES))
@pytest.mark.parametrize("n_annotators", [3, 60])
def test_contested_file_is_the_same_bytes_from_both_engines(tmp_path, case, n_annotators):
    # before: pandas wrote CRLF and empty cells, DuckDB LF and "", items in another order
    ids, options = _CONTESTED_CASES[case]
    if ids is None:
        if n_annotators != 3:
            pytest.skip("the example has three annotators")
        source = str(Path(__file__).parents[1] / "examples" / "wide.csv")
    else:
        _long_file(tmp_path / "long.csv", n_annotators, [*ids] * 1)
        source = str(tmp_path / "long.csv")
    written = {}
    for engine in ("pandas", "duckdb"):
        target = tmp_path / f"{engine}.csv"
        args = ["agree", source, *options, "--engine", engine, "--contested", str(target)]
        result = runner.invoke(app, [*args, "--seed", "1"])
        assert result.exit_code == 0, result.output
        written[engine] = target.read_bytes()
    assert written["pandas"] == written["duckdb"]
    assert b"\r" not in written["pandas"] and b'""' not in written["pandas"]
    assert written["pandas"].count(b"\n") > 2
    if case == "long integer ids":  # ids as pandas reads them, in numeric order
        first_column = [line.split(b",")[0] for line in written["pandas"].splitlines()[1:]]
        numbers = [int(v) for v in first_column]
        assert numbers == sorted(numbers) and b"010" not in first_column
