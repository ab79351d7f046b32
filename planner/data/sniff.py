"""What a label file is, before it is read: the path, the first bytes, the layout.

Nothing is guessed silently. A path must be a regular file (a directory or a device is
named as such); the first ``SNIFF_BYTES`` bytes must fit the format (no NUL bytes, UTF-8
text, a delimiter on the first CSV line, a JSON object first, Parquet's magic bytes);
gzip-compressed text (``labels.csv.gz``: :data:`GZIP_MAGIC`) is looked at decompressed.
:func:`choose_layout` reads ``layout="auto"``: long when the item, annotator and label
columns are all present; wide only when no other column is named like one and the
remaining columns share their labels; otherwise it refuses, naming the columns seen and
the options to set. A column of all-distinct values (ids) is never an annotator.
"""

from __future__ import annotations

import codecs
import gzip
import re
import stat
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from planner.data.labels import is_number
from planner.errors import InvalidInput

SNIFF_BYTES = 8192  # the first bytes of a file looked at before pandas reads it
SAMPLE_ROWS = 2000  # rows read to choose the layout
ID_MIN_VALUES = 20  # a column is taken as ids when at least this many values are all distinct

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


def _kind_of_name(name: Any) -> str | None:
    """``"item"``, ``"annotator"``, ``"label"`` or None, from a column's name."""
    key = re.sub(r"[\s_\-.]", "", str(name).lower())
    for kind, names in (("item", ITEM_NAMES), ("annotator", ANNOTATOR_NAMES)):
        if key in names:
            return kind
    return "label" if key in LABEL_NAMES else None


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


GZIP_MAGIC = b"\x1f\x8b"  # the first bytes of a gzip file (RFC 1952)
GZIP_SUFFIX = ".gz"


def format_suffix(p: Path) -> str:
    """The suffix that names a file's format, lower case: ``.csv`` for ``x.csv.gz`` too.

    >>> format_suffix(Path("a/labels.v2.CSV.gz")), format_suffix(Path("x.parquet"))
    ('.csv', '.parquet')
    """
    suffixes = [s.lower() for s in p.suffixes]
    if len(suffixes) >= 2 and suffixes[-1] == GZIP_SUFFIX:
        return suffixes[-2]
    return p.suffix.lower()


def is_gzip(p: Path) -> bool:
    """Whether the file starts with gzip's magic bytes (unreadable files: False)."""
    try:
        with open(p, "rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return False


def check_path(p: Path, kind: str = "file") -> None:
    """Refuse a path that is not a readable regular file, saying what it is instead."""
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InvalidInput(f"{p}: no such {kind}") from None
    except ValueError:  # an embedded NUL byte: no file system has such a name
        raise InvalidInput(f"{str(p)!r}: not a valid path (it contains a NUL byte)") from None
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISDIR(mode):
        raise InvalidInput(f"{p}: is a directory, not a {kind}")
    if not stat.S_ISREG(mode):
        raise InvalidInput(f"{p}: is not a regular file (a device, pipe or socket)")


def sniff(p: Path, fmt: str) -> None:
    """Look at the first ``SNIFF_BYTES`` bytes and refuse what cannot be a ``fmt`` file."""
    try:
        with open(p, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if not head:
        raise InvalidInput(f"{p}: is empty")
    if fmt == "parquet":
        if not head.startswith(b"PAR1"):
            raise InvalidInput(f"{p}: is not a Parquet file (it does not start with PAR1)")
        return
    if head.startswith(GZIP_MAGIC):
        head = _gunzipped_head(p)
    if b"\x00" in head:
        raise InvalidInput(f"{p}: contains NUL bytes, so it is not a {fmt} text file")
    try:  # an incremental decoder accepts a character cut at the end of the window
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{p}: is not UTF-8 text (byte {exc.start}), so it is not a {fmt} file"
        ) from None
    first = text.lstrip("\r\n").split("\n", 1)[0]
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        if sep not in first:
            name = "comma" if fmt == "csv" else "tab"
            raise InvalidInput(
                f"{p}: the first line has no {name}, so it is not a {fmt} file with two or "
                "more columns"
            )
    elif fmt == "jsonl" and not text.lstrip().startswith("{"):
        raise InvalidInput(f"{p}: is not JSON Lines (the first line is not a JSON object)")


def _gunzipped_head(p: Path) -> bytes:
    """The first ``SNIFF_BYTES`` bytes of a gzip file, decompressed."""
    try:
        with gzip.open(p, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise InvalidInput(f"{p}: is not a readable gzip file ({exc})") from None
    if not head:
        raise InvalidInput(f"{p}: is empty (once decompressed)")
    return head


def _shares_labels(frame: Any, columns: list[Any]) -> bool:
    """Whether every column has a value (or, for numbers, a range) in common with another."""
    import pandas as pd

    sets, ranges = [], []
    for col in columns:
        values = frame[col].dropna()
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        distinct = set(values.astype(str).tolist()[:SAMPLE_ROWS])
        sets.append(distinct)
        numbers = [float(v) for v in distinct if is_number(v)]
        ranges.append(
            (min(numbers), max(numbers)) if numbers and len(numbers) == len(distinct) else None
        )
    for i, mine in enumerate(sets):
        if not mine:
            continue
        others = [j for j in range(len(sets)) if j != i and sets[j]]
        share = any(mine & sets[j] for j in others)
        overlap = any(_overlap(ranges[i], ranges[j]) for j in others)
        if others and not (share or overlap):
            return False
    counts = [len(s) for s in sets if s]
    return not counts or max(counts) <= 20 or max(counts) <= 10 * min(counts)


def _overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two numeric ranges overlap (False when either column is not all numbers)."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def _layout_refusal(
    source: str, columns: list[Any], kinds: dict[Any, str | None], reason: str
) -> InvalidInput:
    """The error for a file whose layout is not clear, with the options to set."""

    def pick(kind: str, fallback: int) -> str:
        named = [c for c in columns if kinds[c] == kind]
        return str(named[0] if named else columns[min(fallback, len(columns) - 1)])

    item, annotator, label = pick("item", 0), pick("annotator", 1), pick("label", 2)
    others = [str(c) for c in columns if str(c) != item][:3]
    shown = ", ".join(map(str, columns[:12])) + (", ..." if len(columns) > 12 else "")
    return InvalidInput(
        f"{source}: cannot tell whether the file is long or wide ({reason}; columns: {shown}); "
        f"set layout long item_col {item} annotator_col {annotator} label_col {label}, "
        f"or layout wide item_col {item} annotator_cols {','.join(others)}",
        parameters=("layout", "item_col", "annotator_col", "label_col", "annotator_cols"),
    )


def choose_layout(
    sample: Any,
    *,
    item_col: str,
    annotator_col: str,
    label_col: str,
    by: tuple[str, ...] = (),
    source: str = "ratings",
) -> tuple[str, str | None]:
    """``("long", item_col)`` or ``("wide", item column or None)`` for ``layout="auto"``.

    Long when the item, annotator and label columns are all present. Wide only when no
    other column is named like an item, annotator or label column (one item-like column
    is the item ids) and the remaining columns share their labels; otherwise refused.
    """
    columns = list(sample.columns)
    if {item_col, annotator_col, label_col} <= set(columns):
        return "long", item_col
    candidates = [c for c in columns if c not in set(by)]
    kinds = {c: _kind_of_name(c) for c in columns}
    id_col: str | None = item_col if item_col in columns else None
    if id_col is None:
        items = [c for c in candidates if kinds[c] == "item"]
        if len(items) > 1:
            raise _layout_refusal(source, columns, kinds, f"several item-like columns {items}")
        id_col = items[0] if items else None
    if id_col is None:  # one column of all-distinct values: the item ids (said in a note)
        ids = id_columns(sample, candidates)
        id_col = ids[0] if len(ids) == 1 else None
    rest = [c for c in candidates if c != id_col]
    named = [c for c in rest if kinds[c] in ("annotator", "label", "item")]
    if named:
        article = {"item": "an item", "annotator": "an annotator", "label": "a label"}
        what = ", ".join(f"{c} looks like {article[str(kinds[c])]} column" for c in named)
        raise _layout_refusal(source, columns, kinds, what)
    if len(rest) >= 2 and not _shares_labels(sample, rest):
        raise _layout_refusal(
            source, columns, kinds, "the other columns do not share their values, as labels would"
        )
    return "wide", id_col
