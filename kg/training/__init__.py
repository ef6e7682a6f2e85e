"""Reproducible training of the shipped spaCy pipelines."""
