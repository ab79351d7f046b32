"""Notes for intervals that under-cover with few union positives, as ``agree`` prints them.

The bands are :data:`planner.statistics.intervals.UNDER_COVERAGE` (from the coverage study in
``coverage_study/coverage.md``); this module decides which count of the data a band is read
at, and which of the report's coefficients (by name and method label) it applies to.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from planner.data.labels import Ratings
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
        if note is not None:
            out.append(note)
    return out
