"""Fixed-size precision, budgets and the assurance curve for several annotators per item.

The numbers the library reports are checked against a plain numpy simulation written here:
studies drawn item by item (a true class, then each annotator's label from its sensitivity
and specificity), the specific positive agreement of Uebersax and its linearised ratio SE
with the logit Wald interval computed from the per-item positive counts by their formulas.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.application.raters_options import raters_plan_from_options
from planner.cli.commands import plan_app
from planner.errors import InvalidInput
from planner.output.jsonout import load_schema
from planner.sizing.annotator_model import raters_model
from planner.sizing.assurance_curve import assurance_curve, raters_assurance_curve
from planner.sizing.items_bought import LabelCosts
from planner.sizing.label_patterns import contested_share
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings
from planner.sizing.precision import fixed_size_precision, raters_fixed_size
from planner.sizing.study_precision import RatersStudy

runner = CliRunner()
Z95 = 1.959963984540054
# sensitivity and specificity of each annotator (rows: true negative, true positive)
SENS = (0.75, 0.80, 0.70)
SPEC = (0.98, 0.985, 0.975)
PREVALENCE = 0.05


def _model(m: int = 3):
    confusion = [[[SPEC[j % 3], 1 - SPEC[j % 3]], [1 - SENS[j % 3], SENS[j % 3]]] for j in range(m)]
    return raters_model(PREVALENCE, m, confusion=confusion)


def item_level_positives(n_items, n_studies, rng, m=3, per_item=None):
    """``(studies, items)`` positive labels per item and the labels each item got."""
    truth = rng.random((n_studies, n_items)) < PREVALENCE
    sens = np.array([SENS[j % 3] for j in range(m)])
    spec = np.array([SPEC[j % 3] for j in range(m)])
    p_pos = np.where(truth[..., None], sens, 1 - spec)  # (S, N, M)
    said = rng.random(p_pos.shape) < p_pos
    if per_item is not None:  # k of M annotators, a random subset for every item
        order = np.argsort(rng.random(p_pos.shape), axis=-1)
        said = np.take_along_axis(said, order[..., :per_item], axis=-1)
    return said.sum(axis=-1), said.shape[-1]


def psa_half_widths(positives, k):
    """Uebersax's specific positive agreement, its linearised SE and the logit Wald
    half-width, study by study: ``R = sum y / sum x``, ``y = n1 (n1 - 1)``,
    ``x = n1 (k - 1)``, ``Var = sum (y - R x)^2 / (sum x)^2 * n / (n - 1)``."""
    n1 = positives.astype(float)
    n = n1.shape[-1]
    y, x = n1 * (n1 - 1), n1 * (k - 1)
    ratio = y.sum(-1) / x.sum(-1)
    var = ((y - ratio[:, None] * x) ** 2).sum(-1) / x.sum(-1) ** 2 * n / (n - 1)
    step = Z95 * np.sqrt(var) / (ratio * (1 - ratio))
    centre = np.log(ratio / (1 - ratio))
    lo, hi = 1 / (1 + np.exp(-(centre - step))), 1 / (1 + np.exp(-(centre + step)))
    return (hi - lo) / 2


@pytest.mark.slow
@pytest.mark.parametrize(("m", "per_item", "items"), [(3, None, 3400), (5, 3, 3400)])
def test_assurance_at_n_matches_an_item_level_simulation(m, per_item, items):
    width = 0.05
    study = RatersStudy("psa", width, per_item=per_item, replicates=2000)
    k = per_item or m
    got = raters_fixed_size(_model(m), study, LabelCosts(k), items=items, rng=5)
    rng = np.random.default_rng(20261202)
    studies = 1500
    hw = psa_half_widths(*item_level_positives(items, studies, rng, m, per_item))
    expected = float(np.mean(hw <= width))
    se = math.sqrt(0.25 / studies + 0.25 / got.replicates)
    assert 0.1 < expected < 0.9  # the width sits where the assurance is informative
    assert abs(got.assurance - expected) < 4 * se
    assert got.half_width["p50"] == pytest.approx(float(np.median(hw)), rel=0.01)
    assert got.half_width["p10"] < got.half_width["p50"] < got.half_width["p90"]
    assert got.labels == k * items
    assert got.person_hours == pytest.approx(k * items * 90 / 3600)


@pytest.mark.slow
def test_assurance_falls_well_below_the_planned_size():
    # the plan's n holds (about its assurance) and 0.7 n clearly fails, by the numpy check
    plan = raters_plan_from_options(
        {"n_annotators": 3, "prevalence": PREVALENCE, "confusion": _model().confusion,
         "metric": "psa", "width": 0.05, "assurance": 0.8, "replicates": 1000, "items": 1},
        rng=3,
    )  # fmt: skip
    n = plan.sizing.items
    rng = np.random.default_rng(7)
    at_n = np.mean(psa_half_widths(*item_level_positives(n, 800, rng)) <= 0.05)
    below = np.mean(psa_half_widths(*item_level_positives(int(0.7 * n), 800, rng)) <= 0.05)
    se = math.sqrt(0.8 * 0.2 / 800)
    assert at_n >= 0.8 - 4 * se and below < 0.8 - 6 * se
    assert plan.precision is not None and plan.precision.items == 1


def _unanimous(m: int) -> float:
    """P(every annotator gives the same label), by the product over annotators."""
    sens = np.array([SENS[j % 3] for j in range(m)])
    spec = np.array([SPEC[j % 3] for j in range(m)])
    positive = np.prod(sens) + np.prod(1 - sens)
    negative = np.prod(spec) + np.prod(1 - spec)
    return PREVALENCE * positive + (1 - PREVALENCE) * negative


@pytest.mark.parametrize("m", [2, 3, 4, 6])
def test_contested_share_is_one_minus_the_unanimous_mass(m):
    assert contested_share(_model(m)) == pytest.approx(1 - _unanimous(m), abs=1e-12)


@given(
    hours=st.floats(1, 5000),
    seconds=st.floats(5, 600),
    adjudication=st.floats(0, 600),
)
@settings(max_examples=25, deadline=None)
def test_hours_buy_the_most_items_that_fit(hours, seconds, adjudication):
    model = _model(3)
    costs = LabelCosts(3, seconds_per_item=seconds, adjudication_seconds=adjudication)
    got = raters_fixed_size(
        model, RatersStudy("psa", 0.1, replicates=100), costs, hours=hours, rng=1
    )
    per_item = 3 * seconds + (1 - _unanimous(3)) * adjudication  # person-seconds an item
    assert got.items == math.floor(hours * 3600 / per_item)
    assert got.person_hours <= hours + 1e-9
    assert (got.items + 1) * per_item / 3600 > hours


def test_a_budget_buys_hours_at_the_rate():
    model = _model(3)
    costs = LabelCosts(3, seconds_per_item=30, adjudication_seconds=120, hourly_rate=25)
    got = raters_fixed_size(
        model, RatersStudy("psa", 0.1, replicates=100), costs, budget=5000, rng=1
    )
    per_item = 3 * 30 + (1 - _unanimous(3)) * 120
    assert got.items == math.floor(5000 / 25 * 3600 / per_item)
    assert got.cost == pytest.approx(got.person_hours * 25) and got.cost <= 5000
    assert got.given == {"budget": 5000.0}


@pytest.mark.slow
def test_curve_meets_the_item_level_assurance_and_holds_the_planned_size():
    width, n = 0.05, 3400
    curve = raters_assurance_curve(
        _model(3), RatersStudy("psa", width, replicates=2000), [1000, 2000, 4000, 7000],
        planned=n, rng=2,
    )  # fmt: skip
    points = {p["items"]: p["assurance"] for p in curve}
    assert n in points and all(0 <= a <= 1 for a in points.values())
    rng = np.random.default_rng(11)
    expected = np.mean(psa_half_widths(*item_level_positives(n, 1500, rng)) <= width)
    assert abs(points[n] - expected) < 4 * math.sqrt(0.25 / 1500 + 0.25 / 2000)
    assert points[1000] < 0.01 and points[7000] > 0.99
    # refined: the straight line between neighbours misreads the curve by little
    items = sorted(points)
    assert len(items) > 5


@pytest.mark.slow
def test_one_precision_entry_takes_several_annotators_and_the_plan_settings():
    # fixed_size_precision and assurance_curve, the pair's entries, with a model of several
    # annotators: the settings' per_item labels an item, hours buy floor(3600 H / (k s + c a))
    model = _model(4)
    settings = PlanSettings(
        metric="psa", width=0.1, per_item=2, replicates=200, seconds_per_item=30,
        adjudication_seconds=60,
    )  # fmt: skip
    got = fixed_size_precision(model, settings, hours=20, rng=1)
    per_item = 2 * 30 + contested_share(model, 2) * 60
    assert got.labels_per_item == 2 and got.items == math.floor(20 * 3600 / per_item)
    study = RatersStudy("psa", 0.1, per_item=2, replicates=200)
    costs = LabelCosts(2, seconds_per_item=30, adjudication_seconds=60)
    assert got == raters_fixed_size(model, study, costs, hours=20, rng=1)
    curve = assurance_curve(model, "psa", settings, [200, 2000], planned=got.items, rng=3)
    assert curve == raters_assurance_curve(model, study, [200, 2000], planned=got.items, rng=3)


def test_library_refusals_name_their_parameter():
    study = RatersStudy("psa", 0.05)
    with pytest.raises(InvalidInput) as exc:
        raters_fixed_size(_model(3), study, LabelCosts(3), items=100, hours=5)
    assert exc.value.parameter == "items" and "give one of items, hours or budget" in str(exc.value)
    with pytest.raises(InvalidInput, match="^budget needs hourly_rate") as exc:
        raters_fixed_size(_model(3), study, LabelCosts(3), budget=100)
    with pytest.raises(InvalidInput, match="annotators_per_item") as exc:
        raters_fixed_size(_model(3), study, LabelCosts(2), items=100)
    with pytest.raises(InvalidInput, match="^metric conger needs every annotator") as exc:
        raters_fixed_size(_model(3), RatersStudy("conger", 0.1, per_item=2), LabelCosts(2), items=9)


@pytest.mark.parametrize("name", ["items", "hours", "budget"])
@pytest.mark.parametrize("value", ["zzz", [], -1, float("nan")])
def test_a_bad_amount_is_refused_by_its_rule_for_a_pair_and_several(name, value):
    """Items, hours or a budget that are not a number in range name themselves (a text or a
    list raised ValueError or TypeError before its rule was read)."""
    costs = LabelCosts(3, hourly_rate=40.0)
    study = RatersStudy("fleiss", 0.1, replicates=100)
    with pytest.raises(InvalidInput) as exc:
        raters_fixed_size(_model(3), study, costs, **{name: value})
    assert exc.value.parameter == name
    pair = pair_from_annotators(0.08)
    with pytest.raises(InvalidInput) as exc:
        fixed_size_precision(pair, PlanSettings(hourly_rate=40.0), **{name: value})
    assert exc.value.parameter == name


# --------------------------------------------------------------------------- the command


BASE = ["--annotators", "3", "--prevalence", "0.05", "--metric", "psa", "--width", "0.05"]
FAST = ["--replicates", "300", "--seed", "1"]


def _plan(*args: str):
    return runner.invoke(plan_app, [*BASE, *args, *FAST])


@pytest.mark.slow
def test_items_and_curve_print_their_sections():
    result = _plan("--items", "2000", "--curve")
    assert result.exit_code == 0, result.output
    assert "Precision of 2,000 items (items 2000)" in result.stdout
    assert "Assurance against items (half-width <= 0.05)" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "extra",
    [["--items", "2000", "--curve"], ["--hours", "100", "--adjudication-seconds", "60"],
     ["--budget", "3000", "--hourly-rate", "30"]],
)  # fmt: skip
def test_json_carries_precision_and_curve_in_the_schema(extra):
    result = _plan(*extra, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    precision = doc["precision"]
    assert precision["labels"] == 3 * precision["items"]
    if "--curve" in extra:
        curve = doc["assurance_curve"]["psa"]
        assert 2000 in [p["items"] for p in curve]
    if "--budget" in extra:
        assert precision["cost"] <= 3000 and precision["given"] == {"budget": 3000.0}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--items", "100", "--hours", "5"], "--items and --hours each fix the study's size"),
        (["--budget", "100"], "--budget needs --hourly-rate"),
        (["--items", "0"], "--items must be"),
        (["--hours", "-1"], "--hours must be"),
    ],
)
def test_bad_fixed_sizes_are_one_line_and_exit_2(args, needle):
    result = _plan(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert result.stdout == ""
