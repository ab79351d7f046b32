"""The ratings prepared for measurement (count patterns, values, agreement weights, the
positive class, the summary's counts) and one measurement under way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.measuring.agreement_bootstrap import (
    AgreementBootstrap,
)
from planner.measuring.coefficient import (
    Collector,
)
from planner.measuring.diagnostics import scalar
from planner.measuring.measure_settings import MeasureSettings
from planner.statistics import agreement as ag
from planner.statistics.multirater import Patterns
from planner.validation import (
    shown,
)

#: At the ordinal, interval and ratio levels, above this many distinct values only the
#: coefficients linear in the data are reported (Krippendorff's alpha from sums over the
#: values, and observed agreement): weighted kappa, weighted Fleiss, AC2, Brennan-Prediger,
#: Conger's kappa, specific agreement and the per-pair kappas each need ``K x K`` tables or
#: weights (24,000 values: 4.6 GB each). At any level, the per-pair diagnostics above it
#: keep observed agreement only (no ``K x K`` pair tables).
MANY_VALUES = 2000


SKIPPED_MANY = (
    "weighted Cohen's kappa, weighted Fleiss' kappa, Gwet's AC2, Brennan-Prediger, "
    "Conger's kappa, specific agreement and the per-pair kappas"
)


@dataclass(frozen=True)
class MeasuredData:
    """The ratings and what every coefficient needs of them: count patterns, weights, ..."""

    ratings: Ratings
    patterns: Patterns
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
    def pair_kappas(self) -> bool:
        """Whether the per-pair diagnostics keep their kappas (at most :data:`MANY_VALUES`
        categories: each needs a ``K x K`` pair table)."""
        return self.k <= MANY_VALUES

    @property
    def mult(self) -> NDArray:
        return self.patterns.multiplicity

    @property
    def boot_width(self) -> int:
        """Floats per resample and pattern: ``(..., P, L)`` temporaries and the marginals."""
        p = self.patterns
        return 4 * p.counts.shape[1] + -(-self.k // max(1, p.n_patterns))


def prepare(
    ratings: Ratings, level: str, weights: str | None, positive: str | None
) -> MeasuredData:
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
    pos = positive_index(ratings, positive)
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
            f"{SKIPPED_MANY} are not reported (each needs a {k:,} x {k:,} table); "
            "Krippendorff's alpha comes from sums over the values"
        )
    one_category = k == 1 or (category_totals > 0).sum() == 1
    if one_category:
        only = shown(ratings.categories[np.argmax(category_totals)])
        notes.append(
            f"every rating is {only}: chance-corrected coefficients are undefined "
            "(chance agreement is 1)"
        )
    return MeasuredData(
        ratings, patterns, level, values, weights_kind, weight_matrix, pos, one_category,
        summary, notes,
    )  # fmt: skip


@dataclass(frozen=True)
class Measurement:
    """One measurement under way: the data, the settings, the bootstrap and the results."""

    d: MeasuredData
    s: MeasureSettings
    boot: AgreementBootstrap
    out: Collector
    summary: dict[str, Any]
    notes: list[str]


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


def undefined_note(estimate: Any, one_category: bool) -> str:
    if math.isfinite(scalar(estimate)):
        return ""
    if one_category:
        return "undefined: all ratings fall in one category, so chance agreement is 1"
    return "undefined for these ratings"


def positive_index(ratings: Ratings, positive: str | None) -> int | None:
    if positive is not None:
        return ratings.category_index(positive)
    labels = {str(c).lower() for c in ratings.categories}
    if labels <= {"0", "1"} and "1" in labels:
        return ratings.category_index("1")
    if labels <= {"false", "true"} and "true" in labels:
        return [str(c).lower() for c in ratings.categories].index("true")
    return None


def two_sided_p(z: float) -> float:
    """Two-sided normal p-value of ``z`` (NaN stays NaN)."""
    return math.erfc(abs(z) / math.sqrt(2)) if math.isfinite(z) else float("nan")
