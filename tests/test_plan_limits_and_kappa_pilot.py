"""``plan`` at its limits: options refused rather than ignored, budgets and hours at their
bounds, assurances that are probabilities, and Cohen's kappa planned under pilot uncertainty.

Independent checks: the hybrid assurance of Cohen's kappa under pilot uncertainty is
re-estimated by a simulation written here (fresh posterior draws and ``Generator.multinomial``
studies, not the library's nested studies), and the budget limits are recomputed from the costs.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.errors import InvalidInput
from planner.sizing.exact import conditional_psa_assurance, exact_psa_assurance
from planner.sizing.items_bought import items_for_budget, items_for_hours
from planner.sizing.model import pair_from_counts
from planner.sizing.plan import PlanSettings
from planner.sizing.uncertainty import DrawAssurance, narrow_outcomes
from planner.sizing.uncertainty_kappa import kappa_items_under_uncertainty
from planner.statistics.intervals import kappa_interval
from tests.test_pilot import COUNTS, PILOT, _json, _plan


def _one_line_error(result, code: int, *needles: str) -> str:
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------ 1. options ignored with --annotators M


def test_several_annotators_take_one_fixed_size_and_say_so_for_two():
    # reported: exit 0, --items, --hours and --curve silently ignored; now they are planned,
    # and two sizes at once are one line
    result = _plan(
        "--annotators", "3", "--prevalence", "0.05", "--items", "1000", "--hours", "3", "--curve"
    )
    _one_line_error(result, 2, "--items and --hours each fix the study's size")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "section"),
    [
        (("--items", "500"), "Precision of 500 items"),
        (("--hours", "10"), "Precision of 133 items (hours 10)"),  # 10 h / (3 x 90 s)
        (("--budget", "100", "--hourly-rate", "40"), "Precision of 33 items (budget 100)"),  # 2.5 h
        (("--curve",), "Assurance against items"),
    ],
)
def test_fixed_sizes_and_the_curve_are_planned_with_several_annotators(extra, section):
    result = _plan("--annotators", "3", "--prevalence", "0.05", "--replicates", "200", *extra)
    assert result.exit_code == 0, result.output
    assert section in result.stdout


@pytest.mark.parametrize(
    "extra",
    [("--positive", "yes"), ("--layout", "wide"), ("--item-col", "item"), ("--engine", "pandas")],
)
def test_no_plan_option_is_silently_ignored_with_several_annotators(extra):
    result = _plan("--annotators", "3", "--prevalence", "0.05", *extra)
    _one_line_error(result, 2, extra[0], "--pilot")


# ------------------------------------------------ 2. a budget beyond max_items


def test_huge_budget_names_budget_and_the_largest_budget_that_fits():
    # reported: "--items must be a whole number in [1, 10,000,000], got 5000000000..."
    result = _plan("--prevalence", "0.08", "--budget", "1e300", "--hourly-rate", "40")
    line = _one_line_error(result, 2, "--budget", "max_items", "10,000,000")
    assert "--items" not in line and len(line) < 200
    # two labels of 90 s an item: 10,000,000 items cost 500,000 hours, 20,000,000 at 40 an hour
    assert "20,000,000" in line


def test_huge_hours_name_hours_and_the_most_hours_that_fit():
    result = _plan("--prevalence", "0.08", "--hours", "1e300")
    line = _one_line_error(result, 2, "--hours", "max_items", "500,000")
    assert "--items" not in line


def test_items_for_hours_and_budget_at_their_limits():
    settings = PlanSettings(hourly_rate=40.0)
    largest_hours = 10_000_000 * 2 * 90 / 3600
    assert items_for_hours(largest_hours, settings, 0.0) == 10_000_000
    assert items_for_budget(largest_hours * 40, settings, 0.0) == 10_000_000
    with pytest.raises(InvalidInput, match=r"^hours .*max_items") as hours_error:
        items_for_hours(largest_hours * 1.001, settings, 0.0)
    assert hours_error.value.parameter == "hours"
    with pytest.raises(InvalidInput, match=r"^budget .*max_items") as budget_error:
        items_for_budget(float("1e308"), settings, 0.0)  # hours * 3600 overflows to inf
    assert budget_error.value.parameter == "budget"


# ------------------------------------------------ 3. probabilities above 1


@pytest.mark.slow
def test_curve_assurance_lies_in_the_unit_interval():
    # reported: assurance_curve.psa[-1].assurance = 1.0000000000009206
    doc = _json("--prevalence", "0.08", "--width", "0.08", "--curve", "--seed", "1")
    values = [p["assurance"] for curve in doc["assurance_curve"].values() for p in curve]
    assert all(0.0 <= v <= 1.0 for v in values), max(values)
    assert doc["assurance_curve"]["psa"][-1]["assurance"] == pytest.approx(1.0, abs=1e-9)


def test_exact_assurances_are_probabilities():
    model = pair_from_counts(COUNTS)
    for n in (2560, 5000, 20000, 100000):
        assert 0.0 <= exact_psa_assurance(model, n, 0.08) <= 1.0
    given_u = conditional_psa_assurance(np.arange(1, 3000), model.jaccard, 0.08)
    assert np.all((given_u >= 0) & (given_u <= 1))
    cells = np.random.default_rng(2).dirichlet(np.array(COUNTS) + 0.5, size=50)
    at = DrawAssurance(cells, narrow_outcomes(0.08, 0.95, "wilson"))
    for n in (100, 3000, 50000):
        values = at(n)
        assert np.all((values >= 0) & (values <= 1))


# ------------------------------------------------ 4. kappa under pilot uncertainty


def _independent_hybrid(counts, n: int, width: float, reps: int, seed: int) -> float:
    """Hybrid assurance of the score interval at n items, simulated here from scratch."""
    rng = np.random.default_rng(seed)
    truths = rng.dirichlet(np.asarray(counts, dtype=float) + 0.5, size=reps)
    tables = np.array([rng.multinomial(n, p) for p in truths]).reshape(-1, 2, 2)
    half = np.asarray(kappa_interval(tables, 0.95, "score").half_width, dtype=float)
    return float(np.mean(np.isfinite(half) & (half > 0) & (half <= width)))


@pytest.mark.slow
def test_kappa_under_pilot_uncertainty_meets_the_target_by_an_independent_simulation():
    result = kappa_items_under_uncertainty(
        COUNTS, PlanSettings(width=0.08, assurance=0.8, replicates=4000), plug_in_items=2000, rng=5
    )
    reps = 6000
    at_items = _independent_hybrid(COUNTS, result.items, 0.08, reps, seed=101)
    se = np.sqrt(0.8 * 0.2 / reps + 0.8 * 0.2 / 4000)
    assert at_items == pytest.approx(0.8, abs=4 * se)
    assert _independent_hybrid(COUNTS, int(0.8 * result.items), 0.08, reps, seed=102) < 0.65
    assert result.per_truth["p50"] <= result.per_truth["p80"] <= result.per_truth["p90"]
    assert "approximat" not in result.basis and "FCE" in result.per_truth_basis


@pytest.mark.slow
def test_kappa_pilot_answer_prints_a_standard_error_that_matches_its_spread():
    results = [
        kappa_items_under_uncertainty(
            COUNTS, PlanSettings(width=0.1, replicates=1000), plug_in_items=1200, rng=seed
        )
        for seed in range(1, 7)
    ]
    items = np.array([r.items for r in results], dtype=float)
    ses = np.array([r.items_mc_se for r in results])
    assert np.all(np.isfinite(ses) & (ses > 0))
    # six seeds: their SD against the printed SE, within a factor 3 either way
    assert ses.mean() / 3 <= np.std(items, ddof=1) <= 3 * ses.mean()
    # 1,000 replicates: 2,048 quasi-random posterior draws (the power of two at or above 2,000)
    assert all("quasi-Monte Carlo over 2,048 posterior draws" in r.basis for r in results)
    assert f"± {results[0].items_mc_se:.0f} Monte Carlo SE" in results[0].explanation


@pytest.mark.slow
def test_kappa_under_pilot_uncertainty_is_reproducible_and_checked():
    small = PlanSettings(width=0.1, replicates=500)
    a = kappa_items_under_uncertainty(COUNTS, small, plug_in_items=1200, rng=3)
    b = kappa_items_under_uncertainty(COUNTS, small, plug_in_items=1200, rng=3)
    assert a == b
    with pytest.raises(InvalidInput, match="^kappa_method bootstrap"):
        kappa_items_under_uncertainty(
            COUNTS, PlanSettings(kappa_method="bootstrap"), plug_in_items=100
        )
    with pytest.raises(InvalidInput, match="pilot_counts"):
        kappa_items_under_uncertainty((0, 0, 0, 9), plug_in_items=100)


@pytest.mark.slow
def test_metric_kappa_plans_under_pilot_uncertainty():
    # reported: --metric kappa gave a note instead of items_under_uncertainty
    doc = _json("--pilot-counts", "6,21,14,459", "--metric", "kappa", "--seed", "1")
    section = doc["uncertainty"]
    assert section["metric"] == "kappa" and section["items_under_uncertainty"] > 0
    assert 0.5 - 4 * section["standard_error"] <= section["hybrid_assurance"] <= 1
    assert "kappa_posterior" in section and "items_per_truth_basis" in section
    assert not any("PSA with the wilson" in note for note in doc["notes"])


@pytest.mark.slow
def test_metric_both_covers_both_metrics_and_the_larger_decides():
    # reported: with --metric both the section covered PSA only although kappa decides
    doc = _json("--pilot-counts", "6,21,14,459", "--metric", "both", "--seed", "1")
    by_metric = doc["uncertainty_by_metric"]
    assert set(by_metric) == {"psa", "kappa"}
    most = max(by_metric.values(), key=lambda s: s["items_under_uncertainty"])
    assert doc["uncertainty"] == most
    text = _plan("--pilot-counts", "6,21,14,459", "--metric", "both", "--seed", "1").stdout
    assert "Under pilot uncertainty (PSA" in text and "Under pilot uncertainty (Cohen's" in text


@pytest.mark.slow
def test_pilot_without_joint_positives_is_planned():
    # reported: a pilot 0,5,5,490 was refused outright; PSA 0 is an estimate whose Wilson
    # interval is defined (upper limit > 0), and the posterior gives a > 0 almost surely
    doc = _json("--pilot-counts", "0,5,5,490", "--width", "0.1", "--seed", "1")
    assert doc["recommendation"]["items"] > 0
    assert doc["uncertainty"]["items_under_uncertainty"] > 0
    assert any("PSA 0" in note for note in doc["notes"])
    kappa = _json("--pilot-counts", "0,5,5,490", "--metric", "kappa", "--seed", "1")
    assert kappa["recommendation"]["items"] > 0


def test_model_with_psa_zero_is_still_refused():
    # a stated model (not a pilot's estimate) that can never agree on a positive: nothing to size
    result = _plan("--union-rate", "0.1", "--psa", "0")
    _one_line_error(result, 2, "PSA 0")


# ------------------------------------------------ 5. the pilot file's rows


@pytest.mark.slow
def test_pilot_file_rows_say_from_the_pilot_file():
    # reported: "from pilot-counts" in the assumptions table of plan --pilot FILE
    text = _plan("--pilot", PILOT, "--positive", "unsupported", "--seed", "1").stdout
    rows = [line for line in text.splitlines() if "pilot counts" in line]
    assert rows and all("from the pilot file" in line for line in rows)
    assert "from pilot-counts" not in text
    counts = _plan("--pilot-counts", "6,21,14,459", "--seed", "1").stdout
    assert "from pilot-counts" in counts
