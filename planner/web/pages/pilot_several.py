"""The Pilot page for a pilot of three to six annotators: their study, planned from their fit.

When the uploaded file has three or more annotators and no pair is chosen, the page plans
the study of all of them as ``plan --pilot FILE --annotators M`` does: the pilot's
latent-class fit (Dawid & Skene) is the plug-in model, and the recommendation counts the
pilot's uncertainty, the smallest ``n`` whose hybrid assurance

``A_h(n) = (1 / D) sum_d P(half-width <= w | theta_d, n)``

over the ``D`` bootstrap refits ``theta_d`` reaches the target
(:mod:`planner.sizing.pilot_latent_class`). The page calls
:func:`planner.application.raters_options.raters_plan_from_options`, the function that
command calls, so its numbers are the command's; the scenario file it shows
(``[annotators] pilot_file``) gives them too, and its report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.web.page import PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

#: the metrics only a study of several annotators has (the Several page's others: psa, kappa)
SEVERAL_METRICS = ("fleiss", "alpha", "conger")
#: the page's fields that are ``plan``'s options of the same name for several annotators
PLAN_FIELDS = (
    "metric", "level", "width", "confidence", "assurance", "seconds_per_item",
    "adjudication_seconds", "hourly_rate", "replicates",
)  # fmt: skip
#: the page's field -> the library parameter
PARAMETER_OF = {"confidence": "confidence_level", "replicates": "replicates"}


def annotator_count(path: Path, values: Mapping[str, Any]) -> int | None:
    """How many annotators the upload holds, read as the several-annotator plan reads it
    (``None`` when it does not read: the pair's plan then reports why)."""
    from planner.errors import PlannerError
    from planner.sizing.pilot_latent_class import read_raters_ratings

    try:
        ratings = read_raters_ratings(path, reader_options(values))
    except (PlannerError, ValueError):
        return None
    return len(ratings.annotators)


def wanted(values: Mapping[str, Any], annotators: int | None) -> bool:
    """Whether the page plans several annotators: no pair, and three or more annotators in
    the file (or a metric only several annotators have)."""
    if values.get("pair") is not None:
        return False
    return (annotators is not None and annotators >= 3) or values.get("metric") in SEVERAL_METRICS


def reader_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The reader fields as :func:`read_raters_pilot` takes them (with the file format)."""
    return {**shared.reader_options(values), "file_format": values.get("file_format") or "csv"}


def library_options(values: Mapping[str, Any], path: str, annotators: int | None) -> dict[str, Any]:
    """The page's values as :func:`raters_plan_from_options` takes them (``pilot``: ``path``)."""
    options = {PARAMETER_OF.get(k, k): values.get(k) for k in PLAN_FIELDS}
    if options["metric"] == "both":
        from planner.errors import InvalidInput

        raise InvalidInput(
            "metric both is a pair's (PSA and kappa): with several annotators choose one of "
            "psa, kappa, fleiss, alpha or conger",
            parameter="metric",
            value="both",
        )
    if options.get("level") == "nominal":
        options["level"] = None  # the default, as the command leaves it out
    return {
        **options,
        "n_annotators": annotators,
        "pilot": path,
        "positive": values.get("positive"),
        "pilot_reader": reader_options(values),
    }


def cli_options(values: Mapping[str, Any], shown: str, annotators: int | None, seed: int) -> Any:
    """``plan``'s options that give the same numbers (the file as the name the page shows)."""
    level = values.get("level")
    reader = {k: v for k, v in reader_options(values).items() if v != "csv"}
    return {
        "pilot": shown,
        "annotators": annotators,
        "positive": values.get("positive"),
        **reader,
        **{k: values.get(k) for k in PLAN_FIELDS},
        "level": None if level == "nominal" else level,
        "seed": seed,
    }


def planned(
    values: Mapping[str, Any], path: Path, shown: str, annotators: int | None, seed: int,
    progress: Progress | None,
) -> Any:  # fmt: skip
    """The several-annotator plan of the upload at ``path`` (its pilot named as shown)."""
    from dataclasses import replace

    from planner.application.raters_options import raters_plan_from_options

    names = tuple(values)
    field_of = {v: k for k, v in PARAMETER_OF.items()} | {"n_annotators": "pilot"}
    with shared.field_errors(names, "pilot", field_of, upload=(path, shown)):
        options = library_options(values, str(path), annotators)
        plan = raters_plan_from_options(options, None, rng=seed, progress=progress)
    if plan.pilot is None:  # a pilot file always gives its fit
        raise TypeError("a plan from a pilot file gave no pilot")
    return replace(plan, pilot=replace(plan.pilot, source=shown))


#: the plan settings a several-annotator pilot's Python snippet gives (library parameters)
SETTINGS_FIELDS = (
    "width", "confidence_level", "assurance", "level", "per_item", "replicates", "max_items",
    "seconds_per_item", "adjudication_seconds", "hourly_rate",
)  # fmt: skip


def _python(values: Mapping[str, Any], shown: str, plan: Any, seed: int) -> str:
    """The library call that gives the page's plan: ``plan_from_raters_pilot_file`` with the
    settings the page resolved (its defaults included) where they differ from
    :class:`~planner.sizing.plan.PlanSettings`' own, and the plan's metric."""
    from planner.application.raters_options import resolve
    from planner.sizing.plan import PlanSettings

    options = library_options(values, shown, None)
    resolved, _ = resolve(options)
    default = PlanSettings()
    settings = {
        k: resolved[k]
        for k in SETTINGS_FIELDS
        if resolved.get(k) is not None and resolved[k] != getattr(default, k)
    }
    settings = {"metric": plan.sizing.metric, **settings}
    shown_settings = ", ".join(f"{k}={v!r}" for k, v in settings.items())
    reader = {k: v for k, v in options["pilot_reader"].items() if v not in (None, "csv")}
    return shared.python_call(
        [
            "from planner import PlanSettings, plan_from_raters_pilot_file",
            "",
            "plan = plan_from_raters_pilot_file(",
            f"    {shown!r},",
            f"    PlanSettings({shown_settings}),",
            f"    reader={reader!r},",
            f"    positive={options['positive']!r},",
            f"    rng={seed},",
            ")",
            "print(plan.items, plan.budget.person_hours)  # under the pilot's uncertainty",
        ]
    )


def _read_table(plan: Any) -> Any:
    from planner.output.report_raters import pilot_rows

    rows = [tuple(row) for row in pilot_rows(plan)]
    return shared.table("What was read", ("", "value"), rows, "pilot-read")


def headline(plan: Any) -> dict[str, str]:
    """The page's headline: the recommendation under the pilot's uncertainty."""
    u = plan.uncertainty
    return {
        "items": shared.whole(plan.items),
        "union-positives": shared.ABSENT,  # a pair's count: several annotators plan items
        "person-hours": shared.hours(plan.budget.person_hours),
        "cost": shared.money(plan.budget.cost),
        "assurance": shared.share(plan.sizing.target_assurance),
        "plug-in-items": shared.whole(plan.sizing.items),
        "pilot-items": shared.whole(plan.pilot.items),
        "pilot-annotators": str(len(plan.pilot.annotators)),
        "hybrid-assurance": shared.share(u.hybrid_assurance, 3),
    }


def compute(
    values: Mapping[str, Any], path: Path, shown: str, annotators: int | None,
    progress: Progress | None,
) -> PageResult:  # fmt: skip
    """The Pilot page's result for a pilot of several annotators."""
    from planner.output.jsonout import raters_plan_document
    from planner.web.pages.pilot_report import several_scenario_toml

    seed = shared.seed_of(values)
    plan = planned(values, path, shown, annotators, seed, progress)
    notes = (
        "three or more annotators and no pair: the plan is for all of them (give a pair "
        "'A,B' to plan that pair instead)",
        "union positives are a pair's count; the plan for several annotators is in items",
        *plan.notes,
    )
    return PageResult(
        headline=headline(plan),
        command=command_line(["plan"], cli_options(values, shown, annotators, seed)),
        python=_python(values, shown, plan, seed),
        tables=(_read_table(plan),),
        notes=notes,
        toml=several_scenario_toml(values, shown, annotators, seed),
        document=raters_plan_document(plan),
    )
