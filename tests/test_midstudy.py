"""A study in progress (plan --labelled): the remaining items, checked by independent simulation.

The test's own simulations never call the planner's search: they draw the truths from the first
stage's posterior Dirichlet(counts + 1/2) (or from the model), draw the second stage as
multinomial counts, add the first stage, and compute the Wilson interval for J = a / U mapped to
PSA = 2J / (1 + J) by the formula written here (Wilson 1927; the mapping: docs/methods.md 1.2).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.sizing.midstudy import plan_remaining, plan_remaining_from_file
from planner.sizing.midstudy_assurance import StageAssurance
from planner.sizing.midstudy_procedure import batch_procedure, batches_from_model
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings
from planner.sizing.uncertainty import narrow_outcomes
from planner.statistics.intervals import psa_conditional_interval

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
LABELLED = ROOT / "examples" / "labelled-600.csv"
Z95 = 1.959963984540054  # the standard normal's 0.975 quantile
runner = CliRunner()


def wilson_psa(a, u, z=Z95):
    """Lower and upper limits of the Wilson interval for J = a/U, mapped to PSA (U > 0)."""
    a, u = np.asarray(a, float), np.maximum(np.asarray(u, float), 1)
    p = a / u
    den = 1 + z * z / u
    centre = (p + z * z / (2 * u)) / den
    half = z * np.sqrt(p * (1 - p) / u + z * z / (4 * u * u)) / den
    low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    return 2 * low / (1 + low), 2 * high / (1 + high)


def wilson_psa_half_width(a, u):
    low, high = wilson_psa(a, u)
    return np.where(np.asarray(u) > 0, (high - low) / 2, np.inf)


def file_counts(path: Path) -> np.ndarray:
    """(both, a_only, b_only, neither) of a long file with labels 1/0, counted here."""
    items: dict[str, dict[str, int]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            items.setdefault(row["item"], {})[row["annotator"]] = int(row["label"])
    pairs = Counter((v["ann_a"], v["ann_b"]) for v in items.values())
    return np.array([pairs[(1, 1)], pairs[(1, 0)], pairs[(0, 1)], pairs[(0, 0)]])


def simulated_assurance(counts, more, width, draws=40_000, seed=7):
    """Share of finished studies (first stage + ``more`` items, truths from the first stage's
    posterior) whose Wilson PSA interval has half-width <= width."""
    rng = np.random.default_rng(seed)
    cells = rng.dirichlet(np.asarray(counts) + 0.5, size=draws)
    final = np.asarray(counts) + rng.multinomial(int(more), cells)
    return float(np.mean(wilson_psa_half_width(final[:, 0], final[:, :3].sum(axis=1)) <= width))


def labelled_json(*args: str) -> dict:
    result = runner.invoke(app, ["plan", "--labelled", str(LABELLED), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --------------------------------------------------------------------------- the check


def test_the_example_is_the_first_600_items_of_the_headline_model():
    counts = file_counts(LABELLED)
    assert counts.sum() == 600
    # the headline model's cells (plan --prevalence 0.08): a 0.0454, b = c 0.0346, d 0.885;
    # each count within 3.5 binomial SDs of 600 times its cell
    cells = np.array([0.04543, 0.03457, 0.03457, 0.88543])
    assert np.all(np.abs(counts - 600 * cells) <= 3.5 * np.sqrt(600 * cells * (1 - cells)))


@pytest.mark.parametrize("assurance", [0.5, 0.8])
def test_remaining_items_reach_the_assurance_and_80_percent_of_them_clearly_do_not(assurance):
    doc = labelled_json("--width", "0.08", "--assurance", str(assurance), "--seed", "1")
    counts = file_counts(LABELLED)
    remaining = doc["remaining_items"]
    assert doc["total_items"] == 600 + remaining
    assert doc["recommendation"]["items"] == remaining
    reached = simulated_assurance(counts, remaining, 0.08)
    assert abs(reached - assurance) <= 0.03
    assert simulated_assurance(counts, round(0.8 * remaining), 0.08) <= assurance - 0.1
    # the interval now: the test's own Wilson interval on the first stage
    low, high = wilson_psa(counts[0], counts[:3].sum())
    assert doc["half_width_now"] == pytest.approx((high - low) / 2, rel=1e-9)
    assert doc["assurance_now"] == 0.0  # 0.11 > 0.08: not narrow yet


def test_kappa_remaining_items_confirmed_by_an_independent_simulation():
    from planner.statistics.intervals import kappa_interval

    doc = labelled_json("--width", "0.08", "--metric", "kappa", "--seed", "3")
    counts = file_counts(LABELLED)
    rng = np.random.default_rng(11)

    def share(more: int) -> float:
        cells = rng.dirichlet(counts + 0.5, size=20_000)
        final = (counts + rng.multinomial(more, cells)).reshape(-1, 2, 2)
        return float(np.mean(kappa_interval(final, 0.95, "score").half_width <= 0.08))

    assert abs(share(doc["remaining_items"]) - 0.5) <= 0.03
    assert share(round(0.8 * doc["remaining_items"])) <= 0.4


def test_hours_cost_and_the_original_plan():
    doc = labelled_json(
        "--width", "0.08", "--seed", "1", "--hourly-rate", "40", "--planned-items", "1280"
    )
    remaining = doc["remaining_items"]
    budget = doc["recommendation"]["budget"]
    assert budget["person_hours"] == pytest.approx(remaining * 2 * 90 / 3600)
    assert budget["cost"] == pytest.approx(40 * remaining * 2 * 90 / 3600)
    # continuing to the original plan's 1,280 items in all: 680 more, checked independently
    expected = simulated_assurance(file_counts(LABELLED), 1280 - 600, 0.08)
    assert doc["assurance_planned"] == pytest.approx(expected, abs=0.02)
    assert doc["assurance_planned"] > doc["assurance"]  # 1,280 > the total planned now


def test_the_worked_value_of_the_shared_methods_notes():
    # /work/shared/METHODS.md section 6.5 (computed there independently): the headline model's
    # first stage of 600 items with counts 29/14/20/537 needs about 609 more items (total about
    # 1,209) for Wilson PSA +-0.08 at assurance 0.5; at 0.8 x 609 the assurance is about 0.21
    result = plan_remaining(
        (29, 14, 20, 537), PlanSettings(), RemainingSettings(planned_items=600 + 487), rng=1
    )
    assert abs(result.remaining_items - 609) <= 6
    assert abs(result.total_items - 1209) <= 6
    assert result.assurance_planned == pytest.approx(0.21, abs=0.015)


# --------------------------------------------------------------------------- the exact sums


@pytest.mark.parametrize(("a0", "u0", "more"), [(5, 12, 30), (0, 4, 60), (9, 9, 45), (3, 20, 1)])
def test_stage_assurance_is_the_brute_force_sum_over_the_second_stage(a0, u0, more):
    width, level = 0.15, 0.95
    outcomes = narrow_outcomes(width, level, "wilson")
    cells = np.array([[0.1, 0.1, 0.05, 0.75], [0.02, 0.2, 0.0, 0.78], [0.3, 0.05, 0.05, 0.6]])
    got = StageAssurance(cells, outcomes, a0, u0)(more)
    for row, value in zip(cells, got, strict=True):
        r, j = row[:3].sum(), row[0] / row[:3].sum()
        total = 0.0
        for u2 in range(more + 1):
            a2 = np.arange(u2 + 1)
            ci = psa_conditional_interval(a0 + a2, u0 + u2, level, "wilson")
            narrow = (ci.high - ci.low) / 2 <= width
            total += stats.binom.pmf(u2, more, r) * np.sum(stats.binom.pmf(a2, u2, j) * narrow)
        assert value == pytest.approx(total, abs=1e-9)


def test_a_first_stage_already_narrow_needs_no_more_items():
    result = plan_remaining(
        (300, 40, 40, 5000), PlanSettings(), RemainingSettings(planned_items=9000), rng=1
    )
    assert result.half_width_now <= 0.08
    assert (result.remaining_items, result.assurance_now, result.assurance) == (0, 1.0, 1.0)
    assert any("no more items are needed" in n for n in result.notes)


def test_metric_both_recommends_the_metric_that_needs_more():
    result = plan_remaining(tuple(file_counts(LABELLED)), PlanSettings(metric="both"), rng=2)
    each = {m: p.remaining_items for m, p in result.by_metric.items()}
    assert set(each) == {"psa", "kappa"}
    assert result.remaining_items == max(each.values())


# --------------------------------------------------------------------------- procedures


def _exact_coverage_of_second_stage(a0: int, u0: int, more: int, r: float, j: float) -> float:
    """P(the final Wilson PSA interval covers the true PSA), summed exactly over the second
    stage: U2 ~ Bin(more, r), a2 | U2 ~ Bin(U2, J)."""
    truth = 2 * j / (1 + j)
    u2 = np.arange(more + 1)
    weight_u = stats.binom.pmf(u2, more, r)
    keep = weight_u > 1e-12
    total = 0.0
    for u, w in zip(u2[keep], weight_u[keep], strict=True):
        a2 = np.arange(u + 1)
        low, high = wilson_psa(a0 + a2, u0 + u)
        covers = (low <= truth) & (truth <= high)
        total += w * np.sum(stats.binom.pmf(a2, u, j) * covers)
    return float(total)


@pytest.mark.slow
def test_two_stage_procedure_covers_within_one_and_a_half_points_of_nominal():
    """First stages of 600 items from the headline model, each re-planned by plan_remaining
    (the procedure a user follows), then the re-planned items labelled: the final Wilson PSA
    interval's coverage, summed exactly over the second stage, averaged over 300 first stages
    (its standard error about 0.004: the conditional coverage's SD is about 0.07); and the
    coverage of a fixed study of the average total, for comparison."""
    model = pair_from_annotators(0.08)
    cells = np.asarray(model.cells)
    r, j = cells[:3].sum(), cells[0] / cells[:3].sum()
    first = np.random.default_rng(2026).multinomial(600, cells, size=300)
    coverage, totals, plans = [], [], {}
    for a0, u0 in zip(first[:, 0], first[:, :3].sum(axis=1), strict=True):
        key = (int(a0), int(u0))
        if key not in plans:  # PSA's re-plan depends on the first stage through a0 and U0
            counts = (key[0], key[1] - key[0], 0, 600 - key[1])
            plans[key] = plan_remaining(
                counts, PlanSettings(replicates=100), RemainingSettings(draws=20), rng=1
            ).remaining_items
        coverage.append(_exact_coverage_of_second_stage(*key, plans[key], r, j))
        totals.append(600 + plans[key])
    two_stage = float(np.mean(coverage))
    assert abs(two_stage - 0.95) <= 0.015
    fixed = _exact_coverage_of_second_stage(0, 0, round(np.mean(totals)), r, j)
    assert abs(two_stage - fixed) <= 0.015


def _own_batches(start, cells, batch, width, rng, max_total=20_000):
    """The batch procedure simulated here: add ``batch`` items until the half-width is at most
    ``width``; returns the final tables."""
    tables = np.array(start, dtype=np.int64)
    for _ in range(max_total // batch):
        hw = wilson_psa_half_width(tables[:, 0], tables[:, :3].sum(axis=1))
        active = hw > width
        if not active.any():
            break
        tables[active] += rng.multinomial(batch, cells[active])
    return tables


def _own_coverage(tables, truth_psa):
    low, high = wilson_psa(tables[:, 0], tables[:, :3].sum(axis=1))
    return float(np.mean((low <= truth_psa) & (truth_psa <= high)))


def test_batches_from_the_model_cover_near_nominal_and_agree_with_the_library():
    cells = np.asarray(pair_from_annotators(0.08).cells)
    truth = 2 * cells[0] / (2 * cells[0] + cells[1] + cells[2])
    rng = np.random.default_rng(5)
    start = rng.multinomial(600, cells, size=4000)
    own = _own_batches(start, np.repeat(cells[None, :], 4000, axis=0), 100, 0.08, rng)
    ours = _own_coverage(own, truth)
    assert abs(ours - 0.95) <= 0.015
    library = batches_from_model(
        cells, PlanSettings(), RemainingSettings(batch_size=100, first_items=600), rng=1
    )
    se = np.sqrt(2 * 0.95 * 0.05 / 4000)
    assert abs(library.coverage - ours) <= 3.5 * se
    assert abs(library.total_items["mean"] - own.sum(axis=1).mean()) <= 20
    assert library.notes == []


def test_small_batches_from_a_small_first_stage_under_cover_and_say_so():
    cells = np.asarray(pair_from_annotators(0.08).cells)
    truth = 2 * cells[0] / (2 * cells[0] + cells[1] + cells[2])
    rng = np.random.default_rng(6)
    start = rng.multinomial(50, cells, size=4000)
    own = _own_batches(start, np.repeat(cells[None, :], 4000, axis=0), 1, 0.2, rng)
    assert _own_coverage(own, truth) < 0.95 - 0.015  # the stopping rule's bias, seen here
    library = batches_from_model(
        cells, PlanSettings(width=0.2), RemainingSettings(batch_size=1, first_items=50), rng=1
    )
    assert library.coverage < 0.95 - 0.015
    assert any("fix the total in advance" in n for n in library.notes)


def test_batches_from_the_labels_in_hand_against_the_own_simulation():
    counts = file_counts(LABELLED)
    rng = np.random.default_rng(8)
    cells = rng.dirichlet(counts + 0.5, size=4000)
    own = _own_batches(np.repeat(counts[None, :], 4000, axis=0), cells, 100, 0.08, rng)
    truth = 2 * cells[:, 0] / (2 * cells[:, 0] + cells[:, 1] + cells[:, 2])
    library = batch_procedure(
        tuple(counts), PlanSettings(), RemainingSettings(batch_size=100), rng=1
    )
    assert abs(library.coverage - _own_coverage(own, truth)) <= 3.5 * np.sqrt(2 * 0.0475 / 4000)
    assert abs(library.total_items["mean"] - own.sum(axis=1).mean()) <= 20


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--prevalence", "0.08"], "--prevalence"),
        (["--batch-size", "0"], "--batch-size"),
        (["--planned-items", "0"], "--planned-items"),
        (["--max-items", "500"], "--max-items"),
        (["--metric", "fleiss"], "--metric"),
        (["--psa-method", "wald"], "--psa-method"),
        (["--replicates", "5"], "--replicates"),
        (["--width", "0.001"], "--width"),  # refused before any grid is built
    ],
)
def test_bad_options_with_labelled_are_one_line_naming_the_flag(args, flag):
    result = runner.invoke(app, ["plan", "--labelled", str(LABELLED), *args, "--seed", "1"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and flag in lines[0], lines


def test_planned_items_without_labelled_is_refused():
    result = runner.invoke(app, ["plan", "--prevalence", "0.08", "--planned-items", "100"])
    assert result.exit_code == 2
    assert "--labelled" in result.stderr and "--planned-items" in result.stderr


def test_three_annotators_are_planned_as_three_or_as_the_chosen_pair():
    wide = ["--layout", "wide", "--annotator-cols", "alice,bob,carol"]
    args = ["plan", "--labelled", str(ROOT / "examples" / "wide.csv"), *wide]
    every = runner.invoke(app, [*args, "--positive", "unsupported", "--seed", "1", "--json"])
    assert every.exit_code == 0, every.output
    assert json.loads(every.stdout)["labelled"]["annotators"] == ["alice", "bob", "carol"]
    chosen = runner.invoke(app, [*args, "--positive", "unsupported", "--pair", "alice,bob"])
    assert chosen.exit_code == 0, chosen.output
    assert "pair alice, bob" in chosen.stdout


def test_library_names_its_parameters():
    with pytest.raises(InvalidInput) as caught:
        plan_remaining((0, 0, 0, 100))
    assert caught.value.parameter == "counts"
    with pytest.raises(InvalidInput) as caught:
        plan_remaining((30, 27, 13, 530), PlanSettings(), RemainingSettings(batch_size=0))
    assert caught.value.parameter == "batch_size"
    result = plan_remaining_from_file(str(LABELLED), PlanSettings(width=0.1), rng=1)
    assert result.stage.counts == tuple(int(c) for c in file_counts(LABELLED))
