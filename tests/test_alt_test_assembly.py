"""The Alt-Test plan has one assembly: the library's summary, which the command, the report
and the web page all show; the page's ``items`` and ``table`` modes are the command's."""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.sizing.alt_test_plan import (
    AltTestPlanSettings,
    alt_test_model,
    alt_test_plan_summary,
    pass_probability,
    plan_alt_test,
)
from planner.web.page import parse_values
from planner.web.pages import alt_test as page

runner = CliRunner()


def _computed(query: dict[str, str]):
    return page.PAGE.compute(parse_values(page.PAGE, query), {}, None)


def test_the_tables_row_of_the_models_humans_is_the_plan():
    model = alt_test_model(humans=3, categories=2, human_error=0.2, llm_error=0.2)
    settings = AltTestPlanSettings(epsilon=0.2, replicates=300, table=True, table_humans=(2, 3))
    summary = alt_test_plan_summary(model, settings, rng=2)
    assert summary.plan == plan_alt_test(model, settings, rng=2)
    assert summary.rows[1] is summary.plan and summary.table[1][1] == summary.plan.n_items
    # three humans label each item for 90 s
    assert summary.table[1][2] == pytest.approx(3 * summary.plan.n_items * 90 / 3600)


def test_humans_who_err_differently_get_a_table_of_the_first_humans_error():
    model = alt_test_model(human_error=[0.2, 0.25, 0.3], llm_error=0.2)
    settings = AltTestPlanSettings(epsilon=0.2, replicates=300, table=True, table_humans=(3,))
    summary = alt_test_plan_summary(model, settings, rng=2)
    assert summary.rows[0] is not None and summary.rows[0].model.human_error == (0.2,) * 3


def test_without_a_table_the_summary_has_none():
    model = alt_test_model(humans=3, categories=2, human_error=0.2, llm_error=0.2)
    summary = alt_test_plan_summary(model, AltTestPlanSettings(replicates=300), rng=2)
    assert summary.table == () and summary.rows == () and summary.plan is not None


def test_an_unreachable_plan_keeps_its_reason():
    model = alt_test_model(humans=3, categories=2, human_error=0.05, llm_error=0.6)
    summary = alt_test_plan_summary(model, AltTestPlanSettings(epsilon=0.05), rng=1)
    assert summary.plan is None and summary.n_items is None
    assert "cannot be expected to pass" in str(summary.unreachable)


@pytest.mark.parametrize(
    ("settings", "parameter"),
    [
        ({"epsilon": 1.5}, "epsilon"),
        ({"max_items": 20, "min_items": 30}, "max_items"),
        ({"replicates": 3}, "replicates"),
        ({"items": 1}, "items"),
        ({"table_humans": (1, 2)}, "table_humans"),
        ({"seconds_per_item": -1.0}, "seconds_per_item"),
    ],
)
def test_settings_refuse_a_bad_value_by_its_name(settings, parameter):
    with pytest.raises(InvalidInput) as caught:
        AltTestPlanSettings(**settings)
    assert caught.value.parameter == parameter


def test_the_page_at_items_is_pass_probability_and_the_commands():
    result = _computed({"items": "60", "replicates": "300", "seed": "3"})
    model = alt_test_model()
    at = pass_probability(model, 60, AltTestPlanSettings(replicates=300), rng=3)
    assert float(result.headline["pass-probability"]) == pytest.approx(at.probability, abs=0.005)
    out = runner.invoke(app, [*shlex.split(result.command)[1:], "--json"])
    assert out.exit_code == 0, out.stderr
    assert json.loads(out.stdout)["pass_probability"]["probability"] == at.probability
    assert result.document["pass_probability"]["probability"] == at.probability


@pytest.mark.slow
def test_the_page_with_a_table_plans_two_to_six_humans():
    result = _computed({"table": "on", "replicates": "300", "seed": "2", "epsilon": "0.2"})
    assert "--table" in result.command
    humans = result.tables[1]
    assert [row[0] for row in humans.rows] == ["2", "3", "4", "5", "6"]
    assert humans.rows[1][1] == result.headline["items"]  # the plan's own row
    assert [r["humans"] for r in result.document["table"]] == [2, 3, 4, 5, 6]


def test_the_page_refuses_items_with_a_table():
    with pytest.raises(InvalidInput) as caught:
        _computed({"table": "on", "items": "60", "seed": "2"})
    assert caught.value.parameter == "table"
