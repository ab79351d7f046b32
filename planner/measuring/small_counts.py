"""Notes for intervals that under-cover with few union positives, as ``agree`` prints them.

The bands are :data:`planner.statistics.intervals.UNDER_COVERAGE` (from the coverage study in
``coverage_study/coverage.md``); this module decides which count of the data a band is read
at, and which of the report's coefficients (by name and method label) it applies to.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.data.labels import Ratings
from planner.measuring.several_profile import CONGER_PROFILE_METHOD, PROFILE_METHOD
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
}

#: The profile intervals were measured from 20 union positives on with 3-5 annotators
#: (coverage_study/coverage.json, 31 cells each, 2,000 studies, MC SE 0.005): below that a
#: note says so, with the worst coverage the study found at 20 (pairs never get these
#: intervals).
PROFILE_MEASURED_FROM = 20
_PROFILE_SHOWN = {
    "fleiss_kappa": "Fleiss' kappa",
    "krippendorff_alpha": "Krippendorff's alpha",
    "specific_positive": "specific positive agreement",
    "conger_kappa": "Conger's kappa",
}
PROFILE_WORST_AT_20: dict[str, float] = {
    "fleiss_kappa": 0.9495,
    "krippendorff_alpha": 0.9495,  # the same interval as Fleiss' with complete data
    "specific_positive": 0.942,
    "conger_kappa": 0.9505,
}


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
            key, advice = ("psa", "bootstrap"), "drop --bootstrap: the Wilson interval keeps 0.95"
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
        if note is None and key[1].startswith("profile") and not two:
            note = _unmeasured_note(key[0], at, named)
        if note is not None:
            out.append(note)
    return out


def _unmeasured_note(coefficient: str, count: float, counted: str) -> str | None:
    """Below :data:`PROFILE_MEASURED_FROM` union positives: the coverage study has no cell,
    so the note says what it found at the fewest it measured."""
    worst = PROFILE_WORST_AT_20.get(coefficient)
    if count >= PROFILE_MEASURED_FROM or worst is None:
        return None
    return (
        f"with {count:,.0f} {counted} (fewer than {PROFILE_MEASURED_FROM}) the coverage of the "
        f"profile-likelihood interval for {_PROFILE_SHOWN[coefficient]} is not measured: the "
        f"coverage study's cells start at {PROFILE_MEASURED_FROM}, where it covered at least "
        f"{worst:.3f} (0.95 intended); label more items"
    )


#: Coverage of nominal-95 % intervals for Cohen's kappa by the rarer annotator's positives,
#: from the coverage study's two-annotator and extreme-bias cells (coverage_study/coverage.md):
#: ``(positives below, worst, best)`` over the cells whose expected rarer-annotator positives
#: fall in the band. Keyed by the interval method; ``"score"`` only under strong bias (one
#: annotator's positive rate at least :data:`STRONG_BIAS_RATIO` times the other's), where
#: its variance at the observed rates misses the rarer rate's own uncertainty.
KAPPA_RARER_BANDS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "profile": ((6, 0.9025, 0.9485),),
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

    >>> cohen_kappa_note([[4, 36], [0, 360]], "profile")[:60]
    'the rarer annotator has 4 positive labels (bias index +0.09)'
    >>> cohen_kappa_note([[10, 90], [0, 900]], "profile") is None
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
                advice = "use --kappa-method profile (0.94-0.95 from 10 such positives)"
            return (
                f"the rarer annotator has {rarer:,.0f} positive labels (bias index {bias:+.2f}): "
                f"in the coverage study the {_KAPPA_SHOWN[method]} interval for Cohen's kappa "
                f"covered {worst:.2f}-{best:.2f} (0.95 intended) with fewer than {below:g} "
                f"expected positives for the rarer annotator; {advice}"
            )
    return None
