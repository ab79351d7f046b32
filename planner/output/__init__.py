"""Rendering results: tables, JSON, figures, reports, and safe file writes."""
