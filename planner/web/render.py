"""HTML of the planning app: a page's form and its result, built from the page model.

Every element a test or a user's automation reads carries a stable ``data-testid``: inputs
``input-<parameter>`` (a file upload ``<parameter>-file``), errors ``error-<parameter>``
beside their field, headline values by their key (``items``, ``union-positives``, ...),
``command``, ``python``, ``toml``, figures ``figure-<name>``. Text is escaped; figures and
downloads are inlined as ``data:`` URIs, so a result needs no second request and no file
on the server.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape

from planner.errors import shown_note
from planner.web.page import Field, Page, PageResult, Table

#: the headline keys' labels, in the order the Plan page shows them
HEADLINE_LABELS = {
    "items": "Items to label",
    "union-positives": "Union positives",
    "person-hours": "Person-hours",
    "cost": "Cost",
    "calendar-days": "Calendar days",
    "assurance": "Assurance reached",
}


def _label(key: str) -> str:
    return HEADLINE_LABELS.get(key, key.replace("-", " ").capitalize())


def _input(spec: Field, text: str) -> str:
    """The control of one field (its id is ``input-<name>``, the label's ``for``)."""
    common = f'id="input-{spec.name}" name="{spec.name}" aria-describedby="error-{spec.name}"'
    if spec.kind == "choice":
        options = "".join(
            f'<option value="{escape(c)}"{" selected" if c == text else ""}>{escape(c)}</option>'
            for c in spec.choices
        )
        return f'<select {common} data-testid="input-{spec.name}">{options}</select>'
    if spec.kind == "flag":
        checked = " checked" if text.lower() in ("1", "true", "on", "yes") else ""
        return (
            f'<input type="checkbox" value="1" {common} data-testid="input-{spec.name}"{checked}>'
        )
    if spec.kind == "file":
        return f'<input type="file" {common} data-testid="{spec.name}-file">'
    if spec.kind == "table":
        return (
            f'<textarea rows="6" {common} data-testid="input-{spec.name}">{escape(text)}</textarea>'
        )
    mode = ' inputmode="decimal"' if spec.kind in ("number", "integer") else ""
    return (
        f'<input type="text"{mode} {common} data-testid="input-{spec.name}" '
        f'value="{escape(text)}" autocomplete="off">'
    )


def field_html(spec: Field, text: str, error: str = "") -> str:
    """A labelled field with its help and the place of its error."""
    help_text = f'<small class="help">{escape(spec.help)}</small>' if spec.help else ""
    default = "" if spec.default is None else escape(spec.default)
    return (
        f'<div class="field" data-field="{spec.name}" data-kind="{spec.kind}" '
        f'data-default="{default}">'
        f'<label for="input-{spec.name}">{escape(spec.label)}</label>'
        f"{_input(spec, text)}{help_text}"
        f'<span class="error" id="error-{spec.name}" data-testid="error-{spec.name}" '
        f'role="alert">{escape(error)}</span></div>'
    )


def form_html(page: Page, query: Mapping[str, str], errors: Mapping[str, str]) -> str:
    """The page's form: every field with the URL's text (else its default) and its error."""
    fields = "".join(
        field_html(s, query.get(s.name, s.default or ""), errors.get(s.name, ""))
        for s in page.fields
    )
    return (
        f'<form id="inputs" method="get" action="/{page.slug}" data-slug="{page.slug}" '
        f'aria-label="{escape(page.title)} inputs">{fields}'
        '<div class="actions"><button type="submit" data-testid="compute">Compute</button>'
        '<button type="button" id="cancel" data-testid="cancel" hidden>Cancel</button>'
        '<progress id="progress" data-testid="progress" hidden></progress></div></form>'
    )


def _table(table: Table) -> str:
    testid = f' data-testid="{escape(table.testid)}"' if table.testid else ""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in table.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows
    )
    return (
        f"<table{testid}><caption>{escape(table.title)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    )


def _data_uri(media_type: str, content: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(content).decode('ascii')}"


def _reproduce(result: PageResult) -> str:
    parts = [
        "<h3>Reproduce</h3><p>The command line, the Python code and the scenario file that "
        "give the same numbers:</p>",
        f'<pre data-testid="command"><code>{escape(result.command)}</code></pre>',
        f'<pre data-testid="python"><code>{escape(result.python)}</code></pre>',
    ]
    if result.toml is not None:
        parts.append(f'<pre data-testid="toml"><code>{escape(result.toml)}</code></pre>')
    return "".join(parts)


def _downloads(result: PageResult, report: str | None) -> str:
    links = []
    if report is not None:
        links.append(f'<a href="{escape(report)}" data-testid="download-report">report (HTML)</a>')
    if result.document:
        body = json.dumps(result.document, indent=2).encode()
        uri = _data_uri("application/json", body)
        links.append(f'<a download="result.json" href="{uri}" data-testid="download-json">JSON</a>')
    for d in result.downloads:
        uri = _data_uri(d.media_type, d.content)
        links.append(
            f'<a download="{escape(d.filename)}" href="{uri}" '
            f'data-testid="download-{escape(d.filename)}">{escape(d.filename)}</a>'
        )
    for f in result.figures:
        uri = _data_uri("image/png", f.png)
        links.append(f'<a download="{escape(f.name)}.png" href="{uri}">{escape(f.name)}.png</a>')
    if not links:
        return ""
    return '<h3>Downloads</h3><p class="downloads">' + " ".join(links) + "</p>"


def result_html(result: PageResult, report: str | None = None) -> str:
    """The result: headline values, notes, tables, figures, how to reproduce it, downloads
    (``report``: the address of its report, built on request)."""
    cards = "".join(
        f'<div class="value"><dt>{escape(_label(k))}</dt>'
        f'<dd data-testid="{escape(k)}">{escape(v)}</dd></div>'
        for k, v in result.headline.items()
    )
    notes = "".join(f"<li>{escape(shown_note(n))}</li>" for n in result.notes)
    figures = "".join(
        f'<figure><img data-testid="figure-{escape(f.name)}" alt="{escape(f.alt)}" '
        f'src="{_data_uri("image/png", f.png)}" width="800" height="450">'
        f"<figcaption>{escape(f.alt)}</figcaption></figure>"
        for f in result.figures
    )
    return (
        f'<dl class="headline" data-testid="headline">{cards}</dl>'
        + (f'<ul class="notes" data-testid="notes">{notes}</ul>' if notes else "")
        + "".join(_table(t) for t in result.tables)
        + figures
        + _reproduce(result)
        + _downloads(result, report)
    )


def message_html(text: str, testid: str = "error") -> str:
    """One line in the result area (an error that no field owns, or a hint)."""
    return f'<p class="message" data-testid="{testid}" role="alert">{escape(text)}</p>'


def document_html(
    page: Page,
    pages: Sequence[Page],
    form: str,
    result: str,
    asset_version: str,
    state: str = "done",
) -> str:
    """The whole HTML document of a page: navigation, the form, the result (its ``state``:
    ``done``, ``error``, or ``preview`` while the page's script fetches the rest)."""
    nav = "".join(
        f'<a href="/{p.slug}"{" aria-current=page" if p.slug == page.slug else ""}>'
        f"{escape(p.title)}</a>"
        for p in pages
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(page.title)} · planner</title>"
        f'<link rel="stylesheet" href="/static/app.css?v={asset_version}">'
        f'<script src="/static/app.js?v={asset_version}" defer></script></head><body>'
        f'<header><strong>planner</strong><nav aria-label="pages">{nav}</nav></header>'
        f'<main><h1>{escape(page.title)}</h1><p class="summary">{escape(page.summary)}</p>'
        f'<div class="layout"><section class="inputs">{form}</section>'
        f'<section id="result" class="result" aria-live="polite" data-testid="result" '
        f'data-state="{escape(state)}">'
        f"{result}</section></div></main></body></html>"
    )


def index_html(pages: Sequence[Page], asset_version: str) -> str:
    """The start page: one link per page with its summary."""
    items = "".join(
        f'<li><a href="/{p.slug}">{escape(p.title)}</a>: {escape(p.summary)}</li>' for p in pages
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>planner</title>"
        f'<link rel="stylesheet" href="/static/app.css?v={asset_version}"></head><body>'
        "<header><strong>planner</strong></header><main><h1>Plan an agreement study</h1>"
        f"<ul class='pages'>{items}</ul>"
        '<p>For example: <a href="/plan?prevalence=0.08&amp;width=0.08&amp;seed=1">'
        "two annotators, prevalence 8 %, half-width 0.08</a>.</p></main></body></html>"
    )
