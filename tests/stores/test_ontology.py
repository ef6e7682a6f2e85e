"""The ontology declares every class and ``kg:`` predicate that a built graph uses."""

from __future__ import annotations

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
