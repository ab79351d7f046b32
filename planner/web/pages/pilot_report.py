"""The Pilot page's scenario file and report: a pair's pilot as ``[model] pilot_file``.

The scenario names the upload by the name the page shows (``pilot.csv``) with the reader's
settings as ``pilot_*`` keys; ``planner plan SCENARIO.toml`` beside that file gives the
page's numbers, and ``planner report`` builds the report from it. The report is built
from the uploaded bytes the server keeps in memory, written into a new private temporary
folder with the scenario and removed afterwards (:func:`planner.web.plan_fields.scenario_report`).
A pilot of several annotators planned as all of them has no scenario form (its
``[annotators]`` section takes no pilot file), so it has no report.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Download
from planner.web.pages import pilot_several, shared

#: the page's reader fields -> the scenario's ``[model]`` keys
READER_KEYS = {
    "layout": "pilot_layout",
    "item_col": "pilot_item_col",
    "annotator_col": "pilot_annotator_col",
    "label_col": "pilot_label_col",
    "annotator_cols": "pilot_annotator_cols",
    "missing": "pilot_missing",
}
#: the scenario's sections and the page's fields they hold (``[model]`` aside)
SECTIONS = {
    "target": (("metric", "metric"), ("width", "width"), ("confidence", "confidence"),
               ("assurance", "assurance")),
    "budget": (("seconds_per_item", "seconds_per_item"),
               ("adjudication_seconds", "adjudication_seconds"), ("hourly_rate", "hourly_rate")),
    "simulation": (("replicates", "replicates"),),
}  # fmt: skip


def _model_lines(values: Mapping[str, Any], shown: str) -> list[str]:
    lines = [f"pilot_file = {shared.toml_value(shown)}"]
    for name in ("positive", "pair"):
        if values.get(name) is not None:
            lines.append(f"pilot_{name} = {shared.toml_value(str(values[name]))}")
    for name, value in shared.reader_options(values).items():
        lines.append(f"{READER_KEYS[name]} = {shared.toml_value(value)}")
    if (values.get("file_format") or "csv") != "csv":
        lines.append(f"pilot_format = {shared.toml_value(values['file_format'])}")
    return lines


def scenario_toml(values: Mapping[str, Any], shown: str, seed: int) -> str:
    """The scenario file of a pair's pilot plan (``plan SCENARIO.toml`` beside ``shown``
    gives the page's numbers)."""
    lines = ['name = "pilot-from-the-app"', "", "[model]", *_model_lines(values, shown)]
    for section, keys in SECTIONS.items():
        body = [
            f"{key} = {shared.toml_value(values[field])}"
            for field, key in keys
            if values.get(field) is not None
        ]
        if section == "simulation":
            body.append(f"seed = {seed}")
        if body:
            lines += ["", f"[{section}]", *body]
    return "\n".join(lines) + "\n"


def report(values: Mapping[str, Any], files: Mapping[str, bytes]) -> Download:
    """The report of a pair's pilot plan, from the uploaded bytes (never a path)."""
    from planner.web.plan_fields import scenario_report

    content = files.get("pilot")
    with shared.uploaded(content, "pilot", values.get("file_format")) as path:
        if pilot_several.wanted(values, pilot_several.annotator_count(path, values)):
            raise InvalidInput(
                "pilot: a pilot of several annotators planned as all of them has no report "
                "(give a pair to report that pair's plan)",
                parameter="pilot",
            )
    shown = shared.upload_name("pilot", values)
    seed = shared.seed_of(values)
    assert content is not None  # uploaded() refused an empty upload
    return scenario_report(lambda s: scenario_toml(values, shown, s), seed, {shown: content})
