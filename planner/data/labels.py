"""Ratings as counts: the :class:`Ratings` object and the numpy counting behind it.

A :class:`Ratings` holds the ratings sparsely, one entry per rating: the item, the
annotator and the category code of each (three integer arrays), the categories in order,
and per-item grouping values. Memory is linear in the number of ratings, never items x
annotators: 100,000 items rated three times each by a crowd of 20,000 annotators take
300,000 entries. Everything downstream (per-item counts, distinct count patterns, pair
tables, per-annotator rates) is computed from these arrays with ``bincount``. A row may
stand for several identical items (``weights``), so a 2x2 table of any size is four rows.
Statistics never see strings or DataFrames. Files and DataFrames are read into it by
:mod:`planner.data.reading`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.validation import compact_repr, shown

DENSE_LIMIT = 50_000_000  # cells of the dense items x annotators ``codes`` matrix, at most
COUNTS_LIMIT = 10**15  # items of a --counts table (multinomial draws need int64 totals)


@dataclass(frozen=True)
class Ratings:
    """Ratings of ``N`` items by ``m`` annotators into ``K`` ordered categories, kept sparse.

    Attributes
    ----------
    item_index, annotator_index, label_index
        ``(R,)`` one entry per rating: the row of the item (``0..len(items)-1``), the
        annotator (``0..m-1``) and the category code (``0..K-1``), sorted by item then
        annotator; each (item, annotator) pair at most once.
    categories
        ``(K,)`` the label values, in order (numeric order for numbers).
    annotators
        Annotator names.
    items
        Item ids, one per row (with ``weights``: the id of the first item a row stands for;
        the others follow consecutively).
    groups
        Per-row values of grouping columns (for ``--by``).
    source
        Where the ratings came from, for messages.
    notes
        Things the reader did that the user should know (layout chosen, missing ratings,
        duplicates dropped, ...).
    ordered
        Whether the category order means something (numeric labels, or ``--order``).
    weights
        ``(rows,)`` how many identical items each row stands for; ``None`` means one each.
    input
        How the input was read, for JSON: layout, columns, missing ratings.
    """

    __repr__ = compact_repr  # shapes, not every value

    item_index: NDArray[np.int64]
    annotator_index: NDArray[np.int32]
    label_index: NDArray[np.int32]
    categories: np.ndarray
    annotators: tuple[str, ...]
    items: np.ndarray
    groups: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "ratings"
    notes: tuple[str, ...] = ()
    ordered: bool = True
    weights: NDArray[np.int64] | None = None
    input: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        """Rows of the per-item arrays (items, or item patterns with ``weights``)."""
        return int(len(self.items))

    @property
    def n_items(self) -> int:
        return int(self.weights.sum()) if self.weights is not None else self.n_rows

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_categories(self) -> int:
        return int(len(self.categories))

    def _rating_weights(self) -> NDArray[np.float64] | None:
        """``(R,)`` how many items each rating stands for (None: one each)."""
        return None if self.weights is None else self.weights[self.item_index].astype(float)

    def ratings_per_item(self) -> NDArray[np.int64]:
        """``(rows,)`` number of ratings of each row."""
        return np.bincount(self.item_index, minlength=self.n_rows)

    @property
    def n_ratings(self) -> int:
        per_row = self.ratings_per_item()
        return int(per_row @ self.weights if self.weights is not None else per_row.sum())

    @property
    def n_pairable_items(self) -> int:
        """Items with two or more ratings."""
        pairable = self.ratings_per_item() >= 2
        return int(self.weights[pairable].sum() if self.weights is not None else pairable.sum())

    def counts(self) -> NDArray[np.int64]:
        """``(rows, K)`` number of annotators putting each item in each category."""
        k = self.n_categories
        key = self.item_index * k + self.label_index
        return np.bincount(key, minlength=self.n_rows * k).reshape(self.n_rows, k)

    def patterns(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Distinct per-item count rows ``(P, K)`` and how many items share each ``(P,)``.

        The same rows, in the same order, as :func:`planner.statistics.multirater.compress` of the
        per-item counts of every item.
        """
        from planner.statistics.multirater import compress

        counts = self.counts()
        if self.weights is None:
            return compress(counts)
        rows, inverse = np.unique(counts, axis=0, return_inverse=True)
        mult = np.bincount(inverse.ravel(), weights=self.weights, minlength=len(rows))
        keep = mult > 0
        return rows[keep], np.round(mult[keep]).astype(np.int64)

    def count_patterns(self) -> Any:
        """The items as :class:`planner.statistics.multirater.Patterns`, linear in the ratings.

        The same patterns, in the same order, as :meth:`patterns` (and as
        :func:`planner.statistics.multirater.compress` of the per-item counts), without the dense
        ``(rows, K)`` counts.
        """
        from planner.statistics.multirater import patterns_from_ratings

        return patterns_from_ratings(
            self.item_index, self.label_index, self.n_rows, self.n_categories, self.weights
        )

    def category_totals(self) -> NDArray[np.int64]:
        """``(K,)`` number of ratings in each category."""
        w = self._rating_weights()
        totals = np.bincount(self.label_index, weights=w, minlength=self.n_categories)
        return np.round(totals).astype(np.int64) if w is not None else totals

    def annotator_labels(self, annotator: int) -> NDArray[np.int32]:
        """``(rows,)`` the category code one annotator gave each row, -1 where none."""
        out = np.full(self.n_rows, -1, dtype=np.int32)
        mine = self.annotator_index == annotator
        out[self.item_index[mine]] = self.label_index[mine]
        return out

    def pair_table(self, first: int = 0, second: int = 1) -> NDArray[np.int64]:
        """``(K, K)`` table of two annotators over the items both rated."""
        a, b = self.annotator_labels(first), self.annotator_labels(second)
        both = (a >= 0) & (b >= 0)
        k = self.n_categories
        w = None if self.weights is None else self.weights[both].astype(float)
        cells = a[both].astype(np.int64) * k + b[both]  # int32 codes: k * k overflows them
        table = np.bincount(cells, weights=w, minlength=k * k)
        return (
            np.round(table).astype(np.int64).reshape(k, k) if w is not None else table.reshape(k, k)
        )

    def positive_rates(self, pos: int) -> NDArray[np.float64]:
        """``(m,)`` share of each annotator's ratings in category ``pos`` (NaN: no rating)."""
        w = self._rating_weights()
        m = self.n_annotators
        rated = np.bincount(self.annotator_index, weights=w, minlength=m)
        hits = np.bincount(
            self.annotator_index,
            weights=(self.label_index == pos) * (1.0 if w is None else w),
            minlength=m,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(rated > 0, hits / np.where(rated > 0, rated, 1), np.nan)

    def value_matrix(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """``(rows, r_max)`` each item's rating values, left-aligned, NaN-padded.

        Annotator identity is dropped: enough for statistics of values within items
        (Krippendorff's alpha), and at most ``rows x`` (most ratings of one item) cells.
        """
        per_row = self.ratings_per_item()
        start = np.concatenate(([0], np.cumsum(per_row)[:-1]))
        slot = np.arange(len(self.item_index)) - start[self.item_index]
        out = np.full((self.n_rows, int(per_row.max(initial=0))), np.nan)
        out[self.item_index, slot] = np.asarray(values, dtype=float)[self.label_index]
        if self.weights is not None:
            out = np.repeat(out, self.weights, axis=0)
        return out

    @property
    def codes(self) -> NDArray[np.int32]:
        """``(rows, m)`` dense category codes, -1 where an annotator did not rate.

        Built on demand, for small data only (at most ``DENSE_LIMIT`` cells): everything
        in the package works from the sparse arrays.
        """
        cells = self.n_rows * self.n_annotators
        if cells > DENSE_LIMIT:
            raise InvalidInput(
                f"{self.source}: a dense items x annotators matrix would have {cells:,} cells "
                f"(limit {DENSE_LIMIT:,}); use the sparse arrays"
            )
        out = np.full((self.n_rows, self.n_annotators), -1, dtype=np.int32)
        out[self.item_index, self.annotator_index] = self.label_index
        return out

    def numeric_values(self, level: str = "interval") -> NDArray[np.float64]:
        """The categories as numbers; raises when a label is not a number."""
        try:
            values = np.asarray([float(v) for v in self.categories])
        except (TypeError, ValueError):
            bad = next(v for v in self.categories if not is_number(v))
            raise InvalidInput(
                f"{self.source}: level {level} needs numeric labels, found {shown(bad)}",
                parameters=("level",),
            ) from None
        if level == "ratio" and np.any(values < 0):
            raise InvalidInput(
                f"{self.source}: level ratio needs non-negative labels, found {values.min():g}",
                parameters=("level",),
            )
        return values

    def category_index(self, label: str) -> int:
        """Index of the category whose label is ``label`` (compared as text or number;
        ``True``, ``TRUE`` and ``true`` name the label ``true``, as the readers read them)."""
        folded = label.strip().lower() if isinstance(label, str) else None
        for i, value in enumerate(self.categories):
            if str(value) == label:
                return i
            if folded in ("true", "false") and str(value).lower() == folded:
                return i
            if is_number(value) and is_number(label) and float(value) == float(label):
                return i
        shown = ", ".join(str(v) for v in self.categories[:10])
        raise InvalidInput(
            f"positive {label!r} is not a label in {self.source} (labels: {shown})",
            parameter="positive",
            value=label,
        )

    def label_vector_keys(self) -> NDArray[np.int64] | None:
        """``(rows,)`` each row's label vector as one number, or None when it does not fit.

        The key is ``sum_j (code_j + 1) (K + 1)^j`` over the annotators ``j`` who rated the
        row (the number DuckDB's count step computes, :mod:`planner.data.engine_duckdb`);
        None when ``(K + 1)^m`` does not fit in 62 bits.
        """
        k, m = self.n_categories, self.n_annotators
        if m * np.log2(k + 1) >= 62 or self.n_rows == 0:
            return None
        powers = (k + 1) ** np.arange(m, dtype=np.int64)
        digits = (self.label_index.astype(np.int64) + 1) * powers[self.annotator_index]
        starts = np.searchsorted(self.item_index, np.arange(self.n_rows))
        return np.add.reduceat(digits, starts)  # every row has a rating (see finished_ratings)

    def distinct_rows(self) -> Ratings | None:
        """The same ratings with one row per distinct label vector, in key order, weighted.

        Rows are sorted by :meth:`label_vector_keys`, so a file counted by DuckDB and the
        same file read by pandas give the same rows in the same order (and the same
        bootstrap draws). Groups and item ids are dropped. None when the keys do not fit.
        """
        keys = self.label_vector_keys()
        if keys is None:
            return None
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        w = np.ones(self.n_rows, dtype=np.int64) if self.weights is None else self.weights
        weights = np.bincount(inverse.ravel(), weights=w, minlength=len(unique))
        mine = np.zeros(self.n_rows, dtype=bool)
        mine[first] = True
        rows = self.select_items(mine)  # rows in their original order: put them in key order
        new_item = np.searchsorted(unique, keys[np.sort(first)])[rows.item_index]
        sort = np.lexsort((rows.annotator_index, new_item))
        return Ratings(
            item_index=new_item[sort].astype(np.int64),
            annotator_index=rows.annotator_index[sort],
            label_index=rows.label_index[sort],
            categories=self.categories,
            annotators=self.annotators,
            items=np.arange(len(unique)),
            source=self.source,
            notes=self.notes,
            ordered=self.ordered,
            weights=np.round(weights).astype(np.int64),
            input=self.input,
        )

    def select_items(self, mask: NDArray[np.bool_]) -> Ratings:
        """The ratings of a subset of rows."""
        keep = np.asarray(mask, dtype=bool)
        renumber = np.cumsum(keep) - 1
        mine = keep[self.item_index]
        return Ratings(
            item_index=renumber[self.item_index[mine]],
            annotator_index=self.annotator_index[mine],
            label_index=self.label_index[mine],
            categories=self.categories,
            annotators=self.annotators,
            items=self.items[keep],
            groups={k: v[keep] for k, v in self.groups.items()},
            source=self.source,
            notes=self.notes,
            ordered=self.ordered,
            weights=None if self.weights is None else self.weights[keep],
            input=self.input,
        )


def is_number(value: Any) -> bool:
    """Whether ``float(value)`` succeeds (labels that read as numbers)."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, bool | np.bool_)


def triplets_from_codes(
    codes: NDArray[np.integer],
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int32]]:
    """``(item, annotator, code)`` of the rated cells of a dense ``(N, m)`` code matrix."""
    c = np.asarray(codes)
    item, annotator = np.nonzero(c >= 0)  # row-major: sorted by item, then annotator
    return item.astype(np.int64), annotator.astype(np.int32), c[item, annotator].astype(np.int32)


@dataclass(frozen=True)
class CodedRatings:
    """Ratings as codes, before :func:`finished_ratings` checks them and leaves out the
    unrated items.

    Attributes
    ----------
    triplets
        ``(item, annotator, code)`` arrays, sorted by item: item and annotator indices
        into ``items`` and ``annotators``, label codes into ``categories``.
    categories
        The labels, in code order.
    annotators
        The annotators' names.
    items
        The item ids, one per item index (rated or not).
    groups
        Each grouping column's value per item (default: none).
    weights
        How many items each row stands for (``None``: one each).
    """

    triplets: tuple[NDArray, NDArray, NDArray]
    categories: np.ndarray
    annotators: tuple[str, ...]
    items: np.ndarray
    groups: dict[str, np.ndarray] = field(default_factory=dict)
    weights: NDArray[np.int64] | None = None


def finished_ratings(
    coded: CodedRatings,
    source: str,
    notes: list[str],
    *,
    note_unrated: bool = True,
    ordered: bool = True,
    input: dict[str, Any] | None = None,
) -> Ratings:
    """Ratings from sorted (item, annotator, code) triplets; rows with no rating left out.

    ``coded`` holds the triplets and what their codes stand for; ``source`` names the
    ratings in messages; ``notes`` are kept, with one more when ``note_unrated`` and some
    items have no rating; ``ordered``: the categories have an order; ``input``: what was
    read (:attr:`Ratings.input`).
    """
    item, annotator, label = coded.triplets
    categories, annotators, items = coded.categories, coded.annotators, coded.items
    groups, weights = coded.groups, coded.weights
    item = np.asarray(item, dtype=np.int64)
    if len(categories) == 0 or item.size == 0:
        raise InvalidInput(f"{source}: no labels at all (every label cell is empty)")
    per_item = np.bincount(item, minlength=len(items))
    rated = per_item > 0
    if not rated.all():
        if note_unrated:
            notes.append(f"{int((~rated).sum())} item(s) with no rating left out")
        item = (np.cumsum(rated) - 1)[item]
        items, per_item = items[rated], per_item[rated]
        groups = {k: v[rated] for k, v in groups.items()}
        weights = None if weights is None else weights[rated]
    if len(annotators) < 2:
        raise InvalidInput(f"{source}: fewer than two annotators ({len(annotators)})")
    if not (per_item >= 2).any():
        raise InvalidInput(
            f"{source}: no item has two ratings, so there is no agreement to measure"
        )
    return Ratings(
        item_index=item,
        annotator_index=np.asarray(annotator, dtype=np.int32),
        label_index=np.asarray(label, dtype=np.int32),
        categories=categories,
        annotators=annotators,
        items=items,
        groups=groups,
        source=source,
        notes=tuple(notes),
        ordered=ordered,
        weights=weights,
        input=dict(input or {}),
    )


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

    The statistics of :mod:`planner.statistics.multirater` and :mod:`planner.statistics.alpha`
    take these
    directly (``multiplicity=``). Integer labels in a small range go block by block from
    ratings to a pattern code (:func:`_pattern_codes`) without building the ``(N, K)``
    counts; anything else goes through :func:`counts_from_values` and
    :func:`planner.statistics.multirater.compress`.

    >>> rows, mult, cats = patterns_from_values([[1, 2], [1, 2], [2, float("nan")]])
    >>> rows.tolist(), mult.tolist(), cats.tolist()
    ([[0, 1], [1, 1]], [1, 2], [1.0, 2.0])
    """
    from planner.statistics.multirater import compress

    v = np.asarray(values, dtype=float)
    span = _small_range(v) if v.ndim == 2 else None
    codes = None
    if span is not None and -(2**31) < span[0] and span[1] < 2**31:
        low, high = span
        base = v.shape[1] + 1
        n_categories = int(high - low) + 1
        if n_categories * np.log2(base) <= 24:
            codes = _pattern_codes(v, low, n_categories, base)
    if codes is not None:
        mult = np.bincount(codes, minlength=base**n_categories)
        present = np.flatnonzero(mult)
        powers = base ** np.arange(n_categories, dtype=np.int64)
        rows = (present[:, None] // powers) % base
        used = rows.sum(axis=0) > 0
        rows, mult = rows[:, used], mult[present]
        order = np.lexsort(rows.T[::-1])  # the same order as compress()
        categories = low + np.arange(n_categories, dtype=float)
        return rows[order], mult[order], categories[used]
    counts, categories = counts_from_values(v)
    rows, mult = compress(counts)
    return rows, mult, categories


_TABLE_SIZE = 4096  # entries of a column group's lookup table: it stays in the CPU cache


def _group_table(weights: NDArray[np.float64], size: int) -> tuple[NDArray[np.float64], int]:
    """``T[s_1 S^(g-1) + ... + s_g] = sum_p w[s_p]`` over ``g`` slots of ``S`` values, and ``g``.

    ``g`` is the largest group whose ``S^g`` entries fit in ``size`` (at least 1).
    """
    table, group = weights, 1
    while table.size * weights.size <= size:
        table, group = (table[:, None] + weights[None, :]).ravel(), group + 1
    return table, group


def _pattern_codes(v: NDArray, low: float, n_categories: int, base: int) -> NDArray[Any] | None:
    """Per-item pattern code ``sum_k n_ik base^k`` of integer labels ``low + k``, by blocks.

    A cell's slot is ``label - low + 1`` (0 = missing) and weighs ``w[s] = base^(s - 1)``
    (``w[0] = 0``). Columns go in groups of ``g``: one matrix product turns a block's slots
    into one index per group (``sum_p s_p S^(g-1-p)``, exact in floating point), a lookup
    table gives the group's summed weights, and a second product adds the groups. All
    integers stay below ``2^53``, so every step is exact. None if a label is not an integer.
    """
    n, m = v.shape
    slots = n_categories + 1
    weights = np.zeros(slots)
    weights[1:] = float(base) ** np.arange(n_categories)
    table, group = _group_table(weights, _TABLE_SIZE)
    n_groups = -(-m // group)
    digits = np.zeros((m, n_groups))
    for j in range(m):  # column j is digit j % group of group j // group
        width = min(group, m - j // group * group)
        digits[j, j // group] = float(slots) ** (width - 1 - j % group)
    floor = low - 1.0  # a missing rating becomes slot 0
    offset = floor * digits.sum(axis=0)
    ones = np.ones(n_groups)
    out = np.empty(n)
    for start in range(0, n, _BLOCK_ROWS):
        filled = np.fmax(v[start : start + _BLOCK_ROWS], floor)  # NaN -> floor
        if (np.rint(filled) != filled).any():
            return None
        index = filled @ digits
        index -= offset
        np.matmul(table.take(index.astype(np.intp)), ones, out=out[start : start + len(index)])
    return out.astype(np.int64)


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


def ratings_from_matrix(
    matrix: Any, annotators: list[str] | None = None, *, rows: str | None = None
) -> Ratings:
    """Ratings from an in-memory array of labels (NaN or None = missing).

    Parameters
    ----------
    matrix
        ``(N, m)``: one row per item, one column per annotator (``rows="items"``), or its
        transpose ``(m, N)`` (``rows="annotators"``, the orientation of the
        ``krippendorff`` package's ``reliability_data``).
    annotators
        Names of the annotators (default ``annotator_1``, ...).
    rows
        What the rows are: ``"items"`` or ``"annotators"``. When not given, rows are items,
        and a matrix with fewer rows than columns is refused as ambiguous: more annotators
        than items is rare, and a transposed matrix gives a wrong answer, not an error.

    Notes
    -----
    Infinite numeric labels are refused.

    Examples
    --------
    >>> ratings_from_matrix([[1, 1, 2], [1, 2, 2]], rows="annotators").n_items
    3
    """
    if annotators is not None and not isinstance(annotators, list | tuple):
        raise InvalidInput(
            f"annotators must be a list of names, got {type(annotators).__name__}",
            parameter="annotators",
        )
    import pandas as pd

    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise InvalidInput(
            f"matrix must be 2-dimensional, got shape {arr.shape}", parameter="matrix"
        )
    if rows is not None and (not isinstance(rows, str) or rows not in ("items", "annotators")):
        raise InvalidInput(f"rows must be 'items' or 'annotators', got {rows!r}", parameter="rows")
    if rows is None and arr.shape[0] < arr.shape[1]:
        raise InvalidInput(
            f"the ratings matrix has {arr.shape[0]} rows and {arr.shape[1]} columns: say what "
            "the rows are, rows='items' (one column per annotator) or rows='annotators' (one "
            "column per item, as the krippendorff package's reliability_data)",
            parameter="rows",
        )
    if rows == "annotators":
        arr = arr.T
    names = annotators or [f"annotator_{j + 1}" for j in range(arr.shape[1])]
    if arr.dtype.kind in "iuf":  # numeric: no object conversion
        if arr.dtype.kind == "f" and np.isinf(arr).any():
            row = int(np.flatnonzero(np.isinf(arr).any(axis=1))[0]) + 1
            raise InvalidInput(f"matrix: row {row} has a non-finite label (inf)")
        codes, values = codes_from_values(arr)
        categories = values.astype(np.int64) if np.all(values == np.round(values)) else values
        return finished_ratings(
            CodedRatings(triplets_from_codes(codes), categories, tuple(names), np.arange(len(arr))),
            "matrix",
            [],
            input={"layout": "matrix", "annotator_cols": list(names)},
        )
    from planner.data.reader_settings import ReaderSettings
    from planner.data.reading import ratings_from_wide

    frame = pd.DataFrame(arr.astype(object), columns=names)
    return ratings_from_wide(frame, ReaderSettings(item_col=None), source="matrix")


def ratings_from_counts(both: int, a_only: int, b_only: int, neither: int) -> Ratings:
    """Two annotators' ratings from a 2x2 table (labels 1 positive, 0 negative).

    Four rows stand for all the items (``weights``), so memory and time do not grow with
    the counts; items are numbered 0, 1, ... in the order both, A only, B only, neither.
    The table may hold at most ``COUNTS_LIMIT`` items.

    >>> r = ratings_from_counts(6, 21, 14, 459)
    >>> r.n_items, r.n_rows, r.pair_table().tolist()
    (500, 4, [[459, 14], [21, 6]])
    """
    cells = [both, a_only, b_only, neither]
    for name, c in zip(("both", "a_only", "b_only", "neither"), cells, strict=True):
        if isinstance(c, bool) or not isinstance(c, int | np.integer) or c < 0:
            raise InvalidInput(
                f"{name} must be a non-negative whole number, got {shown(c)}",
                parameter=name, value=c, rule="a non-negative whole number",
            )  # fmt: skip
    total = sum(int(c) for c in cells)
    if total > COUNTS_LIMIT:
        raise InvalidInput(
            f"counts must add up to at most {COUNTS_LIMIT:,} items, got {total:,}",
            parameter="counts",
        )
    pattern = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=np.int32)
    weights = np.array([int(c) for c in cells], dtype=np.int64)
    first_ids = np.concatenate(([0], np.cumsum(weights)[:-1]))
    keep = weights > 0
    pattern, weights, first_ids = pattern[keep], weights[keep], first_ids[keep]
    rows = np.arange(len(weights), dtype=np.int64)
    return finished_ratings(
        CodedRatings(
            (
                np.repeat(rows, 2),
                np.tile(np.array([0, 1], dtype=np.int32), len(rows)),
                pattern.ravel(),
            ),
            np.array([0, 1]),
            ("A", "B"),
            first_ids,
            weights=weights,
        ),
        "--counts",
        [],
        input={"layout": "counts", "n_items": total, "n_missing_ratings": 0},
    )
