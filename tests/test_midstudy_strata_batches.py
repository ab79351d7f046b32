"""plan --labelled --stratum-col --batch-size: a stratified study in progress labelled in batches.

The test's own simulation never calls the planner's procedure or its interval code. Each
procedure draws each stratum's truth from Dirichlet(counts + 1/2) (Jeffreys); after ``k``
batches the new items of each stratum are those that bring it to its design share of the
smallest design total T reaching ``k B`` (m_h(T) = max(ceil(a_h T), floor) - n0_h, at least
0, found here by counting T up), less the excess from the strata of smallest design share;
every item's cell is drawn here from its stratum's truth. The population-weighted PSA and its
interval are written here: pooled cells P = sum_h W_h p_h, PSA = 2 P_a / D with
D = 2 P_a + P_b + P_c, an item's linearised value u = 2 / D - 4 P_a / D^2 in cell a,
-2 P_a / D^2 in b and c, 0 in d; Var = sum_h W_h^2 s_h^2 / n_h with s_h^2 the variance of u in
stratum h (n_h / (n_h - 1)); Satterthwaite's degrees of freedom and a t step on the logit
scale (Cochran 1977, 5A.2 and 6.3).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from scipy import stats
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.jsonout import load_schema
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.midstudy_strata import StrataStage, _StratifiedStudies, plan_remaining_strata
from planner.sizing.midstudy_strata_procedure import batch_allocation, strata_batch_procedure
from planner.sizing.plan import PlanSettings

ROOT = Path(__file__).parent.parent
FILE = ROOT / "examples" / "stratified-labels.csv"
SCENARIO = ROOT / "scenarios" / "unsupported-claims-enriched.toml"
COUNTS = np.array([[20, 5, 4, 71], [8, 4, 5, 83], [30, 6, 6, 58]])  # a small first stage
SHARES, DESIGN = np.array([0.5, 0.3, 0.2]), np.array([0.4, 0.3, 0.3])
STAGE = StrataStage(COUNTS, ["a", "b", "c"], SHARES, DESIGN)
runner = CliRunner()


def weighted_limits(tables: np.ndarray, shares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95 % limits of the population-weighted PSA of ``(R, H, 4)`` tables (module docstring)."""
    n = tables.sum(axis=-1).astype(float)
    p = tables / n[..., None]
    pooled = (shares[:, None] * p).sum(axis=-2)
    d = 2 * pooled[:, 0] + pooled[:, 1] + pooled[:, 2]
    psa = 2 * pooled[:, 0] / d
    u = np.stack([2 / d - 4 * pooled[:, 0] / d**2, -2 * pooled[:, 0] / d**2,
                  -2 * pooled[:, 0] / d**2, 0 * d], axis=-1)  # fmt: skip
    mean = (p * u[:, None, :]).sum(-1)
    s2 = ((p * u[:, None, :] ** 2).sum(-1) - mean**2) * n / (n - 1)
    parts = shares**2 * s2 / n
    var = parts.sum(-1)
    df = var**2 / (parts**2 / (n - 1)).sum(-1)
    step = stats.t.ppf(0.975, df) * np.sqrt(var) / (psa * (1 - psa))
    centre = np.log(psa / (1 - psa))
    return 1 / (1 + np.exp(-(centre - step))), 1 / (1 + np.exp(-(centre + step)))


def own_allocation(counts, design, floor: int, added: int) -> np.ndarray:
    held = counts.sum(axis=1)

    def more(total):
        wanted = np.maximum(np.ceil(design * total - 1e-9), floor).astype(int)
        return np.maximum(wanted - held, 0)

    total = 0
    while more(total).sum() < added:
        total += 1
    top, below = more(total), more(total - 1) if total else np.zeros(len(held), int)
    excess = top.sum() - added
    for h in np.argsort(design, kind="stable"):
        cut = min(excess, top[h] - below[h])
        top[h], excess = top[h] - cut, excess - cut
    return top


def own_procedure(batch: int, width: float, studies: int, seed: int):
    """``(totals, covered)`` of ``studies`` stratified procedures drawn item by item."""
    rng = np.random.default_rng(seed)
    truth = np.stack([rng.dirichlet(c + 0.5, size=studies) for c in COUNTS], axis=1)
    pop = (SHARES[None, :, None] * truth).sum(axis=1)
    psa = 2 * pop[:, 0] / (2 * pop[:, 0] + pop[:, 1] + pop[:, 2])
    tables = np.repeat(COUNTS[None], studies, axis=0)
    low, high = weighted_limits(tables, SHARES)
    done, given, k = (high - low) / 2 <= width, np.zeros(3, int), 0
    while not done.all():
        k += 1
        now = own_allocation(COUNTS, DESIGN, 0, k * batch)
        active = np.flatnonzero(~done)
        for h in range(3):
            for _ in range(now[h] - given[h]):  # one item at a time: its cell from the truth
                cum = truth[active, h].cumsum(axis=-1)
                cell = (rng.random(active.size)[:, None] > cum[:, :3]).sum(axis=1)
                tables[active, h, cell] += 1
        given = now
        low, high = weighted_limits(tables[active], SHARES)
        done[active] = (high - low) / 2 <= width
    low, high = weighted_limits(tables, SHARES)
    return tables.sum(axis=(1, 2)), (low <= psa) & (psa <= high)


@pytest.mark.slow
@pytest.mark.parametrize(("width", "batch"), [(0.06, 50), (0.05, 120)])
def test_the_procedure_matches_an_item_level_simulation(width, batch):
    got = strata_batch_procedure(
        STAGE,
        PlanSettings(width=width, replicates=4000),
        RemainingSettings(batch_size=batch),
        rng=4,
    )
    totals, covered = own_procedure(batch, width, 4000, 23)
    share = covered.mean()
    se = math.sqrt(got.coverage_se**2 + share * (1 - share) / covered.size)
    assert abs(got.coverage - share) < 3 * se
    spread = math.sqrt(2 * totals.var() / totals.size)
    assert abs(got.total_items["mean"] - totals.mean()) < 3 * spread
    assert got.total_items["p50"] == pytest.approx(np.median(totals), abs=batch)
    assert got.stopped_share == 1 and got.total_items["p10"] >= 300 + batch


def test_the_interval_written_here_is_the_libraryss():
    from planner.statistics.stratified import weighted_from_tables

    ci = weighted_from_tables("psa", COUNTS.reshape(1, 3, 2, 2), SHARES, 0.95)
    low, high = weighted_limits(COUNTS[None], SHARES)
    assert (float(ci.low[0]), float(ci.high[0])) == pytest.approx((low[0], high[0]), rel=1e-9)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 400), min_size=3, max_size=3),
    floor=st.integers(0, 150),
    added=st.integers(0, 3000),
)
def test_the_batches_follow_the_design_as_the_plan_does(counts, floor, added):
    table = np.array([[c, 0, 0, 1] for c in counts])  # only the strata sizes matter
    studies = _StratifiedStudies(table, SHARES, DESIGN, floor, (0.1, 0.95, 2, 1))
    got = batch_allocation(studies, added)
    assert got.sum() == added and (got >= 0).all()
    assert got.tolist() == own_allocation(table, DESIGN, floor, added).tolist()
    assert (batch_allocation(studies, added + 7) >= got).all()  # items once given stay
    # the plan's second stage for any design total is the allocation of its size
    total = added // 2
    assert batch_allocation(studies, int(studies.more(total).sum())).tolist() == (
        studies.more(total).tolist()
    )


@pytest.mark.slow
def test_a_batch_as_large_as_the_plans_remaining_is_its_second_stage():
    plan = plan_remaining_strata(STAGE, PlanSettings(width=0.06, replicates=2000), rng=5)
    studies = _StratifiedStudies(COUNTS, SHARES, DESIGN, 0, (0.06, 0.95, 2, 1))
    first = batch_allocation(studies, plan.remaining_items)
    assert first.tolist() == [s.remaining for s in plan.strata]
    # a batch past every procedure's need: the fixed total, and nominal coverage
    got = strata_batch_procedure(
        STAGE, PlanSettings(width=0.06, replicates=2000), RemainingSettings(batch_size=3000), rng=5
    )
    assert got.total_items == {"mean": 3300, "p10": 3300, "p50": 3300, "p90": 3300}
    assert abs(got.coverage - 0.95) < 3 * got.coverage_se + 0.01


def test_a_first_stage_narrow_enough_stops_at_once():
    got = strata_batch_procedure(
        STAGE, PlanSettings(width=0.08, replicates=400), RemainingSettings(batch_size=50), rng=5
    )
    assert got.total_items["p90"] == 300 and got.stopped_share == 1


@pytest.mark.slow
def test_cli_prints_the_procedure_and_its_json_keys_are_the_pairs():
    args = ["plan", "--labelled", str(FILE), "--scenario", str(SCENARIO), "--stratum-col"]
    args += ["stratum", "--positive", "unsupported", "--replicates", "400", "--seed", "1"]
    result = runner.invoke(app, [*args, "--batch-size", "100", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    keys = {"batch_size", "replicates", "coverage", "coverage_se", "nominal", "total_items"}
    assert keys | {"stopped_share", "truth", "notes"} == set(doc["batches"])
    assert doc["batches"]["total_items"]["p10"] >= 600 + 100
    plain = runner.invoke(app, [*args, "--json"])
    assert json.loads(plain.stdout)["batches"] is None
    shown = runner.invoke(app, [*args, "--batch-size", "100"])
    assert "Label in batches of 100" in shown.output


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--planned-items", "900"], "--planned-items does not apply to a stratified study"),
        (["--pair", "A,B"], "--pair does not apply to a stratified study"),
    ],
)
def test_the_refusals_that_remain_are_one_line(extra, needle):
    args = ["plan", "--labelled", str(FILE), "--scenario", str(SCENARIO), "--stratum-col"]
    args += ["stratum", "--positive", "unsupported", "--batch-size", "100", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code in (1, 2) and needle in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_batch_size_without_labelled_is_refused_in_one_line_for_several_annotators():
    args = ["plan", "--annotators", "3", "--prevalence", "0.2", "--batch-size", "100"]
    result = runner.invoke(app, args)
    assert result.exit_code in (1, 2) and "does not apply to several annotators" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_a_study_that_stops_now_covers_as_its_first_stage_interval_does():
    """When the first stage is narrow enough, the plan's final coverage is that of the first
    stage's own interval (nothing is added), checked against posterior truths drawn here."""
    plan = plan_remaining_strata(STAGE, PlanSettings(width=0.08, replicates=4000), rng=5)
    assert plan.remaining_items == 0
    rng = np.random.default_rng(123)
    cells = np.stack([rng.dirichlet(np.asarray(c) + 0.5, size=40_000) for c in COUNTS], axis=1)
    pop = (np.asarray(SHARES)[None, :, None] * cells).sum(axis=1)
    truth = 2 * pop[:, 0] / (2 * pop[:, 0] + pop[:, 1] + pop[:, 2])
    low, high = plan.interval_now
    expected = float(np.mean((low <= truth) & (truth <= high)))
    se = math.hypot(plan.final_coverage_se, math.sqrt(expected * (1 - expected) / 40_000))
    assert abs(plan.final_coverage - expected) <= 3 * se
