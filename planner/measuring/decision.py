"""A decision against thresholds fixed in advance, read from the interval."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    """A verdict against thresholds fixed in advance, read from the interval."""

    metric: str
    verdict: str
    not_demonstrated_below: float
    demonstrated_at: float
    estimate: float
    ci_low: float
    ci_high: float
    reason: str


def landis_koch(kappa: float) -> str:
    """Landis & Koch (1977) label; conventional, not statistically motivated.

    >>> landis_koch(0.219), landis_koch(0.61)
    ('fair', 'substantial')
    """
    if not math.isfinite(kappa):
        return "undefined"
    if kappa < 0:
        return "poor"
    for upper, label in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if kappa <= upper:
            return label
    return "almost perfect"


def decide(
    metric: str, estimate: float, low: float, high: float, below: float, at: float
) -> Decision:
    """Verdict from the interval: demonstrated if ``low >= at``; not demonstrated if
    ``high < below``; otherwise inconclusive."""
    if not (math.isfinite(low) and math.isfinite(high)):
        verdict, reason = "inconclusive", f"{metric} has no interval: it is undefined here"
    elif low >= at:
        verdict = "demonstrated"
        reason = f"the whole interval ({low:.3f}, {high:.3f}) is at or above {at:g}"
    elif high < below:
        verdict = "not demonstrated"
        reason = f"the whole interval ({low:.3f}, {high:.3f}) is below {below:g}"
    else:
        verdict = "inconclusive"
        reason = (
            f"the interval ({low:.3f}, {high:.3f}) is not wholly above {at:g} nor wholly "
            f"below {below:g}"
        )
    return Decision(metric, verdict, below, at, estimate, low, high, reason)
