"""plan --batch-size without --labelled: re-planning every B items from the start of a study.

The test's own simulation never calls the planner's procedure: each study draws its batches of
B items as multinomial counts from the model's cells, one at a time, and stops when the Wilson
interval for J = a / U, mapped to PSA = 2J / (1 + J) (written here, Wilson 1927), has
half-width at most the width; the final interval covers when it holds the model's PSA.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.jsonout import load_schema
from planner.sizing.midstudy_procedure import batches_for_plan
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings, make_plan

Z95 = 1.959963984540054  # the standard normal's 0.975 quantile
runner = CliRunner()


def wilson_psa_limits(a, u):
    a, u = np.asarray(a, float), np.maximum(np.asarray(u, float), 1)
    p = a / u
    den = 1 + Z95**2 / u
    centre = (p + Z95**2 / (2 * u)) / den
    half = Z95 * np.sqrt(p * (1 - p) / u + Z95**2 / (4 * u * u)) / den
    low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    return 2 * low / (1 + low), 2 * high / (1 + high)


def procedure(cells, batch, width, studies, seed):
    """Final tables of ``studies`` procedures that label ``batch`` items at a time until the
    interval is narrow: ``(totals, covered)``."""
    rng = np.random.default_rng(seed)
    truth = 2 * cells[0] / (2 * cells[0] + cells[1] + cells[2])
    tables = np.zeros((studies, 4), dtype=np.int64)
    done = np.zeros(studies, dtype=bool)
    while not done.all():
        tables[~done] += rng.multinomial(batch, cells, size=int((~done).sum()))
        a, u = tables[:, 0], tables[:, :3].sum(axis=1)
        low, high = wilson_psa_limits(a, u)
        done |= (u > 0) & ((high - low) / 2 <= width) & (high > low)
    low, high = wilson_psa_limits(tables[:, 0], tables[:, :3].sum(axis=1))
    return tables.sum(axis=1), (low <= truth) & (truth <= high)


@pytest.mark.parametrize(("width", "batch"), [(0.08, 100), (0.2, 2)])
def test_the_procedure_from_the_model_matches_an_independent_simulation(width, batch):
    model = pair_from_annotators(0.08, 0.04)  # the headline model
    plan = make_plan(model, PlanSettings(width=width, replicates=4000), rng=1)
    got = batches_for_plan(plan, batch)
    cells = np.asarray(model.cells, dtype=float).reshape(4)
    totals, covered = procedure(cells, batch, width, 4000, 7)
    se = math.sqrt(2 * 0.95 * 0.05 / 4000)
    assert got.coverage == pytest.approx(covered.mean(), abs=4 * se)
    spread = np.std(totals) / math.sqrt(4000)
    assert got.total_items["mean"] == pytest.approx(totals.mean(), abs=4 * math.sqrt(2) * spread)
    assert got.total_items["p50"] == pytest.approx(np.median(totals), rel=0.05)
    assert got.truth == "the model" and got.stopped_share == 1
    if batch == 2:  # small batches and a wide target: the stopping rule loses coverage
        assert got.coverage < 0.95 - 0.015 and "fix the total in advance" in got.notes[0]
    else:
        assert abs(got.coverage - 0.95) < 0.015 and not got.notes


@pytest.mark.slow
def test_cli_adds_the_procedure_to_the_plan_and_its_json():
    args = ["plan", "--prevalence", "0.08", "--width", "0.08", "--batch-size", "100"]
    result = runner.invoke(app, [*args, "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    assert doc["batches"]["batch_size"] == 100 and doc["batches"]["truth"] == "the model"
    tables = runner.invoke(app, [*args, "--seed", "1"])
    assert "Label in batches of 100 from the start" in tables.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--prevalence", "0.08", "--planned-items", "900"], "--planned-items applies only"),
        (["--prevalence", "0.08", "--annotators", "3", "--batch-size", "50"], "--batch-size"),
    ],
)
def test_refusals_are_one_line(args, needle):
    result = runner.invoke(app, ["plan", *args, "--seed", "1"])
    assert result.exit_code == 2
    assert needle in result.stderr and "Traceback" not in result.output
