"""The count step in DuckDB: ratings SQL in, distinct label vectors and their counts out.

:mod:`planner.data.engine_duckdb` turns a file (or a glob of files) into the SQL of its
ratings, one row per rating (:class:`~planner.data.engine_duckdb.Query`). This module
counts them. Each item's label vector -- the label each annotator gave it, or none -- is
one key: the number :math:`\\sum_j (c_j + 1)(K + 1)^j` over the annotators :math:`j` who
rated it (code :math:`c_j` in ``0..K-1``) when :math:`m \\log_2(K + 1) < 62` bits, else
the sorted list of :math:`jK + c_j`. ``GROUP BY`` key gives the distinct vectors and how
many items share each; DuckDB runs that under its memory limit and spills what does not fit.

The vectors come back to Python as sparse (pattern, annotator, code) entries, one per
rating of a pattern, decoded from the keys without an items x annotators (or patterns x
annotators) array: memory is linear in the ratings of the distinct patterns, so a crowd of
100,000 items and 20,000 annotators costs what its 300,000 ratings cost. They become
:class:`~planner.data.labels.Ratings` whose rows are the patterns and whose ``weights``
are their multiplicities: every statistic follows through the same code as for a file
read by pandas, and equals it.

The contested-items file needs the items themselves: :func:`copy_contested` writes it
with ``COPY ... TO`` into a file the caller names (the caller moves it into place).

References
----------
The key is the mixed-radix (base :math:`K + 1`) code of the label vector; see Knuth, *The
Art of Computer Programming*, vol. 2, section 4.1 (positional number systems).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.engine_duckdb import Files, Query, _ident, _quoted, run
from planner.data.labels import CodedRatings, Ratings, finished_ratings, is_number
from planner.errors import InvalidInput

#: per-item keys are BIGINT sums of digits base K + 1, one digit per annotator
KEY_BITS = 62

#: Ratings coded: annotator index and its digit weight, category code.
CODED = """
SELECT r.item, a.idx AS ann, a.power, l.code{by} FROM ({ratings}) r
JOIN planner_annotators a ON r.annotator = a.name JOIN planner_labels l ON r.label = l.value
"""
#: Per item: the label vector as one number, the annotators seen, the ratings.
ITEM_KEYS = """
SELECT {key} AS key, count(*) AS n_ratings, {seen} AS n_annotators,
       min(item) AS first_item{by_agg}
FROM ({coded}) GROUP BY item
"""
#: Distinct label vectors and their multiplicities.
PATTERN_COUNTS = """
SELECT key{by}, count(*) AS n, sum(n_ratings - n_annotators) AS repeats,
       min(first_item) AS first_item{extra}
FROM ({items}) GROUP BY key{by} ORDER BY key{by}
"""
#: Ratings of an (item, annotator) pair given more than once with different labels.
CONFLICTS = """
SELECT min(planner_item_id) AS item_id, annotator, min(label) AS first, max(label) AS second
FROM ({ratings}) GROUP BY item, annotator HAVING min(label) <> max(label) LIMIT 1
"""
#: Ratings with each label as the report shows it (``1``, not ``1.0``).
LABELLED = """
SELECT r.item, r.planner_item_id, r.annotator, a.idx AS ann, l.shown AS label
FROM ({ratings}) r JOIN planner_labels l ON r.label = l.value
JOIN planner_annotators a ON r.annotator = a.name
"""
#: Contested items: two or more annotators, and their labels differ.
CONTESTED = """
SELECT item FROM ({labelled}) GROUP BY item
HAVING count(DISTINCT annotator) >= 2 AND count(DISTINCT label) > 1
"""
#: The contested-items file, one row per item and a column per annotator.
CONTESTED_WIDE = """
SELECT {item_out} AS item, {pivot} FROM ({labelled})
WHERE item IN ({contested}) GROUP BY item ORDER BY {order}
"""
#: The contested-items file, one row per rating (many annotators).
CONTESTED_LONG = """
SELECT {item_out} AS item, annotator, label FROM (
  SELECT DISTINCT planner_item_id AS item, annotator, label, item AS planner_key, ann
  FROM ({labelled}) WHERE item IN ({contested}))
ORDER BY {order}, ann
"""
#: Item ids pandas reads as integers (so the contested file of either engine writes them,
#: and orders them, as numbers).
_INTEGER_ID = r"^[+-]?[0-9]{1,38}$"  # at most HUGEINT's 38 digits, as cell_values


def count_query(con: Any, files: Files, query: Query, order: list[str] | None) -> Ratings:
    """Ratings (distinct label vectors, weighted) of a query: labels, codes, then counts."""
    categories = register_labels(con, files.path, query.ratings, order)
    query = one_spelling(query)
    k, m = len(categories), len(query.annotators)
    if m < 2:
        raise InvalidInput(f"{files.path}: fewer than two annotators ({m})")
    numeric_key = register_annotators(con, query.annotators, k)
    notes = list(query.notes)
    rows = _pattern_rows(con, query, query.ratings, numeric_key, k)
    repeats = int(sum(r[-1] or 0 for r in rows))
    if repeats:
        _refuse_conflicts(con, files.path, query.ratings)
        notes.append(f"{repeats:,} repeated identical rating(s) kept once")
        rows = _pattern_rows(
            con, query, f"SELECT DISTINCT * FROM ({query.ratings})", numeric_key, k
        )
    by = query.by
    weights = np.array([int(r[1 + len(by)]) for r in rows], dtype=np.int64)
    entries = pattern_entries([r[0] for r in rows], numeric_key, k, m)
    if query.layout == "wide" and query.n_rows > int(weights.sum()):
        notes.append(f"{query.n_rows - int(weights.sum())} item(s) with no rating left out")
    groups = {b: _plain_groups([r[1 + j] for r in rows], files.fmt) for j, b in enumerate(by)}
    return finished_ratings(
        CodedRatings(
            entries,
            categories,
            tuple(query.annotators),
            np.arange(len(rows)),
            groups=groups,
            weights=weights,
        ),
        files.path,
        notes,
        note_unrated=False,
        ordered=order is not None or categories.dtype.kind in "iuf",
        input={**query.input, "n_patterns": len(rows)},
    )


def pattern_entries(
    keys: list[Any], numeric_key: bool, k: int, m: int
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int32]]:
    """``(pattern, annotator, code)`` of every rating in the patterns ``keys`` stand for.

    A numeric key is :math:`\\sum_j (c_j + 1)(K + 1)^j`, its digit ``j`` (base ``K + 1``)
    annotator ``j``'s code plus one, zero where the annotator did not rate; a list key is
    the sorted :math:`jK + c_j` of the annotators who rated. Sorted by pattern, then
    annotator; memory linear in the entries, never patterns x annotators.
    """
    if numeric_key:
        return _digit_entries(keys, k, m)
    lengths = np.fromiter((len(key) for key in keys), dtype=np.int64, count=len(keys))
    flat = np.fromiter(
        itertools.chain.from_iterable(keys), dtype=np.int64, count=int(lengths.sum())
    )
    pattern = np.repeat(np.arange(len(keys), dtype=np.int64), lengths)
    return pattern, (flat // k).astype(np.int32), (flat % k).astype(np.int32)


def _digit_entries(
    keys: list[Any], k: int, m: int
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int32]]:
    """The entries of numeric keys: digit ``j`` base ``K + 1`` of each, for the ``m`` (at
    most :data:`KEY_BITS`) annotators, one pass per annotator over every key at once."""
    rest = np.asarray(keys, dtype=np.int64).reshape(-1)
    found = []
    for j in range(m):
        digit = rest % (k + 1)
        rest //= k + 1
        rated = np.flatnonzero(digit)
        found.append(np.stack([rated, np.full(rated.size, j), digit[rated] - 1]))
    pattern, annotator, code = np.concatenate(found, axis=1)
    order = np.lexsort((annotator, pattern))
    return pattern[order], annotator[order].astype(np.int32), code[order].astype(np.int32)


def register_annotators(con: Any, names: tuple[str, ...], k: int) -> bool:
    """Store each annotator's index and digit weight ``(K + 1)^j``; whether keys fit 62 bits."""
    import pandas as pd

    m = len(names)
    numeric_key = bool(m * np.log2(k + 1) < KEY_BITS)
    powers = [(k + 1) ** j if numeric_key else 0 for j in range(m)]
    table = pd.DataFrame({"name": list(names), "idx": np.arange(m, dtype=np.int64),
                          "power": np.array(powers, dtype=np.int64)})  # fmt: skip
    con.register("planner_annotators_df", table)
    con.execute("CREATE OR REPLACE TEMP TABLE planner_annotators AS "
                "SELECT * FROM planner_annotators_df")  # fmt: skip
    return numeric_key


def ordered_labels(
    values: list[str], order: list[str] | None, source: str
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct labels an engine found (sorted text), checked and ordered as the pandas
    reader orders them: ``(categories, rank of each value)``. Refuses no labels at all and
    labels that are not finite numbers."""
    from planner.data.reading import ordered_categories

    if not values:
        raise InvalidInput(f"{source}: no labels at all (every label cell is empty)")
    for value in values:
        if is_number(value) and not np.isfinite(float(value)):
            raise InvalidInput(
                f"{source}: label {value!r} is not a finite number (labels must be finite; "
                "name it in missing if it means no rating)",
                parameters=("missing",),
            )
    return ordered_categories(np.array(values, dtype=object), order, source)


def register_labels(con: Any, source: str, ratings: str, order: list[str] | None) -> np.ndarray:
    """Find the distinct labels, order them as the pandas reader does, store their codes."""
    import pandas as pd

    values = sorted(str(r[0]) for r in run(con, f"SELECT DISTINCT label FROM ({ratings})"))
    categories, ranks = ordered_labels(values, order, source)
    plain = np.asarray(categories).tolist()  # numpy scalars as Python values, as tables show them
    table = pd.DataFrame({
        "value": values,
        "code": np.asarray(ranks, dtype=np.int64),
        "shown": [str(plain[r]) for r in ranks],
        # one spelling per category (``1`` for ``1.0`` too), so that SQL compares labels
        # as the pandas reader does (repeats, conflicts)
        "spelling": [values[int(np.flatnonzero(ranks == r)[0])] for r in ranks],
    })  # fmt: skip
    con.register("planner_labels_df", table)
    con.execute("CREATE OR REPLACE TEMP TABLE planner_labels AS SELECT * FROM planner_labels_df")
    return categories


def one_spelling(query: Query) -> Query:
    """The query with each label replaced by its category's one spelling (as registered by
    :func:`register_labels`): labels equal as numbers are then equal in SQL too."""
    spelled = (
        "SELECT r.* REPLACE (l.spelling AS label) FROM "
        f"({query.ratings}) r JOIN planner_labels l ON r.label = l.value"
    )
    return replace(query, ratings=spelled)


def _pattern_rows(
    con: Any, query: Query, ratings: str, numeric_key: bool, k: int
) -> list[tuple[Any, ...]]:
    """``(key, group values..., items, repeated ratings)`` of each distinct label vector.

    With grouping columns the rows come in the order of the groups' first items (as the
    pandas reader's rows), and a column that varies within an item is refused.
    """
    by = query.by
    coded = CODED.format(ratings=ratings, by="".join(f", r.{_ident(b)}" for b in by))
    key = (
        "sum(CAST(code + 1 AS BIGINT) * power)"
        if numeric_key
        else f"list(ann * {k} + code ORDER BY ann)"
    )
    seen = "bit_count(bit_or(CAST(1 AS UBIGINT) << ann))" if numeric_key else "count(DISTINCT ann)"
    rows = run(con, pattern_counts_sql(coded, by, key, seen, _ident))
    return rows_in_group_order(rows, by, "duckdb")


def pattern_counts_sql(
    coded: str, by: tuple[str, ...], key: str, seen: str, ident: Callable[[str], str]
) -> str:
    """:data:`PATTERN_COUNTS` over :data:`ITEM_KEYS` of the coded ratings, in the dialect
    whose key and annotator-count expressions (``key``, ``seen``) and quoting (``ident``)
    are given: the one count query of the DuckDB and the Spark engines."""
    by_agg = "".join(
        f", min({ident(b)}) AS {ident(b)}, max({ident(b)}) AS {ident(b + ' hi')}" for b in by
    )
    items = ITEM_KEYS.format(key=key, seen=seen, coded=coded, by_agg=by_agg)
    extra = "".join(f", bool_or({ident(b)} IS DISTINCT FROM {ident(b + ' hi')})" for b in by)
    by_cols = "".join(f", {ident(b)}" for b in by)
    return PATTERN_COUNTS.format(items=items, by=by_cols, extra=extra)


def rows_in_group_order(
    rows: list[tuple[Any, ...]], by: tuple[str, ...], engine: str
) -> list[tuple[Any, ...]]:
    """``(key, group values..., items, repeated ratings)`` of the rows of
    :func:`pattern_counts_sql`, the groups in the order of their first items (as the pandas
    reader's rows); a grouping column that varies within an item is refused."""
    for j, b in enumerate(by):
        if any(r[4 + len(by) + j] for r in rows):
            raise InvalidInput(
                f"by {b!r} takes more than one value within an item; with engine {engine} "
                "a grouping column must be constant per item (or use engine pandas, which "
                "takes each item's first value)",
                parameter="by",
                parameters=("engine",),
            )
    if by:  # groups in the order of their first item, as diagnose() lists them
        first: dict[tuple[Any, ...], Any] = {}
        for r in rows:
            g = tuple(r[1 : 1 + len(by)])
            first[g] = r[3 + len(by)] if g not in first else min(first[g], r[3 + len(by)])
        rows.sort(key=lambda r: first[tuple(r[1 : 1 + len(by)])])
    return [(*r[: 1 + len(by)], r[1 + len(by)], r[2 + len(by)]) for r in rows]


def _refuse_conflicts(con: Any, source: str, ratings: str) -> None:
    conflict = run(con, CONFLICTS.format(ratings=ratings))
    if conflict:
        item, annotator, first, second = conflict[0]
        raise InvalidInput(
            f"{source}: item {item} is labelled by annotator {annotator} more than once "
            f"with different labels ({first}, {second})"
        )


def _plain_groups(values: list[Any], fmt: str) -> np.ndarray:
    """Group values as the pandas reader gives them (CSV text that is all numbers: numbers)."""
    if fmt == "parquet":
        return np.asarray(values)
    import pandas as pd

    try:
        return np.asarray(pd.to_numeric(pd.Series(values, dtype=object)))
    except (ValueError, TypeError):
        return np.asarray(values, dtype=object)


# --------------------------------------------------------------------------- contested items


def copy_contested(con: Any, query: Query, raw: Path, wide_annotators: int) -> None:
    """Write the items whose ratings differ to the file ``raw`` with DuckDB's ``COPY``.

    The same rows as :func:`planner.measuring.diagnostics.contested_rows` gives: one row
    per item (its id, each annotator's label, empty where none) with at most
    ``wide_annotators`` annotators, else one row per rating; streamed by DuckDB, so there
    is no limit on the number of rows. LF line ends, an empty cell (NULL, not ``""``)
    where an annotator gave no label. ``raw`` is the caller's temporary: the caller moves it
    into place (and guards the inputs), see :func:`planner.output.safe_output.write_csv_from`.
    """
    labelled = LABELLED.format(ratings=query.ratings)
    contested = CONTESTED.format(labelled=labelled)
    if len(query.annotators) <= wide_annotators:
        pivot = ", ".join(
            f"max(label) FILTER (WHERE annotator = '{_quoted(a)}') AS {_ident(a)}"
            for a in query.annotators
        )
        item_out, order = _contested_ids(con, query, contested, "item", "min(item)")
        sql = CONTESTED_WIDE.format(
            item_out=item_out.replace("{id}", "any_value(planner_item_id)"), order=order,
            pivot=pivot, labelled=labelled, contested=contested,
        )  # fmt: skip
    else:
        item_out, order = _contested_ids(con, query, contested, "planner_key", "planner_key")
        sql = CONTESTED_LONG.format(
            item_out=item_out.replace("{id}", "item"), order=order, labelled=labelled,
            contested=contested,
        )  # fmt: skip
    run(con, f"COPY ({sql}) TO '{_quoted(str(raw))}' (HEADER, DELIMITER ',')")


def _contested_ids(
    con: Any, query: Query, contested: str, key: str, row_order: str
) -> tuple[str, str]:
    """How the contested file writes item ids (``{id}`` stands for the id) and orders rows.

    The file pandas' path writes (:func:`planner.measuring.diagnostics.contested_rows`) has
    the wide layout's items in file order and the long layout's by id
    (:func:`planner.data.cell_values.id_order`): as numbers when every contested id is a
    whole number (``7`` before ``007`` before ``10``), else as text; ids are written as the
    text of the file.
    """
    if query.layout != "long":
        return "{id}", row_order
    text = f"CAST({key} AS VARCHAR)"
    ((numeric,),) = run(
        con,
        f"SELECT coalesce(bool_and(regexp_matches(CAST(item AS VARCHAR), '{_INTEGER_ID}')), "
        f"false) FROM ({contested})",
    )
    if not numeric:
        return "CAST({id} AS VARCHAR)", text
    return "CAST({id} AS VARCHAR)", f"CAST({text} AS HUGEINT), {text}"
