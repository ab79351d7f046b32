"""Reading label files: huge whole-number labels, both engines' contested-items file, gzip input.

Huge whole-number labels, the contested-items file of both engines, gzip-compressed input.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

pytestmark = pytest.mark.slow

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
    if case == "long integer ids":  # ids as written (text), in numeric order
        first_column = [line.split(b",")[0] for line in written["pandas"].splitlines()[1:]]
        numbers = [int(v) for v in first_column]
        assert numbers == sorted(numbers) and b"010" in first_column


# --- gzip-compressed label files ----------------------------------------------------------

_WAX = Path(__file__).parent / "data" / "alt_test" / "wax.csv.gz"
# nitaytech/AltTest's notebook at 18428b1 (as tests/test_alt_test.py's PUBLISHED): wax, epsilon 0.1
_WAX_PUBLISHED = {
    "gemini_flash": (0.38, 0.69), "gemini_pro": (0.50, 0.74), "gpt-4o": (0.50, 0.73),
    "llama-31": (0.00, 0.57), "gpt-4o-mini": (0.00, 0.59), "mistral-v03": (0.00, 0.50),
}  # fmt: skip


@pytest.mark.parametrize("engine", _engines())
def test_alt_test_reads_a_gzip_csv(engine):
    # before: "unknown file type '.gz'" (and with --format csv: "contains NUL bytes")
    import pandas as pd

    from planner.data.reading import ratings_from_long
    from planner.measuring.alt_test import alt_test

    llm_args = [a for name in _WAX_PUBLISHED for a in ("--llm", name)]
    args = ["alt-test", str(_WAX), "--layout", "long", *llm_args, "--epsilon", "0.1", "--json"]
    result = runner.invoke(app, [*args, "--engine", engine])
    assert result.exit_code == 0, result.output
    got = {v["llm"]: (v["omega"], v["rho"]) for v in json.loads(result.stdout)["llms"]}
    assert {k: (round(o, 2), round(r, 2)) for k, (o, r) in got.items()} == _WAX_PUBLISHED
    frame = pd.read_csv(_WAX).drop(columns="role")
    library = alt_test(ratings_from_long(frame), list(_WAX_PUBLISHED), epsilon=0.1)
    for v in library.llms:  # the engines agree to 1e-12, not bit for bit
        assert got[v.llm] == pytest.approx((v.omega, v.rho), rel=1e-12, abs=1e-12)


def _agree_json(*args: str) -> dict:
    result = runner.invoke(app, ["agree", *args, "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    estimates = {name: c["estimate"] for name, c in doc["coefficients"].items()}
    return {"estimates": estimates, **{k: doc[k] for k in ("n_items", "categories", "annotators")}}


@pytest.mark.parametrize("engine", _engines())
@pytest.mark.parametrize("name", ["labels.csv.gz", "labels.dat"])
def test_agree_on_gzip_equals_agree_on_the_text(tmp_path, engine, name):
    import gzip

    plain = Path(__file__).parents[1] / "examples" / "wide.csv"
    packed = tmp_path / name
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    fmt = ["--format", "csv"] if name.endswith(".dat") else []
    options = ["--layout", "wide", "--annotators", "alice,bob,carol"]
    expected = _agree_json(str(plain), *options, "--engine", "pandas")
    got = _agree_json(str(packed), *options, *fmt, "--engine", engine)
    assert got["estimates"] == pytest.approx(expected.pop("estimates"), rel=1e-12, abs=1e-12)
    assert {k: got[k] for k in expected} == expected


def test_gzip_tsv_and_jsonl(tmp_path):
    import gzip

    tsv = tmp_path / "r.tsv.gz"
    tsv.write_bytes(gzip.compress(b"item\tannotator\tlabel\n1\ta\tx\n1\tb\ty\n2\ta\tx\n2\tb\tx\n"))
    jsonl = tmp_path / "r.jsonl.gz"
    rows = [("1", "a", "x"), ("1", "b", "y"), ("2", "a", "x"), ("2", "b", "x")]
    text = "".join(json.dumps({"item": i, "annotator": a, "label": v}) + "\n" for i, a, v in rows)
    jsonl.write_bytes(gzip.compress(text.encode()))
    assert _agree_json(str(tsv), "--layout", "long") == _agree_json(str(jsonl), "--layout", "long")


def test_a_broken_gzip_file_is_one_line(tmp_path):
    import gzip

    broken = tmp_path / "cut.csv.gz"
    broken.write_bytes(gzip.compress(b"item,a,b\n" + b"1,x,y\n" * 5000)[:40])
    result = runner.invoke(app, ["agree", str(broken), "--layout", "wide"])
    assert result.exit_code in (1, 2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cut.csv.gz" in lines[0] and "Traceback" not in result.output


@pytest.mark.parametrize("engine", _engines())
def test_a_gzip_file_cut_after_its_head_is_one_line(tmp_path, engine):
    # the head decompresses (the sniff passes); the rest of the stream is missing
    import gzip

    rng = np.random.default_rng(0)
    rows = "".join(f"{i},{rng.integers(0, 5)},{rng.integers(0, 5)}\n" for i in range(100_000))
    packed = gzip.compress(("item,a,b\n" + rows).encode())
    cut = tmp_path / "half.csv.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    result = runner.invoke(app, ["agree", str(cut), "--layout", "wide", "--engine", engine])
    assert result.exit_code in (1, 2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "half.csv.gz" in lines[0], result.output
