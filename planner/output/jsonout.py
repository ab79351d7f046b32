"""JSON output: one document, NaN and infinities as null, numpy values as plain Python."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def json_ready(value: Any) -> Any:
    """Recursively turn numpy arrays and scalars into Python values and non-finite floats
    into None, so ``json.dumps(..., allow_nan=False)`` accepts the result.

    >>> json_ready({"a": np.float64("nan"), "b": np.arange(2), "c": (1.5, float("inf"))})
    {'a': None, 'b': [0, 1], 'c': [1.5, None]}
    """
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
