"""An alias of :mod:`planner.sizing.studies`, the one simulation of studies.

Deprecated: import from :mod:`planner.sizing.studies`. Kept only while modules of other
areas still import from here; nothing else should.
"""

from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts

__all__ = ["NestedPatternStudies", "simulate_pattern_counts"]
