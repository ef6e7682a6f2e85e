"""Sinks: where a ``GraphDocument`` goes (embedded RDF store, Turtle, node-link JSON, GraphML, Neo4j).

Heavy backends are imported lazily so that ``import kg`` stays light.
"""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from kg.records import GraphDocument


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
