"""Krippendorff's alpha: the item bootstrap and ``P(alpha < alpha_min)``; the jackknife for
many distinct interval values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.measuring import several_profile as sp
from planner.measuring.agreement_bootstrap import (
    percentiles_of,
)
from planner.measuring.measured_data import (
    Measurement,
    undefined_note,
)
from planner.measuring.several_profile import IntervalAt, profile_applies, profile_at
from planner.statistics import alpha as ka
from planner.statistics.intervals import (
    normal_quantile,
)

#: Most ``resamples x distinct values x quadrature nodes`` for the bootstrap of ratio alpha
#: above ``RATIO_DIRECT_LIMIT`` distinct values (each resample costs ``O(V Q)``).
RATIO_BOOT_BUDGET = 3e10


def ratio_bootstrap_fits(k: int, values: NDArray, n_boot: int) -> bool:
    """Whether ratio alpha's item bootstrap runs (always up to ``RATIO_DIRECT_LIMIT`` values)."""
    if k <= ka.RATIO_DIRECT_LIMIT:
        return True
    return n_boot * k * ka.ratio_node_count(values) <= RATIO_BOOT_BUDGET


def _alpha_interval(
    d: Any, bootstrap: bool, level: str, draws: NDArray, boot_name: str
) -> tuple[IntervalAt, str]:
    """Alpha's interval and its method label (several_profile.py): a complete binary pair's
    intraclass score interval, else the profile likelihood for binary labels, else the item
    bootstrap's percentiles."""
    if level == "nominal" and profile_applies(d, bootstrap, fewest_annotators=2):
        if sp.complete_binary_pair(d):
            return sp.intraclass_at(d), sp.INTRACLASS_METHOD
        return profile_at(d.patterns, "krippendorff_alpha"), sp.PROFILE_METHOD
    return percentiles_of(draws), boot_name


def alpha_coefficient(
    m: Measurement,
) -> None:
    """Krippendorff's alpha: item bootstrap (and P(alpha < alpha_min)); the jackknife for
    interval-level data with more than 2,000 distinct values; for ratio data the bootstrap
    while it fits :data:`RATIO_BOOT_BUDGET`, else no interval."""
    d, s, boot, out, summary, notes = m.d, m.s, m.boot, m.out, m.summary, m.notes
    k, n_items, level = d.k, d.ratings.n_items, d.level
    alpha_values = d.values if d.values is not None else np.arange(k, dtype=float)
    draws = None
    est: Any
    ratio_boot = level == "ratio" and ratio_bootstrap_fits(k, alpha_values, boot.n_boot)
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
                f"(at most {RATIO_BOOT_BUDGET:.0e}); lower `n_boot`",
            )  # fmt: skip
    else:
        est = ka.krippendorff_alpha_patterns(d.patterns, alpha_values, level)
        draws = boot.draws(
            d.mult,
            lambda m: ka.krippendorff_alpha_patterns(d.patterns, alpha_values, level, m),
            d.boot_width,
        )
        undefined = undefined_note(est, d.one_category)
        interval_at, method = _alpha_interval(d, s.bootstrap, level, draws, boot.name)
        out.add_at(
            "krippendorff_alpha", est, interval_at, s.confidence_level, method, n_items, undefined
        )
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
