"""Reading label files into counts, once, at the door.

A label file is CSV, TSV, Parquet or JSON Lines, read by pandas, in one of two layouts:

* **long**: one row per rating, with an item column, an annotator column and a label
  column (names configurable; defaults ``item``, ``annotator``, ``label``);
* **wide**: one row per item and one column per annotator (an optional item column gives
  the item ids; other columns can be named as annotators or as grouping columns).

Missing ratings are allowed (empty cells, or no row). The result is a :class:`Ratings`:
an item x annotator matrix of category codes (-1 where missing), the categories in order,
and per-item grouping values. Statistics never see strings or DataFrames.

Errors name the file, and the row where it helps: a missing column, an (item, annotator)
pair labelled twice with different labels, fewer than two annotators, no item with two
ratings, labels that do not fit the level of measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
LAYOUTS = ("auto", "long", "wide")


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


def _factorize(column: Any, check_unused: bool = True) -> tuple[NDArray[np.integer], np.ndarray]:
    """Codes and uniques of a column; integer ids in a compact range skip hashing.

    Categorical columns (dictionary-encoded by the reader) give their codes directly; their
    categories are all used unless rows were dropped (``check_unused``). Integer ids in a
    compact range are their own codes; ids in the range that never occur become items with
    no rating, which :func:`_finish` leaves out.
    """
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):  # codes come from the reader
        codes = column.cat.codes.to_numpy()
        categories = np.asarray(column.cat.categories)
        if not check_unused:
            return codes, categories
        used = (
            np.bincount(codes[codes >= 0] if codes.min() < 0 else codes, minlength=len(categories))
            > 0
        )
        if not used.all():
            lookup = np.append(np.cumsum(used) - 1, -1)  # index -1 keeps -1
            codes, categories = lookup[codes], categories[used]
        return codes, categories
    if pd.api.types.is_integer_dtype(column.dtype) and len(column):
        values = column.to_numpy()
        low, high = int(values.min()), int(values.max())
        if high - low <= 2 * values.size + 1024:
            shifted = values - low if low else values
            return shifted, np.arange(low, high + 1, dtype=values.dtype)
    codes, uniques = pd.factorize(column, sort=False)
    return codes, np.asarray(uniques)


def _ordered_categories(
    uniques: Any, order: list[str] | None, source: str
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted category values and the permutation from factorize order to sorted order."""
    values = np.asarray(uniques, dtype=object)
    if order is not None:
        position = {str(label): i for i, label in enumerate(order)}
        missing = [str(v) for v in values if str(v) not in position]
        if missing:
            raise InvalidInput(f"{source}: label(s) {', '.join(missing[:5])} are not in --order")
        ranks = np.array([position[str(v)] for v in values])
    elif all(_is_number(v) for v in values):
        ranks = np.argsort(np.argsort(np.array([float(v) for v in values]), kind="stable"))
    else:
        ranks = np.argsort(np.argsort(np.array([str(v) for v in values]), kind="stable"))
    sorted_values = np.empty(len(values), dtype=object)
    sorted_values[ranks] = values
    if all(_is_number(v) for v in values) and len(values):
        numeric = np.array([float(v) for v in sorted_values])
        if np.all(numeric == np.round(numeric)):
            sorted_values = numeric.astype(np.int64)
        else:
            sorted_values = numeric
    return sorted_values, ranks


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


def ratings_from_long(
    frame: Any,
    *,
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    by: tuple[str, ...] = (),
    order: list[str] | None = None,
    source: str = "ratings",
) -> Ratings:
    """Ratings from a long DataFrame: one row per (item, annotator, label)."""

    _require_columns(frame, [item_col, annotator_col, label_col, *by], source)
    notes: list[str] = []
    labels = frame[label_col]
    present = labels.notna().to_numpy()
    if not present.all():
        frame = frame[present]
        labels = frame[label_col]
    for col in (item_col, annotator_col):
        missing = frame[col].isna().to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise InvalidInput(f"{source}: row {_row_number(frame, row)} has no {col!r}")
    dropped = not present.all()
    item_codes, item_ids = _factorize(frame[item_col])
    ann_codes, ann_names = _factorize(frame[annotator_col], check_unused=dropped)
    label_codes, uniques = _factorize(labels, check_unused=dropped)
    categories, ranks = _ordered_categories(uniques, order, source)
    if not np.array_equal(ranks, np.arange(len(ranks))):
        label_codes = ranks.astype(np.int32)[label_codes]
    n, m = len(item_ids), len(ann_names)
    key_dtype = np.int64 if n * m >= 2**31 else np.int32
    key: NDArray[Any] = np.asarray(item_codes, dtype=key_dtype) * m
    key += np.asarray(ann_codes, dtype=key_dtype)
    codes = np.full(n * m, -1, dtype=np.int32)
    codes[key] = label_codes
    if np.count_nonzero(codes >= 0) != len(key):  # some (item, annotator) rated twice
        notes.append(
            _repeated_ratings(key, label_codes, categories, item_ids, ann_names, frame, source)
        )
        codes[key] = label_codes
    groups = {}
    for col in by:
        first = np.full(n, -1, dtype=np.int64)
        positions = np.arange(len(item_codes))[::-1]
        first[item_codes[::-1]] = positions
        groups[col] = frame[col].to_numpy()[first]
    return _finish(
        codes.reshape(n, m),
        categories,
        tuple(str(a) for a in ann_names),
        np.asarray(item_ids),
        groups,
        source,
        notes,
        note_unrated=False,  # ids that never occur are not items
        ordered=order is not None or categories.dtype.kind in "iuf",
    )


def _repeated_ratings(
    key: NDArray,
    label_codes: NDArray,
    categories: np.ndarray,
    item_ids: np.ndarray,
    ann_names: np.ndarray,
    frame: Any,
    source: str,
) -> str:
    """Fail on an (item, annotator) rated twice with different labels; else a note."""
    m = len(ann_names)
    order_idx = np.argsort(key, kind="stable")
    sorted_keys = key[order_idx]
    repeated = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    for pos in repeated:
        first, second = order_idx[pos], order_idx[pos + 1]
        if label_codes[first] != label_codes[second]:
            dup = int(sorted_keys[pos])
            shown = f"{categories[label_codes[first]]}, {categories[label_codes[second]]}"
            raise InvalidInput(
                f"{source}: row {_row_number(frame, int(max(first, second)))}: item "
                f"{item_ids[dup // m]!r} is labelled by annotator {ann_names[dup % m]!r} "
                f"more than once with different labels ({shown})"
            )
    return f"{repeated.size} repeated identical rating(s) kept once"


def ratings_from_wide(
    frame: Any,
    *,
    item_col: str | None = "item",
    annotator_cols: list[str] | None = None,
    by: tuple[str, ...] = (),
    order: list[str] | None = None,
    source: str = "ratings",
) -> Ratings:
    """Ratings from a wide DataFrame: one row per item, one column per annotator."""
    import pandas as pd

    _require_columns(frame, list(by) + list(annotator_cols or []), source)
    has_item = item_col is not None and item_col in frame.columns
    columns = annotator_cols or [
        c for c in frame.columns if c not in set(by) and not (has_item and c == item_col)
    ]
    if len(columns) < 2:
        raise InvalidInput(
            f"{source}: fewer than two annotator columns ({', '.join(map(str, columns)) or 'none'})"
        )
    block = frame[columns]
    stacked = block.to_numpy(dtype=object).ravel()
    present = pd.notna(stacked)
    label_codes, uniques = pd.factorize(stacked[present], sort=False)
    categories, ranks = _ordered_categories(uniques, order, source)
    codes = np.full(stacked.shape, -1, dtype=np.int32)
    codes[present] = ranks[label_codes]
    items = frame[item_col].to_numpy() if has_item else np.arange(len(frame))
    groups = {col: frame[col].to_numpy() for col in by}
    return _finish(
        codes.reshape(len(frame), len(columns)),
        categories,
        tuple(str(c) for c in columns),
        np.asarray(items),
        groups,
        source,
        [],
        ordered=order is not None or categories.dtype.kind in "iuf",
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


def _require_columns(frame: Any, columns: list[str], source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        have = ", ".join(map(str, frame.columns[:12]))
        raise InvalidInput(
            f"{source}: missing column(s) {', '.join(map(repr, missing))} (columns are: {have})"
        )


def _row_number(frame: Any, position: int) -> int:
    """1-based data row number (header excluded) of a positional row in the original file."""
    label = frame.index[position]
    return int(label) + 1 if isinstance(label, int | np.integer) else position + 1


def read_table(
    path: str | Path, file_format: str | None = None, categories_for: tuple[str, ...] = ()
) -> Any:
    """Read a label file with pandas; errors name the file.

    ``categories_for`` names CSV/TSV columns to read as categoricals (annotator and label
    columns of the long layout).
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"{p}: no such file")
    fmt = file_format or FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise InvalidInput(
            f"{p}: unknown file type {p.suffix!r}; use --format csv|tsv|parquet|jsonl"
        )
    try:
        if fmt in ("csv", "tsv"):
            sep = "," if fmt == "csv" else "\t"
            header = pd.read_csv(p, sep=sep, nrows=0).columns
            # repeated text columns are dictionary-encoded while parsing: faster to read and
            # already factorized
            codes = {c: "category" for c in categories_for or () if c in header}
            return pd.read_csv(p, sep=sep, dtype=codes or None)
        if fmt == "parquet":
            return pd.read_parquet(p)
        if fmt == "jsonl":
            return pd.read_json(p, lines=True)
    except (ValueError, OSError, pd.errors.ParserError, ImportError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidInput(f"{p}: cannot be read as {fmt}: {first}") from None
    raise InvalidInput(f"--format must be one of csv, tsv, parquet, jsonl; got {fmt!r}")


def read_labels(
    path: str | Path,
    *,
    layout: str = "auto",
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    annotator_cols: list[str] | None = None,
    by: tuple[str, ...] = (),
    order: list[str] | None = None,
    file_format: str | None = None,
) -> Ratings:
    """Read a label file (long or wide) into :class:`Ratings`.

    Parameters
    ----------
    path
        CSV, TSV, Parquet or JSON Lines file (type from the suffix or ``file_format``).
    layout
        ``"long"``, ``"wide"`` or ``"auto"`` (long when the item, annotator and label
        columns are all present).
    item_col, annotator_col, label_col
        Column names of the long layout (``item_col`` also names the ids in wide files).
    annotator_cols
        Wide layout: the annotator columns (default: every column but the item and
        grouping columns).
    by
        Grouping columns kept per item (first value of each item).
    order
        Category order for ordinal string labels, lowest first.
    """
    if layout not in LAYOUTS:
        raise InvalidInput(f"--layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    categorical = (annotator_col, label_col) if layout in ("auto", "long") else ()
    frame = read_table(path, file_format, categorical)
    source = str(path)
    is_long = layout == "long" or (
        layout == "auto" and {item_col, annotator_col, label_col} <= set(frame.columns)
    )
    if is_long:
        return ratings_from_long(
            frame,
            item_col=item_col,
            annotator_col=annotator_col,
            label_col=label_col,
            by=by,
            order=order,
            source=source,
        )
    return ratings_from_wide(
        frame, item_col=item_col, annotator_cols=annotator_cols, by=by, order=order, source=source
    )
