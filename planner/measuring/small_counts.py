"""Notes for intervals that under-cover with few union positives, as ``agree`` prints them.

The bands are :data:`planner.statistics.intervals.UNDER_COVERAGE` (from the coverage study in
``coverage_study/coverage.md``); this module decides which count of the data a band is read
at, and which of the report's coefficients (by name and method label) it applies to.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.data.labels import Ratings
from planner.measuring.several_profile import (
    CONGER_PROFILE_METHOD,
    INTRACLASS_METHOD,
    PROFILE_METHOD,
)
from planner.statistics import multirater as mr
from planner.statistics.intervals import coverage_note
from planner.validation import shown

#: (coefficient as agree reports it, method label) -> key of intervals.UNDER_COVERAGE
_NOTE_KEYS = {
    ("fleiss_kappa", "Gwet variance, t"): ("fleiss_kappa", "gwet-t"),
    # AC1 and BP: their default (t on log(1 - c)) keeps 0.938-0.973 from 20 union
    # positives, so only the linear gwet-t rows would note; agree no longer prints them
    ("gwet_ac1", "Gwet variance, t"): ("gwet_ac1", "gwet-t"),
    ("brennan_prediger", "Gwet variance, t"): ("brennan_prediger", "gwet-t"),
    ("psa", "linearised ratio variance, Wald"): ("specific_positive", "wald-linearised"),
    ("psa", "linearised ratio variance, Wald on the logit scale"): (
        "specific_positive",
        "wald-logit",
    ),
    ("pabak", "2 p_o - 1"): ("pabak", "wilson"),
    ("conger_kappa", "Gwet variance, t"): ("conger_kappa", "gwet-t"),
    # the profile intervals (3+ annotators, binary labels): planner.measuring.several_profile
    ("fleiss_kappa", PROFILE_METHOD): ("fleiss_kappa", "profile"),
    ("krippendorff_alpha", PROFILE_METHOD): ("krippendorff_alpha", "profile"),
    ("psa", PROFILE_METHOD): ("specific_positive", "profile"),
    ("conger_kappa", CONGER_PROFILE_METHOD): ("conger_kappa", "profile-shifted"),
    # a complete pair's Fleiss' kappa and alpha: the intraclass score interval
    ("fleiss_kappa", INTRACLASS_METHOD): ("fleiss_kappa", "score-intraclass"),
    ("krippendorff_alpha", INTRACLASS_METHOD): ("krippendorff_alpha", "score-intraclass"),
}

#: Below 20 union positives the coverage study's ``multi-few`` cells (10 and 15 union
#: positives; coverage_study/coverage.json, 2,000 studies a cell, MC SE 0.005) measured the
#: profile intervals; a note states the range they covered for the data's count:
#: ``(annotators, coefficient) -> ((below, worst, best), ...)``, the first band whose
#: ``below`` exceeds the count, each over the cells at both of its ends (10-14 union
#: positives: the cells at 10 and 15; 15-19: at 15 and 20). ``"3+"`` is 3-5 annotators,
#: ``"2"`` a pair (only alpha: a pair's Fleiss' kappa and PSA have other intervals).
#: Krippendorff's alpha is Fleiss' interval with complete data (tested), so it shares its bands.
PROFILE_MEASURED_FROM = 10
PROFILE_FEW_BANDS: dict[tuple[str, str], tuple[tuple[int, float, float], ...]] = {
    ("3+", "fleiss_kappa"): ((15, 0.9485, 0.994), (20, 0.9485, 0.9805)),
    ("3+", "specific_positive"): ((15, 0.948, 0.992), (20, 0.942, 0.9835)),
    ("3+", "conger_kappa"): ((15, 0.9485, 0.9935), (20, 0.9485, 0.98)),
    ("2", "krippendorff_alpha"): ((15, 0.9485, 0.9755), (20, 0.9485, 0.9695)),
}
PROFILE_FEW_BANDS[("3+", "krippendorff_alpha")] = PROFILE_FEW_BANDS[("3+", "fleiss_kappa")]
#: The same bands for a complete pair's intraclass score interval (Fleiss' kappa and alpha:
#: the same interval and, in the study's populations, the same true value; the
#: ``score-intraclass`` rows at 10, 15 and 20 union positives, 4,000 studies a cell)
INTRACLASS_FEW_BANDS: dict[tuple[str, str], tuple[tuple[int, float, float], ...]] = {
    ("2", "fleiss_kappa"): ((15, 0.9415, 0.96725), (20, 0.9415, 0.955)),
}
INTRACLASS_FEW_BANDS[("2", "krippendorff_alpha")] = INTRACLASS_FEW_BANDS[("2", "fleiss_kappa")]
_FEW_BANDS = {"profile": PROFILE_FEW_BANDS, "score-intraclass": INTRACLASS_FEW_BANDS}
#: study method -> the bands its notes below 20 union positives read (Conger's shifted
#: profile interval has its own entry in the profile bands)
_FEW_METHOD = {
    "profile": "profile",
    "profile-shifted": "profile",
    "score-intraclass": "score-intraclass",
}
_FEW_SHOWN = {"profile": "profile-likelihood", "score-intraclass": "intraclass score"}
_PROFILE_SHOWN = {
    "fleiss_kappa": "Fleiss' kappa",
    "krippendorff_alpha": "Krippendorff's alpha",
    "specific_positive": "specific positive agreement",
    "conger_kappa": "Conger's kappa",
}
#: a band inside this range needs no note (the coverage study's flag band)
_NOMINAL_BAND = (0.935, 0.965)


#: beyond this many categories (continuous scores, say) no note is drawn from the coverage
#: study, whose grid has binary labels and a few categories
MAX_STUDIED_CATEGORIES = 20


def _regime_count(
    ratings: Ratings, patterns: mr.Patterns, pos: int | None
) -> tuple[float, str] | None:
    """The count the coverage study conditions on, and how a note names it.

    The study (binary labels, the positive class the rarer one) keys regimes by union
    positives: items at least one annotator put in the positive class. Binary data use
    the items with any rating in the rarer label (the union positives when it is the
    positive label); with more categories, those of the rarest category used (the
    coefficients are least stable there). ``None`` when fewer than two categories are
    used, or more than :data:`MAX_STUDIED_CATEGORIES`.
    """
    if ratings.n_categories > MAX_STUDIED_CATEGORIES:
        return None  # scores with many values: the study's regimes of a rare label do not apply
    used = patterns.per_category(patterns.multiplicity)
    if (used > 0).sum() < 2:
        return None
    cat = int(np.argmin(np.where(used > 0, used, np.inf)))
    if cat == pos and ratings.n_categories == 2:
        counted = "union positives"
    else:
        rarest = "the rarer label" if ratings.n_categories == 2 else "the rarest category"
        counted = f"items rated {shown(ratings.categories[cat])} ({rarest})"
    hit = ((patterns.categories == cat) & (patterns.counts > 0)).any(axis=1)
    return float(patterns.multiplicity @ hit), counted


def small_count_notes(
    ratings: Ratings,
    coefficients: dict[str, Any],
    patterns: mr.Patterns,
    pos: int | None,
    bootstrap: bool,
) -> list[str]:
    """One note per coefficient whose interval under-covers with these few union positives
    (the bands of :data:`planner.statistics.intervals.UNDER_COVERAGE`, from
    coverage_study/coverage.md)."""
    regime = _regime_count(ratings, patterns, pos)
    if regime is None:
        return []
    count, counted = regime
    keys = dict(_NOTE_KEYS)
    alpha = coefficients.get("krippendorff_alpha")
    if alpha is not None and alpha.method.startswith("bootstrap"):
        keys[("krippendorff_alpha", alpha.method)] = ("krippendorff_alpha", "bootstrap")
    two = ratings.n_annotators == 2
    out = []
    for name, co in coefficients.items():
        key = keys.get((name, co.method))
        advice = None
        if key is None and two and bootstrap and name == "psa":
            key, advice = ("psa", "bootstrap"), "drop `bootstrap`: the Wilson interval keeps 0.95"
        if name in ("cohen_kappa_quadratic", "cohen_kappa_linear"):
            key = ("weighted_kappa", "wald" if co.method.startswith("Wald") else "bootstrap")
        if key is None or (key[0] == "pabak" and (pos is None or bootstrap)):
            continue  # PABAK's study rows are 2 x Wilson(p_o) - 1, for a positive label
        # PSA is read at its own class's union positives (its n_items), the others at the
        # rarer label's
        at, named = (count, counted)
        if name == "psa":
            at, named = co.n_items, "union positives"
        elif key[0] == "weighted_kappa":
            at, named = co.n_items, "items"  # its study is keyed by items
        note = coverage_note(*key, at, advice, named)
        if note is None and key[1] in _FEW_METHOD:
            few = _FEW_METHOD[key[1]]
            note = profile_few_note(key[0], at, named, "2" if two else "3+", few)
        if note is not None:
            out.append(note)
    return out


def profile_few_note(
    coefficient: str,
    count: float,
    counted: str = "union positives",
    annotators: str = "3+",
    method: str = "profile",
) -> str | None:
    """Below 20 union positives: the coverage the study measured for a profile interval
    (:data:`PROFILE_FEW_BANDS`) or, with ``method="score-intraclass"``, a complete pair's
    intraclass score interval (:data:`INTRACLASS_FEW_BANDS`); below
    :data:`PROFILE_MEASURED_FROM`, that it is not measured; ``None`` from 20 on, or where
    the measured band is within 0.935-0.965.

    >>> profile_few_note("fleiss_kappa", 16)[:63]
    'with 16 union positives the profile-likelihood interval for Fle'
    >>> profile_few_note("fleiss_kappa", 25) is None
    True
    """
    bands = _FEW_BANDS[method].get((annotators, coefficient))
    if bands is None or count >= bands[-1][0]:
        return None
    shown, interval = _PROFILE_SHOWN[coefficient], _FEW_SHOWN[method]
    if count < PROFILE_MEASURED_FROM:
        _, worst, best = bands[0]
        return (
            f"with {count:,.0f} {counted} (fewer than {PROFILE_MEASURED_FROM}) the coverage of "
            f"the {interval} interval for {shown} is not measured: the coverage study's "
            f"cells start at {PROFILE_MEASURED_FROM}; at {PROFILE_MEASURED_FROM}-{bands[0][0]} "
            f"union positives it covered {worst:.2f}-{best:.2f} (0.95 intended); label more items"
        )
    below, worst, best = next(band for band in bands if count < band[0])
    if _NOMINAL_BAND[0] <= worst and best <= _NOMINAL_BAND[1]:
        return None
    low = below - 5
    side = "label more items"
    if worst >= _NOMINAL_BAND[0]:
        side = "it over-covers in some cells there (wider than needed)"
    return (
        f"with {count:,.0f} {counted} the {interval} interval for {shown} covered "
        f"{worst:.2f}-{best:.2f} (0.95 intended) in the coverage study at {low}-{below} "
        f"union positives; {side}"
    )


#: Coverage of nominal-95 % intervals for Cohen's kappa by the rarer annotator's positives,
#: from the coverage study's two-annotator and extreme-bias cells (coverage_study/coverage.md):
#: ``(positives below, worst, best)`` over the cells whose expected rarer-annotator positives
#: fall in the band. Keyed by the interval method; ``"score"`` only under strong bias (one
#: annotator's positive rate at least :data:`STRONG_BIAS_RATIO` times the other's), where
#: its variance at the observed rates misses the rarer rate's own uncertainty.
#: The profile interval has no band: with its t-calibrated critical value it covered
#: 0.947-0.974 below 6 expected rarer positives and 0.944-0.969 from there (no under-coverage).
KAPPA_RARER_BANDS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "score": ((6, 0.877, 0.938), (10, 0.90275, 0.9435), (60, 0.9125, 0.953)),
}
STRONG_BIAS_RATIO = 3.0
_KAPPA_SHOWN = {"profile": "profile-likelihood", "score": "score"}


def cohen_kappa_note(table: Any, method: str) -> str | None:
    """A note when a pair's Cohen's kappa interval is in a regime where it under-covers.

    The regime is read from the data: the rarer annotator's positives
    ``r = min(a + b, a + c)`` (of the rarer label), and for the score interval the ratio of
    the two annotators' positives (strong bias). The note states the coverage the study
    measured for that regime (:data:`KAPPA_RARER_BANDS`); ``None`` outside them.

    >>> cohen_kappa_note([[4, 36], [0, 360]], "score")[:60]
    'the rarer annotator has 4 positive labels (bias index +0.09)'
    >>> cohen_kappa_note([[4, 36], [0, 360]], "profile") is None
    True
    """
    t = np.asarray(table, dtype=float).reshape(2, 2)
    n = float(t.sum())
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    label = int(np.argmin([rows[0] + cols[0], rows[1] + cols[1]]))  # the rarer label
    first, second = float(rows[label]), float(cols[label])
    rarer, larger = min(first, second), max(first, second)
    bands = KAPPA_RARER_BANDS.get(method)
    if bands is None or n <= 0:
        return None
    if method == "score" and larger < STRONG_BIAS_RATIO * max(rarer, 1.0):
        return None  # without strong bias: the union-positive bands (intervals.coverage_note)
    for below, worst, best in bands:
        if rarer < below:
            bias = (first - second) / n  # Byrt's bias index, for the rarer label
            advice = "label more items (at least 10 positives of the rarer annotator)"
            if method == "score":
                advice = "use `kappa_method` profile (0.94-0.97 from 10 such positives)"
            return (
                f"the rarer annotator has {rarer:,.0f} positive labels (bias index {bias:+.2f}): "
                f"in the coverage study the {_KAPPA_SHOWN[method]} interval for Cohen's kappa "
                f"covered {worst:.2f}-{best:.2f} (0.95 intended) with fewer than {below:g} "
                f"expected positives for the rarer annotator; {advice}"
            )
    return None
