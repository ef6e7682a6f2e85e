"""Neo4j load throughput: nodes/s and relationships/s by phase and batch size, and a no-op reload.

Each batch size gets an emptied database (the empty graph loaded with pruning), a fresh load,
then a second load of the same graph, which must write nothing.

    scripts/neo4j-local start
    python bench/neo4j_load.py                      # synthetic graph, 5,000 papers
    python bench/neo4j_load.py --out out/iclr2026   # a built graph folder (its graph.json)
    python bench/neo4j_load.py --papers 20000 --batch-sizes 1000 10000

Connection from NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD / NEO4J_DATABASE. The database is
emptied of paperkg's labels and types: do not point this at data you want to keep.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from kg.records import GraphDocument
from kg.stores import neo4j as sink
from kg.stores.synthetic import synthetic_graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="built graph folder holding graph.json (default: synthetic)")
    parser.add_argument("--papers", type=int, default=5000, help="papers in the synthetic graph")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[500, 1000, 5000, 10000])
    args = parser.parse_args()

    if args.out:
        from kg.stores.nx import read_node_link

        graph = read_node_link(args.out / "graph.json")
        source = str(args.out)
    else:
        graph = synthetic_graph(args.papers)
        source = f"synthetic, {args.papers} papers"
    conn = sink.Connection.from_env()
    kw = {"uri": conn.uri, "user": conn.user, "password": conn.password, "database": conn.database}
    print(f"graph: {source}: {len(graph.nodes):,} nodes, {len(graph.edges):,} relationships; {conn.uri}")
    load1 = os.getloadavg()[0]
    header = f"{'batch':>6} {'constraints s':>13} {'nodes s':>8} {'nodes/s':>8} {'rels s':>8} {'rels/s':>8} {'prune s':>8} {'total s':>8} {'no-op s':>8}"
    print(header)
    print("-" * len(header))
    for size in args.batch_sizes:
        sink.load(GraphDocument((), ()), **kw, progress=False)  # empty the database
        t = time.perf_counter()
        report = sink.load(graph, **kw, batch_size=size, progress=False)
        total = time.perf_counter() - t
        t = time.perf_counter()
        sink.load(graph, **kw, batch_size=size, progress=False)
        noop = time.perf_counter() - t
        s = report.seconds
        print(
            f"{size:>6} {s['constraints']:>13.2f} {s['nodes']:>8.2f} {len(graph.nodes) / s['nodes']:>8,.0f} "
            f"{s['relationships']:>8.2f} {len(graph.edges) / s['relationships']:>8,.0f} {s['prune']:>8.2f} "
            f"{total:>8.2f} {noop:>8.2f}",
            flush=True,
        )
    print(f"load average (1 min) at start {load1:.1f}, at end {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
