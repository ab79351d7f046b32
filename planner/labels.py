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
    """

    codes: NDArray[np.int32]
    categories: np.ndarray
    annotators: tuple[str, ...]
    items: np.ndarray
    groups: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "ratings"
    notes: tuple[str, ...] = ()

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
        n, k = self.n_items, self.n_categories
        rows = np.broadcast_to(np.arange(n)[:, None], self.codes.shape)
        ok = self.codes >= 0
        flat = rows[ok].astype(np.int64) * k + self.codes[ok]
        return np.bincount(flat, minlength=n * k).reshape(n, k)

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


def _finish(
    codes: NDArray[np.int32],
    categories: np.ndarray,
    annotators: tuple[str, ...],
    items: np.ndarray,
    groups: dict[str, np.ndarray],
    source: str,
    notes: list[str],
) -> Ratings:
    rated = (codes >= 0).any(axis=1)
    if not rated.all():
        notes.append(f"{int((~rated).sum())} item(s) with no rating left out")
    ratings = Ratings(
        codes=codes[rated],
        categories=categories,
        annotators=annotators,
        items=items[rated],
        groups={k: v[rated] for k, v in groups.items()},
        source=source,
        notes=tuple(notes),
    )
    if ratings.n_annotators < 2:
        raise InvalidInput(f"{source}: fewer than two annotators ({ratings.n_annotators})")
    if ratings.n_categories == 0:
        raise InvalidInput(f"{source}: no labels at all")
    if not ((ratings.codes >= 0).sum(axis=1) >= 2).any():
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
    import pandas as pd

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
    item_codes, item_ids = pd.factorize(frame[item_col], sort=False)
    ann_codes, ann_names = pd.factorize(frame[annotator_col], sort=False)
    label_codes, uniques = pd.factorize(labels, sort=False)
    categories, ranks = _ordered_categories(uniques, order, source)
    label_codes = ranks[label_codes].astype(np.int32)
    n, m = len(item_ids), len(ann_names)
    key = item_codes.astype(np.int64) * m + ann_codes
    repeats = np.bincount(key, minlength=n * m)
    if (repeats > 1).any():
        dup_keys = np.flatnonzero(repeats > 1)
        order_idx = np.argsort(key, kind="stable")
        sorted_keys = key[order_idx]
        starts = np.searchsorted(sorted_keys, dup_keys)
        for dup, start in zip(dup_keys, starts, strict=True):
            rows = order_idx[start : start + repeats[dup]]
            if len(set(label_codes[rows].tolist())) > 1:
                shown = ", ".join(str(categories[c]) for c in label_codes[rows])
                raise InvalidInput(
                    f"{source}: row {_row_number(frame, int(rows[1]))}: item "
                    f"{item_ids[dup // m]!r} is labelled by annotator {ann_names[dup % m]!r} "
                    f"more than once with different labels ({shown})"
                )
        notes.append(f"{int((repeats[dup_keys] - 1).sum())} repeated identical rating(s) kept once")
    codes = np.full(n * m, -1, dtype=np.int32)
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
    )


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
    )


def ratings_from_matrix(matrix: Any, annotators: list[str] | None = None) -> Ratings:
    """Ratings from an in-memory ``(N, m)`` array of labels (NaN or None = missing)."""
    import pandas as pd

    arr = np.asarray(matrix, dtype=object)
    if arr.ndim != 2:
        raise InvalidInput(f"ratings matrix must be 2-dimensional, got shape {arr.shape}")
    names = annotators or [f"annotator_{j + 1}" for j in range(arr.shape[1])]
    frame = pd.DataFrame(arr, columns=names)
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


def read_table(path: str | Path, file_format: str | None = None) -> Any:
    """Read a label file with pandas; errors name the file."""
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
        if fmt == "csv":
            return pd.read_csv(p)
        if fmt == "tsv":
            return pd.read_csv(p, sep="\t")
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
    frame = read_table(path, file_format)
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
