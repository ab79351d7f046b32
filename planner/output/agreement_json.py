"""The JSON document of a measurement of agreement (``planner agree``, the web Agree page).

The report (:class:`planner.measuring.coefficient.AgreementReport`) holds numbers; its
document, with every interval described by what it covers, is built here.
"""

from __future__ import annotations

from typing import Any

from planner.errors import shown_note
from planner.measuring.coefficient import AgreementReport
from planner.output.jsonout import (
    SPECIFIC_METHOD,
    coefficient_json,
    decision_json,
    document,
    interval_json,
    label_of,
)


def agreement_document(report: AgreementReport, **extra: Any) -> dict[str, Any]:
    """``planner agree``'s JSON document: coefficients with intervals, summary, decision,
    diagnostics (the report of :func:`planner.measuring.measure.measure_agreement`).

    ``extra`` (the CLI's ``input``, ``engine``, ``contested_file``) is added to the body.
    """
    of = " and ".join(str(a) for a in report.annotators)
    of = f"annotators {of}" if report.n_annotators <= 4 else f"{report.n_annotators} annotators"
    coefficients = {}
    for key, c in report.coefficients.items():
        label = label_of(c.name)
        interval = interval_json(
            c.ci_low,
            c.ci_high,
            level=report.confidence_level,
            method=c.method,
            covers=f"{label}, for {of}",
        )
        coefficients[key] = coefficient_json(
            c.name,
            c.estimate,
            interval,
            se=c.se,
            n_items=c.n_items,
            note=shown_note(c.note) if c.note else c.note,
            label=label,
        )
    decision = None
    if report.decision is not None:
        chosen = report.coefficients.get(report.decision.metric)
        label = label_of(report.decision.metric)
        decision = decision_json(
            report.decision,
            level=report.confidence_level,
            method=chosen.method if chosen is not None else "",
            covers=f"{label}, for {of}",
        )
    body = {
        "source": report.source,
        "n_items": report.n_items,
        "n_annotators": report.n_annotators,
        "annotators": list(report.annotators),
        "categories": list(report.categories),
        "level": report.level,
        "positive": report.positive,
        "confidence_level": report.confidence_level,
        "coefficients": coefficients,
        "summary": specific_summary(report.summary, report.confidence_level, of),
        "decision": decision,
        "diagnostics": report.diagnostics,
        **extra,
    }
    return document("agree", body, seed=report.seed, notes=report.notes)


def specific_summary(summary: dict[str, Any], level: float, of: str) -> dict[str, Any]:
    """The summary, its specific agreements per category as coefficients."""
    specific = summary.get("specific_agreement")
    if not isinstance(specific, dict):
        return summary
    shaped = {}
    for category, s in specific.items():
        covers = f"specific agreement on {category}, for {of}"
        interval = interval_json(
            s["ci_low"], s["ci_high"], level=level, method=SPECIFIC_METHOD, covers=covers
        )
        shaped[category] = coefficient_json(
            "specific_agreement",
            s["estimate"],
            interval,
            label=f"specific agreement on {category}",
        )
    return {**summary, "specific_agreement": shaped}
