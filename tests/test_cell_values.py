"""The value rule on a column's distinct values: the vectorised path gives what the rule
gives value by value (:func:`planner.data.cell_values.canonical`), and the codes follow."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.cell_values import (
    SHORT_TEXT,
    canonical,
    canonical_codes,
    canonical_texts,
    sorted_as_text,
)

#: texts with what the rule acts on: spaces around, empty, booleans in any case, accents
#: written decomposed, and texts longer than the vectorised path takes
pieces = st.sampled_from(
    [
        "",
        " ",
        "\t",
        "\n",
        "\x00",
        "a",
        "7",
        "007",
        "TRUE",
        "false",
        "FaLsE",
        "e\u0301",
        "é",
        "x" * 40,
    ]
)
texts = st.lists(pieces, min_size=0, max_size=4).map("".join)
values = st.one_of(
    texts,
    st.integers(-10, 10),
    st.floats(allow_nan=True, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
    st.text(max_size=3 * SHORT_TEXT),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(column=st.lists(values, max_size=30), label=st.booleans())
def test_the_vectorised_rule_is_the_rule_value_by_value(column, label):
    raw = np.array(column + [None], dtype=object)[:-1]  # a 1-d object array, whatever the values
    assert canonical_texts(raw, label=label).tolist() == [canonical(v, label=label) for v in column]


@settings(max_examples=200, deadline=None)
@given(
    column=st.lists(texts, min_size=1, max_size=30, unique=True),
    label=st.booleans(),
    missing=st.sampled_from([(), ("NA",), ("a", " 7 ")]),
)
def test_codes_name_each_value_under_the_rule(column, label, missing):
    codes = np.arange(len(column))
    got, distinct = canonical_codes(
        codes, np.array(column, dtype=object), label=label, missing=missing
    )
    markers = {canonical(m, label=label) for m in missing}
    for code, value in zip(got, column, strict=True):
        text = canonical(value, label=label)
        if text is None or text in markers:
            assert code == -1
        else:
            assert distinct[code] == text
    assert len(set(distinct.tolist())) == len(distinct)  # values that became equal share a code
    first = [canonical(v, label=label) for v in column]
    kept = [t for t in first if t is not None and t not in markers]
    assert distinct.tolist() == list(dict.fromkeys(kept))  # in the order they first appear


@settings(max_examples=200, deadline=None)
@given(
    # files hold no NUL byte (the sniff refuses them), so the values read hold none either
    column=st.lists(texts.filter(lambda t: "\x00" not in t), min_size=1, max_size=30, unique=True),
    label=st.booleans(),
)
def test_a_column_read_under_the_rule_sorts_as_a_second_full_pass_would(column, label):
    # read_table puts a column (its distinct values) under the rule once; ratings_from_long
    # then only sorts it
    raw = np.array(column, dtype=object)
    first, uniques = canonical_codes(np.arange(len(column)), raw, label=label)
    once = sorted_as_text(first, uniques)
    twice = canonical_codes(first, uniques, label=label, sort=True)
    assert once[0].tolist() == twice[0].tolist()
    assert once[1].tolist() == twice[1].tolist()
    assert once[1].tolist() == sorted(set(once[1].tolist()))
