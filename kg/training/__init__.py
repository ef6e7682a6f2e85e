"""Reproducible training of the shipped spaCy pipelines."""

from __future__ import annotations

import json


def parse_overrides(pairs: list[tuple[str, str]]) -> dict:
    """``--set KEY VALUE`` pairs as spaCy config overrides, values read as JSON where they parse.

    Example:
        >>> parse_overrides([("training.max_steps", "100"), ("paths.vectors", "/tmp/v")])
        {'training.max_steps': 100, 'paths.vectors': '/tmp/v'}
    """
    out = {}
    for key, value in pairs:
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out
