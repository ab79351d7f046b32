"""The Pilot page's scenario file and report: a pair's pilot as ``[model] pilot_file``.

The scenario names the upload by the name the page shows (``pilot.csv``) with the reader's
settings as ``pilot_*`` keys; ``planner plan SCENARIO.toml`` beside that file gives the
page's numbers, and ``planner report`` builds the report from it. The report is built
from the uploaded bytes the server keeps in memory, written into a new private temporary
folder with the scenario and removed afterwards (:func:`planner.web.plan_fields.scenario_report`).
A pilot of several annotators planned as all of them is an ``[annotators]`` section with the
same ``pilot_*`` keys (:func:`several_scenario_toml`), whose report is the several-annotator
report with its pilot section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def _pilot_lines(values: Mapping[str, Any], shown: str, names: tuple[str, ...]) -> list[str]:
    """``pilot_file``, ``pilot_NAME`` for each of ``names`` given, and the reader's keys."""
    lines = [f"pilot_file = {shared.toml_value(shown)}"]
    for name in names:
        if values.get(name) is not None:
            lines.append(f"pilot_{name} = {shared.toml_value(str(values[name]))}")
    for name, value in shared.reader_options(values).items():
        lines.append(f"{READER_KEYS[name]} = {shared.toml_value(value)}")
    if (values.get("file_format") or "csv") != "csv":
        lines.append(f"pilot_format = {shared.toml_value(values['file_format'])}")
    return lines


def _section_lines(values: Mapping[str, Any], seed: int, skip: tuple[str, ...] = ()) -> list[str]:
    """The ``[target]``, ``[budget]`` and ``[simulation]`` sections of the page's values."""
    lines: list[str] = []
    for section, keys in SECTIONS.items():
        body = [
            f"{key} = {shared.toml_value(values[field])}"
            for field, key in keys
            if values.get(field) is not None and field not in skip
        ]
        if section == "simulation":
            body.append(f"seed = {seed}")
        if body:
            lines += ["", f"[{section}]", *body]
    return lines


def scenario_toml(values: Mapping[str, Any], shown: str, seed: int) -> str:
    """The scenario file of a pair's pilot plan (``plan SCENARIO.toml`` beside ``shown``
    gives the page's numbers)."""
    model = _pilot_lines(values, shown, ("positive", "pair"))
    lines = ['name = "pilot-from-the-app"', "", "[model]", *model]
    return "\n".join([*lines, *_section_lines(values, seed)]) + "\n"


def several_scenario_toml(
    values: Mapping[str, Any], shown: str, annotators: int | None, seed: int
) -> str:
    """The scenario file of a several-annotator pilot plan: ``[annotators]`` with the pilot's
    keys, its count and the metric (``plan SCENARIO.toml`` beside ``shown`` gives the
    page's numbers)."""
    section = _pilot_lines(values, shown, ("positive",))
    if annotators is not None:
        section.append(f"count = {annotators}")
    for name in ("metric", "level"):
        value = values.get(name)
        if value is not None and not (name == "level" and value == "nominal"):
            section.append(f"{name} = {shared.toml_value(value)}")
    lines = ['name = "pilot-from-the-app"', "", "[annotators]", *section]
    return "\n".join([*lines, *_section_lines(values, seed, skip=("metric",))]) + "\n"


def report(values: Mapping[str, Any], files: Mapping[str, bytes]) -> Download:
    """The report of the page's pilot plan (a pair's, or all of several annotators'), from
    the uploaded bytes (never a path)."""
    from planner.web.plan_fields import scenario_report

    content = files.get("pilot")
    with shared.uploaded(content, "pilot", values.get("file_format")) as path:
        annotators = pilot_several.annotator_count(path, values)
        several = pilot_several.wanted(values, annotators)
        if several:
            pilot_several.library_options(values, str(path), annotators)  # metric both: refused
    shown = shared.upload_name("pilot", values)
    seed = shared.seed_of(values)
    assert content is not None  # uploaded() refused an empty upload

    def toml(seed: int) -> str:
        if several:
            return several_scenario_toml(values, shown, annotators, seed)
        return scenario_toml(values, shown, seed)

    return scenario_report(toml, seed, {shown: content})
