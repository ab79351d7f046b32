"""The Designs page: an editable strata table -> uniform, enriched and weighted designs.

The page writes its fields as a scenario file (``[[strata]]`` from the table, the target,
budget, design and simulation sections from the other fields), validates it with the
library's scenario checker and sizes the three designs with
:func:`planner.sizing.compare.compare_designs` over the settings
:func:`planner.application.plan_options.resolve` merges: the path ``planner plan designs.toml``
takes. The headline is the weighted design (the one ``planner schedule`` carries out by
default); the table has all three.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput
from planner.web.page import Field, Page, PageResult, Progress
from planner.web.pages import shared
from planner.web.reproduce import command_line

#: the name of the scenario file the page shows (and the CLI command reads)
SCENARIO_FILE = "designs.toml"

#: the strata of the shipped scenario ``unsupported-claims-enriched``
DEFAULT_STRATA = """name,share,prevalence,error_rate,seconds_per_item,enriched_share
flagged by an automated check,0.04,0.40,0.08,100,0.35
historically risky query types,0.10,0.15,0.05,,0.25
user complaints,0.01,0.50,0.10,120,0.15
rest of traffic,0.85,0.04,0.02,,0.25
"""

#: the strata columns that hold one number or a pair (``0.03;0.05``: annotator A, B)
PAIR_COLUMNS = ("error_rate", "bias")
TEXT_COLUMNS = ("name",)

FIELDS = (
    Field(
        "strata",
        "Strata (CSV)",
        "table",
        DEFAULT_STRATA,
        "One row per stratum: name, share (or size), prevalence and optionally error_rate, "
        "bias (one value, or 'A;B' per annotator), ambiguity, seconds_per_item, "
        "enriched_share, as a scenario's [[strata]] take them.",
    ),
    Field("error_rate", "Error rate (strata without their own)", "text", "0.03"),
    Field("bias", "Bias (strata without their own)", "text", None),
    Field("metric", "Metric", "choice", "psa", choices=("psa", "kappa")),
    Field("width", "Target half-width", "number", "0.08"),
    Field("confidence", "Confidence level", "number", "0.95"),
    Field("assurance", "Assurance", "number", "0.8"),
    Field("annotators_per_item", "Annotators per item", "integer", "2"),
    Field("seconds_per_item", "Seconds per item", "number", "90"),
    Field("adjudication_seconds", "Seconds per adjudicated item", "number", "120"),
    Field("hourly_rate", "Hourly rate", "number", "40"),
    Field("floor_items", "Least items per stratum (weighted design)", "integer", "30"),
    Field("prevalence_width", "Prevalence half-width (enriched design's slice)", "number", "0.02"),
    Field("replicates", "Simulated studies per size", "integer", "4000"),
    Field("seed", "Seed", "integer", "7"),
)
NAMES = tuple(f.name for f in FIELDS)

# scenario section -> the page's fields it holds (scenario key = field name but these)
SECTIONS = {
    "model": ("error_rate", "bias"),
    "target": ("metric", "width", "confidence", "assurance"),
    "budget": ("annotators_per_item", "seconds_per_item", "adjudication_seconds", "hourly_rate"),
    "design": ("floor_items", "prevalence_width"),
    "simulation": ("replicates", "seed"),
}
KEY_OF = {"confidence_level": "confidence", "replicates": "replicates"}


def _cell(column: str, text: str, row: int) -> Any:
    """One strata cell as the scenario takes it: text, a number, or a pair of numbers."""
    if column in TEXT_COLUMNS:
        return text
    try:
        if column in PAIR_COLUMNS and re.search("[;,]", text):
            return [float(part) for part in re.split("[;,]", text)]
        return float(text)
    except ValueError:
        raise InvalidInput(
            f"strata row {row}: {column} must be a number, got {text!r}",
            parameter="strata",
            value=text,
        ) from None


def strata_tables(text: str | None) -> list[dict[str, Any]]:
    """The strata table's CSV as ``[[strata]]`` tables (empty cells left out)."""
    tables = []
    for i, row in enumerate(shared.csv_rows(text, "strata"), start=1):
        tables.append({k: _cell(k, v, i) for k, v in row.items() if v != ""})
    return tables


def _section_values(section: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The given values of one scenario section (the model's pairs as one number or two)."""
    out: dict[str, Any] = {}
    for key in SECTIONS[section]:
        value = shared.numbers(values.get(key), key) if section == "model" else values.get(key)
        if isinstance(value, tuple):
            value = value[0] if len(value) == 1 else list(value)
        if value is not None:
            out[key] = value
    return out


def scenario_toml(values: Mapping[str, Any]) -> str:
    """The scenario file of the page's values (the ``toml`` a result shows)."""
    lines = ['name = "designs"', 'description = "Strata designs from the planning app."', ""]
    for section in SECTIONS:
        given = _section_values(section, values)
        if given:
            lines += [
                f"[{section}]",
                *(f"{k} = {shared.toml_value(v)}" for k, v in given.items()),
                "",
            ]
    for stratum in strata_tables(values.get("strata")):
        lines += ["[[strata]]", *(f"{k} = {shared.toml_value(v)}" for k, v in stratum.items()), ""]
    return "\n".join(lines)


def _scenario(toml: str) -> Any:
    from planner.data.scenario import scenario_from_dict

    try:
        scenario = scenario_from_dict(tomllib.loads(toml), SCENARIO_FILE)
    except InvalidInput as exc:
        raise shared.scenario_field(exc, {"strata": "strata"}, NAMES, "strata") from None
    if len(scenario.strata) < 2:
        raise InvalidInput(
            "strata: give at least two strata to compare designs", parameter="strata"
        )
    return scenario


def compare(values: Mapping[str, Any], progress: Progress | None = None) -> tuple[Any, str]:
    """The design comparison of the page's values, and the scenario file it was made from."""
    from planner.application.plan_options import resolve, settings_from
    from planner.sizing.compare import compare_designs

    toml = scenario_toml({**values, "seed": shared.seed_of(values)})
    scenario = _scenario(toml)
    with shared.field_errors(NAMES, "strata", KEY_OF):
        merged = resolve(scenario, {})
        comparison = compare_designs(
            scenario,
            settings_from(merged),
            rng=merged.seed,
            floor_items=merged.floor_items,
            prevalence_width=merged.prevalence_width,
            progress=progress,
        )
    return comparison, toml


def _python(toml: str) -> str:
    return shared.python_call(
        [
            "import tomllib",
            "from planner import compare_designs, scenario_from_dict",
            "from planner.application.plan_options import resolve, settings_from",
            "",
            f"TOML = {toml!r}",
            f"scenario = scenario_from_dict(tomllib.loads(TOML), {SCENARIO_FILE!r})",
            "merged = resolve(scenario, {})  # the scenario's values over the defaults",
            "comparison = compare_designs(",
            "    scenario, settings_from(merged), rng=merged.seed,",
            "    floor_items=merged.floor_items, prevalence_width=merged.prevalence_width,",
            ")",
            "for name, design in comparison.designs.items():",
            "    print(name, design.items, comparison.costs[name].person_hours)",
        ]
    )


def compute(
    values: Mapping[str, Any], files: Mapping[str, bytes], progress: Progress | None
) -> PageResult:
    """The three designs of the strata table, the weighted one as the headline."""
    from planner.output.jsonout import comparison_document
    from planner.output.plots import hours_by_design
    from planner.output.report_figures import comparison_hours

    comparison, toml = compare(values, progress)
    weighted = comparison.designs["weighted"]
    cost = comparison.costs["weighted"]
    headline = {
        "items": shared.whole(weighted.items),
        "union-positives": shared.whole(weighted.union_positives),
        "person-hours": shared.hours(cost.person_hours),
        "cost": shared.money(cost.cost),
        "assurance": shared.share(weighted.assurance),
    }
    rows = []
    for name, design in comparison.designs.items():
        headline[f"items-{name}"] = shared.whole(design.items)
        headline[f"person-hours-{name}"] = shared.hours(comparison.costs[name].person_hours)
        rows.append(
            (
                name,
                shared.whole(design.items),
                shared.whole(design.union_positives),
                shared.hours(comparison.costs[name].person_hours),
                shared.money(comparison.costs[name].cost),
                f"{comparison.hours_ratio(name):.2f}",
                shared.share(design.half_width_median, 3),
            )
        )
    designs = shared.table(
        "Designs for the same target",
        (
            "design",
            "items",
            "union positives",
            "person-hours",
            "cost",
            "hours vs uniform",
            "median half-width",
        ),
        rows,
        "designs-table",
    )
    per_stratum = shared.table(
        "Items per stratum",
        ("stratum", *comparison.designs),
        [
            (
                s["name"],
                *(shared.whole(d.items_per_stratum[i]) for d in comparison.designs.values()),
            )
            for i, s in enumerate(comparison.strata)
        ],
        "strata-table",
    )
    return PageResult(
        headline=headline,
        command=command_line(["plan"], {}, positional=[SCENARIO_FILE]),
        python=_python(toml),
        toml=toml,
        tables=(designs, per_stratum),
        figures=(
            shared.figure(
                "hours-by-design",
                "Person-hours of the uniform, enriched and weighted designs for the same target",
                hours_by_design,
                comparison_hours(comparison),
            ),
        ),
        notes=tuple(comparison.notes),
        document=comparison_document(comparison),
    )


PAGE = Page(
    slug="designs",
    title="Designs",
    summary="An editable strata table: uniform, enriched and weighted designs with their items "
    "and hours, as plan sizes a stratified scenario.",
    fields=FIELDS,
    compute=compute,
)
