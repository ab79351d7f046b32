"""JSON of the Alt-Test: the test on a label file, its plan, its table and P(pass) at items.

The results (:class:`planner.measuring.alt_test.AltTestResult`,
:class:`planner.sizing.alt_test_plan.AltTestPlan`, ``PassProbability`` and
``AltTestPlanSummary``) never import output; their documents are built here.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from planner.output.jsonout import budget_json, document, json_ready


def alt_test_document(result: Any, **extra: Any) -> dict[str, Any]:
    """``planner alt-test``: each LLM's verdict, ranked; ``extra`` (``input``) added."""
    llms = []
    for rank, v in enumerate(result.llms, start=1):
        doc = asdict(v)
        doc["rank"] = rank
        doc["skipped"] = [{"human": h, "domain": d, "items": n} for h, d, n in v.skipped]
        doc["domains_passed"] = v.domains_passed
        llms.append(doc)
    body = {
        "source": result.source,
        "scoring": result.scoring,
        "epsilon": result.epsilon,
        "q": result.q,
        "min_items": result.min_items,
        "by": result.by,
        "humans": list(result.humans),
        "llms": llms,
        **extra,
    }
    return document("alt-test", body, seed=None, notes=result.notes)


def alt_test_model_json(m: Any) -> dict[str, Any]:
    """An :class:`~planner.sizing.alt_test_plan.AltTestModel`: its numbers and its words."""
    return {
        "description": m.describe(),
        "humans": m.n_humans,
        "categories": m.n_categories,
        "human_error": list(m.human_error),
        "llm_error": m.llm_error,
        "prevalences": list(m.prevalences),
        "error_draw": m.error_draw,
    }


def alt_test_plan_json(plan: Any) -> dict[str, Any]:
    """An :class:`~planner.sizing.alt_test_plan.AltTestPlan`: items for the power, budget."""
    return {
        "model": alt_test_model_json(plan.model),
        "epsilon": plan.epsilon,
        "q": plan.q,
        "power": plan.power,
        "n_items": plan.n_items,
        "first_crossing": plan.first_crossing,
        "searched_to": plan.searched_to,
        "pass_probability": plan.pass_probability,
        "standard_error": plan.standard_error,
        "analytic_start": plan.analytic_start,
        "mean_difference": list(plan.mean_difference),
        "evaluated": [{"n_items": n, "pass_probability": p} for n, p in plan.evaluated],
        "replicates": plan.replicates,
        "seed": plan.seed,
        "min_items": plan.min_items,
        "budget": None if plan.budget is None else budget_json(plan.budget),
    }


def pass_probability_json(at: Any) -> dict[str, Any]:
    """A ``PassProbability``: P(pass) at a number of items and its Monte Carlo SE."""
    return {
        "n_items": at.n_items,
        "probability": at.probability,
        "standard_error": at.standard_error,
        "replicates": at.replicates,
    }


def alt_test_table_json(summary: Any) -> list[dict[str, Any]]:
    """An ``AltTestPlanSummary``'s table: items and person-hours per number of humans."""
    return [{"humans": m, "n_items": n, "person_hours": h} for m, n, h in summary.table]


def alt_test_plan_document(body: dict[str, Any], *, seed: int) -> dict[str, Any]:
    """``planner alt-test --plan``: ``plan`` (:func:`alt_test_plan_json`), ``table``, or
    ``pass_probability`` at a given number of items."""
    return document("alt-test-plan", body, seed=seed)


def alt_test_summary_document(summary: Any) -> dict[str, Any]:
    """``planner alt-test --plan`` of an ``AltTestPlanSummary``: the plan and (with a table)
    the table, under the summary's seed."""
    body: dict[str, Any] = {"mode": "plan", "plan": alt_test_plan_json(summary.plan)}
    if summary.table:
        body["table"] = alt_test_table_json(summary)
    return alt_test_plan_document(body, seed=summary.seed)


def pass_probability_document(model: Any, epsilon: float, q: float, at: Any) -> dict[str, Any]:
    """``planner alt-test --plan --items N``: the model in words and P(pass) at N."""
    body = {
        "mode": "plan",
        "model": model.describe(),
        "epsilon": epsilon,
        "q": q,
        "pass_probability": pass_probability_json(at),
    }
    return alt_test_plan_document(body, seed=at.seed)


#: the summary's fields a report's ``figures.json`` leaves out: the results behind its numbers
SUMMARY_RESULTS = ("plan", "at_items", "rows", "unreachable")


def alt_test_report_json(report: Any) -> dict[str, Any]:
    """A report's Alt-Test numbers (``figures.json``'s ``alt_test``): the summary's numbers
    (its table as rows), the settings and the P(pass) curve."""
    out: dict[str, Any] = {}
    for f in fields(report):
        value = getattr(report, f.name)
        out[f.name] = value if f.name != "summary" and f.name != "curve" else None
    summary = report.summary
    out["summary"] = {
        f.name: _plain(getattr(summary, f.name))
        for f in fields(summary)
        if f.name not in SUMMARY_RESULTS
    }
    out["summary"]["table"] = [
        {"humans": m, "items": n, "person_hours": h} for m, n, h in summary.table
    ]
    out["curve"] = asdict(report.curve)
    return out


def _plain(value: Any) -> Any:
    """Tuples as lists, as :func:`dataclasses.asdict` leaves them (JSON arrays either way)."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def alt_test_section_json(summary: Any) -> dict[str, Any]:
    """``plan SCENARIO``'s ``alt_test``: the scenario's LLM judge planned
    (:func:`alt_test_plan_json`, null where unreachable, with the reason), P(pass) at
    ``alt_test.items`` (null without them) and the seed the numbers were drawn with."""
    plan, at, why = summary.plan, summary.at_items, summary.unreachable
    return {
        "model": summary.model_description,
        "epsilon": summary.epsilon,
        "power": summary.power,
        "plan": None if plan is None else alt_test_plan_json(plan),
        "unreachable": None if why is None else str(why),
        "pass_probability_at_items": None if at is None else pass_probability_json(at),
        "seed": summary.seed,
    }


def with_alt_test(doc: dict[str, Any], summary: Any) -> dict[str, Any]:
    """A ``plan`` document with its scenario's Alt-Test as ``alt_test`` (unchanged without)."""
    if summary is None:
        return doc
    return {**doc, "alt_test": json_ready(alt_test_section_json(summary))}
