"""What the Plan and Budget pages share: ``plan``'s options as fields, and one run of them.

Both pages call the application layer the ``plan`` command calls
(:class:`~planner.application.plan_options.PlanOptions` and
:func:`~planner.application.plan_options.run_plan`), so a page's numbers are ``plan``'s. Field
names are the options' parameters (the URL keys); the reproducing command, the Python code
and the scenario TOML are written from the same values.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from planner.errors import InvalidInput, PlannerError
from planner.web.page import Download, Field, Progress, draw_seed, seed_note
from planner.web.reproduce import command_line, option_text

#: the pair model, in its four forms (give one): annotators, union rate with PSA, a target
#: (PSA or kappa with prevalence), pilot counts or a pilot label file
MODEL_FIELDS = (
    Field("prevalence", "Prevalence", "number", help="Annotator model: share of true positives."),
    Field("error_rate", "Error rate", "text", help="Per annotator: 0.04, or 0.03,0.05."),
    Field("bias", "Bias", "text", help="Per annotator, in [-1, 1]: 0, or -0.2,0.2."),
    Field("ambiguity", "Ambiguity", "number", help="Share of items that are a coin toss."),
    Field(
        "psa", "Target PSA", "number", help="With prevalence (solves the error rate) or union rate."
    ),
    Field("kappa", "Target kappa", "number", help="With prevalence: solves the error rate."),
    Field(
        "union_rate", "Union rate", "number", help="Instead of prevalence: share flagged by anyone."
    ),
    Field("pilot_counts", "Pilot counts", "text", help="Instead: both, A only, B only, neither."),
    Field(
        "pilot", "Pilot label file", "file", help="Instead: a pilot's labels (CSV, TSV, Parquet)."
    ),
    Field("positive", "Positive label", "text", help="With a pilot: the label that counts."),
    Field("pair", "Annotator pair", "text", help="With a pilot of 3+ annotators: A,B."),
)
TARGET_FIELDS = (
    Field("width", "Half-width", "number", "0.08", "Target half-width of the interval."),
    Field("confidence", "Confidence", "number", "0.95"),
    Field("assurance", "Assurance", "number", "0.5", "P(half-width <= target)."),
    Field("metric", "Metric", "choice", "psa", choices=("psa", "kappa", "both")),
)
COST_FIELDS = (
    Field("seconds_per_item", "Seconds per item", "number", "90", "Per annotator."),
    Field("adjudication_seconds", "Adjudication seconds", "number", "0", "Per contested item."),
    Field("hourly_rate", "Hourly rate", "number", help="Cost of one person-hour (optional)."),
)
SEED_FIELD = Field(
    "seed", "Seed", "integer", "1", "The simulations' seed: the same seed, the same page."
)

#: fields whose text is a comma-separated list
_LISTS = {"error_rate": float, "bias": float, "pilot_counts": int}
_DEFAULTS = {f.name: f.default for f in (*TARGET_FIELDS, *COST_FIELDS)}
#: scenario sections of plan's options (the TOML a page shows)
_SECTIONS = {
    "model": ("prevalence", "error_rate", "bias", "ambiguity", "psa", "kappa", "union_rate"),
    "target": ("metric", "width", "confidence", "assurance"),
    "budget": ("seconds_per_item", "adjudication_seconds", "hourly_rate"),
    "simulation": ("seed",),
}


def _numbers(name: str, text: str) -> float | tuple[Any, ...]:
    kind = _LISTS[name]
    try:
        parts = tuple(kind(p) for p in text.split(","))
    except ValueError:
        what = "whole numbers" if kind is int else "numbers"
        raise InvalidInput(
            f"{name} must be {what} separated by commas, got {text!r}", parameter=name, value=text
        ) from None
    return parts[0] if len(parts) == 1 and name != "pilot_counts" else parts


def plan_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The options given (not None, not the page's default), lists parsed, in field order."""
    given: dict[str, Any] = {}
    for name, value in values.items():
        if value is None or name == "pilot":
            continue
        if name in _DEFAULTS and _DEFAULTS[name] is not None and str(value) == _DEFAULTS[name]:
            continue
        if (
            isinstance(value, float)
            and name in _DEFAULTS
            and float(_DEFAULTS[name] or "nan") == value
        ):
            continue
        if name == "pair":
            value = tuple(part.strip() for part in value.split(","))
        given[name] = _numbers(name, value) if name in _LISTS else value
    return given


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return option_text(value)


def scenario_toml(options: Mapping[str, Any], pilot_name: str | None) -> str:
    """The scenario file of these options (``plan SCENARIO.toml`` gives the same numbers)."""
    lines = ['name = "from-the-app"']
    for section, keys in _SECTIONS.items():
        body = [f"{k} = {_toml_value(options[k])}" for k in keys if k in options]
        if section == "model" and "pilot_counts" in options:
            body.append(f"pilot_counts = {_toml_value(options['pilot_counts'])}")
        if section == "model" and pilot_name:
            body.append(f"pilot_file = {_toml_value(pilot_name)}")
            for key in ("positive", "pair"):
                if key in options:
                    value = options[key]
                    text = ",".join(value) if isinstance(value, tuple) else value
                    body.append(f"pilot_{key} = {_toml_value(text)}")
        if body:
            lines += ["", f"[{section}]", *body]
    return "\n".join(lines) + "\n"


def python_code(options: Mapping[str, Any], pilot_name: str | None) -> str:
    """The library code that gives the same plan (the application layer ``plan`` uses)."""
    arguments = {**options, **({"pilot": pilot_name} if pilot_name else {})}
    listed = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return (
        "from planner.application.plan_options import PlanOptions, run_plan\n\n"
        f"result = run_plan(None, PlanOptions({listed}), lambda seed: seed)\n"
        "print(result.items, result.budget.person_hours)\n"
    )


def plan_command(options: Mapping[str, Any], pilot_name: str | None) -> str:
    """``planner plan ...`` with these options (the pilot file by the name it was uploaded as)."""
    return command_line(["plan"], {**({"pilot": pilot_name} if pilot_name else {}), **options})


def run(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> tuple[Any, dict[str, Any], list[str]]:
    """Run ``plan`` on the page's values: the result, the options given, and notes.

    An uploaded pilot is written into a private temporary folder (under the name it was
    uploaded as, reduced to a safe base name) for the reader, and removed afterwards. A
    seed that is not given is drawn, and said.
    """
    from planner.application.plan_options import PlanOptions, run_plan

    options = plan_values(values)
    notes: list[str] = []
    if options.get("seed") is None:
        options["seed"] = draw_seed()
        notes.append(seed_note(options["seed"]))
    folder = None
    kwargs = dict(options)
    if "pilot" in files:
        folder = Path(tempfile.mkdtemp(prefix="planner-app-"))
        path = folder / (values.get("pilot") or "pilot.csv")
        path.write_bytes(files["pilot"])
        kwargs["pilot"] = str(path)
    seed: int = options["seed"]
    try:
        said: list[str] = []
        result = run_plan(None, PlanOptions(**kwargs), lambda _: seed, said, progress)
    except PlannerError as exc:  # the pilot by the name it was uploaded as, not our folder
        if folder is None or str(folder) not in str(exc):
            raise
        message = str(exc).replace(str(folder) + os.sep, "")
        first = message.lstrip("-").split(" ", 1)[0]
        parameter = first if first in ("positive", "pair") else "pilot"  # beside that field
        raise InvalidInput(message, parameter=parameter) from None
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return result, options, notes + said


def report(values: Mapping[str, Any], files: Mapping[str, bytes]) -> Download:
    """The report ``planner report`` writes for the scenario of these values (its HTML page,
    self-contained), built in a private temporary folder that is removed afterwards; an
    uploaded pilot is written there beside the scenario, under the name the page shows."""
    options = plan_values(values)
    pilot = None
    if "pilot" in files:
        pilot = str(values.get("pilot") or "pilot.csv")
    return scenario_report(
        lambda seed: scenario_toml({**options, "seed": seed}, pilot),
        options.get("seed"),
        {pilot: files["pilot"]} if pilot else {},
    )


def scenario_report(
    toml: Callable[[int], str], seed: int | None, inputs: Mapping[str, bytes]
) -> Download:
    """The report of the scenario ``toml(seed)`` (``inputs``: the files it names, by name),
    built in a new private temporary folder (mode 0700) removed afterwards."""
    from planner.output.report import write_report
    from planner.web.figures import DRAWING

    if seed is None:
        seed = draw_seed()
    folder = Path(tempfile.mkdtemp(prefix="planner-report-"))
    try:
        for name, content in inputs.items():
            (folder / Path(name).name).write_bytes(content)
        scenario = folder / "from-the-app.toml"
        scenario.write_text(toml(seed), encoding="utf-8")
        with DRAWING:  # the report's figures set matplotlib's global style
            written = write_report(scenario, folder / "reports", rng=seed)
        content = (written / "report.html").read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    # the rebuild command names the scenario as saved beside the report, not our folder
    content = content.replace(os.fsencode(str(folder) + os.sep), b"")
    return Download("report.html", "text/html; charset=utf-8", content)
