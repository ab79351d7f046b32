"""House rules: functions short enough to read at once (the checker), one keyword-only rng, one
place for person-hours, progress callbacks."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.cli.common import progress_bar
from planner.data.reading import read_labels
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.measuring.diagnostics import diagnose
from planner.operations.budget import labelling_budget, stratified_budget
from planner.operations.workload import Operation, analytic_person_hours, simulate_schedule
from planner.sizing.compare import compare_designs
from planner.sizing.model import pair_from_annotators
from planner.sizing.pair_strata import stratum_models
from planner.sizing.plan import PlanSettings
from planner.sizing.search import SearchSettings, find_sample_size
from planner.validation import seed_from

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from long_functions import long_functions  # noqa: E402

#: the files the splits work owns; the lead extends the list as other areas are split
CHECKED_FILES = [
    "planner/sizing/compare.py",
    "planner/sizing/search.py",
    "planner/sizing/union_positives.py",
    "planner/sizing/design.py",
    "planner/sizing/studies.py",
    "planner/sizing/exact.py",
    "planner/measuring/diagnostics.py",
    "planner/measuring/decision.py",
    "planner/measuring/small_counts.py",
    "planner/output/render.py",
    "planner/output/jsonout.py",
    "planner/operations/workload.py",
    "planner/operations/budget.py",
    "planner/cli/schedule.py",
    "planner/cli/common.py",
]
ENRICHED = ROOT / "scenarios" / "unsupported-claims-enriched.toml"
runner = CliRunner()


# --------------------------------------------------------------------------- the checker


def _function(name: str, body_lines: int, signature: str = "") -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return f"def {name}({signature}):\n{body}"


def test_checker_finds_a_planted_long_function_and_passes_a_short_one(tmp_path):
    source = tmp_path / "planted.py"
    source.write_text(_function("short", 79) + "\n\n" + _function("long", 80))
    found = long_functions([source])
    assert [(f.name, f.length, f.line) for f in found] == [("long", 81, 83)]


def test_checker_leaves_out_a_typer_commands_option_declarations(tmp_path):
    options = "".join(
        f"    o{i}: Annotated[int, typer.Option(help='option {i}')] = {i},\n" for i in range(90)
    )
    source = tmp_path / "command.py"
    source.write_text(_function("command", 10, "\n" + options))
    assert long_functions([source]) == []
    # the same signature without typer is counted
    plain = tmp_path / "plain.py"
    plain.write_text(_function("plain", 10, "\n" + options.replace("typer.Option", "dict")))
    assert [f.name for f in long_functions([plain])] == ["plain"]


def test_checker_counts_nested_functions_inside_their_parent(tmp_path):
    inner = "".join(f"        y{i} = {i}\n" for i in range(85))
    source = tmp_path / "nested.py"
    source.write_text(f"def outer():\n    def inner():\n{inner}    return inner\n")
    assert sorted(f.name for f in long_functions([source])) == ["inner", "outer"]


def test_checker_script_exits_1_and_lists_what_it_finds(tmp_path):
    source = tmp_path / "planted.py"
    source.write_text(_function("long", 100))
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "long_functions.py"), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and done.stdout.strip() == f"{source}:1 long 101"


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        f"{path.name}:{node.lineno} {node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("planner")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_the_union_positive_rules_are_still_importable_from_search():
    # sizing/plan.py imports them from search until the lead points it at union_positives
    from planner.sizing import search, union_positives

    assert search.inverse_sampling_items is union_positives.inverse_sampling_items
    with pytest.raises(AttributeError):
        search.no_such_name  # noqa: B018


def test_no_private_imports_across_modules_in_the_split_files():
    # regression: design.py imported search._smallest_passing
    assert [hit for p in CHECKED_FILES for hit in _private_imports(ROOT / p)] == []


@pytest.mark.slow
def test_no_text_in_the_split_files_says_the_chapter():
    # regression: the comparison printed "Chapter's claim ..." and budget's example cited it
    for path in CHECKED_FILES:
        tree = ast.parse((ROOT / path).read_text())
        texts = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        assert not [t for t in texts if "chapter" in t.lower()], path


# --------------------------------------------------------------------------- one rng


@pytest.mark.parametrize("function", [compare_designs, find_sample_size, simulate_schedule])
def test_rng_is_keyword_only_and_defaults_to_fresh_entropy(function):
    parameter = inspect.signature(function).parameters["rng"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None
    seed = inspect.signature(function).parameters.get("seed")
    assert seed is None or seed.default is None  # no hidden seed=0


def _comparison(**kwargs):
    settings = PlanSettings(width=0.1, replicates=200)
    return compare_designs(load_scenario(ENRICHED), settings, **kwargs)


@pytest.mark.slow
def test_compare_designs_records_the_seed_it_used():
    assert _comparison(rng=7).seed == 7
    generator_seed = seed_from(np.random.default_rng(3))
    from_generator = _comparison(rng=np.random.default_rng(3))
    assert from_generator.seed == generator_seed
    again = _comparison(rng=generator_seed)
    from planner.output.jsonout import comparison_document

    same = [json.dumps(comparison_document(c)) for c in (again, from_generator)]
    assert same[0] == same[1]


def test_compare_designs_draws_a_fresh_seed_without_rng():
    # regression: compare_designs required seed=; there was no default but a fixed one
    assert _comparison().seed != _comparison().seed


def test_compare_designs_takes_rng_only():
    with pytest.raises(TypeError):  # the old seed= spelling is gone
        _comparison(seed=5)


def test_compare_designs_reports_progress_after_each_step():
    calls: list[tuple[int, int]] = []
    _comparison(rng=1, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def _operation(**kwargs):
    base = dict(
        items_per_stratum=(300,),
        seconds_per_item=(60.0,),
        contested_rate=(0.1,),
        labels_per_item=2,
        annotators=3,
        adjudication_seconds=120.0,
    )
    return Operation(**{**base, **kwargs})


def test_simulate_schedule_without_rng_draws_a_fresh_seed():
    # regression: simulate_schedule defaulted to seed=0, the same "random" runs every call
    first, second = simulate_schedule(_operation(), runs=2), simulate_schedule(_operation(), runs=2)
    assert first.seed != second.seed


def test_simulate_schedule_from_a_generator_equals_its_seed():
    result = simulate_schedule(_operation(), runs=3, rng=np.random.default_rng(3))
    assert result.seed == seed_from(np.random.default_rng(3))
    again = simulate_schedule(_operation(), runs=3, rng=result.seed)
    assert again.records == result.records
    assert simulate_schedule(_operation(), runs=3, rng=result.seed).records == result.records


def test_simulate_schedule_refuses_a_bad_rng_in_its_name():
    with pytest.raises(InvalidInput, match=r"^rng must be a whole number in \[0, 2\^63\), got -1"):
        simulate_schedule(_operation(), runs=2, rng=-1)
    with pytest.raises(TypeError):  # the old seed= spelling is gone: rng only
        simulate_schedule(_operation(), runs=2, seed=1)  # type: ignore[call-arg]


def _search(**kwargs):
    model = pair_from_annotators(0.2, 0.05)
    return find_sample_size(
        model, SearchSettings(metric="kappa", width=0.15, replicates=300), **kwargs
    )


@pytest.mark.slow
def test_find_sample_size_is_reproduced_by_its_seed_or_generator_state():
    assert _search(rng=np.random.default_rng(3)) == _search(rng=np.random.default_rng(3))
    assert _search(rng=3) == _search(rng=np.random.default_rng(3))  # default_rng(3) either way


def test_find_sample_size_without_rng_is_not_a_fixed_seed():
    assert _search().curve != _search().curve


def test_find_sample_size_refuses_a_bad_rng_in_its_name():
    with pytest.raises(InvalidInput, match="^rng must be a seed or a numpy Generator, got str"):
        _search(rng="7")


def test_find_sample_size_reports_progress():
    calls: list[tuple[int, int]] = []
    _search(rng=1, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]


# --------------------------------------------------------------------------- person-hours


def test_stratified_budget_is_the_sum_over_strata():
    items, seconds, contested = [200, 1000, 35], [60.0, 90.0, 30.0], [0.1, 0.02, 0.5]
    budget = stratified_budget(
        items, seconds, contested, annotators_per_item=3, adjudication_seconds=100, hourly_rate=50
    )
    # by hand: labels 600*60 + 3000*90 + 105*30 = 309150 s; contested 20 + 20 + 17.5 items
    assert budget.labelling_hours == pytest.approx(309150 / 3600)
    assert budget.contested_items == pytest.approx(57.5)
    assert budget.person_hours == pytest.approx((309150 + 5750) / 3600)
    assert budget.cost == pytest.approx(50 * (309150 + 5750) / 3600)
    assert budget.items == 1235 and budget.labels == 3705


def test_labelling_budget_is_the_one_stratum_case():
    # the PSA background text: 1,200 items, two annotators, 90 s an item: 60 person-hours
    assert labelling_budget(1200).person_hours == 60.0
    assert labelling_budget(1200, contested_rate=0.05, adjudication_seconds=360).person_hours == (
        pytest.approx(66.0)
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"annotators_per_item": 1}, "annotators_per_item must be a whole number in [2, 1,000]"),
        ({"seconds_per_item": 0}, "seconds_per_item must be a number in (0, 1e6], got 0"),
        ({"adjudication_seconds": -1}, "adjudication_seconds must be a number in [0, 1e6], got -1"),
        ({"hourly_rate": float("nan")}, "hourly_rate must be a number in [0, 1e9], got nan"),
    ],
)
def test_budget_errors_name_the_parameter_not_a_flag(kwargs, message):
    # regression: the library's budget errors named CLI flags ("--annotators-per-item ...")
    with pytest.raises(InvalidInput) as caught:
        labelling_budget(100, **kwargs)
    assert str(caught.value).startswith(message)
    assert caught.value.parameter == next(iter(kwargs))


def test_compare_designs_hours_are_the_budget_of_each_design():
    scenario = load_scenario(ENRICHED)
    settings = PlanSettings(width=0.1, replicates=200, adjudication_seconds=60, hourly_rate=30)
    comparison = compare_designs(scenario, settings, rng=2)
    models = stratum_models(scenario)
    shares = np.array([s.share for s in scenario.strata])
    seconds = np.array([s.seconds_per_item or 90.0 for s in scenario.strata])
    contested = np.array([m.contested_rate for m in models])
    for name, design in comparison.designs.items():
        n = np.array(design.items_per_stratum)
        slice_n = design.prevalence_slice_items
        label_s = 2 * (n @ seconds + slice_n * shares @ seconds)
        adjudicated = n @ contested + slice_n * shares @ contested
        hours = (label_s + 60 * adjudicated) / 3600
        assert comparison.costs[name].person_hours == pytest.approx(hours, rel=1e-12)
        assert comparison.costs[name].cost == pytest.approx(30 * hours, rel=1e-12)


def test_workload_expected_hours_are_the_budgets_plus_checks():
    op = _operation()
    budget = stratified_budget(
        op.items_per_stratum, op.seconds_per_item, op.contested_rate, adjudication_seconds=120
    )
    assert analytic_person_hours(op) == pytest.approx(budget.person_hours, rel=1e-12)
    checked = _operation(
        attention_check_share=0.1, attention_fail_rate=0.5, requalification_hours=1
    )
    # 60 checks of 60 s, 30 failed checks of 1 h
    assert analytic_person_hours(checked) == pytest.approx(budget.person_hours + 1 + 30)


# --------------------------------------------------------------------------- progress


def test_progress_bar_when_disabled_is_a_callback_that_draws_nothing(capsys):
    with progress_bar("sizing", disabled=True) as progress:
        progress(1, 2)
        progress(2, 2)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_schedule_quiet_prints_the_same_tables():
    args = ["schedule", "--items", "300", "--runs", "5", "--seed", "3"]
    loud, quiet = runner.invoke(app, args), runner.invoke(app, [*args, "--quiet"])
    assert loud.exit_code == 0 and quiet.exit_code == 0, quiet.output
    assert quiet.stdout == loud.stdout


def test_schedule_json_is_one_document_with_the_seed():
    result = runner.invoke(
        app, ["schedule", "--items", "300", "--runs", "5", "--seed", "3", "--json"]
    )
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["seed"] == 3
    assert doc["schema_version"] == "2" and doc["command"] == "schedule"


# --------------------------------------------------------------------------- diagnostics


def test_diagnose_by_an_unread_column_names_the_parameter():
    ratings = read_labels(ROOT / "examples" / "labels.csv")
    with pytest.raises(InvalidInput) as caught:
        diagnose(ratings, None, "week", 0.95)
    assert caught.value.parameter == "by"
    assert str(caught.value).startswith("by must be a column that was read")
