"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import numpy as np
import pytest

# The chapter's pilot table (seed 001): 6 both, 21 A only, 14 B only, 459 neither.
CHAPTER_TABLE = np.array([[6, 21], [14, 459]])


@pytest.fixture
def chapter_table() -> np.ndarray:
    return CHAPTER_TABLE.copy()


def cells_from_margins(p_a: float, p_b: float, kappa: float) -> tuple[float, float, float, float]:
    """Cells (a, b, c, d) from the two positive rates and Cohen's kappa (METHODS.md 2.3)."""
    p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
    p_o = kappa * (1 - p_e) + p_e
    a = (p_o - 1 + p_a + p_b) / 2
    return (a, p_a - a, p_b - a, 1 - p_a - p_b + a)
