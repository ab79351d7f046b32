"""Strata of any study as label patterns: a pair's four ordered cells read by the shared
designs as several annotators' count patterns are.

The checks are independent of the code under test: the union, contested and positive-label
rates against the pair model's own formulas (``p_a + p_b + p_c``, ``p_b + p_c``,
``(2 p_a + p_b + p_c) / 2``); and, since PSA depends on an item only through how many of its
two labels say positive, a pair's PSA figures computed from its ordered cells (the pair's
interval and gradient) against the same figures from the two-annotator count patterns (the
several-annotator code), where only ``p_b + p_c`` is seen.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.compare import compare_designs
from planner.sizing.model import PairModel, as_cells
from planner.sizing.pair_strata import PAIR_PATTERNS, PairStrata, stratum_models
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.raters_strata import raters_strata
from planner.sizing.strata_designs import weighted_design_shares

ROOT = Path(__file__).parent.parent
ENRICHED = ROOT / "scenarios" / "unsupported-claims-enriched.toml"
#: items per stratum of the simulated studies (the enriched scenario has four strata)
ITEMS = (40, 60, 90, 120)

cells = st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4).map(lambda v: np.array(v) / sum(v))


@settings(max_examples=60, deadline=None)
@given(st.lists(cells, min_size=2, max_size=5), st.lists(st.floats(0.05, 1.0), min_size=5))
def test_a_pairs_pattern_rates_are_its_cells_formulas(strata_cells, raw_shares):
    shares = np.array(raw_shares[: len(strata_cells)])
    shares = shares / shares.sum()
    table = np.array(strata_cells)
    strata = _pair_strata(table, shares)
    a, b, c, _ = table.T
    assert np.allclose(strata.union, a + b + c, atol=1e-14)
    assert np.allclose(strata.contested(strata.probabilities), b + c, atol=1e-14)
    mixed = (shares[:, None] * table).sum(axis=0)
    assert np.allclose(strata.population, mixed, atol=1e-14)
    expected_rate = (2 * mixed[0] + mixed[1] + mixed[2]) / 2
    assert strata.positive_label_rate(strata.population) == pytest.approx(expected_rate, abs=1e-14)
    assert strata.labels_per_item == 2


def _pair_strata(table: np.ndarray, shares: np.ndarray) -> PairStrata:
    models = tuple(PairModel(cells=as_cells(t), source="test", assumptions={}) for t in table)
    names = tuple(f"s{i}" for i in range(len(table)))
    seconds = np.full(len(table), 90.0)
    return PairStrata(names, shares, seconds, PAIR_PATTERNS, table, models)


def _pair_and_count_patterns(scenario):
    """The enriched scenario's strata as a pair's ordered cells and as two annotators'
    count patterns, from the same annotator parameters."""
    pair = PairStrata.of(scenario, PlanSettings())
    error = scenario.model["error_rate"]
    models = [
        raters_model(s.prevalence, 2, error_rate=s.error_rate or error) for s in scenario.strata
    ]
    counted = raters_strata(list(pair.names), list(pair.shares), list(pair.seconds), models)
    return pair, counted


def _merged(ordered: np.ndarray, patterns: np.ndarray) -> np.ndarray:
    """``(..., 4)`` ordered cells summed into the ``(..., P)`` count patterns ``patterns``
    (each cell's negatives and positives: both flag (0, 2), one flags (1, 1), neither (2, 0))."""
    of_cell = np.array([[0, 2], [1, 1], [1, 1], [2, 0]])
    columns = [ordered[..., (of_cell == row).all(axis=1)].sum(axis=-1) for row in patterns]
    return np.stack(columns, axis=-1)


def test_a_pairs_psa_from_ordered_cells_is_its_psa_from_count_patterns():
    pair, counted = _pair_and_count_patterns(load_scenario(ENRICHED))
    # the same model: the count patterns merge the cells only A and only B flag
    merged = _merged(pair.probabilities, counted.patterns)
    assert np.allclose(counted.probabilities, merged, atol=1e-12)
    assert float(pair.value("psa", pair.population)) == pytest.approx(
        float(counted.value("psa", counted.population)), rel=1e-12
    )
    assert np.allclose(pair.residual_sds("psa"), counted.residual_sds("psa"), rtol=1e-10)
    assert np.allclose(
        weighted_design_shares(pair, "psa"), weighted_design_shares(counted, "psa"), rtol=1e-10
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_weighted_psa_interval_of_a_pairs_tables_is_that_of_its_count_patterns(seed):
    pair, counted = _pair_and_count_patterns(load_scenario(ENRICHED))
    rng = np.random.default_rng(seed)
    ordered = np.stack(
        [rng.multinomial(n, p, size=5) for n, p in zip(ITEMS, pair.probabilities, strict=True)],
        axis=1,
    )  # (studies, strata, 4)
    as_counts = _merged(ordered, counted.patterns)
    pair_fit = pair.weighted_interval("psa", 0.95)(ordered)
    counted_fit = counted.weighted_interval("psa", 0.95)(as_counts)
    for mine, theirs in zip(pair_fit, counted_fit, strict=True):
        assert np.allclose(mine, theirs, rtol=1e-9, equal_nan=True)


def test_a_pilots_strata_give_their_positive_label_rate_as_prevalence():
    scenario = load_scenario(ENRICHED)
    pilot = [
        replace(m, assumptions={"pilot_counts": (5, 1, 2, 40)}) for m in stratum_models(scenario)
    ]
    rows = compare_designs(scenario, PlanSettings(replicates=200), rng=1, models=pilot).strata
    for row, m in zip(rows, pilot, strict=True):
        a, b, c, _ = m.cells
        assert row["prevalence"] == pytest.approx((2 * a + b + c) / 2, abs=1e-14)
        assert row["model_source"] == "pilot" and row["pilot_counts"] == [5, 1, 2, 40]


def test_a_pairs_comparison_refuses_both_metrics_by_name():
    with pytest.raises(InvalidInput) as refused:
        compare_designs(load_scenario(ENRICHED), PlanSettings(metric="both"), rng=1)
    assert refused.value.parameter == "metric"
