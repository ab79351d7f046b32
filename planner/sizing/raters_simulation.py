"""Replicate studies of several annotators: the pattern-count simulation.

Kept so that existing imports work; the one simulation of studies, for any number of
annotators (a pair included), is :mod:`planner.sizing.studies`.
"""

from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts

__all__ = ["NestedPatternStudies", "simulate_pattern_counts"]
