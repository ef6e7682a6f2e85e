"""RDF sinks: the embedded on-disk Oxigraph store (SPARQL without a server) and Turtle; rdflib as
the Python face of the store (``rdflib_graph``) and the exports made through it.

The mapping from records to triples is ``kg.schema.vocab``; this module only materialises it.
SPARQL parameters are bound with Oxigraph's ``substitutions`` (SEP-0007), never pasted into text.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import marshal
import os
import queue
import re
import subprocess
import sys
import tempfile
import struct
import threading
import zlib
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache, partial
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import pyoxigraph as ox

from kg.errors import KGError
from kg.records import GraphDocument
from kg.schema import edge_properties, node_properties
from kg.names import lone_surrogate, name_fragments, name_keys
from kg.schema import vocab as v
from kg.schema.aggregates import AGGREGATE_PROPERTIES, ANY_LABEL, EDGE_AGGREGATE_PROPERTIES, SEPARATOR, Aggregated, band

if TYPE_CHECKING:
    import rdflib

_TYPE = ox.NamedNode(v.RDF + "type")
_EDGE = ox.NamedNode(v.KG + "Edge")
_PROV_ENTITY = ox.NamedNode(v.PROV + "Entity")
_DECIMAL = ox.NamedNode(v.XSD + "decimal")
_SKIP_EDGE_PROPS = frozenset({"key", "papers", "support"})
"""Edge properties written otherwise: ``support`` and ``papers`` first (``kg:support``, ``kg:supportedBy``)."""


@lru_cache(maxsize=None)
def _predicate(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def triples(graph: GraphDocument) -> Iterator[ox.Triple]:
    """Every triple of the graph (no aggregates), in the Turtle's order."""
    return statements(Aggregated(graph, (), (), frozenset()))


def statements(aggregated: Aggregated, *, neighbourhoods: bool = False) -> Iterator[ox.Triple]:
    """The statements of the graph with its aggregates, in the Turtle's order; with ``neighbourhoods``,
    also the store's ``kg:neighbourhood`` ones (``_Units._neighbourhoods``), which the Turtle leaves out."""
    for part, chunk, _ in _Units(aggregated).chunks():
        if neighbourhoods or part != NEIGHBOURHOOD:
            for unit in chunk:
                yield from unit.statements()


NODE, EDGE, NODE_AGGREGATES, EDGE_AGGREGATES = "n", "e", "N", "E"
ADDRESSING, CO_OCCURRENCE, RISING, NEIGHBOURHOOD = "a", "c", "r", "h"
"""The parts the statements are grouped in, in the Turtle's order (the neighbourhoods, last, are the
store's only).  A *unit* is the statements of one part about one subject: a node's own statements
(type, properties, name keys, the direct triples of its outgoing edges), an edge's qualified
resource and its evidence, a node's or an edge's aggregate properties, an ``Addressing``,
``CoOccurrence`` or ``Rising`` row, a busy node's neighbourhood.  Aggregates are units of their own
because a new paper moves many ranks and little else."""
_CHUNK_MASKS = {NODE: 31, EDGE: 31, NODE_AGGREGATES: 63, CO_OCCURRENCE: 63, EDGE_AGGREGATES: 1023, ADDRESSING: 1023, RISING: 1023,
                NEIGHBOURHOOD: 1023}
"""A chunk ends after a unit whose subject hashes to 0 under its part's mask: about 32 nodes or edges
per chunk.  The boundaries depend on subjects only, so a paper added or removed leaves the other
chunks as they were, and an update copies their compressed segments of the Turtle.  Each segment is
compressed alone, so small chunks compress worse (Turtle in 16 kB pieces: 5.3x; 128 kB: 6.3x; whole:
6.5x).  Parts where a new paper moves many values anyway (the MENTIONS edges' paper ranks, the
Addressing rows' ranks: a tenth of them for 100 papers in the ICLR 2026 graph; the Rising rows'
paper totals: all of them) have long chunks."""
_NODE_AGGREGATES = frozenset(AGGREGATE_PROPERTIES)
_EDGE_AGGREGATES = frozenset(EDGE_AGGREGATE_PROPERTIES)
_NEIGHBOURHOOD = v.KG + "neighbourhood"
_ROW_NODES = frozenset({"problem", "method", "entity", "other", "risingEntity"})


@dataclass(frozen=True, slots=True)
class _Unit:
    part: str
    subject: str
    digest: bytes
    """Of the data the statements are made from (part and subject included): equal digests, equal statements."""
    statements: Callable[[], Iterator[ox.Triple]]


class _Units:
    """The graph's statements as units (``NODE`` ...), in chunks, each unit with a digest of its data."""

    def __init__(self, aggregated: Aggregated, own: bytes | None = None) -> None:
        self.aggregated = aggregated
        graph = aggregated.graph
        if own is not None and len(own) != _DIGEST_SIZE * (len(graph.nodes) + len(graph.edges)):
            raise ValueError("own digests of another graph: one per node and edge expected")
        self.own = own
        """``own_digests`` of the graph, made beforehand (else each unit's digest is made here)."""
        self.digests: list[tuple[str, str, bytes]] = []
        """(part, subject, digest) of every unit the chunks have yielded."""
        self.iris: dict[str, ox.NamedNode] = {}
        self.outgoing = _outgoing(graph)
        self.kg = {name: _predicate(v.KG + name) for name in (
            "source", "target", "edgeType", "support", "supportedBy", "evidence", "paper", "sentenceStart", "sentenceEnd",
            "start", "end", "confidence", "nameKey", "nameFragment")}

    def iri(self, node_id: str) -> ox.NamedNode:
        term = self.iris.get(node_id)
        if term is None:
            term = self.iris[node_id] = ox.NamedNode(v.node_iri(node_id))
        return term

    def chunks(self) -> Iterator[tuple[str, list[_Unit], bytes]]:
        """(part, units, digest of the units' digests), chunk by chunk in the Turtle's order."""
        parts = ((NODE, self._nodes()), (EDGE, self._edges()), (NODE_AGGREGATES, self._node_aggregates()),
                 (EDGE_AGGREGATES, self._edge_aggregates()), (ADDRESSING, self._addressings()),
                 (CO_OCCURRENCE, self._co_occurrences()), (RISING, self._risings()), (NEIGHBOURHOOD, self._neighbourhoods()))
        for part, units in parts:
            mask, chunk = _CHUNK_MASKS[part], []
            for unit in units:
                chunk.append(unit)
                self.digests.append((part, unit.subject, unit.digest))
                if zlib.crc32(unit.subject.encode()) & mask == 0:
                    yield part, chunk, _digest(b"".join(u.digest for u in chunk))
                    chunk = []
            if chunk:
                yield part, chunk, _digest(b"".join(u.digest for u in chunk))

    def _nodes(self) -> Iterator[_Unit]:
        own, size = self.own, _DIGEST_SIZE
        for i, node in enumerate(self.aggregated.graph.nodes):
            subject = self.iri(node.id).value
            if own:
                digest, properties = own[i * size : (i + 1) * size], None
            else:
                properties = _own_properties(node)
                digest = _node_digest(node, subject, properties, self.outgoing)
            yield _Unit(NODE, subject, digest, partial(self._node_statements, node, properties))

    def _node_statements(self, node, properties: dict[str, Any] | None) -> Iterator[ox.Triple]:
        """``properties``: the node's own, when its digest was made here (else made now)."""
        s = self.iri(node.id)
        yield ox.Triple(s, _TYPE, _predicate(v.class_iri(node.label)))
        for name, value in (_own_properties(node) if properties is None else properties).items():
            yield from _property(self.iri, s, name, value)
        for key in sorted(name_keys(node)):
            yield ox.Triple(s, self.kg["nameKey"], ox.Literal(key))
        for fragment in sorted(name_fragments(node.name)):
            yield ox.Triple(s, self.kg["nameFragment"], ox.Literal(f"{node.label}{SEPARATOR}{fragment}"))
        for edge in self.outgoing.get(node.id, ()):
            yield ox.Triple(s, _predicate(v.edge_predicate(edge.type)), self.iri(edge.target))

    def _edges(self) -> Iterator[_Unit]:
        own, size, first = self.own, _DIGEST_SIZE, len(self.aggregated.graph.nodes)
        for i, edge in enumerate(self.aggregated.graph.edges, first):
            subject = v.edge_iri(edge.key)
            digest = own[i * size : (i + 1) * size] if own else _edge_digest(edge, subject)
            yield _Unit(EDGE, subject, digest, partial(self._edge_statements, edge, subject))

    def _edge_statements(self, edge, subject: str) -> Iterator[ox.Triple]:
        kg_ = self.kg
        q = ox.NamedNode(subject)
        yield ox.Triple(q, _TYPE, _EDGE)
        yield ox.Triple(q, kg_["source"], self.iri(edge.source))
        yield ox.Triple(q, kg_["target"], self.iri(edge.target))
        yield ox.Triple(q, kg_["edgeType"], ox.Literal(edge.type))
        yield ox.Triple(q, kg_["support"], ox.Literal(edge.support))
        for paper in edge.papers:
            yield ox.Triple(q, kg_["supportedBy"], self.iri(paper))
        for name, value in edge_properties(edge).items():
            # list properties are the evidence lists, written below as one resource per evidence
            if name not in _SKIP_EDGE_PROPS and name not in _EDGE_AGGREGATES and not isinstance(value, list):
                yield from _property(self.iri, q, name, value)
        generated_by = _predicate(v.PROV + "wasGeneratedBy")
        for i, ev in enumerate(edge.evidence):
            e = ox.NamedNode(f"{subject}/ev/{i}")
            yield ox.Triple(q, kg_["evidence"], e)
            yield ox.Triple(e, _TYPE, _PROV_ENTITY)
            yield ox.Triple(e, kg_["paper"], self.iri(ev.paper))
            yield ox.Triple(e, kg_["sentenceStart"], ox.Literal(ev.sentence_start))
            yield ox.Triple(e, kg_["sentenceEnd"], ox.Literal(ev.sentence_end))
            yield ox.Triple(e, kg_["start"], ox.Literal(ev.start))
            yield ox.Triple(e, kg_["end"], ox.Literal(ev.end))
            yield ox.Triple(e, generated_by, ox.Literal(ev.rule))
            yield ox.Triple(e, kg_["confidence"], ox.Literal(ev.confidence))

    def _node_aggregates(self) -> Iterator[_Unit]:
        for node in self.aggregated.graph.nodes:
            if owned := {k: val for k, val in node.properties.items() if k in _NODE_AGGREGATES}:
                subject = self.iri(node.id).value
                yield _Unit(NODE_AGGREGATES, subject, _unit_digest(NODE_AGGREGATES, subject, owned),
                            partial(self._properties, self.iri(node.id), owned))

    def _edge_aggregates(self) -> Iterator[_Unit]:
        for edge in self.aggregated.graph.edges:
            if owned := {k: val for k, val in edge.properties.items() if k in _EDGE_AGGREGATES}:
                subject = v.edge_iri(edge.key)
                yield _Unit(EDGE_AGGREGATES, subject, _unit_digest(EDGE_AGGREGATES, subject, owned),
                            partial(self._properties, ox.NamedNode(subject), owned))

    def _properties(self, s: ox.NamedNode, values: dict[str, Any]) -> Iterator[ox.Triple]:
        for name, value in values.items():
            yield from _property(self.iri, s, name, value)

    def _addressings(self) -> Iterator[_Unit]:
        for a in self.aggregated.addressings:
            yield self._row(ADDRESSING, "Addressing", (a.problem, a.method), (
                ("problem", a.problem), ("method", a.method), ("support", len(a.papers)), ("paperIds", SEPARATOR.join(a.papers)),
                ("methodRank", a.method_rank), ("methodBand", f"{a.problem}{SEPARATOR}{band(a.method_rank)}"),
                ("problemRank", a.problem_rank), ("problemBand", f"{a.method}{SEPARATOR}{band(a.problem_rank)}"),
            ))

    def _co_occurrences(self) -> Iterator[_Unit]:
        for c in self.aggregated.co_occurrences:
            bands = tuple(("coOccurrenceBand", f"{c.entity}{SEPARATOR}{label}{SEPARATOR}{band(rank)}")
                          for label, rank in ((ANY_LABEL, c.rank), (c.label, c.label_rank)) if rank is not None)
            yield self._row(CO_OCCURRENCE, "CoOccurrence", (c.entity, c.other),
                            (("entity", c.entity), ("other", c.other), ("support", c.abstracts), *bands))

    def _risings(self) -> Iterator[_Unit]:
        for r in self.aggregated.risings:
            bands = tuple(("risingBand", f"{r.label}{SEPARATOR}{since}{SEPARATOR}{band(r.rank)}") for since in r.sinces)
            yield self._row(RISING, "Rising", (r.label, str(r.sinces[-1]), r.entity), (
                ("risingEntity", r.entity), ("papersBefore", r.before), ("papersSince", r.after),
                ("datedPapersBefore", r.total_before), ("datedPapersSince", r.total_after), *bands,
            ))

    def _row(self, part: str, cls: str, joins: tuple[str, ...], values: tuple[tuple[str, Any], ...]) -> _Unit:
        """A build-time row resource of class ``kg:<cls>`` (named by a hash of the ids it joins) and its
        values (``_ROW_NODES`` name nodes); the digest is of the values written, so a rank that moves
        within its band changes nothing."""
        subject = f"{v.ID}{cls.lower()}/" + hashlib.sha1("|".join(joins).encode()).hexdigest()

        def made() -> Iterator[ox.Triple]:
            s = ox.NamedNode(subject)
            yield ox.Triple(s, _TYPE, _predicate(v.KG + cls))
            for name, value in values:
                yield ox.Triple(s, _predicate(v.KG + name), self.iri(value) if name in _ROW_NODES else ox.Literal(value))
        return _Unit(part, subject, _unit_digest(part, subject, values), made)

    def _neighbourhoods(self) -> Iterator[_Unit]:
        """One ``kg:neighbourhood`` JSON literal per busy node (``kg.schema.aggregates.Neighbourhood``):
        an index of the store for ``kg serve``'s cards, left out of ``graph.ttl.gz``."""
        p = _predicate(_NEIGHBOURHOOD)
        for n in self.aggregated.neighbourhoods:
            packed = json.dumps({key: [count, [list(end) for end in ends]] for key, (count, ends) in n.groups.items()},
                                separators=(",", ":"))
            subject = self.iri(n.node).value
            yield _Unit(NEIGHBOURHOOD, subject, _unit_digest(NEIGHBOURHOOD, subject, packed),
                        lambda s=self.iri(n.node), packed=packed: iter((ox.Triple(s, p, ox.Literal(packed)),)))


_DIGEST_SIZE = 8


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_DIGEST_SIZE).digest()


def _outgoing(graph: GraphDocument) -> dict[str, list]:
    outgoing: dict[str, list] = defaultdict(list)
    for edge in graph.edges:
        outgoing[edge.source].append(edge)
    return outgoing


def _own_properties(node) -> dict[str, Any]:
    return {k: val for k, val in node_properties(node).items() if k not in _NODE_AGGREGATES}


def _node_digest(node, subject: str, properties: dict[str, Any], outgoing: Mapping[str, list]) -> bytes:
    return _unit_digest(NODE, subject, (node.label, properties, [(e.type, e.target) for e in outgoing.get(node.id, ())]))


def _edge_digest(edge, subject: str) -> bytes:
    own = {k: val for k, val in edge.properties.items() if k not in _EDGE_AGGREGATES}
    evidence = [(e.paper, e.start, e.end, e.sentence_start, e.sentence_end, e.rule, e.confidence) for e in edge.evidence]
    return _unit_digest(EDGE, subject, (edge.type, own, evidence))  # tuples: marshal takes no dataclasses


def own_digests(graph: GraphDocument) -> bytes:
    """The digests of the graph's NODE and EDGE units end to end, in the units' order.  Those units
    hold no aggregates, so a process of their own can make them while the aggregates are computed
    (``kg.api.write_outputs``) and hand them to ``write_store``: the store pass then makes only the
    digests that need the aggregates (on the ICLR 2026 graph its NODE and EDGE units took 2.7 s
    instead of 6.5 s; these digests alone take 3.8-4.7 s)."""
    outgoing = _outgoing(graph)
    nodes = (_node_digest(node, v.node_iri(node.id), _own_properties(node), outgoing) for node in graph.nodes)
    return b"".join(chain(nodes, (_edge_digest(edge, v.edge_iri(edge.key)) for edge in graph.edges)))


def _unit_digest(part: str, subject: str, data: Any) -> bytes:
    """Digest of a unit's data by ``marshal`` version 2: the data are tuples, lists, dicts in a fixed
    order, strings and numbers, which it writes with no references between objects, so equal data
    give equal bytes in every process (``hash`` does not).  A Python whose marshal writes otherwise
    only makes an update rewrite everything.  Over the 1.36M units of the ICLR 2026 graph the units
    took 8.6 s with their digests this way, 11.0-11.8 s by ``repr``, 5.9 s with none."""
    return _digest(marshal.dumps((part, subject, data), 2))


def _owned(part: str, predicate: str) -> bool:
    """Whether a statement about a unit's subject with ``predicate`` belongs to a unit of ``part``
    (a node's own, aggregate and neighbourhood statements share its subject; so do an edge's)."""
    if part == NODE:
        return predicate not in _NODE_AGGREGATE_IRIS and predicate != _NEIGHBOURHOOD
    if part == NODE_AGGREGATES:
        return predicate in _NODE_AGGREGATE_IRIS
    if part == NEIGHBOURHOOD:
        return predicate == _NEIGHBOURHOOD
    if part == EDGE:
        return predicate not in _EDGE_AGGREGATE_IRIS
    if part == EDGE_AGGREGATES:
        return predicate in _EDGE_AGGREGATE_IRIS
    return True


_NODE_AGGREGATE_IRIS = frozenset(v.property_iri(name) for name in AGGREGATE_PROPERTIES)
_EDGE_AGGREGATE_IRIS = frozenset(v.property_iri(name) for name in EDGE_AGGREGATE_PROPERTIES)


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


INDEX_FILE = "statements.idx.gz"
"""Beside the store and the Turtle: the digest of every unit, in the Turtle's order, and the Turtle's
chunks (digest, offset, length, CRC, text length, units), which ``kg add`` and ``kg remove`` compare to
rewrite only what changed."""
_INDEX_FORMAT = 3
"""3: digests by ``marshal`` (``_unit_digest``), and edges state ``kg:support`` once in the Turtle; an
older index is not used (the first update writes everything anew)."""


def write_store(aggregated: Aggregated, path: Path, turtle: Path | None = None, *, index: Path | None = None,
                previous: Path | None = None, own: bytes | None = None) -> int | None:
    """Create the on-disk store at ``path`` (which must not exist) holding the graph with the
    aggregates canned queries look up (``kg.schema.aggregates``).  With ``turtle``, the same pass
    writes the Turtle export there (the project's prefixes, everything but the neighbourhoods), gzip'd
    a chunk of units at a time (``_CHUNK_MASKS``, ``_Segments``); with ``index``, the units' digests and
    the chunks (``INDEX_FILE``).

    A new store is bulk-loaded and compacted (``_load``); returns the statements stored.  With
    ``previous``, a folder holding the store, Turtle and index of the last graph under the same names,
    the store is that one's copy (hard links) with the changed units deleted and written again, the
    Turtle's unchanged chunks are copied compressed and, in a changed chunk, only the changed units'
    Turtle is made: the same outputs as a new store, for the cost of the difference (``kg add``,
    ``kg remove``); returns None.  ``own``: ``own_digests(aggregated.graph)`` if already made.
    """
    usable = previous is not None and index is not None and (previous / path.name).is_dir()
    old = _read_index(previous / index.name) if usable else None  # else everything is written anew
    units = _Units(aggregated, own)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="compaction") as compactor:
        compacted = None
        with contextlib.ExitStack() as stack:
            segments = stack.enter_context(_Segments(turtle, None if old is None else (previous / turtle.name, old.chunks))) if turtle else None
            if old is None:
                stored: int | None = _load(units, path, segments)
            else:
                compacted = _apply(units, old, previous / path.name, path, segments, compactor)
                stored = None
        if index is not None:
            _write_index(index, units.digests, segments.chunks if segments else [])
        if compacted is not None:
            compacted.result()
    return stored


def _load(units: _Units, path: Path, segments: _Segments | None) -> int:
    """Every unit streamed as Turtle to a loader process (:data:`LOADER`) that parses it back, bulk-loads
    and compacts it: a bulk load leaves overlapping files that make each index look-up of a canned query
    several times slower.  Oxigraph's bulk loader buffers about a million statements per thread (~1.4 GB
    on the ICLR 2026 graph); in its own process they do not sit on top of the graph, and the Python side
    makes each statement once for both outputs."""
    with tempfile.TemporaryFile() as errors:
        loader = subprocess.Popen([sys.executable, "-c", LOADER, str(path), str(os.getpid())],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        try:
            try:
                with loader.stdin as feed:  # type: ignore[union-attr]
                    feed.write(_HEADER)
                    for part, chunk, digest in units.chunks():
                        text = _turtle(chunk)
                        feed.write(text)
                        if segments is not None and part != NEIGHBOURHOOD:
                            segments.add(digest, text, len(chunk))
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


def _apply(units: _Units, old: _Index, source: Path, path: Path, segments: _Segments | None,
           compactor: ThreadPoolExecutor) -> Future:
    """The store at ``source`` copied to ``path`` (hard links: its files are immutable), then each unit
    whose digest differs from ``old``'s deleted and written again, and each unit ``old`` has and the
    graph not deleted; the Turtle's chunks written or, unchanged, copied.

    The store is compacted at the end, as a build's is: left with its deletions and ingested files, it
    answered the canned queries about 1.4x slower (median p50) than a fresh build; compacted, as fast
    (see the README).  Compaction is Oxigraph's own work outside the GIL, so it runs on ``compactor``
    while the changed chunks' Turtle (and then the caller's index) is made here; the future it
    returns holds its outcome."""
    ox.Store.read_only(str(source)).backup(str(path))
    store = ox.Store(str(path))
    gone = dict(old.units)
    changed, chunks = [], []
    for part, chunk, digest in units.chunks():
        holders: list[bytes | None] = []
        for unit in chunk:
            before, holder = gone.pop((part, unit.subject), (None, None))
            if before != unit.digest:
                if before is not None:
                    _delete(store, part, unit.subject)
                changed.append(unit)
                holder = None
            holders.append(holder)
        if segments is not None and part != NEIGHBOURHOOD:
            known = segments.previous
            chunks.append((digest, len(chunk), None if digest in known else (chunk, [h if h in known else None for h in holders])))
    for part, subject in gone:
        _delete(store, part, subject)
    # one bulk load: each call starts Oxigraph's loader (about a millisecond)
    store.bulk_extend(ox.Quad(t.subject, t.predicate, t.object) for unit in changed for t in unit.statements())
    store.flush()
    compacted = compactor.submit(store.optimize)
    if segments is not None:
        previous_units = lru_cache(maxsize=8)(lambda holder: _unit_turtles(segments.old_text(holder)))
        for digest, count, made in chunks:
            segments.add(digest, None if made is None else _remade_turtle(*made, previous_units), count)
    return compacted


def _remade_turtle(chunk: list[_Unit], holders: list[bytes | None], previous_units: Callable[[bytes], dict[str, bytes]]) -> bytes:
    """A changed chunk's Turtle: each unchanged unit's text as the previous export has it (in the chunk
    ``holders`` names), each run of changed ones made anew.  A chunk's Turtle is its units' Turtle put
    end to end (each unit's statements are about its own subjects), so the text is what ``_turtle``
    would make of the whole chunk, for a fraction of the statements."""
    texts, run = [], []
    for unit, holder in zip(chunk, holders):
        if holder is None:
            run.append(unit)
            continue
        if run:
            texts.append(_turtle(run))
            run = []
        texts.append(previous_units(holder)[unit.subject])
    if run:
        texts.append(_turtle(run))
    return b"".join(texts)


_SUBJECT = re.compile(rb"^<([^>]*)>", re.MULTILINE)
_EDGE_IRI = v.ID + "edge/"


def _unit_turtles(text: bytes) -> dict[str, bytes]:
    """A chunk's Turtle cut into its units' texts, by subject.  Every statement group begins a line with
    its subject (literals escape their line breaks); an edge's unit is the edge's groups and its evidence
    resources' (``<edge>/ev/<i>``), which alternate."""
    spans: dict[str, list[int]] = {}
    owner = ""
    for m in _SUBJECT.finditer(text):
        subject = m.group(1).decode()
        if owner.startswith(_EDGE_IRI) and (subject == owner or subject.startswith(owner + "/ev/")):
            continue
        if owner:
            spans[owner][1] = m.start()
        owner = subject
        spans[owner] = [m.start(), len(text)]
    return {subject: text[begin:end] for subject, (begin, end) in spans.items()}


def _delete(store: ox.Store, part: str, subject: str) -> None:
    """Delete a unit's statements from ``store``: those about its subject that its part owns
    (``_owned``), with an edge's evidence resources."""
    evidence = _predicate(v.KG + "evidence")
    for quad in list(store.quads_for_pattern(ox.NamedNode(subject), None, None, ox.DefaultGraph())):
        if _owned(part, quad.predicate.value):
            store.remove(quad)
            if quad.predicate == evidence:
                for of_evidence in list(store.quads_for_pattern(quad.object, None, None, ox.DefaultGraph())):
                    store.remove(of_evidence)


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


_HEADER = ox.serialize([ox.Triple(ox.NamedNode("urn:x"), _TYPE, _EDGE)], format=ox.RdfFormat.TURTLE, prefixes=v.PREFIXES).partition(b"<urn:x>")[0]
"""The Turtle's prefix declarations, written once, first."""


def _turtle(chunk: list[_Unit]) -> bytes:
    """A chunk's statements as Turtle without the prefix declarations (``_HEADER``)."""
    text = ox.serialize((t for unit in chunk for t in unit.statements()), format=ox.RdfFormat.TURTLE, prefixes=v.PREFIXES)
    return text[len(_HEADER):] if text else b""


@dataclass
class _Index:
    units: dict[tuple[str, str], tuple[bytes, bytes | None]]
    """(part, subject) -> the unit's digest, and the digest of the Turtle chunk it is in (None: none, a neighbourhood)."""
    chunks: dict[bytes, tuple[int, int, int, int]]
    """Digest -> offset and length of the chunk's segment in the Turtle, its text's CRC-32 and length."""


def _read_index(path: Path) -> _Index | None:
    """The index of the previous graph, or None where there is none to use (then everything is written anew)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            head = json.loads(f.readline())
            if head.get("format") != _INDEX_FORMAT:
                return None
            holders = chain.from_iterable(repeat(bytes.fromhex(d), count) for d, *_, count in head["chunks"])
            units = {}
            for line in f:
                part, subject, digest = line.rstrip("\n").split("\t")
                units[part, v.ID + subject] = (bytes.fromhex(digest), None if part == NEIGHBOURHOOD else next(holders))
    except (OSError, ValueError, EOFError, StopIteration):
        return None
    return _Index(units, {bytes.fromhex(d): (offset, length, crc, size) for d, offset, length, crc, size, _ in head["chunks"]})


def _write_index(path: Path, digests: list[tuple[str, str, bytes]], chunks: list[tuple[bytes, int, int, int, int, int]]) -> None:
    cut = len(v.ID)
    with gzip.GzipFile(filename=str(path), mode="wb", compresslevel=1, mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as f:
        f.write(json.dumps({"format": _INDEX_FORMAT, "chunks": [[d.hex(), *place] for d, *place in chunks]}) + "\n")
        f.writelines(f"{part}\t{subject[cut:]}\t{digest.hex()}\n" for part, subject, digest in digests)


class _Segments:
    """The Turtle export as one gzip member whose deflate stream is a run of independent segments: the
    prefix declarations, then one segment per chunk, each compressed on its own and ended with a full
    flush (no back-reference crosses it, and it ends on a byte), so that a segment of an unchanged chunk
    can be copied from the previous export as it is; the trailer's CRC is combined from the segments'
    (``_crc_combine``).  Any gzip reader reads it as one stream.  Segments are compressed and written
    from a thread (zlib releases the GIL) while the statements are still being made; leaving it waits
    for the thread and raises its error (a full disk) here."""

    def __init__(self, path: Path, previous: tuple[Path, dict[bytes, tuple[int, int, int, int]]] | None) -> None:
        self.export = _open_turtle(path)
        self.previous: dict[bytes, tuple[int, int, int, int]] = {}
        self.old = b""
        if previous is not None and previous[0].exists():
            self.old, self.previous = previous[0].read_bytes(), previous[1]
        self.chunks: list[tuple[bytes, int, int, int, int, int]] = []
        self.queue: queue.Queue[tuple[bytes, bytes | None, int] | None] = queue.Queue(maxsize=256)
        self.error: OSError | None = None
        self.crc, self.size = zlib.crc32(_HEADER), len(_HEADER)
        self.export.write(_GZIP_HEADER + _segment(_HEADER))
        self.thread = threading.Thread(target=self._drain, args=(self.export.tell(),), daemon=True)
        self.thread.start()

    def add(self, digest: bytes, text: bytes | None, units: int) -> None:
        """A chunk of ``units`` units: its Turtle, or None to copy the previous export's segment of this digest."""
        if self.error is not None:
            raise self.error
        self.queue.put((digest, text, units))

    def old_text(self, digest: bytes) -> bytes:
        """The Turtle of the previous export's chunk of this digest."""
        at, length, _, size = self.previous[digest]
        text = zlib.decompressobj(-zlib.MAX_WBITS).decompress(self.old[at:at + length])
        if len(text) != size:
            raise ValueError(f"the previous Turtle's chunk at {at} is {len(text)} bytes long, not {size}")
        return text

    def _drain(self, offset: int) -> None:
        while (item := self.queue.get()) is not None:
            if self.error is None:
                digest, text, units = item
                if text is None:
                    at, length, crc, size = self.previous[digest]
                    segment = self.old[at:at + length]
                else:
                    segment, crc, size = _segment(text), zlib.crc32(text), len(text)
                try:
                    self.export.write(segment)
                except OSError as exc:
                    self.error = exc
                self.chunks.append((digest, offset, len(segment), crc, size, units))
                self.crc, self.size = _crc_combine(self.crc, crc, size), self.size + size
                offset += len(segment)

    def __enter__(self) -> _Segments:
        return self

    def __exit__(self, *raised: object) -> None:
        self.queue.put(None)
        self.thread.join()
        try:
            if self.error is None:
                self.export.write(_FINAL_BLOCK + struct.pack("<II", self.crc, self.size & 0xFFFFFFFF))
        except OSError as exc:
            self.error = exc
        finally:
            self.export.close()
        if self.error is not None:
            raise self.error


_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""A gzip member's header: deflate, no name, no time (the same graph gives the same bytes)."""
_FINAL_BLOCK = b"\x03\x00"
"""An empty last deflate block (fixed Huffman codes), which ends the stream of segments."""
_ZEROS = bytes(1 << 20)


def _segment(text: bytes) -> bytes:
    """``text`` deflated on its own (level 6, as ``kg.stores.open_output``), ended by a full flush."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(text) + compressor.flush(zlib.Z_FULL_FLUSH)


def _crc_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of ``a + b`` from ``crc1`` of ``a``, ``crc2`` of ``b`` and ``b``'s length.  The CRC is
    affine in its register: running ``length2`` zero bytes through the register from ``crc1`` and from
    0 and XOR-ing the two leaves ``a``'s part shifted past ``b``; zlib does the running at C speed.

    Example:
        >>> a, b = b"Turtle ", b"chunk"
        >>> _crc_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(a + b)
        True
    """
    shifted, zero = crc1, 0
    while length2:
        zeros = memoryview(_ZEROS)[:min(length2, len(_ZEROS))]
        shifted, zero = zlib.crc32(zeros, shifted), zlib.crc32(zeros, zero)
        length2 -= len(zeros)
    return shifted ^ zero ^ crc2


def _open_turtle(path: Path) -> BinaryIO:
    return open(path, "wb")


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
