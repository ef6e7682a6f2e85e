"""The ontology declares every class and ``kg:`` predicate that a built graph uses."""

from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path

import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from kg.schema import vocab as v
from kg.stores import rdf


def test_ontology_declares_everything_the_seeds_graph_uses(seeds_out: Path) -> None:
    onto = rdflib.Graph().parse(resources.files("kg.schema") / "ontology.ttl", format="turtle")
    declared = {str(s) for s in onto.subjects(RDF.type, None)}
    assert all(onto.value(rdflib.URIRef(s), RDFS.label) for s in declared)
    store = rdf.open_store(seeds_out / "store")
    used_classes = {r["c"] for r in rdf.sparql(store, "SELECT DISTINCT ?c WHERE { ?x a ?c }")}
    used_predicates = {r["p"] for r in rdf.sparql(store, "SELECT DISTINCT ?p WHERE { ?x ?p ?y }")}
    kg_classes = {c for c in used_classes if c.startswith(v.KG)}
    kg_predicates = {p for p in used_predicates if p.startswith(v.KG)}
    assert kg_classes and kg_predicates
    assert kg_classes <= {str(s) for s in onto.subjects(RDF.type, OWL.Class)}
    assert kg_predicates - declared == set()


def _validate(data: rdflib.Graph) -> tuple[bool, str]:
    import pyshacl

    shapes = rdflib.Graph().parse(resources.files("kg.schema") / "shapes.ttl", format="turtle")
    conforms, _, text = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
    return conforms, text


def test_shapes_accept_the_seeds_results_and_reject_broken_ones(seeds_out: Path) -> None:
    data = rdflib.Graph().parse(gzip.open(seeds_out / "graph.ttl.gz"), format="turtle")
    results = sorted(data.subjects(RDF.type, rdflib.URIRef(v.KG + "Result")))
    assert len(results) >= 3
    conforms, text = _validate(data)
    assert conforms, text
    kg = rdflib.Namespace(v.KG)
    first, second, third = results[:3]
    data.set((first, kg.kind, rdflib.Literal("guess")))
    data.set((second, kg.low, rdflib.Literal("1000", datatype=rdflib.XSD.decimal)))  # above its high
    data.remove((None, kg.reports, third))
    conforms, text = _validate(data)
    assert not conforms
    assert str(first) in text and "low is above high" in text and str(third) in text
