"""The Pilot page: an uploaded label file -> what was read, and the plan under its uncertainty.

The upload is written to a private temporary folder (``shared.uploaded``) and read by the
library's readers through :func:`planner.application.plan_options.run_plan` with the pilot
options, the path ``plan --pilot FILE`` takes: the pilot's 2x2 counts plan the study
with and without their uncertainty. A pilot of three or more annotators and no pair plans
the study of all of them, as ``plan --pilot FILE --annotators M`` does
(:mod:`planner.web.pages.pilot_several`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from planner.web.page import Field, Page, PageResult, Progress
from planner.web.pages import pilot_report, pilot_several, shared
from planner.web.reproduce import command_line

FIELDS = (
    Field("pilot", "Pilot label file", "file", None, "A label file (long or wide layout)."),
    *shared.reader_fields(),
    Field("pair", "Pair of annotators 'A,B'", "text", None, "Empty: the first two (or, with "
          "three or more annotators, the latent-class fit of them all)."),
    Field("positive", "Positive label", "text", None, "0/1 and false/true labels need none."),
    Field("width", "Target half-width", "number", "0.08"),
    Field("confidence", "Confidence level", "number", "0.95"),
    Field("assurance", "Assurance", "number", "0.5"),
    Field("metric", "Metric", "choice", "psa", "With three or more annotators (and no pair) "
          "one of psa, kappa, fleiss, alpha, conger: the plan of them all.",
          ("psa", "kappa", "both", *pilot_several.SEVERAL_METRICS)),
    Field("level", "Alpha's level", "choice", "nominal", "Several annotators' alpha only.",
          ("nominal", "ordinal", "interval")),
    Field("seconds_per_item", "Seconds per item", "number", "90"),
    Field("adjudication_seconds", "Seconds per adjudicated item", "number", "0"),
    Field("hourly_rate", "Hourly rate", "number", None),
    Field("replicates", "Simulated studies per size", "integer", "4000"),
    Field("seed", "Seed", "integer", "1"),
)  # fmt: skip
NAMES = tuple(f.name for f in FIELDS)
FIELD_OF = {"confidence_level": "confidence", "replicates": "replicates", "pilot_file": "pilot"}
PLAN_FIELDS = (
    "width", "confidence", "assurance", "metric", "seconds_per_item", "adjudication_seconds",
    "hourly_rate", "replicates",
)  # fmt: skip


def _pair(values: Mapping[str, Any]) -> tuple[str, ...] | None:
    pair = values.get("pair")
    return None if pair is None else tuple(part.strip() for part in str(pair).split(","))


def plan_options(values: Mapping[str, Any], path: str, seed: int) -> Any:
    """The :class:`~planner.application.plan_options.PlanOptions` of ``plan --pilot PATH``."""
    from planner.application.plan_options import PlanOptions

    return PlanOptions(
        pilot=path,
        pair=_pair(values),
        positive=values.get("positive"),
        pilot_reader=shared.reader_options(values),
        **{k: values.get(k) for k in PLAN_FIELDS},
        seed=seed,
    )


def cli_options(values: Mapping[str, Any], shown: str, seed: int) -> dict[str, Any]:
    """The ``plan`` command's options (the file as the name the page shows)."""
    reader = shared.reader_options(values)
    return {
        "pilot": shown,
        "pair": values.get("pair"),
        "positive": values.get("positive"),
        **reader,
        **{k: values.get(k) for k in PLAN_FIELDS},
        "seed": seed,
    }


def planned(values: Mapping[str, Any], path: Path, shown: str, progress: Progress | None) -> Any:
    """The plan of ``plan --pilot`` on the upload at ``path`` (its pilot named as shown)."""
    from planner.application.plan_options import run_plan

    seed = shared.seed_of(values)
    with shared.field_errors(NAMES, "pilot", FIELD_OF, upload=(path, shown)):
        options = plan_options(values, str(path), seed)
        result = run_plan(None, options, lambda _: seed, [], progress)
    from planner.sizing.plan import Plan

    if not isinstance(result, Plan):  # only a stratified scenario gives a comparison
        raise TypeError("a plan from a pilot file gave a design comparison")
    plan = result
    if plan.pilot is not None:
        plan = replace(plan, pilot=replace(plan.pilot, source=shown))
    return plan, seed


def _python(values: Mapping[str, Any], shown: str, seed: int) -> str:
    options = plan_options(values, shown, seed)
    given = {k: v for k, v in options.given().items() if v not in (None, {})}
    return shared.python_call(
        [
            "from planner.application.plan_options import PlanOptions, run_plan",
            "",
            f"options = PlanOptions(**{given!r})",
            "plan = run_plan(None, options, lambda seed: seed)",
            "print(plan.items, plan.budget.person_hours)  # under the pilot's uncertainty",
        ]
    )


def _read_table(pilot: Any) -> Any:
    rows: list[tuple[Any, ...]] = [
        ("annotators", ", ".join(pilot.annotators)),
        ("items", shared.whole(pilot.items)),
    ]
    if pilot.pair is not None:
        rows.append(("pair", " and ".join(pilot.pair)))
    if pilot.positive is not None:
        rows.append(("positive label", pilot.positive))
    if pilot.counts is not None:
        rows.append(("both, A only, B only, neither", ", ".join(map(str, pilot.counts))))
    for c in (pilot.psa, pilot.kappa):
        if c is not None:
            rows.append((c.name, f"{c.estimate:.3f} [{c.lower:.3f}, {c.upper:.3f}]"))
    if getattr(pilot, "description", None):
        rows.append(("model", pilot.description))
    return shared.table("What was read", ("", "value"), rows, "pilot-read")


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """What the pilot holds and the plan under its uncertainty: a pair's, or with three or
    more annotators and no pair, the study of them all (:mod:`pilot_several`)."""
    shown = shared.upload_name("pilot", values)
    with shared.uploaded(files.get("pilot"), "pilot", values.get("file_format")) as path:
        annotators = pilot_several.annotator_count(path, values)
        if pilot_several.wanted(values, annotators):
            return pilot_several.compute(values, path, shown, annotators, progress)
        plan, seed = planned(values, path, shown, progress)
    return _pair_result(values, plan, shown, seed)


def _pair_result(values: Mapping[str, Any], plan: Any, shown: str, seed: int) -> PageResult:
    """The page's result for a pair's plan from its pilot."""
    from planner.output.jsonout import plan_document
    from planner.output.plot_curve import assurance_curve_figure

    plug_in = plan.results[plan.deciding_metric]
    union = plug_in.union_positives
    if plan.recommended is not None:  # under the pilot's uncertainty (plan.items is it)
        union = plan.recommended.union_positives
    headline = {
        "items": shared.whole(plan.items),
        "union-positives": shared.whole(union),
        "person-hours": shared.hours(plan.budget.person_hours),
        "cost": shared.money(plan.budget.cost),
        "assurance": shared.share(plan.settings.assurance),
        "plug-in-items": shared.whole(plug_in.items),
        "pilot-items": shared.whole(plan.pilot.items),
    }
    if plan.uncertainty is not None:
        headline["hybrid-assurance"] = shared.share(plan.uncertainty.hybrid_assurance, 3)
    notes = [*plan.pilot.notes, *plan.notes]
    if plan.uncertainty is not None:
        notes.insert(0, plan.uncertainty.explanation)
    curve = {m: [{"items": n, "assurance": a} for n, a in r.curve] for m, r in plan.results.items()}
    figure = shared.figure(
        "assurance",
        "The probability of reaching the target width against items, if the pilot were the truth",
        assurance_curve_figure,
        curve,
        plan.settings.width,
        plan.settings.assurance,
        plug_in.items,
    )
    return PageResult(
        headline=headline,
        command=command_line(["plan"], cli_options(values, shown, seed)),
        python=_python(values, shown, seed),
        toml=pilot_report.scenario_toml(values, shown, seed),
        tables=(_read_table(plan.pilot),),
        figures=(figure,),
        notes=tuple(notes),
        document=plan_document(plan),
    )


PAGE = Page(
    slug="pilot",
    title="Pilot",
    summary="Upload a pilot label file: what was read, and the plan under the pilot's "
    "uncertainty, as plan --pilot FILE gives it.",
    fields=FIELDS,
    compute=compute,
    report=pilot_report.report,
)
