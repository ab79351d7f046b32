"""The one bootstrap draws the same resamples whichever engine read the labels.

Conger's kappa is bootstrapped over the distinct label vectors; pandas reads one row per
item in file order, DuckDB, Spark and vector-count files give distinct vectors in their own
order. Every engine's rows are put in one canonical order first
(:func:`planner.measuring.agreement_bootstrap.canonical_rows`), so the same seed gives the
same interval (before the fix, pandas and DuckDB gave 0.54137 and 0.54192 on a 40-annotator
file).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.labels import ratings_from_matrix
from planner.data.reading import read_labels
from planner.data.vector_counts import ratings_from_vector_counts
from planner.measuring.agreement_bootstrap import canonical_rows
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings

BOOTSTRAP = MeasureSettings(bootstrap=True, n_boot=200)


def _study(n: int, m: int, seed: int) -> pd.DataFrame:
    """Long labels of ``n`` items by ``m`` binary annotators, 10% missing, rows shuffled."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    labels = np.where(rng.random((n, m)) < 0.8, truth[:, None], rng.integers(0, 2, (n, m)))
    long = pd.DataFrame(
        [
            (1000 + i, f"r{j:02d}", int(labels[i, j]))
            for i in range(n)
            for j in range(m)
            if rng.random() >= 0.1
        ],
        columns=["item", "annotator", "label"],
    )
    return long.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _conger_interval(ratings) -> tuple[float, float]:
    co = measure_agreement(ratings, BOOTSTRAP, rng=7).coefficients["conger_kappa"]
    assert co.method.startswith("bootstrap"), co.method
    return co.ci_low, co.ci_high


@pytest.fixture(scope="module")
def forty(tmp_path_factory):
    """40 binary annotators: their keys need 40 log2(3) > 62 bits."""
    folder = tmp_path_factory.mktemp("forty")
    long = _study(120, 40, seed=5)
    long.to_csv(folder / "long.csv", index=False)
    # the same labels, items renamed and rows in another order: another pandas row order
    other = long.assign(item=5000 - long["item"]).sample(frac=1.0, random_state=11)
    other.to_csv(folder / "reordered.csv", index=False)
    wide = long.pivot(index="item", columns="annotator", values="label")
    counts = wide.groupby(list(wide.columns), dropna=False).size().rename("count")
    counts.reset_index().sample(frac=1.0, random_state=3).astype("Int64").to_csv(
        folder / "vectors.csv", index=False
    )
    return folder, long


def test_conger_bootstrap_ignores_the_order_pandas_reads_rows_in(forty):
    folder, _ = forty
    assert _conger_interval(read_labels(folder / "long.csv")) == _conger_interval(
        read_labels(folder / "reordered.csv")
    )


@pytest.mark.slow
def test_conger_bootstrap_is_the_same_from_pandas_duckdb_and_vector_counts(forty):
    pytest.importorskip("duckdb")
    from planner.data.engine_duckdb import count_labels

    folder, _ = forty
    read = [
        read_labels(folder / "long.csv"),
        count_labels(folder / "long.csv"),
        ratings_from_vector_counts(folder / "vectors.csv"),
    ]
    first, *others = [measure_agreement(r, BOOTSTRAP, rng=7).coefficients for r in read]
    for other in others:
        assert set(other) == set(first)
        for name, co in first.items():  # every bootstrap interval, not only Conger's
            assert (other[name].ci_low, other[name].ci_high) == (co.ci_low, co.ci_high), name


def test_canonical_rows_count_each_label_vector_once_with_its_items(forty):
    folder, long = forty
    rows = canonical_rows(read_labels(folder / "long.csv"))
    # independently: pandas' vectors of (annotator, label) pairs per item
    expected = Counter(
        tuple(sorted(zip(group["annotator"], group["label"], strict=True)))
        for _, group in long.groupby("item")
    )
    got: Counter = Counter()
    names = rows.annotators
    for row, weight in enumerate(rows.weights):
        mine = rows.item_index == row
        vector = zip(rows.annotator_index[mine], rows.label_index[mine], strict=True)
        got[tuple(sorted((names[a], int(rows.categories[c])) for a, c in vector))] += weight
    assert got == expected
    assert rows.n_rows == len(expected) and rows.weights.sum() == long["item"].nunique()


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(
        st.lists(st.sampled_from([0.0, 1.0, np.nan]), min_size=41, max_size=41).filter(
            lambda row: not all(np.isnan(row))
        ),
        min_size=2,
        max_size=12,
    ),
    order=st.randoms(use_true_random=False),
)
def test_canonical_rows_do_not_depend_on_the_order_of_the_items(labels, order):
    # 41 binary annotators: keys do not fit, so the order comes from the vectors alone
    matrix = np.array(labels)
    shuffled = matrix[order.sample(range(len(matrix)), len(matrix))]
    a = canonical_rows(ratings_from_matrix(matrix, rows="items"))
    b = canonical_rows(ratings_from_matrix(shuffled, rows="items"))
    for name in ("item_index", "annotator_index", "label_index", "weights"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
