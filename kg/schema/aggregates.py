"""Aggregates computed once at build time and stored as node properties, so canned queries look up
instead of scanning a whole type.

Oxigraph has no range index and moves every solution into Python one by one, so a query that
reads every Method (80,000 on the ICLR 2026 graph) cannot answer in 50 ms.  A *rank band* turns
"the first ``limit`` of a ranking" into a few index look-ups: band ``b`` holds ranks
``2**(b-1)+1 .. 2**b`` (band 0 holds rank 1), so ranks ``1..limit`` lie in the bands whose first
rank is at most ``limit``, together fewer than ``2 * limit`` nodes per ranking.

A build computes them once (``aggregate``, for the ``KINDS`` its canned queries declare) and hands
the ``Aggregated`` graph to the embedded store, its Turtle and Neo4j, not to ``graph.json.gz``; in Neo4j
range indexes on the scalar ones serve ``top_entities``, ``new_in_corpus``, ``similar_papers`` and
``papers_for_entity``; the Python queries answer without them.  Properties and rows:

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
* every node (RDF store only, as ``kg.names.name_keys`` and ``name_fragments``): its lower-cased name, title
  and aliases, which resolve a parameter by name with one look-up each, and the fragments of its
  name, which gather the "did you mean" candidates of a misspelt one;
* entities mentioned in at least ``CO_OCCURRING_MIN_PAPERS`` papers: ``coOccurringDepth``, the number
  of their first co-occurring entities, overall and per label, that are stored as ``co_occurrences``
  (as ``kg:CoOccurrence`` rows in the RDF store, as the lists ``coOccurringIds``,
  ``coOccurringAbstracts`` and ``coOccurringLabels`` on the node in Neo4j), so ``co_occurring`` on a
  busy entity reads its answer instead of counting every (paper, entity) pair of its papers (about
  100,000 for "large language model");
* for each label and each year that splits the dated papers in two: the first ``RISING_DEPTH`` rows
  of ``rising_entities`` there (as ``risings``: ``kg:Rising`` rows in the RDF store, read by rank
  band; one ``PaperkgRising`` node per label and year in Neo4j, ``kg.stores.neo4j.rising_rows``), so
  the query reads them instead of counting every dated mention (7 s on the ICLR 2026 graph with
  2,000 older papers);
* MENTIONS edges: ``paperRank`` — the rank of the paper among the entity's papers by (year desc,
  paper id), the order of ``papers_for_entity``, and ``paperBand``, ``<entity id><US><band of that
  rank>``: a key the query looks up for each band instead of ordering every paper of a busy entity
  (5,189 for "large language model"); ``sentenceSpans``, the distinct ``start:end`` of the
  sentences that mention the entity (one look-up each in the RDF store, instead of three per
  evidence resource: most of the query's time on a busy entity there);
* OUTPERFORMS edges: ``beatsBand`` and ``beatenByBand``, ``<method id><US><band>`` of the edge's
  rank among what its source beats and among what beats its target, by (papers desc, name, id),
  the order of ``outperforms``: in the RDF store a busy method is the object of thousands of
  triples of other edges, which the query would otherwise read to find its few OUTPERFORMS ones.

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

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy

from kg.records import ENTITY_LABELS, METHOD_LABELS, GraphDocument
from kg.schema.vocab import node_iri

AGGREGATE_PROPERTIES = (
    "rankBand", "firstYear", "firstYearPapers", "datedPapers", "firstYearBand", "entityCount", "areaPapers", "areaBands",
    "coOccurringDepth",
)
"""Node properties this module owns; recomputing replaces them."""
EDGE_AGGREGATE_PROPERTIES = ("paperRank", "paperBand", "sentenceSpans", "beatsBand", "beatenByBand")
"""Edge properties this module owns."""
SEPARATOR = "\x1f"
"""Joins the parts of a composite key or list (an area and a count or band, an id and a band, a
label and a name fragment, paper ids): no name or id contains it."""
SECTIONS = {"Problem": "Problem", "Method": "Method", "Model": "Method"}
"""The ``area_overview`` section of each label it ranks."""
CO_OCCURRING_DEPTH = 50
"""How many of an entity's first co-occurring entities are stored, overall and of each label: the
stored answer serves any ``limit`` up to this (the default is 25)."""
CO_OCCURRING_MIN_PAPERS = 10
"""Entities in fewer papers share them with a few hundred (paper, entity) pairs at most, which the
query counts fast enough; storing them too would triple the rows."""
RISING_DEPTH = 50
"""How many of the first rows of ``rising_entities`` are stored per label and split: the stored
answer serves any ``limit`` up to this (the default is 25)."""
ANY_LABEL = "*"
"""The label part of the key of a co-occurrence's rank among entities of every label."""
NEIGHBOURHOOD_MIN_EDGES = 100
"""Nodes with at least this many edges keep a ``Neighbourhood``: reading a busy node's edges live
costs ~0.25 s for 5,000 of them ("reinforcement learning"); a node with fewer answers in a few ms."""
NEIGHBOURHOOD_DEPTH = 100
"""How many other ends a ``Neighbourhood`` keeps per edge type and direction: a card asking for more
reads the edges live."""


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


@dataclass(frozen=True, slots=True)
class CoOccurrence:
    """An entity mentioned in ``abstracts`` of the papers that mention ``entity``, kept because it is
    among the first ``CO_OCCURRING_DEPTH`` of ``entity`` in the order of ``co_occurring`` (papers desc,
    name, id): overall (``rank``), among entities of its own label (``label_rank``), or both."""

    entity: str
    other: str
    label: str
    abstracts: int
    rank: int | None
    label_rank: int | None


@dataclass(frozen=True, slots=True)
class Rising:
    """An entity among the first ``RISING_DEPTH`` of its label in the order of ``rising_entities``
    (growth desc, ``after`` desc, id) for every ``since`` in ``sinces``: the years after one dated
    paper's year up to the next, which all split the dated papers alike.  ``before`` and ``after``
    count the entity's dated papers before and since them, ``total_before`` and ``total_after`` all
    dated papers."""

    entity: str
    label: str
    sinces: tuple[int, ...]
    before: int
    after: int
    total_before: int
    total_after: int
    rank: int


def band(rank: int) -> int:
    """The band of a 1-based rank: 0 for 1, 1 for 2, 2 for 3-4, 3 for 5-8 ...

    Example:
        >>> [band(r) for r in (1, 2, 3, 4, 5, 8, 9)]
        [0, 1, 2, 2, 3, 3, 4]
    """
    return (rank - 1).bit_length()


KINDS: dict[str, str] = {
    "rank_bands": "rankBand on entities (top_entities)",
    "first_year": "firstYear, firstYearPapers, datedPapers, firstYearBand on entities (new_in_corpus)",
    "entity_count": "entityCount on papers (similar_papers)",
    "areas": "areaPapers and areaBands on problems, methods and models (area_overview)",
    "co_occurrences": "coOccurringDepth on busy entities and their CoOccurrence rows (co_occurring)",
    "addressings": "the Addressing rows (methods_for_problem, problems_for_method)",
    "paper_ranks": "paperRank, paperBand, sentenceSpans on MENTIONS edges (papers_for_entity)",
    "outperform_bands": "beatsBand, beatenByBand on OUTPERFORMS edges (outperforms)",
    "risings": "the Rising rows (rising_entities)",
}
"""The kinds of aggregate a canned query can declare it needs (``kg.queries.spec.canned``); a build
computes the kinds its queries declare, once, and hands them to every sink."""


@dataclass(frozen=True, slots=True)
class Aggregated:
    """A graph with its build-time aggregates: what every sink writes (the sinks only serialise).

    ``graph`` carries the aggregate node and edge properties; ``addressings``, ``co_occurrences`` and
    ``risings`` are the rows stored beside it; ``kinds`` are the kinds computed (``KINDS``); ``neighbourhoods``
    serve ``kg serve``'s entity cards, not a canned query, and go to the embedded store only."""

    graph: GraphDocument
    addressings: tuple[Addressing, ...]
    co_occurrences: tuple[CoOccurrence, ...]
    kinds: frozenset[str]
    neighbourhoods: tuple[Neighbourhood, ...] = ()
    risings: tuple[Rising, ...] = ()


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """A busy node's edges summed up for its card in ``kg serve``: per ``"TYPE out"`` / ``"TYPE in"``,
    the number of edges and the first ``NEIGHBOURHOOD_DEPTH`` other ends as (id, label, name,
    supporting papers), by (support desc, node IRI), the order the card shows."""

    node: str
    groups: dict[str, tuple[int, tuple[tuple[str, str, str, int], ...]]]


def neighbourhoods(doc: GraphDocument, min_edges: int = NEIGHBOURHOOD_MIN_EDGES) -> list[Neighbourhood]:
    """A ``Neighbourhood`` for every node with at least ``min_edges`` edges, by node id.

    Example:
        >>> from kg.records import Edge, Evidence, GraphDocument, Node
        >>> ev = lambda p: (Evidence(p, 0, 1, 0, 1, "r", 1.0),)
        >>> doc = GraphDocument((Node("method:a", "Method", "A"), Node("paper:b", "Paper", "B"), Node("paper:é", "Paper", "É")),
        ...     (Edge("paper:b", "method:a", "MENTIONS", ev("paper:b")), Edge("paper:é", "method:a", "MENTIONS", ev("paper:é"))))
        >>> [(n.node, n.groups) for n in neighbourhoods(doc, min_edges=2)]  # a tie goes to the IRI first: paper:%C3%A9
        [('method:a', {'MENTIONS in': (2, (('paper:é', 'Paper', 'É', 1), ('paper:b', 'Paper', 'B', 1)))})]
    """
    nodes = {n.id: n for n in doc.nodes}
    ends: dict[str, dict[str, list[tuple[int, str, str]]]] = defaultdict(lambda: defaultdict(list))
    degree: dict[str, int] = defaultdict(int)
    for e in doc.edges:
        degree[e.source] += 1
        degree[e.target] += 1
    for e in doc.edges:
        for here, there, direction in ((e.source, e.target, "out"), (e.target, e.source, "in")):
            if degree[here] >= min_edges:
                ends[here][f"{e.type} {direction}"].append((-e.support, node_iri(there), there))
    out = []
    for node in sorted(ends):
        groups = {}
        for key, items in sorted(ends[node].items()):
            items.sort()
            groups[key] = (len(items), tuple((there, nodes[there].label, nodes[there].name, -minus)
                                             for minus, _, there in items[:NEIGHBOURHOOD_DEPTH]))
        out.append(Neighbourhood(node, groups))
    return out


def aggregate(doc: GraphDocument, kinds: Iterable[str] = KINDS) -> Aggregated:
    """Compute the aggregates of ``kinds`` (default: every kind) for ``doc``, once for every sink.

    Example:
        >>> from kg.records import GraphDocument, Node
        >>> a = aggregate(GraphDocument((Node("method:a", "Method", "A"),), ()), ["rank_bands"])
        >>> a.graph.nodes[0].properties, a.addressings, sorted(a.kinds)
        ({'rankBand': 0}, (), ['rank_bands'])
    """
    kinds = frozenset(kinds)
    unknown = sorted(kinds - set(KINDS))
    if unknown:
        raise ValueError(f"unknown aggregate kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
    busy = _busy(doc) if "co_occurrences" in kinds else {}
    return Aggregated(
        with_aggregates(doc, kinds, busy),
        tuple(addressings(doc)) if "addressings" in kinds else (),
        tuple(co_occurrences(doc, busy)) if "co_occurrences" in kinds else (),
        kinds,
        tuple(neighbourhoods(doc)),
        tuple(risings(doc)) if "risings" in kinds else (),
    )


def with_aggregates(doc: GraphDocument, kinds: Iterable[str] = KINDS, busy: dict[str, list[str]] | None = None) -> GraphDocument:
    """``doc`` with the aggregate node and edge properties of ``kinds`` (re)computed from its nodes and edges
    (``busy``: ``_busy(doc)`` if already made)."""
    kinds = frozenset(kinds)
    nodes = {n.id: n for n in doc.nodes}
    extra: dict[str, dict[str, Any]] = defaultdict(dict)

    if "rank_bands" in kinds:
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
    if "areas" in kinds:
        for (area, _), counts in sorted(in_area.items()):
            ranked = sorted(counts, key=lambda i: (-counts[i], nodes[i].name, i))
            for rank, entity in enumerate(ranked, 1):
                extra[entity].setdefault("areaPapers", []).append(f"{area}{SEPARATOR}{counts[entity]}")
                extra[entity].setdefault("areaBands", []).append(f"{area}{SEPARATOR}{band(rank)}")
    if "first_year" in kinds:
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
    if "entity_count" in kinds:
        for n in doc.nodes:
            if n.label == "Paper":
                extra[n.id]["entityCount"] = entity_count.get(n.id, 0)
    if "co_occurrences" in kinds:
        for entity in _busy(doc) if busy is None else busy:
            extra[entity]["coOccurringDepth"] = CO_OCCURRING_DEPTH

    out = []
    for n in doc.nodes:
        props = {k: v for k, v in n.properties.items() if k not in AGGREGATE_PROPERTIES}
        out.append(n.with_properties(props | extra.get(n.id, {})) if n.id in extra or props != n.properties else n)
    return replace(doc, nodes=tuple(out), edges=_ranked_edges(doc, nodes, kinds))


def _ranked_edges(doc: GraphDocument, nodes: dict[str, Any], kinds: frozenset[str]) -> tuple:
    """The edges, MENTIONS ones with ``paperRank`` and ``paperBand`` (``paper_ranks``), OUTPERFORMS
    ones with ``beatsBand`` and ``beatenByBand`` (``outperform_bands``; see the module docstring)."""
    by_entity: dict[str, list[int]] = defaultdict(list)
    beats: dict[str, list[int]] = defaultdict(list)
    beaten_by: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(doc.edges):
        if e.type == "MENTIONS" and "paper_ranks" in kinds:
            by_entity[e.target].append(i)
        elif e.type == "OUTPERFORMS" and "outperform_bands" in kinds:
            beats[e.source].append(i)
            beaten_by[e.target].append(i)
    extra: dict[int, dict[str, Any]] = defaultdict(dict)
    newest_first = {n.id: -(n.properties.get("year") or 0) for n in doc.nodes}
    for entity, members in by_entity.items():
        members.sort(key=lambda i: (newest_first.get(doc.edges[i].source, 0), doc.edges[i].source))
        for rank, i in enumerate(members, 1):
            evidence = doc.edges[i].evidence
            spans = ([(evidence[0].sentence_start, evidence[0].sentence_end)] if len(evidence) == 1
                     else sorted({(ev.sentence_start, ev.sentence_end) for ev in evidence}))
            extra[i] |= {"paperRank": rank, "paperBand": f"{entity}{SEPARATOR}{band(rank)}",
                         "sentenceSpans": [f"{start}:{end}" for start, end in spans]}
    for key, grouped, other in (("beatsBand", beats, "target"), ("beatenByBand", beaten_by, "source")):
        for method, members in grouped.items():

            def by_papers(i: int) -> tuple[int, str, str]:
                o = getattr(doc.edges[i], other)
                return (-doc.edges[i].support, nodes[o].name, o)

            for rank, i in enumerate(sorted(members, key=by_papers), 1):
                extra[i][key] = f"{method}{SEPARATOR}{band(rank)}"
    out = []
    for i, e in enumerate(doc.edges):
        props = {k: v for k, v in e.properties.items() if k not in EDGE_AGGREGATE_PROPERTIES}
        out.append(e.with_properties(props | extra[i]) if i in extra or props != e.properties else e)
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


def risings(doc: GraphDocument, depth: int = RISING_DEPTH) -> list[Rising]:
    """The first ``depth`` rows of ``rising_entities`` for every label and every ``since`` that leaves
    dated papers on both sides, by label, split and rank.  Growth is ``after * total_before - before *
    total_after`` (the share difference times both totals, exact in integers); only positive growth
    ranks.  Counted on an (entity x year) matrix: 150,000 entities over 34 years took 0.6 s.

    Example:
        >>> from kg.records import Edge, Evidence, GraphDocument, Node
        >>> ev = lambda p: (Evidence(p, 0, 1, 0, 1, "r", 1.0),)
        >>> doc = GraphDocument(
        ...     (Node("method:a", "Method", "A"), Node("method:b", "Method", "B"),
        ...      *(Node(f"paper:{y}", "Paper", str(y), properties={"year": y}) for y in (2018, 2020, 2021))),
        ...     (Edge("paper:2018", "method:a", "MENTIONS", ev("paper:2018")),
        ...      Edge("paper:2021", "method:b", "MENTIONS", ev("paper:2021"))),
        ... )
        >>> [(r.entity, r.sinces, r.before, r.after, r.total_before, r.total_after, r.rank) for r in risings(doc)]
        [('method:b', (2019, 2020), 0, 1, 1, 2, 1), ('method:b', (2021,), 0, 1, 2, 1, 1)]
    """
    labels = {n.id: n.label for n in doc.nodes}
    year_of = {n.id: int(y) for n in doc.nodes if n.label == "Paper" and (y := n.properties.get("year")) is not None}
    paper_years = numpy.array(sorted(year_of.values()), dtype=numpy.int64)
    splits = numpy.unique(paper_years)
    if len(splits) < 2:
        return []
    column = {int(y): i for i, y in enumerate(splits)}
    dated = [(e.target, column[year_of[e.source]]) for e in doc.edges if e.type == "MENTIONS" and e.source in year_of]
    entities = sorted({entity for entity, _ in dated})
    row = {entity: i for i, entity in enumerate(entities)}  # rows in id order: the last tie-break is the row
    counts = numpy.zeros((len(entities), len(splits)), dtype=numpy.int64)
    numpy.add.at(counts, ([row[e] for e, _ in dated], [c for _, c in dated]), 1)
    cumulative = counts.cumsum(axis=1)
    totals_before = numpy.searchsorted(paper_years, splits)  # dated papers before each year
    label_of = numpy.array([labels[e] for e in entities], dtype=object)
    out = []
    for label in sorted(set(label_of)):
        rows = numpy.flatnonzero(label_of == label)
        for split in range(1, len(splits)):
            total_before = int(totals_before[split])
            total_after = len(paper_years) - total_before
            before = cumulative[rows, split - 1]
            after = cumulative[rows, -1] - before
            growth = after * total_before - before * total_after
            rising = numpy.flatnonzero(growth > 0)
            if len(rising) > depth:  # keep the ties at the depth-th growth, then order exactly
                cut = numpy.partition(growth[rising], len(rising) - depth)[len(rising) - depth]
                rising = rising[growth[rising] >= cut]
            ranked = rising[numpy.lexsort((rows[rising], -after[rising], -growth[rising]))][:depth]
            sinces = tuple(range(int(splits[split - 1]) + 1, int(splits[split]) + 1))
            out += [Rising(entities[rows[i]], label, sinces, int(before[i]), int(after[i]), total_before, total_after, rank)
                    for rank, i in enumerate(ranked, 1)]
    return out


def _busy(doc: GraphDocument) -> dict[str, list[str]]:
    """Entities mentioned in at least ``CO_OCCURRING_MIN_PAPERS`` papers, each with those papers."""
    labels = {n.id: n.label for n in doc.nodes}
    papers: dict[str, list[str]] = defaultdict(list)
    for e in doc.edges:
        if e.type == "MENTIONS" and labels.get(e.target) in ENTITY_LABELS:
            papers[e.target].append(e.source)
    return {entity: ps for entity, ps in sorted(papers.items()) if len(set(ps)) >= CO_OCCURRING_MIN_PAPERS}


def co_occurrences(doc: GraphDocument, busy: dict[str, list[str]] | None = None) -> list[CoOccurrence]:
    """The stored part of ``co_occurring`` for every busy entity (see ``CoOccurrence``), by entity, then
    in the query's order: for every label and for all labels together, the first ``CO_OCCURRING_DEPTH``
    entities mentioned in the same papers, so the first ``limit <= CO_OCCURRING_DEPTH`` rows of any
    ``co_occurring(entity, type)`` are among them.

    Example:
        >>> from kg.records import Edge, Evidence, GraphDocument, Node
        >>> ev = lambda p: (Evidence(p, 0, 1, 0, 1, "r", 1.0),)
        >>> papers = [f"paper:{i}" for i in range(CO_OCCURRING_MIN_PAPERS)]
        >>> doc = GraphDocument(
        ...     (Node("method:a", "Method", "A"), Node("problem:x", "Problem", "X"), Node("dataset:d", "Dataset", "D"),
        ...      *(Node(p, "Paper", p) for p in papers)),
        ...     (*(Edge(p, "method:a", "MENTIONS", ev(p)) for p in papers), Edge("paper:1", "problem:x", "MENTIONS", ev("paper:1")),
        ...      *(Edge(p, "dataset:d", "MENTIONS", ev(p)) for p in papers[:3])),
        ... )
        >>> [(c.other, c.abstracts, c.rank, c.label_rank) for c in co_occurrences(doc)]
        [('dataset:d', 3, 1, 1), ('problem:x', 1, 2, 1)]
    """
    nodes = {n.id: n for n in doc.nodes}
    mentioned: dict[str, set[str]] = defaultdict(set)
    for e in doc.edges:
        if e.type == "MENTIONS":
            mentioned[e.source].add(e.target)
    out = []
    for entity, papers in (_busy(doc) if busy is None else busy).items():
        counts: dict[str, int] = defaultdict(int)
        for paper in set(papers):
            for other in mentioned[paper]:
                if other != entity:
                    counts[other] += 1
        ordered = sorted(counts, key=lambda o: (-counts[o], nodes[o].name, o))
        label_rank: dict[str, int] = {}
        seen: dict[str, int] = defaultdict(int)
        for o in ordered:
            seen[nodes[o].label] += 1
            if seen[nodes[o].label] <= CO_OCCURRING_DEPTH:
                label_rank[o] = seen[nodes[o].label]
        for rank, o in enumerate(ordered, 1):
            if rank <= CO_OCCURRING_DEPTH or o in label_rank:
                out.append(CoOccurrence(entity, o, nodes[o].label, counts[o], rank if rank <= CO_OCCURRING_DEPTH else None, label_rank.get(o)))
    return out


def joined_keys(keys: Iterable[str]) -> str:
    """Keys as one string, each between record separators (U+001E), so that Neo4j's text index finds
    any one of them with ``CONTAINS`` (it takes no list; ``kg.stores.neo4j`` stores area and name keys so).

    Example:
        >>> joined_keys(["large language model", "llms"]).split("\\x1e")
        ['', 'large language model', 'llms', '']
    """
    return "".join(f"\x1e{key}" for key in keys) + "\x1e"
