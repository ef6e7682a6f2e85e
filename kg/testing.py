"""Graphs and parameters for tests and benchmarks, in one place (a build never uses them).

``synthetic_graph``: a deterministic ``GraphDocument`` shaped like a real build, of any size.  Real
builds need the extractor and the corpus; loading tests (the killed-server test) and
``bench/neo4j_load.py`` need many rows with the same mix of labels, types, list properties and
evidence offsets into a real-length abstract, in seconds.  Entity reuse follows a skewed draw, as
names do in abstracts.

``param_sets``: parameters for every canned query, chosen from the graph itself so that each finds
something; the parity tests and ``bench/queries.py`` run every query with them on any built graph.
The busiest node of the right kind is picked (most edges of the types the query follows, then most
papers, then smallest id), so the same rule serves the fixture, the seeds and a corpus slice.  Busy
nodes are given both by name and by id, to exercise resolution on every backend and so that a name
resolving to another node cannot go unnoticed in the benchmark (it reports every set).
``co_occurring`` also runs on the busiest entity whose co-occurrences are counted, not stored.

``mutate``: an abstract with hostile pieces spliced in (LaTeX, Markdown, URLs, mixed scripts, characters
above U+FFFF, control characters, huge tokens, unbalanced ``$`` and braces), for the fuzz tests'
hypothesis strategies and ``bench/fuzz.py`` alike.

``output_digest``: one hash of a built folder's content, so that fault tests and ``bench/faults.py``
can say a graph survived a killed build byte for byte, or that a rerun equals a clean build, and the
update tests that ``kg add`` / ``kg remove`` leave what a build of the final set of papers writes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Collection, Iterable
from pathlib import Path

from kg.records import ENTITY_LABELS, METHOD_LABELS, Abstract, Edge, Evidence, GraphDocument, Node
from kg.schema.aggregates import CO_OCCURRING_MIN_PAPERS

SENTENCE = "In this paper we study an entity and show a result about it with a long sentence of context. "
_ENTITY_EDGES = ("USES", "EVALUATED_ON", "MEASURED_BY", "OUTPERFORMS", "IS_A", "PART_OF", "COMPARED_WITH")


def synthetic_graph(papers: int, seed: int = 0) -> GraphDocument:
    """About 1.8 nodes and 6 relationships per paper, every edge type and node label present.

    Example:
        >>> g = synthetic_graph(50)
        >>> len(g.nodes) > 50 and len(g.edges) > 200
        True
        >>> synthetic_graph(50) == g
        True
    """
    rng = random.Random(seed)
    pool = max(8, papers // 2)
    nodes: dict[str, Node] = {}
    edges: dict[str, Edge] = {}
    entity_papers: dict[str, set[str]] = {}

    def entity() -> str:
        label = ENTITY_LABELS[rng.randrange(len(ENTITY_LABELS))]
        k = int(pool * rng.random() ** 3)  # skewed: a few names are everywhere
        nid = f"{label.lower()}:entity {k}"
        entity_papers.setdefault(nid, set())
        if nid not in nodes:
            nodes[nid] = Node(nid, label, f"Entity {k}", aliases=(f"E{k}",))
        return nid

    def evidence(paper: str, i: int) -> Evidence:
        start = i * len(SENTENCE)
        return Evidence(paper, start + 3, start + 16, start, start + len(SENTENCE) - 1, "synthetic.v1", round(0.5 + rng.random() / 2, 3))

    def add_edge(source: str, target: str, edge_type: str, paper: str, i: int) -> None:
        key = f"{source}|{edge_type}|{target}"
        old = edges.get(key)
        ev = (old.evidence if old else ()) + (evidence(paper, i),)
        edges[key] = Edge(source, target, edge_type, ev)

    for p in range(papers):
        pid = f"paper:p{p:07d}"
        nodes[pid] = Node(
            pid, "Paper", f"Paper {p}", papers=(pid,),
            properties={"title": f"Paper {p}", "year": 2026, "venue": "ICLR", "keywords": ["graphs", "bounds"], "abstract": SENTENCE * 4},
        )
        ents = [entity() for _ in range(4)]
        for i, e in enumerate(ents):
            entity_papers[e].add(pid)
            add_edge(pid, e, "MENTIONS", pid, i)
        add_edge(pid, ents[0], "PROPOSES", pid, 0)
        add_edge(pid, ents[1], "ADDRESSES", pid, 1)
        add_edge(ents[0], ents[2], _ENTITY_EDGES[p % len(_ENTITY_EDGES)], pid, 2)
        if p % 3 == 0:
            bid = f"bound:{pid}:0"
            nodes[bid] = Node(
                bid, "Bound", "O(√T)", papers=(pid,), mentions=1,
                properties={"expression": "O(sqrt(T))", "notation": "O", "quantity": "regret", "paper": pid},
            )
            add_edge(pid, bid, "STATES_BOUND", pid, 3)
            add_edge(bid, ents[0], "BOUNDS", pid, 3)
            if p >= 3:
                add_edge(bid, f"bound:paper:p{p - 3:07d}:0", "IMPROVES_ON", pid, 3)

    for nid, ps in entity_papers.items():
        n = nodes[nid]
        nodes[nid] = Node(n.id, n.label, n.name, n.aliases, tuple(sorted(ps)), len(ps), n.properties)
    return GraphDocument(
        tuple(nodes[k] for k in sorted(nodes)),
        tuple(edges[k] for k in sorted(edges)),
        {"extractor": "synthetic.v1"},
    )


PLANTED_TYPES = ("Method", "Problem", "Dataset", "Model")


def planted_graph(groups: int = 4, entities: int = 6, papers: int = 30, cross: float = 0.0, seed: int = 0) -> GraphDocument:
    """A planted partition for the analytics: ``groups`` areas of ``entities`` names each, every
    paper naming three names of one area (and, with probability ``cross``, one of another area).

    Entity ``i`` of area ``g`` is ``<type>:area g entity i`` (types cycle Method, Problem, Dataset,
    Model).  Papers are spread over 2018-2025.  Chains for ``lineage``: in area 0 entity 0
    OUTPERFORMS 1, 1 OUTPERFORMS 2, 2 OUTPERFORMS 3 (a chain of four); in area 1, 0 and 1
    OUTPERFORM each other (a cycle).

    Example:
        >>> doc = planted_graph(groups=2, entities=4, papers=5)
        >>> sum(n.label == "Paper" for n in doc.nodes), sum(e.type == "OUTPERFORMS" for e in doc.edges)
        (10, 5)
    """
    rng = random.Random(seed)
    nodes: dict[str, Node] = {}
    edges: dict[str, Edge] = {}
    entity_papers: dict[str, list[str]] = {}

    def eid(g: int, i: int) -> str:
        return f"{PLANTED_TYPES[i % len(PLANTED_TYPES)].lower()}:area {g} entity {i}"

    def add_edge(source: str, target: str, edge_type: str, paper: str) -> None:
        key = f"{source}|{edge_type}|{target}"
        ev = (edges[key].evidence if key in edges else ()) + (Evidence(paper, 0, 6, 0, len(SENTENCE) - 1, "planted.v1", 1.0),)
        edges[key] = Edge(source, target, edge_type, ev)

    for g in range(groups):
        for i in range(entities):
            entity_papers[eid(g, i)] = []
    for g in range(groups):
        for k in range(papers):
            pid = f"paper:area{g}-{k:04d}"
            nodes[pid] = Node(pid, "Paper", f"Area {g} paper {k}", papers=(pid,),
                              properties={"title": f"Area {g} paper {k}", "year": 2018 + (k * 8) // papers, "abstract": SENTENCE})
            named = [eid(g, i) for i in rng.sample(range(entities), min(3, entities))]
            if groups > 1 and rng.random() < cross:
                named.append(eid((g + 1 + rng.randrange(groups - 1)) % groups, rng.randrange(entities)))
            for e in named:
                entity_papers[e].append(pid)
                add_edge(pid, e, "MENTIONS", pid)
    first = f"paper:area0-{0:04d}"
    for a, b in ((0, 1), (1, 2), (2, 3)):
        add_edge(eid(0, a), eid(0, b), "OUTPERFORMS", first)
    if groups > 1:
        add_edge(eid(1, 0), eid(1, 1), "OUTPERFORMS", f"paper:area1-{0:04d}")
        add_edge(eid(1, 1), eid(1, 0), "OUTPERFORMS", f"paper:area1-{0:04d}")
    for nid, ps in entity_papers.items():
        label, name = nid.split(":", 1)
        nodes[nid] = Node(nid, label.capitalize(), name.capitalize(), papers=tuple(sorted(ps)), mentions=len(ps))
    return GraphDocument(tuple(nodes[k] for k in sorted(nodes)), tuple(edges[k] for k in sorted(edges)), {"extractor": "planted.v1"})


def param_sets(doc: GraphDocument) -> dict[str, list[dict]]:
    """Query name -> parameter sets to run it with."""
    degree: Counter[tuple[str, str, str]] = Counter()
    for e in doc.edges:
        degree[(e.type, "out", e.source)] += 1
        degree[(e.type, "in", e.target)] += 1
    nodes = {n.id: n for n in doc.nodes}

    def best(labels: tuple[str, ...], *keys: tuple[str, str], skip: Collection[str] = ()) -> str:
        candidates = [n for n in doc.nodes if n.label in labels and n.id not in skip]
        if not candidates:
            raise ValueError(f"the graph has no {' or '.join(labels)} node to sample a parameter from")
        return min(candidates, key=lambda n: (-sum(degree[(*k, n.id)] for k in keys), -n.support, n.id)).id

    def name(node_id: str) -> str:
        return nodes[node_id].name

    problem = best(("Problem",), ("ADDRESSES", "in"))
    method = best(METHOD_LABELS, ("ADDRESSES", "out"), ("PROPOSES", "in"))
    rival = best(METHOD_LABELS, ("OUTPERFORMS", "out"), ("OUTPERFORMS", "in"))
    dataset = best(("Dataset",), ("EVALUATED_ON", "in"))
    evaluated = best(METHOD_LABELS, ("EVALUATED_ON", "out"))
    bounded = best(("Problem", *METHOD_LABELS), ("BOUNDS", "in"))
    entity = best(ENTITY_LABELS, ("MENTIONS", "in"))
    other = best(("Problem",), ("MENTIONS", "in"), skip=(entity,))
    quiet = best(ENTITY_LABELS, ("MENTIONS", "in"), skip={n.id for n in doc.nodes if n.support >= CO_OCCURRING_MIN_PAPERS})
    rare = max((n for n in doc.nodes if n.label in ENTITY_LABELS), key=lambda n: (-n.support, n.id)).id
    paper = best(("Paper",), ("MENTIONS", "out"))
    years = sorted({n.properties["year"] for n in doc.nodes if n.label == "Paper" and n.properties.get("year")}) or [2026]
    areas = Counter(n.properties.get("primaryArea") for n in doc.nodes if n.label == "Paper" and n.properties.get("primaryArea"))
    area = min(areas, key=lambda a: (-areas[a], a)) if areas else "optimization"
    quantities = Counter(n.properties.get("quantity") for n in doc.nodes if n.label == "Bound")
    achiever = best(METHOD_LABELS, ("ACHIEVED_BY", "in"))
    baseline = best(METHOD_LABELS, ("AGAINST", "in"))
    board = best(("Dataset",), ("ON_DATASET", "in"))
    on_board = {e.source for e in doc.edges if e.type == "ON_DATASET" and e.target == board}
    scored = Counter(e.target for e in doc.edges if e.type == "ON_METRIC" and e.source in on_board)
    metric = min(scored, key=lambda m: (-scored[m], m)) if scored else best(("Metric",), ("ON_METRIC", "in"))
    return {
        "methods_for_problem": [{"problem": name(problem)}, {"problem": problem, "limit": 3}],
        "problems_for_method": [{"method": name(method)}, {"method": method}],
        "top_entities": [{"type": "Method"}, {"type": "problem", "limit": 5}],
        "co_occurring": [{"entity": name(entity)}, {"entity": entity, "type": "Method", "limit": 5}, {"entity": quiet}],
        "papers_for_entity": [{"entity": name(entity), "limit": 10}, {"entity": entity}],
        "paper_profile": [{"paper": paper}, {"paper": nodes[paper].properties.get("title") or paper}],
        "bounds_for_problem": [{"problem": bounded}, {"problem": bounded, "quantity": min(quantities) if quantities else "time"}],
        "bound_improvements": [{}],
        "bound_gaps": [{}],
        "outperforms": [{"method": name(rival)}, {"method": rival, "limit": 10}],
        "datasets_for_method": [{"method": evaluated}],
        "methods_on_dataset": [{"dataset": name(dataset)}],
        "new_in_corpus": [{"type": "Method", "year": years[-1]}, {"type": "Problem", "year": years[0]}],
        "rising_entities": [{"type": "Method"}, {"type": "Problem", "since": years[-1], "limit": 10}],
        "similar_papers": [{"paper": paper, "k": 5}],
        "connection": [{"a": entity, "b": other}, {"a": name(rare), "b": problem}],
        "area_overview": [{"primary_area": area, "top": 5}],
        "leaderboard": [{"dataset": name(board), "metric": name(metric)}, {"dataset": board, "metric": metric, "limit": 1}],
        "results_for_method": [{"method": name(achiever)}, {"method": achiever, "limit": 2}],
        "claims_over_baseline": [{"baseline": name(baseline)}],
    }


def output_digest(out: str | Path) -> str:
    """SHA-256 of a build's outputs: the files (the kept extraction records too, where there are
    any), the store's statements (sorted: its files are not byte-stable) and the summary without its
    timings.  ``kg add`` and ``kg remove`` must leave the digest a build of the final set of papers has."""
    from kg.stores.rdf import open_store

    out = Path(out)
    digest = hashlib.sha256()
    for name in ("graph.ttl.gz", "statements.idx.gz", "graph.json.gz", "explorer.html"):
        digest.update(name.encode() + b"\0" + (out / name).read_bytes())
    if (out / "extractions.jsonl.gz").exists():
        digest.update(b"extractions.jsonl.gz\0" + (out / "extractions.jsonl.gz").read_bytes())
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    summary.pop("seconds", None)
    digest.update(json.dumps(summary, sort_keys=True).encode())
    for quad in sorted(str(q) for q in open_store(out / "store")):
        digest.update(quad.encode() + b"\n")
    return digest.hexdigest()


MUTATION_PIECES = (
    "$\\tilde{O}(\\sqrt{T})$", "$O(n^{2/3} \\log n$", "$$", "$", "{", "}}", "\\frac{1}{", "\\", "\\begin{align}",
    "**bold**", "_x_", "`code`", "# Heading\n", "[link](http://x.y/(a)", "<sub>2</sub>", "<script>alert(1)</script>",
    "https://github.com/a/b?x=1&y=%20", "doi:10.1000/182", "ImageNet-1k", "GPT-4o", "O(1)", "95.1%", "±0.3",
    "模型", "مدل", "モデル", "Ж", "𝒪", "𝔼", "𝒞", "🚀", "👩‍🔬", "a\u0308", "\u200b", "\u2028", "\u0085",
    "\x02", "\x00", "\t", "\n\n", "\r", "\ufeff", "\ufffd", "x" * 5000, "(" * 200, "1e308", "-0",
)
"""What ``mutate`` splices in: the shapes that have broken readers, tokenizers and offset arithmetic."""


def mutate(text: str, rng: random.Random, edits: int = 4) -> str:
    """``text`` with ``edits`` random insertions, deletions, duplications or case flips.

    Example:
        >>> mutate("We propose a method.", random.Random(1)) != "We propose a method."
        True
    """
    for _ in range(edits):
        at = rng.randint(0, len(text))
        kind = rng.randrange(4)
        if kind == 0:
            text = text[:at] + rng.choice(MUTATION_PIECES) + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + rng.randint(1, 40):]
        elif kind == 2:
            text = text[:at] + text[at : at + 200] * rng.randint(2, 5) + text[at:]
        else:
            text = text[:at] + text[at : at + 50].swapcase() + text[at + 50:]
    return text


def write_jsonl(path: Path, abstracts: Iterable[Abstract]) -> Path:
    """The abstracts as a JSONL source with every field the reader takes (an update's input)."""
    with Path(path).open("w", encoding="utf-8") as f:
        for a in abstracts:
            f.write(json.dumps({"id": a.id, "title": a.title, "abstract": a.text, "year": a.year, "venue": a.venue,
                                "primary_area": a.primary_area, "decision": a.decision, "openreview_url": a.url,
                                "keywords": list(a.keywords), "authors": list(a.authors)}, ensure_ascii=False) + "\n")
    return Path(path)
