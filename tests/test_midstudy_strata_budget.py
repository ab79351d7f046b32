"""What the remaining hours or budget buy for a stratified study in progress."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from planner.errors import InvalidInput
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.midstudy_strata import StrataStage, plan_remaining_strata
from planner.sizing.plan import PlanSettings

#: two strata, (both, a_only, b_only, neither) each; the design labels "flagged" at 40 %
COUNTS = np.array([(30, 10, 8, 52), (12, 10, 9, 269)])
SHARES, DESIGN, SECONDS = np.array([0.1, 0.9]), np.array([0.4, 0.6]), np.array([60.0, 90.0])
STAGE = StrataStage(COUNTS, ["flagged", "rest"], SHARES, DESIGN, seconds_per_item=SECONDS)
SETTINGS = PlanSettings(width=0.1, adjudication_seconds=30.0, hourly_rate=20.0, replicates=4000)


def _by_hand(hours: float) -> np.ndarray:
    """The design's extra items per stratum at the largest total whose hours fit: each
    stratum brought to ceil(a_h T), two labels at s_h seconds, its contested share at 30 s."""
    n0 = COUNTS.sum(axis=1)
    contested = (COUNTS[:, 1] + COUNTS[:, 2]) / n0
    best = np.zeros(2, dtype=np.int64)
    for total in range(1, 2000):
        more = np.maximum(np.ceil(DESIGN * total - 1e-9).astype(np.int64) - n0, 0)
        spent = (more * (2 * SECONDS + contested * 30.0)).sum() / 3600
        if spent <= hours:
            best = more
    return best


def test_hours_buy_the_designs_items_priced_per_stratum():
    result = plan_remaining_strata(STAGE, SETTINGS, RemainingSettings(hours=6.5), rng=3)
    more = _by_hand(6.5)
    assert result.bought.by_stratum == {"flagged": more[0], "rest": more[1]}
    assert result.bought.bought_items == more.sum()
    assert result.bought.total_items == COUNTS.sum() + more.sum()
    assert result.bought.cost.person_hours <= 6.5


def test_a_budget_buys_what_its_hours_at_the_rate_buy():
    knobs = RemainingSettings(budget=130.0)
    result = plan_remaining_strata(STAGE, SETTINGS, knobs, rng=3)
    assert result.bought.bought_items == _by_hand(130.0 / 20.0).sum()


def test_assurance_se_is_the_binomial_formula_over_the_simulated_studies():
    result = plan_remaining_strata(STAGE, SETTINGS, RemainingSettings(hours=6.5), rng=3)
    a = result.bought.assurance
    assert result.bought.assurance_se == pytest.approx(math.sqrt(a * (1 - a) / 4000))


def test_hours_that_buy_no_item_name_hours():
    with pytest.raises(InvalidInput) as info:
        plan_remaining_strata(STAGE, SETTINGS, RemainingSettings(hours=0.001), rng=3)
    assert info.value.parameter == "hours"


def _weighted_psa_interval(tables: np.ndarray, level: float = 0.95):
    """Population-weighted PSA of (R, H, 4) tables: the combined ratio estimator, its
    linearised variance sum_h W_h^2 s_h^2 / n_h, Satterthwaite's df and a t interval on
    the logit scale (docs/stratified-analysis.md)."""
    n = tables.sum(axis=2)
    p = tables / n[:, :, None]
    pop = (SHARES[None, :, None] * p).sum(axis=1)  # (R, 4)
    a, b, c = pop[:, 0], pop[:, 1], pop[:, 2]
    d = 2 * a + b + c
    psa = 2 * a / d
    grad = np.stack([2 * (b + c) / d**2, -2 * a / d**2, -2 * a / d**2, 0 * a], axis=1)
    mean_u = (p * grad[:, None, :]).sum(axis=2)
    s2 = ((p * grad[:, None, :] ** 2).sum(axis=2) - mean_u**2) * n / (n - 1)
    parts = SHARES**2 * s2 / n
    var = parts.sum(axis=1)
    df = var**2 / (parts**2 / (n - 1)).sum(axis=1)
    t = special.stdtrit(df, 0.5 + level / 2)
    step = t * np.sqrt(var) / (psa * (1 - psa))
    logit = np.log(psa / (1 - psa))
    return special.expit(logit - step), special.expit(logit + step)


@pytest.mark.slow
def test_assurance_and_half_width_agree_with_an_item_level_simulation():
    result = plan_remaining_strata(STAGE, SETTINGS, RemainingSettings(hours=6.5), rng=3)
    bought = result.bought
    more = [bought.by_stratum["flagged"], bought.by_stratum["rest"]]
    rng = np.random.default_rng(11)
    reps = 6000
    tables = np.repeat(COUNTS[None].astype(float), reps, axis=0)
    for h, m in enumerate(more):  # each stratum's own truth, its items one by one
        truth = rng.dirichlet(COUNTS[h] + 0.5, size=reps)
        cells = (rng.random((reps, m))[:, :, None] > np.cumsum(truth, axis=1)[:, None, :]).sum(2)
        tables[:, h] += np.stack([(cells == k).sum(axis=1) for k in range(4)], axis=1)
    low, high = _weighted_psa_interval(tables)
    half = np.where(np.isfinite(high - low) & (high > low), (high - low) / 2, 1.0)
    share = float(np.mean(half <= 0.1))
    se = math.hypot(math.sqrt(share * (1 - share) / reps), bought.assurance_se)
    assert abs(bought.assurance - share) <= 3 * se
    half_se = math.hypot(half.std(ddof=1) / math.sqrt(reps), bought.half_width_se)
    assert abs(bought.half_width_expected - half.mean()) <= 3 * half_se
