"""Aggregates computed once at build time and stored as node properties, so canned queries look up
instead of scanning a whole type.

Oxigraph has no range index and moves every solution into Python one by one, so a query that
reads every Method (80,000 on the ICLR 2026 graph) cannot answer in 50 ms.  A *rank band* turns
"the first ``limit`` of a ranking" into a few index look-ups: band ``b`` holds ranks
``2**(b-1)+1 .. 2**b`` (band 0 holds rank 1), so ranks ``1..limit`` lie in the bands whose first
rank is at most ``limit``, together fewer than ``2 * limit`` nodes per ranking.

Properties added (by the writers, not to ``graph.json``: ``kg.stores.rdf`` applies ``with_aggregates``
to the embedded store and its Turtle, ``kg.stores.neo4j`` to Neo4j, where range indexes on the
scalar ones serve ``top_entities``, ``new_in_corpus`` and ``similar_papers``; the Python queries
answer without them):

* entities: ``rankBand`` — band of the rank within the label by (support desc, mentions desc, id),
  the order of ``top_entities``;
* entities mentioned by a dated paper: ``firstYear`` (earliest year), ``firstYearPapers`` (dated
  papers of that year), ``datedPapers`` (all dated papers) and ``firstYearBand`` — band of the rank
  within (label, firstYear) by (firstYearPapers desc, name, id), the order of ``new_in_corpus``;
* papers: ``entityCount`` — entities the paper mentions (``similar_papers`` divides by it);
* problems, methods and models mentioned in a paper of an ICLR primary area: ``areaPapers``, one
  ``area<US>count`` string per area, and ``areaBands``, one ``area<US>band`` string per area — the
  band of the rank within (area, Problem or Method section) by (count desc, name, id), the order of
  ``area_overview`` (``<US>`` is the unit separator, U+001F);
* (problem, method) pairs (RDF store only, as ``addressings``): one ``Addressing`` per method or
  model that addresses a problem, with its supporting papers and its ranks in the orders of
  ``methods_for_problem`` and ``problems_for_method`` (papers desc, name, id), so those queries read
  their first ``limit`` rows by band instead of joining every ADDRESSES edge and proposing paper of a
  busy problem or method (hundreds);
* every node (RDF store only, as ``name_keys`` and ``name_fragments``): its lower-cased name, title
  and aliases, which resolve a parameter by name with one look-up each, and the fragments of its
  name, which gather the "did you mean" candidates of a misspelt one;
* MENTIONS edges (written to the RDF store only: Neo4j reads an entity's relationships directly):
  ``paperRank`` — the rank of the paper among the entity's papers by (year desc, paper id), the
  order of ``papers_for_entity``, and ``paperBand``, ``<entity id><US><band of that rank>``: a key the
  query looks up for each band instead of ordering every paper of a busy entity.

The Python reference queries do not read these: the parity tests check them against the edges.

Example:
    >>> from kg.records import Edge, Evidence, GraphDocument, Node
    >>> doc = GraphDocument(
    ...     (Node("method:a", "Method", "A", papers=("paper:1",)), Node("paper:1", "Paper", "T", properties={"year": 2020})),
    ...     (Edge("paper:1", "method:a", "MENTIONS", (Evidence("paper:1", 0, 1, 0, 5, "r", 1.0),)),),
    ... )
    >>> [n.properties for n in with_aggregates(doc).nodes]
    [{'rankBand': 0, 'firstYear': 2020, 'firstYearPapers': 1, 'datedPapers': 1, 'firstYearBand': 0}, {'year': 2020, 'entityCount': 1}]
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from kg.records import ENTITY_LABELS, METHOD_LABELS, GraphDocument, Node

AGGREGATE_PROPERTIES = (
    "rankBand", "firstYear", "firstYearPapers", "datedPapers", "firstYearBand", "entityCount", "areaPapers", "areaBands",
)
"""Node properties this module owns; recomputing replaces them."""
EDGE_AGGREGATE_PROPERTIES = ("paperRank", "paperBand")
"""MENTIONS edge properties this module owns."""
SEPARATOR = "\x1f"
"""Joins the parts of a composite key or list (an area and a count or band, an id and a band, a
label and a name fragment, paper ids): no name or id contains it."""
SECTIONS = {"Problem": "Problem", "Method": "Method", "Model": "Method"}
"""The ``area_overview`` section of each label it ranks."""


@dataclass(frozen=True, slots=True)
class Addressing:
    """A method or model and a problem it addresses: the papers that support it (a stated ADDRESSES
    edge, or a paper that proposes the method and addresses the problem), its rank among the
    problem's methods and the problem's rank among the method's problems.  One row of
    ``methods_for_problem`` and of ``problems_for_method``, kept whole in the RDF store."""

    problem: str
    method: str
    papers: tuple[str, ...]
    method_rank: int
    problem_rank: int


def band(rank: int) -> int:
    """The band of a 1-based rank: 0 for 1, 1 for 2, 2 for 3-4, 3 for 5-8 ...

    Example:
        >>> [band(r) for r in (1, 2, 3, 4, 5, 8, 9)]
        [0, 1, 2, 2, 3, 3, 4]
    """
    return (rank - 1).bit_length()


def with_aggregates(doc: GraphDocument, *, paper_ranks: bool = True) -> GraphDocument:
    """``doc`` with the aggregate node properties (re)computed from its nodes and MENTIONS edges, and
    with ``paperRank``/``paperBand`` on MENTIONS edges unless ``paper_ranks`` is false (Neo4j reads an
    entity's relationships directly and does not store them)."""
    nodes = {n.id: n for n in doc.nodes}
    extra: dict[str, dict[str, Any]] = defaultdict(dict)

    by_label: dict[str, list] = defaultdict(list)
    for n in doc.nodes:
        if n.label in ENTITY_LABELS:
            by_label[n.label].append(n)
    for members in by_label.values():
        members.sort(key=lambda n: (-n.support, -n.mentions, n.id))
        for rank, n in enumerate(members, 1):
            extra[n.id]["rankBand"] = band(rank)

    years: dict[str, list[int]] = defaultdict(list)
    entity_count: dict[str, int] = defaultdict(int)
    in_area: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for e in doc.edges:
        if e.type != "MENTIONS":
            continue
        entity_count[e.source] += 1
        paper, entity = nodes.get(e.source), nodes.get(e.target)
        year = paper.properties.get("year") if paper is not None else None
        if year is not None:
            years[e.target].append(int(year))
        area = paper.properties.get("primaryArea") if paper is not None else None
        if area and entity is not None and entity.label in SECTIONS:
            in_area[(area, SECTIONS[entity.label])][e.target] += 1
    for (area, _), counts in sorted(in_area.items()):
        ranked = sorted(counts, key=lambda i: (-counts[i], nodes[i].name, i))
        for rank, entity in enumerate(ranked, 1):
            extra[entity].setdefault("areaPapers", []).append(f"{area}{SEPARATOR}{counts[entity]}")
            extra[entity].setdefault("areaBands", []).append(f"{area}{SEPARATOR}{band(rank)}")
    groups: dict[tuple[str, int], list] = defaultdict(list)
    for entity, ys in years.items():
        n = nodes[entity]
        if n.label not in ENTITY_LABELS:
            continue
        first = min(ys)
        extra[entity] |= {"firstYear": first, "firstYearPapers": ys.count(first), "datedPapers": len(ys)}
        groups[(n.label, first)].append(n)
    for members in groups.values():
        members.sort(key=lambda n: (-extra[n.id]["firstYearPapers"], n.name, n.id))
        for rank, n in enumerate(members, 1):
            extra[n.id]["firstYearBand"] = band(rank)

    for n in doc.nodes:
        if n.label == "Paper":
            extra[n.id]["entityCount"] = entity_count.get(n.id, 0)

    out = []
    for n in doc.nodes:
        props = {k: v for k, v in n.properties.items() if k not in AGGREGATE_PROPERTIES}
        out.append(replace(n, properties=props | extra.get(n.id, {})) if n.id in extra or props != n.properties else n)
    return replace(doc, nodes=tuple(out), edges=_ranked_mentions(doc, nodes) if paper_ranks else doc.edges)


def _ranked_mentions(doc: GraphDocument, nodes: dict[str, Any]) -> tuple:
    """The edges, MENTIONS ones with ``paperRank`` and ``paperBand`` (see the module docstring)."""
    by_entity: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(doc.edges):
        if e.type == "MENTIONS":
            by_entity[e.target].append(i)
    extra: dict[int, dict[str, Any]] = {}
    for entity, members in by_entity.items():

        def order(i: int) -> tuple[int, str]:
            paper = nodes.get(doc.edges[i].source)
            year = paper.properties.get("year") if paper is not None else None
            return (-(year or 0), doc.edges[i].source)

        for rank, i in enumerate(sorted(members, key=order), 1):
            extra[i] = {"paperRank": rank, "paperBand": f"{entity}{SEPARATOR}{band(rank)}"}
    out = []
    for i, e in enumerate(doc.edges):
        props = {k: v for k, v in e.properties.items() if k not in EDGE_AGGREGATE_PROPERTIES}
        out.append(replace(e, properties=props | extra[i]) if i in extra or props != e.properties else e)
    return tuple(out)


def addressings(doc: GraphDocument) -> list[Addressing]:
    """Every (problem, method) pair ``methods_for_problem`` and ``problems_for_method`` can answer,
    ranked within each problem by supporting papers (desc), method name, then method id, and within
    each method likewise by problem.

    Example:
        >>> from kg.records import Edge, Evidence, GraphDocument, Node
        >>> ev = lambda p: (Evidence(p, 0, 1, 0, 1, "r", 1.0),)
        >>> doc = GraphDocument(
        ...     (Node("problem:x", "Problem", "X"), Node("method:a", "Method", "A"), Node("model:b", "Model", "B"),
        ...      Node("paper:1", "Paper", "1"), Node("paper:2", "Paper", "2")),
        ...     (Edge("method:a", "problem:x", "ADDRESSES", ev("paper:1")), Edge("paper:2", "problem:x", "ADDRESSES", ev("paper:2")),
        ...      Edge("paper:2", "model:b", "PROPOSES", ev("paper:2")), Edge("paper:2", "method:a", "PROPOSES", ev("paper:2"))),
        ... )
        >>> [(a.method, a.papers, a.method_rank, a.problem_rank) for a in addressings(doc)]
        [('method:a', ('paper:1', 'paper:2'), 1, 1), ('model:b', ('paper:2',), 2, 1)]
    """
    labels = {n.id: n.label for n in doc.nodes}
    names = {n.id: n.name for n in doc.nodes}
    proposed: dict[str, set[str]] = defaultdict(set)
    for e in doc.edges:
        if e.type == "PROPOSES" and labels.get(e.source) == "Paper" and labels.get(e.target) in METHOD_LABELS:
            proposed[e.source].add(e.target)
    support: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for e in doc.edges:
        if e.type != "ADDRESSES" or labels.get(e.target) != "Problem":
            continue
        if labels.get(e.source) in METHOD_LABELS:
            support[e.target][e.source].update(e.papers)
        elif labels.get(e.source) == "Paper":
            for method in proposed.get(e.source, ()):
                support[e.target][method].add(e.source)
    method_rank: dict[tuple[str, str], int] = {}
    problems: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for problem, methods in support.items():
        for rank, m in enumerate(sorted(methods, key=lambda m: (-len(methods[m]), names[m], m)), 1):
            method_rank[(problem, m)] = rank
            problems[m][problem] = methods[m]
    out = []
    for m, papers in problems.items():
        for rank, problem in enumerate(sorted(papers, key=lambda p: (-len(papers[p]), names[p], p)), 1):
            out.append(Addressing(problem, m, tuple(sorted(papers[problem])), method_rank[(problem, m)], rank))
    return sorted(out, key=lambda a: (a.problem, a.method_rank))


def name_keys(node: Node) -> set[str]:
    """The lower-cased spellings a parameter can name ``node`` by: its name, title and aliases."""
    return {text.lower() for text in (node.name, node.properties.get("title"), *node.aliases) if text}


def name_fragments(text: str) -> frozenset[str]:
    """Keys of a "did you mean": each word's first and last four letters ("propogation" -> "prop",
    "tion"), a shorter word whole and its first three letters ("FIDD" -> "fidd", "fid"); words of one
    or two letters only when there are no others ("of" would match half the graph).  A misspelt
    name almost surely shares one with the right name, so a suggestion compares a few hundred
    names, not every name in the graph.

    Example:
        >>> sorted(name_fragments("Equilibrium propogation")), sorted(name_fragments("FIDD")), sorted(name_fragments("KD"))
        (['equi', 'prop', 'rium', 'tion'], ['fid', 'fidd'], ['kd'])
    """
    words = re.findall(r"\w+", text.lower()) or [text.lower().strip()]
    words = [w for w in words if len(w) > 2] or words
    return frozenset(piece for w in words for piece in ((w[:4], w[-4:]) if len(w) > 4 else (w, w[:3])) if piece)
