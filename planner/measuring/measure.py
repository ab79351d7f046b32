"""Measure agreement on real ratings: coefficients, intervals, a decision and diagnostics.

:func:`measure_agreement` is the library function behind ``planner agree``. Every
coefficient comes from counts (the pair table of two annotators, or per-item category
counts for many) through the one implementation in :mod:`planner.statistics.agreement`,
:mod:`planner.statistics.multirater` and :mod:`planner.statistics.alpha`, with the interval
recommended in
docs/methods.md section 0:

========================  ===========================================================
coefficient               interval (default)
========================  ===========================================================
PSA, NSA (2 annotators)   Wilson for J = a / U given U, mapped to PSA
Cohen's kappa             score interval for Cohen's kappa (binary), else FCE Wald
weighted kappa            item bootstrap (``weighted_kappa_method="wald"``: FCE 1969 SE)
Fleiss' kappa             Gwet (2021) linearised variance, t interval
Conger's kappa (3+)       Gwet's linearised variance, t interval (:mod:`planner.statistics.conger`)
Gwet's AC1 / AC2          Gwet (2008) variance, t interval on log(1 - AC), mapped back
Brennan-Prediger          Gwet's variance, t interval on log(1 - BP), mapped back
Krippendorff's alpha      item bootstrap (percentile); P(alpha < alpha_min)
specific agreement        linearised ratio variance, Wald on the logit scale
observed agreement        Wilson (2 annotators), else item bootstrap
========================  ===========================================================

With ``bootstrap=True`` every interval is the percentile bootstrap over items instead.
Every coefficient with an analytic standard error reports it as ``se`` (NaN otherwise).
Cohen's kappa under kappa = 0 is a test, reported apart (``cohen_kappa_test_zero``).
Where the coverage study (``validation/coverage.md``) finds a method under-covering with
the data's union positives, a note says so (:func:`planner.statistics.intervals.coverage_note`).

Variance conventions: Gwet's linearised variances (Fleiss, AC1/AC2, Brennan-Prediger,
Conger) divide by ``n (n - 1)`` as irrCAC's raw-data functions do; irrCAC's 2 x 2-table
AC1 variance divides by ``n`` instead (both legitimate; ours is larger by ``n / (n - 1)``).
Cohen's kappa uses the items both annotators rated unless ``cohen_marginals="gwet"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.measuring.decision import Decision, decide, landis_koch
from planner.measuring.diagnostics import binary_table, diagnose, plain_value, scalar
from planner.measuring.small_counts import small_count_notes
from planner.output.jsonout import json_ready
from planner.statistics import agreement as ag
from planner.statistics import alpha as ka
from planner.statistics import multirater as mr
from planner.statistics.conger import CONGER_CELLS_LIMIT, conger_kappa
from planner.statistics.intervals import (
    KAPPA_ESTIMANDS,
    KAPPA_METHODS,
    coverage_note,
    kappa_interval,
    normal_quantile,
    psa_conditional_interval,
    psa_standard_error,
    wilson_interval,
)
from planner.validation import RULES, check, check_choice, shown

N_BOOT_MAX = 100_000  # see RULES["n_boot"]
WEIGHTS = ("quadratic", "linear")
COHEN_MARGINALS = ("complete", "gwet")
WEIGHTED_KAPPA_METHODS = ("bootstrap", "wald")
_BOOT_MEMORY = 20_000_000  # floats per bootstrap chunk; fixed, so chunking never changes answers


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


@dataclass(frozen=True)
class AgreementReport:
    """Everything ``planner agree`` reports."""

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
        """JSON-ready dictionary (NaN becomes None)."""
        out = asdict(self)
        out["coefficients"] = {k: asdict(v) for k, v in self.coefficients.items()}
        return json_ready(out)


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


def _pair_kappa_interval(
    table: NDArray, confidence_level: float, method: str
) -> tuple[float, float, str]:
    """Cohen's kappa interval of a pair table, labelled with the quantity it estimates."""
    ci = kappa_interval(table, confidence_level, method)
    label = {"score": "score", "gof": "Donner-Eliasziw GOF", "fce": "Wald, FCE SE"}[method]
    return float(ci.low), float(ci.high), f"{label}, for {KAPPA_ESTIMANDS[method]}"


# --------------------------------------------------------------------------- main


def measure_agreement(
    ratings: Ratings,
    *,
    positive: str | None = None,
    level: str = "nominal",
    confidence_level: float = 0.95,
    bootstrap: bool = False,
    n_boot: int = 1000,
    alpha_min: float | None = None,
    decide_on: str | None = None,
    not_demonstrated_below: float = 0.40,
    demonstrated_at: float = 0.65,
    kappa_method: str | None = None,
    weights: str | None = None,
    by: str | None = None,
    seed: int = 0,
    cohen_marginals: str | None = None,
    weighted_kappa_method: str | None = None,
) -> AgreementReport:
    """Agreement coefficients, intervals, decision and diagnostics for ``ratings``.

    Parameters
    ----------
    ratings
        The ratings (see :mod:`planner.data.labels`).
    positive
        Label of the positive class (for PSA/NSA, prevalence and the decision). Labels
        0/1 and False/True need none.
    level
        ``nominal``, ``ordinal``, ``interval`` or ``ratio``: Krippendorff's metric and,
        for the last three, ``weights`` for weighted kappa, Fleiss and AC2.
    weights
        ``"quadratic"`` (default) or ``"linear"`` agreement weights for non-nominal levels
        (given with ``level="nominal"``, a note says it has no effect).
    confidence_level
        Two-sided level of every interval.
    bootstrap
        Use the item bootstrap for every interval.
    n_boot
        Bootstrap resamples, 100 to 100,000 (:data:`N_BOOT_MAX`).
    alpha_min
        Reliability threshold for ``P(alpha < alpha_min)``, in [-1, 1] (default 0.8).
    decide_on
        Coefficient the decision reads (default ``psa`` when there is a positive class,
        else ``krippendorff_alpha``); one of those these ratings give.
    not_demonstrated_below, demonstrated_at
        Thresholds fixed in advance, in [0, 1], ``not_demonstrated_below <= demonstrated_at``
        (defaults 0.40 and 0.65, for PSA).
    kappa_method
        Interval for Cohen's kappa (default ``score`` for binary labels, ``fce``
        otherwise): one of ``score``, ``gof``, ``fce``, ``bootstrap``. With more than two
        annotators or with ``bootstrap=True`` it has no effect, and a note says so.
    by
        Grouping column (kept in ``ratings.groups``) for agreement by group.
    seed
        Seed of the random generator (bootstrap).
    cohen_marginals
        Marginals of Cohen's kappa when some items have one rating of the two:
        ``"complete"`` (default, also for ``None``: the table of items both annotators
        rated, as Cohen 1960) or ``"gwet"`` (every rating of each annotator, Gwet 2014
        and irrCAC; then the interval is Gwet's linearised variance with t, as for
        Conger's kappa). The report's ``summary["cohen_marginals"]`` says which was used.
    weighted_kappa_method
        Interval of weighted Cohen's kappa: ``"bootstrap"`` (default, also for ``None``)
        or ``"wald"`` with the Fleiss-Cohen-Everitt (1969) standard error. Either option
        given where it has no effect gets a note.
    """
    _check_arguments(
        level=level,
        weights=weights,
        kappa_method=kappa_method,
        confidence_level=confidence_level,
        n_boot=n_boot,
        alpha_min=alpha_min,
        decide_on=decide_on,
        not_demonstrated_below=not_demonstrated_below,
        demonstrated_at=demonstrated_at,
        seed=seed,
        cohen_marginals=cohen_marginals,
        weighted_kappa_method=weighted_kappa_method,
    )
    rng = np.random.default_rng(seed)
    lo: Any
    hi: Any
    nlo: Any
    nhi: Any
    est: Any
    k = ratings.n_categories
    n_items = ratings.n_items
    notes = list(ratings.notes)
    values = ratings.numeric_values(level) if level in ("interval", "ratio") else None
    if level == "ordinal" and not ratings.ordered:
        raise InvalidInput(
            f"{ratings.source}: --level ordinal needs numeric labels or --order (lowest first) "
            f"for text labels such as {shown(ratings.categories[0])}"
        )
    if level == "ordinal" and values is None:
        values = np.arange(k, dtype=float)
    weights_kind = None if level == "nominal" else (weights or "quadratic")
    weight_matrix = None if weights_kind is None else ag.agreement_weights(k, weights_kind, values)
    pos = _positive_index(ratings, positive)
    two = ratings.n_annotators == 2
    if decide_on is not None:
        check_choice("decide_on", decide_on, _coefficient_names(two, weights_kind, pos, k))
    notes += _ignored_options(ratings.n_annotators, level, bootstrap, kappa_method, weights)
    notes += _ignored_peer_options(
        ratings, level, bootstrap, cohen_marginals, weighted_kappa_method
    )
    patterns = ratings.count_patterns()  # linear in the ratings, any K
    mult = patterns.multiplicity
    category_totals = patterns.per_category(mult)
    coefficients: dict[str, Coefficient] = {}
    summary: dict[str, Any] = {
        "n_items": n_items,
        "n_pairable_items": ratings.n_pairable_items,
        "n_ratings": ratings.n_ratings,
        "category_counts": {
            str(c): int(v) for c, v in zip(ratings.categories, category_totals, strict=True)
        },
    }
    one_category = k == 1 or (category_totals > 0).sum() == 1
    if one_category:
        only = shown(ratings.categories[np.argmax(category_totals)])
        notes.append(
            f"every rating is {only}: chance-corrected coefficients are undefined "
            "(chance agreement is 1)"
        )

    def add(
        name: str,
        estimate: Any,
        lo: Any,
        hi: Any,
        method: str,
        n: int,
        note: str = "",
        se: Any = np.nan,
    ) -> None:
        est = scalar(estimate)
        if not math.isfinite(est) and not note:
            note = "undefined for these ratings (no variation or no pairable items)"
        coefficients[name] = Coefficient(
            name, est, scalar(lo), scalar(hi), method, int(n), note, scalar(se)
        )

    # floats per resample and pattern: (..., P, L) temporaries, plus the (..., K) marginals
    boot_width = 4 * patterns.counts.shape[1] + -(-k // max(1, patterns.n_patterns))

    def boot_draws(statistic: Callable[[NDArray], NDArray]) -> NDArray:
        """Statistic of the distinct rows under resampled multiplicities, ``(n_boot,)``."""
        parts = [statistic(m) for m in _resampled(mult, n_boot, rng, boot_width)]
        return np.concatenate([np.atleast_1d(p) for p in parts])

    def boot(statistic: Callable[[NDArray], NDArray]) -> tuple[float, float]:
        return _percentile(boot_draws(statistic), confidence_level)

    boot_name = f"bootstrap, items (B={n_boot})"

    # ---- two annotators: the pair table
    if two:
        table = ratings.pair_table()
        n_pair = int(table.sum())
        cells = table.ravel()

        def boot_pair(fn: Callable[[NDArray], NDArray]) -> tuple[float, float]:
            draws = [fn(m.reshape(-1, k, k)) for m in _resampled(cells, n_boot, rng, 1)]
            return _percentile(np.concatenate(draws), confidence_level)

        p_o = ag.observed_agreement(table)
        lo, hi = (
            boot_pair(ag.observed_agreement)
            if bootstrap
            else wilson_interval(np.trace(table), n_pair, confidence_level)
        )
        se_po = np.sqrt(p_o * (1 - p_o) / n_pair) if n_pair else np.nan
        add(
            "observed_agreement",
            p_o,
            lo,
            hi,
            boot_name if bootstrap else "Wilson",
            n_pair,
            se=se_po,
        )
        kappa = ag.cohen_kappa(table)
        method = kappa_method or ("score" if k == 2 else "fce")
        if k != 2 and method in ("score", "gof"):
            raise InvalidInput(f"--kappa-method {method} needs binary labels; use fce or bootstrap")
        kappa_se = ag.weighted_kappa_standard_error(table)
        gwet_marginals = cohen_marginals == "gwet" and ratings.n_pairable_items < n_items
        summary["cohen_marginals"] = {
            "used": "gwet" if gwet_marginals else "complete",
            "meaning": "every rating of each annotator (Gwet 2014)"
            if gwet_marginals
            else "the items both annotators rated"
            + (
                " (the same here: every item has both ratings)" if cohen_marginals == "gwet" else ""
            ),
        }
        if gwet_marginals:
            res = _conger(ratings, None)
            kappa, kappa_se = res.estimate, res.standard_error
            lo, hi = res.confidence_interval(confidence_level)
            lo, hi = np.maximum(lo, -1.0), np.minimum(hi, 1.0)
            kname = "Gwet variance, t (Gwet marginals: every rating of each annotator)"
        elif bootstrap or method == "bootstrap":
            lo, hi = boot_pair(ag.cohen_kappa)
            kname = f"{boot_name}, Cohen's kappa"
        else:
            lo, hi, kname = _pair_kappa_interval(table, confidence_level, method)
        if k == 2 and not gwet_marginals:  # union positives: items off the larger agree cell
            note = coverage_note(
                "kappa",
                "bootstrap" if bootstrap else method,
                n_pair - float(np.max(np.diag(table))),
                "use --kappa-method score without --bootstrap" if bootstrap else None,
            )
            if note is not None:
                notes.append(note)
        add(
            "cohen_kappa",
            kappa,
            lo,
            hi,
            kname,
            n_pair,
            _undefined_note(kappa, one_category),
            se=kappa_se,
        )
        summary["cohen_kappa_test_zero"] = _kappa_test_zero(table, None)
        if weights_kind:  # weights on the categories' values (ranks at the ordinal level)
            wk = ag.cohen_kappa(table, weight_matrix)
            wse = ag.weighted_kappa_standard_error(table, weight_matrix)
            if weighted_kappa_method == "wald" and not bootstrap:
                z_w = normal_quantile(confidence_level)
                lo, hi = max(wk - z_w * wse, -1.0), min(wk + z_w * wse, 1.0)
                wname = "Wald, FCE (1969) SE"
            else:
                lo, hi = boot_pair(lambda t: ag.cohen_kappa(t, weight_matrix))
                wname = boot_name
            add(f"cohen_kappa_{weights_kind}", wk, lo, hi, wname, n_pair, se=wse)
            summary[f"cohen_kappa_{weights_kind}_test_zero"] = _kappa_test_zero(
                table, weight_matrix
            )

    # ---- any number of annotators: per-item counts
    if not two:
        p_a = mr.pairwise_agreement_patterns(patterns)
        lo, hi = boot(lambda m: mr.pairwise_agreement_patterns(patterns, m))
        add(
            "observed_agreement",
            p_a,
            lo,
            hi,
            boot_name,
            int(mult @ (patterns.totals >= 2)),
            "pairwise agreement over items with two or more ratings",
        )
    for name, chance in (
        (weighted_name("fleiss_kappa", weights_kind), "fleiss"),
        ("gwet_ac1" if not weights_kind else "gwet_ac2", "gwet"),
        (weighted_name("brennan_prediger", weights_kind), "brennan-prediger"),
    ):
        res = mr.chance_corrected_patterns(patterns, chance, weight_matrix)
        if bootstrap:

            def resampled(m: NDArray, c: str = chance) -> NDArray:
                return mr.chance_corrected_patterns(patterns, c, weight_matrix, m).estimate

            lo, hi = boot(resampled)
            method = boot_name
        else:  # AC1/AC2 and BP on log(1 - c): see ChanceCorrected.confidence_interval
            scale = "linear" if chance == "fleiss" else "log1m"
            lo, hi = res.confidence_interval(confidence_level, scale)
            lo, hi = np.maximum(lo, -1.0), np.minimum(hi, 1.0)
            method = "Gwet variance, t" + ("" if chance == "fleiss" else " on log(1 - c)")
        add(
            name,
            res.estimate,
            lo,
            hi,
            method,
            int(res.n_items),
            _undefined_note(res.estimate, one_category),
            se=res.standard_error,
        )
        if name == "fleiss_kappa":  # the Fleiss-Nee-Landis test is for unweighted kappa
            se0 = mr.fleiss_kappa_null_se_patterns(patterns)
            z = scalar(res.estimate) / scalar(se0) if scalar(se0) > 0 else float("nan")
            summary["fleiss_kappa_test_zero"] = {
                "se_under_kappa_zero": scalar(se0),
                "z": z,
                "p_value": _two_sided_p(z),
                "note": "Fleiss-Nee-Landis variance: for testing kappa = 0 only, not intervals",
            }
    if ratings.n_annotators >= 3:
        _add_conger(
            ratings,
            weight_matrix,
            weights_kind,
            confidence_level,
            bootstrap,
            n_boot,
            rng,
            add,
            notes,
        )
    summary["landis_koch"] = {
        "label": landis_koch(
            coefficients[weighted_name("fleiss_kappa", weights_kind)].estimate
            if not two
            else coefficients["cohen_kappa"].estimate
        ),
        "caution": "Landis & Koch (1977) labels are conventional, not statistically motivated",
    }

    z = normal_quantile(confidence_level)

    # ---- Krippendorff's alpha
    alpha_values = values if values is not None else np.arange(k, dtype=float)
    big_scale = level in ("interval", "ratio") and k > 2000
    draws = None
    if big_scale:
        matrix = ratings.value_matrix(alpha_values)
        if level == "interval":
            est, se = ka.interval_alpha_jackknife(matrix)
            add(
                "krippendorff_alpha",
                est,
                est - z * se,
                min(est + z * se, 1.0),
                "Wald with delete-one-item jackknife SE",
                n_items,
                f"{k} distinct values: jackknife instead of the bootstrap",
            )
        else:
            est = ka.ratio_alpha_from_values(matrix)
            add(
                "krippendorff_alpha",
                est,
                np.nan,
                np.nan,
                "none",
                n_items,
                f"no interval: {k} distinct ratio values make the bootstrap too slow",
            )
    else:
        est = ka.krippendorff_alpha_patterns(patterns, alpha_values, level)
        draws = boot_draws(
            lambda m: ka.krippendorff_alpha_patterns(patterns, alpha_values, level, m)
        )
        a_lo, a_hi = _percentile(draws, confidence_level)
        add(
            "krippendorff_alpha",
            est,
            a_lo,
            a_hi,
            boot_name,
            n_items,
            _undefined_note(est, one_category),
        )
    threshold = 0.8 if alpha_min is None else alpha_min
    if draws is None and alpha_min is not None:
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

    # ---- specific agreement (Uebersax) for every category
    specific = mr.specific_agreement_patterns(patterns)
    spec_se = mr.specific_agreement_se_patterns(patterns)
    spec_lo, spec_hi = mr.specific_agreement_interval(specific, spec_se, confidence_level)
    summary["specific_agreement"] = {
        str(c): {"estimate": float(s), "ci_low": float(lo_c), "ci_high": float(hi_c)}
        for c, s, lo_c, hi_c in zip(ratings.categories, specific, spec_lo, spec_hi, strict=True)
    }

    # ---- the positive class
    if pos is not None:
        summary["positive_label"] = plain_value(ratings.categories[pos])
        summary["prevalence_of_positive_labels"] = float(
            category_totals[pos] / category_totals.sum()
        )
        summary["positive_rate_by_annotator"] = {
            name: float(rate)
            for name, rate in zip(ratings.annotators, ratings.positive_rates(pos), strict=True)
        }
        if two:
            binary = binary_table(table, pos)
            a, b, c, d = (int(x) for x in binary.ravel())
            summary.update(
                {
                    "joint_positives": a,
                    "a_only": b,
                    "b_only": c,
                    "neither": d,
                    "union_positives": a + b + c,
                    "prevalence_index": scalar(ag.prevalence_index(binary)),
                    "bias_index": scalar(ag.bias_index(binary)),
                }
            )
            if bootstrap:
                lo, hi = boot_pair(lambda t: ag.positive_agreement(binary_table(t, pos)))
                nlo, nhi = boot_pair(lambda t: ag.negative_agreement(binary_table(t, pos)))
                m1 = m2 = boot_name
            else:
                ci = psa_conditional_interval(a, a + b + c, confidence_level)
                lo, hi = ci.low, ci.high
                nci = psa_conditional_interval(d, b + c + d, confidence_level)
                nlo, nhi = nci.low, nci.high
                m1 = "Wilson on J = a/U"
                m2 = "Wilson on d/(b+c+d)"
            add(
                "psa",
                ag.positive_agreement(binary),
                lo,
                hi,
                m1,
                a + b + c,
                "" if a + b + c else "undefined: no item was flagged positive by either annotator",
                se=psa_standard_error(binary),
            )
            nsa_table = binary[::-1, ::-1]  # NSA is PSA of the negative class
            add(
                "nsa",
                ag.negative_agreement(binary),
                nlo,
                nhi,
                m2,
                b + c + d,
                se=psa_standard_error(nsa_table),
            )
            if k == 2:
                add(
                    "pabak",
                    ag.pabak(binary),
                    2 * coefficients["observed_agreement"].ci_low - 1,
                    2 * coefficients["observed_agreement"].ci_high - 1,
                    "2 p_o - 1",
                    n_pair,
                    se=2 * coefficients["observed_agreement"].se,
                )
        else:
            if bootstrap:
                lo, hi = boot(lambda m: mr.specific_agreement_patterns(patterns, m, pos))
                method = boot_name
            else:
                lo, hi = spec_lo[pos], spec_hi[pos]
                method = "linearised ratio variance, Wald on the logit scale"
            add(
                "psa",
                specific[pos],
                lo,
                hi,
                method,
                int(mult @ ((patterns.categories == pos) & (patterns.counts > 0)).any(axis=1)),
                "specific positive agreement among all annotators (Uebersax)",
                se=spec_se[pos],
            )

    notes += small_count_notes(ratings, coefficients, patterns, pos, bootstrap)

    # ---- decision
    target = decide_on or ("psa" if "psa" in coefficients else "krippendorff_alpha")
    check_choice("decide_on", target, tuple(coefficients))
    co = coefficients[target]
    decision = decide(
        target, co.estimate, co.ci_low, co.ci_high, not_demonstrated_below, demonstrated_at
    )

    diagnostics = diagnose(ratings, pos, by, confidence_level)
    return AgreementReport(
        source=ratings.source,
        n_items=n_items,
        n_annotators=ratings.n_annotators,
        annotators=list(ratings.annotators),
        categories=[plain_value(c) for c in ratings.categories],
        level=level,
        positive=None if pos is None else plain_value(ratings.categories[pos]),
        confidence_level=confidence_level,
        coefficients=coefficients,
        summary=summary,
        decision=decision,
        diagnostics=diagnostics,
        seed=seed,
        notes=notes,
    )


def _check_arguments(
    *,
    level: str,
    weights: str | None,
    kappa_method: str | None,
    confidence_level: float,
    n_boot: int,
    alpha_min: float | None,
    decide_on: str | None,
    not_demonstrated_below: float,
    demonstrated_at: float,
    seed: int,
    cohen_marginals: str | None = None,
    weighted_kappa_method: str | None = None,
) -> None:
    """Every argument of :func:`measure_agreement` that the data do not decide, checked in
    parameter names (``decide_on`` is checked against the data's coefficients later)."""
    check_choice("level", level, ka.LEVELS)
    if weights is not None:
        check_choice("weights", weights, WEIGHTS)
    if kappa_method is not None:
        check_choice("kappa_method", kappa_method, KAPPA_METHODS)
    check("confidence_level", confidence_level, RULES["confidence_level"])
    check("n_boot", n_boot, RULES["n_boot"])
    if alpha_min is not None:
        check("alpha_min", alpha_min, RULES["alpha_min"])
    below = check("not_demonstrated_below", not_demonstrated_below, RULES["not_demonstrated_below"])
    at = check("demonstrated_at", demonstrated_at, RULES["demonstrated_at"])
    if below > at:
        raise InvalidInput(
            f"not_demonstrated_below must be at most the demonstrated-at threshold "
            f"({shown(at)}), got {shown(below)}",
            parameter="not_demonstrated_below",
        )
    check("seed", seed, RULES["seed"])
    if cohen_marginals is not None:
        check_choice("cohen_marginals", cohen_marginals, COHEN_MARGINALS)
    if weighted_kappa_method is not None:
        check_choice("weighted_kappa_method", weighted_kappa_method, WEIGHTED_KAPPA_METHODS)


def weighted_name(name: str, weights_kind: str | None) -> str:
    """A coefficient's name, with its agreement weights when it has them.

    >>> weighted_name("fleiss_kappa", "quadratic"), weighted_name("fleiss_kappa", None)
    ('fleiss_kappa_quadratic', 'fleiss_kappa')
    """
    return name if weights_kind is None else f"{name}_{weights_kind}"


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


def _add_conger(
    ratings: Ratings,
    weight_matrix: NDArray | None,
    weights_kind: str | None,
    confidence_level: float,
    bootstrap: bool,
    n_boot: int,
    rng: np.random.Generator,
    add: Callable[..., None],
    notes: list[str],
) -> None:
    """Conger's kappa with Gwet's variance (t), or the item bootstrap with ``bootstrap``."""
    if ratings.n_annotators * ratings.n_categories > CONGER_CELLS_LIMIT:
        notes.append(
            f"Conger's kappa is not reported: {ratings.n_annotators:,} annotators x "
            f"{ratings.n_categories:,} categories is more than {CONGER_CELLS_LIMIT:,} cells"
        )
        return
    res = _conger(ratings, weight_matrix)
    method = "Gwet variance, t"
    lo: Any
    hi: Any
    lo, hi = res.confidence_interval(confidence_level)
    # resample the distinct label vectors: the same draws for a file read by pandas or DuckDB
    distinct = (ratings.distinct_rows() if bootstrap else None) or ratings
    if bootstrap and n_boot * len(distinct.item_index) <= CONGER_BOOT_LIMIT:
        rows = np.ones(distinct.n_rows) if distinct.weights is None else distinct.weights
        resamples = (m for chunk in _resampled(rows, n_boot, rng, 1) for m in chunk)
        draws = np.array([scalar(_conger(distinct, weight_matrix, m).estimate) for m in resamples])
        lo, hi = _percentile(draws, confidence_level)
        method = f"bootstrap, items (B={n_boot})"
    elif bootstrap:
        notes.append(
            "Conger's kappa keeps Gwet's variance with --bootstrap: "
            f"{n_boot:,} resamples of {len(distinct.item_index):,} ratings is too slow"
        )
    add(
        weighted_name("conger_kappa", weights_kind),
        res.estimate,
        np.maximum(lo, -1.0),
        np.minimum(hi, 1.0),
        method,
        int(res.n_items),
        _undefined_note(res.estimate, False)
        or "each annotator's own marginals (Conger 1980)"
        + ("" if weight_matrix is None else ", with the agreement weights of AC2"),
        se=res.standard_error,
    )
