"""agree's statistics never crash, never hang, never ignore an option.

* every argument of ``measure_agreement`` is checked at the door in parameter names, and the
  CLI names the flag;
* the statistics on sparse :class:`~planner.statistics.multirater.Patterns` equal the dense
forms (and
  the ``krippendorff`` package), so alpha's bootstrap no longer costs ``K^2`` per resample;
* options without effect on the data say so in a note;
* degenerate ratings give NaN with a note, never an exception.
"""

from __future__ import annotations

import json
import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.labels import counts_from_codes, ratings_from_counts, ratings_from_matrix
from planner.errors import InvalidInput
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings
from planner.statistics import alpha as ka
from planner.statistics import multirater as mr

runner = CliRunner()

# ----------------------------------------------------------------------------- strategies


@st.composite
def code_matrices(draw, max_items=25, max_annotators=6, max_categories=7):
    """``(N, m)`` codes with -1 missing, every item rated at least once, and K."""
    k = draw(st.integers(1, max_categories))
    n = draw(st.integers(1, max_items))
    m = draw(st.integers(2, max_annotators))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, (n, m))
    codes[rng.random((n, m)) < draw(st.sampled_from([0.0, 0.3, 0.6]))] = -1
    codes[:, 0] = np.where((codes >= 0).any(axis=1), codes[:, 0], 0)
    return codes, k, rng


def _close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
    assert np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True), (a, b)


# ----------------------------------------------------------------------------- patterns


@settings(max_examples=60)
@given(code_matrices())
def test_patterns_from_codes_are_compress_of_the_counts(data):
    codes, k, _ = data
    rows, mult = mr.compress(counts_from_codes(codes.astype(np.int32), k))
    for patterns in (mr.patterns_from_codes(codes, k), mr.patterns_from_counts(rows)):
        assert np.array_equal(patterns.dense(), rows)  # same rows in the same order
    assert np.array_equal(mr.patterns_from_codes(codes, k).multiplicity, mult)


@pytest.mark.slow
@settings(max_examples=60)
@given(code_matrices(), st.sampled_from([None, "linear", "quadratic"]))
def test_chance_corrected_on_patterns_equals_the_dense_form(data, kind):
    codes, k, rng = data
    patterns = mr.patterns_from_codes(codes, k)
    rows = patterns.dense()
    weights = None if kind is None else mr.agreement_weights(k, kind)
    batch = rng.integers(0, 5, (3, patterns.n_patterns))
    for mult in (patterns.multiplicity, batch):
        for chance in mr.CHANCE_MODELS:
            dense = mr.chance_corrected(rows, chance, weights, multiplicity=mult)
            sparse = mr.chance_corrected_patterns(patterns, chance, weights, mult)
            for field in ("estimate", "p_a", "p_e", "standard_error", "n_items"):
                _close(getattr(dense, field), getattr(sparse, field))
        _close(mr.pairwise_agreement(rows, mult), mr.pairwise_agreement_patterns(patterns, mult))
        _close(mr.specific_agreement(rows, mult), mr.specific_agreement_patterns(patterns, mult))
        _close(
            mr.specific_agreement(rows, mult)[..., k - 1],
            mr.specific_agreement_patterns(patterns, mult, k - 1),
        )
    own = patterns.multiplicity
    _close(mr.specific_agreement_se(rows, own), mr.specific_agreement_se_patterns(patterns))
    _close(mr.fleiss_kappa_null_se(rows, own), mr.fleiss_kappa_null_se_patterns(patterns))


@settings(max_examples=80)
@given(code_matrices(), st.sampled_from(ka.LEVELS), st.sampled_from([1.0, 0.1, 7.3]))
def test_alpha_on_patterns_equals_the_coincidence_matrix_form(data, level, scale):
    codes, k, rng = data
    patterns = mr.patterns_from_codes(codes, k)
    rows = patterns.dense()
    values = np.sort(rng.choice(40, k, replace=False)).astype(float) * scale
    batch = rng.integers(0, 5, (4, patterns.n_patterns))
    for mult in (None, batch):
        dense = ka.krippendorff_alpha(
            rows, values, level, multiplicity=patterns.multiplicity if mult is None else mult
        )
        _close(dense, ka.krippendorff_alpha_patterns(patterns, values, level, mult))


@pytest.mark.parametrize("level", ka.LEVELS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_on_patterns_equals_the_krippendorff_package(level, seed):
    rng = np.random.default_rng(seed)
    k = [3, 8, 40][seed]
    values = np.sort(rng.choice(np.arange(1, 200), k, replace=False)).astype(float)
    truth = rng.integers(0, k, 150)
    codes = np.where(rng.random((150, 4)) < 0.6, truth[:, None], rng.integers(0, k, (150, 4)))
    codes[rng.random(codes.shape) < 0.2] = -1
    codes[:, 0] = np.maximum(codes[:, 0], 0)
    data = np.where(codes >= 0, values[np.maximum(codes, 0)], np.nan)
    expected = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
    patterns = mr.patterns_from_codes(codes, k)
    assert float(ka.krippendorff_alpha_patterns(patterns, values, level)) == pytest.approx(
        expected, abs=1e-10
    )


def test_ordinal_distance_is_the_interval_distance_of_mid_ranks():
    # Krippendorff (2011) ordinal metric: (sum_{g=c..k} n_g - (n_c + n_k)/2)^2
    n_c = np.array([3.0, 0.0, 5.0, 2.0, 7.0])
    ranks = np.cumsum(n_c) - n_c / 2
    by_hand = np.zeros((5, 5))
    for c in range(5):
        for k in range(5):
            lo, hi = min(c, k), max(c, k)
            by_hand[c, k] = (n_c[lo : hi + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
    assert np.allclose(by_hand, (ranks[:, None] - ranks[None, :]) ** 2)


def test_many_categories_never_build_k_squared_per_resample():
    # 5,000 categories, one rating pair each: patterns stay (P, L) with L = 2, and alpha's
    # bootstrap re-weights per-item terms (K^2 x patterns x resamples would be 1.25e14)
    k = 5_000
    codes = np.repeat(np.arange(k), 2).reshape(k, 2)
    codes[::2, 1] = (codes[::2, 1] + 1) % k  # half the pairs disagree
    patterns = mr.patterns_from_codes(codes, k)
    assert patterns.counts.shape == (k, 2)
    batch = np.random.default_rng(0).multinomial(k, np.full(k, 1 / k), size=200)
    draws = ka.krippendorff_alpha_patterns(patterns, None, "nominal", batch)
    # by hand: o holds 2 off-diagonal coincidences per disagreeing unit (k / 2 of them)
    n_c = np.bincount(codes.ravel(), minlength=k).astype(float)
    n = n_c.sum()
    expected = 1 - (n - 1) * k / (n**2 - (n_c**2).sum())
    assert float(ka.krippendorff_alpha_patterns(patterns)) == pytest.approx(expected, abs=1e-12)
    assert draws.shape == (200,) and np.all(np.isfinite(draws))


# ----------------------------------------------------------------------------- arguments


def _pair():
    return ratings_from_counts(6, 21, 14, 459)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"kappa_method": "bogus"},
            "kappa_method must be one of score, gof, fce, bootstrap, profile; got 'bogus'",
        ),
        ({"level": "weird"}, "level must be one of nominal, ordinal, interval, ratio"),
        ({"weights": "cubic"}, "weights must be one of quadratic, linear; got 'cubic'"),
        ({"confidence_level": 1.5}, "confidence_level must be a number in (0, 1), got 1.5"),
        ({"confidence_level": np.float64("nan")}, "confidence_level must be a number"),
        ({"n_boot": 99}, "n_boot must be a whole number in [100, 100,000], got 99"),
        ({"n_boot": 10**9}, "n_boot must be a whole number in [100, 100,000], got 1000000000"),
        ({"n_boot": 150.5}, "n_boot must be a whole number"),
        ({"alpha_min": float("nan")}, "alpha_min must be a number in [-1, 1], got nan"),
        ({"alpha_min": 2.0}, "alpha_min must be a number in [-1, 1], got 2"),
        ({"alpha_min": float("inf")}, "alpha_min must be a number in [-1, 1], got inf"),
        ({"decide_on": "nonsense"}, "decide_on must be one of observed_agreement, cohen_kappa"),
        ({"not_demonstrated_below": -0.1}, "not_demonstrated_below must be a number in [0, 1]"),
        ({"demonstrated_at": float("nan")}, "demonstrated_at must be a number in [0, 1], got nan"),
        (
            {"not_demonstrated_below": 0.7, "demonstrated_at": 0.5},
            "not_demonstrated_below must be at most the demonstrated-at threshold (0.5), got 0.7",
        ),
        ({"rng": -1}, "rng must be a whole number"),
    ],
)
def test_every_argument_is_checked_at_the_door_in_parameter_names(arguments, message):
    # regression: kappa_method="bogus" gave a ValueError traceback from intervals.py,
    # alpha_min=nan was accepted and n_boot had no upper bound
    with pytest.raises(InvalidInput) as caught:
        rng = arguments.get("rng")
        settings = {k: v for k, v in arguments.items() if k != "rng"}
        measure_agreement(_pair(), MeasureSettings(**settings), rng=rng)
    assert str(caught.value).startswith(message)
    assert caught.value.parameter == next(iter(arguments))
    assert "np." not in str(caught.value)


def test_decide_on_a_coefficient_these_ratings_do_not_have():
    three = ratings_from_matrix([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(InvalidInput, match="^decide_on must be one of .*got 'cohen_kappa'"):
        measure_agreement(
            three, MeasureSettings(decide_on="cohen_kappa")
        )  # Cohen's kappa needs two


def _agree(*args: str):
    return runner.invoke(app, ["agree", "--counts", "6,21,14,459", "--seed", "1", *args])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--kappa-method", "bogus"], "--kappa-method must be one of score, gof, fce, bootstrap"),
        (["--n-boot", "1000000"], "--n-boot must be a whole number in [100, 100,000], got"),
        (["--alpha-min", "nan"], "--alpha-min must be a number in [-1, 1], got nan"),
        (["--confidence", "1.5"], "--confidence must be a number in (0, 1), got 1.5"),
        (["--weights", "cubic"], "--weights must be one of quadratic, linear"),
        (["--decide-on", "alpha"], "--decide-on must be one of observed_agreement"),
        (
            ["--not-demonstrated-below", "0.9"],
            "--not-demonstrated-below must be at most the demonstrated-at threshold (0.65)",
        ),
    ],
)
def test_cli_bad_measure_options_give_one_line_and_exit_2(args, line):
    result = _agree(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {line}"), result.stderr
    assert "Traceback" not in result.output and "np." not in result.stderr


# ----------------------------------------------------------------------------- notes


def _notes(ratings, **arguments):
    return measure_agreement(ratings, MeasureSettings(**arguments), rng=1).notes


def test_options_without_effect_say_so():
    three = ratings_from_matrix([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0], [2, 2, 2]])
    assert any(
        n.startswith("kappa_method has no effect") for n in _notes(three, kappa_method="fce")
    )
    boot = _notes(_pair(), kappa_method="fce", bootstrap=True, n_boot=100)
    assert any(n.startswith("kappa_method has no effect with bootstrap") for n in boot)
    assert any(n.startswith("weights has no effect") for n in _notes(_pair(), weights="linear"))
    # effective options say nothing
    assert not any("no effect" in n for n in _notes(_pair(), kappa_method="fce"))
    # (small-count coverage notes are about the data, not the options)
    option_notes = [
        n for n in _notes(three, level="ordinal", weights="linear") if "(0.95 intended)" not in n
    ]
    assert not option_notes


def test_alpha_min_without_a_bootstrap_says_so():
    # interval data with more than 2,000 distinct values: alpha has a jackknife interval
    values = np.arange(2_100, dtype=float)
    ratings = ratings_from_matrix(np.stack([values, values + 1, values], axis=1))
    report = measure_agreement(ratings, MeasureSettings(level="interval", alpha_min=0.7), rng=1)
    assert "alpha_below_min" not in report.summary
    assert any(n.startswith("alpha_min has no effect") for n in report.notes)


def test_bootstrap_resamples_are_drawn_one_chunk_at_a_time():
    # regression: resampled built every chunk before the first was used, so 1,000
    # resamples of a 2,100 x 2,100 pair table held 35 GB at once (killed by the OOM killer)
    from planner.measuring.agreement_bootstrap import BOOT_MEMORY, resampled

    rng, same = np.random.default_rng(0), np.random.default_rng(0)
    cells = np.ones(1000)
    chunks = resampled(cells, 1000, rng, BOOT_MEMORY // 4000)  # 4 resamples a chunk
    assert next(chunks).shape == (4, 1000)
    same.multinomial(1000, cells / 1000, size=4)
    assert rng.bit_generator.state == same.bit_generator.state  # nothing more drawn yet
    assert sum(1 for _ in chunks) == 249


@pytest.mark.slow
def test_cli_notes_name_the_flags(tmp_path):
    path = tmp_path / "three.csv"
    path.write_text("a,b,c\nlow,low,high\nhigh,high,high\nlow,high,low\nlow,low,low\n")
    result = runner.invoke(
        app,
        ["agree", str(path), "--json", "--seed", "1", "--kappa-method", "fce"]
        + ["--order", "low,high", "--weights", "linear"],
    )
    assert result.exit_code == 0, result.output
    notes = json.loads(result.stdout)["notes"]
    assert any(n.startswith("--kappa-method has no effect") for n in notes), notes
    assert any(n.startswith("--weights has no effect at level nominal") for n in notes), notes
    assert any(n.startswith("--order has no effect at --level nominal") for n in notes), notes


def test_one_category_note_shows_the_label_not_its_numpy_repr():
    report = measure_agreement(ratings_from_matrix([[1, 1], [1, 1], [1, 1]]), rng=1)
    assert any(n.startswith("every rating is 1:") for n in report.notes), report.notes
    assert not any("np." in n for n in report.notes)


# ----------------------------------------------------------------------------- degenerate data


def _all_finite_or_explained(report):
    for name, co in report.coefficients.items():
        for value in (co.estimate, co.ci_low, co.ci_high):
            assert isinstance(value, float)
        assert math.isfinite(co.estimate) or co.note, name
    assert all("np." not in n for n in report.notes)


@pytest.mark.slow
@pytest.mark.parametrize(
    "matrix",
    [
        [
            [2, 2],
            [2, 2],
            [
                2,
                2,
            ],
        ],  # all one category
        [[0, 1]],  # one item with two ratings
        [[0, 0], [1, np.nan], [np.nan, 1]],  # one pairable item
        [[0, 1, 0], [1, 1, np.nan], [0, 0, np.nan], [1, 0, np.nan]],  # an annotator rated once
    ],
)
def test_degenerate_ratings_give_nan_with_a_note(matrix):
    for level in ka.LEVELS:
        for bootstrap in (False, True):
            report = measure_agreement(
                ratings_from_matrix(np.asarray(matrix, dtype=float), rows="items"),
                MeasureSettings(level=level, bootstrap=bootstrap, n_boot=100),
                rng=1,
            )
            _all_finite_or_explained(report)


@pytest.mark.slow
def test_five_thousand_categories_with_one_pair_each():
    k = 5_000
    codes = np.repeat(np.arange(k), 2).reshape(k, 2).astype(float)
    codes[::2, 1] = (codes[::2, 1] + 1) % k
    report = measure_agreement(ratings_from_matrix(codes), MeasureSettings(n_boot=100), rng=1)
    _all_finite_or_explained(report)
    assert math.isfinite(report.coefficients["krippendorff_alpha"].ci_low)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(code_matrices(max_items=12, max_annotators=4, max_categories=4), st.booleans())
def test_random_small_ratings_never_raise_anything_but_invalid_input(data, bootstrap):
    codes, k, rng = data
    matrix = np.where(codes >= 0, codes, np.nan).astype(float)
    level = ka.LEVELS[int(rng.integers(0, 4))]
    try:
        report = measure_agreement(
            ratings_from_matrix(matrix, rows="items"),
            MeasureSettings(level=level, bootstrap=bootstrap, n_boot=100),
            rng=1,
        )
    except InvalidInput:
        return
    _all_finite_or_explained(report)


@pytest.mark.slow
@pytest.mark.parametrize("annotators", [2, 3])
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("positive", [None, "1"])
@pytest.mark.parametrize("k", [2, 3])
def test_decide_on_choices_are_the_coefficients_reported(annotators, level, positive, k):
    from planner.measuring.measure import _coefficient_names
    from planner.measuring.measured_data import positive_index

    rng = np.random.default_rng(k)
    ratings = ratings_from_matrix(rng.integers(0, k, (40, annotators)))
    report = measure_agreement(
        ratings, MeasureSettings(level=level, positive=positive, n_boot=100), rng=1
    )
    pos = positive_index(ratings, positive)  # labels 0/1: positive 1 even when not given
    weights_kind = None if level == "nominal" else "quadratic"
    names = _coefficient_names(annotators == 2, weights_kind, pos, k)
    assert names == tuple(report.coefficients)


def test_cli_order_with_numeric_labels_says_what_it_does(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("a,b,c\n1,1,2\n2,2,2\n3,1,3\n1,1,1\n")
    result = runner.invoke(
        app,
        ["agree", str(path), "--json", "--seed", "1", "--level", "ordinal", "--order", "3,2,1"],
    )
    assert result.exit_code == 0, result.output
    notes = json.loads(result.stdout)["notes"]
    assert "--order ranks these numeric labels as listed, not by their values" in notes


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(2, 6),
    st.integers(1, 7),
    st.floats(0, 0.6),
    st.integers(0, 10_000),
)
def test_patterns_from_sparse_ratings_equal_patterns_from_codes(n, m, k, missing, seed):
    """The sparse path (ratings -> patterns) equals the dense one, rows and order alike."""
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, k, size=(n, m)).astype(float)
    matrix[rng.random((n, m)) < missing] = np.nan
    matrix[:, :2] = rng.integers(0, k, size=(n, 2))  # every item has two ratings
    ratings = ratings_from_matrix(matrix, rows="items")
    sparse = ratings.count_patterns()
    dense = mr.patterns_from_codes(ratings.codes, ratings.n_categories)
    np.testing.assert_array_equal(sparse.dense(), dense.dense())
    np.testing.assert_array_equal(sparse.multiplicity, dense.multiplicity)
