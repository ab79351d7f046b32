"""An alias of :mod:`planner.sizing.studies`, the one simulation of studies (a pair's view
included: :func:`~planner.sizing.studies.simulate_tables`,
:class:`~planner.sizing.studies.NestedStudies`).

Deprecated: import from :mod:`planner.sizing.studies`. Kept only while modules of other
areas still import from here; nothing else should.
"""

from planner.sizing.studies import (
    BLOCK_SIZE,
    NestedStudies,
    block_streams,
    multivariate_hypergeometric,
    simulate_tables,
)

__all__ = [
    "BLOCK_SIZE",
    "NestedStudies",
    "block_streams",
    "multivariate_hypergeometric",
    "simulate_tables",
]
