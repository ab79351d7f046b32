"""The annotator-pair model against docs/methods/annotator-models.md section 6 and an item-level
simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import InvalidInput
from planner.sizing.model import (
    error_and_bias,
    pair_from_annotators,
    pair_from_counts,
    pair_from_union_rate,
)


def test_methods_6_1_latent_class_example():
    # pi = .06, Se/Sp .75/.99 and .65/.995 give PSA 0.597 and kappa 0.577.
    e_a, bias_a = error_and_bias(0.06, 0.75, 0.99)
    e_b, bias_b = error_and_bias(0.06, 0.65, 0.995)
    summary = pair_from_annotators(0.06, (e_a, e_b), (bias_a, bias_b)).summary()
    assert summary["psa"] == pytest.approx(0.597, abs=5e-4)
    assert summary["kappa"] == pytest.approx(0.577, abs=5e-4)


@pytest.mark.parametrize(
    ("share_fp", "sensitivity", "specificity"),
    [(0.5, 0.75, 0.984), (0.8, 0.90, 0.9745), (0.2, 0.60, 0.9936)],
)
def test_methods_6_2_error_rate_and_false_positive_share(share_fp, sensitivity, specificity):
    model = pair_from_annotators(0.06, 0.03, 2 * share_fp - 1)
    assert model.assumptions["sensitivity"][0] == pytest.approx(sensitivity, abs=5e-4)
    assert model.assumptions["specificity"][0] == pytest.approx(specificity, abs=5e-5)


def test_methods_6_2_b_bias_index_example():
    # Both e = .03, beta .8 against .2: BI = +.036, PSA = .543, kappa = .516.
    summary = pair_from_annotators(0.06, 0.03, (0.6, -0.6)).summary()
    assert summary["bias_index"] == pytest.approx(0.036, abs=5e-4)
    assert summary["psa"] == pytest.approx(0.543, abs=5e-4)
    assert summary["kappa"] == pytest.approx(0.516, abs=5e-4)


#: prevalence, error and bias of each annotator, ambiguity
PAIR_INPUTS = (
    st.floats(0.02, 0.5),
    st.floats(0.0, 0.49),
    st.floats(-1, 1),
    st.floats(0.0, 0.49),
    st.floats(-1, 1),
    st.floats(0, 1),
)


@settings(max_examples=60, deadline=None)
@given(*PAIR_INPUTS)
def test_cells_are_probabilities_and_margins_ignore_ambiguity(pi, e_a, s_a, e_b, s_b, h):
    try:
        model = pair_from_annotators(pi, (e_a, e_b), (s_a, s_b), h)
    except InvalidInput:
        return
    cells = np.array(model.cells)
    assert np.all(cells >= 0) and cells.sum() == pytest.approx(1.0)
    # Each annotator's positive rate is pi + e (2 beta - 1), whatever the ambiguity.
    summary = model.summary()
    assert summary["positive_rate_a"] == pytest.approx(pi + e_a * s_a, abs=1e-9)
    assert summary["positive_rate_b"] == pytest.approx(pi + e_b * s_b, abs=1e-9)
    # Correlated errors never lower agreement on the positive class.
    independent = pair_from_annotators(pi, (e_a, e_b), (s_a, s_b), 0.0)
    assert model.cells[0] >= independent.cells[0] - 1e-12


def _closed_form_cells(pi, fnr, fpr, h):
    """The pair's four cells written out (docs/methods/annotator-models.md 6.2 (a)): both err
    with ``m_t = (1 - h) r_A r_B + h min(r_A, r_B)`` given the truth."""
    m1 = (1 - h) * fnr[0] * fnr[1] + h * min(fnr)
    m0 = (1 - h) * fpr[0] * fpr[1] + h * min(fpr)
    a = pi * (1 - fnr[0] - fnr[1] + m1) + (1 - pi) * m0
    b = pi * (fnr[1] - m1) + (1 - pi) * (fpr[0] - m0)
    c = pi * (fnr[0] - m1) + (1 - pi) * (fpr[1] - m0)
    d = pi * m1 + (1 - pi) * (1 - fpr[0] - fpr[1] + m0)
    return [a, b, c, d]


@settings(max_examples=80, deadline=None)
@given(*PAIR_INPUTS)
def test_the_pair_is_the_annotator_model_of_two_in_closed_form(pi, e_a, s_a, e_b, s_b, h):
    """The pair's cells come from the M-annotator model with M = 2; they equal the closed form
    of the pair model computed here independently."""
    try:
        model = pair_from_annotators(pi, (e_a, e_b), (s_a, s_b), h)
    except InvalidInput:
        return
    sens, spec = model.assumptions["sensitivity"], model.assumptions["specificity"]
    fnr, fpr = [1 - x for x in sens], [1 - x for x in spec]
    assert np.allclose(model.cells, _closed_form_cells(pi, fnr, fpr, h), atol=1e-12)


def test_cells_match_an_item_level_simulation():
    # Independent check of the closed form: simulate items one by one (in numpy, here only).
    rng = np.random.default_rng(2026)
    pi, errors, biases, h = 0.1, (0.04, 0.07), (0.3, -0.5), 0.4
    model = pair_from_annotators(pi, errors, biases, h)
    n = 2_000_000
    truth = rng.random(n) < pi
    ambiguous = rng.random(n) < h
    shared = rng.random(n)
    labels = []
    for e, s in zip(errors, biases, strict=True):
        beta = (1 + s) / 2
        rate = np.where(truth, (1 - beta) * e / pi, beta * e / (1 - pi))
        draw = np.where(ambiguous, shared, rng.random(n))
        err = draw < rate
        labels.append(truth ^ err)
    a_lab, b_lab = labels
    observed = np.array(
        [
            np.mean(a_lab & b_lab),
            np.mean(a_lab & ~b_lab),
            np.mean(~a_lab & b_lab),
            np.mean(~a_lab & ~b_lab),
        ]
    )
    se = np.sqrt(np.array(model.cells) * (1 - np.array(model.cells)) / n)
    assert np.all(np.abs(observed - np.array(model.cells)) < 4.5 * se)


def test_union_rate_and_counts_models():
    model = pair_from_union_rate(0.082, 0.255319)
    assert model.psa == pytest.approx(0.255319)
    assert model.union_rate == pytest.approx(0.082)
    pilot = pair_from_counts([6, 21, 14, 459])
    assert pilot.cells == pytest.approx((0.012, 0.042, 0.028, 0.918))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prevalence": 0.02, "error_rate": 0.05}, "false-negative rate"),
        ({"prevalence": 0.97, "error_rate": 0.4, "bias": 1.0}, "false-positive rate"),
        ({"prevalence": 1.2}, "prevalence must be a number in"),
        ({"prevalence": 0.1, "error_rate": 0.6}, "error_rate must be a number in"),
        ({"prevalence": 0.1, "bias": 2.0}, "bias must be a number in"),
        ({"prevalence": 0.1, "ambiguity": -0.1}, "ambiguity must be a number in"),
        ({"prevalence": 0.1, "error_rate": (0.01, 0.02, 0.03)}, "one value or two"),
    ],
)
def test_infeasible_models_say_why(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        pair_from_annotators(**kwargs)


def test_bad_pilot_counts():
    with pytest.raises(InvalidInput, match="four counts"):
        pair_from_counts([1, 2, 3])
    with pytest.raises(InvalidInput, match="no union positives"):
        pair_from_counts([0, 0, 0, 10])
    with pytest.raises(InvalidInput, match="pilot_counts must be a whole number"):
        pair_from_counts([1, -2, 3, 4])
