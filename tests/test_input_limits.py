"""Limits on inputs that are valid one by one but too large or degenerate together.

Strata (memory grows with strata x replicates), the item floor of a stratified design
against max_items, calendar days of a tiny operation, deeply nested scenario TOML, exact
integers in the counts limit, hours and cost bounded by the per-item seconds, every search
bounded in steps.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.labels import COUNTS_LIMIT, ratings_from_counts
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput, SearchLimit, TargetUnreachable
from planner.operations.workload import calendar_days
from planner.sizing.sample_size_search import smallest_passing
from planner.validation import MAX_STRATA, MAX_STRATUM_REPLICATES, check_strata_effort

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def _strata_scenario(path: Path, strata: int) -> Path:
    lines = ['name = "many-strata"', "[model]", "error_rate = 0.03", "bias = 0.0"]
    for i in range(strata):
        lines += ["[[strata]]", f'name = "s{i}"', f"size = {1 + i % 7}", "prevalence = 0.1"]
    lines += ["[target]", 'metric = "psa"', "width = 0.08"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_too_many_strata_is_one_line_naming_the_file_and_key(tmp_path):
    path = _strata_scenario(tmp_path / "many.toml", MAX_STRATA + 1)
    with pytest.raises(InvalidInput) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}: strata must be at most 1,000 tables, got 1,001"
    result = runner.invoke(app, ["plan", "--scenario", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {path}: strata must be at most 1,000 tables, got 1,001"


def test_strata_times_replicates_is_bounded():
    # 240 bytes per stratum-replicate measured: the bound keeps a stratified plan near 1 GB
    check_strata_effort(MAX_STRATA, MAX_STRATUM_REPLICATES // MAX_STRATA)
    with pytest.raises(InvalidInput) as info:
        check_strata_effort(MAX_STRATA, MAX_STRATUM_REPLICATES // MAX_STRATA + 1)
    assert info.value.parameter == "replicates"


def test_strata_replicates_refused_at_the_cli_as_replicates(tmp_path):
    path = _strata_scenario(tmp_path / "some.toml", 500)
    result = runner.invoke(app, ["plan", "--scenario", str(path), "--replicates", "10000"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --replicates times the strata must be at most")


def test_floor_items_past_max_items_is_refused(tmp_path):
    text = (ROOT / "scenarios" / "unsupported-claims-enriched.toml").read_text(encoding="utf-8")
    assert "floor_items = 30" in text
    path = tmp_path / "floor.toml"
    path.write_text(text.replace("floor_items = 30", "floor_items = 1000000000"), "utf-8")
    result = runner.invoke(app, ["plan", "--scenario", str(path), "--max-items", "100000"])
    assert result.exit_code == 2, result.output
    assert "floor_items" in result.stderr and "4,000,000,000" in result.stderr


def test_floor_raising_the_total_past_max_items_is_unreachable():
    import numpy as np

    from planner.sizing.design import StratifiedSearch, size_stratified
    from planner.sizing.model import pair_from_annotators

    models = [pair_from_annotators(0.1, 0.03), pair_from_annotators(0.3, 0.05)]
    cells = [np.asarray(m.cells) for m in models]  # each stratum's pattern probabilities

    def statistic(counts):
        # narrow once the first stratum has 495 items: the search's total is then 500
        first = counts[:, 0].sum(axis=-1)
        return np.where(first >= 495, 0.01, 1.0), np.zeros(counts.shape[0])

    # proportions 0.99 / 0.01 with a floor of 400: a total of 500 splits into 495 + 400
    with pytest.raises(TargetUnreachable):
        search = StratifiedSearch(
            width=0.05, assurance=0.5, replicates=100, max_items=800, floor=400, start=500
        )
        size_stratified(cells, [0.99, 0.01], statistic, search, rng=np.random.default_rng(1))


@pytest.mark.parametrize("seconds", [1e-9, 1e-6, 0.001, 1.0])
def test_any_work_takes_at_least_one_calendar_day(seconds):
    # d = max(1, ceil(w / shift)) working days: one day, never negative (was -2)
    assert calendar_days(seconds, 4 * 3600, 5) == 1


def test_schedule_of_tiny_items_has_positive_calendar_days():
    result = runner.invoke(
        app, ["schedule", "--items", "1000", "--seconds-per-item", "1e-9", "--seed", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    import json

    doc = json.loads(result.stdout)
    days = [v for k, v in _walk(doc) if "calendar_days" in k and isinstance(v, int | float)]
    assert days and min(days) >= 0 and max(days) >= 1


def _walk(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, f"{prefix}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v, prefix)
    else:
        yield prefix, obj


@pytest.mark.slow
def test_deeply_nested_toml_is_a_usage_error_naming_the_file(tmp_path):
    path = tmp_path / "nested.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    result = runner.invoke(app, ["plan", "--scenario", str(path)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"error: {path}: not valid TOML: nested too deeply"


def test_counts_limit_printed_as_exact_integers():
    with pytest.raises(InvalidInput) as info:
        ratings_from_counts(COUNTS_LIMIT + 1, 0, 0, 0)
    assert "at most 1,000,000,000,000,000 items, got 1,000,000,000,000,001" in str(info.value)


def test_alt_test_plan_hours_are_finite_or_refused():
    result = runner.invoke(
        app, ["alt-test", "--plan", "--epsilon", "0.2", "--seconds-per-item", "1e308",
              "--replicates", "200", "--seed", "1"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "inf" not in result.stdout
    assert result.stderr.startswith("error: --seconds-per-item must be a number in (0, 1e6]")


def test_a_search_without_a_finite_limit_stops_at_its_step_bound():
    # max_value infinite and nothing passing: the doubling bracket would run forever
    with pytest.raises(SearchLimit):
        smallest_passing(lambda m: False, 1, math.inf)  # type: ignore[arg-type]
