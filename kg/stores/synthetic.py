"""A deterministic ``GraphDocument`` shaped like a real build, of any size, for store tests and benchmarks.

Real builds need the extractor and the corpus; loading tests (the killed-server test) and
``bench/neo4j_load.py`` need many rows with the same mix of labels, types, list properties and
evidence offsets into a real-length abstract, in seconds. Entity reuse follows a skewed draw, as names do in abstracts.
"""

from __future__ import annotations

import random

from kg.records import ENTITY_LABELS, Edge, Evidence, GraphDocument, Node

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
