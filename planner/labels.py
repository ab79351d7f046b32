"""Ratings as counts: the :class:`Ratings` object and the numpy counting behind it.

A :class:`Ratings` holds an item x annotator matrix of category codes (-1 where missing),
the categories in order, and per-item grouping values. Statistics never see strings or
DataFrames. Files and DataFrames are read into it by :mod:`planner.reading`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput


@dataclass(frozen=True)
class Ratings:
    """Ratings of ``N`` items by ``m`` annotators into ``K`` ordered categories.

    Attributes
    ----------
    codes
        ``(N, m)`` category codes ``0..K-1``, ``-1`` where an annotator did not rate.
    categories
        ``(K,)`` the label values, in order (numeric order for numbers).
    annotators
        Annotator names, one per column of ``codes``.
    items
        ``(N,)`` item ids.
    groups
        Per-item values of grouping columns (for ``--by``).
    source
        Where the ratings came from, for messages.
    notes
        Things the reader did that the user should know (duplicates dropped, ...).
    ordered
        Whether the category order means something (numeric labels, or ``--order``).
    """

    codes: NDArray[np.int32]
    categories: np.ndarray
    annotators: tuple[str, ...]
    items: np.ndarray
    groups: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "ratings"
    notes: tuple[str, ...] = ()
    ordered: bool = True

    @property
    def n_items(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_annotators(self) -> int:
        return int(self.codes.shape[1])

    @property
    def n_categories(self) -> int:
        return int(len(self.categories))

    def counts(self) -> NDArray[np.int64]:
        """``(N, K)`` number of annotators putting each item in each category."""
        return counts_from_codes(self.codes, self.n_categories)

    def pair_table(self, first: int = 0, second: int = 1) -> NDArray[np.int64]:
        """``(K, K)`` table of two annotators over the items both rated."""
        a, b = self.codes[:, first], self.codes[:, second]
        both = (a >= 0) & (b >= 0)
        k = self.n_categories
        return np.bincount(a[both] * k + b[both], minlength=k * k).reshape(k, k)

    def numeric_values(self, level: str = "interval") -> NDArray[np.float64]:
        """The categories as numbers; raises when a label is not a number."""
        try:
            values = np.asarray([float(v) for v in self.categories])
        except (TypeError, ValueError):
            bad = next(v for v in self.categories if not _is_number(v))
            raise InvalidInput(
                f"{self.source}: --level {level} needs numeric labels, found {bad!r}"
            ) from None
        if level == "ratio" and np.any(values < 0):
            raise InvalidInput(
                f"{self.source}: --level ratio needs non-negative labels, found {values.min():g}"
            )
        return values

    def category_index(self, label: str) -> int:
        """Index of the category whose label is ``label`` (compared as text or number)."""
        for i, value in enumerate(self.categories):
            if str(value) == label:
                return i
            if _is_number(value) and _is_number(label) and float(value) == float(label):
                return i
        shown = ", ".join(str(v) for v in self.categories[:10])
        raise InvalidInput(
            f"--positive {label!r} is not a label in {self.source} (labels: {shown})"
        )

    def select_items(self, mask: NDArray[np.bool_]) -> Ratings:
        """The ratings of a subset of items."""
        return Ratings(
            codes=self.codes[mask],
            categories=self.categories,
            annotators=self.annotators,
            items=self.items[mask],
            groups={k: v[mask] for k, v in self.groups.items()},
            source=self.source,
            notes=self.notes,
        )


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, bool | np.bool_)


def _ratings_per_item(codes: NDArray) -> NDArray[np.int32]:
    """Number of ratings of each item (column by column: fast for few annotators)."""
    out = np.zeros(codes.shape[0], dtype=np.int32)
    for j in range(codes.shape[1]):
        out += codes[:, j] >= 0
    return out


def _finish(
    codes: NDArray[np.int32],
    categories: np.ndarray,
    annotators: tuple[str, ...],
    items: np.ndarray,
    groups: dict[str, np.ndarray],
    source: str,
    notes: list[str],
    note_unrated: bool = True,
    ordered: bool = True,
) -> Ratings:
    per_item = _ratings_per_item(codes)
    rated = per_item > 0
    if not rated.all():
        if note_unrated:
            notes.append(f"{int((~rated).sum())} item(s) with no rating left out")
        codes, items, per_item = codes[rated], items[rated], per_item[rated]
        groups = {k: v[rated] for k, v in groups.items()}
    ratings = Ratings(
        codes=codes,
        categories=categories,
        annotators=annotators,
        items=items,
        groups=groups,
        source=source,
        notes=tuple(notes),
        ordered=ordered,
    )
    if ratings.n_annotators < 2:
        raise InvalidInput(f"{source}: fewer than two annotators ({ratings.n_annotators})")
    if ratings.n_categories == 0:
        raise InvalidInput(f"{source}: no labels at all")
    if not (per_item >= 2).any():
        raise InvalidInput(
            f"{source}: no item has two ratings, so there is no agreement to measure"
        )
    return ratings


_SMALL_SPAN = 64  # integer labels spanning at most this many values take the bincount path


def codes_from_values(values: Any) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
    """Category codes of a numeric ``(N, m)`` matrix (NaN = missing) and the sorted values.

    Integer labels in a small range are coded by a shift (no hashing, no sort); anything
    else goes through ``pandas.unique`` and a binary search. Linear in the ratings.

    >>> codes, cats = codes_from_values([[1.0, 2.0], [2.0, float("nan")]])
    >>> codes.tolist(), cats.tolist()
    ([[0, 1], [1, -1]], [1.0, 2.0])
    """
    v = np.asarray(values, dtype=float)
    small = _small_integer_codes(v)
    if small is not None:
        return small
    import pandas as pd

    flat = v.ravel()
    missing = np.isnan(flat)
    categories = np.sort(pd.unique(flat[~missing]))
    codes = np.searchsorted(categories, flat).astype(np.int32)
    codes[missing] = -1
    return codes.reshape(v.shape), categories


def _small_range(v: NDArray[np.float64]) -> tuple[float, float] | None:
    """``(low, high)`` of the non-missing values when they span fewer than ``_SMALL_SPAN``."""
    if v.size == 0:
        return None
    with np.errstate(invalid="ignore"):
        low, high = np.fmin.reduce(v, axis=None), np.fmax.reduce(v, axis=None)
    if not (np.isfinite(low) and np.isfinite(high)) or high - low >= _SMALL_SPAN:
        return None
    return float(low), float(high)


def _small_integer_codes(v: NDArray[np.float64]) -> tuple[NDArray[np.int32], NDArray] | None:
    """Codes by shifting integer labels, when they span at most ``_SMALL_SPAN`` values."""
    span = _small_range(v)
    if span is None:
        return None
    low, high = span
    shifted = _block_codes(v, low)  # label - low + 1, 0 for missing
    if shifted is None:
        return None
    codes = shifted - 1
    present = np.bincount(shifted.ravel(), minlength=int(high - low) + 2)[1:] > 0
    if present.all():
        return codes, low + np.arange(present.size, dtype=float)
    lookup = np.full(present.size + 1, -1, dtype=np.int32)
    lookup[1:][present] = np.arange(int(present.sum()), dtype=np.int32)
    return lookup[shifted], low + np.flatnonzero(present).astype(float)


def counts_from_codes(codes: NDArray[np.int32], n_categories: int) -> NDArray[np.int64]:
    """``(N, K)`` per-item category counts from ``(N, m)`` codes (-1 = missing)."""
    n = codes.shape[0]
    width = n_categories + 1
    dtype = np.int32 if n * width < 2**31 else np.int64
    flat: NDArray[Any] = np.asarray(codes, dtype=dtype)
    flat = flat + (1 + width * np.arange(n, dtype=dtype))[:, None]
    counts = np.bincount(flat.ravel(), minlength=n * width)
    return counts.reshape(n, width)[:, 1:]


_BLOCK_ROWS = 4096  # rows per block: the temporaries of a block stay in the CPU cache


def _block_codes(block: NDArray[np.float64], low: float) -> NDArray[np.int32] | None:
    """``label - low + 1`` as int32 with 0 for missing; None if a label is not an integer."""
    missing = np.isnan(block)
    with np.errstate(invalid="ignore"):
        codes = block.astype(np.int32)  # NaN casts to an arbitrary integer, zeroed below
    # NaN != anything, so exactly the missing cells differ when every label is an integer
    if np.count_nonzero(codes != block) != np.count_nonzero(missing):
        return None
    codes += np.int32(1 - int(low))
    np.multiply(codes, ~missing, out=codes)
    return codes


def _block_counts(block: NDArray[np.float64], low: float, width: int) -> NDArray | None:
    """Per-row counts ``(rows, width)`` of one block (column 0 counts missing ratings)."""
    codes = _block_codes(block, low)
    if codes is None:
        return None
    rows = block.shape[0]
    codes += (width * np.arange(rows, dtype=np.int32))[:, None]
    return np.bincount(codes.ravel(), minlength=rows * width).reshape(rows, width)


def _small_integer_counts(v: NDArray[np.float64]) -> tuple[NDArray, NDArray] | None:
    """Per-item counts of integer labels spanning few values, in cache-sized row blocks.

    Returns None when a label is not an integer or the labels span too many values.
    """
    span = _small_range(v)
    if span is None:
        return None
    low, high = span
    n = v.shape[0]
    width = int(high - low) + 2  # slot 0 holds the missing ratings
    out = np.empty((n, width), dtype=np.int64)
    for start in range(0, n, _BLOCK_ROWS):
        block = _block_counts(v[start : start + _BLOCK_ROWS], low, width)
        if block is None:
            return None  # a label is not an integer
        out[start : start + block.shape[0]] = block
    counts = out[:, 1:]
    used = counts.sum(axis=0) > 0
    values = low + np.arange(width - 1, dtype=float)
    return (counts, values) if used.all() else (counts[:, used], values[used])


def patterns_from_values(values: Any) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray]:
    """Distinct per-item count patterns, their multiplicities and the category values.

    The statistics of :mod:`planner.multirater` and :mod:`planner.alpha` take these
    directly (``multiplicity=``). Integer labels in a small range go block by block from
    ratings to a pattern code without building the ``(N, K)`` counts; anything else goes
    through :func:`counts_from_values` and :func:`planner.multirater.compress`.

    >>> rows, mult, cats = patterns_from_values([[1, 2], [1, 2], [2, float("nan")]])
    >>> rows.tolist(), mult.tolist(), cats.tolist()
    ([[0, 1], [1, 1]], [1, 2], [1.0, 2.0])
    """
    from planner.multirater import compress

    v = np.asarray(values, dtype=float)
    span = _small_range(v) if v.ndim == 2 else None
    codes = None
    if span is not None:
        low, high = span
        base = v.shape[1] + 1
        width = int(high - low) + 2
        if width * np.log2(base) <= 24:
            codes = _pattern_codes(v, low, width, base)
    if codes is not None:
        mult = np.bincount(codes, minlength=base**width)
        present = np.flatnonzero(mult)
        powers = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
        rows = ((present[:, None] // powers) % base)[:, 1:]  # drop the missing slot
        used = rows.sum(axis=0) > 0
        rows, mult = rows[:, used], mult[present]
        order = np.lexsort(rows.T[::-1])  # the same order as compress()
        categories = low + np.arange(width - 1, dtype=float)
        return rows[order], mult[order], categories[used]
    counts, categories = counts_from_values(v)
    rows, mult = compress(counts)
    return rows, mult, categories


def _pattern_codes(v: NDArray, low: float, width: int, base: int) -> NDArray[np.int64] | None:
    """Per-item pattern code ``sum_k n_ik base^(width-1-k)`` (slot 0 = missing), by blocks."""
    n = v.shape[0]
    out = np.empty(n, dtype=np.int64)
    powers = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
    for start in range(0, n, _BLOCK_ROWS):
        block = _block_counts(v[start : start + _BLOCK_ROWS], low, width)
        if block is None:
            return None
        out[start : start + block.shape[0]] = block @ powers
    return out


def counts_from_values(values: Any) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``(N, K)`` per-item counts and the sorted category values of a numeric matrix.

    Integer labels in a small range are counted block by block without building codes;
    anything else goes through :func:`codes_from_values`.

    >>> counts, cats = counts_from_values([[1, 2, 2], [3, 3, float("nan")]])
    >>> counts.tolist(), cats.tolist()
    ([[1, 2, 0], [0, 0, 2]], [1.0, 2.0, 3.0])
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 2:
        fast = _small_integer_counts(v)
        if fast is not None:
            return fast
    codes, categories = codes_from_values(v)
    return counts_from_codes(codes, len(categories)), categories


def ratings_from_matrix(matrix: Any, annotators: list[str] | None = None) -> Ratings:
    """Ratings from an in-memory ``(N, m)`` array of labels (NaN or None = missing)."""
    import pandas as pd

    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise InvalidInput(f"ratings matrix must be 2-dimensional, got shape {arr.shape}")
    names = annotators or [f"annotator_{j + 1}" for j in range(arr.shape[1])]
    if arr.dtype.kind in "iuf":  # numeric: no object conversion
        codes, values = codes_from_values(arr)
        categories = values.astype(np.int64) if np.all(values == np.round(values)) else values
        return _finish(codes, categories, tuple(names), np.arange(len(arr)), {}, "matrix", [])
    from planner.reading import ratings_from_wide

    frame = pd.DataFrame(arr.astype(object), columns=names)
    return ratings_from_wide(frame, item_col=None, source="matrix")


def ratings_from_counts(both: int, a_only: int, b_only: int, neither: int) -> Ratings:
    """Two annotators' ratings reconstructed from a 2x2 table (labels 1 positive, 0 negative)."""
    cells = [both, a_only, b_only, neither]
    if any(int(c) != c or c < 0 for c in cells):
        raise InvalidInput(f"--counts must be four non-negative whole numbers, got {cells}")
    pattern = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=np.int32)
    labels = np.repeat(pattern, [int(c) for c in cells], axis=0)
    return _finish(
        labels,
        np.array([0, 1]),
        ("A", "B"),
        np.arange(len(labels)),
        {},
        "--counts",
        [],
    )
