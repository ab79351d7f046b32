"""The weighted design is sized with the interval its analysis reports, checked apart.

The planned stratified sample is simulated item by item (each item's cell drawn on its own
inside its stratum), and the interval is computed here from scratch: the combined ratio PSA
``R = 2 A / (2 A + B + C)`` of the population-weighted cell shares, the linearised residual
of each item ``u = z / X`` (``z = 2 (1 - R)`` for a both-positive item, ``-R`` for a
one-positive item, 0 otherwise; ``X = 2 A + B + C``; Cochran 1977 section 6.11, Woodruff
1971), ``V = sum_h W_h^2 s_h^2 / n_h`` with ``s_h^2`` the sample variance (divisor
``n_h - 1``), Satterthwaite's df ``V^2 / sum_h (W_h^2 s_h^2 / n_h)^2 / (n_h - 1)``
(Satterthwaite 1946), and a t interval on the logit scale mapped back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from planner.data.scenario import load_scenario
from planner.sizing.compare import compare_designs
from planner.sizing.design import weighted_estimate
from planner.sizing.pair_strata import stratum_models
from planner.sizing.plan import PlanSettings

SCENARIO = Path(__file__).parent.parent / "scenarios" / "unsupported-claims-enriched.toml"
REPS = 4000


def _item_level_intervals(cells, shares, items, reps, seed, level=0.95):
    """``(R,)`` lower and upper limits of independently simulated stratified studies."""
    rng = np.random.default_rng(seed)
    w = np.asarray(shares, dtype=float)
    labels = [rng.choice(4, size=(reps, n), p=p) for p, n in zip(cells, items, strict=True)]
    share = np.stack(
        [np.stack([(lab == k).mean(axis=1) for k in range(4)], axis=-1) for lab in labels], axis=1
    )  # (R, H, 4)
    pooled = (w[None, :, None] * share).sum(axis=1)  # (R, 4)
    both, one = pooled[:, 0], pooled[:, 1] + pooled[:, 2]
    x = 2 * both + one
    ratio = 2 * both / x
    a_h = []
    for h, lab in enumerate(labels):
        z = np.where(lab == 0, 2 * (1 - ratio)[:, None], 0.0)
        z = np.where((lab == 1) | (lab == 2), -ratio[:, None], z)
        u = z / x[:, None]
        a_h.append(w[h] ** 2 * u.var(axis=1, ddof=1) / items[h])
    a = np.array(a_h)  # (H, R)
    var = a.sum(axis=0)
    df = var**2 / (a**2 / (np.asarray(items)[:, None] - 1)).sum(axis=0)
    t = stats.t.ppf(0.5 + level / 2, df)
    logit = np.log(ratio / (1 - ratio))
    half = t * np.sqrt(var) / (ratio * (1 - ratio))
    return 1 / (1 + np.exp(-(logit - half))), 1 / (1 + np.exp(-(logit + half))), ratio


@pytest.fixture(scope="module")
def planned():
    scenario = load_scenario(SCENARIO)
    settings = PlanSettings(
        width=scenario.target["width"], assurance=scenario.target["assurance"], replicates=4000
    )
    comparison = compare_designs(scenario, settings, rng=11, floor_items=30, prevalence_width=0.02)
    models = stratum_models(scenario)
    shares = np.array([s.share for s in scenario.strata])
    cells = np.array([m.cells for m in models])
    return comparison, settings, cells, shares


@pytest.mark.slow
def test_planned_weighted_design_reaches_its_assurance_and_not_at_eighty_percent(planned):
    comparison, settings, cells, shares = planned
    items = comparison.designs["weighted"].items_per_stratum
    se = np.sqrt(settings.assurance * (1 - settings.assurance) / REPS)
    low, high, _ = _item_level_intervals(cells, shares, items, REPS, seed=2024)
    reached = np.mean((high - low) / 2 <= settings.width)
    assert reached >= settings.assurance - 3 * se
    fewer = [max(2, int(0.8 * n)) for n in items]
    low, high, _ = _item_level_intervals(cells, shares, fewer, REPS, seed=2025)
    assert np.mean((high - low) / 2 <= settings.width) < settings.assurance - 0.3


@pytest.mark.slow
def test_planned_weighted_interval_covers_traffic_psa_as_reported(planned):
    comparison, _, cells, shares = planned
    design = comparison.designs["weighted"]
    pooled = (shares[:, None] * cells).sum(axis=0)
    truth = 2 * pooled[0] / (2 * pooled[0] + pooled[1] + pooled[2])
    low, high, _ = _item_level_intervals(cells, shares, design.items_per_stratum, REPS, 77)
    ours = np.mean((low <= truth) & (truth <= high))
    se = np.sqrt(0.95 * 0.05 / REPS)
    assert abs(ours - 0.95) < 4 * se  # the interval is close to nominal at the planned size
    assert abs(design.coverage - ours) < 4 * np.sqrt(2) * se  # and the plan says so
    assert any(f"{design.coverage:.3f}" in note for note in comparison.notes)


def test_design_interval_is_the_hand_written_logit_t_interval():
    cells = np.array([[0.2, 0.05, 0.04, 0.71], [0.03, 0.02, 0.02, 0.93]])
    shares = np.array([0.3, 0.7])
    items = [40, 90]
    low, high, ratio = _item_level_intervals(cells, shares, items, 200, seed=5)
    # the same studies as tables: rebuild them from the same seed
    rng = np.random.default_rng(5)
    labels = [rng.choice(4, size=(200, n), p=p) for p, n in zip(cells, items, strict=True)]
    tables = np.stack(
        [np.stack([(lab == k).sum(axis=1) for k in range(4)], axis=-1) for lab in labels], axis=1
    ).reshape(200, 2, 2, 2)
    estimate, lo, hi = weighted_estimate("psa", tables, shares)
    np.testing.assert_allclose(estimate, ratio, rtol=1e-12)
    np.testing.assert_allclose(lo, low, rtol=1e-9)
    np.testing.assert_allclose(hi, high, rtol=1e-9)
