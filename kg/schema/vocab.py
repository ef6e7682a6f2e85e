"""RDF vocabulary: how nodes, edges and properties become triples.

Reuses the vocabularies people already query with (SKOS for names, DCTERMS for paper metadata,
PROV-O for provenance) and mints ``kg:`` terms only for what is new.  Every store and every
SPARQL query relies on this one mapping.

Shape of the data:

* a node ``n`` is ``<ID/{quote(n.id)}>`` with ``rdf:type kg:{Label}``, ``kg:id``, ``skos:prefLabel``
  (name), ``skos:altLabel`` (each alias), ``kg:support``, ``kg:mentionCount`` and ``kg:supportedBy`` (each
  paper IRI); Paper metadata uses ``dcterms:title``, ``dcterms:identifier`` (source id), ``kg:year``,
  ``kg:venue``, ``kg:primaryArea``, ``kg:decision``, ``kg:url``, ``dcterms:subject`` (keywords),
  ``kg:abstract``; any other property ``p`` is ``kg:{p}`` (lists become repeated triples);
* an edge is a direct triple ``<src> kg:{camelType} <tgt>`` (``kg:addresses``, ``kg:statesBound`` ...)
  plus a qualified ``kg:Edge`` resource ``<ID/edge/{sha1(key)}>`` with ``kg:source``, ``kg:target``,
  ``kg:edgeType``, ``kg:support``, ``kg:supportedBy`` and one ``kg:evidence`` node per supporting
  mention (``prov:Entity`` with ``kg:paper``, ``kg:start``, ``kg:end``, ``kg:sentenceStart``,
  ``kg:sentenceEnd``, ``prov:wasGeneratedBy`` (rule) and ``kg:confidence``).  Offsets index the paper's
  ``kg:abstract``: sentences are sliced from it, never repeated per evidence.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote, unquote

BASE = "https://w3id.org/paperkg/"
KG = BASE + "ns#"
ID = BASE + "id/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
PROV = "http://www.w3.org/ns/prov#"

PREFIXES: dict[str, str] = {
    "kg": KG,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "skos": SKOS,
    "dcterms": DCTERMS,
    "prov": PROV,
}
"""Prefixes every canned and user SPARQL query may use without declaring them."""

PROPERTY_IRIS: dict[str, str] = {
    "name": SKOS + "prefLabel",
    "aliases": SKOS + "altLabel",
    "title": DCTERMS + "title",
    "sourceId": DCTERMS + "identifier",
    "keywords": DCTERMS + "subject",
    "papers": KG + "supportedBy",
    "mentions": KG + "mentionCount",  # kg:mentions is the MENTIONS edge
}
"""Node properties that map onto shared vocabularies; everything else is ``kg:{name}``."""

REFERENCE_PROPERTIES = frozenset({"papers"})
"""Properties whose values are node ids and become IRIs, not literals."""

IRI_PROPERTIES = frozenset({"unitIri"})
"""Properties whose values are IRIs of other vocabularies (QUDT units)."""

DECIMAL_PROPERTIES = frozenset({"low", "high"})
"""Properties written as ``xsd:decimal`` (a result's numbers), so that SPARQL sorts them as numbers."""

QUDT = "http://qudt.org/vocab/unit/"
QUDT_UNITS: dict[str, str] = {
    unit: QUDT + name
    for unit, name in {
        "%": "PERCENT", "ms": "MilliSEC", "s": "SEC", "sec": "SEC", "second": "SEC", "seconds": "SEC",
        "minute": "MIN", "minutes": "MIN", "hour": "HR", "hours": "HR", "fps": "FRAME-PER-SEC",
        "FPS": "FRAME-PER-SEC", "Hz": "HZ", "kHz": "KiloHZ", "GB": "GigaBYTE", "MB": "MegaBYTE",
        "TB": "TeraBYTE", "KB": "KiloBYTE", "dB": "DeciB", "mm": "MilliM", "cm": "CentiM", "km": "KiloM",
        "x": "UNITLESS",
    }.items()
}
"""Result units that QUDT names (a ratio, "x", is unitless); "pp" and unit words like "tokens" have none."""


def node_iri(node_id: str) -> str:
    """IRI of a node, minted from its deterministic id."""
    return ID + quote(node_id, safe=":")


def edge_iri(edge_key: str) -> str:
    """IRI of an edge's qualified resource, minted from its deterministic key."""
    return ID + "edge/" + hashlib.sha1(edge_key.encode()).hexdigest()


def edge_predicate(edge_type: str) -> str:
    """Direct predicate of an edge type: ``STATES_BOUND`` -> ``kg:statesBound``."""
    head, *rest = edge_type.lower().split("_")
    return KG + head + "".join(part.capitalize() for part in rest)


def property_iri(name: str) -> str:
    """Predicate IRI of a node or edge property."""
    return PROPERTY_IRIS.get(name, KG + name)


def class_iri(label: str) -> str:
    """Class IRI of a node label: ``Method`` -> ``kg:Method``."""
    return KG + label


def node_id(iri: str) -> str:
    """The node id an IRI was minted from (other IRIs are returned unchanged)."""
    return unquote(iri[len(ID) :]) if iri.startswith(ID) and not iri.startswith(ID + "edge/") else iri
