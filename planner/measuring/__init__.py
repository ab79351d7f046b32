"""Measuring agreement on real labels: choosing coefficients, intervals, decision, diagnostics."""
