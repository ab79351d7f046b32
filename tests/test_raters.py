"""Multi-rater sizing: the model, the interval for alpha, the search and ``plan --annotators``.

Every plan is checked by an independent simulation written here: items are drawn one by one
(true class, then each annotator's label from its confusion row, with shared uniforms on
ambiguous items), the coefficient and its interval are computed from the dense per-item
counts by the library's dense functions (not the pattern path the search uses; alpha's
interval by a grouped delete-one-item jackknife instead of the linearisation), and the
planned ``n`` must meet the target while ``0.8 n`` clearly misses it.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import plan_app
from planner.errors import InvalidInput
from planner.output.jsonout import raters_plan_document
from planner.sizing.annotator_model import raters_model
from planner.sizing.model import pair_from_annotators
from planner.sizing.plan import PlanSettings, make_plan
from planner.sizing.search import SearchSettings, find_sample_size
from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts
from planner.sizing.study_intervals import (
    expected_half_width,
    pattern_space,
    study_intervals,
    true_value,
)
from planner.statistics import multirater as mr
from planner.statistics.agreement import cohen_kappa
from planner.statistics.alpha import krippendorff_alpha
from planner.statistics.alpha_variance import alpha_linearised
from planner.statistics.conger import conger_kappa
from planner.statistics.intervals import psa_standard_error
from planner.statistics.ordered_kappas import conger_patterns, mean_pairwise_kappa_patterns

runner = CliRunner()

# --------------------------------------------------------------------------- independent simulation


def simulate_items(model, n_items: int, n_studies: int, rng, per_item: int | None = None):
    """``(n_studies, n_items, K)`` per-item category counts, drawn item by item."""
    c = np.asarray(model.confusion)  # (M, K, K)
    m, k = c.shape[0], c.shape[1]
    shape = (n_studies, n_items)
    truth = rng.choice(k, size=shape, p=np.asarray(model.prevalences))
    ambiguous = rng.random(shape) < model.ambiguity
    v, w = rng.random(shape), rng.random(shape)
    counts = np.zeros((*shape, k), dtype=np.int64)
    if per_item is None:
        chosen = np.broadcast_to(np.arange(m), (*shape, m))
    else:  # k of M annotators drawn at random for every item
        chosen = np.argsort(rng.random((*shape, m)), axis=-1)[..., :per_item]
    for slot in range(chosen.shape[-1]):
        j = chosen[..., slot]
        rows = c[j, truth]  # (S, N, K) the annotator's row for the item's truth
        independent = (rng.random(shape)[..., None] < np.cumsum(rows, axis=-1)).argmax(axis=-1)
        err = 1 - np.take_along_axis(rows, truth[..., None], axis=-1)[..., 0]
        wrong = rows.copy()
        np.put_along_axis(wrong, truth[..., None], 0.0, axis=-1)
        share = np.cumsum(wrong, axis=-1) / np.where(err > 0, err, 1)[..., None]
        wrong_label = (w[..., None] < share - 1e-12).argmax(axis=-1)
        shared = np.where(v < err, wrong_label, truth)
        label = np.where(ambiguous, shared, independent)
        np.add.at(counts, (*np.indices(shape), label), 1)
    return counts


def jackknife_alpha_interval(counts, level, z=1.959964):
    """Wald interval with the delete-one-item jackknife SE (grouped by identical items)."""
    rows, mult = mr.compress(counts)
    est = krippendorff_alpha(rows, multiplicity=mult, level=level)
    n = mult.sum()
    drops = []
    for p in range(len(rows)):
        m2 = mult.astype(float).copy()
        m2[p] -= 1
        drops.append(krippendorff_alpha(rows, multiplicity=m2, level=level))
    drops = np.asarray(drops, dtype=float)
    mean = (mult * drops).sum() / n
    se = np.sqrt((n - 1) / n * (mult * (drops - mean) ** 2).sum())
    return est - z * se, est + z * se


def simulate_ordered(model, n_items: int, n_studies: int, rng):
    """``(n_studies, n_items, M)`` labels, item by item (no ambiguity)."""
    c = np.asarray(model.confusion)
    m, k = c.shape[0], c.shape[1]
    truth = rng.choice(k, size=(n_studies, n_items), p=np.asarray(model.prevalences))
    labels = np.empty((n_studies, n_items, m), dtype=np.int64)
    for j in range(m):
        cum = np.cumsum(c[j, truth], axis=-1)
        labels[..., j] = (rng.random((n_studies, n_items))[..., None] < cum).argmax(axis=-1)
    return labels


def mean_cohen(labels, k, weights=None):
    """Mean over pairs of Cohen's kappa of the pair's K x K table (agreement.cohen_kappa)."""
    values = []
    for g, h in itertools.combinations(range(labels.shape[1]), 2):
        table = np.zeros((k, k))
        np.add.at(table, (labels[:, g], labels[:, h]), 1 if weights is None else weights)
        values.append(cohen_kappa(table))
    return float(np.mean(values))


def ordered_half_widths(metric, labels, k):
    """Conger: the library's sparse conger_kappa; kappa: grouped jackknife of mean Cohen."""
    out = []
    for study in labels:
        n, m = study.shape
        if metric == "conger":
            item, ann = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
            res = conger_kappa(item, ann, study.ravel(), n_rows=n, n_categories=k, n_annotators=m)
            lo, hi = res.confidence_interval(0.95)
            out.append((float(hi) - float(lo)) / 2)
            continue
        rows, mult = np.unique(study, axis=0, return_counts=True)
        drops = []
        for p in range(len(rows)):
            left = mult.astype(float).copy()
            left[p] -= 1
            drops.append(mean_cohen(rows, k, left))
        drops = np.asarray(drops)
        mean = (mult * drops).sum() / n
        se = np.sqrt((n - 1) / n * (mult * (drops - mean) ** 2).sum())
        out.append(1.984 * se)  # t quantile at ~100 df
    return np.asarray(out)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("prev", "m", "metric", "width"),
    [((0.3,), 3, "conger", 0.08), ((0.3, 0.3, 0.4), 4, "kappa", 0.08)],
)
def test_ordered_metric_plans_meet_n_and_miss_08n_independently(prev, m, metric, width):
    model = raters_model(prev[0] if len(prev) == 1 else prev, m, error_rate=0.15)
    res = find_sample_size(
        model, SearchSettings(metric=metric, width=width, assurance=0.8, replicates=1000), rng=5
    )
    rng = np.random.default_rng(99)
    k = model.n_categories
    at_n = ordered_half_widths(metric, simulate_ordered(model, res.items, 200, rng), k)
    at_08n = ordered_half_widths(metric, simulate_ordered(model, int(0.8 * res.items), 200, rng), k)
    se = np.sqrt(0.8 * 0.2 / 200)
    assert np.mean(at_n <= width) >= 0.8 - 3 * se - 0.03
    assert np.mean(at_08n <= width) < 0.8 - 3 * se


def test_conger_and_mean_kappa_on_patterns_match_the_item_level_functions():
    rng = np.random.default_rng(3)
    m, k = 4, 3
    labels = np.array(list(itertools.product(range(k), repeat=m)))
    for _ in range(3):
        w = rng.integers(0, 6, size=labels.shape[0]).astype(float)
        res = conger_patterns(labels, k, w)
        item, ann = np.repeat(np.arange(len(labels)), m), np.tile(np.arange(m), len(labels))
        ref = conger_kappa(
            item, ann, labels.ravel(), n_rows=len(labels), n_categories=k, n_annotators=m,
            row_weights=w,
        )  # fmt: skip
        assert float(res.estimate) == pytest.approx(float(ref.estimate), rel=1e-12)
        assert float(res.standard_error) == pytest.approx(float(ref.standard_error), rel=1e-12)
        est, _, _ = mean_pairwise_kappa_patterns(labels, k, w)
        assert float(est) == pytest.approx(mean_cohen(labels, k, w), rel=1e-12)
    # two annotators: the pair-averaged SE is Gwet's (= Conger's with two)
    pair = np.array(list(itertools.product(range(k), repeat=2)))
    w2 = rng.integers(1, 30, size=len(pair)).astype(float)
    _, se, _ = mean_pairwise_kappa_patterns(pair, k, w2)
    assert float(se) == pytest.approx(float(conger_patterns(pair, k, w2).standard_error))


def independent_half_widths(metric, counts, level="nominal"):
    """Half-widths of each study's interval, from dense counts by dense functions."""
    out = []
    for study in counts:
        if metric == "fleiss":
            lo, hi = mr.chance_corrected(study, "fleiss").confidence_interval(0.95)
        elif metric == "psa":
            est = mr.specific_agreement(study)[1]
            se = mr.specific_agreement_se(study)[1]
            lo, hi = mr.specific_agreement_interval(est, se, 0.95)
        else:
            lo, hi = jackknife_alpha_interval(study, level)
        out.append((float(hi) - float(lo)) / 2)
    return np.asarray(out)


CASES = [
    # (prevalences, M, metric, level, per_item, width, assurance, extra model options)
    ((0.3,), 5, "fleiss", "nominal", None, 0.06, 0.8, {}),
    ((0.1,), 3, "psa", "nominal", None, 0.08, 0.8, {"ambiguity": 0.3}),
    ((0.25, 0.25, 0.5), 4, "alpha", "nominal", None, 0.06, 0.8, {"error_rate": 0.15}),
    ((0.1, 0.2, 0.3, 0.2, 0.2), 6, "alpha", "ordinal", None, 0.03, 0.8, {"error_rate": 0.25}),
    ((0.2, 0.3, 0.3, 0.2), 2, "fleiss", "nominal", None, 0.08, 0.8, {"error_rate": 0.2}),
    ((0.3, 0.4, 0.3), 4, "alpha", "interval", 2, 0.08, 0.8, {"error_rate": 0.2}),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("prev", "m", "metric", "level", "per_item", "width", "assurance", "kw"), CASES
)
def test_plan_is_met_at_n_and_missed_at_08n_by_an_independent_simulation(
    prev, m, metric, level, per_item, width, assurance, kw
):
    spread = "uniform" if level == "nominal" else "adjacent"
    model = raters_model(prev[0] if len(prev) == 1 else prev, m, spread=spread, **kw)
    res = find_sample_size(
        model,
        SearchSettings(
            metric=metric,
            width=width,
            level=level,
            per_item=per_item,
            assurance=assurance,
            replicates=1000,
        ),
        rng=11,
    )
    rng = np.random.default_rng(2024)
    studies = 300 if metric != "alpha" else 150
    at_n = independent_half_widths(
        metric, simulate_items(model, res.items, studies, rng, per_item), level
    )
    at_08n = independent_half_widths(
        metric, simulate_items(model, int(0.8 * res.items), studies, rng, per_item), level
    )
    se = np.sqrt(assurance * (1 - assurance) / studies)
    assert np.mean(at_n <= width) >= assurance - 3 * se  # met at n (within Monte Carlo error)
    assert np.mean(at_08n <= width) < assurance - 3 * se  # clearly missed at 0.8 n


# --------------------------------------------------------------------------- the model


def test_two_annotators_reduce_to_the_pair_model_with_bias_and_ambiguity():
    m = raters_model(0.06, 2, error_rate=(0.03, 0.02), bias=(0.4, -0.5), ambiguity=0.4)
    pair = pair_from_annotators(0.06, (0.03, 0.02), (0.4, -0.5), ambiguity=0.4)
    p = m.ordered_probabilities()
    # pair cells: both positive, A only, B only, neither; category 1 is positive here
    assert np.allclose([p[1, 1], p[1, 0], p[0, 1], p[0, 0]], pair.cells, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 4),
    st.integers(2, 4),
    st.floats(0, 1),
    st.integers(0, 2**32 - 1),
)
def test_ambiguity_keeps_every_annotators_confusion_matrix(m, k, h, seed):
    rng = np.random.default_rng(seed)
    conf = rng.dirichlet(np.ones(k) * 2, size=(m, k))
    prev = rng.dirichlet(np.ones(k) * 3)
    prev = prev / prev.sum()
    conf = conf / conf.sum(axis=2, keepdims=True)
    model = raters_model(prev.clip(1e-6), m, confusion=conf, ambiguity=h)
    p = model.ordered_probabilities()
    assert p.sum() == pytest.approx(1.0)
    for j in range(m):
        marginal = p.sum(axis=tuple(a for a in range(m) if a != j))
        assert np.allclose(marginal, np.asarray(model.prevalences) @ conf[j], atol=1e-9)


def test_k_of_m_patterns_are_the_average_over_subsets_by_brute_force():
    model = raters_model((0.2, 0.5, 0.3), 4, error_rate=(0.1, 0.2, 0.15, 0.3), ambiguity=0.2)
    patterns, probs = model.count_patterns(per_item=2)
    full = model.ordered_probabilities()
    expected: dict[tuple[int, ...], float] = {}
    for labels in itertools.product(range(3), repeat=4):
        for pair in itertools.combinations(range(4), 2):
            row = tuple(int(sum(labels[j] == c for j in pair)) for c in range(3))
            expected[row] = expected.get(row, 0.0) + full[labels] / 6
    got = {tuple(int(x) for x in r): float(q) for r, q in zip(patterns, probs, strict=True)}
    assert got.keys() == expected.keys()
    assert all(got[r] == pytest.approx(expected[r], abs=1e-12) for r in got)


def test_nested_studies_hold_common_random_numbers_across_n():
    studies = NestedPatternStudies([0.5, 0.2, 0.2, 0.1], replicates=1500, rng=3)
    big, small, mid = studies.counts(300), studies.counts(100), studies.counts(200)
    assert (small <= mid).all() and (mid <= big).all()
    assert (mid.sum(axis=1) == 200).all()
    # the subsample has the multinomial mean
    assert np.allclose(small.mean(axis=0) / 100, [0.5, 0.2, 0.2, 0.1], atol=0.01)


# --------------------------------------------------------------------------- intervals


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_linearised_alpha_se_matches_the_jackknife_and_the_estimate_the_library(level):
    rng = np.random.default_rng(5)
    counts = np.array([[3, 0, 0], [0, 3, 0], [0, 0, 3], [2, 1, 0], [1, 1, 1], [0, 2, 1], [1, 0, 2]])
    for _ in range(3):
        mult = rng.integers(5, 60, size=7)
        est, se = alpha_linearised(counts, mult, level)
        assert est == pytest.approx(krippendorff_alpha(counts, multiplicity=mult, level=level))
        dense = np.repeat(counts, mult, axis=0)
        lo, hi = jackknife_alpha_interval(dense, level)
        assert se == pytest.approx((hi - lo) / 2 / 1.959964, rel=0.03)


def test_multi_rater_psa_se_with_two_raters_is_the_graham_bull_delta_se():
    # two raters: Uebersax's p_s reduces to 2a/(2a+b+c) (METHODS 4.2) and its linearised
    # ratio SE to sqrt(4a(b+c)(a+b+c))/(2a+b+c)^2 (Graham & Bull 1998) times sqrt(n/(n-1))
    a, b, c, d = 6, 21, 14, 459
    patterns = np.array([[0, 2], [1, 1], [2, 0]])  # (negative, positive) counts
    mult = np.array([a, b + c, d])
    ci = study_intervals("psa", patterns, mult)
    assert float(ci.estimate) == pytest.approx(2 * a / (2 * a + b + c))
    se = mr.specific_agreement_se(patterns, mult)[1]
    n = a + b + c + d
    expected = psa_standard_error(np.array([[a, b], [c, d]])) * np.sqrt(n / (n - 1))
    assert float(se) == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.parametrize(
    ("prev", "m", "metric", "level", "n"),
    [
        ((0.3,), 3, "fleiss", "nominal", 150),
        ((0.1,), 4, "psa", "nominal", 800),
        ((0.2, 0.3, 0.5), 3, "alpha", "nominal", 150),
        ((0.2, 0.3, 0.3, 0.2), 5, "alpha", "ordinal", 150),
        ((0.2, 0.3, 0.3, 0.2), 4, "alpha", "interval", 100),
        ((0.3,), 4, "conger", "nominal", 150),
        ((0.2, 0.5, 0.3), 3, "kappa", "nominal", 150),
    ],
)
def test_interval_coverage_is_near_nominal(prev, m, metric, level, n):
    spread = "uniform" if level == "nominal" else "adjacent"
    model = raters_model(prev[0] if len(prev) == 1 else prev, m, error_rate=0.15, spread=spread)
    patterns, probs = pattern_space(model, metric)  # ordered patterns for conger and kappa
    counts = simulate_pattern_counts(probs, n, 4000, rng=7)
    k = model.n_categories
    ci = study_intervals(metric, patterns, counts, level=level, n_categories=k)
    truth = true_value(metric, patterns, probs, level, k)
    coverage = np.mean((ci.low <= truth) & (truth <= ci.high))
    assert abs(coverage - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 4000) + 0.015


# --------------------------------------------------------------------------- plan and CLI


def _plan(*args: str):
    return runner.invoke(plan_app, list(args))


def test_three_annotators_psa_plan_bills_hours_for_three():
    # plan answered for one pair and billed a third annotator's hours
    result = _plan(
        "--annotators", "3", "--prevalence", "0.05", "--metric", "psa", "--width", "0.05",
        "--seed", "1", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "plan-raters"
    sizing = doc["sizing"]
    assert sizing["n_annotators"] == 3 and sizing["labels_per_item"] == 3
    items = doc["items"]
    assert doc["budget"]["labels"] == 3 * items
    assert doc["budget"]["person_hours"] == pytest.approx(items * 3 * 90 / 3600)
    assert [r["annotators"] for r in doc["precision_by_annotators"]] == [2, 3, 4, 5, 6]
    interval = doc["expected_coefficient"]["interval"]
    assert set(interval) == {"lower", "upper", "level", "method", "covers"}


def test_k_of_m_plan_bills_k_labels_and_hours_per_annotator():
    result = _plan(
        "--annotators", "5", "--per-item", "2", "--prevalence", "0.3,0.4,0.3",
        "--metric", "alpha", "--level", "ordinal", "--width", "0.1", "--seed", "2", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    items = doc["items"]
    assert doc["budget"]["labels"] == 2 * items
    assert doc["hours_per_annotator"] == pytest.approx(items * 2 * 90 / 3600 / 5)


def test_make_plan_sizes_several_annotators_as_their_search_does():
    # one entry for every kind of study: the settings' target, metric, level and per_item
    # reach the several-annotator search unchanged, and every label of k per item is billed
    model = raters_model((0.3, 0.7), 4)
    settings = PlanSettings(
        metric="alpha", width=0.1, level="ordinal", per_item=3, replicates=300, hourly_rate=20.0
    )
    plan = make_plan(model, settings, rng=5)
    direct = find_sample_size(
        model,
        SearchSettings(metric="alpha", width=0.1, level="ordinal", per_item=3, replicates=300),
        rng=5,
    )
    # field by field (NaN fields make == false): the same search, the same answer
    assert plan.sizing.items == direct.items
    assert plan.sizing.assurance == pytest.approx(direct.assurance)
    assert plan.budget.labels == pytest.approx(3 * direct.items)
    assert plan.budget.cost == pytest.approx(3 * direct.items * 90 / 3600 * 20.0)
    assert plan.hours_per_annotator == pytest.approx(3 * direct.items * 90 / 3600 / 4)
    assert plan.by_annotators == []  # no fixed-hours table for a k-of-M design


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"metric": "fleiss"}, "metric"),
        ({"per_item": 2}, "per_item"),
        ({"level": "ordinal"}, "level"),
    ],
)
def test_a_pair_plan_refuses_the_settings_of_several_annotators(kwargs, parameter):
    with pytest.raises(InvalidInput) as info:
        make_plan(pair_from_annotators(0.1), PlanSettings(replicates=100, **kwargs), rng=1)
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [({"metric": "ratio"}, "metric"), ({"level": "ratio"}, "level"), ({"per_item": 1}, "per_item")],
)
def test_plan_settings_check_the_several_annotator_fields(kwargs, parameter):
    with pytest.raises(InvalidInput) as info:
        PlanSettings(**kwargs)
    assert info.value.parameter == parameter


def test_several_annotators_need_a_metric_with_three_categories():
    # the one default metric, PSA, needs a positive class
    with pytest.raises(InvalidInput, match="psa needs two categories") as info:
        make_plan(raters_model((0.2, 0.3, 0.5), 3), PlanSettings(replicates=100), rng=1)
    assert info.value.parameter == "metric"


def test_same_seed_same_plan():
    model = raters_model((0.3, 0.7), 4)
    settings = PlanSettings(metric="fleiss", width=0.08, replicates=300)
    one = make_plan(model, settings, rng=9)
    two = make_plan(model, settings, rng=9)
    assert raters_plan_document(one) == raters_plan_document(two)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--annotators", "1", "--prevalence", "0.1"], "--annotators must be"),
        (["--annotators", "7", "--prevalence", "0.1"], "--annotators must be"),
        (["--annotators", "3", "--prevalence", "0.2,0.3"], "must sum to 1"),
        (["--annotators", "3", "--prevalence", "0.2,0.8", "--confusion", "0.9,0.2;0.1,0.9"],
         "--confusion row 1 of annotator 1 must sum to 1"),
        (["--annotators", "3", "--prevalence", "0.2,0.8", "--categories", "3"],
         "--categories 3 does not match"),
        (["--annotators", "3", "--prevalence", "0.5,0.3,0.2", "--confusion", "0.9,0.1;0.1,0.9"],
         "--confusion is 2 x 2 but the model has 3 categories"),
        (["--annotators", "3", "--prevalence", "0.1", "--metric", "both"], "--metric must be"),
        (["--annotators", "3", "--prevalence", "0.1,0.2,0.7", "--metric", "psa"],
         "psa needs two categories"),
        (["--annotators", "3", "--per-item", "3", "--prevalence", "0.1"], "--per-item must be"),
        (["--annotators", "3", "--prevalence", "0.1", "--level", "ratio"], "--level must be"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(args, needle):
    result = _plan(*args, "--seed", "1")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_library_names_parameters():
    with pytest.raises(InvalidInput, match=r"^n_annotators must be"):
        raters_model(0.1, 1)
    with pytest.raises(InvalidInput, match=r"^prevalence values must sum to 1"):
        raters_model((0.5, 0.6), 3)


def test_pair_plan_unchanged_for_two_annotators_and_one_prevalence():
    result = _plan("--prevalence", "0.08", "--width", "0.08", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    assert "results" in json.loads(result.stdout)


def test_plan_says_when_its_interval_under_covers():
    # 47 items, about 7 flagged by anyone: the logit-Wald PSA interval covers ~0.87 (an
    # independent count: coverage_study/raters_coverage.py finds 0.80-0.86 at 30 items)
    psa = PlanSettings(metric="psa", width=0.25, replicates=2000)
    plan = make_plan(raters_model(0.1, 3, error_rate=0.05), psa, rng=3)
    assert plan.sizing.coverage < 0.92
    assert any("under-covers" in line for line in plan.notes)
    fleiss = PlanSettings(metric="fleiss", width=0.05, replicates=2000)
    wide = make_plan(raters_model(0.3, 3), fleiss, rng=3)
    assert not any("under-covers" in line for line in wide.notes)


@pytest.mark.parametrize("metric", ["fleiss", "alpha", "psa", "conger", "kappa"])
def test_perfect_annotators_agree_perfectly(metric):
    model = raters_model(0.2, 4, error_rate=0.0)
    patterns, probs = pattern_space(model, metric)
    assert true_value(metric, patterns, probs) == pytest.approx(1.0)


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(4)), st.integers(0, 2**32 - 1))
def test_reordering_annotators_changes_no_coefficient(order, seed):
    rng = np.random.default_rng(seed)
    conf = rng.dirichlet(np.ones(3) * 4, size=(4, 3)) * 0.5 + np.eye(3) * 0.5
    prev = (0.2, 0.5, 0.3)
    one = raters_model(prev, 4, confusion=conf, ambiguity=0.3)
    two = raters_model(prev, 4, confusion=conf[list(order)], ambiguity=0.3)
    for metric in ("fleiss", "alpha", "conger", "kappa"):
        a = true_value(metric, *pattern_space(one, metric), n_categories=3)
        b = true_value(metric, *pattern_space(two, metric), n_categories=3)
        assert a == pytest.approx(b, abs=1e-9)


@pytest.mark.parametrize("metric", ["fleiss", "alpha", "psa", "conger"])
def test_plug_in_half_width_shrinks_as_one_over_root_n(metric):
    model = raters_model(0.3, 3)
    patterns, probs = pattern_space(model, metric)
    hw = [expected_half_width(metric, patterns, probs, n) for n in (400, 1600, 6400)]
    assert hw[0] > hw[1] > hw[2]
    assert hw[0] / hw[2] == pytest.approx(4.0, rel=0.02)


@pytest.mark.parametrize(("prevalence", "metric"), [("0.1", "psa"), ("0.3,0.3,0.4", "fleiss")])
def test_default_metric_is_psa_for_two_categories_as_the_pair_plan(prevalence, metric):
    result = _plan("--annotators", "4", "--prevalence", prevalence, "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sizing"]["metric"] == metric


def test_one_confusion_matrix_per_annotator_from_the_command_line():
    result = _plan(
        "--annotators", "2", "--prevalence", "0.2", "--metric", "fleiss",
        "--confusion", "0.9,0.1;0.2,0.8|0.8,0.2;0.1,0.9", "--seed", "1", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["model"]["confusion"] == [[[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.1, 0.9]]]
    assert doc["model"]["prevalences"] == [0.8, 0.2]
    # the true Fleiss kappa of this pair, by hand: p(label 1) and P(agree) from the cells
    pi = np.array([0.8, 0.2])
    a, b = np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([[0.8, 0.2], [0.1, 0.9]])
    cells = np.einsum("t,tk,tl->kl", pi, a, b)
    p_o = np.trace(cells)
    share = (cells.sum(axis=0) + cells.sum(axis=1)) / 2
    kappa = (p_o - (share**2).sum()) / (1 - (share**2).sum())
    assert doc["sizing"]["true_value"] == pytest.approx(kappa, abs=1e-9)
