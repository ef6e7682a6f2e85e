"""The graphs analytics run on, built from records into igraph (C speed, seeded runs).

``typed``: every node and edge of the graph, directed, weighted by support (parallel edges of
different types between two nodes add up).  ``cooccurrence``: entities joined by the number of
papers that mention both, undirected.  ``method-problem``: the same counts, kept only between a
method (or model) and a problem.  Co-occurrence is one sparse product (papers x entities), so it
stays linear in the mentions rather than quadratic in Python loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import igraph as ig
import numpy as np
from scipy import sparse

from kg.errors import KGError
from kg.records import ENTITY_LABELS, METHOD_LABELS, Edge, GraphDocument, Node

PROJECTIONS = ("typed", "cooccurrence", "method-problem")


@dataclass(frozen=True)
class Projection:
    """An igraph graph whose vertex ``i`` is ``nodes[i]``; edge attribute ``weight``."""

    name: str
    graph: ig.Graph
    nodes: tuple[Node, ...]


_last_incidence: list[tuple[GraphDocument, tuple[sparse.csr_matrix, list[Node], list[str]]]] = []


def incidence(doc: GraphDocument) -> tuple[sparse.csr_matrix, list[Node], list[str]]:
    """Papers x entities 0/1 matrix of MENTIONS edges, with the entity nodes and paper ids of its axes.

    The last graph's matrix is kept (by identity: records are immutable), because a community
    summary needs it twice and building it walks every edge in Python.
    """
    if _last_incidence and _last_incidence[0][0] is doc:
        return _last_incidence[0][1]
    _last_incidence[:] = [(doc, _incidence(doc))]
    return _last_incidence[0][1]


def _incidence(doc: GraphDocument) -> tuple[sparse.csr_matrix, list[Node], list[str]]:
    entities = [n for n in doc.nodes if n.label in ENTITY_LABELS]
    papers = [n.id for n in doc.nodes if n.label == "Paper"]
    col = {n.id: i for i, n in enumerate(entities)}
    row = {p: i for i, p in enumerate(papers)}
    pairs = [(row[e.source], col[e.target]) for e in doc.edges if e.type == "MENTIONS" and e.source in row and e.target in col]
    r, c = (np.array(x, dtype=np.int64) for x in zip(*pairs)) if pairs else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    m = sparse.csr_matrix((np.ones(len(r), dtype=np.float64), (r, c)), shape=(len(papers), len(entities)))
    m.data[:] = 1.0  # a duplicate (paper, entity) pair still counts one paper
    return m, entities, papers


def cooccurrence_matrix(doc: GraphDocument) -> tuple[sparse.csr_matrix, list[Node]]:
    """Entity x entity counts of papers mentioning both (diagonal: papers mentioning the entity)."""
    m, entities, _ = incidence(doc)
    return (m.T @ m).tocsr(), entities


def _papers(e: Edge) -> int:
    """``Edge.support`` without its sorted tuple: most edges have one piece of evidence."""
    return 1 if len(e.evidence) <= 1 else len({ev.paper for ev in e.evidence})


def project(doc: GraphDocument, name: str = "typed", min_papers: int = 1) -> Projection:
    """The projection ``name`` (see the module docstring); co-occurrence edges need ``min_papers`` shared papers."""
    if name not in PROJECTIONS:
        raise KGError(f"unknown projection {name!r}; known: {', '.join(PROJECTIONS)}")
    if name == "typed":
        index = {n.id: i for i, n in enumerate(doc.nodes)}
        weights: dict[tuple[int, int], float] = {}
        for e in doc.edges:
            if e.source in index and e.target in index:
                key = (index[e.source], index[e.target])
                weights[key] = weights.get(key, 0.0) + _papers(e)
        g = ig.Graph(n=len(doc.nodes), edges=list(weights), directed=True)
        g.es["weight"] = list(weights.values())
        return Projection(name, g, tuple(doc.nodes))
    counts, entities = cooccurrence_matrix(doc)
    upper = sparse.triu(counts, k=1).tocoo()
    keep = upper.data >= min_papers
    if name == "method-problem":
        method = np.array([n.label in METHOD_LABELS for n in entities], dtype=bool)
        problem = np.array([n.label == "Problem" for n in entities], dtype=bool)
        r, c = upper.row, upper.col
        keep &= (method[r] & problem[c]) | (problem[r] & method[c])
    # igraph reads a list of int pairs fastest (it walks a numpy array row by row, as Python objects)
    g = ig.Graph(n=len(entities), edges=list(zip(upper.row[keep].tolist(), upper.col[keep].tolist())), directed=False)
    g.es["weight"] = upper.data[keep].tolist()
    return Projection(name, g, tuple(entities))
