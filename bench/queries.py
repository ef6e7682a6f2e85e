"""Latency of every canned query on every backend: p50 and p95 over repeated warm runs.

Usage:
    python bench/queries.py OUT [--runs 20] [--backend embedded --backend python --backend neo4j] [--load]
                            [--query NAME ...]

``OUT`` is a folder written by ``kg build`` (``store/``, ``graph.json``).  Parameters come from
``kg.queries.samples`` (the busiest node of the right kind, by name and by id), every set.  Times
include entity resolution and the shared post-processing, as a user sees them.  ``neo4j`` reads the
``NEO4J_*`` settings; ``--load`` first loads the graph there (replacing what the database holds).
Prints one table row per query and backend; the target is p95 <= 50 ms on embedded and Neo4j.
The CPU columns are this process's CPU time: on a shared machine they show the embedded and Python
cost without the wait for a core (for Neo4j the work is in the server, so they show only the driver).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

import kg
from kg import queries
from kg.queries.samples import param_sets


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--backend", action="append", choices=queries.BACKENDS)
    parser.add_argument("--load", action="store_true", help="load the graph into Neo4j first")
    parser.add_argument("--query", action="append", help="only these queries (default: all)")
    args = parser.parse_args()
    backends = args.backend or ["embedded", "python"]

    graph = kg.open(args.out)
    document = graph.document
    connection: dict[str, dict] = {"embedded": {"store": graph.store}}
    if "python" in backends:
        connection["python"] = {"graph": graph.to_networkx()}
    if "neo4j" in backends:
        import neo4j

        from kg.stores.neo4j import Connection, load

        conn = Connection.from_env()
        if args.load:
            load(document, conn.uri, conn.user, conn.password, conn.database, progress=False)
        driver = neo4j.GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password))
        connection["neo4j"] = {"driver": driver, "database": conn.database}

    samples = param_sets(document)
    # The records (and networkx graph) loaded above are millions of long-lived objects that a `kg query`
    # process never holds: freeze them so the collector does not rescan them during the timed calls.
    gc.freeze()
    print(f"{len(document.nodes)} nodes, {len(document.edges)} edges; {args.runs} warm runs each\n")
    print(f"{'query':<22} {'params':<40} {'backend':<9} {'rows':>5} {'p50 ms':>9} {'p95 ms':>9} {'cpu p50':>9} {'cpu p95':>9}")
    print("-" * 119)
    for query, params in ((q, p) for q in queries.list_queries() for p in samples[q.name]):
        if args.query and query.name not in args.query:
            continue
        shown = " ".join(f"{k}={v}" for k, v in params.items())
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        for backend in backends:
            run = lambda: queries.run(query.name, params, backend, **connection[backend])  # noqa: E731
            rows = run()  # warm-up: resolution caches, Neo4j query plans, page cache
            times, cpu = [], []
            for _ in range(args.runs):
                t, c = time.perf_counter(), time.process_time()
                run()
                times.append(1000 * (time.perf_counter() - t))
                cpu.append(1000 * (time.process_time() - c))
            print(
                f"{query.name:<22} {shown:<40} {backend:<9} {len(rows):>5} {statistics.median(times):>9.1f} {_percentile(times, 0.95):>9.1f}"
                f" {statistics.median(cpu):>9.1f} {_percentile(cpu, 0.95):>9.1f}"
            )


if __name__ == "__main__":
    main()
