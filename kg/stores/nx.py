"""networkx sink: a MultiDiGraph, node-link JSON and GraphML, and the way back to records."""

from __future__ import annotations

import functools
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import networkx as nx

from kg.records import Edge, Evidence, GraphDocument, Node
from kg.schema import edge_properties, node_properties
from kg.stores import open_input, open_output

_NODE_FIELDS = frozenset({"id", "name", "aliases", "papers", "support", "mentions", "label"})
_EDGE_FIELDS = frozenset(
    {"key", "support", "papers", "evidencePapers", "sentenceStarts", "sentenceEnds", "starts", "ends", "rules", "confidences", "type"}
)


def to_networkx(graph: GraphDocument) -> nx.MultiDiGraph:
    """Node id -> node properties plus ``label``; edges keyed by their type, with ``type`` and the
    edge properties except ``key`` (the multigraph key plays that role).

    Example:
        >>> g = to_networkx(GraphDocument((Node("method:x", "Method", "X"),), ()))
        >>> g.nodes["method:x"]["label"]
        'Method'
    """
    g = nx.MultiDiGraph(**graph.meta)
    g.add_nodes_from((node.id, _node_data(node)) for node in graph.nodes)
    g.add_edges_from((edge.source, edge.target, edge.type, _edge_data(edge)) for edge in graph.edges)
    return g


def _node_data(node: Node) -> dict:
    return {"label": node.label, **node_properties(node)}


def _edge_data(edge: Edge) -> dict:
    data = {"type": edge.type, **edge_properties(edge)}
    del data["key"]
    return data


def from_networkx(g: nx.MultiDiGraph) -> GraphDocument:
    """The inverse of ``to_networkx``."""
    nodes = []
    for nid, data in g.nodes(data=True):
        props = {k: v for k, v in data.items() if k not in _NODE_FIELDS}
        nodes.append(Node(nid, data["label"], data["name"], tuple(data["aliases"]), tuple(data["papers"]), data["mentions"], props))
    edges = []
    for source, target, data in g.edges(data=True):
        evidence = tuple(
            Evidence(*fields)
            for fields in zip(
                data["evidencePapers"], data["starts"], data["ends"], data["sentenceStarts"], data["sentenceEnds"], data["rules"], data["confidences"]
            )
        )
        props = {k: v for k, v in data.items() if k not in _EDGE_FIELDS}
        edges.append(Edge(source, target, data["type"], evidence, props))
    return GraphDocument(tuple(sorted(nodes, key=lambda n: n.id)), tuple(sorted(edges, key=lambda e: e.key)), dict(g.graph))


def write_node_link(graph: GraphDocument, path: Path) -> None:
    """networkx node-link JSON (``edges`` key), sorted keys, for tools and for ``kg.open``.

    The bytes are those of ``json.dumps(nx.node_link_data(to_networkx(graph), edges="edges"),
    sort_keys=True)``, edges in networkx's adjacency order, but written an item at a time: the
    networkx graph, its node-link dicts and the document as one string took 3 GB on the ICLR 2026 graph.
    """
    adjacency: dict[str, dict[str, list[Edge]]] = {}
    for edge in graph.edges:
        adjacency.setdefault(edge.source, {}).setdefault(edge.target, []).append(edge)
    edges = (
        {**_edge_data(edge), "source": edge.source, "target": edge.target, "key": edge.type}
        for node in graph.nodes for by_target in adjacency.get(node.id, {}).values() for edge in by_target
    )
    nodes = ({**_node_data(node), "id": node.id} for node in graph.nodes)
    dump = functools.partial(json.dumps, ensure_ascii=False, sort_keys=True)
    # A megabyte buffer: GzipFile compresses on every write it is given.
    with open_output(path) as raw, io.BufferedWriter(raw, 1 << 20) as fh:
        fh.write(b'{"directed": true, "edges": [')
        _write_joined(fh, map(dump, edges))
        fh.write(f'], "graph": {dump(dict(graph.meta))}, "multigraph": true, "nodes": ['.encode())
        _write_joined(fh, map(dump, nodes))
        fh.write(b"]}\n")


def _write_joined(fh: BinaryIO, items: Iterator[str]) -> None:
    """``fh.write(", ".join(items).encode())`` without the joined string."""
    for i, item in enumerate(items):
        fh.write(f", {item}".encode() if i else item.encode())


def read_node_link(path: Path) -> GraphDocument:
    """Read ``graph.json.gz`` (or an uncompressed ``graph.json.gz``) back into records."""
    with open_input(Path(path)) as fh:
        data = json.loads(fh.read())
    return from_networkx(nx.node_link_graph(data, directed=True, multigraph=True, edges="edges"))


def write_graphml(graph: GraphDocument, stream: BinaryIO) -> None:
    """GraphML for Gephi/yEd (``kg export --format graphml``) into a binary stream; list properties are
    JSON-encoded strings (GraphML has no lists).

    XML 1.0 cannot carry most control characters, which real abstracts contain (stray ``\\x08``
    from LaTeX, form feeds): in GraphML, and only there, they become U+FFFD.
    """
    g = to_networkx(graph)
    for _, data in g.nodes(data=True):
        _flatten(data)
    for _, _, data in g.edges(data=True):
        _flatten(data)
    renamed = {n: _XML_ILLEGAL.sub("\ufffd", n) for n in g if _XML_ILLEGAL.search(n)}
    if renamed:
        nx.relabel_nodes(g, renamed, copy=False)
    nx.write_graphml(g, stream)


_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _flatten(data: dict) -> None:
    for key, value in list(data.items()):
        if isinstance(value, (list, tuple)):
            data[key] = json.dumps(list(value), ensure_ascii=False)
        elif value is None:
            del data[key]
        elif isinstance(value, str) and _XML_ILLEGAL.search(value):
            data[key] = _XML_ILLEGAL.sub("\ufffd", value)
