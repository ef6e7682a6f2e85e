"""Extractors: spaCy pipelines that turn abstracts into ``Extraction`` records.

A registry maps versioned names to pipeline factories; ``extract`` streams abstracts through
one with ``nlp.pipe(..., as_tuples=True)`` and converts each ``Doc`` into an ``Extraction`` so that
nothing after this package touches a spaCy object.

The pipeline is imported on first use of these names, not with the package: the text helpers
(``kg.extractors.text``) serve the annotation tools, which must start in well under a second.
"""

from __future__ import annotations

__all__ = ["EXTRACTORS", "extract", "load_pipeline"]


def __getattr__(name: str):
    if name in __all__:
        from kg.extractors import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
