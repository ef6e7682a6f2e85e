"""What improves on what: OUTPERFORMS and IMPROVES_ON chains as a DAG, and the best known bounds.

Extraction can claim both "A beats B" and "B beats A"; such cycles are reported (``in_cycle`` and
``df.attrs["cycles"]``) rather than broken silently, and levels are computed on the graph of
strongly connected components, which is always a DAG.
"""

from __future__ import annotations

from types import SimpleNamespace

import igraph as ig
import pandas as pd

from kg.records import GraphDocument

CHAIN_TYPES = ("OUTPERFORMS", "IMPROVES_ON")


def lineage(doc: GraphDocument, entity: str, types: tuple[str, ...] = CHAIN_TYPES) -> pd.DataFrame:
    """Every chain edge connected to ``entity`` (a node id) through chain edges, in either direction.

    Columns: source, source_name, target, target_name, type, papers, level (the source's level:
    0 for what nothing in the lineage beats, growing towards what is beaten), in_cycle.
    ``df.attrs["cycles"]`` lists each cycle's node ids (sorted); ``df.attrs["entity"]`` the start.
    """
    names = {n.id: n.name for n in doc.nodes}
    chain = [e for e in doc.edges if e.type in types]
    adjacent: dict[str, set[str]] = {}
    for e in chain:
        adjacent.setdefault(e.source, set()).add(e.target)
        adjacent.setdefault(e.target, set()).add(e.source)
    seen, todo = {entity}, [entity]
    while todo:
        for other in adjacent.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    edges = sorted((e for e in chain if e.source in seen), key=lambda e: (e.source, e.type, e.target))
    ids = sorted(seen)
    index = {n: i for i, n in enumerate(ids)}
    g = ig.Graph(n=len(ids), edges=[(index[e.source], index[e.target]) for e in edges], directed=True)
    components = g.connected_components(mode="strong")
    component = components.membership
    cyclic = {c for c, members in enumerate(components) if len(members) > 1}
    cyclic |= {component[index[e.source]] for e in edges if e.source == e.target}
    dag = components.cluster_graph(combine_edges=False).simplify()
    level = [0] * dag.vcount()
    for v in dag.topological_sorting():
        for w in dag.successors(v):
            level[w] = max(level[w], level[v] + 1)
    df = pd.DataFrame(
        [{"source": e.source, "source_name": names.get(e.source, e.source), "target": e.target,
          "target_name": names.get(e.target, e.target), "type": e.type, "papers": e.support,
          "level": level[component[index[e.source]]], "in_cycle": component[index[e.source]] in cyclic
          and component[index[e.source]] == component[index[e.target]]} for e in edges],
        columns=["source", "source_name", "target", "target_name", "type", "papers", "level", "in_cycle"],
    )
    df.attrs.update(entity=entity, cycles=sorted(sorted(ids[i] for i, c in enumerate(component) if c == k) for k in cyclic))
    return df


def frontier(doc: GraphDocument, problem: str, quantity: str | None = None) -> pd.DataFrame:
    """The bounds stated for ``problem`` (a node id), with the best known ones marked (``kg.complexity.frontier``).

    Columns: bound, expression, unicode, notation, quantity, role, paper, year, frontier (no
    upper bound on the same quantity is better); frontier rows first.  The same rows as the
    ``bounds_for_problem`` query.
    """
    from kg.complexity import frontier as best

    by_id = {n.id: n for n in doc.nodes}
    stated = {e.target: e.source for e in doc.edges if e.type == "STATES_BOUND"}
    rows = []
    for e in doc.edges:
        node = by_id.get(e.source)
        if e.type != "BOUNDS" or e.target != problem or node is None or node.label != "Bound":
            continue
        p = node.properties
        if p.get("quantity") is None or (quantity is not None and p["quantity"] != quantity):
            continue
        paper = stated.get(node.id)
        rows.append({"bound": node.id, "expression": p.get("expression"), "unicode": p.get("unicode"),
                     "notation": p.get("notation"), "quantity": p.get("quantity"), "role": p.get("role"), "paper": paper,
                     "year": by_id[paper].properties.get("year") if paper in by_id else None})
    kept = {b.bound for group in best([SimpleNamespace(**r, subject="", text=r["expression"] or "") for r in rows]).values()
            for b in group}
    df = pd.DataFrame([r | {"frontier": r["bound"] in kept} for r in rows],
                      columns=["bound", "expression", "unicode", "notation", "quantity", "role", "paper", "year", "frontier"])
    return df.sort_values(["frontier", "quantity", "role", "bound"], ascending=[False, True, True, True], kind="stable").reset_index(drop=True)
