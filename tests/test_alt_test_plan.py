"""Planning the alt-test: the METHODS.md 5 table, the planned n against an independent
item-by-item simulation, the search's invariants, bad input and the command."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput, TargetUnreachable
from planner.sizing.alt_test_plan import (
    AltTestPlanSettings as Settings,
)
from planner.sizing.alt_test_plan import (
    alt_test_model,
    alt_test_plan_summary,
    difference_classes,
    pass_probability,
    plan_alt_test,
    plan_table,
)
from planner.statistics.alt_test_stats import by_rejections

runner = CliRunner()


def _independent_pass_rate(n, reps, k, human_error, llm_error, epsilon, seed, m=3, q=0.05):
    """P(pass) by simulating items one study at a time, with scipy's tests (not counts): the
    t-test from 30 items, the Wilcoxon signed-rank test below."""
    rng = np.random.default_rng(seed)
    passes = 0
    for _ in range(reps):
        truth = rng.integers(k, size=n)
        labels = np.array(
            [
                np.where(rng.random(n) < e, rng.integers(k, size=n), truth)
                for e in [human_error] * m + [llm_error]
            ]
        )
        p_values = []
        for j in range(m):
            others = [o for o in range(m) if o != j]
            s_h = np.mean([labels[j] == labels[o] for o in others], axis=0)
            s_f = np.mean([labels[m] == labels[o] for o in others], axis=0)
            d = (s_h >= s_f).astype(int) - (s_f >= s_h).astype(int)
            if n >= 30:
                p = scipy.stats.ttest_1samp(d, epsilon, alternative="less").pvalue
            else:
                p = scipy.stats.wilcoxon(d - epsilon, alternative="less", method="approx").pvalue
            p_values.append(1.0 if np.isnan(p) else p)
        passes += 2 * by_rejections(p_values, q).sum() >= m
    return passes / reps


@pytest.mark.slow
def test_planned_items_verified_by_an_independent_simulation():
    model = alt_test_model(humans=3, categories=2, human_error=0.3, llm_error=0.2)
    plan = plan_alt_test(model, Settings(epsilon=0.1, power=0.8), rng=11)
    reps = 600  # SE of a rate near 0.8: 0.016
    at_n = _independent_pass_rate(plan.n_items, reps, 2, 0.3, 0.2, 0.1, seed=1)
    below = _independent_pass_rate(int(0.8 * plan.n_items), reps, 2, 0.3, 0.2, 0.1, seed=2)
    assert at_n >= 0.8 - 3 * 0.016
    assert below <= 0.75  # clearly missed at 0.8 n


@pytest.mark.slow
def test_pass_probability_below_thirty_items_uses_wilcoxon_like_scipy():
    model = alt_test_model(humans=3, categories=2, human_error=0.3, llm_error=0.3)
    planned = pass_probability(
        model, 20, Settings(epsilon=0.2, min_items=10, replicates=2000), rng=3
    )
    independent = _independent_pass_rate(20, 500, 2, 0.3, 0.3, 0.2, seed=4)
    assert 0.7 < planned.probability < 0.97  # not a trivial 0 or 1
    assert abs(planned.probability - independent) <= 3 * np.hypot(0.008, 0.016)


def test_wilcoxon_below_thirty_items_passes_more_easily_than_the_t_test_at_thirty():
    # The signed-rank test looks at the median of d - epsilon, not the mean: with many ties
    # (d = 0) it rejects H0: mean(d) >= epsilon far too often at the boundary mean(d) = epsilon.
    from planner.statistics.alt_test_stats import t_test_less, wilcoxon_less

    counts = np.random.default_rng(1).multinomial(29, [0.0, 0.8, 0.2], size=20_000)  # mean d 0.2
    assert (wilcoxon_less(counts, 0.2)[1] <= 0.05).mean() > 0.4
    assert abs((t_test_less(counts, 0.2)[1] <= 0.05).mean() - 0.05) < 0.01
    model = alt_test_model(humans=3, categories=2, human_error=0.3, llm_error=0.3)
    at_29 = pass_probability(model, 29, Settings(epsilon=0.2, min_items=10), rng=5).probability
    at_30 = pass_probability(model, 30, Settings(epsilon=0.2, min_items=10), rng=5).probability
    assert at_29 > at_30 + 0.15


def test_no_plan_below_min_items():
    model = alt_test_model(humans=3, categories=2, human_error=0.1, llm_error=0.1)
    with pytest.raises(InvalidInput, match=r"n_items must be at least min_items \(30\), got 20"):
        pass_probability(model, 20, Settings(epsilon=0.2), rng=1)
    plan = plan_alt_test(
        model, Settings(epsilon=0.3), rng=1
    )  # an easy target: the floor is the answer
    assert plan.n_items == 30 and min(n for n, _ in plan.evaluated) == 30


# METHODS.md 5: P(pass), 3 annotators, 300 datasets per cell, the authors' generator (errors
# drawn from the class prior; each dataset draws its prior from a flat Dirichlet, as the
# notebook's sample_priors). (K, human error, LLM error, n, epsilon) -> published P(pass).
METHODS_TABLE = {
    (2, 0.3, 0.3, 50, 0.1): 0.54,
    (2, 0.3, 0.2, 30, 0.1): 0.53,
    (4, 0.3, 0.3, 100, 0.1): 0.45,
    (4, 0.2, 0.3, 50, 0.2): 0.58,
}


@pytest.mark.parametrize(("cell", "published"), list(METHODS_TABLE.items()))
def test_methods_table_with_the_prior_error_model(cell, published):
    k, human_error, llm_error, n, epsilon = cell
    priors = np.random.default_rng(5).dirichlet(np.ones(k), size=150)
    rates = []
    for i, prior in enumerate(priors):
        prior = np.clip(prior, 1e-6, None)
        model = alt_test_model(
            human_error=human_error,
            llm_error=llm_error,
            prevalences=list(prior / prior.sum()),
            error_draw="prior",
        )
        rates.append(
            pass_probability(model, n, Settings(epsilon=epsilon, replicates=100), rng=i).probability
        )
    # the table's Monte Carlo SE is about 0.03, ours about 0.025
    assert abs(np.mean(rates) - published) <= 0.1


def test_difference_classes_are_a_distribution_and_ties_are_symmetric():
    model = alt_test_model(humans=4, categories=3, human_error=[0.1, 0.2, 0.3, 0.4], llm_error=0.25)
    d, p = difference_classes(model)
    assert d.shape[1] == 4 and np.isclose(p.sum(), 1.0) and (p > 0).all()
    assert set(np.unique(d)) <= {-1, 0, 1}
    perfect = alt_test_model(humans=3, categories=3, human_error=0.0, llm_error=0.0)
    d, p = difference_classes(perfect)
    assert d.tolist() == [[0, 0, 0]] and p.tolist() == [1.0]  # everyone agrees: all ties


@pytest.mark.slow
def test_search_brackets_the_answer_on_its_own_sequence_of_studies():
    model = alt_test_model(humans=3, categories=4, human_error=0.3, llm_error=0.3)
    plan = plan_alt_test(model, Settings(epsilon=0.2, power=0.8), rng=3)
    evaluated = dict(plan.evaluated)
    assert evaluated[plan.n_items] >= 0.8 and evaluated[plan.n_items - 1] < 0.8
    assert plan.pass_probability == evaluated[plan.n_items]
    assert 0.5 * plan.n_items <= plan.analytic_start <= 2 * plan.n_items


@pytest.mark.slow
def test_the_plan_is_where_pass_probability_stays_above_the_target():
    # P(pass) is saw-toothed in n: this model first reaches 0.8 well before it stays there
    model = alt_test_model(humans=3, categories=2, human_error=0.1, llm_error=0.1)
    plan = plan_alt_test(model, Settings(epsilon=0.15, power=0.8), rng=1)
    curve = dict(plan.evaluated)
    assert plan.first_crossing < plan.n_items <= plan.searched_to
    assert plan.searched_to >= 2 * plan.first_crossing and plan.dips_above_first_crossing
    assert all(p >= 0.8 for n, p in curve.items() if n >= plan.n_items)
    assert curve[plan.first_crossing] >= 0.8
    assert all(p < 0.8 for n, p in curve.items() if n < plan.first_crossing)
    assert max(n for n, p in curve.items() if p < 0.8) == plan.n_items - 1  # the last dip
    # every item from min_items on is on the curve (steps of one item below 200)
    assert sorted(curve) == list(range(30, plan.searched_to + 1))
    # the curve against an item-level simulation written here, at the first crossing, the
    # last dip and the plan
    for n in (plan.first_crossing, plan.n_items - 1, plan.n_items):
        independent = _independent_pass_rate(n, 700, 2, 0.1, 0.1, 0.15, seed=n)
        se = np.hypot(np.sqrt(0.8 * 0.2 / plan.replicates), np.sqrt(0.8 * 0.2 / 700))
        assert abs(curve[n] - independent) <= 3.5 * se, n


@pytest.mark.slow
def test_the_block_size_bounds_memory_and_leaves_the_answer_as_it_was():
    model = alt_test_model(humans=3, categories=3, human_error=0.2, llm_error=0.2)
    plans = [
        plan_alt_test(model, Settings(epsilon=0.2, replicates=2500, block_replicates=b), rng=4)
        for b in (1, 333, 2500, 100_000)
    ]
    assert all(p == plans[0] for p in plans[1:])


def test_classes_drawn_in_groups_keep_the_multinomial_law():
    # 11 humans, two labels: 2,048 difference classes, drawn in groups of 1,024
    from planner.sizing.alt_test_studies import CLASS_GROUP, NestedPassStudies

    model = alt_test_model(humans=11, categories=2, human_error=0.2, llm_error=0.2)
    d, prob = difference_classes(model)
    assert len(prob) > CLASS_GROUP
    studies = NestedPassStudies(d, prob, 4000, 1, epsilon=0.2, q=0.05)
    studies.grow(60)
    onehot = (d[:, :, None] == np.array([-1, 0, 1])).astype(float)
    expected = 60 * np.einsum("c,cmk->mk", prob, onehot)  # mean counts of d = -1, 0, +1
    var = 60 * np.einsum("c,cmk->mk", prob, onehot) * (1 - np.einsum("c,cmk->mk", prob, onehot))
    mean = studies.state.mean(axis=0)
    assert np.all(np.abs(mean - expected) <= 4 * np.sqrt(var / 4000) + 1e-9)
    assert np.all(studies.state.sum(axis=2) == 60)


@pytest.mark.slow
def test_same_seed_same_plan():
    model = alt_test_model(humans=3, categories=2, human_error=0.2, llm_error=0.2)
    assert plan_alt_test(model, Settings(epsilon=0.1), rng=8) == plan_alt_test(
        model, Settings(epsilon=0.1), rng=8
    )


def test_a_worse_llm_cannot_be_expected_to_pass():
    model = alt_test_model(humans=3, categories=2, human_error=0.05, llm_error=0.6)
    with pytest.raises(TargetUnreachable, match="cannot be expected to pass"):
        plan_alt_test(model, Settings(epsilon=0.05), rng=1)


def test_table_over_humans_has_hours_from_the_budget():
    model = alt_test_model(humans=3, categories=2, human_error=0.2, llm_error=0.2)
    settings = Settings(epsilon=0.15, seconds_per_item=60, replicates=500, table_humans=(2, 3))
    rows = plan_table(model, settings, rng=4)
    for m, row in zip((2, 3), rows, strict=True):
        assert row is not None and row.model.n_humans == m
        assert row.budget is not None and np.isclose(row.budget.person_hours, row.n_items * m / 60)


@pytest.mark.slow
def test_summary_for_a_report():
    model = alt_test_model(humans=3, categories=2, human_error=0.2, llm_error=0.2)
    s = alt_test_plan_summary(
        model, Settings(epsilon=0.15, items=60, replicates=500, table=True), rng=2
    )
    assert s.n_items is not None and s.pass_probability is not None
    assert [row[0] for row in s.table] == [2, 3, 4, 5, 6]
    assert s.pass_probability_at_items is not None and "3 humans" in s.model_description


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"human_error": 1.5}, "human_error must be a number in [0, 1], got 1.5"),
        ({"prevalences": [0.5, 0.6]}, "prevalences must sum to 1, got 1.1"),
        ({"humans": 1}, "humans must be a whole number in [2, 12], got 1"),
        ({"humans": 8, "categories": 10}, "humans 8 with 10 categories give 10^9"),
        ({"error_draw": "skewed"}, "error_draw must be one of uniform, prior; got 'skewed'"),
    ],
)
def test_model_arguments_are_checked(kwargs, message):
    with pytest.raises(InvalidInput) as caught:
        alt_test_model(**kwargs)
    assert str(caught.value).startswith(message)


@pytest.mark.slow
def test_cli_plan_json():
    result = runner.invoke(
        app,
        ["alt-test", "--plan", "--humans", "3", "--categories", "2", "--human-error", "0.3",
         "--llm-error", "0.2", "--epsilon", "0.1", "--seed", "11", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "alt-test-plan" and doc["seed"] == 11
    plan = doc["plan"]
    assert "uniform draw over the 2 categories" in plan["model"]["description"]
    assert plan["pass_probability"] >= 0.8 and plan["budget"]["person_hours"] > 0


def test_cli_pass_probability_at_items():
    result = runner.invoke(
        app,
        ["alt-test", "--plan", "--human-error", "0.3", "--llm-error", "0.3", "--epsilon", "0.2",
         "--items", "50", "--seed", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    at = json.loads(result.stdout)["pass_probability"]
    assert at["n_items"] == 50 and 0 < at["probability"] < 1


def test_cli_plan_refuses_a_file_and_unreachable_is_exit_1(tmp_path):
    result = runner.invoke(app, ["alt-test", "x.csv", "--plan", "--epsilon", "0.1"])
    assert result.exit_code == 2 and "--plan takes no label FILE" in result.stderr
    result = runner.invoke(
        app,
        ["alt-test", "--plan", "--human-error", "0.05", "--llm-error", "0.6", "--epsilon", "0.05",
         "--seed", "1"],
    )  # fmt: skip
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_cli_same_seed_same_document():
    args = ["alt-test", "--plan", "--human-error", "0.2", "--llm-error", "0.2", "--epsilon", "0.15",
            "--table", "--seed", "5", "--json"]  # fmt: skip
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    assert first.exit_code == 0 and first.stdout == second.stdout
    doc = json.loads(first.stdout)
    (row,) = [r for r in doc["table"] if r["humans"] == 3]
    assert row["n_items"] == doc["plan"]["n_items"]  # the table's row for 3 humans is the plan
