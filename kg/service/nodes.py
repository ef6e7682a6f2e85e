"""Entity and paper cards read from the embedded store: properties, neighbours by edge type,
evidence sentences with offsets.  Every value is a bound parameter; the full ``graph.json.gz`` is
never loaded (238 MB on the ICLR graph)."""

from __future__ import annotations

import heapq
import itertools
import json
from collections import defaultdict
from typing import Any

from kg.schema import NODE_LABELS
from kg.schema import vocab as v
from kg.schema.aggregates import AGGREGATE_PROPERTIES

_NAMES = {iri: name for name, iri in v.PROPERTY_IRIS.items()}
_INDEX = frozenset({v.KG + "nameKey", v.KG + "nameFragment", v.KG + "id", v.KG + "neighbourhood"})
_LISTS = frozenset({"aliases", "keywords", "authors"})

_PROPERTIES = "SELECT ?id ?p ?o WHERE { ?id ?p ?o FILTER(isLiteral(?o) || ?p = rdf:type) }"
_NEIGHBOURHOOD = "SELECT ?id ?packed WHERE { ?id kg:neighbourhood ?packed }"
_EDGES = """SELECT ?id ?type ?other ?support WHERE {
  ?edge kg:%s ?id . ?edge kg:edgeType ?type . ?edge kg:%s ?other . ?edge kg:support ?support }"""
_EVIDENCE = """SELECT ?id ?paper ?title ?start ?end ?sentenceStart ?rule ?confidence ?sentence WHERE {
  ?edge kg:target ?id . ?edge kg:edgeType ?type . ?edge kg:evidence ?ev . ?ev kg:paper ?paper .
  ?ev kg:start ?start . ?ev kg:end ?end . ?ev kg:sentenceStart ?sentenceStart . ?ev kg:sentenceEnd ?sentenceEnd .
  OPTIONAL { ?ev prov:wasGeneratedBy ?rule } OPTIONAL { ?ev kg:confidence ?confidence }
  OPTIONAL { ?paper dcterms:title ?title } OPTIONAL { ?paper kg:abstract ?abstract }
  FILTER(?type = "MENTIONS")
  BIND(SUBSTR(?abstract, ?sentenceStart + 1, ?sentenceEnd - ?sentenceStart) AS ?sentence) }"""


def _select(store: Any, text: str, node_id: str, cap: int | None = None, **bound: Any) -> list[dict[str, Any]]:
    """Rows of ``text`` with ``?id`` bound to the node (and ``bound`` literals), at most ``cap``, as Python values."""
    import pyoxigraph as ox

    from kg.stores.rdf import to_python

    subs = {ox.Variable("id"): ox.NamedNode(v.node_iri(node_id)), **{ox.Variable(k): ox.Literal(x) for k, x in bound.items()}}
    result = store.query(text, prefixes=v.PREFIXES, substitutions=subs)
    names = [var.value for var in result.variables if var.value != "id" and var.value not in bound]
    return [{n: to_python(sol[n]) for n in names} for sol in itertools.islice(result, cap)]


def node(store: Any, node_id: str) -> dict[str, Any] | None:
    """The node's id, label, name, aliases, support and other properties; ``None`` if there is none."""
    label, props = None, {}
    lists: dict[str, list[Any]] = defaultdict(list)
    for row in _select(store, _PROPERTIES, node_id):
        p, o = row["p"], row["o"]
        if p == v.RDF + "type":
            label = str(o).removeprefix(v.KG)
            continue
        name = _NAMES.get(p, p.rsplit("#", 1)[-1].rsplit("/", 1)[-1])
        if p in _INDEX or name in AGGREGATE_PROPERTIES or not p.startswith((v.KG, v.SKOS, v.DCTERMS)):
            continue  # look-up keys and build-time aggregates are the store's, not the node's
        if name in _LISTS:
            lists[name].append(o)
        else:
            props[name] = o
    if label is None:
        return None
    props.update({k: sorted(map(str, vals)) for k, vals in lists.items()})
    return {"id": node_id, "label": label, "name": props.pop("name", ""), "aliases": props.pop("aliases", []),
            "support": props.pop("support", 0), "properties": dict(sorted(props.items()))}


def neighbours(store: Any, node_id: str, per_type: int) -> dict[str, dict[str, Any]]:
    """Edges by ``TYPE out``/``TYPE in``: their count and the ``per_type`` other ends with the most
    supporting papers.  A busy node (over 11,000 edges for "large language model") has them packed at
    build time (``kg.schema.aggregates.Neighbourhood``); other nodes, and a request for more ends than
    were packed, read the edges; names and labels are looked up for the ends shown only."""
    from kg.queries.backends import SparqlBackend
    from kg.schema.aggregates import NEIGHBOURHOOD_DEPTH

    packed = _select(store, _NEIGHBOURHOOD, node_id) if per_type <= NEIGHBOURHOOD_DEPTH else []
    if packed:
        return {key: {"count": count, "nodes": [{"id": end, "label": label, "name": name, "support": support}
                                                for end, label, name, support in ends[:per_type]]}
                for key, (count, ends) in json.loads(packed[0]["packed"]).items()}
    counted = _counted(store, node_id, per_type)
    wanted = sorted({end for _, ends in counted.values() for end, _ in ends})
    found = {c.id: c for c in SparqlBackend(store).existing(wanted, NODE_LABELS)} if wanted else {}
    return {key: {"count": count, "nodes": [{"id": end, "label": found[end].label if end in found else "",
                                             "name": found[end].name if end in found else "", "support": support}
                                            for end, support in ends]}
            for key, (count, ends) in counted.items()}


def _counted(store: Any, node_id: str, per_type: int) -> dict[str, tuple[int, list[tuple[str, int]]]]:
    """Count and first ``per_type`` ends (by support desc, IRI) per edge type and direction, read from the edges."""
    import pyoxigraph as ox

    subs = {ox.Variable("id"): ox.NamedNode(v.node_iri(node_id))}
    groups: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for direction, (here, there) in (("out", ("source", "target")), ("in", ("target", "source"))):
        for sol in store.query(_EDGES % (here, there), prefixes=v.PREFIXES, substitutions=subs):
            groups[f"{sol[1].value} {direction}"].append((-int(sol[3].value), sol[2].value))
    return {key: (len(items), [(v.node_id(iri), -minus) for minus, iri in heapq.nsmallest(per_type, items)])
            for key, items in sorted(groups.items())}


def evidence(store: Any, node_id: str, cap: int) -> list[dict[str, Any]]:
    """The first ``cap`` mentions of the node in store order (a busy node has thousands): paper,
    title, sentence, offsets into the abstract, rule and confidence."""
    return [{"paper": r["paper"], "title": r["title"] or "", "sentence": r["sentence"] or "", "start": r["start"],
             "end": r["end"], "sentence_start": r["sentenceStart"], "rule": r["rule"] or "",
             "confidence": r["confidence"]} for r in _select(store, _EVIDENCE, node_id, cap)]
