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

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.measuring import several_profile as sp
from planner.measuring.decision import Decision, decide, landis_koch
from planner.measuring.diagnostics import binary_table, diagnose, plain_value, scalar
from planner.measuring.measure_settings import DEFAULTS, MeasureSettings
from planner.measuring.several_profile import profile_applies, profile_at
from planner.measuring.small_counts import cohen_kappa_note, small_count_notes
from planner.statistics import agreement as ag
from planner.statistics import alpha as ka
from planner.statistics import multirater as mr
from planner.statistics.conger import CONGER_CELLS_LIMIT, conger_kappa
from planner.statistics.intervals import (
    KAPPA_ESTIMANDS,
    coverage_note,
    kappa_interval,
    normal_quantile,
    psa_conditional_interval,
    psa_standard_error,
    wilson_interval,
)
from planner.validation import (
    RULES,
    RngLike,
    check,
    check_choice,
    check_instance,
    compact_repr,
    seed_from,
    shown,
)

N_BOOT_MAX = 100_000  # see RULES["n_boot"]
_BOOT_MEMORY = 20_000_000  # floats per bootstrap chunk; fixed, so chunking never changes answers

#: At the ordinal, interval and ratio levels, above this many distinct values only the
#: coefficients linear in the data are reported (Krippendorff's alpha from sums over the
#: values, and observed agreement): weighted kappa, weighted Fleiss, AC2, Brennan-Prediger,
#: Conger's kappa, specific agreement and the per-pair kappas each need ``K x K`` tables or
#: weights (24,000 values: 4.6 GB each). At any level, the per-pair diagnostics above it
#: keep observed agreement only (no ``K x K`` pair tables).
MANY_VALUES = 2000
#: An interval at a confidence level: ``level -> (lower, upper)``.
IntervalAt = Callable[[float], tuple[Any, Any]]
_SKIPPED_MANY = (
    "weighted Cohen's kappa, weighted Fleiss' kappa, Gwet's AC2, Brennan-Prediger, "
    "Conger's kappa, specific agreement and the per-pair kappas"
)


class Interval(NamedTuple):
    """A coefficient's confidence limits (as scipy.stats' ``ConfidenceInterval``)."""

    low: float
    high: float


@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient with its interval."""

    name: str
    estimate: float
    ci_low: float
    ci_high: float
    method: str
    n_items: int
    note: str = ""
    se: float = float("nan")  # analytic standard error where one exists, else NaN
    # the interval at any level, from what the coefficient keeps (counts, estimate/se/df,
    # or the bootstrap draws); None: no interval to recompute
    _interval_at: IntervalAt | None = field(default=None, repr=False, compare=False)

    def confidence_interval(self, confidence_level: float = 0.95) -> Interval:
        """The coefficient's interval, by its method, at ``confidence_level``.

        Closed forms (Wilson and score intervals from the counts, Gwet's t intervals from
        the estimate, SE and degrees of freedom, on the log(1 - c) scale where the report
        used it, Wald from a jackknife SE) are recomputed from the quantities kept; a
        bootstrap interval takes the percentiles of the same bootstrap draws. At the
        report's level it is the reported interval exactly.

        Raises
        ------
        InvalidInput
            ``confidence_level`` outside (0, 1) (a ValueError).
        ValueError
            The coefficient has no interval (``method`` ``"none"``).
        """
        check("confidence_level", confidence_level, RULES["confidence_level"])
        if self._interval_at is None:
            raise ValueError(
                f"{self.name} has no interval to recompute ({self.note or self.method}); "
                "call measure_agreement again with confidence_level="
                f"{shown(confidence_level)}"
            )
        lo, hi = self._interval_at(float(confidence_level))
        return Interval(scalar(lo), scalar(hi))


@dataclass(frozen=True)
class AgreementReport:
    """Everything ``planner agree`` reports."""

    __repr__ = compact_repr  # shapes, not every value

    source: str
    n_items: int
    n_annotators: int
    annotators: list[str]
    categories: list[Any]
    level: str
    positive: Any
    confidence_level: float
    coefficients: dict[str, Coefficient]
    summary: dict[str, Any]
    decision: Decision | None
    diagnostics: dict[str, Any]
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The report's JSON document (:func:`planner.output.jsonout.agreement_document`)."""
        from planner.output.jsonout import agreement_document

        return agreement_document(self)


# --------------------------------------------------------------------------- bootstrap


def _resampled(
    multiplicity: NDArray, n_boot: int, rng: np.random.Generator, width: int
) -> Iterator[NDArray]:
    """Bootstrap resamples of items as new multiplicities of the distinct rows.

    Resampling ``N`` items with replacement gives each distinct row a
    ``Multinomial(N, multiplicity / N)`` count; drawn lazily in chunks of fixed size
    (``width`` floats per row and resample) so that one chunk is in memory at a time, and
    the chunking never changes an answer.
    """
    mult = np.asarray(multiplicity, dtype=float)
    total = int(mult.sum())
    chunk = max(1, _BOOT_MEMORY // max(1, mult.size * width))
    for start in range(0, n_boot, chunk):
        yield rng.multinomial(total, mult / total, size=min(chunk, n_boot - start))


def _percentile(values: NDArray, confidence_level: float) -> tuple[float, float]:
    tail = (1 - confidence_level) / 2
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(finite, [tail, 1 - tail])
    return float(lo), float(hi)


def _percentiles_of(draws: NDArray) -> IntervalAt:
    """The percentile interval of kept bootstrap draws, at any level."""
    return lambda level: _percentile(draws, level)


def _clipped(interval_at: IntervalAt, low: float = -1.0, high: float = 1.0) -> IntervalAt:
    """``interval_at`` with its limits clipped to ``[low, high]``."""

    def at(level: float) -> tuple[Any, Any]:
        lo, hi = interval_at(level)
        return np.maximum(lo, low), np.minimum(hi, high)

    return at


def _pair_kappa_interval(
    table: NDArray, confidence_level: float, method: str
) -> tuple[float, float, str]:
    """Cohen's kappa interval of a pair table, labelled with the quantity it estimates."""
    ci = kappa_interval(table, confidence_level, method)
    label = {
        "profile": "profile LR",
        "score": "score",
        "gof": "Donner-Eliasziw GOF",
        "fce": "Wald, FCE SE",
    }[method]
    return float(ci.low), float(ci.high), f"{label}, for {KAPPA_ESTIMANDS[method]}"


# --------------------------------------------------------------------------- main


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
    d = _prepare(ratings, s.level, s.weights, s.positive)
    if s.decide_on is not None:
        check_choice("decide_on", s.decide_on, _reported_names(d))
    notes = list(ratings.notes) + d.notes + _option_notes(ratings, s)
    boot = _Bootstrap(np.random.default_rng(seed), s.n_boot, s.confidence_level)
    run = _Run(d, s, boot, _Collector(), dict(d.summary), notes)
    coefficients = _coefficients(run, ratings, progress)
    target = s.decide_on or ("psa" if "psa" in coefficients else "krippendorff_alpha")
    check_choice("decide_on", target, tuple(coefficients))
    co = coefficients[target]
    decision = decide(
        target, co.estimate, co.ci_low, co.ci_high, s.not_demonstrated_below, s.demonstrated_at
    )
    return _agreement_report(ratings, run, decision, seed)


def _coefficients(
    run: _Run, ratings: Ratings, progress: Callable[[int, int], None] | None = None
) -> dict[str, Coefficient]:
    """Every coefficient these ratings give, into ``run.out`` (notes on small counts added);
    ``progress(done, 4)`` after each group (pair, multi-rater, alpha, specific agreement)."""
    step = progress if progress is not None else (lambda done, total: None)
    many = run.d.many_values
    table = _pair_coefficients(run) if run.d.two and not many else None
    step(1, 4)
    if many:
        _observed_agreement_patterns(run)
    else:
        _multirater_coefficients(run)
    step(2, 4)
    _alpha_coefficient(run)
    step(3, 4)
    if not many:
        _specific_agreement(run, table)
    step(4, 4)
    run.notes.extend(
        small_count_notes(ratings, run.out.coefficients, run.d.patterns, run.d.pos, run.s.bootstrap)
    )
    return run.out.coefficients


def _agreement_report(
    ratings: Ratings, run: _Run, decision: Decision, seed: int
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
            ratings, d.pos, given.by, given.confidence_level, pair_kappas=d.k <= MANY_VALUES
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


# --------------------------------------------------------------------------- the pieces


@dataclass(frozen=True)
class _Data:
    """The ratings and what every coefficient needs of them: count patterns, weights, ..."""

    ratings: Ratings
    patterns: Any  # planner.statistics.multirater.Patterns
    level: str
    values: NDArray | None
    weights_kind: str | None
    weight_matrix: NDArray | None
    pos: int | None
    one_category: bool
    summary: dict[str, Any]
    notes: list[str]

    @property
    def k(self) -> int:
        return self.ratings.n_categories

    @property
    def two(self) -> bool:
        return self.ratings.n_annotators == 2

    @property
    def many_values(self) -> bool:
        """More than :data:`MANY_VALUES` distinct interval or ratio values."""
        return many_values(self.level, self.k)

    @property
    def mult(self) -> NDArray:
        return self.patterns.multiplicity

    @property
    def boot_width(self) -> int:
        """Floats per resample and pattern: ``(..., P, L)`` temporaries and the marginals."""
        p = self.patterns
        return 4 * p.counts.shape[1] + -(-self.k // max(1, p.n_patterns))


@dataclass
class _Collector:
    """The coefficients, in the order they are computed (the report's order)."""

    coefficients: dict[str, Coefficient] = field(default_factory=dict)

    def add(
        self,
        name: str,
        estimate: Any,
        lo: Any,
        hi: Any,
        method: str,
        n: int,
        note: str = "",
        se: Any = np.nan,
        interval_at: IntervalAt | None = None,
    ) -> None:
        est = scalar(estimate)
        if not math.isfinite(est) and not note:
            note = "undefined for these ratings (no variation or no pairable items)"
        self.coefficients[name] = Coefficient(
            name, est, scalar(lo), scalar(hi), method, int(n), note, scalar(se), interval_at
        )

    def add_at(
        self,
        name: str,
        estimate: Any,
        interval_at: IntervalAt,
        level: float,
        method: str,
        n: int,
        note: str = "",
        se: Any = np.nan,
    ) -> None:
        """:meth:`add` with the interval ``interval_at(level)``, kept for other levels."""
        lo, hi = interval_at(level)
        self.add(name, estimate, lo, hi, method, n, note, se, interval_at)


@dataclass(frozen=True)
class _Bootstrap:
    """The one item bootstrap behind every bootstrap interval.

    A statistic of distinct rows (count patterns, or the cells of a pair table) is taken
    under resampled multiplicities (:func:`_resampled`), one random stream for the whole
    report, in the report's order.
    """

    rng: np.random.Generator
    n_boot: int
    confidence_level: float

    @property
    def name(self) -> str:
        return f"bootstrap, items (B={self.n_boot})"

    def draws(
        self, multiplicity: NDArray, statistic: Callable[[NDArray], NDArray], width: int = 1
    ) -> NDArray:
        """``(n_boot,)`` the statistic under each resample of the rows."""
        parts = [statistic(m) for m in _resampled(multiplicity, self.n_boot, self.rng, width)]
        return np.concatenate([np.atleast_1d(p) for p in parts])

    def interval(
        self, multiplicity: NDArray, statistic: Callable[[NDArray], NDArray], width: int = 1
    ) -> IntervalAt:
        """The percentile interval at any level of the statistic's draws (drawn once)."""
        return _percentiles_of(self.draws(multiplicity, statistic, width))

    def patterns(self, d: _Data, statistic: Callable[[NDArray], NDArray]) -> IntervalAt:
        """Percentile interval of a statistic of the count patterns."""
        return self.interval(d.mult, statistic, d.boot_width)

    def pair(self, table: NDArray, statistic: Callable[[NDArray], NDArray]) -> IntervalAt:
        """Percentile interval of a statistic of a ``(K, K)`` pair table."""
        k = table.shape[0]
        return self.interval(table.ravel(), lambda m: statistic(m.reshape(-1, k, k)))


def _prepare(ratings: Ratings, level: str, weights: str | None, positive: str | None) -> _Data:
    """Count patterns, numeric values, agreement weights and the summary's counts."""
    k = ratings.n_categories
    values = ratings.numeric_values(level) if level in ("interval", "ratio") else None
    if level == "ordinal" and not ratings.ordered:
        raise InvalidInput(
            f"{ratings.source}: level ordinal needs numeric labels or order (lowest first) "
            f"for text labels such as {shown(ratings.categories[0])}",
            parameters=("level", "order"),
        )
    if level == "ordinal" and values is None:
        values = np.arange(k, dtype=float)
    weights_kind = None if level == "nominal" else (weights or "quadratic")
    weight_matrix = (
        None
        if weights_kind is None or many_values(level, k)
        else ag.agreement_weights(k, weights_kind, values)
    )
    pos = _positive_index(ratings, positive)
    patterns = ratings.count_patterns()  # linear in the ratings, any K
    category_totals = patterns.per_category(patterns.multiplicity)
    summary: dict[str, Any] = {
        "n_items": ratings.n_items,
        "n_pairable_items": ratings.n_pairable_items,
        "n_ratings": ratings.n_ratings,
        "category_counts": {
            str(c): int(v) for c, v in zip(ratings.categories, category_totals, strict=True)
        },
    }
    notes = []
    if many_values(level, k):
        notes.append(
            f"{k:,} distinct values (more than {MANY_VALUES:,}) at level {level}: "
            f"{_SKIPPED_MANY} are not reported (each needs a {k:,} x {k:,} table); "
            "Krippendorff's alpha comes from sums over the values"
        )
    one_category = k == 1 or (category_totals > 0).sum() == 1
    if one_category:
        only = shown(ratings.categories[np.argmax(category_totals)])
        notes.append(
            f"every rating is {only}: chance-corrected coefficients are undefined "
            "(chance agreement is 1)"
        )
    return _Data(
        ratings, patterns, level, values, weights_kind, weight_matrix, pos, one_category,
        summary, notes,
    )  # fmt: skip


@dataclass(frozen=True)
class _Run:
    """One measurement under way: the data, the settings, the bootstrap and the results."""

    d: _Data
    s: MeasureSettings
    boot: _Bootstrap
    out: _Collector
    summary: dict[str, Any]
    notes: list[str]


# --------------------------------------------------------------------------- two annotators


def _pair_coefficients(
    m: _Run,
) -> NDArray:
    """Observed agreement, Cohen's kappa (and its weighted form) of the pair table."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    table = d.ratings.pair_table()
    n_pair = int(table.sum())
    p_o = ag.observed_agreement(table)
    agree = np.trace(table)
    po_at: IntervalAt = (
        boot.pair(table, ag.observed_agreement)
        if s.bootstrap
        else lambda level: wilson_interval(agree, n_pair, level)
    )
    se_po = np.sqrt(p_o * (1 - p_o) / n_pair) if n_pair else np.nan
    method = boot.name if s.bootstrap else "Wilson"
    out.add_at("observed_agreement", p_o, po_at, s.confidence_level, method, n_pair, se=se_po)
    _cohen_kappa(m, table)
    if d.weights_kind:  # weights on the categories' values (ranks at the ordinal level)
        wk = ag.cohen_kappa(table, d.weight_matrix)
        wse = ag.weighted_kappa_standard_error(table, d.weight_matrix)
        wk_at: IntervalAt
        if s.weighted_kappa_method == "wald" and not s.bootstrap:

            def wk_at(level: float) -> tuple[Any, Any]:
                z_w = normal_quantile(level)
                return max(wk - z_w * wse, -1.0), min(wk + z_w * wse, 1.0)

            wname = "Wald, FCE (1969) SE"
        else:
            wk_at = boot.pair(table, lambda t: ag.cohen_kappa(t, d.weight_matrix))
            wname = boot.name
        out.add_at(
            f"cohen_kappa_{d.weights_kind}", wk, wk_at, s.confidence_level, wname, n_pair, se=wse
        )
        summary[f"cohen_kappa_{d.weights_kind}_test_zero"] = _kappa_test_zero(
            table, d.weight_matrix
        )
    return table


def _cohen_kappa(
    m: _Run,
    table: NDArray,
) -> None:
    """Cohen's kappa with the interval chosen, its marginals and its test of kappa = 0."""
    d, s, boot, out, summary, notes = m.d, m.s, m.boot, m.out, m.summary, m.notes
    k, n_pair = d.k, int(table.sum())
    kappa = ag.cohen_kappa(table)
    method = s.kappa_method or ("profile" if k == 2 else "fce")
    if k != 2 and method in ("profile", "score", "gof"):
        raise InvalidInput(
            f"kappa_method {method} needs binary labels; use fce or bootstrap",
            parameter="kappa_method",
        )
    kappa_se = ag.weighted_kappa_standard_error(table)
    gwet = s.cohen_marginals == "gwet" and d.ratings.n_pairable_items < d.ratings.n_items
    summary["cohen_marginals"] = {
        "used": "gwet" if gwet else "complete",
        "meaning": "every rating of each annotator (Gwet 2014)"
        if gwet
        else "the items both annotators rated"
        + (" (the same here: every item has both ratings)" if s.cohen_marginals == "gwet" else ""),
    }
    kappa_at: IntervalAt
    if gwet:
        res = _conger(d.ratings, None)
        kappa, kappa_se = res.estimate, res.standard_error
        kappa_at = _clipped(res.confidence_interval)
        kname = "Gwet variance, t (Gwet marginals: every rating of each annotator)"
    elif s.bootstrap or method == "bootstrap":
        kappa_at = boot.pair(table, ag.cohen_kappa)
        kname = f"{boot.name}, Cohen's kappa"
    else:
        kname = _pair_kappa_interval(table, s.confidence_level, method)[2]
        kappa_at = lambda level: _pair_kappa_interval(table, level, method)[:2]  # noqa: E731
    if k == 2 and not gwet:  # union positives: items off the larger agree cell
        note = coverage_note(
            "kappa",
            "bootstrap" if s.bootstrap else method,
            n_pair - float(np.max(np.diag(table))),
            "use --kappa-method score without --bootstrap" if s.bootstrap else None,
        )
        if note is not None:
            notes.append(note)
        if not s.bootstrap and (note := cohen_kappa_note(table, method)) is not None:
            notes.append(note)
    undefined = _undefined_note(kappa, d.one_category)
    out.add_at(
        "cohen_kappa", kappa, kappa_at, s.confidence_level, kname, n_pair, undefined, se=kappa_se
    )
    summary["cohen_kappa_test_zero"] = _kappa_test_zero(table, None)


# --------------------------------------------------------------------------- any number


def _multirater_coefficients(
    m: _Run,
) -> None:
    """Pairwise observed agreement (3+), Fleiss, AC1/AC2, Brennan-Prediger, Conger (3+)."""
    d, out, summary = m.d, m.out, m.summary
    if not d.two:
        _observed_agreement_patterns(m)
    for name, chance in (
        (weighted_name("fleiss_kappa", d.weights_kind), "fleiss"),
        ("gwet_ac1" if not d.weights_kind else "gwet_ac2", "gwet"),
        (weighted_name("brennan_prediger", d.weights_kind), "brennan-prediger"),
    ):
        _chance_corrected(m, name, chance)
    if d.ratings.n_annotators >= 3:
        _add_conger(m)
    kappa = weighted_name("fleiss_kappa", d.weights_kind) if not d.two else "cohen_kappa"
    summary["landis_koch"] = {
        "label": landis_koch(out.coefficients[kappa].estimate),
        "caution": "Landis & Koch (1977) labels are conventional, not statistically motivated",
    }


def _observed_agreement_patterns(m: _Run) -> None:
    """Pairwise observed agreement from the count patterns (linear in the ratings), with
    the item bootstrap."""
    d, boot, out = m.d, m.boot, m.out
    patterns = d.patterns
    p_a = mr.pairwise_agreement_patterns(patterns)
    out.add_at(
        "observed_agreement",
        p_a,
        boot.patterns(d, lambda mult: mr.pairwise_agreement_patterns(patterns, mult)),
        m.s.confidence_level,
        boot.name,
        int(d.mult @ (patterns.totals >= 2)),
        "pairwise agreement over items with two or more ratings",
    )


def _chance_corrected(
    m: _Run,
    name: str,
    chance: str,
) -> None:
    """One chance-corrected coefficient of the count patterns, with Gwet's variance."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    res = mr.chance_corrected_patterns(d.patterns, chance, d.weight_matrix)
    interval_at: IntervalAt
    if s.bootstrap:
        interval_at = boot.patterns(
            d,
            lambda m: mr.chance_corrected_patterns(d.patterns, chance, d.weight_matrix, m).estimate,
        )
        method = boot.name
    elif chance == "fleiss" and _complete_binary_pair(d):
        # two annotators: Fleiss' kappa is the intraclass kappa, whose calibrated
        # Donner-Eliasziw score interval keeps 0.94-0.96 from 20 union positives
        # (docs/methods/several-annotators.md 4.1)
        table = d.ratings.pair_table()
        interval_at = lambda level: kappa_interval(table, level, "gof")  # noqa: E731
        method = "intraclass score"
    elif chance == "fleiss" and profile_applies(d, s.bootstrap):  # several_profile.py
        interval_at, method = profile_at(d.patterns, "fleiss_kappa"), sp.PROFILE_METHOD
    else:  # AC1/AC2 and BP on log(1 - c): see ChanceCorrected.confidence_interval
        scale = "linear" if chance == "fleiss" else "log1m"
        interval_at = _clipped(lambda level: res.confidence_interval(level, scale))
        method = "Gwet variance, t" + ("" if chance == "fleiss" else " on log(1 - c)")
    undefined = _undefined_note(res.estimate, d.one_category)
    out.add_at(
        name, res.estimate, interval_at, s.confidence_level, method, int(res.n_items),
        undefined, se=res.standard_error,
    )  # fmt: skip
    if name == "fleiss_kappa":  # the Fleiss-Nee-Landis test is for unweighted kappa
        se0 = mr.fleiss_kappa_null_se_patterns(d.patterns)
        z = scalar(res.estimate) / scalar(se0) if scalar(se0) > 0 else float("nan")
        summary["fleiss_kappa_test_zero"] = {
            "se_under_kappa_zero": scalar(se0),
            "z": z,
            "p_value": _two_sided_p(z),
            "note": "Fleiss-Nee-Landis variance: for testing kappa = 0 only, not intervals",
        }


def _complete_binary_pair(d: Any) -> bool:
    """Two annotators, two categories, no weights, and every item rated by both."""
    r = d.ratings
    return bool(d.two and d.k == 2 and not d.weights_kind and r.n_pairable_items == r.n_items)


#: Most ``resamples x distinct values x quadrature nodes`` for the bootstrap of ratio alpha
#: above ``RATIO_DIRECT_LIMIT`` distinct values (each resample costs ``O(V Q)``).
RATIO_BOOT_BUDGET = 3e10


def _ratio_bootstrap_fits(k: int, values: NDArray, n_boot: int) -> bool:
    """Whether ratio alpha's item bootstrap runs (always up to ``RATIO_DIRECT_LIMIT`` values)."""
    if k <= ka.RATIO_DIRECT_LIMIT:
        return True
    return n_boot * k * ka.ratio_node_count(values) <= RATIO_BOOT_BUDGET


def _alpha_coefficient(
    m: _Run,
) -> None:
    """Krippendorff's alpha: item bootstrap (and P(alpha < alpha_min)); the jackknife for
    interval-level data with more than 2,000 distinct values; for ratio data the bootstrap
    while it fits :data:`RATIO_BOOT_BUDGET`, else no interval."""
    d, s, boot, out, summary, notes = m.d, m.s, m.boot, m.out, m.summary, m.notes
    k, n_items, level = d.k, d.ratings.n_items, d.level
    alpha_values = d.values if d.values is not None else np.arange(k, dtype=float)
    draws = None
    est: Any
    ratio_boot = level == "ratio" and _ratio_bootstrap_fits(k, alpha_values, boot.n_boot)
    if level in ("interval", "ratio") and d.many_values and not ratio_boot:
        matrix = d.ratings.value_matrix(alpha_values)
        if level == "interval":
            est, se = ka.interval_alpha_jackknife(matrix)

            def wald_at(confidence_level: float) -> tuple[Any, Any]:
                z = normal_quantile(confidence_level)
                return est - z * se, min(est + z * se, 1.0)

            out.add_at(
                "krippendorff_alpha", est, wald_at, s.confidence_level,
                "Wald with delete-one-item jackknife SE", n_items,
                f"{k} distinct values: jackknife instead of the bootstrap", se=se,
            )  # fmt: skip
        else:
            est = ka.ratio_alpha_from_values(matrix)
            out.add(
                "krippendorff_alpha", est, np.nan, np.nan, "none", n_items,
                f"no interval: the bootstrap of {k} distinct ratio values would take "
                f"{boot.n_boot:,} x {k:,} x {ka.ratio_node_count(alpha_values)} steps "
                f"(at most {RATIO_BOOT_BUDGET:.0e}); lower --n-boot",
            )  # fmt: skip
    else:
        est = ka.krippendorff_alpha_patterns(d.patterns, alpha_values, level)
        draws = boot.draws(
            d.mult,
            lambda m: ka.krippendorff_alpha_patterns(d.patterns, alpha_values, level, m),
            d.boot_width,
        )
        undefined = _undefined_note(est, d.one_category)
        # the profile interval from two annotators on (several_profile.py)
        profile = level == "nominal" and profile_applies(d, s.bootstrap, fewest_annotators=2)
        out.add_at(
            "krippendorff_alpha", est,
            profile_at(d.patterns, "krippendorff_alpha") if profile else _percentiles_of(draws),
            s.confidence_level, sp.PROFILE_METHOD if profile else boot.name, n_items, undefined,
        )  # fmt: skip
    threshold = 0.8 if s.alpha_min is None else s.alpha_min
    if draws is None and s.alpha_min is not None:
        notes.append(
            "alpha_min has no effect: alpha has no bootstrap here, so P(alpha < alpha_min) "
            "is not reported"
        )
    if draws is not None:
        finite = draws[np.isfinite(draws)]
        summary["alpha_below_min"] = {
            "alpha_min": threshold,
            "probability": float(np.mean(finite < threshold)) if finite.size else float("nan"),
            "method": "share of bootstrap alphas below alpha_min (resampling items)",
        }


# --------------------------------------------------------------------------- specific agreement


def _specific_agreement(
    m: _Run,
    table: NDArray | None,
) -> None:
    """Specific agreement (Uebersax) of every category; PSA/NSA of the positive class."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    specific = mr.specific_agreement_patterns(d.patterns)
    spec_se = mr.specific_agreement_se_patterns(d.patterns)
    spec_lo, spec_hi = mr.specific_agreement_interval(specific, spec_se, s.confidence_level)
    summary["specific_agreement"] = {
        str(c): {"estimate": float(v), "ci_low": float(lo_c), "ci_high": float(hi_c)}
        for c, v, lo_c, hi_c in zip(d.ratings.categories, specific, spec_lo, spec_hi, strict=True)
    }
    pos = d.pos
    if pos is None:
        return
    category_totals = d.patterns.per_category(d.mult)
    summary["positive_label"] = plain_value(d.ratings.categories[pos])
    summary["prevalence_of_positive_labels"] = float(category_totals[pos] / category_totals.sum())
    summary["positive_rate_by_annotator"] = {
        name: float(rate)
        for name, rate in zip(d.ratings.annotators, d.ratings.positive_rates(pos), strict=True)
    }
    if table is not None:
        _positive_pair(m, table)
        return
    psa_at: IntervalAt
    if s.bootstrap:
        psa_at = boot.patterns(d, lambda m: mr.specific_agreement_patterns(d.patterns, m, pos))
        method = boot.name
    elif profile_applies(d, s.bootstrap):  # several_profile.py
        psa_at, method = profile_at(d.patterns, "specific_agreement", pos), sp.PROFILE_METHOD
    else:

        def psa_at(level: float) -> tuple[Any, Any]:
            lo, hi = mr.specific_agreement_interval(specific, spec_se, level)
            return lo[pos], hi[pos]

        method = "linearised ratio variance, Wald on the logit scale"
    p = d.patterns
    out.add_at(
        "psa", specific[pos], psa_at, s.confidence_level, method,
        int(d.mult @ ((p.categories == pos) & (p.counts > 0)).any(axis=1)),
        "specific positive agreement among all annotators (Uebersax)", se=spec_se[pos],
    )  # fmt: skip


def _positive_pair(
    m: _Run,
    table: NDArray,
) -> None:
    """PSA, NSA and PABAK of two annotators, with Byrt's indices."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    pos = d.pos
    assert pos is not None
    binary = binary_table(table, pos)
    a, b, c, dd = (int(x) for x in binary.ravel())
    summary.update(
        {
            "joint_positives": a,
            "a_only": b,
            "b_only": c,
            "neither": dd,
            "union_positives": a + b + c,
            "prevalence_index": scalar(ag.prevalence_index(binary)),
            "bias_index": scalar(ag.bias_index(binary)),
        }
    )
    psa_at: IntervalAt
    nsa_at: IntervalAt
    if s.bootstrap:
        psa_at = boot.pair(table, lambda t: ag.positive_agreement(binary_table(t, pos)))
        nsa_at = boot.pair(table, lambda t: ag.negative_agreement(binary_table(t, pos)))
        m1 = m2 = boot.name
    else:
        psa_at = lambda level: psa_conditional_interval(a, a + b + c, level)  # noqa: E731
        nsa_at = lambda level: psa_conditional_interval(dd, b + c + dd, level)  # noqa: E731
        m1 = "Wilson on J = a/U"
        m2 = "Wilson on d/(b+c+d)"
    level = s.confidence_level
    out.add_at(
        "psa", ag.positive_agreement(binary), psa_at, level, m1, a + b + c,
        "" if a + b + c else "undefined: no item was flagged positive by either annotator",
        se=psa_standard_error(binary),
    )  # fmt: skip
    nsa_table = binary[::-1, ::-1]  # NSA is PSA of the negative class
    out.add_at(
        "nsa", ag.negative_agreement(binary), nsa_at, level, m2, b + c + dd,
        se=psa_standard_error(nsa_table),
    )  # fmt: skip
    if d.k == 2:
        po = out.coefficients["observed_agreement"]

        def pabak_at(confidence_level: float) -> tuple[Any, Any]:
            po_low, po_high = po.confidence_interval(confidence_level)
            return 2 * po_low - 1, 2 * po_high - 1

        out.add_at(
            "pabak", ag.pabak(binary), pabak_at, level, "2 p_o - 1",
            int(table.sum()), se=2 * po.se,
        )  # fmt: skip


def many_values(level: str, n_categories: int) -> bool:
    """Whether ``agree`` skips the ``K x K`` coefficients: more than :data:`MANY_VALUES`
    distinct values at the ordinal, interval or ratio level (their agreement weights are
    ``K x K``; nominal coefficients need only the ``K`` marginals).

    >>> many_values("interval", 2001), many_values("interval", 2000), many_values("nominal", 10**5)
    (True, False, False)
    """
    return level in ("ordinal", "interval", "ratio") and n_categories > MANY_VALUES


def weighted_name(name: str, weights_kind: str | None) -> str:
    """A coefficient's name, with its agreement weights when it has them.

    >>> weighted_name("fleiss_kappa", "quadratic"), weighted_name("fleiss_kappa", None)
    ('fleiss_kappa_quadratic', 'fleiss_kappa')
    """
    return name if weights_kind is None else f"{name}_{weights_kind}"


def _reported_names(d: _Data) -> tuple[str, ...]:
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


def _undefined_note(estimate: Any, one_category: bool) -> str:
    if math.isfinite(scalar(estimate)):
        return ""
    if one_category:
        return "undefined: all ratings fall in one category, so chance agreement is 1"
    return "undefined for these ratings"


def _positive_index(ratings: Ratings, positive: str | None) -> int | None:
    if positive is not None:
        return ratings.category_index(positive)
    labels = {str(c).lower() for c in ratings.categories}
    if labels <= {"0", "1"} and "1" in labels:
        return ratings.category_index("1")
    if labels <= {"false", "true"} and "true" in labels:
        return [str(c).lower() for c in ratings.categories].index("true")
    return None


# --------------------------------------------------------------------------- peer statistics


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


def _two_sided_p(z: float) -> float:
    """Two-sided normal p-value of ``z`` (NaN stays NaN)."""
    return math.erfc(abs(z) / math.sqrt(2)) if math.isfinite(z) else float("nan")


def _kappa_test_zero(table: NDArray, weights: NDArray | None) -> dict[str, Any]:
    """Test of (weighted) Cohen's kappa = 0 on the pair table: SE under H0, z, p-value."""
    se0 = scalar(ag.kappa_null_standard_error(table, weights))
    est = scalar(ag.cohen_kappa(table, weights))
    z = est / se0 if se0 > 0 and math.isfinite(est) else float("nan")
    return {
        "se_under_kappa_zero": se0,
        "z": z,
        "p_value": _two_sided_p(z),
        "note": "Fleiss-Cohen-Everitt (1969) variance under kappa = 0, margins fixed at "
        "their estimates (items both annotators rated): for testing kappa = 0 only, "
        "not intervals",
    }


def _conger(
    ratings: Ratings, weight_matrix: NDArray | None, rows: NDArray | None = None
) -> mr.ChanceCorrected:
    """Conger's kappa of every annotator of ``ratings`` (Gwet's variance); ``rows``
    replaces the items each row stands for (a bootstrap resample)."""
    return conger_kappa(
        ratings.item_index,
        ratings.annotator_index,
        ratings.label_index,
        n_rows=ratings.n_rows,
        n_categories=ratings.n_categories,
        n_annotators=ratings.n_annotators,
        weights=weight_matrix,
        row_weights=ratings.weights if rows is None else rows,
    )


#: Most ``resamples x ratings`` for the item bootstrap of Conger's kappa (rows are
#: reweighted, so each resample costs one pass over the ratings).
CONGER_BOOT_LIMIT = 50_000_000


def _add_conger(m: _Run) -> None:
    """Conger's kappa with Gwet's variance (t), or the item bootstrap with ``bootstrap``."""
    ratings, weight_matrix, weights_kind = m.d.ratings, m.d.weight_matrix, m.d.weights_kind
    s, boot, out, notes = m.s, m.boot, m.out, m.notes
    if ratings.n_annotators * ratings.n_categories > CONGER_CELLS_LIMIT:
        notes.append(
            f"Conger's kappa is not reported: {ratings.n_annotators:,} annotators x "
            f"{ratings.n_categories:,} categories is more than {CONGER_CELLS_LIMIT:,} cells"
        )
        return
    res = _conger(ratings, weight_matrix)
    method = "Gwet variance, t"
    interval_at: IntervalAt = res.confidence_interval
    n_boot = boot.n_boot
    # resample the distinct label vectors: the same draws for a file read by pandas or DuckDB
    distinct = (ratings.distinct_rows() if s.bootstrap else None) or ratings
    if s.bootstrap and n_boot * len(distinct.item_index) <= CONGER_BOOT_LIMIT:
        rows = np.ones(distinct.n_rows) if distinct.weights is None else distinct.weights
        resamples = (m for chunk in _resampled(rows, n_boot, boot.rng, 1) for m in chunk)
        draws = np.array([scalar(_conger(distinct, weight_matrix, m).estimate) for m in resamples])
        interval_at = _percentiles_of(draws)
        method = boot.name
    elif s.bootstrap:
        notes.append(
            "Conger's kappa keeps Gwet's variance with --bootstrap: "
            f"{n_boot:,} resamples of {len(distinct.item_index):,} ratings is too slow"
        )
    elif profile_applies(m.d, False):  # several_profile.py
        shift = scalar(res.estimate) - scalar(mr.chance_corrected_patterns(m.d.patterns).estimate)
        interval_at, method = sp.conger_profile_at(m.d.patterns, shift), sp.CONGER_PROFILE_METHOD
    out.add_at(
        weighted_name("conger_kappa", weights_kind),
        res.estimate,
        _clipped(interval_at),
        s.confidence_level,
        method,
        int(res.n_items),
        _undefined_note(res.estimate, False)
        or "each annotator's own marginals (Conger 1980)"
        + ("" if weight_matrix is None else ", with the agreement weights of AC2"),
        se=res.standard_error,
    )
