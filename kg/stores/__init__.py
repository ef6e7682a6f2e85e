"""Sinks: where a ``GraphDocument`` goes (embedded RDF store, Turtle, node-link JSON, GraphML, Neo4j).

Heavy backends are imported lazily so that ``import kg`` stays light.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import gzip
import os
import signal
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO
from dataclasses import dataclass, field

from kg.records import GraphDocument


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked writer: be killed when ``parent`` dies (Linux), and exit now if it already has,
    so that no writer outlives the run that started it into the next run's clean-up."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@dataclass(frozen=True, slots=True)
class WriteReport:
    """What a sink wrote: counts by node label and edge type, and seconds per phase."""

    sink: str
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    batch_size: int = 0


def graph_counts(graph: GraphDocument) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes by label and edges by type, sorted by name: the counts every store must reproduce."""
    nodes = Counter(n.label for n in graph.nodes)
    edges = Counter(e.type for e in graph.edges)
    return dict(sorted(nodes.items())), dict(sorted(edges.items()))


def open_output(path: Path) -> BinaryIO:
    """A file to write an export into, gzip-compressed when its name ends in ``.gz``: level 6 (the
    level of ``graph.ttl.gz``'s segments, ``kg.stores.rdf``), no timestamp, so the same graph gives
    the same bytes."""
    if path.suffix == ".gz":
        return gzip.GzipFile(filename=str(path), mode="wb", compresslevel=6, mtime=0)  # type: ignore[return-value]
    return open(path, "wb")


def open_input(path: Path) -> BinaryIO:
    """An export to read, decompressed when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")  # type: ignore[return-value]


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic collector off while rows are built from a large graph: millions of small lists,
    dicts and strings, none cyclic, whose allocation makes the collector walk every live object
    again and again (two thirds of the time of building a relationship row per edge of the ICLR
    2026 graph)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
