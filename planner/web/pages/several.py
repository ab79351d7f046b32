"""The Several annotators page: M annotators, K categories, a metric, k of M -> the plan.

The fields are ``plan``'s options for several annotators (``annotators``, ``categories``,
``prevalence``, ``per_item``, ...); the page hands them, as the library's parameters, to
:func:`planner.application.raters_options.raters_plan_from_options`, the function
``plan --annotators M`` calls, so its numbers are the command's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Field, Page, PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

METRICS = ("fleiss", "psa", "alpha", "conger", "kappa")

FIELDS = (
    Field("annotators", "Annotators (M)", "integer", "3", "2 to 6 annotators."),
    Field("categories", "Categories (K)", "integer", "2", "2 to 5 categories."),
    Field(
        "prevalence",
        "Prevalence",
        "text",
        "0.1",
        "The positive class's prevalence, or one per category 'P1,...,PK' summing to 1.",
    ),
    Field("error_rate", "Error rate", "text", None, "One for all annotators, or one each."),
    Field("bias", "Bias", "text", None, "Two categories: the direction of the errors, in [-1, 1]."),
    Field(
        "confusion",
        "Confusion matrix",
        "text",
        None,
        "Instead of error rates: P(label | true class), rows by ';' ('0.98,0.02;0.3,0.7'), "
        "one for all annotators or one each separated by '|'.",
    ),
    Field(
        "metric",
        "Metric",
        "choice",
        "fleiss",
        "Fleiss' kappa, specific (positive) agreement, Krippendorff's alpha, Conger's kappa "
        "or mean pairwise Cohen's kappa.",
        METRICS,
    ),
    Field(
        "level", "Alpha's level", "choice", "nominal", choices=("nominal", "ordinal", "interval")
    ),
    Field("per_item", "Annotators per item (k of M)", "integer", None, "Empty: all M."),
    Field("width", "Target half-width", "number", "0.08"),
    Field("confidence", "Confidence level", "number", "0.95"),
    Field("assurance", "Assurance", "number", "0.5"),
    Field("seconds_per_item", "Seconds per label", "number", "90"),
    Field("adjudication_seconds", "Seconds per adjudicated item", "number", "0"),
    Field("hourly_rate", "Hourly rate", "number", None),
    Field("replicates", "Simulated studies per size", "integer", "4000"),
    Field("seed", "Seed", "integer", "1"),
)
NAMES = tuple(f.name for f in FIELDS)
#: library parameter -> the page's field (plan's option)
FIELD_OF = {
    "n_annotators": "annotators",
    "n_categories": "categories",
    "confidence_level": "confidence",
    "replicates": "replicates",
}
#: the page's field -> the library parameter (the inverse)
PARAMETER_OF = {v: k for k, v in FIELD_OF.items()}


def _confusion(text: str | None) -> list[list[list[float]]] | None:
    """The confusion matrices as ``plan --confusion`` parses them (refusals on the field)."""
    from planner.cli.plan_raters import parse_confusion

    try:
        return parse_confusion(text)
    except InvalidInput as exc:
        message = str(exc).replace("--confusion", "confusion", 1)
        raise InvalidInput(message, parameter="confusion", value=text) from None


def library_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The page's values as :func:`raters_plan_from_options` takes them."""
    options: dict[str, Any] = {PARAMETER_OF.get(k, k): values.get(k) for k in NAMES}
    for name in ("prevalence", "error_rate", "bias"):
        options[name] = shared.numbers(values.get(name), name)
    options["confusion"] = _confusion(values.get("confusion"))
    options.pop("seed")
    return options


def cli_options(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The options of the ``plan`` command that gives the same numbers."""
    options = {k: values.get(k) for k in NAMES if k != "seed"}
    if options.get("level") == "nominal":
        options["level"] = None  # the default: left out of the command
    return {**options, "seed": seed}


def _check_several(values: Mapping[str, Any]) -> None:
    """Refuse values that ``plan`` would size as one pair (the Plan page's job)."""
    from planner.application.several_options import asks_for_several

    options = cli_options(values, 0)
    options["prevalence"] = str(values.get("prevalence") or "")
    if not asks_for_several(options):
        raise InvalidInput(
            f"annotators {values.get('annotators')} with metric {values.get('metric')} and two "
            "categories is one annotator pair: plan it on the Plan page, or give 3 to 6 "
            "annotators",
            parameter="annotators",
            value=values.get("annotators"),
        )


def _python(options: Mapping[str, Any], seed: int) -> str:
    given = {k: v for k, v in options.items() if v is not None}
    return shared.python_call(
        [
            "from planner.application.raters_options import raters_plan_from_options",
            "",
            f"plan = raters_plan_from_options({given!r}, rng={seed})",
            "print(plan.sizing.items, plan.budget.person_hours, plan.sizing.coverage)",
        ]
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The several-annotator plan of the page's values."""
    from planner.application.raters_options import raters_plan_from_options
    from planner.output.jsonout import label_of, raters_plan_document

    seed = shared.seed_of(values)
    _check_several(values)
    with shared.field_errors(NAMES, "prevalence", FIELD_OF):
        options = library_options(values)
        plan = raters_plan_from_options(options, None, rng=seed, progress=progress)
    s = plan.sizing
    coverage = (
        f"the interval ({s.method}) covered the true {label_of(s.metric)} ({s.true_value:.3f}) in "
        f"{s.coverage:.1%} of {s.replicates:,} simulated studies of {s.items:,} items "
        f"(Monte Carlo SE {s.coverage_mc_se:.1%}; nominal {s.confidence_level:.0%})"
    )
    headline = {
        "items": shared.whole(s.items),
        "person-hours": shared.hours(plan.budget.person_hours),
        "cost": shared.money(plan.budget.cost),
        "assurance": shared.share(s.assurance),
        "coverage": shared.share(s.coverage, 3),
        "expected-coefficient": shared.share(s.true_value, 3),
        "hours-per-annotator": shared.hours(plan.hours_per_annotator),
    }
    sizing = shared.table(
        "Sizing",
        ("quantity", "value"),
        [
            ("metric", s.metric),
            ("annotators", s.n_annotators),
            ("labels per item", s.labels_per_item),
            ("items", shared.whole(s.items)),
            ("median half-width", shared.share(s.half_width_median, 4)),
            ("assurance reached", f"{s.assurance:.3f} (SE {s.assurance_mc_se:.3f})"),
            ("interval coverage", f"{s.coverage:.3f} (SE {s.coverage_mc_se:.3f})"),
            ("analytic items", shared.whole(s.analytic_items)),
            ("labels", shared.whole(plan.budget.labels)),
            ("person-hours", shared.hours(plan.budget.person_hours)),
        ],
        "sizing-table",
    )
    return PageResult(
        headline=headline,
        command=command_line(["plan"], cli_options(values, seed)),
        python=_python(library_options(values), seed),
        tables=(sizing,),
        notes=(coverage, *plan.notes),
        document=raters_plan_document(plan),
    )


PAGE = Page(
    slug="several",
    title="Several annotators",
    summary="M annotators, K categories, a metric and k of M annotators per item: the items, "
    "hours and the simulated interval coverage.",
    fields=FIELDS,
    compute=compute,
)
