"""Reading label files and DataFrames into :class:`~planner.data.labels.Ratings`, once, at the door.

A label file is CSV, TSV, Parquet or JSON Lines, read by pandas, in one of two layouts:

* **long**: one row per rating, with an item column, an annotator column and a label
  column (names configurable; defaults ``item``, ``annotator``, ``label``);
* **wide**: one row per item and one column per annotator (an optional item column gives
  the item ids; other columns can be named as annotators or as grouping columns).

Nothing is guessed silently. ``layout="auto"`` reads a file as long when the item,
annotator and label columns are all there, and as wide only when no other column looks
like an item, annotator or label column and the annotator columns share their labels;
otherwise it refuses, naming the columns seen and the options to set. A column whose
values are all different (ids) is never an annotator. The layout and columns chosen are
stated in :attr:`Ratings.notes` and :attr:`Ratings.input`.

Missing ratings are only empty cells (and JSON or Parquet nulls), or no row; text such as
``NA``, ``None``, ``null`` or ``n/a`` is a label unless ``missing`` names it. Non-finite
numbers (``inf``, ``-inf``, the text ``nan``) are refused. Files are sniffed before
pandas sees them: NUL bytes, text that is not UTF-8, a CSV first line without a
delimiter, a Parquet file without its magic bytes are refused in one line. Other errors
name the file, and the row where it helps: a missing column, an (item, annotator) pair
labelled twice with different labels, fewer than two annotators, no item with two ratings.
"""

from __future__ import annotations

import datetime
import importlib.util
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.cell_values import canonical_codes, sorted_as_text
from planner.data.labels import CodedRatings, Ratings, finished_ratings, is_number
from planner.data.layout import (
    SAMPLE_ROWS,
    Columns,
    MissingColumns,
    check_roles,
    find_columns,
    id_columns,
)
from planner.data.reader_settings import LAYOUTS as LAYOUTS
from planner.data.reader_settings import ReaderSettings
from planner.data.sniff import check_path, format_suffix, is_gzip, sniff
from planner.errors import InvalidInput, PlannerError
from planner.validation import check_instance, shown

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


_DEFAULT_SETTINGS = ReaderSettings()

# --------------------------------------------------------------------------- columns


def _factorize(column: Any, *, ids: bool = False) -> tuple[NDArray[np.integer], np.ndarray]:
    """Codes and the values they stand for, only values that occur.

    Categorical columns (dictionary-encoded by the reader) give their codes directly, with
    declared categories that never occur dropped (a Parquet file may declare more). With
    ``ids`` (the item column), integer ids in a compact range are their own codes: ids in
    the range that never occur become rows with no rating, which :func:`finished_ratings`
    leaves out.
    Annotators and labels never take that shortcut: a value that does not occur must not
    become an annotator or a category.
    """
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):  # codes come from the reader
        codes = column.cat.codes.to_numpy()
        categories = np.asarray(column.cat.categories)
        if codes.size == 0:
            return codes, categories[:0]
        used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
        if not used.all():
            lookup = np.append(np.cumsum(used) - 1, -1)  # index -1 keeps -1
            codes, categories = lookup[codes], categories[used]
        return codes, categories
    if ids and pd.api.types.is_integer_dtype(column.dtype) and len(column):
        if column.isna().any():  # a nullable integer column with nulls: no id for those rows
            codes, uniques = pd.factorize(column, sort=False)
            return codes, np.asarray(uniques, dtype=np.int64)
        values = column.to_numpy(dtype=np.int64)
        low, high = int(values.min()), int(values.max())
        if high - low <= 2 * values.size + 1024:
            shifted = values - low if low else values
            return shifted, np.arange(low, high + 1, dtype=values.dtype)
    codes, uniques = pd.factorize(column, sort=False)
    return codes, np.asarray(uniques)


def _rule_codes(
    column: Any,
    *,
    label: bool = False,
    ids: bool = False,
    missing: tuple[str, ...] = (),
    sort: bool = False,
) -> tuple[NDArray[np.integer], np.ndarray]:
    """Codes (-1: missing) and the values they stand for, under the one value rule.

    :func:`_factorize`, then :func:`planner.data.cell_values.canonical_codes` on the
    distinct values (``sort``: sorted as text). A column of integers, whose text is already
    distinct and bare, is kept as numbers, in numeric order, unless ``missing`` names some.
    """
    codes, uniques = _factorize(column, ids=ids)
    if np.asarray(uniques).dtype.kind in "iu" and not missing:
        return codes, uniques
    if not missing and _under_rule(column, label):  # read_table's: under this rule already
        return sorted_as_text(codes, uniques) if sort else (codes, uniques)
    return canonical_codes(codes, uniques, label=label, missing=missing, sort=sort)


def _rule_name(label: bool) -> str:
    """The name :func:`_rule_categorical` gives the categories of a column it put under the
    label rule (``label``) or the text rule, so that the column is not put under it twice."""
    return "planner: under the label rule" if label else "planner: under the value rule"


def _under_rule(column: Any, label: bool) -> bool:
    """Whether ``column`` is a categorical :func:`_rule_categorical` made under the rule."""
    import pandas as pd

    if not isinstance(column.dtype, pd.CategoricalDtype):
        return False
    return bool(column.cat.categories.name == _rule_name(label))


_NOT_LABELS = (dict, list, tuple, set, np.ndarray, bytes, datetime.date, datetime.time)


def _refuse_containers(values: Any, source: str, row_of: Callable[[int], int]) -> None:
    """Refuse objects, arrays, bytes and dates as labels or ids: they are not text or numbers."""
    array = np.asarray(values) if not hasattr(values, "dtype") else values
    if len(array) == 0:
        return
    if getattr(array.dtype, "kind", "") in "mM":
        raise InvalidInput(
            f"{source}: the values are dates or durations ({str(array[0])[:40]}); labels and ids "
            "must be text or numbers (convert the column to text first)"
        )
    if array.dtype != object:
        return
    flat = np.asarray(array, dtype=object).ravel()
    bad = np.fromiter((isinstance(v, _NOT_LABELS) for v in flat), bool, flat.size)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        value = flat[position]
        kind = "an array"
        if isinstance(value, dict):
            kind = "an object"
        elif isinstance(value, bytes):
            kind = "bytes"
        elif isinstance(value, datetime.date | datetime.time):
            kind = "a date or time"
        raise InvalidInput(
            f"{source}: row {row_of(position)}: a value is {kind} ({str(value)[:40]}); "
            "labels and ids must be text or numbers"
        )


_INT64_BOUND = 2.0**63  # whole-number labels at or beyond this magnitude stay floats


def ordered_categories(
    uniques: Any, order: list[str] | None, source: str
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted category values and the permutation from factorize order to sorted order.

    Non-finite numbers are refused by :func:`_refuse_non_finite` before this is called.
    """
    values = np.asarray(uniques, dtype=object)
    numeric = len(values) > 0 and all(is_number(v) for v in values)
    keys: np.ndarray
    if order is not None:
        position = {str(label): i for i, label in enumerate(order)}
        missing = [str(v) for v in values if str(v) not in position]
        if missing:
            raise InvalidInput(
                f"{source}: label(s) {', '.join(missing[:5])} are not in order",
                parameters=("order",),
            )
        keys = np.array([position[str(v)] for v in values])
    elif numeric:
        keys = np.array([float(v) for v in values])
    else:
        keys = np.array([str(v) for v in values])
    # values equal as labels (1 and "1", or two spellings --order ranks alike) are one category
    unique_keys, ranks = np.unique(keys, return_inverse=True)
    first = np.empty(len(unique_keys), dtype=np.int64)
    first[ranks[::-1]] = np.arange(len(values))[::-1]
    sorted_values = values[first]
    if numeric:
        as_numbers = np.array([float(v) for v in sorted_values])
        # whole numbers become int64 only where int64 holds them (|x| < 2^63): beyond, the
        # cast wraps every value to -2^63, so they stay floats
        whole = np.all(as_numbers == np.round(as_numbers))
        if whole and np.all(np.abs(as_numbers) < _INT64_BOUND):
            sorted_values = as_numbers.astype(np.int64)
        else:
            sorted_values = as_numbers
    return sorted_values, ranks.ravel()


def check_order(order: list[str] | None) -> list[str] | None:
    """The category order, refused when a label is repeated or empty."""
    if order is None:
        return None
    seen: set[str] = set()
    for label in order:
        if label == "":
            raise InvalidInput(f"order has an empty label: {','.join(order)!r}", parameter="order")
        if label in seen:
            raise InvalidInput(
                f"order lists {label!r} more than once: {','.join(order)!r}", parameter="order"
            )
        seen.add(label)
    return list(order)


def _refuse_non_finite(
    uniques: np.ndarray, codes: NDArray, row_of: Callable[[int], int], source: str
) -> None:
    """Refuse ``inf``, ``-inf`` and ``nan`` labels, naming the first row that has one.

    ``row_of`` maps the position of a coded value to its 1-based row in the file.
    """
    values = np.asarray(uniques)
    if values.dtype.kind in "iub":
        return
    if values.dtype.kind == "f":  # numbers: one vectorised test
        bad = np.flatnonzero(~np.isfinite(values))
        candidates = [(int(i), values[i]) for i in bad[:1]]
    else:
        candidates = list(enumerate(values.tolist()))
    for index, value in candidates:
        if is_number(value) and not np.isfinite(float(value)):
            position = int(np.flatnonzero(np.asarray(codes) == index)[0])
            raise InvalidInput(
                f"{source}: row {row_of(position)}: label {str(value)!r} is not a finite "
                "number (labels must be finite; name it in missing if it means no rating)",
                parameters=("missing",),
            )


# --------------------------------------------------------------------------- long


def ratings_from_long(
    frame: Any, settings: ReaderSettings = _DEFAULT_SETTINGS, *, source: str = "ratings"
) -> Ratings:
    """Ratings from a long DataFrame: one row per (item, annotator, label).

    Empty labels (NaN, None) are missing ratings, as are labels listed in ``missing``.
    ``repeats``: an item rated more than once by one annotator is refused when the labels
    differ and counted once when they are the same (``"refuse"``), or every rating is kept
    (``"keep"``: the Ratings then hold repeated (item, annotator) pairs, which only
    :func:`planner.statistics.dawid_skene.fit_latent_classes` uses).

    ``settings`` (:class:`~planner.data.reader_settings.ReaderSettings`) names the
    ``item_col``, ``annotator_col`` and ``label_col`` columns, the ``by`` columns, the
    category ``order``, the ``missing`` label strings and what ``repeats`` do; its
    ``layout``, ``annotator_cols`` and ``file_format`` are for files and wide frames.
    ``source`` names the ratings in messages.
    """
    check_instance("settings", settings, ReaderSettings, "ReaderSettings")
    item_col, annotator_col = str(settings.item_col), settings.annotator_col
    label_col, by, missing = settings.label_col, settings.by, settings.missing
    order = check_order(settings.order_list)
    _check_long_columns(frame, (item_col, annotator_col, label_col), by, source)
    notes: list[str] = []
    label_codes, uniques = _rule_codes(frame[label_col], label=True, missing=missing)
    present = label_codes >= 0
    n_missing = int((~present).sum())
    if not present.all():
        frame, label_codes = frame[present], label_codes[present]
        notes.append(f"{n_missing:,} missing rating(s) (empty {label_col!r}) left out")
    # item ids in order (text sorted, integers as numbers): groups are listed by their
    # first item, as the DuckDB engine lists them
    item_codes, item_ids = _rule_codes(frame[item_col], ids=True, sort=True)
    ann_codes, ann_names = _rule_codes(frame[annotator_col])
    for col, col_codes in ((item_col, item_codes), (annotator_col, ann_codes)):
        absent = np.asarray(col_codes) < 0
        if absent.any():
            row = int(np.flatnonzero(absent)[0])
            raise InvalidInput(f"{source}: row {_row_number(frame, row)} has no {col!r}")
    _refuse_non_finite(uniques, label_codes, lambda pos: _row_number(frame, pos), source)
    categories, ranks = ordered_categories(uniques, order, source)
    if not np.array_equal(ranks, np.arange(len(ranks))):
        label_codes = ranks.astype(np.int32)[label_codes]
    n, m = len(item_ids), len(ann_names)
    key = np.asarray(item_codes, dtype=np.int64) * m + np.asarray(ann_codes, dtype=np.int64)
    if settings.repeats == "keep":
        key, label_codes, n_repeats = _sorted_ratings(key, np.asarray(label_codes, np.int32))
        said = "repeated rating(s) of an item by the same annotator kept (each counts)"
    else:
        key, label_codes, n_repeats = _unique_ratings(
            key, np.asarray(label_codes, dtype=np.int32), n * m, categories, item_ids,
            ann_names, frame, source,
        )  # fmt: skip
        said = "repeated identical rating(s) kept once"
    if n_repeats:
        notes.append(f"{n_repeats:,} {said}")
    groups = _first_values(frame, by, item_codes, n)
    return finished_ratings(
        CodedRatings(
            (key // max(m, 1), (key % max(m, 1)).astype(np.int32), label_codes),
            categories,
            tuple(str(a) for a in ann_names),
            np.asarray(item_ids),
            groups=groups,
        ),
        source,
        notes,
        note_unrated=False,
        ordered=order is not None or categories.dtype.kind in "iuf",
        input={
            "layout": "long",
            "item_col": item_col,
            "annotator_col": annotator_col,
            "label_col": label_col,
            "n_missing_ratings": n_missing,
            "missing_values": list(missing),
        },
    )


def _check_long_columns(
    frame: Any, columns: tuple[str, str, str], by: tuple[str, ...], source: str
) -> None:
    """The item, annotator and label ``columns`` and the ``by`` columns are in ``frame``,
    each in one role, and hold no containers (lists, dicts)."""
    item_col, annotator_col, label_col = columns
    _require_columns(
        frame,
        {"item_col": [item_col], "annotator_col": [annotator_col], "label_col": [label_col],
         "by": list(by)},
        source,
    )  # fmt: skip
    roles = {"item_col": item_col, "annotator_col": annotator_col, "label_col": label_col}
    check_roles({**roles, "by": by}, source)
    for col in (*columns, *by):
        _refuse_containers(frame[col], source, lambda pos: _row_number(frame, pos))


def _first_values(
    frame: Any, by: tuple[str, ...], item_codes: NDArray[np.integer], n: int
) -> dict[str, np.ndarray]:
    """Each grouping column's value on the first row of each of the ``n`` items."""
    groups = {}
    for col in by:
        first = np.full(n, -1, dtype=np.int64)
        positions = np.arange(len(item_codes))[::-1]
        named = item_codes[::-1] >= 0  # rows without an id (no rating) name no item
        first[item_codes[::-1][named]] = positions[named]
        groups[col] = frame[col].to_numpy()[first]
    return groups


def _sorted_ratings(
    key: NDArray[np.int64], label_codes: NDArray[np.int32]
) -> tuple[NDArray[np.int64], NDArray[np.int32], int]:
    """Every rating, sorted by (item, annotator) key, and how many repeat an earlier pair."""
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    return sorted_keys, label_codes[order], int((sorted_keys[1:] == sorted_keys[:-1]).sum())


def _unique_ratings(
    key: NDArray[np.int64],
    label_codes: NDArray[np.int32],
    cells: int,
    categories: np.ndarray,
    item_ids: np.ndarray,
    ann_names: np.ndarray,
    frame: Any,
    source: str,
) -> tuple[NDArray[np.int64], NDArray[np.int32], int]:
    """Ratings sorted by (item, annotator) key, each pair once; fail on conflicting repeats.

    With few cells per rating a scatter into an ``items x annotators`` scratch array is
    fastest; otherwise a sort, so memory stays linear in the ratings either way.
    """
    if cells <= 8 * len(key) + 1024:
        scratch = np.full(cells, -1, dtype=np.int32)
        scratch[key] = label_codes
        kept = np.flatnonzero(scratch >= 0)
        if kept.size == key.size:
            return kept, scratch[kept], 0
    order = np.argsort(key, kind="stable")
    sorted_keys, sorted_labels = key[order], label_codes[order]
    repeated = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    conflict = repeated[sorted_labels[repeated] != sorted_labels[repeated + 1]]
    if conflict.size:
        pos = int(conflict[0])
        first, second = int(order[pos]), int(order[pos + 1])
        m = len(ann_names)
        dup = int(sorted_keys[pos])
        labels = f"{categories[label_codes[first]]}, {categories[label_codes[second]]}"
        raise InvalidInput(
            f"{source}: row {_row_number(frame, max(first, second))}: item "
            f"{shown(item_ids[dup // m])} is labelled by annotator {shown(ann_names[dup % m])} "
            f"more than once with different labels ({labels})"
        )
    keep = np.ones(len(sorted_keys), dtype=bool)
    keep[repeated + 1] = False
    return sorted_keys[keep], sorted_labels[keep], int(repeated.size)


# --------------------------------------------------------------------------- wide


def ratings_from_wide(
    frame: Any,
    settings: ReaderSettings = _DEFAULT_SETTINGS,
    *,
    source: str = "ratings",
    id_fallback: bool = False,
) -> Ratings:
    """Ratings from a wide DataFrame: one row per item, one column per annotator.

    Empty cells are missing ratings, as are labels listed in ``missing``. A column whose
    values are all different while the others repeat theirs (ids) is refused as an
    annotator; with ``id_fallback`` (no item column found) one such column is taken as the
    item ids instead, with a note. An item id on several rows is one item, as in the long
    layout (``repeats``: its identical ratings by one annotator count once, different ones
    are refused; ``"keep"``: each counts), said in a note; a rated row without an id is
    refused.

    ``settings`` (:class:`~planner.data.reader_settings.ReaderSettings`) names the
    ``item_col`` (``None``: items are the rows), the ``annotator_cols`` (``None``: every
    other column), the ``by`` columns, the category ``order``, the ``missing`` label
    strings and what ``repeats`` do. ``source`` names the ratings in messages.
    """
    import pandas as pd

    check_instance("settings", settings, ReaderSettings, "ReaderSettings")
    item_col, annotator_cols = settings.item_col, settings.annotator_list
    by, missing, repeats = settings.by, settings.missing, settings.repeats
    order = check_order(settings.order_list)
    _require_columns(frame, {"by": list(by), "annotator_cols": list(annotator_cols or [])}, source)
    repeated = sorted({c for c in annotator_cols or [] if list(annotator_cols or []).count(c) > 1})
    if repeated:
        raise InvalidInput(
            f"annotator_cols names {', '.join(map(str, repeated))} more than once: each "
            "annotator column once",
            parameter="annotator_cols",
        )
    notes: list[str] = []
    item_col, has_item, columns = _wide_columns(
        frame, item_col, annotator_cols, by, source, id_fallback, notes
    )
    for col in (*columns, *by):
        _refuse_containers(frame[col], source, lambda pos: _row_number(frame, pos))
    stacked = frame[columns].to_numpy(dtype=object).ravel()
    all_codes, uniques = pd.factorize(stacked, sort=False)
    all_codes, uniques = canonical_codes(all_codes, uniques, label=True, missing=missing)
    present = all_codes >= 0
    n_missing = int((~present).sum())
    if n_missing:
        notes.append(f"{n_missing:,} missing rating(s) (empty cells) left out")
    label_codes = all_codes[present]
    cells = np.flatnonzero(present)
    _refuse_non_finite(
        np.asarray(uniques, dtype=object),
        label_codes,
        lambda pos: _row_number(frame, int(cells[pos] // len(columns))),
        source,
    )
    categories, ranks = ordered_categories(uniques, order, source)
    triples, items, groups = _wide_items(
        frame, item_col if has_item else None, columns, cells, ranks[label_codes], by,
        (categories, source, repeats), notes,
    )  # fmt: skip
    notes.insert(0, _wide_note(item_col if has_item else None, columns))
    return finished_ratings(
        CodedRatings(triples, categories, tuple(str(c) for c in columns), items, groups=groups),
        source,
        notes,
        ordered=order is not None or categories.dtype.kind in "iuf",
        input={
            "layout": "wide",
            "item_col": item_col if has_item else None,
            "annotator_cols": [str(c) for c in columns],
            "n_missing_ratings": n_missing,
            "missing_values": list(missing),
        },
    )


def _wide_items(
    frame: Any,
    item_col: str | None,
    columns: list[Any],
    cells: NDArray[np.integer],
    codes: NDArray[np.integer],
    by: tuple[str, ...],
    how: tuple[np.ndarray, str, str],
    notes: list[str],
) -> tuple[tuple[NDArray[Any], NDArray[np.int32], NDArray[Any]], np.ndarray, dict[str, Any]]:
    """``((item, annotator, code) per rating, item ids, groups)`` of a wide frame's ratings.

    ``cells`` are the rated cells (row x annotator, flattened) and ``codes`` their labels;
    ``how`` is ``(categories, source, repeats)``. Rows that share an item id are one item
    (as a long file's rows are), with a note; a rated row without an id is refused.
    """
    import pandas as pd

    m = len(columns)
    rows, annotators = cells // m, (cells % m).astype(np.int32)
    if item_col is None:
        groups = {col: frame[col].to_numpy() for col in by}
        return (rows, annotators, codes), np.arange(len(frame)), groups
    # in the order ids first appear (not a categorical's order): rows stay in item order
    item_codes, item_ids = pd.factorize(frame[item_col], sort=False)
    if np.asarray(item_ids).dtype.kind not in "iu":
        item_codes, item_ids = canonical_codes(item_codes, item_ids)
    unnamed = np.flatnonzero(item_codes[rows] < 0)
    if unnamed.size:
        row = int(rows[unnamed[0]])
        raise InvalidInput(f"{how[1]}: row {_row_number(frame, row)} has no {item_col!r}")
    item_ids = np.asarray(item_ids)
    groups = _first_values(frame, by, item_codes, len(item_ids))
    if len(item_ids) == int((item_codes >= 0).sum()):  # every id once: one row per item
        return (item_codes[rows], annotators, codes), item_ids, groups
    on_rows = np.bincount(item_codes[item_codes >= 0], minlength=len(item_ids))
    shared = int(np.sum(on_rows > 1))
    example = item_ids[int(np.flatnonzero(on_rows > 1)[0])]
    notes.append(
        f"{shared:,} item id(s) on more than one row (such as {shown(example)}): the rows of "
        "an id are read as one item"
    )
    categories, source, repeats = how
    key = item_codes[rows].astype(np.int64) * m + annotators
    if repeats == "keep":
        key, codes, n_repeats = _sorted_ratings(key, np.asarray(codes, np.int32))
        said = "repeated rating(s) of an item by the same annotator kept (each counts)"
    else:
        key, codes, n_repeats = _unique_ratings(
            key, np.asarray(codes, np.int32), len(item_ids) * m, categories, item_ids,
            np.asarray(columns, dtype=object), frame.iloc[rows], source,
        )  # fmt: skip
        said = "repeated identical rating(s) kept once"
    if n_repeats:
        notes.append(f"{n_repeats:,} {said}")
    return (key // m, (key % m).astype(np.int32), codes), item_ids, groups


def _wide_columns(
    frame: Any,
    item_col: str | None,
    annotator_cols: list[str] | None,
    by: tuple[str, ...],
    source: str,
    id_fallback: bool,
    notes: list[str],
) -> tuple[str | None, bool, list[Any]]:
    """``(item column, whether the frame has it, annotator columns)`` of a wide frame."""
    return wide_columns(
        list(frame.columns),
        lambda columns: id_columns(frame, columns),
        item_col=item_col,
        annotator_cols=annotator_cols,
        by=by,
        source=source,
        id_fallback=id_fallback,
        notes=notes,
    )


def wide_columns(
    header: list[Any],
    ids_of: Callable[[list[Any]], list[Any]],
    *,
    item_col: str | None,
    annotator_cols: list[str] | None,
    by: tuple[str, ...],
    source: str,
    id_fallback: bool,
    notes: list[str],
) -> tuple[str | None, bool, list[Any]]:
    """``(item column, whether the file has it, annotator columns)`` of a wide file.

    ``header`` is the file's columns and ``ids_of(columns)`` those of ``columns`` whose
    values are all different (ids), found by pandas or by SQL. An id column is refused as an
    annotator; with ``id_fallback`` the one such column is the item ids instead (said in
    ``notes``). Fewer than two annotator columns are refused.
    """
    has_item = item_col is not None and item_col in header
    columns = list(annotator_cols or []) or [
        c for c in header if c not in set(by) and not (has_item and c == item_col)
    ]
    ids = ids_of(columns)
    if ids and id_fallback and not has_item and len(ids) == 1:
        item_col, has_item = ids[0], True
        columns = [c for c in columns if c != item_col]
        notes.append(f"column {item_col!r} has a different value in every row: read as item ids")
    elif ids:
        raise InvalidInput(
            f"{source}: column {ids[0]!r} has a different value in every row (ids), so it is "
            "not an annotator; name the item column with item_col and the annotator "
            "columns with annotator_cols",
            parameters=("item_col", "annotator_cols"),
        )
    if len(columns) < 2:
        raise InvalidInput(
            f"{source}: fewer than two annotator columns ({', '.join(map(str, columns)) or 'none'})"
        )
    return item_col, has_item, columns


def _wide_note(item_col: str | None, columns: list[Any]) -> str:
    listed = ", ".join(map(str, columns[:8])) + (
        f", ... ({len(columns)})" if len(columns) > 8 else ""
    )
    ids = f"item column {item_col!r}" if item_col is not None else "no item column (rows are items)"
    return f"read as wide: {ids}; annotator columns {listed}"


def _require_columns(frame: Any, columns: dict[str, list[Any]], source: str) -> None:
    """Refuse the columns (by the parameter that named them) that ``frame`` lacks."""
    missing = {role: [c for c in cs if c not in frame.columns] for role, cs in columns.items()}
    missing = {role: cs for role, cs in missing.items() if cs}
    if missing:
        raise MissingColumns(source, missing, list(frame.columns))


def _row_number(frame: Any, position: int) -> int:
    """1-based data row number (header excluded) of a positional row in the original file."""
    if frame is None:
        return position + 1
    label = frame.index[position]
    return int(label) + 1 if isinstance(label, int | np.integer) else position + 1


# --------------------------------------------------------------------------- files


def _format_of(p: Path, file_format: str | None) -> str:
    if file_format is not None:
        if file_format not in ("csv", "tsv", "parquet", "jsonl"):
            raise InvalidInput(
                f"file_format must be one of csv, tsv, parquet, jsonl; got {file_format!r}",
                parameter="file_format",
            )
        return file_format
    fmt = FORMATS.get(format_suffix(p))
    if fmt is None:
        raise InvalidInput(
            f"{p}: unknown file type {p.suffix!r}; use file_format "
            "csv|tsv|parquet|jsonl (gzip-compressed csv, tsv and jsonl are read too)",
            parameters=("file_format",),
        )
    return fmt


def read_table(
    path: str | Path,
    file_format: str | None = None,
    text_for: tuple[str, ...] | None = (),
    missing: tuple[str, ...] = (),
    nrows: int | None = None,
    missing_in: tuple[str, ...] | None = None,
    ids: tuple[str, ...] = (),
) -> Any:
    """Read a label file with pandas, after checking the path and sniffing its bytes.

    ``text_for`` names the CSV/TSV columns read as the text written in them (no type
    guessed) and put under the value rule (:mod:`planner.data.cell_values`), as
    categoricals of sorted values (the item ids of ``ids``: in the order they first
    appear); the columns of ``missing_in`` (the label cells: an item id or a group called
    ``NA`` stays one) take the label rule and the ``missing`` markers. ``None``
    reads every column as categoricals whose types pandas finds (the sample that
    :func:`planner.data.layout.find_columns` looks at), with ``missing`` markers as empty.
    Only empty cells are missing otherwise (pandas' ``NA``/``null``/``n/a`` defaults are
    off); ``nrows`` reads only the first rows (CSV/TSV). Parquet and JSON Lines keep their
    types (null is missing); a UTF-8 byte order mark before JSON Lines is read past, as
    before CSV. Errors name the file.
    """
    import pandas as pd

    p = Path(path)
    check_path(p)
    fmt = _format_of(p, file_format)
    sniff(p, fmt)
    compression = "gzip" if is_gzip(p) else None  # by content: --format csv on any name
    try:
        if fmt in ("csv", "tsv"):
            options: dict[str, Any] = {
                "sep": "," if fmt == "csv" else "\t",
                "keep_default_na": False,
                "compression": compression,
                "encoding": "utf-8-sig",
            }
            if text_for is None:
                na = ["", *missing]
                return pd.read_csv(p, dtype="category", nrows=nrows, na_values=na, **options)
            header = pd.read_csv(p, nrows=0, **options).columns
            text = [c for c in text_for if c in header]
            frame = pd.read_csv(
                p, dtype=dict.fromkeys(text, str), nrows=nrows, na_values=[""], **options
            )
            labels = set(text if missing_in is None else missing_in)
            for c in text:
                rule = (c in labels, missing if c in labels else (), c not in ids)
                frame[c] = _rule_categorical(frame[c], *rule)
            return frame
        if fmt == "parquet":
            if importlib.util.find_spec("pyarrow") is None:
                raise PlannerError(
                    f"{p}: reading Parquet needs the pyarrow package: pip install pyarrow "
                    "(the extra planner[parquet])"
                )
            # integers with nulls stay integers (7, not 7.0), as DuckDB reads them
            return pd.read_parquet(p, dtype_backend="numpy_nullable")
        return pd.read_json(
            p, lines=True, dtype=False, compression=compression, encoding="utf-8-sig"
        )
    except (ValueError, OSError, EOFError, zlib.error, pd.errors.ParserError, ImportError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidInput(f"{p}: cannot be read as {fmt}: {first}") from None


def _rule_categorical(column: Any, label: bool, missing: tuple[str, ...], sort: bool) -> Any:
    """A column of text under the value rule, as a categorical (of sorted values)."""
    import pandas as pd

    codes, uniques = pd.factorize(column, sort=False)
    codes, values = canonical_codes(codes, uniques, label=label, missing=missing, sort=sort)
    categories = pd.Index(values, dtype=object, name=_rule_name(label))
    return pd.Categorical.from_codes(codes, categories=categories)


def read_labels(path: str | Path, settings: ReaderSettings = _DEFAULT_SETTINGS) -> Ratings:
    """Read a label file (long or wide) into :class:`Ratings`, stating what was read.

    Parameters
    ----------
    path
        CSV, TSV, Parquet or JSON Lines file (type from the suffix or
        ``settings.file_format``).
    settings
        How to read it (:class:`~planner.data.reader_settings.ReaderSettings`): the
        ``layout`` (``"auto"``: long when the item, annotator and label columns are all
        present; wide when no column looks like an item, annotator or label column by
        name and the annotator columns share their labels; otherwise refused with the
        options to set), the column names, the grouping columns ``by``, the category
        ``order``, the ``missing`` label strings and what ``repeats`` do.

    Notes
    -----
    The layout and the columns are in ``notes`` and ``input`` of the result, with the
    number of missing ratings.
    """
    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(f"path must name a label file, got {path!r}", parameter="path")
    check_instance("settings", settings, ReaderSettings, "ReaderSettings")
    check_order(settings.order_list)
    p = Path(path)
    check_path(p)
    fmt = _format_of(p, settings.file_format)
    columns, frame = _find_columns(p, fmt, settings, str(path))
    if columns.layout == "long":
        names = (str(columns.item_col), str(columns.annotator_col), str(columns.label_col))
        return _read_long(p, (fmt, frame), names, settings, str(path))
    return _read_wide(p, (fmt, frame), columns, settings, str(path))


def _read_long(
    p: Path,
    read: tuple[str, Any],
    columns: tuple[str, str, str],
    settings: ReaderSettings,
    source: str,
) -> Ratings:
    """:func:`read_labels` of a long file (``read``: its format, and the file when already
    read whole)."""
    from dataclasses import replace

    fmt, frame = read
    item_col, annotator_col, label_col = columns
    missing = settings.missing
    if frame is None:
        frame = read_table(p, fmt, columns, missing, missing_in=(label_col,))
    chosen = replace(
        settings, item_col=item_col, annotator_col=annotator_col, label_col=label_col,
        missing=missing if fmt not in ("csv", "tsv") else (),
    )  # fmt: skip
    ratings = ratings_from_long(frame, chosen, source=source)
    note = (
        f"read as long: item column {item_col!r}, annotator column {annotator_col!r}, "
        f"label column {label_col!r}"
    )
    return _with_note(ratings, note, missing)


def _read_wide(
    p: Path,
    read: tuple[str, Any],
    columns: Columns,
    settings: ReaderSettings,
    source: str,
) -> Ratings:
    """:func:`read_labels` of a wide file (``read``: its format, and the file when already
    read whole)."""
    from dataclasses import replace

    fmt, frame = read
    missing = settings.missing
    if frame is None:
        labels_in = tuple(columns.annotator_cols)
        ids = (str(columns.item_col),) if columns.item_col is not None else ()
        frame = read_table(p, fmt, (*ids, *labels_in), missing, missing_in=labels_in, ids=ids)
    chosen = replace(
        settings, item_col=columns.item_col, annotator_cols=tuple(columns.annotator_cols),
        missing=missing if fmt not in ("csv", "tsv") else (),
    )  # fmt: skip
    ratings = ratings_from_wide(frame, chosen, source=source, id_fallback=columns.id_fallback)
    ratings = _with_note(ratings, None, missing)
    if not columns.notes:
        return ratings
    return replace(ratings, notes=(ratings.notes[0], *columns.notes, *ratings.notes[1:]))


def _find_columns(p: Path, fmt: str, settings: ReaderSettings, source: str) -> tuple[Columns, Any]:
    """``(the columns' roles, the frame if it had to be read whole)``.

    CSV and TSV are looked at in their first rows; other formats are read once, whole, and
    the frame is passed on.
    """
    frame = None
    if fmt in ("csv", "tsv"):
        sample = read_table(p, fmt, None, settings.missing, nrows=SAMPLE_ROWS)
    else:
        frame = read_table(p, fmt, (), settings.missing)
        sample = frame.head(SAMPLE_ROWS)
    columns = find_columns(
        sample,
        layout=settings.layout,
        item_col=str(settings.item_col),
        annotator_col=settings.annotator_col,
        label_col=settings.label_col,
        annotator_cols=settings.annotator_list,
        by=settings.by,
        source=source,
    )
    return columns, frame


def _with_note(ratings: Ratings, note: str | None, missing: tuple[str, ...]) -> Ratings:
    """``ratings`` with the layout note first and the ``missing`` strings recorded."""
    from dataclasses import replace

    notes = ((note,) if note else ()) + ratings.notes
    return replace(ratings, notes=notes, input={**ratings.input, "missing_values": list(missing)})
