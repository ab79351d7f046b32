"""Reading label files: formats, layouts, missing ratings and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.labels import ratings_from_counts
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.errors import InvalidInput
from tests.conftest import KRIPPENDORFF_2011


def _long_frame() -> pd.DataFrame:
    rows = []
    for annotator, values in KRIPPENDORFF_2011.items():
        for unit, value in enumerate(values, start=1):
            if value is not None:
                rows.append(
                    {
                        "item": f"u{unit}",
                        "annotator": annotator,
                        "label": value,
                        "week": 1 + unit // 7,
                    }
                )
    return pd.DataFrame(rows)


def _write(frame: pd.DataFrame, path) -> None:
    suffix = path.suffix
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".jsonl"])
def test_every_format_and_layout_gives_the_same_counts(tmp_path, suffix, krippendorff_counts):
    long = _long_frame()
    wide = pd.DataFrame({"item": [f"u{i}" for i in range(1, 13)], **KRIPPENDORFF_2011})
    wide = wide.astype({name: "Float64" for name in KRIPPENDORFF_2011})
    for frame, name in ((long, "long"), (wide, "wide")):
        path = tmp_path / f"{name}{suffix}"
        _write(frame, path)
        ratings = read_labels(path)
        assert ratings.n_annotators == 4
        assert [int(c) for c in ratings.categories] == [1, 2, 3, 4, 5]
        # the items are the 12 units (order may differ in the long layout)
        order = np.argsort([int(str(i)[1:]) for i in ratings.items])
        np.testing.assert_array_equal(ratings.counts()[order], krippendorff_counts)


def test_custom_column_names_and_grouping(tmp_path):
    frame = _long_frame().rename(columns={"item": "doc", "annotator": "rater", "label": "code"})
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    ratings = read_labels(
        path, ReaderSettings(item_col="doc", annotator_col="rater", label_col="code", by=("week",))
    )
    assert ratings.n_items == 12 and set(ratings.groups["week"]) == {1, 2}


def test_string_labels_sorted_and_ordered(tmp_path):
    frame = pd.DataFrame({"a": ["low", "high", "mid", "mid"], "b": ["low", "mid", "mid", None]})
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert list(read_labels(path, ReaderSettings(layout="wide")).categories) == [
        "high",
        "low",
        "mid",
    ]
    ordered = read_labels(path, ReaderSettings(layout="wide", order=["low", "mid", "high"]))
    assert list(ordered.categories) == ["low", "mid", "high"]
    np.testing.assert_array_equal(ordered.codes, [[0, 0], [2, 1], [1, 1], [1, -1]])


def test_identical_repeats_are_kept_once(tmp_path):
    frame = pd.DataFrame(
        {"item": [1, 1, 1, 2, 2], "annotator": ["x", "y", "x", "x", "y"], "label": [1, 0, 1, 0, 0]}
    )
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    ratings = read_labels(path)
    assert ratings.n_items == 2 and any("repeated" in note for note in ratings.notes)


@pytest.mark.parametrize(
    ("frame", "kwargs", "message"),
    [
        (
            pd.DataFrame({"item": [1, 1], "annotator": ["x", "x"], "label": [1, 0]}),
            {},
            "labelled by annotator 'x' more than once with different labels",
        ),
        (
            pd.DataFrame({"item": [1, 1], "annotator": ["x", "x"], "label": [1, 1]}),
            {},
            "fewer than two annotators",
        ),
        (
            pd.DataFrame({"item": [1, 2], "annotator": ["x", "y"], "label": [1, 0]}),
            {},
            "no item has two ratings",
        ),
        (
            pd.DataFrame({"x": [1], "y": ["x"], "label": [1]}),  # no name says item, annotator
            {"layout": "long"},
            "missing column(s) 'item', 'annotator'",
        ),
        (
            pd.DataFrame({"item": [1, None], "annotator": ["x", "y"], "label": [1, 0]}),
            {},
            "row 2 has no 'item'",
        ),
        # one column: refused by the sniff (no delimiter), before pandas reads the file
        (pd.DataFrame({"only": [1, 2]}), {}, "the first line has no comma"),
        (pd.DataFrame({"a": [1, 2], "b": [1, 1]}), {"annotator_cols": ["a"]}, "fewer than two"),
        (pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}), {"order": ["x"]}, "are not in order"),
    ],
)
def test_bad_files_raise_one_clear_error(tmp_path, frame, kwargs, message):
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InvalidInput, match="bad.csv") as info:
        read_labels(path, ReaderSettings(**kwargs))
    assert message in str(info.value)


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(InvalidInput, match="no such file"):
        read_labels(tmp_path / "nope.csv")
    odd = tmp_path / "labels.xyz"
    odd.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidInput, match="unknown file type"):
        read_labels(odd)
    broken = tmp_path / "broken.parquet"
    broken.write_text("not parquet")
    with pytest.raises(InvalidInput, match="is not a Parquet file"):  # sniffed: no magic bytes
        read_labels(broken)
    broken.write_bytes(b"PAR1 but then junk")
    with pytest.raises(InvalidInput, match="cannot be read as parquet"):
        read_labels(broken)


def test_labels_must_fit_the_level(tmp_path):
    path = tmp_path / "text.csv"
    pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}).to_csv(path, index=False)
    with pytest.raises(InvalidInput, match="needs numeric labels"):
        read_labels(path).numeric_values("interval")
    path = tmp_path / "neg.csv"
    pd.DataFrame({"a": [-1, 2], "b": [2, 2]}).to_csv(path, index=False)
    with pytest.raises(InvalidInput, match="non-negative"):
        read_labels(path).numeric_values("ratio")


def test_counts_reconstruct_the_table():
    ratings = ratings_from_counts(6, 21, 14, 459)
    np.testing.assert_array_equal(ratings.pair_table(), [[459, 14], [21, 6]])
    with pytest.raises(InvalidInput, match="must be a non-negative whole number") as info:
        ratings_from_counts(1, -1, 0, 3)
    assert info.value.parameter == "a_only" and info.value.value == -1


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 300),
    st.integers(2, 12),
    st.sampled_from([(0, 3), (-2, 5), (1, 40), (0, 200)]),
    st.floats(0, 0.5),
    st.booleans(),
    st.integers(0, 10_000),
)
def test_fast_counts_and_patterns_equal_the_generic_path(n, m, span, missing, fractional, seed):
    from planner.data.labels import (
        codes_from_values,
        counts_from_codes,
        counts_from_values,
        patterns_from_values,
    )
    from planner.statistics.multirater import compress

    rng = np.random.default_rng(seed)
    values = rng.integers(span[0], span[1] + 1, (n, m)).astype(float)
    if fractional:
        values[0, 0] += 0.5
    values[rng.random((n, m)) < missing] = np.nan
    if np.isnan(values).all():
        return
    # the generic path: hash-based discovery and binary search
    flat = values.ravel()
    categories = np.unique(flat[~np.isnan(flat)])
    codes = np.where(np.isnan(flat), -1, np.searchsorted(categories, flat)).reshape(n, m)
    expected = counts_from_codes(codes.astype(np.int32), len(categories))
    counts, cats = counts_from_values(values)
    np.testing.assert_array_equal(cats, categories)
    np.testing.assert_array_equal(counts, expected)
    fast_codes, fast_cats = codes_from_values(values)
    np.testing.assert_array_equal(fast_codes, codes)
    rows, mult, pattern_cats = patterns_from_values(values)
    ref_rows, ref_mult = compress(expected)
    np.testing.assert_array_equal(pattern_cats, categories)
    np.testing.assert_array_equal(rows, ref_rows)
    np.testing.assert_array_equal(mult, ref_mult)
