"""planner: study planning and sample-size simulation for inter-annotator agreement.

The statistics work on small integer count tables with a leading batch axis: a stack of
``R`` simulated 2x2 tables has shape ``(R, 2, 2)`` and an observed table ``(2, 2)``.
Row index is annotator A's category and column index annotator B's; for binary labels
category 0 is *positive*, so ``table[..., 0, 0]`` is ``a`` (both positive),
``table[..., 0, 1]`` is ``b`` (A only), ``table[..., 1, 0]`` is ``c`` (B only) and
``table[..., 1, 1]`` is ``d`` (neither).
"""

__version__ = "0.1.0"
