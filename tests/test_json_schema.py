"""Every command's ``--json`` document validates against planner-output.schema.json.

Each variant runs through Typer's CliRunner with small inputs; the document must validate, carry
the envelope, and every object with ``lower``/``upper`` anywhere in it must be a full interval
(bounds, level, method and the quantity it covers). Where the schema lists an object's keys
(``properties`` or ``required``), every key the document writes there must be among them, so
that the schema says what each key means.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.jsonout import (
    COMMANDS,
    SCHEMA_VERSION,
    coefficient_json,
    interval_json,
    json_ready,
    load_schema,
    plan_document,
)

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
WIDE = [str(EXAMPLES / "wide.csv"), "--layout", "wide", "--annotators", "alice,bob,carol"]
VECTORS, PATTERNS = str(EXAMPLES / "vector-counts.csv"), str(EXAMPLES / "category-counts.csv")
ALT_PLAN = ["alt-test", "--plan", "--humans", "3", "--categories", "2", "--human-error", "0.3"]
ALT_PLAN += ["--llm-error", "0.2", "--epsilon", "0.1", "--replicates", "200"]
FAST = ["--replicates", "200"]
STRATIFIED = [str(EXAMPLES / "stratified-labels.csv"), "--positive", "unsupported"]
STRATIFIED += [
    "--stratum-col",
    "stratum",
    "--population-shares-from",
    "unsupported-claims-enriched",
]

#: (document's command, argv) for every kind of --json document
VARIANTS: dict[str, tuple[str, list[str]]] = {
    "plan": ("plan", ["plan", "--prevalence", "0.08", "--width", "0.1", "--metric", "both", *FAST]),
    "plan-stratified": (
        "plan-comparison",
        ["plan", str(ROOT / "scenarios" / "unsupported-claims-enriched.toml"), *FAST],
    ),
    "plan-scenario": ("plan", ["plan", str(ROOT / "scenarios" / "unsupported-claims.toml"), *FAST]),
    "plan-alt-test": ("plan", ["plan", str(ROOT / "scenarios" / "llm-judge.toml"), *FAST]),
    "plan-stratified-several": (
        "plan-comparison",
        [
            "plan",
            str(ROOT / "scenarios" / "unsupported-claims-three-annotators-strata.toml"),
            *FAST,
        ],
    ),
    "plan-pilot": (
        "plan",
        ["plan", "--pilot", str(EXAMPLES / "labels.csv"), "--positive", "unsupported", *FAST],
    ),
    "plan-pilot-counts": ("plan", ["plan", "--pilot-counts", "6,21,14,459", "--width", "0.1"]),
    "plan-items": ("plan", ["plan", "--prevalence", "0.08", "--items", "500", *FAST]),
    "plan-hours": ("plan", ["plan", "--prevalence", "0.08", "--hours", "20", *FAST]),
    "plan-curve": ("plan", ["plan", "--prevalence", "0.08", "--width", "0.1", "--curve", *FAST]),
    "plan-annotators": (
        "plan-raters",
        ["plan", "--annotators", "3", "--prevalence", "0.1", "--width", "0.1", *FAST],
    ),
    "plan-annotators-items-curve": (
        "plan-raters",
        [
            "plan",
            "--annotators",
            "3",
            "--prevalence",
            "0.1",
            "--width",
            "0.1",
            "--items",
            "500",
            "--curve",
            *FAST,
        ],
    ),  # fmt: skip
    "plan-labelled": (
        "plan-labelled",
        ["plan", "--labelled", str(EXAMPLES / "labelled-600.csv"), "--metric", "both"]
        + ["--planned-items", "1280", "--batch-size", "200", *FAST],
    ),
    "plan-labelled-hours": (
        "plan-labelled",
        ["plan", "--labelled", str(EXAMPLES / "labelled-600.csv"), "--hours", "20", *FAST],
    ),
    "plan-labelled-raters-hours": (
        "plan-labelled",
        ["plan", "--labelled", *WIDE[:3], "--annotator-cols", "alice,bob,carol"]
        + ["--positive", "unsupported", "--width", "0.1", "--hours", "20", *FAST],
    ),
    "plan-labelled-strata-hours": (
        "plan-labelled-strata",
        ["plan", "--labelled", *STRATIFIED[:3], "--stratum-col", "stratum", "--scenario"]
        + ["unsupported-claims-enriched", "--hours", "20", *FAST],
    ),
    "agree-counts": ("agree", ["agree", "--counts", "6,21,14,459"]),
    "agree-file": ("agree", ["agree", *WIDE, "--by", "week"]),
    "agree-vector-counts": ("agree", ["agree", "--vector-counts", VECTORS, "--by", "week"]),
    "agree-category-counts": ("agree", ["agree", "--category-counts", PATTERNS]),
    "agree-stratified": ("agree", ["agree", *STRATIFIED]),
    "agree-ordinal": ("agree", ["agree", "--counts", "6,21,14,459", "--level", "ordinal"]),
    "schedule": ("schedule", ["schedule", "--items", "300", "--runs", "3"]),
    "fit": ("fit", ["fit", *WIDE, "--n-boot", "100"]),
    "fit-no-bootstrap": ("fit", ["fit", *WIDE, "--n-boot", "0"]),
    "compat-kappasize": (
        "compat-kappasize",
        ["compat", "kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL", "0.3"]
        + ["--kappaU", "0.5", "--props", "0.3", *FAST],
    ),
    "compat-irr": (
        "compat-irr",
        ["compat", "irr", "N.cohen.kappa", "--rate1", "0.3", "--rate2", "0.3", "--k1", "0.6"]
        + ["--k0", "0.4", *FAST],
    ),
    "alt-test": ("alt-test", ["alt-test", *WIDE, "--llm", "carol", "--epsilon", "0.1"]),
    "alt-test-plan": ("alt-test-plan", ALT_PLAN),
    "alt-test-plan-table": ("alt-test-plan", [*ALT_PLAN, "--table"]),
    "alt-test-plan-items": ("alt-test-plan", [*ALT_PLAN, "--items", "50"]),
    "scenarios": ("scenarios", ["scenarios"]),
    "examples": ("examples", ["examples"]),
}

#: variants that draw nothing at random: their seed is null
NOTHING_RANDOM = ("scenarios", "examples", "alt-test", "fit-no-bootstrap")

runner = CliRunner()


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema())


def _document(argv: list[str]) -> dict[str, Any]:
    seed = [] if argv[0] in ("scenarios", "examples") else ["--seed", "1"]
    result = runner.invoke(app, [*argv, "--json", *seed])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _objects(value: Any, path: str = "$"):
    """Every object in ``value`` with its JSON path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _objects(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _objects(item, f"{path}[{i}]")


def test_the_schema_file_is_a_valid_draft_2020_12_schema():
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["schema_version"] == SCHEMA_VERSION == "2"
    assert schema["properties"]["command"]["enum"] == list(COMMANDS)
    for name in ("interval", "coefficient", "budget", "design", "decision"):
        assert name in schema["$defs"]


def test_the_schema_is_shipped_as_package_data():
    from importlib import resources

    text = (ROOT / "pyproject.toml").read_text()
    assert '"planner.output" = ["planner-output.schema.json"]' in text
    assert resources.files("planner.output").joinpath("planner-output.schema.json").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_command_json_validates_against_the_schema(variant, validator):
    command, argv = VARIANTS[variant]
    doc = _document(argv)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []
    assert doc["schema_version"] == "2" and doc["command"] == command
    assert list(doc)[:5] == ["schema_version", "command", "planner_version", "seed", "notes"]
    assert doc["seed"] == (None if variant in NOTHING_RANDOM else 1)
    for path, obj in _objects(doc):
        if "lower" in obj or "upper" in obj:
            assert set(obj) == {"lower", "upper", "level", "method", "covers"}, path
            assert obj["covers"] and 0 < obj["level"] < 1, path
        assert not {"ci_low", "ci_high", "median_low", "median_high"} & set(obj), path


def _pointed(root: dict[str, Any], ref: str) -> Any:
    """The subschema a local ``$ref`` such as ``#/$defs/plan/properties/pilot`` points at."""
    node: Any = root
    for part in ref.removeprefix("#").split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _if_holds(condition: dict[str, Any], doc: Any) -> bool:
    """Whether ``doc`` passes an ``if`` that tests its properties by ``const`` (as every ``if`` in
    the schema does); an ``if`` testing anything else is not followed."""
    tests = condition.get("properties", {})
    if set(condition) != {"properties"} or not all(set(t) == {"const"} for t in tests.values()):
        return False
    return isinstance(doc, dict) and all(
        key in doc and doc[key] == test["const"] for key, test in tests.items()
    )


def _branches(root: dict[str, Any], schema: Any, doc: Any) -> list[dict[str, Any]]:
    """``schema`` and every subschema that applies to ``doc`` alongside it: what its ``$ref``
    points at, its ``allOf``/``anyOf``/``oneOf`` branches and the ``then`` of an ``if`` ``doc``
    passes, followed to any depth."""
    if not isinstance(schema, dict):
        return []
    found = [schema]
    if "$ref" in schema:
        found += _branches(root, _pointed(root, schema["$ref"]), doc)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(keyword, []):
            found += _branches(root, branch, doc)
    if "then" in schema and _if_holds(schema.get("if", {}), doc):
        found += _branches(root, schema["then"], doc)
    return found


def _is_map(branches: list[dict[str, Any]]) -> bool:
    """Whether an object's keys are data, not names: some branch has ``patternProperties`` or a
    schema for ``additionalProperties``."""
    return any(
        b.get("patternProperties") or isinstance(b.get("additionalProperties"), dict)
        for b in branches
    )


def _named(branches: list[dict[str, Any]]) -> set[str] | None:
    """The keys the branches name in ``properties`` or ``required``; None when no branch declares
    either (the schema then says nothing of the object's keys)."""
    if not any("properties" in b or "required" in b for b in branches):
        return None
    return {key for b in branches for key in [*b.get("properties", {}), *b.get("required", [])]}


def _value_schemas(branches: list[dict[str, Any]], key: str) -> list[Any]:
    """The subschemas that govern the value under ``key``: its ``properties`` entry, the
    ``patternProperties`` it matches and, failing both in a branch, that branch's
    ``additionalProperties``."""
    found = []
    for branch in branches:
        own = [branch["properties"][key]] if key in branch.get("properties", {}) else []
        patterns = branch.get("patternProperties", {})
        own += [sub for pattern, sub in patterns.items() if re.search(pattern, key)]
        if not own and isinstance(branch.get("additionalProperties"), dict):
            own = [branch["additionalProperties"]]
        found += own
    return found


def _unnamed_keys(root: dict[str, Any], schema: Any, doc: Any, path: str = "$") -> Iterator[str]:
    """The path of every key in ``doc`` that sits in an object whose schema declares
    ``properties`` or ``required`` but names it in neither (maps are exempt, their values are
    walked)."""
    branches = _branches(root, schema, doc)
    if isinstance(doc, dict):
        named = _named(branches)
        if named is not None and not _is_map(branches):
            yield from (f"{path}.{key}" for key in doc if key not in named)
        for key, value in doc.items():
            for sub in _value_schemas(branches, key):
                yield from _unnamed_keys(root, sub, value, f"{path}.{key}")
    elif isinstance(doc, list):
        for sub in [b["items"] for b in branches if isinstance(b.get("items"), dict)]:
            for i, item in enumerate(doc):
                yield from _unnamed_keys(root, sub, item, f"{path}[{i}]")


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_key_a_document_writes_is_named_in_the_schema(variant):
    schema = load_schema()
    doc = _document(VARIANTS[variant][1])
    unnamed = sorted(set(_unnamed_keys(schema, schema, doc)))
    assert unnamed == [], f"keys the schema does not name: {', '.join(unnamed)}"


@pytest.mark.slow
def test_the_schema_rejects_an_interval_without_what_it_covers(validator):
    doc = _document(VARIANTS["agree-counts"][1])
    del doc["coefficients"]["psa"]["interval"]["covers"]
    assert not validator.is_valid(doc)
    doc = _document(VARIANTS["plan"][1])
    doc["decision"] = doc.pop("recommendation")  # the old name: decision means agree's verdict
    assert not validator.is_valid(doc)


@pytest.mark.slow
def test_agree_intervals_and_decision_keep_their_numbers():
    # Fleiss-Cohen-Everitt / Wilson numbers of the 6/21/14/459 table (tests/test_measure.py)
    doc = _document(VARIANTS["agree-counts"][1])
    psa = doc["coefficients"]["psa"]
    assert psa["label"] == "PSA (positive specific agreement)" and psa["n_items"] == 41
    low, high = psa["interval"]["lower"], psa["interval"]["upper"]
    assert (low, high) == pytest.approx((0.1288, 0.4429), abs=1e-4)
    assert psa["interval"]["covers"] == "PSA (positive specific agreement), for annotators A and B"
    decision = doc["decision"]
    assert decision["metric"] == "psa" and decision["verdict"] == "inconclusive"
    assert decision["interval"]["lower"] == low and decision["interval"]["upper"] == high
    assert "0.65" in decision["rule"] and "0.4" in decision["rule"]


def test_the_recommendation_is_the_deciding_metrics_budget():
    doc = _document(VARIANTS["plan"][1])
    deciding = max(doc["results"].values(), key=lambda r: r["items"])
    recommendation = doc["recommendation"]
    assert recommendation["items"] == deciding["items"]
    assert recommendation["budget"] == deciding["budget"]
    budget = recommendation["budget"]
    assert budget["labels"] == 2 * budget["items"]
    assert budget["person_hours"] == pytest.approx(
        budget["labelling_hours"] + budget["adjudication_hours"]
    )


@pytest.mark.slow
def test_each_design_of_a_comparison_carries_its_budget():
    doc = _document(VARIANTS["plan-stratified"][1])
    for name, design in doc["designs"].items():
        assert design["design"] == name
        assert design["budget"]["items"] == design["items"]
        assert (
            design["items"] == sum(design["items_per_stratum"]) + design["prevalence_slice_items"]
        )
    uniform = doc["designs"]["uniform"]["budget"]["person_hours"]
    enriched = doc["designs"]["enriched"]
    assert enriched["hours_vs_uniform"] == pytest.approx(
        enriched["budget"]["person_hours"] / uniform
    )


def test_the_library_plan_document_is_the_cli_document():
    from planner import make_plan, pair_from_annotators
    from planner.sizing.plan import PlanSettings

    plan = make_plan(pair_from_annotators(0.08), PlanSettings(width=0.1, replicates=200), rng=1)
    doc = plan_document(plan)
    assert Draft202012Validator(load_schema()).is_valid(doc)
    assert doc["command"] == "plan" and doc["seed"] == plan.seed


def _contains(whole: Any, part: Any, path: str = "$") -> None:
    """``part`` (a docs page's excerpt) is ``whole`` with keys left out and lists cut by "..."."""
    if isinstance(part, dict):
        assert isinstance(whole, dict), path
        for key, value in part.items():
            assert key in whole, f"{path}.{key}"
            _contains(whole[key], value, f"{path}.{key}")
    elif isinstance(part, list):
        shown = [p for p in part if p != "..."]
        assert len(shown) <= len(whole), path
        for i, value in enumerate(shown):
            _contains(whole[i], value, f"{path}[{i}]")
    else:
        assert whole == part, path


@pytest.mark.slow
def test_the_documented_plan_excerpt_is_the_command_output():
    readme = (ROOT / "docs" / "plan.md").read_text()  # the page on plan's --json
    command = "plan --pilot-counts 6,21,14,459 --width 0.08 --json --seed 1"
    after = readme.index(f"Excerpt of `{command}`:")
    block = readme[readme.index("```json\n", after) + 8 : readme.index("```\n", after + 10)]
    result = runner.invoke(app, command.split())
    assert result.exit_code == 0, result.output
    _contains(json.loads(result.stdout), json.loads(block))


@pytest.mark.slow
@given(
    bounds=st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=2, max_size=2),
    level=st.floats(min_value=0.5, max_value=0.999),
)
def test_any_interval_and_coefficient_fit_the_shared_shapes(bounds, level):
    schema = load_schema()
    interval = json_ready(
        interval_json(*bounds, level=level, method="Wilson", covers="PSA of A and B")
    )
    for name, value in (("lower", bounds[0]), ("upper", bounds[1])):
        assert interval[name] == (value if math.isfinite(value) else None)
    coefficient = coefficient_json("psa", bounds[0], interval, se=float("nan"), n_items=3)
    assert coefficient["se"] is None and coefficient["label"].startswith("PSA")
    json.dumps(coefficient, allow_nan=False)  # NaN never reaches the document
    for kind, obj in (("interval", interval), ("coefficient", coefficient)):
        one = {"$defs": schema["$defs"], "$ref": f"#/$defs/{kind}"}
        assert Draft202012Validator(one).is_valid(obj)


@pytest.mark.slow
def test_a_reports_plan_and_schedule_files_validate(tmp_path, validator):
    name = "unsupported-claims-enriched"
    result = runner.invoke(app, ["report", name, "--out", str(tmp_path), "--seed", "1"])
    assert result.exit_code == 0, result.output
    for file, command in (("plan.json", "plan-comparison"), ("schedule.json", "schedule")):
        doc = json.loads((tmp_path / name / file).read_text())
        assert [e.message for e in validator.iter_errors(doc)] == []
        assert doc["command"] == command and doc["seed"] == 1


@pytest.mark.slow
def test_an_unbounded_monte_carlo_se_under_a_pilot_is_valid_as_null(validator):
    # a flat hybrid assurance around the answer gives an infinite SE, written as null
    doc = _document(
        ["plan", "--pilot-counts", "6,21,14,459", "--width", "0.1", "--metric", "kappa"]
    )
    doc["uncertainty"]["items_mc_se"] = None
    assert [e.message for e in validator.iter_errors(doc)] == []


@pytest.mark.parametrize("annotators", ["2", "3"])
def test_the_items_a_fixed_size_was_given_stay_a_whole_number(annotators):
    argv = ["plan", "--annotators", annotators, "--prevalence", "0.1", "--items", "500", *FAST]
    given = _document(argv)["precision"]["given"]
    assert given == {"items": 500} and isinstance(given["items"], int)
