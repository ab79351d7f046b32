"""What the pages share: formatted headline numbers, seeds, uploads, figures and errors.

A page computes through the same application-layer functions as the CLI command it
reproduces; this module only formats their results and carries an uploaded file to the
library's readers through a private temporary folder (never a path the browser names).
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Field, Figure, Table, draw_seed
from planner.web.reproduce import option_text

#: the text of a headline number the result does not have (no hourly rate: no cost)
ABSENT = "—"


def whole(n: float | None) -> str:
    """A count with thousands separators: ``whole(1280) == '1,280'``."""
    return ABSENT if n is None else f"{int(round(n)):,}"


def hours(h: float | None) -> str:
    """Person-hours to one decimal: ``hours(64) == '64.0'``."""
    return ABSENT if h is None else f"{h:,.1f}"


def money(c: float | None) -> str:
    """A cost to two decimals, or :data:`ABSENT` when there is no hourly rate."""
    return ABSENT if c is None else f"{c:,.2f}"


def share(p: float | None, digits: int = 2) -> str:
    """A probability or coefficient: ``share(0.5) == '0.50'``."""
    return ABSENT if p is None else f"{p:.{digits}f}"


def seed_of(values: Mapping[str, Any]) -> int:
    """The page's seed: the ``seed`` field, or a new one (then shown in the command; the
    server draws it once per computation, :func:`planner.web.server.with_drawn_seed`)."""
    seed = values.get("seed")
    return draw_seed() if seed is None else int(seed)


def needed(values: Mapping[str, Any], name: str) -> Any:
    """A field that must be given: its value, or InvalidInput naming it."""
    value = values.get(name)
    if value is None:
        raise InvalidInput(f"{name} is required", parameter=name)
    return value


def numbers(text: str | None, name: str) -> tuple[float, ...] | None:
    """``'0.03,0.05'`` (or one number) as numbers; InvalidInput naming ``name`` otherwise."""
    if text is None:
        return None
    try:
        return tuple(float(part) for part in str(text).replace(";", ",").split(","))
    except ValueError:
        raise InvalidInput(
            f"{name} takes numbers separated by commas, got {text!r}", parameter=name, value=text
        ) from None


def on_field(
    exc: InvalidInput, fields: tuple[str, ...], names: Mapping[str, str], fallback: str
) -> InvalidInput:
    """``exc`` with its ``parameter`` one of the page's ``fields``.

    A library parameter that is not a field is mapped through ``names`` (``n_annotators``
    -> ``annotators``); failing that, the first of ``exc.parameters`` that is (or maps to)
    a field; failing that, ``fallback``. The message is the library's.
    """
    for candidate in (exc.parameter, *exc.parameters):
        if candidate is None:
            continue
        name = names.get(candidate, candidate)
        if name in fields:
            if name == exc.parameter:
                return exc
            return _moved(exc, name)
    return _moved(exc, fallback)


def _moved(exc: InvalidInput, name: str) -> InvalidInput:
    """``exc`` about field ``name``; a leading library name in the message becomes it."""
    message = str(exc)
    if exc.parameter and exc.parameter != name and message.startswith(exc.parameter + " "):
        message = name + message[len(exc.parameter) :]
    return InvalidInput(
        message, parameter=name, value=exc.value, rule=exc.rule, parameters=exc.parameters
    )


@contextmanager
def field_errors(
    fields: tuple[str, ...],
    fallback: str,
    names: Mapping[str, str] | None = None,
    upload: tuple[Path, str] | None = None,
) -> Iterator[None]:
    """Errors raised inside name one of ``fields`` as their parameter (:func:`on_field`).

    A label reader's refusal of the layout names ``layout`` (a column given two roles,
    the first role); with ``upload`` (the temporary file and the name shown for it) the
    message names the upload, never the server's temporary folder.
    """
    from planner.data.layout import LayoutUnclear, RoleConflict

    try:
        yield
    except InvalidInput as exc:
        if isinstance(exc, LayoutUnclear):
            exc = InvalidInput(str(exc), parameter="layout")
        elif isinstance(exc, RoleConflict):
            exc = InvalidInput(str(exc), parameter=exc.roles[0], parameters=exc.roles)
        moved = on_field(exc, fields, names or {}, fallback)
        if upload is not None and str(upload[0].parent) in str(moved):
            text = str(moved).replace(str(upload[0]), upload[1])
            text = text.replace(str(upload[0].parent), "the upload")
            moved = InvalidInput(text, parameter=moved.parameter, value=moved.value)
        raise moved from None


def reader_fields(default_item_col: str | None = None) -> tuple[Field, ...]:
    """The reader's fields: the upload's format, the layout and the columns."""
    return (
        Field("file_format", "File format", "choice", "csv", choices=tuple(SUFFIXES)),
        Field("layout", "Layout", "choice", "auto", choices=("auto", "long", "wide")),
        Field("item_col", "Item column", "text", default_item_col),
        Field("annotator_col", "Annotator column (long layout)", "text", None),
        Field("label_col", "Label column (long layout)", "text", None),
        Field("annotator_cols", "Annotator columns (wide layout, comma-separated)", "text", None),
        Field("missing", "Labels that mean no rating (comma-separated)", "text", None),
    )


READER_NAMES = ("layout", "item_col", "annotator_col", "label_col", "annotator_cols", "missing")


def reader_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The reader fields given, as the readers take them (lists split at commas)."""
    options: dict[str, Any] = {}
    for name in READER_NAMES:
        value = values.get(name)
        if value is None or (name == "layout" and value == "auto"):
            continue
        if name in ("annotator_cols", "missing"):
            value = [part.strip() for part in str(value).split(",")]
        options[name] = value
    return options


def upload_name(field: str, values: Mapping[str, Any]) -> str:
    """The file name a page shows for an upload (``pilot.csv``): the field and the format."""
    return field + SUFFIXES.get(values.get("file_format") or "csv", ".csv")


#: suffixes of the formats the label readers know (the upload is saved under one of them)
SUFFIXES = {"csv": ".csv", "tsv": ".tsv", "parquet": ".parquet", "jsonl": ".jsonl"}


@contextmanager
def uploaded(content: bytes | None, name: str, file_format: str | None) -> Iterator[Path]:
    """The uploaded bytes as a file in a new private temporary folder (removed afterwards).

    The file is named after the field (``pilot.csv``), never after anything the browser
    sent; ``file_format`` picks the suffix (default csv).
    """
    if not content:
        raise InvalidInput(f"{name}: upload a label file", parameter=name)
    with private_file(content, upload_name(name, {"file_format": file_format})) as path:
        yield path


@contextmanager
def private_file(content: bytes, filename: str) -> Iterator[Path]:
    """``content`` as ``filename`` in a new temporary folder only this user can read
    (``tempfile.mkdtemp``: mode 0700), removed with the file afterwards."""
    with tempfile.TemporaryDirectory(prefix="planner-upload-") as folder:
        path = Path(folder) / filename
        path.write_bytes(content)
        yield path


def scenario_field(
    exc: InvalidInput, keys: Mapping[str, str], fields: tuple[str, ...], fallback: str
) -> InvalidInput:
    """A scenario file's refusal (``designs.toml: target.width must be ...``) as an error
    of the page's field that wrote the key: ``keys`` maps ``section.key`` (or a section)
    to a field; a key that is itself a field name is that field; else ``fallback``."""
    if exc.parameter in fields:
        return exc
    text = str(exc)
    name = fallback
    for found in re.finditer(r"\b([a-z_]+)(?:\[\d+\])?\.([a-z_]+)", text):
        section, key = found.groups()
        if section in SCENARIO_SECTIONS:
            own = key if key in fields else fallback
            name = keys.get(f"{section}.{key}", keys.get(section, own))
            break
    return InvalidInput(text, parameter=name, value=exc.value)


#: the sections of a scenario file (the first word of its keys in an error)
SCENARIO_SECTIONS = ("model", "strata", "target", "thresholds", "budget", "design", "simulation",
                     "team", "alt_test", "annotators")  # fmt: skip


def png(draw: Callable[..., Any], *data: Any) -> bytes:
    """The PNG bytes of one of :mod:`planner.output.plots`' figures."""
    from planner.output.plots import save_png

    with tempfile.TemporaryDirectory(prefix="planner-figure-") as folder:
        path = Path(folder) / "figure.png"
        save_png(draw, path, *data)
        return path.read_bytes()


def figure(name: str, alt: str, draw: Callable[..., Any], *data: Any) -> Figure:
    """A page figure drawn by one of :mod:`planner.output.plots`' functions."""
    return Figure(name=name, png=png(draw, *data), alt=alt)


def csv_rows(text: str | None, name: str) -> list[dict[str, str]]:
    """A table field's CSV text as rows keyed by the header (blank lines skipped)."""
    if text is None or not str(text).strip():
        raise InvalidInput(f"{name}: give the table as CSV with a header row", parameter=name)
    reader = csv.DictReader(io.StringIO(str(text).strip()), skipinitialspace=True)
    if reader.fieldnames is None:
        raise InvalidInput(f"{name}: give the table as CSV with a header row", parameter=name)
    rows = []
    for row in reader:
        if None in row:
            raise InvalidInput(
                f"{name}: row {reader.line_num - 1} has more cells than the header",
                parameter=name,
            )
        cells = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
        if any(cells.values()):
            rows.append(cells)
    return rows


def table(title: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]], testid: str) -> Table:
    """A :class:`Table` whose cells are text."""
    return Table(
        title=title,
        columns=columns,
        rows=tuple(tuple(str(c) for c in row) for row in rows),
        testid=testid,
    )


def python_call(lines: list[str]) -> str:
    """The Python snippet of a page: lines joined, ending in a newline."""
    return "\n".join(lines) + "\n"


# what a TOML basic string may not hold raw: the quote, the backslash, control characters
_TOML_ESCAPES = re.compile(r'["\\\x00-\x1f\x7f]')


def _toml_escape(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def toml_value(value: Any) -> str:
    """A value as TOML: text quoted, numbers in their shortest form, lists bracketed."""
    if isinstance(value, str):
        return '"' + _TOML_ESCAPES.sub(_toml_escape, value) + '"'  # a TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return option_text(value)
