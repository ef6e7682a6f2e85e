"""Round trips: Turtle parsed back (by rdflib, an independent parser) equals the store; node-link JSON
read back equals the records; SPARQL parameters are bound, not pasted."""

from __future__ import annotations

import gzip
import io
from collections import Counter
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
import rdflib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.records import Edge, Evidence, GraphDocument, Node
from kg.schema import EDGE_TYPES, NODE_LABELS
from kg.stores import graph_counts
from kg.stores import nx as nx_sink
from kg.stores import rdf


def _nt(term) -> str:
    return term.n3() if hasattr(term, "n3") else str(term)


def test_rdf_turtle_round_trip_equals_store(seeds_out: Path) -> None:
    parsed = rdflib.Graph().parse(gzip.open(seeds_out / "graph.ttl.gz"), format="turtle")
    store = rdf.open_store(seeds_out / "store")
    from_store = {(str(q.subject), str(q.predicate), str(q.object)) for q in store}
    from_turtle = {
        (ox.NamedNode(str(s)).__str__(), ox.NamedNode(str(p)).__str__(), _oxify(o)) for s, p, o in parsed
    }
    assert len(parsed) == len(store) > 5000
    assert from_turtle == from_store


def _oxify(term) -> str:
    if isinstance(term, rdflib.URIRef):
        return str(ox.NamedNode(str(term)))
    if term.datatype == rdflib.XSD.double:  # rdflib normalises "1"^^xsd:double to "1.0": compare values
        return str(ox.Literal(float(term)))
    return str(ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype))) if term.datatype else ox.Literal(str(term)))


def test_rdf_counts_match_graph(seeds_out: Path, seeds_graph: GraphDocument) -> None:
    nodes, edges = graph_counts(seeds_graph)
    store = rdf.open_store(seeds_out / "store")
    for label, n in nodes.items():
        [row] = rdf.sparql(store, "SELECT ?class (COUNT(?x) AS ?n) WHERE { ?x a ?class } GROUP BY ?class", {"class": ox.NamedNode(f"https://w3id.org/paperkg/ns#{label}")})
        assert row["n"] == n, label
    rows = rdf.sparql(store, "SELECT ?t (COUNT(?e) AS ?n) WHERE { ?e a kg:Edge ; kg:edgeType ?t } GROUP BY ?t")
    assert {r["t"]: r["n"] for r in rows} == edges


def test_rdf_parameters_are_bound_not_pasted(seeds_out: Path) -> None:
    store = rdf.open_store(seeds_out / "store")
    hostile = '"} } DELETE WHERE { ?s ?p ?o } #'
    assert rdf.sparql(store, "SELECT * WHERE { ?x skos:prefLabel ?name }", {"name": hostile}) == []
    rows = rdf.sparql(store, "SELECT * WHERE { ?x skos:prefLabel ?name }", {"name": "Equilibrium Propagation"})
    assert rows == [{"x": "method:equilibrium propagation"}]


def test_nx_node_link_round_trip_on_seeds(seeds_out: Path, seeds_graph: GraphDocument, tmp_path: Path) -> None:
    from kg.api import export

    g = nx_sink.to_networkx(seeds_graph)
    assert g.number_of_nodes() == len(seeds_graph.nodes) and g.number_of_edges() == len(seeds_graph.edges)
    assert nx_sink.from_networkx(g) == seeds_graph
    # GraphML on request (kg export), compressed by its name; the build writes none
    assert not (seeds_out / "graph.graphml.gz").exists()
    assert export(seeds_out, "graphml", tmp_path / "graph.graphml.gz") == len(seeds_graph.nodes) + len(seeds_graph.edges)
    assert gzip.open(tmp_path / "graph.graphml.gz").read(5) == b"<?xml"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.graphml.gz"]
    graphml = nx.read_graphml(tmp_path / "graph.graphml.gz")
    assert graphml.number_of_nodes() == len(seeds_graph.nodes)


_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)


@st.composite
def graphs(draw) -> GraphDocument:
    ids = draw(st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=6, unique=True))
    nodes = tuple(
        Node(f"{draw(st.sampled_from(NODE_LABELS)).lower()}:{i}", draw(st.sampled_from(NODE_LABELS)), draw(_text),
             tuple(draw(st.lists(_text, max_size=2))), tuple(sorted(draw(st.lists(_text, max_size=2)))), draw(st.integers(0, 9)),
             {"year": draw(st.integers(1987, 2026))})
        for i in ids
    )
    edges = {}
    for _ in range(draw(st.integers(0, 6))):
        s, t = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
        etype = draw(st.sampled_from(sorted(EDGE_TYPES)))
        ev = tuple(Evidence(draw(_text), 3, 4, 0, draw(st.integers(4, 9)), "r", 0.5) for _ in range(draw(st.integers(0, 2))))
        edges[(s.id, etype, t.id)] = Edge(s.id, t.id, etype, ev)
    return GraphDocument(tuple(sorted(nodes, key=lambda n: n.id)), tuple(sorted(edges.values(), key=lambda e: e.key)))


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_nx_node_link_round_trip_property(tmp_path_factory, graph: GraphDocument) -> None:
    path = tmp_path_factory.mktemp("nl") / "g.json"
    nx_sink.write_node_link(graph, path)
    assert nx_sink.read_node_link(path) == graph


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_rdf_ntriples_round_trip_content(graph: GraphDocument) -> None:
    triples = list(rdf.triples(graph))
    data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    parsed = rdflib.Graph().parse(data=data.decode(), format="nt")
    assert {(str(ox.NamedNode(str(s))), str(ox.NamedNode(str(p))), _oxify(o)) for s, p, o in parsed} == {
        (str(t.subject), str(t.predicate), str(t.object)) for t in triples
    }


def test_graphml_carries_control_characters_as_replacement_characters(tmp_path) -> None:
    """Real abstracts hold characters XML 1.0 cannot (a ``\\x08`` left by LaTeX); GraphML must still be written."""
    text = "We propose Foo\x08Net\x0c for graphs."
    paper = Node("paper:p\x01", "Paper", "Foo\x08Net paper", papers=("paper:p\x01",), properties={"abstract": text})
    method = Node("method:foo\x08net", "Method", "Foo\x08Net", papers=("paper:p\x01",), mentions=1)
    edge = Edge(paper.id, method.id, "MENTIONS", (Evidence(paper.id, 11, 18, 0, len(text), "r", 0.5),))
    with open(tmp_path / "g.graphml", "wb") as fh:
        nx_sink.write_graphml(GraphDocument((method, paper), (edge,)), fh)
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert sorted(back.nodes) == ["method:foo\ufffdnet", "paper:p\ufffd"]
    assert back.nodes["paper:p\ufffd"]["abstract"] == "We propose Foo\ufffdNet\ufffd for graphs."
    assert list(back.edges) == [("paper:p\ufffd", "method:foo\ufffdnet")]


def _flat(data: dict) -> dict:
    out = dict(data)
    nx_sink._flatten(out)
    return out


@pytest.mark.issue(21)
def test_graphml_round_trip_carries_every_property(seeds_out: Path, seeds_graph: GraphDocument) -> None:
    """Content, not counts: every node and edge attribute of the graph comes back from its GraphML."""
    from kg.api import export

    g = nx_sink.to_networkx(seeds_graph)
    stream = io.BytesIO()
    export(seeds_out, "graphml", stream=stream)
    back = nx.read_graphml(io.BytesIO(stream.getvalue()), force_multigraph=True)
    assert {n: _flat(d) for n, d in back.nodes(data=True)} == {n: _flat(d) for n, d in g.nodes(data=True)}
    assert sorted((s, t, k, sorted(_flat(d).items())) for s, t, k, d in back.edges(keys=True, data=True)) == sorted(
        (s, t, k, sorted(_flat(d).items())) for s, t, k, d in g.edges(keys=True, data=True)
    )


@pytest.mark.issue(21)
def test_node_link_back_into_a_store_gives_the_same_statements(seeds_out: Path, tmp_path: Path) -> None:
    """graph.json.gz read back and written as a store again holds exactly the statements of store/."""
    from kg.api import aggregate

    again = tmp_path / "store"
    rdf.write_store(aggregate(nx_sink.read_node_link(seeds_out / "graph.json.gz")), again)
    original = {str(q) for q in rdf.open_store(seeds_out / "store")}
    assert {str(q) for q in rdf.open_store(again)} == original and len(original) > 5000


@pytest.mark.issue(19)
def test_store_holds_exactly_the_statements_made_and_turtle_all_but_the_neighbourhoods(seeds_out: Path, tmp_path: Path) -> None:
    """The store is loaded from Turtle streamed to a loader process: it must hold the very terms made
    here (datatypes, lexical forms of decimals, the neighbourhoods' JSON), and the Turtle written by
    the same pass everything but the neighbourhoods."""
    from dataclasses import replace

    from kg.api import aggregate
    from kg.schema.aggregates import neighbourhoods

    document = nx_sink.read_node_link(seeds_out / "graph.json.gz")
    aggregated = replace(aggregate(document), neighbourhoods=tuple(neighbourhoods(document, min_edges=1)))
    count = rdf.write_store(aggregated, tmp_path / "store", turtle=tmp_path / "graph.ttl.gz")
    made = {str(t) for t in rdf.statements(aggregated)}
    packed = {str(t) for t in rdf.statements(aggregated, neighbourhoods=True)} - made
    stored = {str(ox.Triple(q.subject, q.predicate, q.object)) for q in rdf.open_store(tmp_path / "store")}
    assert len(packed) > 100 and any("^^<http://www.w3.org/2001/XMLSchema#decimal>" in t for t in made)
    assert stored == made | packed and count == len(stored)
    with gzip.open(tmp_path / "graph.ttl.gz") as turtle:
        written = [str(t) for t in ox.parse(turtle, ox.RdfFormat.TURTLE)]
    assert set(written) == made and len(written) == len(made)  # no statement twice (an edge's kg:support was)


@pytest.mark.issue(19)
def test_units_partition_the_statements_by_subject_and_part(seeds_out: Path) -> None:
    """An update deletes a changed unit's statements by its subject and part (``rdf._owned``): that is
    right only if every statement about a subject belongs to exactly one unit, by its predicate."""
    from dataclasses import replace

    from kg.api import aggregate
    from kg.schema.aggregates import neighbourhoods

    document = nx_sink.read_node_link(seeds_out / "graph.json.gz")
    aggregated = replace(aggregate(document), neighbourhoods=tuple(neighbourhoods(document, min_edges=1)))
    owner: dict[str, tuple[str, str]] = {}
    parts = Counter()
    for part, chunk, _ in rdf._Units(aggregated).chunks():
        for unit in chunk:
            parts[part] += 1
            for t in unit.statements():
                evidence = t.subject.value.startswith(unit.subject + "/ev/")
                assert t.subject.value == unit.subject or (part == rdf.EDGE and evidence)
                assert evidence or rdf._owned(part, t.predicate.value), (part, str(t))
                assert owner.setdefault(str(t), (part, unit.subject)) == (part, unit.subject), str(t)
            others = {p for p in (rdf.NODE, rdf.NODE_AGGREGATES, rdf.NEIGHBOURHOOD, rdf.EDGE, rdf.EDGE_AGGREGATES) if p != part}
            assert not any(rdf._owned(other, t.predicate.value) for t in unit.statements() if t.subject.value == unit.subject
                           for other in others if {part, other} <= {rdf.NODE, rdf.NODE_AGGREGATES, rdf.NEIGHBOURHOOD}
                           or {part, other} <= {rdf.EDGE, rdf.EDGE_AGGREGATES})
    assert set(parts) == {rdf.NODE, rdf.EDGE, rdf.NODE_AGGREGATES, rdf.EDGE_AGGREGATES, rdf.ADDRESSING, rdf.NEIGHBOURHOOD}  # no co-occurrence rows: 38 papers
    assert {str(ox.Triple(q.subject, q.predicate, q.object)) for q in rdf.open_store(seeds_out / "store")} <= set(owner)


@pytest.mark.issue(19)
def test_digests_made_beforehand_are_the_units_own(seeds_out: Path) -> None:
    """``own_digests`` of the graph before its aggregates (made in a process of their own while those are
    computed) are the digests the NODE and EDGE units make themselves, unit for unit."""
    from kg.api import aggregate

    document = nx_sink.read_node_link(seeds_out / "graph.json.gz")
    own = rdf.own_digests(document)
    aggregated = aggregate(document)
    made = [(part, unit.subject, unit.digest) for part, chunk, _ in rdf._Units(aggregated).chunks() for unit in chunk]
    given_ = [(part, unit.subject, unit.digest) for part, chunk, _ in rdf._Units(aggregated, own).chunks() for unit in chunk]
    assert given_ == made
    assert b"".join(d for part, _, d in made if part in (rdf.NODE, rdf.EDGE)) == own
    assert len(own) == 8 * (len(document.nodes) + len(document.edges)) > 0
    with pytest.raises(ValueError, match="own digests of another graph"):
        rdf._Units(aggregated, own[:-8])
    stale = rdf._Units(aggregated, bytes(len(own)))  # the digests are read where given, not remade
    assert {unit.digest for part, chunk, _ in stale.chunks() if part == rdf.NODE for unit in chunk} == {bytes(8)}


@pytest.mark.issue(19)
def test_chunk_turtle_is_its_units_turtle_end_to_end_and_cuts_back_into_them(seeds_out: Path) -> None:
    """An update remakes only the changed units of a changed chunk and takes the others' text from the
    previous Turtle (``rdf._remade_turtle``): right only if a chunk's Turtle is its units' Turtle put end
    to end, and ``rdf._unit_turtles`` cuts it back into exactly those, edges with their evidence."""
    from kg.api import aggregate

    aggregated = aggregate(nx_sink.read_node_link(seeds_out / "graph.json.gz"))
    checked = Counter()
    for part, chunk, _ in rdf._Units(aggregated).chunks():
        if part == rdf.NEIGHBOURHOOD:
            continue
        each = {unit.subject: rdf._turtle([unit]) for unit in chunk}
        assert rdf._turtle(chunk) == b"".join(each.values())
        assert rdf._unit_turtles(rdf._turtle(chunk)) == each
        checked[part] += len(chunk)
    assert checked[rdf.EDGE] > 400 and checked[rdf.NODE] > 400 and len(checked) >= 5
