"""Reproducible training of the shipped spaCy pipelines."""

# No ``from __future__ import annotations`` here: it would bind ``kg.training.annotations`` to the
# __future__ feature, shadowing the submodule for ``from kg.training import annotations``.
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
