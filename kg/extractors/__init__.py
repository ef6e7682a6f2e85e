"""Extractors: spaCy pipelines that turn abstracts into ``Extraction`` records.

A registry maps versioned names to pipeline factories; ``extract`` streams abstracts through
one with ``nlp.pipe(..., as_tuples=True)`` and converts each ``Doc`` into an ``Extraction`` so that
nothing after this package touches a spaCy object.
"""

from __future__ import annotations

from kg.extractors.pipeline import EXTRACTORS, extract, load_pipeline

__all__ = ["EXTRACTORS", "extract", "load_pipeline"]
