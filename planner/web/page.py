"""What a page of the planning app is: its fields, and a function from their values to a result.

The web server (``planner.web.server``) knows nothing of statistics: it renders a page's
:class:`Field` list as a form, reads the values from the URL query (named like the CLI's
options with ``_``: ``?prevalence=0.08&width=0.08``), calls the page's ``compute`` and shows
the :class:`PageResult`. Every number on a page comes from the public library through
``compute``; an :class:`~planner.errors.InvalidInput` raised there is shown beside the field
its ``parameter`` names (``data-testid="error-<parameter>"``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from planner.errors import InvalidInput

FieldKind = Literal["number", "integer", "text", "choice", "flag", "file", "table"]

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Field:
    """One input of a page.

    ``name`` is the library parameter (and the URL key, and ``data-testid="input-<name>"``);
    ``default`` is the text shown when the URL does not give the field (``None``: empty,
    not given); ``choices`` lists the values of a ``choice``; a ``table`` is edited as CSV
    text (for example a strata table); a ``file`` is an upload, passed to ``compute`` in
    ``files`` and never read from a path the browser names.
    """

    name: str
    label: str
    kind: FieldKind
    default: str | None = None
    help: str = ""
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A table of results: a title, its column headings and rows of formatted cells."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    testid: str = ""


@dataclass(frozen=True)
class Figure:
    """A figure as PNG bytes, with the text alternative a screen reader reads."""

    name: str
    png: bytes
    alt: str


@dataclass(frozen=True)
class Download:
    """A file the user may download (a report, the JSON, the contested items)."""

    filename: str
    media_type: str
    content: bytes


@dataclass(frozen=True)
class PageResult:
    """What a page shows for one set of values.

    ``headline`` maps a ``data-testid`` to its formatted value (``{"items": "1,280",
    "union-positives": "192", "person-hours": "64.0", "cost": "—", "assurance": "0.50"}``
    on the Plan page); ``command`` is the CLI command that prints the same numbers,
    ``python`` the library code, ``toml`` the scenario file (``None`` where a page has no
    scenario form); ``document`` the ``--json`` body of that command.
    """

    headline: Mapping[str, str]
    command: str
    python: str
    toml: str | None = None
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    document: Mapping[str, Any] = field(default_factory=dict)
    downloads: tuple[Download, ...] = ()
    #: whether the page's report can be built for these values (a scenario file can say
    #: them); ``False`` and no report link is offered
    reportable: bool = True


Compute = Callable[[Mapping[str, Any], Mapping[str, bytes], Progress | None], PageResult]


@dataclass(frozen=True)
class Page:
    """A page: its URL slug, title, fields and the function that computes its result.

    ``compute(values, files, progress)`` receives the values parsed by :func:`parse_values`
    (absent fields as ``None``), the uploaded files by field name, and a progress callback
    ``progress(done, total)`` for long computations (``None`` when nobody listens).
    A ``file`` field's value is the uploaded file's base name (reduced to safe characters),
    or ``None`` when nothing was uploaded; its content is ``files[name]``.
    """

    slug: str
    title: str
    summary: str
    fields: tuple[Field, ...]
    compute: Compute
    #: optional: a quick part of ``compute`` (the headline without the slow figures), shown
    #: while the whole result is computed
    preview: Compute | None = None
    #: optional: the page's report for its values and uploads (an HTML :class:`Download`),
    #: built only when asked for: from the URL's values, or from the values and the uploaded
    #: bytes the server keeps in memory with the request that computed the page
    report: Callable[[Mapping[str, Any], Mapping[str, bytes]], Download] | None = None


def _parse_one(spec: Field, text: str) -> Any:
    """One field's text as its kind's value; InvalidInput naming the field otherwise."""
    if spec.kind in ("number", "integer"):
        try:
            return int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            kind = "a whole number" if spec.kind == "integer" else "a number"
            raise InvalidInput(
                f"{spec.name} must be {kind}, got {text!r}", parameter=spec.name, value=text
            ) from None
    if spec.kind == "choice" and text not in spec.choices:
        raise InvalidInput(
            f"{spec.name} must be one of {', '.join(spec.choices)}, got {text!r}",
            parameter=spec.name,
            value=text,
        )
    if spec.kind == "flag":
        return text.lower() in ("1", "true", "on", "yes")
    return text


def draw_seed() -> int:
    """A seed for a page whose ``seed`` field is empty (the same range everywhere)."""
    return secrets.randbelow(2**31)


def seed_note(seed: int) -> str:
    """The note of a page whose seed was drawn."""
    return f"seed {seed} drawn (give seed to repeat this page)"


def parse_values(page: Page, query: Mapping[str, str]) -> dict[str, Any]:
    """The page's field values from a URL query: each field's default where it is absent.

    Empty text counts as absent. Keys the page does not know are ignored (a link may carry
    another page's state). Raises :class:`InvalidInput` with the field's name as
    ``parameter`` for a value of the wrong kind.
    """
    values: dict[str, Any] = {}
    for spec in page.fields:
        if spec.kind == "file":
            continue
        text = query.get(spec.name, spec.default)
        text = None if text is None or str(text).strip() == "" else str(text).strip()
        values[spec.name] = None if text is None else _parse_one(spec, text)
    return values
