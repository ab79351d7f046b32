"""When an interval covers less than its level says: one rule for every plan.

A plan reports the coverage of its interval, the share of studies of the planned (or given)
size whose interval holds the model's true coefficient: exact for PSA's conditional
intervals at a fixed size (:func:`planner.sizing.exact.exact_psa_coverage`), else counted
over ``R`` simulated studies with Monte Carlo SE ``sqrt(C (1 - C) / R)``. The interval
*under-covers* when

    C < level - max(TOLERANCE, 3 SE),

with :data:`COVERAGE_TOLERANCE` the shortfall too small to act on (exact coverages of
discrete intervals swing by a few thousandths either side of the level as ``n`` moves), and
3 SE the Monte Carlo noise of a simulated coverage. The sample-size search's check
(:attr:`planner.sizing.search.SampleSizeResult.under_covers`) and the fixed-size precision
(:meth:`planner.sizing.precision.MetricPrecision.under_covers`) both apply it, and a plan
that meets it carries :func:`under_coverage_note`.
"""

from __future__ import annotations

#: a coverage this far below the level (or 3 Monte Carlo SE, if more) under-covers
COVERAGE_TOLERANCE = 0.01


def falls_short(coverage: float, mc_se: float | None, level: float) -> bool:
    """Whether ``coverage`` is below ``level`` by more than :data:`COVERAGE_TOLERANCE`, or
    3 Monte Carlo SE where that is more (``mc_se`` None or 0: an exact coverage).

    >>> falls_short(0.938, None, 0.95), falls_short(0.945, None, 0.95)
    (True, False)
    >>> falls_short(0.935, 0.006, 0.95)   # 3 SE = 0.018 > 0.015 short
    False
    """
    return coverage < level - max(COVERAGE_TOLERANCE, 3 * (mc_se or 0.0))


def under_coverage_note(
    items: int, method: str, label: str, coverage: float, level: float, no_interval: float = 0.0
) -> str:
    """The note on an interval that under-covers at ``items`` items; ``no_interval`` is the
    share of studies without an interval (counted as misses), said apart when it is at least
    a thousandth, with the coverage of the studies that have one.

    >>> under_coverage_note(300, "wald", "PSA", 0.9384, 0.95)[:48]
    'at 300 items the PSA interval (wald) holds the t'
    >>> under_coverage_note(2000, "wilson", "PSA", 0.44, 0.95, 0.55).split("; ")[1:]
    ['55.0% of studies have no interval (counted as misses)', 'those with one hold it in 0.978']
    """
    head = (
        f"at {items:,} items the {label} interval ({method}) holds the true value in "
        f"{coverage:.3f} of studies ({level:.0%} intended)"
    )
    if no_interval < 0.001:
        return f"{head}: it is narrower than its level says"
    held = coverage / (1.0 - no_interval) if no_interval < 1.0 else float("nan")
    return (
        f"{head}; {no_interval:.1%} of studies have no interval (counted as misses); "
        f"those with one hold it in {held:.3f}"
    )
