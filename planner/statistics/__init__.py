"""Agreement coefficients and their intervals, on count tables (numpy/scipy only)."""
