"""The library as a notebook user meets it: the public API, the Python examples of
docs/python-api.md, the orientation of a ratings matrix, and CLI conventions (flags shown as
flags, --version)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import json
import os
import re
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from typer.testing import CliRunner

import planner
from planner.cli.commands import app, plan_app
from planner.data.labels import ratings_from_matrix
from planner.errors import InvalidInput
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from tests.conftest import KRIPPENDORFF_2011

ROOT = Path(__file__).parent.parent
runner = CliRunner()


def test_every_public_name_resolves_and_is_listed():
    assert len(planner.__all__) == len(set(planner.__all__))
    for name in planner.__all__:
        assert getattr(planner, name) is not None, name
    assert set(planner.__all__) <= set(dir(planner))
    with pytest.raises(AttributeError):
        planner.no_such_name  # noqa: B018


def test_invalid_input_is_a_value_error():
    assert issubclass(planner.InvalidInput, ValueError)
    with pytest.raises(ValueError, match="width must be a number in"):
        planner.PlanSettings(width=1.5)


@pytest.mark.slow
def test_documented_python_example_runs_and_prints_the_values_it_claims(tmp_path):
    text = (ROOT / "docs" / "python-api.md").read_text()
    code = text.split("<!-- python-example -->\n```python\n", 1)[1].split("```", 1)[0]
    claimed = re.findall(r"#\s*([0-9][0-9. ]*[0-9])\b", code)  # "# 1280, the exact n"
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # an empty folder: the example finds its files by name
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/python-api.md", "exec"), {})
    finally:
        os.chdir(cwd)
    printed = out.getvalue().split()
    assert len(claimed) == 3
    for value in " ".join(claimed).split():
        assert value in printed, (value, out.getvalue())


def _reliability_data() -> np.ndarray:
    """Krippendorff (2011)'s example as the krippendorff package takes it: annotators x items."""
    return np.array([KRIPPENDORFF_2011[name] for name in KRIPPENDORFF_2011], dtype=float)


def test_a_wide_matrix_must_say_what_its_rows_are():
    data = _reliability_data()  # 4 annotators x 12 items
    with pytest.raises(InvalidInput, match="rows='annotators'"):
        ratings_from_matrix(data)
    with pytest.raises(InvalidInput, match="rows must be"):
        ratings_from_matrix(data, rows="columns")


def test_krippendorff_orientation_gives_the_published_alpha():
    # Krippendorff K (2011) Computing Krippendorff's alpha-reliability: nominal alpha 0.743
    data = _reliability_data()
    ratings = ratings_from_matrix(data, rows="annotators")
    alpha = measure_agreement(ratings, rng=1).coefficients["krippendorff_alpha"].estimate
    assert round(alpha, 3) == 0.743
    assert alpha == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12
    )
    same = ratings_from_matrix(data.T, rows="items")
    assert measure_agreement(same, rng=1).coefficients["krippendorff_alpha"].estimate == alpha


@pytest.mark.parametrize("command", [["plan"], ["agree"], ["schedule"], ["report"]])
def test_flags_are_shown_as_flags_not_as_values(command):
    result = runner.invoke(app, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    for line in result.output.splitlines():
        if re.search(r"--(json|force|bootstrap|debug|version)\b", line):
            assert "<bool>" not in line, line


@pytest.mark.parametrize(("target", "args"), [(plan_app, []), (app, ["plan"]), (app, [])])
def test_version_on_every_entry_point(target, args):
    result = runner.invoke(target, [*args, "--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"planner {planner.__version__}"


def test_shipped_scenarios_by_name_from_any_folder(tmp_path, monkeypatch):
    from planner.data.scenario import load_scenario, shipped_scenarios

    names = set(shipped_scenarios())
    assert {"unsupported-claims", "unsupported-claims-enriched", "clinical-chart-review"} <= names
    monkeypatch.chdir(tmp_path)
    assert load_scenario("unsupported-claims").name == "unsupported-claims"
    assert load_scenario("unsupported-claims.toml").strata == ()
    with pytest.raises(InvalidInput, match="nor a shipped scenario"):
        load_scenario("no-such-scenario")
    (tmp_path / "unsupported-claims.toml").write_text('name = "mine"\n[model]\nprevalence = 0.1\n')
    assert load_scenario("unsupported-claims.toml").name == "mine"  # a file here wins
    result = runner.invoke(app, ["scenarios", "--json"])
    assert result.exit_code == 0
    assert {row["name"] for row in json.loads(result.stdout)["scenarios"]} == names


def test_weighted_coefficients_are_named_as_weighted():
    from planner.statistics import multirater as mr

    rng = np.random.default_rng(3)
    truth = rng.integers(1, 5, 300)
    matrix = np.clip(truth[:, None] + rng.integers(-1, 2, (300, 3)), 1, 4).astype(float)
    ratings = ratings_from_matrix(matrix, rows="items")
    ordinal = measure_agreement(ratings, MeasureSettings(level="ordinal"), rng=1).coefficients
    for name in ("fleiss_kappa", "brennan_prediger", "conger_kappa"):
        assert name not in ordinal
        assert f"{name}_quadratic" in ordinal
    weights = mr.agreement_weights(4, "quadratic", np.arange(4.0))
    dense = mr.fleiss_kappa(ratings.counts(), weights)  # the dense path, not the patterns
    assert ordinal["fleiss_kappa_quadratic"].estimate == pytest.approx(float(dense), abs=1e-12)
    nominal = measure_agreement(ratings, rng=1).coefficients
    assert {"fleiss_kappa", "brennan_prediger", "conger_kappa"} <= set(nominal)


def test_weighted_names_in_the_printed_table(tmp_path):
    path = tmp_path / "ordinal.csv"
    rows = ["item,alice,bob,carol"] + [f"{i},{i % 4},{(i + i // 7) % 4},{i % 4}" for i in range(60)]
    path.write_text("\n".join(rows) + "\n")
    args = ["agree", str(path), "--layout", "wide", "--level", "ordinal", "--seed", "1"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    assert "Fleiss' kappa, quadratic weights" in result.stdout
    assert "Brennan-Prediger, quadratic weights" in result.stdout


def _public_objects():
    return [(name, getattr(planner, name)) for name in planner.__all__ if name != "__version__"]


@pytest.mark.parametrize(("name", "obj"), _public_objects())
def test_every_public_name_is_documented_and_typed(name, obj):
    import inspect

    assert inspect.getdoc(obj), f"{name} has no docstring"
    assert getattr(planner, name) is obj  # the lazy import gives the module's own object
    if inspect.isclass(obj):
        return
    assert inspect.isfunction(obj), name
    # annotations as written (some name types imported only for type checking)
    signature = inspect.signature(obj)
    untyped = [p.name for p in signature.parameters.values() if p.annotation is p.empty]
    assert untyped == [], f"{name}: parameters without a type: {untyped}"
    assert signature.return_annotation is not signature.empty, f"{name} has no return type"


def test_the_notebook_functions_of_the_new_features_are_public():
    # multi-rater sizing and planning from a pilot
    expected = {
        "raters_model",
        "make_plan",  # one plan for a pair and for several annotators
        "find_sample_size",
        "SearchSettings",
        "read_pilot",
        "pilot_from_ratings",
        "items_under_uncertainty",
        "fixed_size_precision",
        "assurance_curve",
        "pair_from_agreement",
    }
    assert expected <= set(planner.__all__)
    for name in expected:
        module = importlib.import_module(planner._PUBLIC[name])
        assert getattr(planner, name) is getattr(module, name)


@pytest.mark.slow
def test_documented_example_of_the_newer_capabilities_prints_what_it_claims(tmp_path):
    """docs/python-api.md, second example: every number in its comments is printed."""
    text = (ROOT / "docs" / "python-api.md").read_text()
    code = text.split("<!-- python-example-2 -->\n```python\n", 1)[1].split("```", 1)[0]
    claimed = re.findall(r"#\s*([0-9][0-9. ]*[0-9])\s*$", code, re.M)
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # an empty folder: the example finds its files by name
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/python-api.md", "exec"), {})
    finally:
        os.chdir(cwd)
    printed = out.getvalue().replace("[", " ").replace("]", " ").split()
    assert len(claimed) == 9
    for value in " ".join(claimed).split():
        assert value in printed, (value, out.getvalue())


# ------------------------------------------------ errors in parameter names, flags at the CLI


ERRORS = ("InvalidInput", "PlannerError", "TargetUnreachable", "SearchLimit", "OutputError")


def _raised_strings(path: Path):
    """Every string constant inside a ``raise`` statement of ``path``, or in a call that
    builds a planner error anywhere (a helper returning the error), f-string parts too."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        built = isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERRORS
        if built or (isinstance(node, ast.Raise) and node.exc is not None):
            for sub in ast.walk(node if built else node.exc):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    yield sub.lineno, sub.value


@pytest.mark.slow
def test_no_library_error_message_names_a_flag():
    # only planner/cli/ speaks --flags; the library names its parameters and lists the
    # ones it names inside the sentence in InvalidInput.parameters
    flag = re.compile(r"(?<![\w-])--[a-z]")
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]}"
        for path in sorted((ROOT / "planner").rglob("*.py"))
        if "cli" not in path.relative_to(ROOT).parts
        for line, text in _raised_strings(path)
        if flag.search(text)
    ]
    assert found == []


def test_invalid_input_carries_parameter_value_and_rule():
    with pytest.raises(InvalidInput) as info:
        planner.PlanSettings(width=0.08, seconds_per_item=-1.0)
    e = info.value
    assert (e.parameter, e.value, e.rule) == ("seconds_per_item", -1.0, "a number in (0, 1e6]")


def test_library_errors_name_the_parameter():
    ratings = ratings_from_matrix(np.array([[0, 1, 2, 1], [0, 1, 2, 2]]), rows="annotators")
    with pytest.raises(InvalidInput) as info:
        measure_agreement(ratings, MeasureSettings(positive="zzz"))
    assert info.value.parameter == "positive" and info.value.value == "zzz"
    assert str(info.value).startswith("positive 'zzz' is not a label")
    with pytest.raises(InvalidInput) as info:  # three categories: score is binary only
        measure_agreement(ratings, MeasureSettings(kappa_method="score"))
    assert info.value.parameter == "kappa_method"
    assert str(info.value).startswith("kappa_method score needs binary labels")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["agree", "--counts", "5,3,2,10", "--positive", "zzz"], "error: --positive 'zzz' is not"),
        (["plan", "--kappa", "0.5"], "error: --kappa needs --prevalence"),
        (["plan", "--prevalence", "0.1", "--union-rate", "0.2"],
         "error: give exactly one of --prevalence (annotator model), --union-rate with --psa, "
         "--pilot-counts or --pilot (or a scenario file); got --prevalence, --union-rate with "
         "--psa"),
        (["plan", "--prevalence", "0.1", "--psa", "0.6", "--error-rate", "0.05"],
         "error: --psa with --prevalence solves for the error rate: drop --error-rate or --psa"),
        (["plan", "--prevalence", "0.1", "--budget", "100"],
         "error: --budget needs --hourly-rate"),
    ],
)  # fmt: skip
def test_the_cli_names_the_flags_of_library_parameters(args, line):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(line), result.stderr


def test_a_parameter_without_a_flag_keeps_its_library_name():
    from planner.cli.common import flag_for, flag_message

    assert flag_for("floor_items") is None  # a scenario key ([design] floor_items)
    assert flag_for("replicates") == "--replicates" and flag_for("pilot_file") == "--pilot"
    e = InvalidInput("floor_items must be small, unlike replicates", parameter="floor_items",
                     parameters=("replicates",))  # fmt: skip
    assert flag_message(e) == "floor_items must be small, unlike --replicates"


def test_every_type_a_public_function_returns_is_public_too():
    import inspect

    # the return annotations as written; names from outside planner left aside
    outside = {"None", "Any", "Path", "Generator", "NDArray", "Iterator", "Callable", "Mapping"}
    missing = {}
    for name, obj in _public_objects():
        if inspect.isfunction(obj):
            returned = str(inspect.signature(obj).return_annotation)
            for kind in set(re.findall(r"\b[A-Z][A-Za-z]+\b", returned)) - outside:
                if kind not in planner.__all__:
                    missing.setdefault(kind, []).append(name)
    assert missing == {}


@functools.cache
def _imports_of(module_name: str) -> dict[str, str]:
    """Name -> module of every ``from X import name`` in a module's source (those under
    ``TYPE_CHECKING`` too), parsed once per module."""
    import ast
    import inspect

    return {
        alias.asname or alias.name: node.module
        for node in ast.walk(ast.parse(inspect.getsource(sys.modules[module_name])))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def _named_classes(annotation: str, module) -> list[type]:
    """The planner classes an annotation (as written) names, resolved in ``module``: its
    namespace, else its imports (:func:`_imports_of`)."""
    import inspect

    imported = _imports_of(module.__name__)
    found = []
    for word in set(re.findall(r"\b[A-Z][A-Za-z]+\b", annotation)):
        obj = getattr(module, word, None)
        if obj is None and imported.get(word, "").startswith("planner"):
            obj = getattr(importlib.import_module(imported[word]), word, None)
        if inspect.isclass(obj) and obj.__module__.startswith("planner."):
            found.append(obj)
    return found


def _annotations_of(obj) -> list[str]:
    """What ``obj`` hands back: a function's return type; a class's fields and the return
    types of its public methods and properties."""
    import dataclasses
    import inspect

    if inspect.isfunction(obj):
        return [str(inspect.signature(obj).return_annotation)]
    texts = [str(f.type) for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
    for name, member in vars(obj).items():
        getter = member.fget if isinstance(member, property) else member
        if not name.startswith("_") and inspect.isfunction(getter):
            texts.append(str(inspect.signature(getter).return_annotation))
    return texts


def test_every_type_reachable_from_a_public_result_is_public_too():
    # Plan.results holds SampleSizeResult, Precision.metrics MetricPrecision, ...: a user who
    # meets a value can import its type; followed through fields, methods and properties
    import sys

    todo = [obj for _, obj in _public_objects()]
    seen: set[type] = set()
    missing: dict[str, set[str]] = {}
    while todo:
        obj = todo.pop()
        for text in _annotations_of(obj):
            for kind in _named_classes(text, sys.modules[obj.__module__]):
                if kind.__name__ not in planner.__all__:
                    missing.setdefault(kind.__name__, set()).add(obj.__name__)
                if kind not in seen:
                    seen.add(kind)
                    todo.append(kind)
    assert missing == {}


def test_the_reachability_check_follows_fields_into_unexported_types():
    from planner.sizing import precision

    assert planner.MetricPrecision in _named_classes("dict[str, MetricPrecision]", precision)
    assert "dict[str, MetricPrecision]" in _annotations_of(planner.Precision)
