"""Reading label files and DataFrames into :class:`~planner.labels.Ratings`, once, at the door.

A label file is CSV, TSV, Parquet or JSON Lines, read by pandas, in one of two layouts:

* **long**: one row per rating, with an item column, an annotator column and a label
  column (names configurable; defaults ``item``, ``annotator``, ``label``);
* **wide**: one row per item and one column per annotator (an optional item column gives
  the item ids; other columns can be named as annotators or as grouping columns).

Missing ratings are allowed (empty cells, or no row). Errors name the file, and the row
where it helps: a missing column, an (item, annotator) pair labelled twice with different
labels, fewer than two annotators, no item with two ratings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.labels import Ratings, _finish, _is_number

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
