"""plan --labelled --batch-size for several annotators: the batch procedure simulated to its end.

The test's own simulation never calls the planner's procedure, its patterns or its interval
code: it starts from the first stage read with the csv module (per item of wide.csv, positive
labels n1 and labels k), and draws every batch item by item under the plan's bootstrap truths
(procedure r under truth r mod D: a true class, then each of the three annotators' labels from
that truth's confusion matrix). It keeps, per procedure, the running sums of Uebersax's
y = n1 (n1 - 1) and x = n1 (k - 1) and their squares and product, so the interval of specific
positive agreement (the ratio R = sum y / sum x, its linearised variance
sum (y - R x)^2 / (sum x)^2 n / (n - 1) and a Wald step on the logit scale; Uebersax 1982,
Cochran 1977 6.3) is written here from those sums. A truth's PSA is
E[n1 (n1 - 1)] / E[2 n1] over its classes, E[n1 (n1 - 1)] = (sum_j p_j)^2 - sum_j p_j^2 for
annotators positive with probabilities p_j.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.output.jsonout import load_schema
from planner.sizing.midstudy import plan_remaining_from_file
from planner.sizing.midstudy_procedure import raters_batch_procedure
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.plan import PlanSettings
from tests.test_midstudy_latent_class import FLAGS, READER, ROOT, WIDE, Z95, first_stage

pytestmark = pytest.mark.slow
runner = CliRunner()


def truths(draws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bootstrap truth: the positive class's prevalence, each annotator's probability of
    a positive label given a positive and a negative item, and the truth's PSA."""
    prevalence = np.array([d[0][1] for d in draws])
    p_pos = np.array([d[1][:, 1, 1] for d in draws])  # (D, M)
    p_neg = np.array([d[1][:, 0, 1] for d in draws])

    def moments(p):
        return p.sum(axis=1) ** 2 - (p**2).sum(axis=1), 2 * p.sum(axis=1)

    (y1, x1), (y0, x0) = moments(p_pos), moments(p_neg)
    psa = (prevalence * y1 + (1 - prevalence) * y0) / (prevalence * x1 + (1 - prevalence) * x0)
    return prevalence, np.stack([p_neg, p_pos], axis=1), psa  # (D,), (D, 2, M), (D,)


def sums(n1: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per study (rows): items, sum y, sum x, sum y^2, sum x y, sum x^2 of its items."""
    y, x = n1 * (n1 - 1.0), n1 * (k - 1.0)
    return np.stack([np.full(y.shape[:-1], y.shape[-1], float), *(
        v.sum(axis=-1) for v in (y, x, y * y, x * y, x * x)
    )], axis=-1)  # fmt: skip


def limits(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, sy, sx, syy, sxy, sxx = s.T
    ratio = sy / sx
    var = (syy - 2 * ratio * sxy + ratio**2 * sxx) / sx**2 * n / (n - 1)
    centre, step = np.log(ratio / (1 - ratio)), Z95 * np.sqrt(var) / (ratio * (1 - ratio))
    return 1 / (1 + np.exp(-(centre - step))), 1 / (1 + np.exp(-(centre + step)))


def own_procedure(draws, batch: int, width: float, studies: int, seed: int):
    """``(totals, covered)`` of ``studies`` procedures: batches of ``batch`` items, each item
    drawn here, until the half-width is at most ``width``."""
    rng = np.random.default_rng(seed)
    prevalence, p_label, psa = truths(draws)
    which = np.arange(studies) % len(draws)
    n1, k = first_stage()
    state = np.repeat(sums(n1, k)[None, :], studies, axis=0)
    low, high = limits(state)
    done = (high - low) / 2 <= width
    while not done.all():
        active = np.flatnonzero(~done)
        truth = which[active]
        positive = rng.random((active.size, batch)) < prevalence[truth, None]  # true class
        p = p_label[truth[:, None], positive.astype(int)]  # (A, batch, M)
        labels = (rng.random(p.shape) < p).sum(axis=-1)
        state[active] += sums(labels, np.full(labels.shape, 3))
        low, high = limits(state[active])
        done[active] = (high - low) / 2 <= width
    low, high = limits(state)
    return state[:, 0], (low <= psa[which]) & (psa[which] <= high)


@pytest.fixture(scope="module")
def plan():
    return plan_remaining_from_file(
        str(WIDE), PlanSettings(width=0.05, replicates=2000), reader=READER,
        positive="unsupported", rng=3,
    )  # fmt: skip


def test_the_first_stage_interval_written_here_is_the_plans(plan):
    low, high = limits(sums(*first_stage())[None, :])
    assert plan.interval_now == pytest.approx((float(low[0]), float(high[0])), rel=1e-9)


@pytest.mark.parametrize("batch", [100, 400])
def test_the_procedure_matches_an_item_level_simulation(plan, batch):
    knobs = RemainingSettings(batch_size=batch)
    got = raters_batch_procedure(plan, PlanSettings(width=0.05, replicates=4000), knobs, rng=5)
    totals, covered = own_procedure(plan.pilot.draws, batch, 0.05, 4000, 17)
    share = covered.mean()
    se = math.sqrt(got.coverage_se**2 + share * (1 - share) / covered.size)
    assert abs(got.coverage - share) < 3 * se
    # the mean total's SE from the spread of the totals (both simulations draw alike)
    spread = math.sqrt(2 * totals.var() / totals.size)
    assert abs(got.total_items["mean"] - totals.mean()) < 3 * spread
    assert got.total_items["p50"] == pytest.approx(np.median(totals), abs=batch)
    assert got.stopped_share == 1 and got.replicates == 4000
    assert got.total_items["p10"] >= 600 + batch  # the interval in hand is not narrow


def test_a_batch_past_every_procedures_need_is_the_fixed_total(plan):
    # 4,400 more items bring every procedure's half-width far below 0.05 in one batch: the
    # procedure is then the fixed second stage of 4,400 items
    got = raters_batch_procedure(
        plan, PlanSettings(width=0.05, replicates=2000), RemainingSettings(batch_size=4400), rng=1
    )
    assert got.total_items == {"mean": 5000, "p10": 5000, "p50": 5000, "p90": 5000}
    assert got.stopped_share == 1 and not got.notes
    assert abs(got.coverage - 0.95) < 3 * got.coverage_se + 0.01


def test_a_first_stage_narrow_enough_stops_at_once_with_the_plans_coverage():
    wide = plan_remaining_from_file(
        str(WIDE), PlanSettings(width=0.08, replicates=2000), RemainingSettings(batch_size=50),
        reader=READER, positive="unsupported", rng=3,
    )  # fmt: skip
    assert wide.remaining_items == 0 and wide.batches.total_items["p90"] == 600
    assert wide.batches.coverage == pytest.approx(wide.final_coverage, abs=1e-12)


def test_batch_size_is_needed():
    with pytest.raises(InvalidInput, match="batch_size is needed") as exc:
        raters_batch_procedure(None, PlanSettings(), RemainingSettings())  # type: ignore[arg-type]
    assert exc.value.parameter == "batch_size"


def test_cli_prints_the_procedure_and_its_json_keys_are_the_pairs():
    args = ["plan", "--labelled", str(WIDE), *FLAGS, "--width", "0.05", "--batch-size", "200"]
    result = runner.invoke(app, [*args, "--replicates", "400", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    pair = runner.invoke(
        app,
        ["plan", "--labelled", str(ROOT / "examples" / "labelled-600.csv"), "--batch-size", "200",
         "--replicates", "400", "--seed", "1", "--json"],
    )  # fmt: skip
    assert pair.exit_code == 0, pair.output
    assert set(doc["batches"]) == set(json.loads(pair.stdout)["batches"])
    assert doc["batches"]["batch_size"] == 200 and "bootstrap refits" in doc["batches"]["truth"]
    shown = runner.invoke(app, [*args, "--replicates", "400", "--seed", "1"])
    assert "Label in batches of 200" in shown.output


def test_procedures_that_reach_max_items_first_get_a_note(plan):
    # two batches of 100 fit below 800 items, and 800 are too few for half of the truths
    got = raters_batch_procedure(
        plan, PlanSettings(width=0.05, replicates=400, max_items=800),
        RemainingSettings(batch_size=100), rng=2,
    )  # fmt: skip
    assert got.stopped_share < 0.5 and got.total_items["p90"] == 800
    assert any("reached max_items 800" in n for n in got.notes)
