"""GraphDocument -> the explorer's view payload: which nodes to show, where, and their evidence.

The payload is plain JSON built from our records (never from a mutated shared graph).  Nodes and
edges are positional arrays and evidence sentences are stored once in a table, because the same
sentence supports many edges and a 10k-node view must stay under 15 MB.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from kg.records import ENTITY_LABELS, Evidence, GraphDocument, Node
from kg.schema import EDGE_TYPES, NODE_LABELS, check_label
from kg.schema.style import STYLE
from kg.viz.layout import grouped_layout, layout

MAX_EVIDENCE_PER_EDGE = 20
"""Evidence kept per edge; the details panel says how many more there are."""

PAPER_FIELDS = ("title", "year", "venue", "primaryArea", "decision", "url", "authors", "abstract")
BOUND_FIELDS = ("text", "expression", "unicode", "notation", "quantity", "quantityDetail", "role", "subject")
RESULT_FIELDS = ("value", "unit", "kind", "direction", "qualifier", "methodName", "baselineName", "metricName",
                 "datasetName", "setting", "better")
RESULT_COLUMNS = ("value", "metricName", "datasetName", "methodName", "baselineName", "qualifier", "setting")
"""A paper's results as the details panel tabulates them (one row per Result node, text order)."""


def build_payload(
    graph: GraphDocument,
    *,
    entity: str | None = None,
    hops: int = 2,
    types: Iterable[str] | None = None,
    min_support: int = 1,
    years: tuple[int | None, int | None] | None = None,
    max_nodes: int = 2000,
    communities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Select the view (ego or overview), lay it out and return the JSON-ready payload.

    ``communities`` (``membership``: node id -> community number, ``summaries``: one dict per
    community, by number) makes a community view: only members are shown, each community in its
    own region; every node row gets its community's index into ``payload["communities"]``.

    Example:
        >>> from kg.records import GraphDocument, Node
        >>> doc = GraphDocument(nodes=(Node("method:a", "Method", "A", papers=("p1",)),), edges=())
        >>> build_payload(doc)["nodes"][0][2]
        'A'
    """
    by_id = {n.id: n for n in graph.nodes}
    adjacency: dict[str, set[str]] = {n.id: set() for n in graph.nodes}
    for e in graph.edges:
        if e.source in adjacency and e.target in adjacency:
            adjacency[e.source].add(e.target)
            adjacency[e.target].add(e.source)

    centre = _find(graph, entity) if entity is not None else None
    distance = _ego(adjacency, centre.id, hops) if centre is not None else None
    keep_types = {check_label(t) for t in types} if types is not None else set(NODE_LABELS)
    year_of = {n.id: n.properties.get("year") for n in graph.nodes if n.label == "Paper"}

    membership = communities["membership"] if communities is not None else None

    def wanted(node: Node) -> bool:
        if membership is not None and node.id not in membership:
            return False
        if centre is not None and node.id == centre.id:
            return True
        if distance is not None and node.id not in distance:
            return False
        if node.label not in keep_types:
            return False
        if node.label in ENTITY_LABELS and node.support < min_support:
            return False
        if years is not None:
            node_years = [year_of.get(p) for p in (node.papers or (node.id,))]
            return any(y is not None and _in_range(y, years) for y in node_years)
        return True

    chosen = [n for n in graph.nodes if wanted(n)]
    degree = {n.id: len(adjacency[n.id]) for n in chosen}
    # ego views rank by closeness to the centre first; overviews by support, then degree
    chosen.sort(key=lambda n: ((distance or {}).get(n.id, 0), -n.support, -degree[n.id], n.id))
    chosen = chosen[: max(1, max_nodes)]
    index = {n.id: i for i, n in enumerate(chosen)}
    edges = [e for e in graph.edges if e.source in index and e.target in index and e.source != e.target]

    reported: dict[str, list[Node]] = {}
    for e in graph.edges:
        if e.type == "REPORTS" and e.source in index and e.target in by_id:
            reported.setdefault(e.source, []).append(by_id[e.target])

    pairs = [(index[e.source], index[e.target]) for e in edges]
    groups: list[dict[str, Any]] = []
    if membership is not None:
        numbers = sorted({membership[n.id] for n in chosen})
        slot = {c: k for k, c in enumerate(numbers)}
        groups = [dict(communities["summaries"][c]) for c in numbers]  # type: ignore[index]
        pos = grouped_layout([slot[membership[n.id]] for n in chosen], pairs)
    else:
        pos = layout(len(chosen), pairs)
    tables = _Tables(by_id)
    nodes_out = []
    for i, n in enumerate(chosen):
        paper_years = [y for y in (year_of.get(p) for p in (n.papers or (n.id,))) if isinstance(y, int)]
        nodes_out.append(
            [
                n.id,
                NODE_LABELS.index(n.label),
                n.name,
                round(float(pos[i, 0]), 2),
                round(float(pos[i, 1]), 2),
                n.support,
                min(paper_years) if paper_years else None,
                max(paper_years) if paper_years else None,
                list(n.aliases),
                [tables.paper(p) for p in n.papers],
                _props(n, reported.get(n.id, ())),
                *([slot[membership[n.id]]] if membership is not None else []),
            ]
        )
    edge_types = list(EDGE_TYPES)
    edges_out = [
        [
            index[e.source],
            index[e.target],
            edge_types.index(e.type),
            e.support,
            len(e.evidence),
            [tables.evidence(ev) for ev in e.evidence[:MAX_EVIDENCE_PER_EDGE]],
        ]
        for e in edges
    ]
    return {
        "labels": list(NODE_LABELS),
        "style": {label: STYLE[label] for label in NODE_LABELS},
        "edgeTypes": edge_types,
        "view": {
            "centre": index[centre.id] if centre is not None else None,
            "hops": hops if centre is not None else None,
            "total": len(graph.nodes),
        },
        "nodes": nodes_out,
        "edges": edges_out,
        **({"communities": groups} if membership is not None else {}),
        "papers": tables.papers,
        "sentences": tables.sentences,
    }


def _in_range(year: int, years: tuple[int | None, int | None]) -> bool:
    lo, hi = years
    return (lo is None or year >= lo) and (hi is None or year <= hi)


def _find(graph: GraphDocument, entity: str) -> Node:
    """The node ``entity`` names (an id, a name, an alias or a paper title), resolved as the canned
    queries resolve a parameter (``kg.queries.find``)."""
    from kg.queries import find
    from kg.queries.backends import PythonBackend

    node_id = find(PythonBackend(graph), entity, NODE_LABELS)
    return next(n for n in graph.nodes if n.id == node_id)


def _ego(adjacency: dict[str, set[str]], start: str, hops: int) -> dict[str, int]:
    """Hop distance from ``start`` of every node within ``hops`` (edges taken undirected)."""
    distance = {start: 0}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if distance[current] == hops:
            continue
        for nxt in adjacency[current]:
            if nxt not in distance:
                distance[nxt] = distance[current] + 1
                queue.append(nxt)
    return distance


def _props(node: Node, results: Iterable[Node] = ()) -> dict[str, Any]:
    fields = {"Paper": PAPER_FIELDS, "Bound": BOUND_FIELDS, "Result": RESULT_FIELDS}.get(node.label, ())
    props = {f: node.properties[f] for f in fields if node.properties.get(f) not in (None, "", [])}
    rows = sorted(results, key=lambda r: r.properties.get("start", 0))
    if rows:
        props["results"] = [[r.properties.get(c) or "" for c in RESULT_COLUMNS] for r in rows]
    return props


class _Tables:
    """Shared tables of papers and sentences that nodes and evidence refer to by index."""

    def __init__(self, by_id: dict[str, Node]) -> None:
        self._by_id = by_id
        self.papers: list[list[Any]] = []
        self.sentences: list[str] = []
        self._paper_index: dict[str, int] = {}
        self._sentence_index: dict[str, int] = {}

    def paper(self, paper_id: str) -> int:
        if paper_id not in self._paper_index:
            node = self._by_id.get(paper_id)
            props = node.properties if node is not None else {}
            title = props.get("title") or (node.name if node is not None else paper_id)
            self._paper_index[paper_id] = len(self.papers)
            self.papers.append([paper_id, title, props.get("year"), props.get("url") or ""])
        return self._paper_index[paper_id]

    def evidence(self, ev: Evidence) -> list[int]:
        """[sentence index, mention start and end within that sentence, paper index]."""
        paper = self._by_id.get(ev.paper)
        sentence = ev.sentence_in(paper.properties.get("abstract", "") if paper is not None else "")
        if sentence not in self._sentence_index:
            self._sentence_index[sentence] = len(self.sentences)
            self.sentences.append(sentence)
        return [self._sentence_index[sentence], ev.start - ev.sentence_start, ev.end - ev.sentence_start, self.paper(ev.paper)]

