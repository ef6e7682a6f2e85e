"""RDF sinks: the embedded on-disk Oxigraph store (SPARQL without a server) and Turtle; rdflib as
the Python face of the store (``rdflib_graph``) and the exports made through it.

The mapping from records to triples is ``kg.schema.vocab``; this module only materialises it.
SPARQL parameters are bound with Oxigraph's ``substitutions`` (SEP-0007), never pasted into text.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import pyoxigraph as ox

from kg.errors import KGError
from kg.records import GraphDocument
from kg.schema import edge_properties, node_properties
from kg.names import lone_surrogate, name_fragments, name_keys
from kg.schema import vocab as v
from kg.schema.aggregates import ANY_LABEL, EDGE_AGGREGATE_PROPERTIES, SEPARATOR, Aggregated, band
from kg.stores import open_output

if TYPE_CHECKING:
    import rdflib

_TYPE = ox.NamedNode(v.RDF + "type")
_EDGE = ox.NamedNode(v.KG + "Edge")
_PROV_ENTITY = ox.NamedNode(v.PROV + "Entity")
_DECIMAL = ox.NamedNode(v.XSD + "decimal")
_SKIP_EDGE_PROPS = frozenset({"key", "papers"})


@lru_cache(maxsize=None)
def _predicate(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def triples(graph: GraphDocument) -> Iterator[ox.Triple]:
    """Every triple of the graph, nodes first, in a deterministic order."""
    return _statements(graph, ox.Triple)


def _statements(graph: GraphDocument, make: Callable) -> Iterator:
    """The graph as ``make(subject, predicate, object)`` statements (triples, or default-graph quads
    for the store, so a million statements are not built twice).  Terms are made once and reused:
    building pyoxigraph terms is most of the cost of writing a large graph."""
    iris: dict[str, ox.NamedNode] = {}

    def iri(node_id: str) -> ox.NamedNode:
        term = iris.get(node_id)
        if term is None:
            term = iris[node_id] = ox.NamedNode(v.node_iri(node_id))
        return term

    kg_ = {name: _predicate(v.KG + name) for name in (
        "source", "target", "edgeType", "support", "supportedBy", "evidence", "paper", "sentenceStart", "sentenceEnd",
        "start", "end", "confidence")}
    generated_by = _predicate(v.PROV + "wasGeneratedBy")
    for node in graph.nodes:
        s = iri(node.id)
        yield make(s, _TYPE, _predicate(v.class_iri(node.label)))
        for name, value in node_properties(node).items():
            yield from _property(make, iri, s, name, value)
    for edge in graph.edges:
        s, o = iri(edge.source), iri(edge.target)
        yield make(s, _predicate(v.edge_predicate(edge.type)), o)
        q = ox.NamedNode(v.edge_iri(edge.key))
        yield make(q, _TYPE, _EDGE)
        yield make(q, kg_["source"], s)
        yield make(q, kg_["target"], o)
        yield make(q, kg_["edgeType"], ox.Literal(edge.type))
        yield make(q, kg_["support"], ox.Literal(edge.support))
        for paper in edge.papers:
            yield make(q, kg_["supportedBy"], iri(paper))
        for name, value in edge_properties(edge).items():
            # other list properties are the evidence lists, written below as one resource per evidence
            if name not in _SKIP_EDGE_PROPS and (not isinstance(value, list) or name in EDGE_AGGREGATE_PROPERTIES):
                yield from _property(make, iri, q, name, value)
        for i, ev in enumerate(edge.evidence):
            e = ox.NamedNode(f"{q.value}/ev/{i}")
            yield make(q, kg_["evidence"], e)
            yield make(e, _TYPE, _PROV_ENTITY)
            yield make(e, kg_["paper"], iri(ev.paper))
            yield make(e, kg_["sentenceStart"], ox.Literal(ev.sentence_start))
            yield make(e, kg_["sentenceEnd"], ox.Literal(ev.sentence_end))
            yield make(e, kg_["start"], ox.Literal(ev.start))
            yield make(e, kg_["end"], ox.Literal(ev.end))
            yield make(e, generated_by, ox.Literal(ev.rule))
            yield make(e, kg_["confidence"], ox.Literal(ev.confidence))


def _with_aggregates(aggregated: Aggregated, make: Callable) -> Iterator:
    """The statements of the graph with its aggregates, then the look-up keys of names, the ranked
    ``kg:Addressing`` resources that ``methods_for_problem`` and ``problems_for_method`` read and the
    ``kg:CoOccurrence`` ones that ``co_occurring`` reads (``kg.schema.aggregates``)."""
    yield from _statements(aggregated.graph, make)
    name_key, name_fragment = _predicate(v.KG + "nameKey"), _predicate(v.KG + "nameFragment")
    for node in aggregated.graph.nodes:
        s = _node(node.id)
        for key in sorted(name_keys(node)):
            yield make(s, name_key, ox.Literal(key))
        for fragment in sorted(name_fragments(node.name)):
            yield make(s, name_fragment, ox.Literal(f"{node.label}{SEPARATOR}{fragment}"))
    for a in aggregated.addressings:
        yield from _row(make, "Addressing", (a.problem, a.method), (
            ("problem", _node(a.problem)), ("method", _node(a.method)), ("support", ox.Literal(len(a.papers))),
            ("paperIds", ox.Literal(SEPARATOR.join(a.papers))), ("methodRank", ox.Literal(a.method_rank)),
            ("methodBand", ox.Literal(f"{a.problem}{SEPARATOR}{band(a.method_rank)}")),
            ("problemRank", ox.Literal(a.problem_rank)),
            ("problemBand", ox.Literal(f"{a.method}{SEPARATOR}{band(a.problem_rank)}")),
        ))
    for c in aggregated.co_occurrences:
        bands = ((label, rank) for label, rank in ((ANY_LABEL, c.rank), (c.label, c.label_rank)) if rank is not None)
        yield from _row(make, "CoOccurrence", (c.entity, c.other), (
            ("entity", _node(c.entity)), ("other", _node(c.other)), ("support", ox.Literal(c.abstracts)),
            *(("coOccurrenceBand", ox.Literal(f"{c.entity}{SEPARATOR}{label}{SEPARATOR}{band(rank)}")) for label, rank in bands),
        ))


def _node(node_id: str) -> ox.NamedNode:
    return ox.NamedNode(v.node_iri(node_id))


def _row(make: Callable, cls: str, joins: tuple[str, ...], values: Iterable[tuple[str, Any]]) -> Iterator:
    """A build-time row resource of class ``kg:<cls>`` (named by a hash of the ids it joins) and its values."""
    s = ox.NamedNode(f"{v.ID}{cls.lower()}/" + hashlib.sha1("|".join(joins).encode()).hexdigest())
    yield make(s, _TYPE, _predicate(v.KG + cls))
    for name, term in values:
        yield make(s, _predicate(v.KG + name), term)


def _property(make: Callable, iri: Callable, s: ox.NamedNode, name: str, value: Any) -> Iterator:
    p = _predicate(v.property_iri(name))
    values = value if isinstance(value, list) else [value]
    for item in values:
        if item is None or item == "":
            continue
        if name in v.REFERENCE_PROPERTIES or (name == "paper" and isinstance(item, str) and item.startswith("paper:")):
            yield make(s, p, iri(item))
        elif name in v.IRI_PROPERTIES:
            yield make(s, p, ox.NamedNode(item))
        elif name in v.DECIMAL_PROPERTIES:
            yield make(s, p, ox.Literal(format(Decimal(repr(float(item))).normalize(), "f"), datatype=_DECIMAL))
        else:
            yield make(s, p, ox.Literal(item))


def write_store(aggregated: Aggregated, path: Path) -> int:
    """Create the on-disk store at ``path`` (which must not exist), bulk-load the graph with the
    aggregates canned queries look up (``kg.schema.aggregates``), and compact it: a bulk load leaves
    overlapping files that make each index look-up of a canned query several times slower."""
    store = ox.Store(str(path))
    store.bulk_extend(itertools.chain(_with_aggregates(aggregated, ox.Quad), _neighbourhoods(aggregated)))
    store.flush()
    store.optimize()
    count = len(store)
    del store
    return count


def _neighbourhoods(aggregated: Aggregated) -> Iterator[ox.Quad]:
    """One ``kg:neighbourhood`` JSON literal per busy node (``kg.schema.aggregates.Neighbourhood``):
    an index of the store for ``kg serve``'s cards, left out of ``graph.ttl.gz``."""
    p = _predicate(v.KG + "neighbourhood")
    for n in aggregated.neighbourhoods:
        packed = {key: [count, [list(end) for end in ends]] for key, (count, ends) in n.groups.items()}
        yield ox.Quad(_node(n.node), p, ox.Literal(json.dumps(packed, separators=(",", ":"))))


def write_turtle(aggregated: Aggregated, path: Path) -> None:
    """Turtle with the project's prefixes, for people and other tools, in the graph's order."""
    with open_output(path) as fh:
        ox.serialize(_with_aggregates(aggregated, ox.Triple), fh, ox.RdfFormat.TURTLE, prefixes=v.PREFIXES)


def open_store(path: Path) -> ox.Store:
    """Open the embedded store read-only (several readers can share it)."""
    if not Path(path).is_dir():
        raise KGError(f"{path}: no embedded store here; run `kg build` first")
    return ox.Store.read_only(str(path))


EXPORT_FORMATS = {"ttl": "ox-turtle", "nt": "ox-ntriples", "jsonld": "json-ld"}
"""``kg export`` formats -> rdflib serializer: oxrdflib's for Turtle and N-Triples (Oxigraph writes
them straight from the store), rdflib's own for JSON-LD, which compacts IRIs with the vocabulary's
prefixes as its ``@context``."""


def rdflib_graph(store: ox.Store) -> rdflib.Graph:
    """An ``rdflib.Graph`` over the store's default graph (through oxrdflib: nothing is copied), with
    the vocabulary's prefixes bound for queries and serialisations."""
    import rdflib
    from oxrdflib import OxigraphStore
    from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

    graph = rdflib.Graph(store=OxigraphStore(store=store), identifier=DATASET_DEFAULT_GRAPH_ID)
    for prefix, iri in v.PREFIXES.items():
        graph.bind(prefix, iri, override=True)
    return graph


def export(graph: rdflib.Graph, fmt: str, stream: BinaryIO) -> None:
    """Serialise ``graph`` (``rdflib_graph``) as ``fmt`` (a key of ``EXPORT_FORMATS``) into ``stream``."""
    if fmt not in EXPORT_FORMATS:
        raise KGError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    options = {"context": dict(v.PREFIXES), "auto_compact": True} if fmt == "jsonld" else {}
    graph.serialize(stream, format=EXPORT_FORMATS[fmt], encoding="utf-8", **options)


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
    if isinstance(value, str) and lone_surrogate(value) is not None:
        raise KGError(f"parameter {name!r} is not valid text (a lone surrogate at position {lone_surrogate(value)}); pass UTF-8 text")
    if name == "id" or name.endswith("_id"):
        return ox.NamedNode(v.node_iri(value))
    return ox.Literal(value)


def to_python(term: Any, *, node_ids: bool = True) -> Any:
    """An RDF term as a Python value: typed literals to int/float/bool, node IRIs back to node ids
    (``node_ids``; the canned queries keep IRIs as strings and select ``kg:id`` when they want ids)."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return v.node_id(term.value) if node_ids else term.value
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
