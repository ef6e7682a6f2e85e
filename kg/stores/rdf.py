"""RDF sinks: the embedded on-disk Oxigraph store (SPARQL without a server) and Turtle.

The mapping from records to triples is ``kg.schema.vocab``; this module only materialises it.
SPARQL parameters are bound with Oxigraph's ``substitutions`` (SEP-0007), never pasted into text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kg.errors import KGError
from kg.records import GraphDocument
from kg.schema import edge_properties, node_properties
from kg.schema import vocab as v

_TYPE = ox.NamedNode(v.RDF + "type")
_SKIP_EDGE_PROPS = frozenset({"key", "papers"})


def triples(graph: GraphDocument) -> Iterator[ox.Triple]:
    """Every triple of the graph, nodes first, in a deterministic order."""
    for node in graph.nodes:
        s = ox.NamedNode(v.node_iri(node.id))
        yield ox.Triple(s, _TYPE, ox.NamedNode(v.class_iri(node.label)))
        for name, value in node_properties(node).items():
            yield from _property(s, name, value)
    for edge in graph.edges:
        s, o = ox.NamedNode(v.node_iri(edge.source)), ox.NamedNode(v.node_iri(edge.target))
        yield ox.Triple(s, ox.NamedNode(v.edge_predicate(edge.type)), o)
        q = ox.NamedNode(v.edge_iri(edge.key))
        yield ox.Triple(q, _TYPE, ox.NamedNode(v.KG + "Edge"))
        yield ox.Triple(q, ox.NamedNode(v.KG + "source"), s)
        yield ox.Triple(q, ox.NamedNode(v.KG + "target"), o)
        yield ox.Triple(q, ox.NamedNode(v.KG + "edgeType"), ox.Literal(edge.type))
        yield ox.Triple(q, ox.NamedNode(v.KG + "support"), ox.Literal(edge.support))
        for paper in edge.papers:
            yield ox.Triple(q, ox.NamedNode(v.KG + "supportedBy"), ox.NamedNode(v.node_iri(paper)))
        for name, value in edge_properties(edge).items():
            if name not in _SKIP_EDGE_PROPS and not isinstance(value, list):
                yield from _property(q, name, value)
        for i, ev in enumerate(edge.evidence):
            e = ox.NamedNode(f"{q.value}/ev/{i}")
            yield ox.Triple(q, ox.NamedNode(v.KG + "evidence"), e)
            yield ox.Triple(e, _TYPE, ox.NamedNode(v.PROV + "Entity"))
            yield ox.Triple(e, ox.NamedNode(v.KG + "paper"), ox.NamedNode(v.node_iri(ev.paper)))
            yield ox.Triple(e, ox.NamedNode(v.KG + "sentenceStart"), ox.Literal(ev.sentence_start))
            yield ox.Triple(e, ox.NamedNode(v.KG + "sentenceEnd"), ox.Literal(ev.sentence_end))
            yield ox.Triple(e, ox.NamedNode(v.KG + "start"), ox.Literal(ev.start))
            yield ox.Triple(e, ox.NamedNode(v.KG + "end"), ox.Literal(ev.end))
            yield ox.Triple(e, ox.NamedNode(v.PROV + "wasGeneratedBy"), ox.Literal(ev.rule))
            yield ox.Triple(e, ox.NamedNode(v.KG + "confidence"), ox.Literal(ev.confidence))


def _property(s: ox.NamedNode, name: str, value: Any) -> Iterator[ox.Triple]:
    p = ox.NamedNode(v.property_iri(name))
    values = value if isinstance(value, list) else [value]
    for item in values:
        if item is None or item == "":
            continue
        if name in v.REFERENCE_PROPERTIES or (name == "paper" and isinstance(item, str) and item.startswith("paper:")):
            yield ox.Triple(s, p, ox.NamedNode(v.node_iri(item)))
        else:
            yield ox.Triple(s, p, ox.Literal(item))


def write_store(graph: GraphDocument, path: Path) -> int:
    """Create the on-disk store at ``path`` (which must not exist) and bulk-load the graph."""
    store = ox.Store(str(path))
    store.bulk_extend(ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples(graph))
    store.flush()
    count = len(store)
    del store
    return count


def write_turtle(graph: GraphDocument, path: Path) -> None:
    """Turtle with the project's prefixes, for people and other tools."""
    with open(path, "wb") as fh:
        ox.serialize(triples(graph), fh, ox.RdfFormat.TURTLE, prefixes=v.PREFIXES)


def open_store(path: Path) -> ox.Store:
    """Open the embedded store read-only (several readers can share it)."""
    if not Path(path).is_dir():
        raise KGError(f"{path}: no embedded store here; run `kg build` first")
    return ox.Store.read_only(str(path))


def sparql(store: ox.Store, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Run a SELECT/ASK query with bound parameters; rows of plain Python values.

    Parameters are RDF terms derived from Python values: a value bound to ``?id`` or ``?…_id`` is a
    node id (``method:x``) and becomes that node's IRI; everything else is a literal of the matching
    XSD type.  Oxigraph binds only variables the query projects (``SELECT *`` or naming them,
    grouping by them in aggregates); their columns are dropped from the returned rows.
    """
    substitutions = {ox.Variable(k): to_term(k, val) for k, val in (params or {}).items()}
    try:
        result = store.query(query, prefixes=v.PREFIXES, substitutions=substitutions)
    except SyntaxError as exc:
        raise KGError(f"SPARQL syntax error: {exc}") from exc
    except RuntimeError as exc:
        if "SELECT projection" in str(exc):
            raise KGError(
                f"{exc}: a bound parameter must be projected; use SELECT * or name it in the SELECT "
                "(and in GROUP BY when aggregating)"
            ) from exc
        raise KGError(f"SPARQL query failed: {exc}") from exc
    if isinstance(result, bool):
        return [{"ask": result}]
    if isinstance(result, ox.QueryTriples):
        return [{"subject": t.subject.value, "predicate": t.predicate.value, "object": to_python(t.object)} for t in result]
    names = [var.value for var in result.variables if var.value not in (params or {})]
    return [{n: to_python(sol[n]) for n in names} for sol in result]


def to_term(name: str, value: Any) -> ox.NamedNode | ox.Literal:
    """A parameter value as an RDF term (see ``sparql``)."""
    if isinstance(value, (ox.NamedNode, ox.Literal)):
        return value
    if name == "id" or name.endswith("_id"):
        return ox.NamedNode(v.node_iri(value))
    return ox.Literal(value)


def to_python(term: Any) -> Any:
    """An RDF term as a Python value: node IRIs back to node ids, typed literals to int/float/bool."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return v.node_id(term.value)
    if isinstance(term, ox.Literal):
        return literal_value(term)
    return str(term)


def literal_value(term: ox.Literal) -> Any:
    """A literal as int, float, bool or str by its XSD datatype."""
    dt = term.datatype.value
    if dt in (v.XSD + "integer", v.XSD + "int", v.XSD + "long"):
        return int(term.value)
    if dt in (v.XSD + "double", v.XSD + "decimal", v.XSD + "float"):
        return float(term.value)
    if dt == v.XSD + "boolean":
        return term.value == "true"
    return term.value
