"""What the remaining hours or budget buy for a pair's study in progress."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from planner.errors import InvalidInput
from planner.sizing.midstudy import plan_remaining
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.plan import PlanSettings

#: examples/labelled-600.csv: both, a_only, b_only, neither
COUNTS = (30, 27, 13, 530)


def _wilson_psa_half_width(a: np.ndarray, u: np.ndarray, z: float) -> np.ndarray:
    """Half-width of the Wilson interval for J = a / U mapped to PSA = 2J / (1 + J)."""
    j = a / u
    centre = (j + z * z / (2 * u)) / (1 + z * z / u)
    spread = z * np.sqrt(j * (1 - j) / u + z * z / (4 * u * u)) / (1 + z * z / u)
    low, high = np.clip(centre - spread, 0, 1), np.clip(centre + spread, 0, 1)
    return (2 * high / (1 + high) - 2 * low / (1 + low)) / 2


def test_bought_items_are_the_hours_over_the_seconds_of_one_item():
    settings = PlanSettings(width=0.08, seconds_per_item=75.0, adjudication_seconds=60.0)
    result = plan_remaining(COUNTS, settings, RemainingSettings(hours=20.0), rng=1)
    contested = (27 + 13) / 600
    per_item = 2 * 75.0 + contested * 60.0  # two labels, adjudication of the contested share
    assert result.bought.bought_items == math.floor(20.0 * 3600 / per_item)
    assert result.bought.total_items == 600 + result.bought.bought_items


def test_a_budget_buys_what_its_hours_at_the_rate_buy():
    settings = PlanSettings(width=0.08, hourly_rate=30.0)
    result = plan_remaining(COUNTS, settings, RemainingSettings(budget=600.0), rng=1)
    assert result.bought.bought_items == math.floor(600.0 / 30.0 * 3600 / (2 * 90.0))
    assert result.bought.cost.cost == pytest.approx(600.0)


@pytest.mark.slow
def test_assurance_at_the_bought_total_agrees_with_an_item_level_simulation():
    result = plan_remaining(COUNTS, PlanSettings(width=0.08), RemainingSettings(hours=30.0), rng=1)
    more = result.bought.bought_items
    rng = np.random.default_rng(2024)
    reps = 20_000
    cells = rng.dirichlet(np.asarray(COUNTS) + 0.5, size=reps)
    second = np.array([rng.multinomial(more, p) for p in cells])
    final = second + np.asarray(COUNTS)
    a, u = final[:, 0].astype(float), final[:, :3].sum(axis=1).astype(float)
    half = _wilson_psa_half_width(a, u, 1.959963984540054)
    share = np.mean(half <= 0.08)
    se = math.sqrt(share * (1 - share) / reps)
    assert abs(result.bought.assurance - share) <= 3 * se
    half_se = math.hypot(np.std(half) / math.sqrt(reps), result.bought.half_width_se)
    assert abs(result.bought.half_width_expected - half.mean()) <= 3 * half_se


def test_hours_and_budget_together_are_refused():
    with pytest.raises(InvalidInput) as info:
        RemainingSettings(hours=10.0, budget=100.0)
    assert info.value.parameter == "budget"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--labelled", "examples/labelled-600.csv", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_cli_json_has_the_bought_section():
    done = _cli("--hours", "20", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    bought = json.loads(done.stdout)["bought"]
    assert set(bought) >= {"bought_items", "total_items", "half_width_expected", "assurance"}
    assert bought["bought_items"] == 20 * 3600 // (2 * 90)
    assert bought["total_items"] == 600 + bought["bought_items"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "flag"),
    [(("--hours", "-3"), "--hours"), (("--budget", "300"), "--hourly-rate")],
)
def test_cli_bad_hours_or_budget_is_one_line_exit_2(args, flag):
    done = _cli(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0]


@pytest.mark.slow
def test_cli_hours_that_buy_no_stratified_item_are_one_line_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--labelled", "examples/stratified-labels.csv",
         "--stratum-col", "stratum", "--scenario", "unsupported-claims-enriched",
         "--positive", "unsupported", "--hours", "0.001", "--seed", "1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1
    assert "--hours" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.slow
def test_cli_budget_of_several_annotators_without_a_rate_is_one_line_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--labelled", "examples/wide.csv",
         "--layout", "wide", "--annotator-cols", "alice,bob,carol", "--positive", "unsupported",
         "--width", "0.05", "--budget", "500", "--seed", "1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1
    assert "--hourly-rate" in lines[0] and "Traceback" not in done.stderr


def test_kappas_assurance_se_is_the_binomial_formula_over_its_studies():
    settings = PlanSettings(width=0.08, metric="kappa", replicates=2000)
    bought = plan_remaining(COUNTS, settings, RemainingSettings(hours=30.0), rng=1).bought
    a = bought.assurance
    assert bought.assurance_se == pytest.approx(math.sqrt(a * (1 - a) / 2000))


def test_psas_assurance_se_is_below_the_binomial_bound_of_its_draws():
    # exact per-draw assurances A_d in [0, 1]: Var(A_d) <= A (1 - A), so the SE of their
    # mean over the 880 draws is at most the binomial formula's
    bought = plan_remaining(
        COUNTS, PlanSettings(width=0.08), RemainingSettings(hours=30.0), rng=1
    ).bought
    a = bought.assurance
    assert 0 < bought.assurance_se <= math.sqrt(a * (1 - a) / 880)


@pytest.mark.slow
def test_the_bought_section_has_the_same_keys_for_every_kind_of_study():
    pair = _cli("--hours", "20", "--seed", "1", "--json")
    several = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--labelled", "examples/wide.csv",
         "--layout", "wide", "--annotator-cols", "alice,bob,carol", "--positive", "unsupported",
         "--width", "0.05", "--hours", "30", "--seed", "1", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    strata = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--labelled", "examples/stratified-labels.csv",
         "--stratum-col", "stratum", "--scenario", "unsupported-claims-enriched",
         "--positive", "unsupported", "--hours", "20", "--seed", "1", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    sections = [json.loads(done.stdout)["bought"] for done in (pair, several, strata)]
    assert len({tuple(sorted(s)) for s in sections}) == 1
    assert all(0 <= s["assurance_se"] <= 0.5 for s in sections)
    assert sum(sections[2]["by_stratum"].values()) == sections[2]["bought_items"]
    assert sections[0]["by_stratum"] is None
