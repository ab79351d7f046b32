"""DuckDB with many annotators: sparse decoding of the pattern keys, memory, one-line errors.

The count step's keys are decoded into (pattern, annotator, code) entries; these tests
check the decoding against label vectors encoded here independently, check that counting
a crowd of 20,000 annotators allocates nothing of the size of patterns x annotators, that
files with hundreds of annotator columns count under a memory limit as pandas counts them,
and that DuckDB running out of memory is one line at any limit.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reading import read_labels
from planner.errors import PlannerError
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.output.agreement_json import agreement_document

pytestmark = pytest.mark.slow

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

from planner.data.duckdb_counts import KEY_BITS, pattern_entries  # noqa: E402
from planner.data.engine_duckdb import count_labels  # noqa: E402

runner = CliRunner()


def _numeric_keys(vectors: np.ndarray, k: int) -> list[int]:
    """The key as the SQL computes it: sum over rated annotators j of (code + 1)(K + 1)^j."""
    return [
        sum((int(c) + 1) * (k + 1) ** j for j, c in enumerate(row) if c >= 0) for row in vectors
    ]


def _list_keys(vectors: np.ndarray, k: int) -> list[list[int]]:
    """The key as the SQL's list(ann * K + code ORDER BY ann)."""
    return [[j * k + int(c) for j, c in enumerate(row) if c >= 0] for row in vectors]


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(2, 6),
    m=st.integers(2, 12),
    p=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
)
def test_both_keys_decode_to_the_ratings_of_each_label_vector(k, m, p, seed):
    rng = np.random.default_rng(seed)
    vectors = rng.integers(-1, k, (p, m))
    expected = np.nonzero(vectors >= 0)  # pattern-major, annotators ascending
    codes = vectors[expected]
    for numeric, keys in ((True, _numeric_keys(vectors, k)), (False, _list_keys(vectors, k))):
        if numeric and m * math.log2(k + 1) >= KEY_BITS:
            continue
        pattern, annotator, code = pattern_entries(keys, numeric, k, m)
        np.testing.assert_array_equal(pattern, expected[0])
        np.testing.assert_array_equal(annotator, expected[1])
        np.testing.assert_array_equal(code, codes)


def test_a_full_width_numeric_key_decodes_every_digit():
    # 30 annotators, K = 3: 30 * log2(4) = 60 < 62 bits, the largest key holds every digit
    k, m = 3, 30
    vectors = np.array([[k - 1] * m, [-1] * (m - 1) + [0], [0] + [-1] * (m - 1)])
    pattern, annotator, code = pattern_entries(_numeric_keys(vectors, k), True, k, m)
    assert pattern.tolist() == [0] * m + [1, 2]
    assert annotator.tolist() == list(range(m)) + [m - 1, 0]
    assert code.tolist() == [k - 1] * m + [0, 0]


def _crowd(path, n_items: int, n_annotators: int, seed: int = 0) -> None:
    """Three distinct random annotators of a large crowd rate each item (3 labels)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    base = rng.integers(0, n_annotators, n_items)[:, None]
    who = (base + np.arange(3) * (n_annotators // 3)) % n_annotators
    labels = np.where(
        rng.random((n_items, 3)) < 0.8, truth[:, None], rng.integers(0, 3, (n_items, 3))
    )
    pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), 3),
            "annotator": [f"w{a}" for a in who.ravel()],
            "label": labels.ravel(),
        }
    ).to_csv(path, index=False)


def test_a_crowd_is_counted_in_memory_linear_in_its_ratings(tmp_path):
    # 4,000 items x 20,000 annotators: a dense patterns x annotators int64 array would take
    # 4,000 * 20,000 * 8 bytes = 640 MB; 12,000 ratings take well under a megabyte
    path = tmp_path / "crowd.csv"
    _crowd(path, 4_000, 20_000)
    tracemalloc.start()
    try:
        ratings = count_labels(path, memory_limit="1GB")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ratings.n_items == 4_000 and ratings.n_annotators <= 20_000
    assert ratings.n_ratings == 12_000
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MB traced while counting"


def test_a_crowd_counts_as_pandas_reads_it(tmp_path):
    path = tmp_path / "crowd.csv"
    _crowd(path, 1_500, 3_000, seed=3)
    a = agreement_document(measure_agreement(read_labels(path), MeasureSettings(n_boot=100), rng=5))
    b = agreement_document(
        measure_agreement(count_labels(path), MeasureSettings(n_boot=100), rng=5)
    )
    for key in ("coefficients", "summary"):
        assert _rounded(a[key]) == _rounded(b[key]), key


def _rounded(value):
    """JSON-like values with floats rounded to 12 digits (NaN kept comparable)."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, float):
        return "nan" if math.isnan(value) else round(value, 12)
    return value


def _wide(path, n_items: int, n_columns: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    labels = np.where(
        rng.random((n_items, n_columns)) < 0.8,
        truth[:, None],
        rng.integers(0, 2, (n_items, n_columns)),
    )
    frame = pd.DataFrame(labels, columns=[f"a{j}" for j in range(n_columns)])
    frame.insert(0, "item", [f"doc{i}" for i in range(n_items)])
    frame.to_csv(path, index=False)


def test_hundreds_of_annotator_columns_count_under_a_memory_limit(tmp_path):
    # one count(DISTINCT) per column ran DuckDB out of 1 GB at 300 columns x 200 rows
    path = tmp_path / "wide.csv"
    _wide(path, 60, 320)
    counted = count_labels(path, memory_limit="256MB")
    read = read_labels(path)
    assert counted.annotators == read.annotators and counted.n_items == read.n_items == 60
    a = agreement_document(measure_agreement(read, MeasureSettings(n_boot=100), rng=1))
    b = agreement_document(measure_agreement(counted, MeasureSettings(n_boot=100), rng=1))
    assert _rounded(a["coefficients"]) == _rounded(b["coefficients"])


def test_running_out_of_memory_is_a_planner_error_naming_the_limit(tmp_path):
    path = tmp_path / "wide.csv"
    _wide(path, 200, 300)
    with pytest.raises(PlannerError, match="ran out of memory under memory_limit") as caught:
        count_labels(path, memory_limit="8MB")
    assert caught.value.parameters == ("memory_limit", "temp_dir")


@pytest.mark.parametrize("limit", ["4MB", "24MB", "256MB"])
def test_any_memory_limit_gives_an_answer_or_one_line(tmp_path, limit):
    # the sample read, the registered tables and every query: none may escape as a crash
    path = tmp_path / "wide.csv"
    _wide(path, 200, 300)
    contested = tmp_path / "contested.csv"
    result = runner.invoke(
        app,
        ["agree", str(path), "--engine", "duckdb", "--memory-limit", limit,
         "--contested", str(contested)],
    )  # fmt: skip
    assert result.exception is None or isinstance(result.exception, SystemExit)
    if result.exit_code == 0:
        assert contested.exists()
        return
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("note: ")]
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert "Traceback" not in result.output and result.stdout == ""
    assert lines[0] == (
        "error: DuckDB ran out of memory under --memory-limit; raise --memory-limit or give "
        "--temp-dir a folder with free space to spill to"
    )
    assert not contested.exists()


def test_a_wide_file_without_annotator_columns_is_the_same_line_on_both_engines(tmp_path):
    # the id-column count over no columns at all: no SQL to run, the reader's own refusal
    path = tmp_path / "items.csv"
    path.write_text("item,week\na,1\nb,2\n")
    lines = {}
    for engine in ("pandas", "duckdb"):
        result = runner.invoke(
            app, ["agree", str(path), "--engine", engine, "--layout", "wide", "--by", "week"]
        )
        assert result.exit_code == 2, result.output
        lines[engine] = result.stderr.strip().splitlines()
    assert (
        lines["pandas"]
        == lines["duckdb"]
        == [f"error: {path}: fewer than two annotator columns (none)"]
    )
