"""The Alt-Test plan page: humans, the LLM's and the humans' error rates -> items for the power.

The fields are ``planner alt-test --plan``'s options; the page builds the annotator model
with :func:`planner.sizing.alt_test_plan.alt_test_model` and sizes it with
:func:`planner.sizing.alt_test_plan.plan_alt_test`, as that command does, and its JSON
document with :func:`planner.output.jsonout.alt_test_plan_json`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

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
    Field("seed", "Seed", "integer", "1"),
)
NAMES = tuple(f.name for f in FIELDS)
FIELD_OF = {"n_reps": "replicates", "n_humans": "humans", "n_categories": "categories"}
MODEL_FIELDS = ("humans", "categories", "human_error", "llm_error", "prevalences", "error_draw")
PLAN_FIELDS = ("epsilon", "q", "power", "min_items", "max_items", "seconds_per_item", "hourly_rate")


def model_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`alt_test_model`'s arguments from the page's values."""
    errors = shared.numbers(shared.needed(values, "human_error"), "human_error")
    assert errors is not None
    options = {k: values.get(k) for k in MODEL_FIELDS}
    options["human_error"] = errors[0] if len(errors) == 1 else errors
    options["prevalences"] = shared.numbers(values.get("prevalences"), "prevalences")
    return {k: v for k, v in options.items() if v is not None}


def plan_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`plan_alt_test`'s keyword arguments but the model and the generator."""
    options = {k: values.get(k) for k in PLAN_FIELDS}
    options["n_reps"] = values.get("replicates")
    options["epsilon"] = shared.needed(values, "epsilon")
    return {k: v for k, v in options.items() if v is not None}


def _python(model: Mapping[str, Any], plan: Mapping[str, Any], seed: int) -> str:
    return shared.python_call(
        [
            "from planner import alt_test_model, plan_alt_test",
            "",
            f"model = alt_test_model(**{dict(model)!r})",
            f"plan = plan_alt_test(model, **{dict(plan)!r}, rng={seed})",
            "print(plan.n_items, plan.pass_probability)",
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
        standard_error=tuple(math.sqrt(x * (1 - x) / plan.n_reps) for x in p),
        power=plan.power,
        planned=plan.n_items,
        items_given=None,
        replicates=plan.n_reps,
        seed=plan.seed,
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The Alt-Test plan of the page's values."""
    from planner.output.jsonout import alt_test_plan_document, alt_test_plan_json
    from planner.output.plots import pass_probability_curve
    from planner.sizing.alt_test_plan import alt_test_model, plan_alt_test

    seed = shared.seed_of(values)
    with shared.field_errors(NAMES, "human_error", FIELD_OF):
        model_args, plan_args = model_options(values), plan_options(values)
        model = alt_test_model(**model_args)
        plan = plan_alt_test(model, **plan_args, rng=seed)
    budget = plan.budget
    headline = {
        "items": shared.whole(plan.n_items),
        "person-hours": shared.hours(None if budget is None else budget.person_hours),
        "cost": shared.money(None if budget is None else budget.cost),
        "assurance": shared.share(plan.pass_probability),
        "pass-probability": shared.share(plan.pass_probability),
        "analytic-start": shared.whole(plan.analytic_start),
    }
    evaluated = shared.table(
        "P(pass) at the sizes searched",
        ("items", "P(pass)"),
        [(shared.whole(n), shared.share(p, 3)) for n, p in sorted(plan.evaluated)],
        "pass-table",
    )
    figure = shared.figure(
        "pass-probability",
        "The probability that the LLM passes the Alt-Test against items",
        pass_probability_curve,
        _curve(plan),
    )
    cli = {"plan": True, **{k: values.get(k) for k in NAMES}, "seed": seed}
    return PageResult(
        headline=headline,
        command=command_line(["alt-test"], cli),
        python=_python(model_args, plan_args, seed),
        tables=(evaluated,),
        figures=(figure,),
        notes=(model.describe(),),
        document=alt_test_plan_document(
            {"mode": "plan", "plan": alt_test_plan_json(plan)}, seed=seed
        ),
    )


PAGE = Page(
    slug="alt-test",
    title="Alt-Test plan",
    summary="How many items the alternative annotator test needs to pass an LLM as good as "
    "the humans with the power asked for, and their hours.",
    fields=FIELDS,
    compute=compute,
)
