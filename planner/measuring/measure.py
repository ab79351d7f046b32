"""Measure agreement on real ratings: coefficients, intervals, a decision and diagnostics.

:func:`measure_agreement` is the library function behind ``planner agree``. Every
coefficient comes from counts (the pair table of two annotators, or per-item category
counts for many) through the one implementation in :mod:`planner.statistics.agreement`,
:mod:`planner.statistics.multirater` and :mod:`planner.statistics.alpha`, with the interval
recommended in
docs/methods/index.md section 0:

========================  =====================================================================
coefficient               interval (default)
========================  =====================================================================
PSA, NSA (2 annotators)   Wilson for J = a / U given U, mapped to PSA
Cohen's kappa             score interval for Cohen's kappa (binary), else FCE Wald
weighted kappa            item bootstrap (``weighted_kappa_method="wald"``: FCE 1969 SE)
Fleiss' kappa             Gwet (2021) linearised variance, t; binary 3+: profile likelihood [*]
Conger's kappa (3+)       Gwet's variance, t (:mod:`planner.statistics.conger`); binary: [*]
Gwet's AC1 / AC2          Gwet (2008) variance, t interval on log(1 - AC), mapped back
Brennan-Prediger          Gwet's variance, t interval on log(1 - BP), mapped back
Krippendorff's alpha      item bootstrap (percentile); P(alpha < alpha_min); binary: [*]
specific agreement        linearised ratio variance, Wald on the logit scale; binary 3+: [*]
observed agreement        Wilson (2 annotators), else item bootstrap
========================  =====================================================================

[*] :mod:`planner.measuring.several_profile`: the t-calibrated profile-likelihood interval
(Conger's: Fleiss' moved by their difference), docs/methods/several-annotator-intervals.md.
With ``MeasureSettings(bootstrap=True)`` every interval is the percentile bootstrap over
items instead.
With more than :data:`MANY_VALUES` distinct ordinal, interval or ratio values (continuous
scores) only the coefficients linear in the data are reported, Krippendorff's alpha (the
delete-one-item jackknife at the interval level, see :func:`_alpha_coefficient`) and observed
agreement, with a note naming the ``K x K`` ones left out; memory stays linear in the ratings.
Every coefficient with an analytic standard error reports it as ``se`` (NaN otherwise).
Cohen's kappa under kappa = 0 is a test, reported apart (``cohen_kappa_test_zero``).
Where the coverage study (``coverage_study/coverage.md``) finds a method under-covering with
the data's union positives, a note says so (:func:`planner.statistics.intervals.coverage_note`).

Variance conventions: Gwet's linearised variances (Fleiss, AC1/AC2, Brennan-Prediger,
Conger) divide by ``n (n - 1)`` as irrCAC's raw-data functions do; irrCAC's 2 x 2-table
AC1 variance divides by ``n`` instead (both legitimate; ours is larger by ``n / (n - 1)``).
Cohen's kappa uses the items both annotators rated unless ``cohen_marginals="gwet"``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.data.labels import Ratings
from planner.measuring.agreement_bootstrap import (
    AgreementBootstrap,
)
from planner.measuring.alpha_coefficient import (
    alpha_coefficient,
)
from planner.measuring.coefficient import (  # noqa: F401  (Interval re-exported)
    AgreementReport,
    Coefficient,
    Collector,
    Interval,
)
from planner.measuring.decision import Decision, decide
from planner.measuring.diagnostics import diagnose, plain_value
from planner.measuring.measure_settings import DEFAULTS, MeasureSettings
from planner.measuring.measured_data import (  # noqa: F401  (MANY_VALUES, many_values re-exported)
    MANY_VALUES,
    MeasuredData,
    Measurement,
    many_values,
    prepare,
    weighted_name,
)
from planner.measuring.pair_coefficients import (
    pair_coefficients,
)
from planner.measuring.several_coefficients import (
    observed_agreement_patterns,
    several_coefficients,
)
from planner.measuring.small_counts import small_count_notes
from planner.measuring.specific_agreement import (
    specific_agreement,
)
from planner.validation import (
    RngLike,
    check_choice,
    check_instance,
    seed_from,
)

N_BOOT_MAX = 100_000  # see RULES["n_boot"]


def measure_agreement(
    ratings: Ratings,
    settings: MeasureSettings = DEFAULTS,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """Agreement coefficients, intervals, decision and diagnostics for ``ratings``.

    Parameters
    ----------
    ratings
        The ratings (see :mod:`planner.data.labels`): read from a file by pandas, counted
        by DuckDB (one weighted row per distinct label vector), or built in memory.
    settings
        What is measured and how (:class:`~planner.measuring.measure_settings.MeasureSettings`:
        positive class, level and weights, confidence level, bootstrap and ``n_boot``,
        alpha's threshold, the decision, the kappa interval choices, the grouping column).
        An option given where it has no effect gets a note.
    rng
        Randomness of the bootstrap: anything :func:`numpy.random.default_rng` takes (None:
        fresh entropy); the seed used is the report's ``seed`` (``rng=report.seed`` repeats).
    progress
        Called as ``progress(done, 4)`` after each group of coefficients.

    Returns
    -------
    AgreementReport
        Coefficients with their intervals (in the order computed), summary, decision on
        ``decide_on`` (estimate and interval against the two thresholds), diagnostics.
    """
    check_instance("ratings", ratings, Ratings, "a Ratings (read_labels, ratings_from_matrix, ...)")
    check_instance("settings", settings, MeasureSettings, "a MeasureSettings")
    s = settings
    seed = seed_from(rng)
    d = prepare(ratings, s.level, s.weights, s.positive)
    if s.decide_on is not None:
        check_choice("decide_on", s.decide_on, _reported_names(d))
    notes = list(ratings.notes) + d.notes + _option_notes(ratings, s)
    boot = AgreementBootstrap(np.random.default_rng(seed), s.n_boot, s.confidence_level)
    run = Measurement(d, s, boot, Collector(), dict(d.summary), notes)
    coefficients = _coefficients(run, ratings, progress)
    target = s.decide_on or ("psa" if "psa" in coefficients else "krippendorff_alpha")
    check_choice("decide_on", target, tuple(coefficients))
    co = coefficients[target]
    decision = decide(
        target, co.estimate, co.ci_low, co.ci_high, s.not_demonstrated_below, s.demonstrated_at
    )
    return _agreement_report(ratings, run, decision, seed)


def _coefficients(
    run: Measurement, ratings: Ratings, progress: Callable[[int, int], None] | None = None
) -> dict[str, Coefficient]:
    """Every coefficient these ratings give, into ``run.out`` (notes on small counts added);
    ``progress(done, 4)`` after each group (pair, multi-rater, alpha, specific agreement)."""
    step = progress if progress is not None else (lambda done, total: None)
    many = run.d.many_values
    table = pair_coefficients(run) if run.d.two and not many else None
    step(1, 4)
    if many:
        observed_agreement_patterns(run)
    else:
        several_coefficients(run)
    step(2, 4)
    alpha_coefficient(run)
    step(3, 4)
    if not many:
        specific_agreement(run, table)
    step(4, 4)
    run.notes.extend(
        small_count_notes(ratings, run.out.coefficients, run.d.patterns, run.d.pos, run.s.bootstrap)
    )
    return run.out.coefficients


def _agreement_report(
    ratings: Ratings, run: Measurement, decision: Decision, seed: int
) -> AgreementReport:
    """The report of a finished measurement."""
    d, given = run.d, run.s
    return AgreementReport(
        source=ratings.source,
        n_items=ratings.n_items,
        n_annotators=ratings.n_annotators,
        annotators=list(ratings.annotators),
        categories=[plain_value(c) for c in ratings.categories],
        level=given.level,
        positive=None if d.pos is None else plain_value(ratings.categories[d.pos]),
        confidence_level=given.confidence_level,
        coefficients=run.out.coefficients,
        summary=run.summary,
        decision=decision,
        diagnostics=diagnose(
            ratings, d.pos, given.by, given.confidence_level, pair_kappas=d.pair_kappas
        ),
        seed=seed,
        notes=run.notes,
    )


def _option_notes(ratings: Ratings, o: MeasureSettings) -> list[str]:
    """One note per option given without effect on these ratings."""
    notes = _ignored_options(ratings.n_annotators, o.level, o.bootstrap, o.kappa_method, o.weights)
    return notes + _ignored_peer_options(
        ratings, o.level, o.bootstrap, o.cohen_marginals, o.weighted_kappa_method
    )


def _reported_names(d: MeasuredData) -> tuple[str, ...]:
    """The coefficients :func:`measure_agreement` reports for the prepared data."""
    if d.many_values:
        return ("observed_agreement", "krippendorff_alpha")
    return _coefficient_names(d.two, d.weights_kind, d.pos, d.k)


def _coefficient_names(
    two: bool, weights_kind: str | None, pos: int | None, k: int
) -> tuple[str, ...]:
    """The coefficients :func:`measure_agreement` reports for these data, in its order."""
    names = ["observed_agreement"]
    if two:
        names += ["cohen_kappa"] + ([f"cohen_kappa_{weights_kind}"] if weights_kind else [])
    names += [
        weighted_name("fleiss_kappa", weights_kind),
        "gwet_ac2" if weights_kind else "gwet_ac1",
        weighted_name("brennan_prediger", weights_kind),
    ]
    names += [] if two else [weighted_name("conger_kappa", weights_kind)]
    names.append("krippendorff_alpha")
    if pos is not None:
        names += ["psa", "nsa"] + (["pabak"] if k == 2 else []) if two else ["psa"]
    return tuple(names)


def _ignored_options(
    n_annotators: int,
    level: str,
    bootstrap: bool,
    kappa_method: str | None,
    weights: str | None,
) -> list[str]:
    """One note per option that was given but has no effect on these data.

    Each note starts with the parameter's name (the CLI names the flag instead).
    """
    notes = []
    if kappa_method is not None and n_annotators != 2:
        notes.append(
            f"kappa_method has no effect: Cohen's kappa needs exactly two annotators, "
            f"these ratings have {n_annotators}"
        )
    elif kappa_method is not None and bootstrap:
        notes.append("kappa_method has no effect with bootstrap: every interval is the bootstrap")
    if weights is not None and level == "nominal":
        notes.append(
            "weights has no effect at level nominal: agreement weights apply to the ordinal, "
            "interval and ratio levels"
        )
    return notes


def _ignored_peer_options(
    ratings: Ratings,
    level: str,
    bootstrap: bool,
    cohen_marginals: str | None,
    weighted_kappa_method: str | None,
) -> list[str]:
    """Notes for ``cohen_marginals`` / ``weighted_kappa_method`` given without effect."""
    notes = []
    two = ratings.n_annotators == 2
    if cohen_marginals is not None and not two:
        notes.append(
            "cohen_marginals has no effect: Cohen's kappa needs exactly two annotators "
            f"(Conger's kappa, reported for these {ratings.n_annotators}, uses Gwet's marginals)"
        )
    if weighted_kappa_method is not None and (not two or level == "nominal"):
        notes.append(
            "weighted_kappa_method has no effect: weighted kappa needs two annotators and "
            "an ordinal, interval or ratio level"
        )
    elif weighted_kappa_method == "wald" and bootstrap:
        notes.append(
            "weighted_kappa_method has no effect with bootstrap: every interval is the bootstrap"
        )
    return notes
