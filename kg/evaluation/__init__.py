"""Scoring extractors against external gold."""
