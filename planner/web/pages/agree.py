"""The Agree page: an uploaded label file -> coefficients with intervals, the decision,
diagnostics and the contested items (a CSV download).

The upload is read from a private temporary folder by
:func:`planner.data.engine_duckdb.read_with_engine` (the reader ``planner agree FILE``
uses) and measured by :func:`planner.measuring.measure.measure_agreement`; the contested
items are :func:`planner.measuring.diagnostics.contested_rows`, written as
``--contested`` writes them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Download, Field, Page, PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

CONTESTED_FILE = "contested.csv"

FIELDS = (
    Field("labels", "Label file", "file", None, "A label file (long or wide layout)."),
    *shared.reader_fields(),
    Field("positive", "Positive label", "text", None, "0/1 and false/true labels need none."),
    Field(
        "level", "Level", "choice", "nominal", choices=("nominal", "ordinal", "interval", "ratio")
    ),
    Field("order", "Category order (ordinal text labels, lowest first)", "text", None),
    Field("confidence", "Confidence level", "number", "0.95"),
    Field("decide_on", "Coefficient the decision reads", "text", None,
          "Empty: psa with a positive label, else krippendorff_alpha."),
    Field("not_demonstrated_below", "Not demonstrated below", "number", "0.4"),
    Field("demonstrated_at", "Demonstrated at", "number", "0.65"),
    Field("kappa_method", "Cohen's kappa interval", "text", None),
    Field("by", "Grouping column (agreement per group)", "text", None),
    Field("weights", "Agreement weights (ordinal, interval, ratio)", "text", None,
          "quadratic or linear; empty: quadratic."),
    Field("bootstrap", "Item bootstrap for every interval", "flag", None),
    Field("n_boot", "Bootstrap resamples", "integer", "1000"),
    Field("seed", "Seed", "integer", "1"),
)  # fmt: skip
NAMES = tuple(f.name for f in FIELDS)
FIELD_OF = {"confidence_level": "confidence", "ratings": "labels", "contested": "labels"}
MEASURE_FIELDS = (
    "positive", "level", "decide_on", "not_demonstrated_below", "demonstrated_at",
    "kappa_method", "n_boot", "by", "weights", "bootstrap",
)  # fmt: skip


def read_options(values: Mapping[str, Any]) -> Any:
    """The :class:`~planner.data.engine_duckdb.ReaderSettings` of the page's reader fields."""
    from planner.data.reader_settings import ReaderSettings

    given = shared.reader_options(values)
    for key in ("annotator_cols", "missing"):
        if key in given:
            given[key] = tuple(given[key])
    if values.get("by") is not None:
        given["by"] = (values["by"],)
    order = values.get("order")
    if order is not None:
        given["order"] = tuple(part.strip() for part in str(order).split(","))
    return ReaderSettings(**given)


def measure_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`~planner.measuring.measure_settings.MeasureSettings`' fields given."""
    options = {k: values.get(k) for k in MEASURE_FIELDS}
    options["confidence_level"] = values.get("confidence")
    return {k: v for k, v in options.items() if v is not None}


def measured(values: Mapping[str, Any], content: bytes | None, progress: Progress | None) -> Any:
    """The ratings, the engine that read them and the report, the file named as shown."""
    from planner.data.engine_duckdb import read_with_engine
    from planner.measuring.measure import measure_agreement
    from planner.measuring.measure_settings import MeasureSettings

    seed = shared.seed_of(values)
    shown = shared.upload_name("labels", values)
    with shared.uploaded(content, "labels", values.get("file_format")) as path:
        with shared.field_errors(NAMES, "labels", FIELD_OF, upload=(path, shown)):
            try:
                ratings, engine, _ = read_with_engine(path, read_options(values), engine="auto")
            except InvalidInput as exc:
                raise _on_by(exc, values.get("by")) from None
            ratings = replace(ratings, source=shown)
            settings = MeasureSettings(**measure_options(values))
            report = measure_agreement(ratings, settings, rng=seed, progress=progress)
    return ratings, engine, replace(report, source=shown), seed


def _on_by(exc: InvalidInput, by: str | None) -> InvalidInput:
    """A reader's refusal of the file's columns that names the grouping column, on ``by``."""
    if exc.parameter is None and by is not None and f"column(s) {by!r}" in str(exc):
        return InvalidInput(str(exc), parameter="by", value=by)
    return exc


def contested_csv(ratings: Any) -> bytes:
    """The contested items as ``agree --contested`` writes them (spreadsheet-safe cells)."""
    from planner.measuring.diagnostics import contested_rows
    from planner.output.safe_output import csv_cell

    header, rows = contested_rows(ratings)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(cell) for cell in header])
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    return buffer.getvalue().encode("utf-8")


def cli_options(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """``planner agree FILE``'s options (defaults left out), with ``--contested``."""
    options = {**shared.reader_options(values), "order": values.get("order")}
    options.update({k: values.get(k) for k in MEASURE_FIELDS})
    options["confidence"] = values.get("confidence")
    defaults = {
        "level": "nominal", "confidence": 0.95, "not_demonstrated_below": 0.4,
        "demonstrated_at": 0.65, "n_boot": 1000,
    }  # fmt: skip
    options = {k: (None if defaults.get(k) == v else v) for k, v in options.items()}
    return {**options, "contested": CONTESTED_FILE, "seed": seed}


def _python(values: Mapping[str, Any], shown: str, seed: int) -> str:
    return shared.python_call(
        [
            "from planner.data.engine_duckdb import read_with_engine",
            "from planner.data.reader_settings import ReaderSettings",
            "from planner.measuring.measure import measure_agreement",
            "from planner.measuring.measure_settings import MeasureSettings",
            "",
            f"ratings, engine, _ = read_with_engine({shown!r}, {read_options(values)!r})",
            f"settings = MeasureSettings(**{measure_options(values)!r})",
            f"report = measure_agreement(ratings, settings, rng={seed})",
            "print({k: c.estimate for k, c in report.coefficients.items()})",
            "print(report.decision.verdict if report.decision else None)",
        ]
    )


def _coefficients(report: Any) -> Any:
    rows = [
        (c.name, shared.share(c.estimate, 3), shared.share(c.ci_low, 3),
         shared.share(c.ci_high, 3), c.method, c.note or "")
        for c in report.coefficients.values()
    ]  # fmt: skip
    return shared.table(
        f"Agreement ({report.confidence_level:.0%} intervals)",
        ("coefficient", "estimate", "lower", "upper", "method", "note"),
        rows,
        "coefficients-table",
    )


def _annotators(report: Any) -> Any:
    per = report.diagnostics.get("per_annotator", {})
    keys = ("items_rated", "agreement_with_others", "positive_rate", "flags_alone", "misses_alone")
    rows = [(name, *(str(d.get(k, "")) for k in keys)) for name, d in per.items()]
    return shared.table("Per annotator", ("annotator", *keys), rows, "annotators-table")


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    return shared.whole(value) if isinstance(value, int) else shared.share(value, 3)


def _groups(report: Any) -> tuple[Any, ...]:
    """Agreement per group of ``by`` (none without it)."""
    by = report.diagnostics.get("by")
    if not by:
        return ()
    keys = [k for k in by["groups"][0] if k != "group"] if by["groups"] else []
    rows = [(g["group"], *(_cell(g[k]) for k in keys)) for g in by["groups"]]
    return (shared.table(f"Agreement by {by['column']}", ("group", *keys), rows, "groups-table"),)


def headline_of(report: Any) -> dict[str, str]:
    """Items, the main coefficients and the decision, keyed by ``data-testid``."""
    c = report.coefficients
    headline = {"items": shared.whole(report.n_items)}
    for testid, names in (
        ("kappa", ("cohen_kappa", "fleiss_kappa")),
        ("psa", ("psa",)),
        ("alpha", ("krippendorff_alpha",)),
    ):
        chosen = next((c[n] for n in names if n in c), None)
        if chosen is not None:
            headline[testid] = shared.share(chosen.estimate, 3)
    if report.decision is not None:
        headline["decision"] = report.decision.verdict
    headline["contested-items"] = shared.whole(report.diagnostics.get("contested_items"))
    return headline


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """Agreement on the uploaded labels, as ``planner agree FILE`` reports it."""
    from planner.output.agreement_json import agreement_document

    ratings, engine, report, seed = measured(values, files.get("labels"), progress)
    shown = ratings.source
    notes = list(report.notes)
    if report.decision is not None:
        notes.insert(0, f"decision: {report.decision.verdict}: {report.decision.reason}")
    with shared.field_errors(NAMES, "labels", FIELD_OF):
        contested = contested_csv(ratings)
    return PageResult(
        headline=headline_of(report),
        command=command_line(["agree"], cli_options(values, seed), positional=[shown]),
        python=_python(values, shown, seed),
        tables=(_coefficients(report), _annotators(report), *_groups(report)),
        notes=tuple(notes),
        document=agreement_document(
            report, input=ratings.input, engine=engine, contested_file=CONTESTED_FILE
        ),
        downloads=(Download(CONTESTED_FILE, "text/csv", contested),),
    )


PAGE = Page(
    slug="agree",
    title="Agree",
    summary="Upload a label file: agreement coefficients with intervals, the decision against "
    "thresholds fixed in advance, diagnostics and the contested items.",
    fields=FIELDS,
    compute=compute,
)
