"""Label vectors counted elsewhere, read in: the same weighted :class:`Ratings` the engines build.

A platform that keeps its ratings in a lake runs the count step where the data live (a SQL
``GROUP BY`` on DuckDB, Spark, BigQuery or Trino, see ``docs/vector-counts.md``) and hands
planner only the distinct label vectors and how many items share each. Two formats:

* **vector counts** (:func:`ratings_from_vector_counts`): one column per annotator holding
  the label that annotator gave (empty: no rating), a ``count`` column, and optional
  grouping columns (for ``by`` and a stratum column). Each row stands for ``count``
  identical items: the :class:`Ratings` has one row per distinct vector with the counts as
  ``weights``, exactly the object :func:`planner.data.engine_duckdb.count_labels` builds,
  so every statistic, interval, decision and diagnostic that needs no item id equals that
  of the raw ratings.
* **category counts** (:func:`ratings_from_category_counts`): one column per category
  holding how many annotators put the item in it, and a ``count`` column (per-item count
  patterns, for crowds too large for a column per annotator). Enough for Fleiss' kappa,
  Krippendorff's alpha and specific agreement; the annotators' identities are not there.

The vectors are put in one canonical order (groups, then the annotators' category codes,
lexicographically) and identical rows merged, so the same seed gives the same bootstrap
draws whatever the order of the file's rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import (
    COUNTS_LIMIT,
    CodedRatings,
    Ratings,
    finished_ratings,
    triplets_from_codes,
)
from planner.errors import InvalidInput
from planner.validation import check_text, check_texts, shown

#: the default name of the column holding each row's number of items
COUNT_COL = "count"
#: what the ``input`` of the Ratings says the layout is
VECTOR_LAYOUT = "vector_counts"
CATEGORY_LAYOUT = "category_counts"


def _frame_and_source(
    path: Any, file_format: str | None, labels_of: Any, missing: tuple[str, ...], count_col: str
) -> tuple[Any, str, bool]:
    """``(frame, source, whether cells are text)``: a DataFrame as given, or a file read.

    ``labels_of(header)`` names the label columns a CSV/TSV file reads as text under the
    label rule (with the ``missing`` markers); ``count_col`` is read as text too.
    """
    import pandas as pd

    if isinstance(path, pd.DataFrame):
        return path.reset_index(drop=True), "vector counts", False
    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(
            f"path must name a CSV, TSV or Parquet file (or be a DataFrame), got {shown(path)}",
            parameter="path",
        )
    from planner.data.reading import _format_of, read_table

    source = str(path)
    fmt = _format_of(Path(path), file_format)
    if fmt not in ("csv", "tsv"):
        return read_table(path, fmt, (), missing), source, False
    header = list(read_table(path, fmt, (), missing, nrows=0).columns)
    labels = tuple(labels_of(header))
    frame = read_table(path, fmt, (*labels, count_col), missing, missing_in=labels)
    return frame, source, True


def _counts(frame: Any, count_col: str, source: str) -> NDArray[np.int64]:
    """The ``count`` column as whole numbers >= 0, refused in one line naming the row."""
    import pandas as pd

    if count_col not in frame.columns:
        have = ", ".join(map(str, list(frame.columns)[:12]))
        raise InvalidInput(
            f"{source}: no {count_col!r} column, which holds each row's number of items "
            f"(columns are: {have})",
            parameter="count_col",
        )
    column = frame[count_col]
    text = column.astype(object).map(lambda v: None if pd.isna(v) else str(v).strip())
    numbers = pd.to_numeric(text.where(text != "", None), errors="coerce")
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    whole = np.isfinite(values) & (values == np.round(values))
    bad = np.flatnonzero(~whole | (values < 0))
    if bad.size:
        row = int(bad[0])
        value = text.iloc[row]
        why = (
            "is empty"
            if value is None or pd.isna(value) or value == ""
            else f"is {shown(value)}, negative"
            if whole[row]
            else f"is {shown(value)}, not a whole number"
        )
        raise InvalidInput(
            f"{source}: column {count_col!r}, row {row + 1}: the count {why} (a count is a "
            "whole number of items, 0 or more)",
            parameter="count_col",
        )
    if values.sum() > COUNTS_LIMIT:
        raise InvalidInput(
            f"{source}: column {count_col!r} adds up to {values.sum():,.0f} items, more than "
            f"{COUNTS_LIMIT:,}",
            parameter="count_col",
        )
    if np.issubdtype(numbers.dtype, np.integer):
        return numbers.to_numpy(dtype=np.int64)
    return np.round(values).astype(np.int64)  # exact: below COUNTS_LIMIT < 2^53


def vector_columns(
    header: list[Any],
    *,
    annotator_cols: tuple[str, ...] | None,
    by: tuple[str, ...],
    count_col: str,
    source: str,
) -> tuple[list[str], str | None]:
    """``(annotator columns, the note saying what was assumed)`` of a vector-count file.

    Every column but ``count_col`` and ``by`` is an annotator unless ``annotator_cols``
    names them; then each named column must be in the file, none may be the count or a
    grouping column, and every other column must be one of those (a vector's count is over
    all of its labels, so a column left unnamed would split vectors silently).
    """
    names = [str(c) for c in header]
    absent = [b for b in by if b not in names]
    if absent:
        raise InvalidInput(
            f"{source}: no column {absent[0]!r} to group by (columns are: {', '.join(names[:12])})",
            parameter="by",
            parameters=("by",),
        )
    others = [c for c in names if c != count_col and c not in by]
    if annotator_cols is None:
        listed = ", ".join(others[:8]) + (f", ... ({len(others)})" if len(others) > 8 else "")
        note = (
            f"read as vector counts: column {count_col!r} counts the items of each row; "
            f"annotator columns: every other column"
            + (f" but {', '.join(by)}" if by else "")
            + f" ({listed}); name them with annotator_cols if that is wrong"
        )
        columns = others
    else:
        for c in annotator_cols:
            if c not in names:
                raise InvalidInput(
                    f"{source}: annotator_cols names {c!r}, which is not a column (columns "
                    f"are: {', '.join(names[:12])})",
                    parameter="annotator_cols",
                    parameters=("annotator_cols",),
                )
            if c == count_col or c in by:
                role = "the count column" if c == count_col else "a grouping column"
                raise InvalidInput(
                    f"{source}: annotator_cols names {c!r}, {role}",
                    parameter="annotator_cols",
                    parameters=("annotator_cols",),
                )
        unnamed = [c for c in others if c not in annotator_cols]
        if unnamed:
            raise InvalidInput(
                f"{source}: column(s) {', '.join(map(repr, unnamed[:5]))} are in the file but "
                "not in annotator_cols, nor the count or a grouping column (each vector is "
                "counted over all its columns: name them in annotator_cols or by)",
                parameter="annotator_cols",
                parameters=("annotator_cols",),
            )
        columns = list(annotator_cols)
        note = f"read as vector counts: column {count_col!r} counts the items of each row"
    if len(set(columns)) < len(columns):
        raise InvalidInput(
            "annotator_cols names a column more than once: each annotator column once",
            parameter="annotator_cols",
            parameters=("annotator_cols",),
        )
    if len(columns) < 2:
        raise InvalidInput(
            f"{source}: fewer than two annotator columns ({', '.join(columns) or 'none'})"
        )
    return columns, note


def _group_codes(frame: Any, by: tuple[str, ...]) -> list[NDArray[np.int64]]:
    """Per grouping column, each row's rank among the column's sorted values."""
    import pandas as pd

    out = []
    for b in by:
        try:
            codes, _ = pd.factorize(frame[b], sort=True)
        except TypeError:  # values of several types: sorted as text
            codes, _ = pd.factorize(frame[b].astype(str), sort=True)
        out.append(np.asarray(codes, dtype=np.int64))
    return out


def _label_codes(
    frame: Any,
    columns: list[str],
    order: list[str] | None,
    missing: tuple[str, ...],
    source: str,
) -> tuple[NDArray[np.int64], np.ndarray]:
    """``(rows, m)`` category codes (-1: no rating) and the categories, as the wide reader
    codes them (the one value rule; numbers in numeric order, else text, or ``order``)."""
    import pandas as pd

    from planner.data.cell_values import canonical_codes
    from planner.data.reading import _refuse_containers, _refuse_non_finite, ordered_categories

    for col in columns:
        _refuse_containers(frame[col], source, lambda pos: pos + 1)
    stacked = frame[columns].to_numpy(dtype=object).ravel()
    codes, uniques = pd.factorize(stacked, sort=False)
    codes, uniques = canonical_codes(codes, uniques, label=True, missing=missing)
    present = codes >= 0
    if not present.any():
        raise InvalidInput(f"{source}: no labels at all (every label cell is empty)")
    _refuse_non_finite(
        np.asarray(uniques, dtype=object),
        codes[present],
        lambda pos: int(np.flatnonzero(present)[pos] // len(columns)) + 1,
        source,
    )
    categories, ranks = ordered_categories(uniques, order, source)
    out = np.full(codes.shape, -1, dtype=np.int64)
    out[present] = ranks[codes[present]]
    return out.reshape(len(frame), len(columns)), categories


def _merged(
    codes: NDArray[np.int64], group_codes: list[NDArray[np.int64]], counts: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """``(distinct rows, their counts, one original row of each)`` in canonical order.

    Rows are sorted by the groups' ranks, then by each annotator's code (-1 first); rows
    equal in all of them are one, their counts added.
    """
    key = np.column_stack([*group_codes, codes]) if group_codes else codes
    unique, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=counts.astype(float), minlength=len(unique))
    if total.max(initial=0) >= 2.0**53:  # float sums are exact below 2^53 only
        total = np.zeros(len(unique), dtype=object)
        np.add.at(total, inverse.ravel(), counts.astype(object))
    return unique[:, len(group_codes) :], np.asarray(total).astype(np.int64), first


def _refuse_empty_columns(codes: NDArray[np.int64], columns: list[str], source: str) -> None:
    empty = np.flatnonzero((codes < 0).all(axis=0))
    if empty.size:
        raise InvalidInput(
            f"{source}: annotator column {columns[int(empty[0])]!r} is empty in every row "
            "with items (no label at all): leave it out of the file or of annotator_cols",
            parameter="annotator_cols",
            parameters=("annotator_cols",),
        )


def ratings_from_vector_counts(
    path: Any,
    *,
    annotator_cols: list[str] | None = None,
    by: tuple[str, ...] = (),
    count_col: str = COUNT_COL,
    order: list[str] | None = None,
    missing: tuple[str, ...] = (),
    file_format: str | None = None,
) -> Ratings:
    """Weighted :class:`Ratings` from distinct label vectors and their counts.

    Parameters
    ----------
    path
        A CSV, TSV or Parquet file, or a DataFrame: one row per distinct label vector, one
        column per annotator holding that annotator's label (empty or null: no rating), a
        ``count_col`` column (how many items have this vector) and the ``by`` columns.
    annotator_cols
        The annotator columns (default: every column but ``count_col`` and ``by``, said in a
        note). Every other column must then be ``count_col`` or in ``by``.
    by
        Grouping columns (for ``MeasureSettings(by=...)`` and stratified measurement).
    count_col
        The column of counts: whole numbers, 0 or more. Rows counting 0 items are left out
        (with a note); rows with no label at all stand for unrated items, left out as the
        readers leave them out; rows with the same vector (and groups) are one, their
        counts added.
    order, missing, file_format
        As :func:`planner.data.reading.read_labels`: the order of text labels, the label
        strings that mean no rating, the format when the suffix does not say.

    Returns
    -------
    Ratings
        One row per distinct (groups, vector), sorted by groups then by the annotators'
        category codes, ``weights`` the counts: the object
        :func:`planner.data.engine_duckdb.count_labels` builds from the raw ratings, so
        every coefficient and interval equals that of the raw file. Item ids are not in the
        file: ``items`` numbers the vectors.

    Notes
    -----
    ``docs/vector-counts.md`` has the SQL that counts the vectors of a long table (item,
    annotator, label) on DuckDB, Spark SQL, BigQuery and Trino.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"A": [1, 1, 0, 0], "B": [1, 0, 1, 0], "count": [6, 21, 14, 459]})
    >>> r = ratings_from_vector_counts(frame)
    >>> r.n_items, r.n_rows, r.pair_table().tolist()
    (500, 4, [[459, 14], [21, 6]])
    """
    cols = check_texts("annotator_cols", annotator_cols, optional=True)
    by = tuple(check_texts("by", by) or ())
    check_text("count_col", count_col)
    check_text("file_format", file_format, optional=True)
    from planner.data.reading import check_order

    order = check_order(list(check_texts("order", order, optional=True) or []) or None)
    missing = tuple(check_texts("missing", missing) or ())
    wanted: dict[str, Any] = {}

    def labels_of(header: list[Any]) -> list[str]:
        wanted["columns"], wanted["note"] = vector_columns(
            header, annotator_cols=cols, by=by, count_col=count_col, source=str(path)
        )
        return list(wanted["columns"])

    frame, source, text = _frame_and_source(path, file_format, labels_of, missing, count_col)
    if "columns" not in wanted:
        labels_of(list(frame.columns))
    columns, note = wanted["columns"], wanted["note"]
    if len(frame) == 0:
        raise InvalidInput(f"{source}: no rows (a header only): no label vector to read")
    counts = _counts(frame, count_col, source)
    return _vector_ratings(
        frame, columns, counts, (by, count_col, order, () if text else missing), source, note
    )


def _vector_ratings(
    frame: Any,
    columns: list[str],
    counts: NDArray[np.int64],
    how: tuple[tuple[str, ...], str, list[str] | None, tuple[str, ...]],
    source: str,
    note: str | None,
) -> Ratings:
    """The Ratings of a vector-count frame whose counts were read (``how``: by, the count
    column, order, missing markers still to apply)."""
    by, count_col, order, missing = how
    notes = [note] if note else []
    zero = counts == 0
    if zero.any():
        notes.append(f"{int(zero.sum()):,} row(s) with count 0 left out (they stand for no item)")
        frame, counts = frame[~zero].reset_index(drop=True), counts[~zero]
        if len(frame) == 0:
            raise InvalidInput(f"{source}: every row has count 0: no item to measure")
    codes, categories = _label_codes(frame, columns, order, missing, source)
    _refuse_empty_columns(codes, columns, source)
    unrated = (codes < 0).all(axis=1)
    if unrated.any():
        notes.append(f"{int(counts[unrated].sum()):,} item(s) with no rating left out")
        keep = ~unrated
        frame, codes, counts = frame[keep].reset_index(drop=True), codes[keep], counts[keep]
    vectors, weights, first = _merged(codes, _group_codes(frame, by), counts)
    _merge_notes(notes, len(codes), len(vectors), by)
    n_missing = int(((vectors < 0).sum(axis=1) * weights).sum())
    return _weighted_ratings(
        triplets_from_codes(vectors), categories, tuple(columns), (frame, first, by), source,
        notes, order, weights,
        {"layout": VECTOR_LAYOUT, "annotator_cols": list(columns), "count_col": count_col,
         "n_patterns": len(vectors), "n_missing_ratings": n_missing,
         "missing_values": list(missing)},
    )  # fmt: skip


def _merge_notes(notes: list[str], rows: int, distinct: int, by: tuple[str, ...]) -> None:
    """The notes on rows merged and on the groups' order."""
    if distinct < rows:
        notes.append(
            f"{rows - distinct:,} row(s) repeat a label vector"
            + (" within their group" if by else "")
            + ": their counts are added"
        )
    if by:
        notes.append(f"groups of {', '.join(by)} in sorted order (a count file has no item order)")


def _weighted_ratings(
    triplets: tuple[NDArray[Any], NDArray[Any], NDArray[Any]],
    categories: np.ndarray,
    annotators: tuple[str, ...],
    rows: tuple[Any, NDArray[np.int64], tuple[str, ...]],
    source: str,
    notes: list[str],
    order: list[str] | None,
    weights: NDArray[np.int64],
    input: dict[str, Any],
) -> Ratings:
    """Ratings of distinct rows (``rows``: the frame, one original row of each, by)."""
    frame, first, by = rows
    return finished_ratings(
        CodedRatings(
            triplets,
            categories,
            annotators,
            np.arange(len(weights)),
            groups={b: frame[b].to_numpy()[first] for b in by},
            weights=weights,
        ),
        source,
        notes,
        note_unrated=False,
        ordered=order is not None or categories.dtype.kind in "iuf",
        input=input,
    )


# --------------------------------------------------------------------------- category counts


def _category_columns(
    header: list[Any],
    category_cols: tuple[str, ...] | None,
    by: tuple[str, ...],
    count_col: str,
    source: str,
) -> list[str]:
    """The category columns: ``category_cols``, or every column but the count and ``by``."""
    names = [str(c) for c in header]
    for c in (*by, *(category_cols or ())):
        if c not in names:
            raise InvalidInput(
                f"{source}: no column {c!r} (columns are: {', '.join(names[:12])})",
                parameters=("category_cols", "by"),
            )
    others = [c for c in names if c != count_col and c not in by]
    columns = list(category_cols) if category_cols is not None else others
    unnamed = [c for c in others if c not in columns]
    if unnamed or count_col in columns or set(columns) & set(by):
        raise InvalidInput(
            f"{source}: category_cols must name every column but {count_col!r} and the "
            f"grouping columns, each once (columns are: {', '.join(names[:12])})",
            parameter="category_cols",
        )
    if not columns:
        raise InvalidInput(f"{source}: no category column besides {count_col!r}")
    return columns


def ratings_from_category_counts(
    path: Any,
    *,
    category_cols: list[str] | None = None,
    by: tuple[str, ...] = (),
    count_col: str = COUNT_COL,
    order: list[str] | None = None,
    file_format: str | None = None,
) -> Ratings:
    """Weighted :class:`Ratings` from per-item category-count patterns and their counts.

    Parameters
    ----------
    path
        A CSV, TSV or Parquet file, or a DataFrame: one row per distinct pattern, one
        column per category holding how many annotators put the item in it (whole numbers,
        0 or more), a ``count_col`` column (how many items have this pattern) and the
        ``by`` columns. The category columns' names are the labels (numbers when they all
        read as numbers, in numeric order; else text, or ``order``).
    category_cols
        The category columns (default: every column but ``count_col`` and ``by``).
    by, count_col, order, file_format
        As :func:`ratings_from_vector_counts`.

    Returns
    -------
    Ratings
        One row per distinct (groups, pattern), ``weights`` the counts. Who gave which
        rating is not in the file: the ratings of an item are put on the annotators
        ``rating 1``, ``rating 2``, ... in category order, so only statistics of the
        per-item counts mean anything -- Fleiss' kappa, Krippendorff's alpha, specific
        agreement, observed agreement, Gwet's AC1 and Brennan-Prediger --
        (:func:`planner.measuring.category_counts.measure_category_counts` leaves the others
        out).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"0": [3, 1, 0], "1": [0, 2, 3], "count": [40, 10, 5]})
    >>> r = ratings_from_category_counts(frame)
    >>> r.n_items, r.patterns()[0].tolist(), r.patterns()[1].tolist()
    (55, [[0, 3], [1, 2], [3, 0]], [5, 10, 40])
    """
    cols = check_texts("category_cols", category_cols, optional=True)
    by = tuple(check_texts("by", by) or ())
    check_text("count_col", count_col)
    check_text("file_format", file_format, optional=True)
    from planner.data.reading import check_order, ordered_categories

    order = check_order(list(check_texts("order", order, optional=True) or []) or None)
    frame, source, _ = _frame_and_source(path, file_format, lambda header: [], (), count_col)
    columns = _category_columns(list(frame.columns), cols, by, count_col, source)
    if len(frame) == 0:
        raise InvalidInput(f"{source}: no rows (a header only): no pattern to read")
    counts = _counts(frame, count_col, source)
    cells = np.column_stack([_counts(frame, c, source) for c in columns])
    categories, ranks = ordered_categories(np.array(columns, dtype=object), order, source)
    if len(set(ranks.tolist())) < len(columns):
        raise InvalidInput(f"{source}: two category columns name the same label")
    sorted_cells = np.zeros_like(cells)
    sorted_cells[:, ranks] = cells
    return _pattern_ratings(frame, sorted_cells, counts, categories, (by, count_col, order), source)


def _pattern_ratings(
    frame: Any,
    cells: NDArray[np.int64],
    counts: NDArray[np.int64],
    categories: np.ndarray,
    how: tuple[tuple[str, ...], str, list[str] | None],
    source: str,
) -> Ratings:
    """The Ratings of category-count patterns (``cells``: rows x categories, in order)."""
    by, count_col, order = how
    notes = [
        f"read as category counts: column {count_col!r} counts the items of each row; "
        f"categories {', '.join(map(str, categories[:8]))}; who gave which rating is not known"
    ]
    keep = counts > 0
    if not keep.all():
        zero = int((~keep).sum())
        notes.append(f"{zero:,} row(s) with count 0 left out (they stand for no item)")
    unrated = keep & (cells.sum(axis=1) == 0)
    if unrated.any():
        notes.append(f"{int(counts[unrated].sum()):,} item(s) with no rating left out")
    keep &= ~unrated
    if not keep.any():
        raise InvalidInput(f"{source}: no row counts an item with a rating")
    frame, cells, counts = frame[keep].reset_index(drop=True), cells[keep], counts[keep]
    patterns, weights, first = _merged(cells, _group_codes(frame, by), counts)
    per_row = patterns.sum(axis=1)
    k = patterns.shape[1]
    rows = np.repeat(np.arange(len(patterns), dtype=np.int64), per_row)
    labels = np.repeat(np.tile(np.arange(k, dtype=np.int32), len(patterns)), patterns.ravel())
    starts = np.repeat(np.cumsum(per_row) - per_row, per_row)
    slots = (np.arange(len(rows)) - starts).astype(np.int32)
    _merge_notes(notes, len(cells), len(patterns), by)
    return _weighted_ratings(
        (rows, slots, labels), categories,
        tuple(f"rating {j + 1}" for j in range(int(per_row.max()))), (frame, first, by),
        source, notes, order, weights,
        {"layout": CATEGORY_LAYOUT, "category_cols": [str(c) for c in categories],
         "count_col": count_col, "n_patterns": len(patterns)},
    )  # fmt: skip
