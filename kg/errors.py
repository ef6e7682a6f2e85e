"""Errors: one root, a few named kinds, each message naming the bad value and the way out."""

from __future__ import annotations


class KGError(Exception):
    """Root of every error paperkg raises on purpose."""


class InputError(KGError):
    """An input file cannot be read as abstracts; the message names the file and line."""


class UnknownName(KGError):
    """A registry name (extractor, sink, pipeline) is not known."""


class ModelUnavailable(KGError):
    """An extractor's trained files (or the English spaCy pipeline under it) are missing or unreadable."""


class OffsetMismatch(KGError):
    """A span's offsets do not select its text in the abstract."""


class SinkError(KGError):
    """A sink (store or export) could not write the graph."""


class BuildError(KGError):
    """A build could not complete; the previous output is left untouched."""


class ClusterError(KGError):
    """A Dask cluster could not run the extraction: unreachable, workers missing a package, workers dying."""


class QueryNotFound(KGError):
    """A canned query, one of its parameters or a query backend is not known."""


class UnknownEntity(KGError):
    """A query parameter names no node; the message lists the closest names, also kept in ``suggestions``."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.suggestions = suggestions


class BackendUnavailable(KGError):
    """A query backend (a Neo4j server) cannot be reached or stopped answering; asking again once it is back works."""


class ExplorerUnavailable(KGError):
    """The explorer's renderer bundle is not installed; every other output can still be written."""
