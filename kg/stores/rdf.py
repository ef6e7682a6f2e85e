"""RDF sinks: the embedded on-disk Oxigraph store (SPARQL without a server) and Turtle; rdflib as
the Python face of the store (``rdflib_graph``) and the exports made through it.

The mapping from records to triples is ``kg.schema.vocab``; this module only materialises it.
SPARQL parameters are bound with Oxigraph's ``substitutions`` (SEP-0007), never pasted into text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
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
    return _statements(graph)


def _statements(graph: GraphDocument) -> Iterator[ox.Triple]:
    """The graph as triples.  Terms are made once and reused: building pyoxigraph terms is most of
    the cost of writing a large graph."""
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
        yield ox.Triple(s, _TYPE, _predicate(v.class_iri(node.label)))
        for name, value in node_properties(node).items():
            yield from _property(iri, s, name, value)
    for edge in graph.edges:
        s, o = iri(edge.source), iri(edge.target)
        yield ox.Triple(s, _predicate(v.edge_predicate(edge.type)), o)
        q = ox.NamedNode(v.edge_iri(edge.key))
        yield ox.Triple(q, _TYPE, _EDGE)
        yield ox.Triple(q, kg_["source"], s)
        yield ox.Triple(q, kg_["target"], o)
        yield ox.Triple(q, kg_["edgeType"], ox.Literal(edge.type))
        yield ox.Triple(q, kg_["support"], ox.Literal(edge.support))
        for paper in edge.papers:
            yield ox.Triple(q, kg_["supportedBy"], iri(paper))
        for name, value in edge_properties(edge).items():
            # other list properties are the evidence lists, written below as one resource per evidence
            if name not in _SKIP_EDGE_PROPS and (not isinstance(value, list) or name in EDGE_AGGREGATE_PROPERTIES):
                yield from _property(iri, q, name, value)
        for i, ev in enumerate(edge.evidence):
            e = ox.NamedNode(f"{q.value}/ev/{i}")
            yield ox.Triple(q, kg_["evidence"], e)
            yield ox.Triple(e, _TYPE, _PROV_ENTITY)
            yield ox.Triple(e, kg_["paper"], iri(ev.paper))
            yield ox.Triple(e, kg_["sentenceStart"], ox.Literal(ev.sentence_start))
            yield ox.Triple(e, kg_["sentenceEnd"], ox.Literal(ev.sentence_end))
            yield ox.Triple(e, kg_["start"], ox.Literal(ev.start))
            yield ox.Triple(e, kg_["end"], ox.Literal(ev.end))
            yield ox.Triple(e, generated_by, ox.Literal(ev.rule))
            yield ox.Triple(e, kg_["confidence"], ox.Literal(ev.confidence))


def _with_aggregates(aggregated: Aggregated) -> Iterator[ox.Triple]:
    """The statements of the graph with its aggregates, then the look-up keys of names, the ranked
    ``kg:Addressing`` resources that ``methods_for_problem`` and ``problems_for_method`` read and the
    ``kg:CoOccurrence`` ones that ``co_occurring`` reads (``kg.schema.aggregates``)."""
    yield from _statements(aggregated.graph)
    name_key, name_fragment = _predicate(v.KG + "nameKey"), _predicate(v.KG + "nameFragment")
    for node in aggregated.graph.nodes:
        s = _node(node.id)
        for key in sorted(name_keys(node)):
            yield ox.Triple(s, name_key, ox.Literal(key))
        for fragment in sorted(name_fragments(node.name)):
            yield ox.Triple(s, name_fragment, ox.Literal(f"{node.label}{SEPARATOR}{fragment}"))
    for a in aggregated.addressings:
        yield from _row("Addressing", (a.problem, a.method), (
            ("problem", _node(a.problem)), ("method", _node(a.method)), ("support", ox.Literal(len(a.papers))),
            ("paperIds", ox.Literal(SEPARATOR.join(a.papers))), ("methodRank", ox.Literal(a.method_rank)),
            ("methodBand", ox.Literal(f"{a.problem}{SEPARATOR}{band(a.method_rank)}")),
            ("problemRank", ox.Literal(a.problem_rank)),
            ("problemBand", ox.Literal(f"{a.method}{SEPARATOR}{band(a.problem_rank)}")),
        ))
    for c in aggregated.co_occurrences:
        bands = ((label, rank) for label, rank in ((ANY_LABEL, c.rank), (c.label, c.label_rank)) if rank is not None)
        yield from _row("CoOccurrence", (c.entity, c.other), (
            ("entity", _node(c.entity)), ("other", _node(c.other)), ("support", ox.Literal(c.abstracts)),
            *(("coOccurrenceBand", ox.Literal(f"{c.entity}{SEPARATOR}{label}{SEPARATOR}{band(rank)}")) for label, rank in bands),
        ))


def _node(node_id: str) -> ox.NamedNode:
    return ox.NamedNode(v.node_iri(node_id))


def _row(cls: str, joins: tuple[str, ...], values: Iterable[tuple[str, Any]]) -> Iterator:
    """A build-time row resource of class ``kg:<cls>`` (named by a hash of the ids it joins) and its values."""
    s = ox.NamedNode(f"{v.ID}{cls.lower()}/" + hashlib.sha1("|".join(joins).encode()).hexdigest())
    yield ox.Triple(s, _TYPE, _predicate(v.KG + cls))
    for name, term in values:
        yield ox.Triple(s, _predicate(v.KG + name), term)


def _property(iri: Callable, s: ox.NamedNode, name: str, value: Any) -> Iterator:
    p = _predicate(v.property_iri(name))
    values = value if isinstance(value, list) else [value]
    for item in values:
        if item is None or item == "":
            continue
        if name in v.REFERENCE_PROPERTIES or (name == "paper" and isinstance(item, str) and item.startswith("paper:")):
            yield ox.Triple(s, p, iri(item))
        elif name in v.IRI_PROPERTIES:
            yield ox.Triple(s, p, ox.NamedNode(item))
        elif name in v.DECIMAL_PROPERTIES:
            yield ox.Triple(s, p, ox.Literal(format(Decimal(repr(float(item))).normalize(), "f"), datatype=_DECIMAL))
        else:
            yield ox.Triple(s, p, ox.Literal(item))


def write_store(aggregated: Aggregated, path: Path, turtle: Path | None = None) -> int:
    """Create the on-disk store at ``path`` (which must not exist) holding the graph with the
    aggregates canned queries look up (``kg.schema.aggregates``), and compact it: a bulk load leaves
    overlapping files that make each index look-up of a canned query several times slower.  With
    ``turtle``, the same pass writes the Turtle export there: the project's prefixes, the graph's
    order, everything but the neighbourhoods (``_neighbourhoods``), gzip'd for a ``.gz`` name.

    The statements are made once, serialised as Turtle and streamed to a loader process
    (:data:`LOADER`) that parses them back and bulk-loads them.  Oxigraph's bulk loader buffers about
    a million statements per thread (~1.4 GB on the ICLR 2026 graph); in its own process they no
    longer sit on top of the graph, which was a build's peak of memory, and the Python side makes
    each statement once for both outputs instead of once each.  Returns the statements stored.
    """
    with tempfile.TemporaryFile() as errors:
        loader = subprocess.Popen([sys.executable, "-c", LOADER, str(path), str(os.getpid())],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        try:
            try:
                with contextlib.ExitStack() as stack:  # closed in reverse: the Turtle's thread, the export, the pipe
                    feed = stack.enter_context(loader.stdin)  # type: ignore[arg-type]
                    statements = feed if turtle is None else stack.enter_context(_Tee(feed, stack.enter_context(open_output(turtle))))
                    ox.serialize(_with_aggregates(aggregated), statements, ox.RdfFormat.TURTLE, prefixes=v.PREFIXES)
                    ox.serialize(_neighbourhoods(aggregated), feed, ox.RdfFormat.TURTLE, prefixes=v.PREFIXES)
            except BrokenPipeError:  # the loader died: its exit status and message say why
                pass
            assert loader.stdout is not None
            stored = loader.stdout.read()
            loader.wait()
        finally:
            if loader.poll() is None:
                loader.kill()
                loader.wait()
        if loader.returncode != 0:
            errors.seek(0)
            said = (errors.read().decode("utf-8", "replace").strip().splitlines() or [""])[-1]  # a traceback's last line
            raise OSError(f"the store's loader failed (exit {loader.returncode}){': ' + said if said else ''}")
    return int(stored)


LOADER = """
import ctypes, os, sys
if sys.platform.startswith("linux"):
    ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: it dies with the build
if os.getppid() != int(sys.argv[2]):
    sys.exit("the build that started the store's loader is gone")
import pyoxigraph as ox
store = ox.Store(sys.argv[1])
store.bulk_load(sys.stdin.buffer, ox.RdfFormat.TURTLE, lenient=True)
store.flush()
store.optimize()
print(len(store))
"""
"""The store's loader (``python -c LOADER STORE PARENT_PID``): Turtle on standard input, bulk-loaded
and compacted, the number of statements on standard output.  Only ``pyoxigraph`` is imported, so
its memory is the loader's buffers and little else."""


class _Tee:
    """A binary stream into the loader's pipe and the Turtle export: the pipe written here, the export
    from a thread, where gzip's compression (which releases the GIL) runs while the statements are
    still being made.  Leaving it waits for the thread and raises its error (a full disk) here."""

    def __init__(self, feed: BinaryIO, export: BinaryIO) -> None:
        self.feed = feed
        self.chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=1024)
        self.error: OSError | None = None
        self.thread = threading.Thread(target=self._drain, args=(export,), daemon=True)
        self.thread.start()

    def _drain(self, export: BinaryIO) -> None:
        while (chunk := self.chunks.get()) is not None:
            if self.error is None:
                try:
                    export.write(chunk)
                except OSError as exc:
                    self.error = exc

    def write(self, data: bytes) -> int:
        if self.error is not None:
            raise self.error
        self.chunks.put(bytes(data))
        self.feed.write(data)
        return len(data)

    def flush(self) -> None:
        self.feed.flush()

    def __enter__(self) -> _Tee:
        return self

    def __exit__(self, *exc: object) -> None:
        """Wait for the export's thread and raise its error here."""
        self.chunks.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error


def _neighbourhoods(aggregated: Aggregated) -> Iterator[ox.Triple]:
    """One ``kg:neighbourhood`` JSON literal per busy node (``kg.schema.aggregates.Neighbourhood``):
    an index of the store for ``kg serve``'s cards, left out of ``graph.ttl.gz``."""
    p = _predicate(v.KG + "neighbourhood")
    for n in aggregated.neighbourhoods:
        packed = {key: [count, [list(end) for end in ends]] for key, (count, ends) in n.groups.items()}
        yield ox.Triple(_node(n.node), p, ox.Literal(json.dumps(packed, separators=(",", ":"))))


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
