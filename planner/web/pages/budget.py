"""The Budget page: what a fixed number of items, person-hours or money buys (``plan``'s
``--items``, ``--hours`` and ``--budget``): the precision each metric reaches and the
assurance of the target half-width."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web import plan_fields
from planner.web.page import Field, Page, PageResult, Progress, Table
from planner.web.pages.plan import number

SIZE_FIELDS = (
    Field("items", "Items", "integer", help="A study of this many items; or give hours or budget."),
    Field("hours", "Person-hours", "number", help="The items this many person-hours buy."),
    Field("budget", "Budget", "number", help="The items this budget buys (needs hourly rate)."),
)


def _precision_table(precision: Mapping[str, Any]) -> Table:
    rows = []
    for metric, m in precision["metrics"].items():
        half = m["half_width"]
        interval = m["interval"]
        rows.append(
            (
                metric,
                f"{m['items']:,}",
                number(m["union_positives"]),
                f"{half['p10']:.4f} / {half['p50']:.4f} / {half['p90']:.4f}",
                f"{interval['lower']:.3f} – {interval['upper']:.3f}",
                f"{m['assurance']:.3f}",
                f"{m['coverage']:.3f}",
            )
        )
    columns = ("metric", "items", "union positives", "half-width p10 / p50 / p90")
    return Table(
        "What the study buys, per metric",
        (
            *columns,
            "typical interval",
            f"P(half-width <= {precision['width']:g})",
            "interval coverage",
        ),
        tuple(rows),
        "precision",
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The precision a fixed study buys, from ``plan``'s fixed-size options."""
    if all(values.get(k) is None for k in ("items", "hours", "budget")):
        raise InvalidInput(
            "give one of items, hours or budget: the fixed size of the study",
            parameter="items",
            parameters=("hours", "budget"),
        )
    result, options, notes = plan_fields.run(values, files, progress)
    from planner.output.jsonout import plan_result_document

    document = plan_result_document(result)
    precision = document["precision"]
    first = next(iter(precision["metrics"].values()))
    pilot = values.get("pilot") if "pilot" in files else None
    return PageResult(
        headline={
            "items": f"{precision['items']:,}",
            "union-positives": number(first["union_positives"]),
            "person-hours": number(precision["person_hours"]),
            "cost": number(precision["cost"], 0),
            "half-width": f"{first['half_width']['p50']:.4f}",
            "assurance": f"{first['assurance']:.3f}",
        },
        command=plan_fields.plan_command(options, pilot),
        python=plan_fields.python_code(options, pilot),
        toml=None,
        tables=(_precision_table(precision),),
        notes=(
            f"The plan for the target half-width {precision['width']:g} needs "
            f"{result.items:,} items ({number(result.budget.person_hours)} person-hours).",
            *notes,
            *result.notes,
        ),
        document=document,
    )


PAGE = Page(
    slug="budget",
    title="Budget",
    summary=(
        "What a fixed study buys: give the pair, then a number of items, person-hours or a "
        "budget; see the interval's half-width each metric reaches and the chance of the target."
    ),
    fields=(
        *plan_fields.MODEL_FIELDS,
        *SIZE_FIELDS,
        *plan_fields.TARGET_FIELDS,
        *plan_fields.COST_FIELDS,
        plan_fields.SEED_FIELD,
    ),
    compute=compute,
)
