"""The Alt-Test plan page: humans, the LLM's and the humans' error rates -> items for the power.

The fields are ``planner alt-test --plan``'s options; the page builds the annotator model
with :func:`planner.sizing.alt_test_plan.alt_test_model` and sizes it with
:func:`planner.sizing.alt_test_plan.alt_test_plan_summary` (the plan, and with ``table`` the
plans for 2 to 6 humans), or gives P(pass) at ``items`` with
:func:`planner.sizing.alt_test_plan.pass_probability`, as that command does; its JSON
document comes from :mod:`planner.output.alt_test_json`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Field, Page, PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

FIELDS = (
    Field("humans", "Human annotators", "integer", None, "Empty: 3, or one per human error."),
    Field("categories", "Categories", "integer", None, "Empty: 2, or as many as the prevalences."),
    Field("human_error", "Humans' error rate", "text", "0.2", "One value, or one per human."),
    Field("llm_error", "The LLM's error rate", "number", "0.2"),
    Field("prevalences", "Category prevalences", "text", None, "Empty: equal."),
    Field("error_draw", "An error is drawn", "choice", "uniform", choices=("uniform", "prior")),
    Field(
        "epsilon",
        "Margin granted to the LLM",
        "number",
        "0.2",
        "The authors: 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers.",
    ),
    Field("q", "False discovery rate", "number", "0.05"),
    Field("power", "Target probability of passing", "number", "0.8"),
    Field("min_items", "Fewest items", "integer", "30"),
    Field("max_items", "Most items searched", "integer", "20000"),
    Field("replicates", "Simulated studies per size", "integer", "2000"),
    Field("seconds_per_item", "Seconds per item (one human)", "number", "90"),
    Field("hourly_rate", "Hourly rate", "number", None),
    Field("items", "P(pass) at this many items", "integer", None, "Empty: search the items."),
    Field("table", "Also plan for 2 to 6 humans", "flag", None),
    Field("seed", "Seed", "integer", "1"),
)
NAMES = tuple(f.name for f in FIELDS)
FIELD_OF = {"replicates": "replicates", "n_humans": "humans", "n_categories": "categories"}
MODEL_FIELDS = ("humans", "categories", "human_error", "llm_error", "prevalences", "error_draw")
PLAN_FIELDS = (
    "epsilon", "q", "power", "min_items", "max_items", "seconds_per_item", "hourly_rate",
    "items", "table",
)  # fmt: skip


def model_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`alt_test_model`'s arguments from the page's values."""
    errors = shared.numbers(shared.needed(values, "human_error"), "human_error")
    assert errors is not None
    options = {k: values.get(k) for k in MODEL_FIELDS}
    options["human_error"] = errors[0] if len(errors) == 1 else errors
    options["prevalences"] = shared.numbers(values.get("prevalences"), "prevalences")
    return {k: v for k, v in options.items() if v is not None}


def plan_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`AltTestPlanSettings`' fields from the page's values (an empty one: its
    default)."""
    options = {k: values.get(k) for k in PLAN_FIELDS}
    options["table"] = bool(values.get("table")) or None
    options["replicates"] = values.get("replicates")
    options["epsilon"] = shared.needed(values, "epsilon")
    return {k: v for k, v in options.items() if v is not None}


def _python(model: Mapping[str, Any], plan: Mapping[str, Any], seed: int) -> str:
    settings = f"AltTestPlanSettings(**{dict(plan)!r})"
    if plan.get("items") is not None:
        call = [
            f"at = pass_probability(model, {plan['items']}, {settings}, rng={seed})",
            "print(at.n_items, at.probability)",
        ]
    else:
        call = [
            f"summary = alt_test_plan_summary(model, {settings}, rng={seed})",
            "plan = summary.plan",
            "print(plan.n_items, plan.pass_probability, summary.table)",
        ]
    return shared.python_call(
        [
            "from planner import AltTestPlanSettings, alt_test_model",
            "from planner import alt_test_plan_summary, pass_probability",
            "",
            f"model = alt_test_model(**{dict(model)!r})",
            *call,
        ]
    )


def _curve(plan: Any) -> Any:
    """The P(pass) the search evaluated, with each point's binomial standard error."""
    from planner.output.report_alt_test import PassCurve

    points = sorted(plan.evaluated)
    p = [prob for _, prob in points]
    return PassCurve(
        items=tuple(n for n, _ in points),
        pass_probability=tuple(p),
        standard_error=tuple(math.sqrt(x * (1 - x) / plan.replicates) for x in p),
        power=plan.power,
        planned=plan.n_items,
        items_given=None,
        replicates=plan.replicates,
        seed=plan.seed,
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The Alt-Test plan of the page's values (or P(pass) at its ``items``)."""
    from planner.sizing.alt_test_plan import (
        AltTestPlanSettings,
        alt_test_model,
        alt_test_plan_summary,
        pass_probability,
    )

    seed = shared.seed_of(values)
    with shared.field_errors(NAMES, "human_error", FIELD_OF):
        model_args, plan_args = model_options(values), plan_options(values)
        model = alt_test_model(**model_args)
        settings = AltTestPlanSettings(**plan_args)
        if settings.items is not None and settings.table:
            raise InvalidInput(
                "table plans 2 to 6 humans; with items give one or the other", parameter="table"
            )
        if settings.items is not None:
            at = pass_probability(model, settings.items, settings, rng=seed)
        else:
            summary = alt_test_plan_summary(model, settings, rng=seed, progress=progress)
    cli = {"plan": True, **{k: values.get(k) for k in NAMES}, "seed": seed}
    command = command_line(["alt-test"], cli)
    python = _python(model_args, plan_args, seed)
    if settings.items is not None:
        return _at_result(model, settings, at, command, python)
    if summary.plan is None:
        assert summary.unreachable is not None  # no plan: the search said why
        raise summary.unreachable
    return _plan_result(model, summary, command, python)


def _at_result(model: Any, settings: Any, at: Any, command: str, python: str) -> PageResult:
    """The page of ``items``: P(pass) there and its Monte Carlo standard error."""
    from planner.output.alt_test_json import pass_probability_document

    return PageResult(
        headline={
            "items": shared.whole(at.n_items),
            "pass-probability": shared.share(at.probability),
            "standard-error": shared.share(at.standard_error, 3),
        },
        command=command,
        python=python,
        tables=(),
        figures=(),
        notes=(model.describe(),),
        document=pass_probability_document(model, settings.epsilon, settings.q, at),
    )


def _plan_result(model: Any, summary: Any, command: str, python: str) -> PageResult:
    """The page of a plan: its headline, the curve searched, the table of humans."""
    from planner.output.alt_test_json import alt_test_summary_document
    from planner.output.plots import pass_probability_curve

    plan = summary.plan
    budget = plan.budget
    headline = {
        "items": shared.whole(plan.n_items),
        "person-hours": shared.hours(None if budget is None else budget.person_hours),
        "cost": shared.money(None if budget is None else budget.cost),
        "assurance": shared.share(plan.pass_probability),
        "pass-probability": shared.share(plan.pass_probability),
        "analytic-start": shared.whole(plan.analytic_start),
    }
    tables = [
        shared.table(
            "P(pass) at the sizes searched",
            ("items", "P(pass)"),
            [(shared.whole(n), shared.share(p, 3)) for n, p in sorted(plan.evaluated)],
            "pass-table",
        )
    ]
    if summary.table:
        rows = [(str(m), shared.whole(n), shared.hours(h)) for m, n, h in summary.table]
        tables.append(
            shared.table("Items for 2 to 6 humans", ("humans", "items", "person-hours"), rows,
                         "humans-table")
        )  # fmt: skip
    figure = shared.figure(
        "pass-probability",
        "The probability that the LLM passes the Alt-Test against items",
        pass_probability_curve,
        _curve(plan),
    )
    return PageResult(
        headline=headline,
        command=command,
        python=python,
        tables=tuple(tables),
        figures=(figure,),
        notes=(model.describe(),),
        document=alt_test_summary_document(summary),
    )


PAGE = Page(
    slug="alt-test",
    title="Alt-Test plan",
    summary="How many items the alternative annotator test needs to pass an LLM as good as "
    "the humans with the power asked for, and their hours.",
    fields=FIELDS,
    compute=compute,
)
