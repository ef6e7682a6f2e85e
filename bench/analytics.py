"""Analytics benchmark: seconds and memory per kg.analytics call on a built graph, networkx alongside.

The issue's target: PageRank + Leiden + trends for every Method within 15 s together and 2 GB of
peak extra memory on the two-corpus graph.  Each call runs once, in the order of the table, after
the graph's records are loaded (their load time and RSS are the first row and the baseline).
``RSS MB`` is the resident size after the call, ``peak +MB`` the process's peak RSS above the
baseline so far (Linux ``ru_maxrss``).  With ``--networkx`` the same questions are asked of
networkx (PageRank, Louvain: networkx has no Leiden, the ``rising_entities`` Python reference for
trends), each stopped after ``--nx-limit`` seconds.

    python bench/analytics.py /tmp/iclr
    python bench/analytics.py /tmp/iclr --networkx --nx-limit 300
"""

from __future__ import annotations

import argparse
import resource
import signal
import time
from collections.abc import Callable
from typing import Any

import kg
from kg import analytics


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimeLimit(Exception):
    pass


def timed(fn: Callable[[], Any], limit: float | None = None) -> tuple[float | None, Any]:
    """Seconds and result of ``fn``; ``None`` seconds when it ran past ``limit``."""
    def stop(*_):
        raise TimeLimit

    if limit:
        signal.signal(signal.SIGALRM, stop)
        signal.alarm(int(limit))
    t0 = time.perf_counter()
    try:
        result = fn()
    except TimeLimit:
        return None, None
    finally:
        if limit:
            signal.alarm(0)
    return time.perf_counter() - t0, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="a built graph folder")
    ap.add_argument("--networkx", action="store_true", help="also time networkx on the same questions")
    ap.add_argument("--nx-limit", type=float, default=300, help="seconds before a networkx call is stopped")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rows: list[tuple[str, str, float | None, str]] = []
    graph = kg.open(args.out)
    seconds, doc = timed(lambda: graph.document)
    base = rss_mb()
    rows.append(("load records (graph.json.gz)", "-", seconds, f"{len(doc.nodes):,} nodes, {len(doc.edges):,} edges"))

    def row(name: str, fn: Callable[[], Any], note: Callable[[Any], str], limit: float | None = None, library: str = "kg") -> None:
        s, result = timed(fn, limit)
        rows.append((name, library, s, note(result) if s is not None else f"stopped after {limit:.0f} s"))
        rows[-1] = rows[-1] + (rss_mb(), peak_mb() - base)  # type: ignore[assignment]
        print(f"  {name}: {s if s is None else round(s, 2)} s", flush=True)

    rows[0] = rows[0] + (base, 0.0)  # type: ignore[assignment]
    core = []
    row("pagerank, every node (typed graph)", lambda: analytics.centrality(doc, top=None), lambda df: f"{len(df):,} ranked")
    core.append(rows[-1][2])
    row("leiden communities (co-occurrence)", lambda: analytics.communities(doc, seed=args.seed),
        lambda df: f"{len(df):,} communities of 2+ entities")
    core.append(rows[-1][2])
    row("trends, every Method", lambda: analytics.trends(doc, type="Method"), lambda df: f"{len(df):,} methods")
    core.append(rows[-1][2])
    row("degree (typed graph)", lambda: analytics.centrality(doc, measure="degree", top=None), lambda df: f"{len(df):,} ranked")
    row("betweenness, 200 sampled sources", lambda: analytics.centrality(doc, measure="betweenness", top=None, sample=200,
                                                                          seed=args.seed), lambda df: f"sample {df.attrs['sample']}")
    busiest = max((n for n in doc.nodes if n.label == "Method"), key=lambda n: (n.support, n.id))
    row(f"similar to {busiest.name!r}", lambda: analytics.similar(doc, busiest.id), lambda df: f"{len(df)} rows")
    row(f"lineage of {busiest.name!r}", lambda: analytics.lineage(doc, busiest.id),
        lambda df: f"{len(df)} edges, {len(df.attrs['cycles'])} cycles")

    if args.networkx:
        import networkx as nx

        from kg.analytics.projections import project
        from kg.queries import run
        from kg.stores.nx import to_networkx

        _, typed = timed(lambda: nx.DiGraph(to_networkx(doc)))
        row("pagerank, every node", lambda: nx.pagerank(typed), lambda r: f"{len(r):,} ranked", args.nx_limit, "networkx")
        p = project(doc, "cooccurrence")
        co = nx.Graph()
        co.add_nodes_from(range(p.graph.vcount()))
        co.add_weighted_edges_from((e.source, e.target, w) for e, w in zip(p.graph.es, p.graph.es["weight"]))
        row("louvain communities (co-occurrence)", lambda: nx.community.louvain_communities(co, weight="weight", seed=args.seed),
            lambda r: f"{len(r):,} communities", args.nx_limit, "networkx")
        multi = to_networkx(doc)
        row("trends, every Method (rising_entities)", lambda: run("rising_entities", {"type": "Method", "limit": 10**9}, "python", graph=multi),
            lambda r: f"{len(r):,} rising", args.nx_limit, "networkx")

    print(f"\n{args.out}: {len(doc.nodes):,} nodes, {len(doc.edges):,} edges; baseline RSS {base:,.0f} MB after loading the records\n")
    print(f"{'call':<46} {'library':<9} {'seconds':>8} {'RSS MB':>8} {'peak +MB':>9}  note")
    for name, library, s, note, rss, peak in rows:  # type: ignore[misc]
        print(f"{name:<46} {library:<9} {'-' if s is None else f'{s:8.2f}':>8} {rss:8,.0f} {peak:9,.0f}  {note}")
    total = sum(core) if None not in core else None
    print(f"\npagerank + leiden + trends (every Method): {total:.2f} s (target 15 s); peak extra memory {peak_mb() - base:,.0f} MB (target 2,048 MB)")


if __name__ == "__main__":
    main()
