"""A coefficient with its interval at any level, the report of a measurement, and the
collector that keeps the coefficients in the order they are computed (the report's order).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from planner.measuring.decision import Decision
from planner.measuring.diagnostics import scalar
from planner.validation import (
    RULES,
    check,
    compact_repr,
    shown,
)

#: An interval at a confidence level: ``level -> (lower, upper)``.
IntervalAt = Callable[[float], tuple[Any, Any]]


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


@dataclass
class Collector:
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
