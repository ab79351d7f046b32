"""The pair's intervals on label patterns: two annotators' studies in the several-annotator
form (count or ordered patterns) give the pair's PSA and kappa intervals, and a fixed-size
precision of a two-annotator model with a pair's method gives the pair's numbers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import InvalidInput
from planner.sizing.annotator_model import raters_model
from planner.sizing.assurance_curve import assurance_curve, raters_assurance_curve
from planner.sizing.exact import exact_psa_assurance, exact_psa_law
from planner.sizing.items_bought import LabelCosts
from planner.sizing.plan import PlanSettings
from planner.sizing.precision import fixed_size_precision, raters_fixed_size
from planner.sizing.study_intervals import pair_tables, study_intervals
from planner.sizing.study_precision import RatersStudy
from planner.statistics.intervals import kappa_interval, psa_interval

#: count patterns (negatives, positives) of two labels: none, one and both positive
COUNT_PATTERNS = np.array([[2, 0], [1, 1], [0, 2]])
#: ordered label patterns (label of A, label of B)
ORDERED_PATTERNS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])

cells = st.integers(min_value=0, max_value=400)


@settings(max_examples=60, deadline=None)
@given(
    a=cells,
    b=cells,
    c=cells,
    d=cells,
    method=st.sampled_from(["wilson", "clopper-pearson", "jeffreys", "wald"]),
)
def test_psa_on_count_patterns_is_the_pairs_interval_for_any_split(a, b, c, d, method):
    # count patterns do not say who flagged a split item; the pair's interval of [[a, b], [c, d]]
    # must not care either
    got = study_intervals("psa", COUNT_PATTERNS, np.array([d, b + c, a]), method=method)
    want = psa_interval(np.array([[a, b], [c, d]]), 0.95, method)
    np.testing.assert_allclose([got.low, got.high], [want.low, want.high], rtol=1e-12)
    if 2 * a + b + c > 0:
        assert got.estimate == pytest.approx(2 * a / (2 * a + b + c))


@settings(max_examples=60, deadline=None)
@given(a=cells, b=cells, c=cells, d=cells, method=st.sampled_from(["score", "gof", "fce"]))
def test_kappa_on_ordered_patterns_is_cohens_interval(a, b, c, d, method):
    got = study_intervals("kappa", ORDERED_PATTERNS, np.array([d, c, b, a]), method=method)
    want = kappa_interval(np.array([[a, b], [c, d]]), 0.95, method)
    np.testing.assert_allclose(
        [got.low, got.high], [want.low, want.high], rtol=1e-10, equal_nan=True
    )
    n = a + b + c + d
    if n == 0:
        return
    observed, chance = (a + d) / n, ((a + b) * (a + c) + (c + d) * (b + d)) / n**2
    if chance < 1:
        assert got.estimate == pytest.approx((observed - chance) / (1 - chance))


def test_stacked_studies_give_one_interval_each():
    counts = np.array([[900, 60, 40], [800, 100, 100]])
    got = study_intervals("psa", COUNT_PATTERNS, counts, method="wilson")
    for row, (d, split, a) in enumerate(counts):
        want = psa_interval(np.array([[a, split], [0, d]]))
        assert (got.low[row], got.high[row]) == pytest.approx((want.low, want.high))


MODEL = raters_model(0.08, 2, error_rate=0.04)


def test_two_annotators_by_the_pairs_psa_interval_have_the_pairs_exact_precision():
    several = raters_fixed_size(
        MODEL, RatersStudy("psa", 0.08, method="wilson"), LabelCosts(2), items=1000
    )
    pair = fixed_size_precision(MODEL.pair(), PlanSettings(), items=1000).metrics["psa"]
    assert several.method == "wilson"
    assert several.half_width == pytest.approx(pair.half_width, rel=1e-12)
    assert several.assurance == pytest.approx(pair.assurance, rel=1e-12)
    assert several.coverage == pytest.approx(pair.coverage, rel=1e-12)
    assert several.true_value == pytest.approx(pair.true_value, rel=1e-12)
    assert several.assurance_mc_se == 0.0 and several.coverage_mc_se == 0.0


def test_two_annotators_psa_curve_is_the_pairs_exact_curve():
    study = RatersStudy("psa", 0.08, method="wilson")
    several = raters_assurance_curve(MODEL, study, [500, 1000, 2000])
    pair = assurance_curve(MODEL.pair(), "psa", PlanSettings(), [500, 1000, 2000])
    assert [p["items"] for p in several] == [p["items"] for p in pair]
    np.testing.assert_allclose(
        [p["assurance"] for p in several], [p["assurance"] for p in pair], rtol=1e-12
    )


def test_two_annotators_kappa_by_score_agrees_with_the_pairs_simulation():
    # independent streams: the two estimates agree within their Monte Carlo error
    several = raters_fixed_size(
        MODEL, RatersStudy("kappa", 0.06, method="score"), LabelCosts(2), items=1500, rng=1
    )
    pair = fixed_size_precision(
        MODEL.pair(), PlanSettings(width=0.06, metric="kappa"), items=1500, rng=2
    ).metrics["kappa"]
    se = np.hypot(several.assurance_mc_se, np.sqrt(pair.assurance * (1 - pair.assurance) / 2000))
    assert abs(several.assurance - pair.assurance) < 4 * se + 1e-9
    assert several.true_value == pytest.approx(pair.true_value, rel=1e-9)
    assert several.half_width["p50"] == pytest.approx(pair.half_width["p50"], rel=0.02)


@pytest.mark.parametrize(
    ("model", "study"),
    [
        (raters_model(0.08, 3, error_rate=0.04), RatersStudy("psa", 0.08, method="wilson")),
        (MODEL, RatersStudy("fleiss", 0.08, method="wilson")),
        (MODEL, RatersStudy("psa", 0.08, method="score")),
        (MODEL, RatersStudy("kappa", 0.08, method="wilson")),
    ],
)
def test_a_pair_method_where_it_does_not_apply_is_refused_by_name(model, study):
    with pytest.raises(InvalidInput) as caught:
        raters_fixed_size(model, study, LabelCosts(2), items=500)
    assert caught.value.parameter == "method"


def test_study_intervals_refuses_a_pair_method_on_three_annotators():
    patterns = np.array([[3, 0], [2, 1], [1, 2], [0, 3]])
    with pytest.raises(InvalidInput) as caught:
        study_intervals("psa", patterns, np.array([90, 5, 3, 2]), method="wilson")
    assert caught.value.parameter == "method"


def test_an_exact_studys_coverage_note_gives_the_exact_share_without_an_interval():
    # 5 items at union rate r: (1 - r)^5 of studies have no interval, exactly; the note's
    # coverage among the others is coverage / (1 - that share), which must be a probability
    model = raters_model(0.01, 2, error_rate=0.02)
    study = RatersStudy("psa", 0.3, method="wilson")
    p = raters_fixed_size(model, study, LabelCosts(2), items=5, rng=1)
    share = (1 - model.pair().union_rate) ** 5
    assert p.no_interval == pytest.approx(share, rel=1e-12)
    (note,) = p.under_coverage_notes()
    among = p.coverage / (1 - share)
    assert among <= 1
    assert f"{share:.1%} of studies have no interval" in note
    assert f"hold it in {among:.3f}" in note


def test_a_study_too_large_for_the_exact_grid_still_gets_the_exact_assurance():
    # 200,000 items of a balanced pair: the (U, a) grid is too large to hold, so the law is
    # not built; the assurance's binomial sum needs no grid and is the pair's exact figure
    model = raters_model(0.5, 2, error_rate=0.1)
    width = 0.001828  # near the median half-width, where a simulation of 200 studies errs
    assert exact_psa_law(model.pair(), 200_000, 0.95, "wilson") is None
    study = RatersStudy("psa", width, method="wilson", replicates=200)
    p = raters_fixed_size(model, study, LabelCosts(2), items=200_000, rng=1)
    exact = exact_psa_assurance(model.pair(), 200_000, width, 0.95, "wilson")
    assert p.assurance == exact and p.assurance_mc_se == 0.0


def test_pair_tables_refuse_patterns_that_are_not_two_annotators_rows():
    with pytest.raises(InvalidInput) as refused:
        pair_tables("psa", np.array([1, 2, 3]), np.ones(3))
    assert refused.value.parameter == "method"


def test_a_pairs_interval_on_patterns_checks_its_confidence_level():
    with pytest.raises(InvalidInput) as refused:
        study_intervals(
            "psa", COUNT_PATTERNS, np.array([900, 60, 40]), method="wilson", confidence_level=1.5
        )
    assert refused.value.parameter == "confidence_level"


def _kappa_by_hand(cells, n, replicates, seed, width):
    """Cohen's kappa by score on 2x2 tables drawn directly (the pair's fixed-size precision
    draws its kappa studies on the second of two streams spawned from the seed, after that
    stream has spawned its bootstrap's): the assurance and the coverage of Cohen's kappa,
    written without the planner's evaluators."""
    from planner.sizing.studies import simulate_tables

    stream = np.random.default_rng(seed).spawn(2)[1]
    stream.spawn(1)  # the bootstrap's stream (unused by the score interval)
    tables = simulate_tables(cells, n, replicates, rng=stream)
    ci = kappa_interval(tables, 0.95, "score")
    half = (np.asarray(ci.high) - np.asarray(ci.low)) / 2
    a, b, c, d = cells
    p_e = (a + b) * (a + c) + (c + d) * (b + d)
    truth = (a + d - p_e) / (1 - p_e)
    with np.errstate(invalid="ignore"):
        narrow = np.isfinite(half) & (half > 0) & (half <= width)
        covered = (np.asarray(ci.low) <= truth + 1e-9) & (truth - 1e-9 <= np.asarray(ci.high))
    return float(narrow.mean()), float(covered.mean())


def test_a_pairs_fixed_size_kappa_is_what_its_tables_give_by_hand():
    from planner.sizing.model import pair_from_counts

    model = pair_from_counts([30, 12, 9, 449])
    settings = PlanSettings(width=0.1, metric="kappa", replicates=600)
    got = fixed_size_precision(model, settings, items=900, rng=21).metrics["kappa"]
    assurance, coverage = _kappa_by_hand(tuple(model.cells), 900, 600, 21, 0.1)
    assert got.assurance == pytest.approx(assurance, abs=1e-12)
    assert got.coverage == pytest.approx(coverage, abs=1e-12)


def test_a_pairs_studies_as_patterns_are_its_tables_and_their_positives():
    from planner.sizing.model import pair_from_counts
    from planner.sizing.precision import pair_studies
    from planner.sizing.studies import simulate_tables

    model = pair_from_counts([30, 12, 9, 449])
    tables = simulate_tables(model.cells, 200, 50, rng=np.random.default_rng(4)).reshape(50, 4)
    kappa = pair_studies(model, "kappa", 200, 50, np.random.default_rng(4))
    psa = pair_studies(model, "psa", 200, 50, np.random.default_rng(4))
    assert np.array_equal(kappa.counts, tables)
    # PSA's patterns (negatives, positives): both positive a, one positive b + c, none d
    assert psa.patterns.tolist() == [[0, 2], [1, 1], [2, 0]]
    expected = np.stack([tables[:, 0], tables[:, 1] + tables[:, 2], tables[:, 3]], axis=1)
    assert np.array_equal(psa.counts, expected)
    assert psa.probabilities.sum() == pytest.approx(1.0)
    # the pair's own tables and the patterns give the same intervals
    direct = psa_interval(tables.reshape(50, 2, 2), 0.95, "wilson")
    on_patterns = study_intervals("psa", psa.patterns, psa.counts, method="wilson")
    assert np.allclose(direct.low, on_patterns.low, equal_nan=True)


def test_a_pair_and_its_two_annotator_model_have_the_same_exact_psa_precision():
    model = raters_model(0.1, 2, error_rate=0.08)
    settings = PlanSettings(width=0.1, metric="psa", replicates=300)
    pair = fixed_size_precision(model.pair(), settings, items=1500, rng=3).metrics["psa"]
    study = RatersStudy("psa", 0.1, replicates=300, method="wilson")
    two = raters_fixed_size(model, study, LabelCosts(2), items=1500, rng=9)
    assert pair.assurance == pytest.approx(two.assurance, abs=1e-12)
    assert pair.coverage == pytest.approx(two.coverage, abs=1e-12)
    assert tuple(pair.half_width.values()) == pytest.approx(tuple(two.half_width.values()))
