"""What the remaining hours or budget buy for a study of several annotators in progress."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from scipy import special

from planner.sizing.label_patterns import contested_share
from planner.sizing.midstudy import plan_remaining_from_file
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.plan import PlanSettings

WIDE = "examples/wide.csv"
READER = {"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]}


def _plan(settings: PlanSettings, knobs: RemainingSettings, seed: int = 1):
    return plan_remaining_from_file(
        WIDE, settings, knobs, reader=READER, positive="unsupported", rng=seed
    )


@pytest.mark.slow
def test_hours_buy_three_labels_an_item_at_the_seconds_per_label():
    result = _plan(PlanSettings(width=0.05, seconds_per_item=80.0), RemainingSettings(hours=30))
    assert result.bought.bought_items == math.floor(30 * 3600 / (3 * 80.0))  # 450
    assert result.bought.total_items == 600 + result.bought.bought_items
    assert result.bought.cost.labels == 3 * result.bought.bought_items


@pytest.mark.slow
def test_adjudication_of_the_fits_contested_share_is_priced_in():
    settings = PlanSettings(width=0.05, adjudication_seconds=120.0, hourly_rate=25.0)
    result = _plan(settings, RemainingSettings(budget=1000.0))
    q = contested_share(result.pilot.model)  # P(the three labels do not all agree)
    per_item = 3 * 90.0 + q * 120.0
    assert result.bought.bought_items == math.floor(1000.0 / 25.0 * 3600 / per_item)
    assert result.bought.cost.cost <= 1000.0 + 1e-9


@pytest.mark.slow
def test_the_bought_items_contested_share_is_counted_without_adjudication_time():
    # as a pair's budget counts p_b + p_c: the items a study would adjudicate, time or not
    result = _plan(PlanSettings(width=0.05), RemainingSettings(hours=30))
    model = result.pilot.model
    assert model.ambiguity == 0  # a latent-class fit: independent labels given the class
    unanimous = sum(
        pi * np.prod([model.confusion[j][t][label] for j in range(model.n_annotators)])
        for t, pi in enumerate(model.prevalences)
        for label in range(model.n_categories)
    )
    cost = result.bought.cost
    assert cost.contested_items == pytest.approx(result.bought.bought_items * (1 - unanimous))
    assert cost.adjudication_hours == 0


@pytest.mark.slow
def test_assurance_se_is_the_binomial_formula_over_the_finished_studies():
    result = _plan(PlanSettings(width=0.05), RemainingSettings(hours=54))
    a = result.bought.assurance
    assert result.bought.assurance_se == pytest.approx(math.sqrt(a * (1 - a) / result.studies))


def _first_stage(positive: str = "unsupported") -> tuple[np.ndarray, np.ndarray]:
    """Per item of examples/wide.csv: positive labels and labels (empty cells left out)."""
    with open(WIDE, newline="") as handle:
        rows = list(csv.DictReader(handle))
    labels = [[row[a] for a in READER["annotator_cols"] if row[a]] for row in rows]
    n1 = np.array([sum(v == positive for v in item) for item in labels])
    r = np.array([len(item) for item in labels])
    return n1[r > 0], r[r > 0]


def _specific_positive_agreement(n1: np.ndarray, r: np.ndarray, z: float):
    """Per study (rows): Uebersax's ratio sum n1 (n1 - 1) / sum n1 (r - 1), its linearised
    ratio SE and the Wald interval on the logit scale (docs/methods/several-annotators.md)."""
    y, x = n1 * (n1 - 1.0), n1 * (r - 1.0)
    ratio = y.sum(axis=1) / x.sum(axis=1)
    n = (r >= 2).sum(axis=1)
    resid = np.where(r >= 2, y - ratio[:, None] * x, 0.0)
    se = np.sqrt((resid**2).sum(axis=1) / x.sum(axis=1) ** 2 * n / (n - 1))
    step = z * se / (ratio * (1 - ratio))
    logit = np.log(ratio / (1 - ratio))
    return special.expit(logit - step), special.expit(logit + step)


@pytest.mark.slow
def test_assurance_and_half_width_agree_with_an_item_level_simulation():
    result = _plan(PlanSettings(width=0.05), RemainingSettings(hours=54))
    bought = result.bought
    m = bought.bought_items
    first_n1, first_r = _first_stage()
    rng = np.random.default_rng(77)
    reps, width, z = 3000, 0.05, 1.959963984540054
    draws = result.pilot.draws
    positive = list(result.pilot.categories).index("unsupported")
    n1 = np.empty((reps, m), dtype=np.int64)
    for s in range(reps):  # each study under one bootstrap truth, item by item
        prevalence, confusion = draws[rng.integers(len(draws))]
        truth = rng.choice(len(prevalence), size=m, p=prevalence)
        says = rng.random((m, 3)) < np.asarray(confusion)[:, truth, positive].T
        n1[s] = says.sum(axis=1)
    all_n1 = np.hstack([np.broadcast_to(first_n1, (reps, first_n1.size)), n1])
    all_r = np.hstack([np.broadcast_to(first_r, (reps, first_r.size)), np.full((reps, m), 3)])
    low, high = _specific_positive_agreement(all_n1, all_r, z)
    half = np.where(np.isfinite(high - low) & (high > low), (high - low) / 2, 1.0)
    share = float(np.mean(half <= width))
    se = math.hypot(math.sqrt(share * (1 - share) / reps), bought.assurance_se)
    assert abs(bought.assurance - share) <= 3 * se
    half_se = math.hypot(half.std(ddof=1) / math.sqrt(reps), bought.half_width_se)
    assert abs(bought.half_width_expected - half.mean()) <= 3 * half_se
