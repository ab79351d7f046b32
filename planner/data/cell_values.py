"""How a cell of a label file becomes a label, an item id or an annotator name: one rule
for the pandas reader and the DuckDB engine.

Both engines apply the same steps, in this order, so that every file they both accept
gives the same labels (``docs/value-rules.md`` states the rule for users):

1. **The text written.** A CSV or TSV cell is the text between its delimiters, with RFC
   4180 quoting (``"a, b"`` is one cell, ``""`` inside quotes is one ``"``); no type is
   guessed, from a sample or otherwise. A typed value (Parquet, JSON Lines) becomes text
   by :func:`text_of`: ``7`` is ``"7"``, ``7.0`` is ``"7.0"``, ``True`` is ``"true"``;
   null and NaN are missing.
2. **Spaces around removed** (:data:`AROUND`: space, tab, CR, LF), then the text put in
   Unicode normal form NFC, so ``café`` typed as one character or as ``e`` + a combining
   accent is one value.
3. **Empty is missing**, and so is a label equal (after steps 1-2) to one of the
   ``missing`` markers; item ids and annotator names are never missing markers.
4. **Labels only:** ``true`` and ``false`` in any case are the labels ``true`` and
   ``false`` (``True``, ``TRUE`` and ``true`` are one category). Labels that all read as
   numbers are then numbers (``1`` and ``1.0`` one category), by
   :func:`planner.data.reading.ordered_categories`, on either engine.

Item ids and annotator names stay text: ``007`` and ``7``, ``1e3`` and ``1000``, ``7`` and
``7.0``, annotators ``1`` and ``01`` are different.

The pandas reader applies :func:`canonical_codes` to the distinct values of a column (never
cell by cell); DuckDB runs :func:`sql_text` in SQL on every cell. ``nfc_normalize`` in DuckDB
and :func:`unicodedata.normalize` in Python implement the same Unicode normal form.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: characters removed around every value (the same in SQL: :data:`SQL_AROUND`)
AROUND = " \t\r\n"
#: :data:`AROUND` as a DuckDB string expression
SQL_AROUND = "' ' || chr(9) || chr(13) || chr(10)"
#: the boolean labels, in any case
BOOLEANS = ("false", "true")
#: an item id written as a whole number (sorted as a number in the contested-items file)
#: Whole-number ids of at most 38 digits (DuckDB's HUGEINT); longer ones are ordered as text
#: on both engines.
INTEGER_TEXT = re.compile(r"[+-]?[0-9]{1,38}")


def text_of(value: Any) -> str | None:
    """The text of a typed value (None for null and NaN).

    >>> [text_of(v) for v in (7, 7.0, True, "007", None, float("nan"))]
    ['7', '7.0', 'true', '007', None, None]
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return None if math.isnan(float(value)) else str(float(value))
    try:  # pandas' NA and NaT
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def canonical(value: Any, *, label: bool = False) -> str | None:
    """A value under the rule: its text, stripped, in NFC; None when nothing is left.

    With ``label``, ``true``/``false`` in any case become ``"true"``/``"false"``.

    >>> canonical(" cafe\\u0301\\t") == "caf\\u00e9", canonical("  "), canonical("TRUE", label=True)
    (True, None, 'true')
    """
    text = text_of(value)
    if text is None:
        return None
    text = text.strip(AROUND)
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    if not text:
        return None
    if label and len(text) in (4, 5) and text.lower() in BOOLEANS:
        return text.lower()
    return text


#: values up to this long go through the vectorised rule of :func:`canonical_texts` (a
#: fixed-width array of that many characters a value); longer ones one by one
SHORT_TEXT = 64


def canonical_texts(values: NDArray[np.object_], *, label: bool = False) -> NDArray[np.object_]:
    """:func:`canonical` of each of ``values`` (None where nothing is left), vectorised.

    Short texts, nearly all of a column's distinct values, are stripped, tested for ASCII
    and (``label``) for ``true``/``false`` as one fixed-width array; the rest (non-ASCII
    texts, which need NFC, long texts and typed values) go through :func:`canonical` one by
    one. The same answers as ``[canonical(v, label=label) for v in values]``.

    >>> canonical_texts(np.array([" a ", "", "TRUE", 7, None], dtype=object), label=True)
    array(['a', None, 'true', '7', None], dtype=object)
    """
    values = np.asarray(values, dtype=object)
    out = np.empty(len(values), dtype=object)
    short = _short_texts(values)
    written = values[short].astype(str)
    # a fixed-width text treats NUL characters as its padding: such values go one by one
    whole = np.count_nonzero(_characters(written), axis=1) == _lengths(values[short])
    short[np.flatnonzero(short)[~whole]] = False
    written = written[whole]
    fixed = np.strings.strip(written, AROUND)
    ascii_only = _characters(fixed).max(axis=1, initial=0) < 128
    if label:
        length = np.strings.str_len(fixed)
        lowered = np.strings.lower(fixed)
        boolean = ((length == 4) | (length == 5)) & np.isin(lowered, BOOLEANS)
        fixed = np.where(boolean, lowered, fixed)
    if short.all() and ascii_only.all() and np.all(fixed != "") and np.array_equal(fixed, written):
        return values  # every value is already under the rule: no copy
    texts = fixed.astype(object)
    texts[fixed == ""] = None
    out[np.flatnonzero(short)[ascii_only]] = texts[ascii_only]
    one_by_one = np.flatnonzero(short)[~ascii_only].tolist() + np.flatnonzero(~short).tolist()
    for i in one_by_one:
        out[i] = canonical(values[i], label=label)
    return out


def _characters(texts: NDArray[np.str_]) -> NDArray[np.uint32]:
    """The code points of fixed-width ``texts``, one row a text (0 after its end)."""
    return texts.view(np.uint32).reshape(len(texts), texts.dtype.itemsize // 4)


def _lengths(texts: NDArray[np.object_]) -> NDArray[np.int64]:
    """The length of each of ``texts``."""
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def _short_texts(values: NDArray[np.object_]) -> NDArray[np.bool_]:
    """Which of ``values`` are texts of at most :data:`SHORT_TEXT` characters."""
    import pandas as pd

    if pd.api.types.infer_dtype(values, skipna=False) == "string":  # all texts: C loops
        return _lengths(values) <= SHORT_TEXT
    return np.fromiter(
        (type(v) is str and len(v) <= SHORT_TEXT for v in values), dtype=bool, count=len(values)
    )


def canonical_codes(
    codes: NDArray[np.integer],
    uniques: Any,
    *,
    label: bool = False,
    missing: tuple[str, ...] = (),
    sort: bool = False,
) -> tuple[NDArray[np.int64], np.ndarray]:
    """Codes (-1: missing) and distinct values of a factorized column, under the rule.

    ``codes`` and ``uniques`` are a column factorized as it was read (-1 for a null).
    Each distinct value is put under the rule once (:func:`canonical`); values that become
    equal share a code, values that become empty or a ``missing`` marker get -1. The
    values keep the order of their first value in ``uniques`` (``sort``: sorted as text).
    """
    import pandas as pd  # the pandas reader's step: pandas is loaded already

    raw = np.asarray(uniques, dtype=object)
    markers = [m for m in (canonical(m, label=label) for m in missing) if m is not None]
    texts = canonical_texts(raw, label=label)
    kept = pd.notna(texts) & ~pd.Series(texts, dtype=object).isin(markers).to_numpy()
    mapping = np.full(len(texts) + 1, -1, dtype=np.int64)  # the last entry keeps -1
    if kept.all() and (texts is raw or bool(np.all(texts == raw))):  # the usual case
        mapping[:-1], values = np.arange(len(raw)), raw
    else:  # values that became equal share a code, in the order of first appearance
        first, distinct = pd.factorize(texts[kept], sort=False)
        mapping[:-1][kept], values = first, np.asarray(distinct, dtype=object)
    if sort and len(values) > 1:
        rank, values = _text_order(values)
        mapping = rank[mapping]
    if len(values) == len(raw) and np.array_equal(mapping[:-1], np.arange(len(raw))):
        return np.asarray(codes, dtype=np.int64), values
    return mapping[np.asarray(codes, dtype=np.int64)], values


def sorted_as_text(
    codes: NDArray[np.integer], values: np.ndarray
) -> tuple[NDArray[np.int64], np.ndarray]:
    """Codes (-1: missing) and distinct values re-ordered so that the values are sorted as
    text, as :func:`canonical_codes` with ``sort`` orders them.

    >>> codes, values = sorted_as_text(np.array([0, 1, -1, 0]), np.array(["b", "a"], object))
    >>> codes.tolist(), values.tolist()
    ([1, 0, -1, 1], ['a', 'b'])
    """
    if len(values) < 2:
        return np.asarray(codes, dtype=np.int64), values
    rank, ordered = _text_order(values)
    return rank[np.asarray(codes, dtype=np.int64)], ordered


def _text_order(values: np.ndarray) -> tuple[NDArray[np.int64], np.ndarray]:
    """Each value's rank in text order (with a last entry -1 that keeps code -1), and the
    values in that order."""
    order = np.argsort(values.astype(str), kind="stable")
    rank = np.empty(len(order) + 1, dtype=np.int64)
    rank[order], rank[-1] = np.arange(len(order)), -1
    return rank, values[order]


def sql_text(expression: str, *, label: bool = False) -> str:
    """:func:`canonical` in DuckDB SQL, of an expression of any type (NULL: missing).

    Booleans cast to ``true``/``false``, integers to their digits, doubles to the shortest
    text that reads back (as Python's ``str``), so typed Parquet columns follow
    :func:`text_of`.
    """
    text = f"nullif(nfc_normalize(trim(CAST({expression} AS VARCHAR), {SQL_AROUND})), '')"
    if not label:
        return text
    return f"(CASE WHEN lower({text}) IN ('false', 'true') THEN lower({text}) ELSE {text} END)"


def sql_not_missing(expression: str, missing: tuple[str, ...]) -> str:
    """`` AND expression NOT IN (markers)`` for the ``missing`` markers under the rule."""
    markers = sorted({m for m in (canonical(m, label=True) for m in missing) if m is not None})
    if not markers:
        return ""
    listed = ", ".join("'" + m.replace("'", "''") + "'" for m in markers)
    return f" AND {expression} NOT IN ({listed})"


def id_order(ids: np.ndarray) -> NDArray[np.intp]:
    """The order item ids are written in: as numbers when every id is a whole number
    (ties, such as ``7`` and ``007``, by their text), else as text."""
    values = np.asarray(ids)
    if values.dtype.kind in "iu":
        return np.argsort(values, kind="stable")
    texts = [str(text_of(v)) for v in values.tolist()]
    if texts and all(INTEGER_TEXT.fullmatch(t) for t in texts):
        ranked = sorted(range(len(texts)), key=lambda i: (int(texts[i]), texts[i]))
        return np.array(ranked, dtype=np.intp)
    return np.argsort(np.array(texts, dtype=object), kind="stable")
