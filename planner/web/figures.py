"""Figures of the planning app as PNG bytes, drawn by :mod:`planner.output`'s functions.

The same size, resolution and fonts as a report's figures (800 x 450 pixels, readable at
100 % zoom); nothing is written to disk. matplotlib's style settings are global, so one
figure is drawn at a time (the server computes pages on several threads).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import Any

#: held while matplotlib draws (its style settings are global): take it around figure code
DRAWING = threading.Lock()


def png(draw: Callable[..., Any], *data: Any) -> bytes:
    """``draw(ax, *data)`` on a new figure, as PNG bytes (no timestamp metadata)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from planner.output.plots import FIGURE_DPI, FIGURE_SIZE, FONT

    with DRAWING, matplotlib.rc_context(FONT):  # type: ignore[arg-type]
        fig = Figure(figsize=FIGURE_SIZE, dpi=FIGURE_DPI)
        FigureCanvasAgg(fig)
        draw(fig.add_subplot(), *data)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
