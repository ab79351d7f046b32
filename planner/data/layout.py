"""What each column of a label file is: the layout, and the column of each role.

Both engines look at the same sample of the file (its first :data:`SAMPLE_ROWS` rows, as a
pandas DataFrame) and call :func:`find_columns`, so they read a file the same way. Names
and value shapes decide, and nothing is guessed silently:

* **Names.** A column named like an item (``item``, ``id``, ``doc``, ``comment_id``,
  any ``*_id`` that is not an annotator's), an annotator (``annotator``, ``rater``,
  ``coder``, ``judge``, ``worker``, ``worker_id``, ...) or a label (``label``, ``rating``,
  ``verdict``, ``score``, ...) says what it holds. The columns given (``item_col``, ...)
  are used when the file has them; a default name the file lacks is looked for by kind.
* **Long** when an item, an annotator and a label column are found, one each (the one
  column left beside an annotator and a label column is the item column), and the
  annotator and label columns repeat their values, as they do in one row per rating.
* **Wide** otherwise, when no column is named like an annotator or a label: the annotator
  columns are those that share their labels (a value in common, or for numbers an
  overlapping range). A column that shares no value with them (a ``domain``, a ``week``)
  is not an annotator: it is left out, and a note names it. A column of all-different
  values (ids) is the item column when none is named, never an annotator.
* Otherwise :class:`LayoutUnclear`: the columns seen, why, and the settings that read the
  file either way (each command renders them as its own flags or keys).

An explicit ``layout`` uses the same roles: ``"wide"`` never fails where ``"auto"`` reads
the file as wide. A column given two roles (``item_col`` and ``label_col``, or the item
column among the annotator columns) is refused (:func:`check_roles`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.data.labels import is_number
from planner.errors import InvalidInput

SAMPLE_ROWS = 2000  # rows read to choose the layout
ID_MIN_VALUES = 20  # a column is taken as ids when at least this many values are all distinct
#: the default column names of the long layout (a default the file lacks is looked for)
DEFAULT_COLUMNS = {"item_col": "item", "annotator_col": "annotator", "label_col": "label"}

#: the long layout's roles and the kind of name that says each
_ROLES = (("item_col", "item"), ("annotator_col", "annotator"), ("label_col", "label"))

# column names that say what a column is (compared lower-case, without spaces, - and _)
ITEM_NAMES = {"item", "itemid", "id", "doc", "docid", "document", "documentid", "unit"}
ITEM_NAMES |= {"unitid", "text", "textid", "example", "exampleid", "sample", "sampleid"}
ITEM_NAMES |= {"subject", "subjectid", "uid", "key", "question", "questionid", "task"}
ITEM_NAMES |= {"taskid", "image", "imageid", "record", "recordid", "case", "caseid"}
ANNOTATOR_NAMES = {"annotator", "annotatorid", "rater", "raterid", "coder", "coderid"}
ANNOTATOR_NAMES |= {"judge", "judgeid", "labeler", "labeller", "labelerid", "worker"}
ANNOTATOR_NAMES |= {"workerid", "user", "userid", "observer", "assessor", "reviewer"}
ANNOTATOR_NAMES |= {"grader", "evaluator", "annotatorname", "ratername"}
LABEL_NAMES = {"label", "verdict", "rating", "code", "category", "class", "answer"}
LABEL_NAMES |= {"response", "score", "value", "judgment", "judgement", "tag", "decision"}
LABEL_NAMES |= {"annotation", "grade", "choice", "outcome"}
# an id suffix: comment_id, comment-id, comment id, commentId, COMMENTID is not one
_ID_SUFFIX = re.compile(r"(?:[\s_\-.][iI][dD]|[a-z0-9]Id|[a-z0-9]ID)$")


def kind_of_name(name: Any) -> str | None:
    """``"item"``, ``"annotator"``, ``"label"`` or None, from a column's name.

    >>> [kind_of_name(n) for n in ("comment_id", "worker_id", "Rating", "alice", "paid")]
    ['item', 'annotator', 'label', None, None]
    """
    key = re.sub(r"[\s_\-.]", "", str(name).lower())
    if key in ANNOTATOR_NAMES:
        return "annotator"
    if key in ITEM_NAMES:
        return "item"
    if key in LABEL_NAMES:
        return "label"
    if _ID_SUFFIX.search(str(name)):  # the id of something that is not an annotator
        return "item"
    return None


def looks_like_ids(column: Any) -> bool:
    """Every value different (at least ``ID_MIN_VALUES``, none missing, not fractional)."""
    import pandas as pd

    if len(column) < ID_MIN_VALUES or bool(column.isna().any()):
        return False
    values = column
    if isinstance(column.dtype, pd.CategoricalDtype):
        if len(column.cat.categories) < len(column):
            return False
        values = pd.Series(np.asarray(column.cat.categories))
    if pd.api.types.is_float_dtype(values.dtype):
        numeric = values.to_numpy(dtype=float)
        if not np.all(numeric == np.round(numeric)):
            return False  # fractional scores: an interval scale, not ids
    try:
        return bool(column.nunique() == len(column))
    except TypeError:  # unhashable values are refused later, with their row
        return False


def id_columns(frame: Any, columns: list[Any]) -> list[Any]:
    """The columns of ``frame`` that hold ids, not labels.

    An id column has all-distinct values (:func:`looks_like_ids`) while the other columns
    repeat theirs: each has at most half as many distinct values as there are rows. When
    every column is all-distinct (an integer score scale, say), none is taken as ids.
    """
    distinct = [c for c in columns if looks_like_ids(frame[c])]
    others = [c for c in columns if c not in distinct]
    if not distinct or not others:
        return []
    repeat = all(frame[c].nunique() <= len(frame) / 2 for c in others)
    return distinct if repeat else []


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Columns:
    """The layout of a label file and the column of each role.

    ``annotator_cols`` (wide) are the annotator columns; ``left_out`` the columns read as
    neither; ``id_fallback``: no item column was found, so one all-distinct column of the
    whole file may still become the item ids (wide, said in a note). ``notes`` say what was
    inferred.
    """

    layout: str
    item_col: str | None
    annotator_col: str | None = None
    label_col: str | None = None
    annotator_cols: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    id_fallback: bool = False
    notes: tuple[str, ...] = ()


#: how a library message names a reader setting (the CLI and scenarios render their own)
Setting = Callable[[str, Any], str]


def python_setting(name: str, value: Any) -> str:
    """A reader setting as a keyword argument: ``item_col='doc'``."""
    return f"{name}={list(value)!r}" if isinstance(value, tuple) else f"{name}={value!r}"


class LayoutUnclear(InvalidInput):
    """A file whose layout or columns cannot be told: what was seen, and what to set.

    ``suggestions`` are whole reader settings (``layout``, ``item_col``, ... by parameter
    name), each one of which reads the file; :meth:`message` renders them with a
    command's own spelling of a setting (a flag, a scenario key).
    """

    def __init__(
        self,
        source: str,
        reason: str,
        columns: list[Any],
        suggestions: tuple[dict[str, Any], ...],
    ) -> None:
        self.source, self.reason, self.suggestions = source, reason, suggestions
        self.columns = [str(c) for c in columns]
        super().__init__(self.message(python_setting, ", "))

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled from its parts (its ``__init__`` takes no message)."""
        parts = (self.source, self.reason, self.columns, self.suggestions)
        return type(self), parts, self.__dict__

    def message(self, setting: Setting, between: str = " ") -> str:
        """The one-line refusal with each suggestion as ``setting(name, value)``s."""
        shown = ", ".join(self.columns[:12]) + (", ..." if len(self.columns) > 12 else "")
        ways = [between.join(setting(k, v) for k, v in s.items()) for s in self.suggestions]
        what = "cannot tell whether the file is long or wide"
        if all(s.get("layout") == "wide" for s in self.suggestions):
            what = "cannot tell which columns are the annotators"
        text = f"{self.source}: {what} ({self.reason}; columns: {shown})"
        return text + (f"; set {', or '.join(ways)}" if ways else "")


class RoleConflict(InvalidInput):
    """One column given two roles (``item_col`` and ``label_col``, say).

    :meth:`message` names the roles with a command's own spelling (its flags).
    """

    def __init__(self, source: str, column: Any, roles: tuple[str, str]) -> None:
        self.source, self.column, self.roles = source, str(column), roles
        super().__init__(self.message(str))

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled from its parts (its ``__init__`` takes no message)."""
        return type(self), (self.source, self.column, self.roles), self.__dict__

    def message(self, name: Callable[[str], str]) -> str:
        """The one-line refusal with each role as ``name(parameter)``."""
        first, second = (name(r) for r in self.roles)
        return (
            f"{self.source}: column {self.column!r} is given two roles ({first} and {second}); "
            "each column has one role"
        )


class MissingColumns(InvalidInput):
    """Columns a reader was told to use that the file lacks, by the parameter that named
    each (``parameter`` is the first such parameter)."""

    def __init__(self, source: str, missing: dict[str, list[Any]], header: list[Any]) -> None:
        self.source, self.missing, self.header = source, missing, list(header)
        listed = ", ".join(repr(c) for cs in missing.values() for c in cs)
        super().__init__(
            f"{source}: missing column(s) {listed} (columns are: {self.columns})",
            parameter=next(iter(missing)),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled from its parts (its ``__init__`` takes no message)."""
        return type(self), (self.source, self.missing, self.header), self.__dict__

    @property
    def columns(self) -> str:
        """The file's first twelve columns, listed."""
        return ", ".join(map(str, self.header[:12]))


def check_roles(roles: dict[str, Any], source: str) -> None:
    """Refuse a column given two roles; ``roles``: parameter -> column or columns."""
    seen: dict[str, str] = {}
    for role, given in roles.items():
        for column in [given] if isinstance(given, str) else list(given or ()):
            if column in seen and seen[column] != role:  # twice in one list: said by its reader
                raise RoleConflict(source, column, (seen[column], role))
            seen[column] = role


# --------------------------------------------------------------------------- finding columns


def find_columns(
    sample: Any,
    *,
    layout: str = "auto",
    item_col: str = "item",
    annotator_col: str = "annotator",
    label_col: str = "label",
    annotator_cols: list[str] | tuple[str, ...] | None = None,
    by: tuple[str, ...] = (),
    source: str = "ratings",
) -> Columns:
    """The layout and the column of each role, from a sample of the file (see the module).

    ``layout`` is ``"auto"``, ``"long"`` or ``"wide"`` (``annotator_cols`` given: wide).
    A column name given that the file lacks is refused, and so is one column in two roles;
    :class:`LayoutUnclear` when ``"auto"`` cannot tell.
    """
    header = list(sample.columns)
    names = {"item_col": item_col, "annotator_col": annotator_col, "label_col": label_col}
    if annotator_cols and layout == "auto":
        layout = "wide"
    # a column named by an option must be there (wide reads no annotator or label column)
    given = {role: c for role, c in names.items() if c != DEFAULT_COLUMNS[role]}
    wanted = {r: [given[r]] for r in given if layout != "wide" or r == "item_col"}
    _require(header, wanted, source)
    if layout != "wide":
        found, why = _long_roles(sample, header, names, by)
        complete = all(found.values()) and not why
        if layout == "long" or complete:
            for role, column in found.items():
                if column is None:
                    found[role] = names[role]  # absent: refused as a missing column
            _require(header, {r: [c] for r, c in found.items() if c is not None}, source)
            check_roles({**found, "by": by}, source)
            return Columns("long", found["item_col"], found["annotator_col"], found["label_col"])
    else:
        found, why = {}, []
    return _wide_roles(sample, header, layout, names, annotator_cols, by, source, (found, why))


def _require(header: list[Any], columns: dict[str, list[Any]], source: str) -> None:
    """Refuse columns (by the parameter that named them) that the file lacks."""
    absent = {role: [c for c in cs if c not in header] for role, cs in columns.items()}
    missing = {role: cs for role, cs in absent.items() if cs}
    if missing:
        raise MissingColumns(source, missing, header)


def _long_roles(
    sample: Any, header: list[Any], names: dict[str, str], by: tuple[str, ...]
) -> tuple[dict[str, Any], list[str]]:
    """The item, annotator and label columns of a long file (None: not found), and why not.

    A column given by name and present is used as given; a default name the file lacks is
    looked for by kind; the one column left beside an annotator and a label column is the
    item column. Found by name, the annotator and label columns must repeat their values.
    """
    free = [c for c in header if c not in set(by)]
    kinds = {c: kind_of_name(c) for c in free}
    found: dict[str, Any] = {}
    why: list[str] = []
    for role, kind in _ROLES:
        given = names[role]
        if given in header or given != DEFAULT_COLUMNS[role]:
            found[role] = given if given in header else None
            continue
        named = [c for c in free if kinds[c] == kind and c not in found.values()]
        found[role] = named[0] if len(named) == 1 else None
        if len(named) > 1:
            why.append(f"several {kind}-like columns {', '.join(map(str, named))}")
    others = [c for c in free if c not in (found["annotator_col"], found["label_col"])]
    if found["item_col"] is None and found["annotator_col"] and found["label_col"] and not why:
        if len(others) == 1 and names["item_col"] == DEFAULT_COLUMNS["item_col"]:
            found["item_col"] = others[0]
    for role in ("annotator_col", "label_col"):
        column = found[role]
        if column is not None and column != names[role] and looks_like_ids(sample[column]):
            what = "an annotator" if role == "annotator_col" else "a label"
            why.append(f"{column} has a different value in every row, unlike {what} column")
    return found, why


def _wide_roles(
    sample: Any,
    header: list[Any],
    layout: str,
    names: dict[str, str],
    annotator_cols: list[str] | tuple[str, ...] | None,
    by: tuple[str, ...],
    source: str,
    long: tuple[dict[str, Any], list[str]],
) -> Columns:
    """The item and annotator columns of a wide file (``layout`` ``"auto"`` or ``"wide"``)."""
    free = [c for c in header if c not in set(by)]
    kinds = {c: kind_of_name(c) for c in free}
    chosen = list(annotator_cols or [])
    item: Any = names["item_col"] if names["item_col"] in header else None
    if item is None:
        named = [c for c in free if kinds[c] == "item" and c not in chosen]
        if len(named) > 1 and not chosen:
            reason = f"several item-like columns {', '.join(map(str, named))}"
            raise _unclear(sample, header, by, long[0], None, free, source, reason, layout)
        item = named[0] if len(named) == 1 else None
    if chosen:
        _require(header, {"annotator_cols": chosen}, source)
        check_roles({"item_col": [item] if item is not None else [], "annotator_cols": chosen,
                     "by": by}, source)  # fmt: skip
        return Columns("wide", item, annotator_cols=tuple(chosen))
    rest = [c for c in free if c != item]
    if item is None:
        ids = id_columns(sample, rest)
        if len(ids) == 1:
            item, rest = ids[0], [c for c in rest if c != ids[0]]
    named = [c for c in rest if kinds[c] is not None]
    if layout == "auto" and (named or long[1]):
        article = {"item": "an item", "annotator": "an annotator", "label": "a label"}
        reason = "; ".join(long[1]) or ", ".join(
            f"{c} looks like {article[str(kinds[c])]} column" for c in named
        )
        raise _unclear(sample, header, by, long[0], item, rest, source, reason, layout)
    rated = [c for c in rest if bool(sample[c].notna().any())]  # empty columns tell nothing
    blocks = [b for b in label_blocks(sample, rated) if len(b) >= 2]
    if len(rated) < 2:  # refused by the reader: fewer than two annotators, or no labels
        return Columns("wide", item, annotator_cols=tuple(rest), id_fallback=item is None)
    # one group of columns sharing labels, most of the columns: the annotators
    if len(blocks) == 1 and 2 * len(blocks[0]) > len(rated) and _alike_counts(sample, blocks[0]):
        left_out = tuple(c for c in rated if c not in set(blocks[0]))
        annotators = [c for c in rest if c not in set(left_out)]
        distinct = [c for c in left_out if _mostly_different(sample[c])]
        notes: tuple[str, ...] = ()
        if item is None and len(distinct) == 1:  # not labels, and (nearly) a value a row
            item, left_out = distinct[0], tuple(c for c in left_out if c != distinct[0])
            notes = (
                f"column {str(item)!r} read as item ids: its values are none of the labels "
                "and differ from row to row",
            )
        notes += (_left_out_note(sample, left_out),) if left_out else ()
        return Columns("wide", item, annotator_cols=tuple(annotators), left_out=left_out,
                       id_fallback=item is None, notes=notes)  # fmt: skip
    if layout == "wide":  # as asked: every other column is an annotator
        return Columns("wide", item, annotator_cols=tuple(rest), id_fallback=item is None)
    reason = "the other columns do not share their values, as labels would"
    if len(blocks) > 1:
        groups = "; ".join(", ".join(map(str, b)) for b in blocks[:3])
        reason = f"the columns share labels in separate groups ({groups})"
    raise _unclear(sample, header, by, long[0], item, rest, source, reason, layout)


def _mostly_different(column: Any) -> bool:
    """Every value present, and more distinct values than half the rows (ids, some repeated)."""
    try:
        return bool(column.notna().all()) and 2 * int(column.nunique()) > len(column)
    except TypeError:  # unhashable values are refused later, with their row
        return False


def _left_out_note(sample: Any, columns: tuple[Any, ...]) -> str:
    """Why columns of a wide file are not annotators, and how to use them."""
    listed = ", ".join(repr(str(c)) for c in columns[:5]) + (", ..." if len(columns) > 5 else "")
    values = [str(v) for v in sample[columns[0]].dropna().astype(str).unique()[:3]]
    return (
        f"column(s) {listed} not read as annotators: their values (such as "
        f"{', '.join(values)}) are none of the annotator columns' labels; to use it, group by "
        "it, name it as the item column, or list it among the annotator columns"
    )


def label_blocks(sample: Any, columns: list[Any]) -> list[list[Any]]:
    """The columns in groups that share their labels, largest group first.

    Two columns share labels when a value is in both (as text) or, when both hold only
    numbers, their ranges overlap; a group is the columns linked through such shares (one
    pass over the values and one sort of the ranges: linear in the columns).
    """
    import pandas as pd

    parent = list(range(len(columns)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        parent[root(i)] = root(j)

    owner: dict[str, int] = {}
    ranges: list[tuple[float, float, int]] = []
    for index, col in enumerate(columns):
        values = sample[col].dropna()
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        distinct = set(values.astype(str).tolist())
        for value in distinct:
            if value in owner:
                join(index, owner[value])
            else:
                owner[value] = index
        numbers = [float(v) for v in distinct if is_number(v)]
        if numbers and len(numbers) == len(distinct):
            ranges.append((min(numbers), max(numbers), index))
    ranges.sort()
    high, last = -np.inf, -1
    for low, top, index in ranges:
        if last >= 0 and low <= high:
            join(index, last)
        if top > high:
            high, last = top, index
    groups: dict[int, list[Any]] = {}
    for index, col in enumerate(columns):
        groups.setdefault(root(index), []).append(col)
    return sorted(groups.values(), key=len, reverse=True)


def _alike_counts(sample: Any, columns: list[Any]) -> bool:
    """Whether the columns' numbers of distinct values are alike, as labels' are."""
    counts = [int(sample[c].nunique()) for c in columns]
    counts = [c for c in counts if c]
    return not counts or max(counts) <= 20 or max(counts) <= 10 * min(counts)


def _unclear(
    sample: Any,
    header: list[Any],
    by: tuple[str, ...],
    long: dict[str, Any],
    item: Any,
    rest: list[Any],
    source: str,
    reason: str,
    layout: str,
) -> LayoutUnclear:
    """The refusal, with a long and a wide reading the user can set (each with its columns)."""
    free = [c for c in header if c not in set(by)]
    suggestions: list[dict[str, Any]] = []
    if layout == "auto" and len(free) >= 3:
        kinds = {c: kind_of_name(c) for c in free}
        picked: dict[str, Any] = {}
        for role, kind in _ROLES:
            unused = [c for c in free if c not in picked.values()]
            named = [c for c in unused if kinds[c] == kind]
            picked[role] = long.get(role) or (named or unused)[0]
        if len(set(picked.values())) == 3:
            suggestions.append({"layout": "long", **{k: str(v) for k, v in picked.items()}})
    blocks = [b for b in label_blocks(sample, rest) if len(b) >= 2] if rest else []
    annotators = blocks[0] if blocks else rest
    if len(annotators) >= 2 and (blocks or not suggestions):  # no shared labels: long first
        wide: dict[str, Any] = {"layout": "wide"}
        if item is not None:
            wide["item_col"] = str(item)
        wide["annotator_cols"] = tuple(str(c) for c in annotators)
        suggestions.append(wide)
    return LayoutUnclear(source, reason, header, tuple(suggestions))
