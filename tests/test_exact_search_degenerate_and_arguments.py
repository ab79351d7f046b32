"""The exact search: degenerate intervals in strata designs, the threshold path, argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import plan_app
from planner.cli.common import flag_message, flag_names
from planner.data.scenario import scenario_from_dict
from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing import exact as exact_module
from planner.sizing.compare import compare_designs
from planner.sizing.exact import (
    EXACT_PSA_METHODS,
    conditional_psa_assurance,
    exact_half_width_quantiles,
    psa_half_width_given_union,
)
from planner.sizing.model import pair_from_annotators, pair_from_counts
from planner.sizing.pair_strata import stratum_models
from planner.sizing.plan import PlanSettings
from planner.sizing.search import (
    SearchSettings,
    analytic_items,
    find_sample_size,
)
from planner.sizing.search_criteria import interval_function
from planner.sizing.union_positives import (
    inverse_sampling_items,
    items_for_union_positives,
    union_positives_for_assurance,
    worst_case_union_positives,
)

Z95 = 1.959963984540054

# Near-perfect agreement: most small studies of the dense stratum have b + c = 0, where the
# Wald PSA interval has zero width (and used to count as narrow enough).
NEAR_PERFECT = {
    "name": "near-perfect",
    "model": {"error_rate": 0.004},
    "strata": [
        {"name": "common", "share": 0.9, "prevalence": 0.05},
        {"name": "dense", "share": 0.1, "prevalence": 0.4},
    ],
    "target": {"psa_method": "wald", "width": 0.1, "assurance": 0.8},
}


def _draw(cells, items, reps, rng):
    """``(reps, H, 4)`` stratified counts, drawn here with numpy, not planner's simulator."""
    return np.stack(
        [rng.multinomial(n, p, size=reps) for p, n in zip(cells, items, strict=True)], axis=1
    )


def _wald_psa_half_width(counts):
    """Pooled Wald PSA half-width ``z sqrt(4 a (U - a) U) / (a + U)^2``, ``U = a + b + c``."""
    a = counts[..., 0].astype(float)
    u = a + counts[..., 1] + counts[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return Z95 * np.sqrt(4 * a * (u - a) * u) / (a + u) ** 2


def _weighted_psa_half_width(counts, shares):
    """Combined ratio estimator's linearised t half-width on the logit scale, by hand.

    ``V = sum_h W_h^2 s_h^2 / n_h`` (Cochran 1977, 6.11), Satterthwaite's (1946) df
    ``V^2 / sum_h (W_h^2 s_h^2 / n_h)^2 / (n_h - 1)``, limits
    ``expit(logit R +- t sqrt(V) / (R (1 - R)))``: the interval agree --stratum-col reports.
    """
    from scipy import stats

    n_h = counts.sum(axis=-1).astype(float)
    p_h = counts / n_h[..., None]
    pooled = (shares[:, None] * p_h).sum(axis=-2)
    a, b, c = pooled[..., 0], pooled[..., 1], pooled[..., 2]
    x2 = (2 * a + b + c) ** 2
    grad = np.stack([2 * (b + c) / x2, -2 * a / x2, -2 * a / x2, 0 * a], axis=-1)
    mean = (p_h * grad[..., None, :]).sum(axis=-1)
    var_h = ((p_h * grad[..., None, :] ** 2).sum(axis=-1) - mean**2) * n_h / (n_h - 1)
    part = shares**2 * var_h / n_h
    var = part.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = var**2 / (part**2 / (n_h - 1)).sum(axis=-1)
        ratio = 2 * a / (2 * a + b + c)
        half = stats.t.ppf(0.975, np.maximum(df, 1.0)) * np.sqrt(var) / (ratio * (1 - ratio))
        centre = np.log(ratio / (1 - ratio))
        low, high = (1 / (1 + np.exp(-(centre + s * half))) for s in (-1, 1))
    return np.where(var > 0, (high - low) / 2, np.nan)


def _narrow_share(hw, width):
    """Share of studies whose interval is defined, of positive width and within ``width``."""
    hw = np.asarray(hw, dtype=float)
    return float(np.mean(np.isfinite(hw) & (hw > 0) & (hw <= width)))


def test_stratified_designs_do_not_count_zero_width_intervals_as_narrow():
    # regression: enriched planned [4, 4] items and weighted [154, 20], both
    # "reaching" width 0.1 with zero-width Wald intervals from tables with b + c = 0
    scenario = scenario_from_dict(NEAR_PERFECT, "near-perfect.toml")
    settings = PlanSettings(width=0.1, psa_method="wald", assurance=0.8, replicates=1000)
    comparison = compare_designs(scenario, settings, rng=2, floor_items=20)
    cells = np.array([m.cells for m in stratum_models(scenario)])
    shares = np.array([s.share for s in scenario.strata])
    rng = np.random.default_rng(20261201)
    reps = 4000
    se = np.sqrt(0.8 * 0.2 / reps)
    for name, half_width in (
        ("enriched", lambda t: _wald_psa_half_width(t.sum(axis=1))),
        ("weighted", lambda t: _weighted_psa_half_width(t, shares)),
    ):
        items = np.array(comparison.designs[name].items_per_stratum)
        at_n = _narrow_share(half_width(_draw(cells, items, reps, rng)), 0.1)
        short = np.maximum(np.round(0.8 * items).astype(int), 2)
        at_short = _narrow_share(half_width(_draw(cells, short, reps, rng)), 0.1)
        # the search's own 1,000 studies vs these 4,000: a few SE of both
        assert at_n >= 0.8 - 4 * se - 0.04, (name, items, at_n)
        assert at_short < 0.8 - 0.1, (name, short, at_short)
        assert comparison.designs[name].assurance >= 0.8
        # at the assurance quantile, the studies that reach the width (was inf for enriched)
        assert 0 < comparison.designs[name].half_width_at_assurance <= 0.1


# --------------------------------------------------------------------------- exact PSA speed


@pytest.mark.parametrize("method", EXACT_PSA_METHODS)
def test_half_width_is_unimodal_in_the_joint_positives(method):
    # the threshold path rests on this: given U, hw(a) rises to one peak, then falls
    for u in (2000, 5003, 40000):
        a = np.arange(1, u, dtype=float)
        hw = psa_half_width_given_union(a, np.full_like(a, u), 0.95, method)
        step = np.sign(np.diff(hw))
        step = step[step != 0]
        assert np.count_nonzero(np.diff(step)) <= 1, (method, u)
        assert np.all(np.isfinite(hw)) and np.all(hw > 0)


@pytest.mark.slow
@pytest.mark.parametrize("method", EXACT_PSA_METHODS)
@pytest.mark.parametrize(
    ("jaccard", "width", "us"),
    [
        (0.397, 0.006, np.arange(24000.0, 30000.0, 61.0)),  # one falling run of narrow a
        (0.36, 0.02, np.arange(2000.0, 3600.0, 17.0)),  # the peak inside the support
        (0.8, 0.01, np.arange(2000.0, 5000.0, 29.0)),
        (0.2, 0.015, np.arange(2000.0, 5500.0, 37.0)),
    ],
)
def test_threshold_path_equals_the_full_sum(monkeypatch, method, jaccard, width, us):
    fast = conditional_psa_assurance(us, jaccard, width, 0.95, method)
    monkeypatch.setattr(exact_module, "FAST_UNION_POSITIVES", 10**12)
    full = conditional_psa_assurance(us, jaccard, width, 0.95, method)
    assert full.min() < 0.01 and full.max() > 0.99  # the grid crosses the threshold
    # the full sum's log-gamma probabilities carry about U * 1e-15 relative error
    np.testing.assert_allclose(fast, full, rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("model", "width", "assurance", "expected"),
    [  # the old full-grid answers (exact, so seed-free); README's table for the first four
        (pair_from_annotators(0.08), 0.08, 0.5, 1280),
        (pair_from_annotators(0.08), 0.05, 0.5, 3339),
        (pair_from_annotators(0.08), 0.08, 0.9, 1465),
        (pair_from_counts([6, 21, 14, 459]), 0.08, 0.5, 2049),
        (pair_from_annotators(0.08), 0.01, 0.5, 84334),  # these two use the threshold path
        (pair_from_annotators(0.08), 0.003, 0.5, 937406),
    ],
)
def test_exact_psa_n_unchanged(model, width, assurance, expected):
    res = find_sample_size(
        model, SearchSettings(metric="psa", width=width, assurance=assurance, replicates=200), rng=1
    )
    assert res.basis == "exact" and res.items == expected
    assert res.exact_assurance >= assurance


@pytest.mark.slow
def test_exact_half_width_quantiles_decline_large_grids_without_building_them():
    model = pair_from_annotators(0.08)
    us, weights = exact_module._union_support(model, 84334)
    total = 0
    for part, _, pmf in exact_module._outcome_grid(us, model.jaccard, 0.95, "wilson"):
        total += int((weights[part, None] * pmf > 1e-15).sum())
    assert exact_module._kept_outcomes(us, weights, model.jaccard) == total
    assert exact_half_width_quantiles(model, 937406, (0.5,)) is None


# --------------------------------------------------------------------------- argument checks

MODEL = pair_from_annotators(0.08)


@pytest.mark.parametrize(
    ("call", "parameter", "message"),
    [
        # regression: width 1.5 planned 7 items, replicates=3 was accepted
        (
            lambda: find_sample_size(
                MODEL, SearchSettings(metric="psa", width=1.5, replicates=100), rng=1
            ),
            "width",
            "width must be a number in [0.001, 1), got 1.5",
        ),
        (
            lambda: find_sample_size(
                MODEL, SearchSettings(metric="psa", width=0.08, replicates=3), rng=1
            ),
            "replicates",
            "replicates must be a whole number in [100, 1,000,000], got 3",
        ),
        (
            lambda: find_sample_size(
                MODEL, SearchSettings(metric="psa", width=0.08, assurance=1.0)
            ),
            "assurance",
            "assurance",
        ),
        (
            lambda: find_sample_size(MODEL, SearchSettings(metric="psa", width=0.08, max_items=2)),
            "max_items",
            "max_items",
        ),
        (
            lambda: find_sample_size(MODEL, SearchSettings(metric="f1")),
            "metric",
            "metric must be one of psa, kappa",
        ),
        (
            lambda: find_sample_size(
                MODEL, SearchSettings(metric="psa", width=0.08, method="exact")
            ),
            "method",
            "method",
        ),
        (
            lambda: find_sample_size(MODEL, SearchSettings(confidence_level=95)),
            "confidence_level",
            "got 95",
        ),
        (lambda: find_sample_size("0.08"), "model", "model must be a PairModel"),
        (lambda: analytic_items(MODEL, "psa", 0, 0.95), "width", "width"),
        (lambda: interval_function("kappa", "wilson", 0.95), "method", "method"),
        (lambda: interval_function("psa", "wilson", 0.95, n_boot=5), "n_boot", "n_boot"),
        (lambda: worst_case_union_positives(float("nan")), "width", "got nan"),
        (lambda: union_positives_for_assurance(1.5, 0.08), "jaccard", "jaccard"),
        (lambda: union_positives_for_assurance(0.5, 0.08, method="fce"), "method", "method"),
        (lambda: items_for_union_positives(-1, 0.1, 0.9), "union_positives", "got -1"),
        (lambda: items_for_union_positives(10, 0.1, 1.0), "probability", "probability"),
        (lambda: inverse_sampling_items(10, 0.0), "union_rate", "union_rate"),
    ],
)
def test_search_functions_check_arguments_in_parameter_names(call, parameter, message):
    with pytest.raises(InvalidInput) as caught:
        call()
    assert caught.value.parameter == parameter
    assert str(caught.value).startswith(parameter) and message in str(caught.value)
    assert "--" not in str(caught.value)


def test_n_reps_is_named_replicates_at_the_cli():
    with pytest.raises(InvalidInput) as caught:
        find_sample_size(MODEL, SearchSettings(metric="psa", width=0.08, replicates=3))
    assert flag_message(caught.value).startswith("--replicates must be a whole number")


def test_unreachable_target_names_parameters_in_the_library_and_flags_at_the_cli():
    with pytest.raises(TargetUnreachable) as caught:
        find_sample_size(MODEL, SearchSettings(metric="psa", width=0.01, max_items=1000), rng=1)
    text = str(caught.value)
    assert "width 0.01" in text and "max_items 1000" in text and "--" not in text
    shown = flag_names(caught.value)
    assert "--width 0.01" in shown and "--max-items 1000" in shown and "--assurance" in shown
    result = CliRunner().invoke(
        plan_app, ["--prevalence", "0.08", "--width", "0.002", "--max-items", "5000"]
    )
    assert result.exit_code == 1 and result.stdout == ""
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "--width 0.002" in line and "--max-items 5000" in line and "max_items" not in line


def test_design_comparison_names_the_metric_parameter():
    scenario = scenario_from_dict(NEAR_PERFECT, "near-perfect.toml")
    with pytest.raises(InvalidInput) as caught:
        compare_designs(scenario, PlanSettings(metric="both"), rng=1)
    assert caught.value.parameter == "metric"
    assert flag_message(caught.value).startswith("--metric both is not supported")
