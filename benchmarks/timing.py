"""Timing shared by the benchmark scripts: medians of several in-process runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_time(fn: Callable[[], Any], runs: int) -> float:
    """Median wall time of ``runs`` calls of ``fn``, with ``time.perf_counter``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
