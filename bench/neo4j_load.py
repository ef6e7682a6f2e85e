"""Neo4j load throughput: nodes/s and relationships/s by phase and batch size, and reloads.

Each batch size gets an emptied database (the empty graph loaded with pruning), a fresh load,
a second load of the same graph (must write nothing: "no-op"), and a load of the graph with 1%
of its nodes renamed and 1% of its relationships dropped ("1% change"). CPU seconds of the server
(when scripts/neo4j-local runs it) and of this client during the fresh load come beside the times.

    scripts/neo4j-local start
    python bench/neo4j_load.py                      # synthetic graph, 5,000 papers (~40k relationships)
    python bench/neo4j_load.py --papers 37500       # ~300k relationships
    python bench/neo4j_load.py --out out/iclr2026   # a built graph folder (its graph.json.gz)
    python bench/neo4j_load.py --compare /tmp/old_neo4j.py   # also time another version of the sink
    python bench/neo4j_load.py --out /tmp/iclr --bulk --batch-sizes 10000   # the bulk import beside it
    python bench/neo4j_load.py --out /tmp/iclr --bulk --batch-sizes          # the bulk import alone

``--bulk`` adds a table for the offline importer (``kg.stores.neo4j_bulk``; the server must be one
``scripts/neo4j-local`` runs, ``NEO4J_LOCAL_HOME``): first its CSV written by one process and by two
(seconds, and whether the files are the same), then each phase (CSV, import with the swap and
restart, indexes with the empty lists a label scan sets while they populate, the other empty lists
and the format node) and relationships/s end to end, then a diff
load of the same graph on top (it must write nothing) and the 1% change by the diff loader.

``--compare`` takes a file holding an older ``kg/stores/neo4j.py`` (``git show REV:kg/stores/neo4j.py``)
and runs it on the same graph and batch sizes, interleaved, so a before/after ratio comes from one
run on a machine whose load varies. Connection from NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD /
NEO4J_DATABASE. The database is emptied of paperkg's labels and types: do not point this at data
you want to keep.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import logging
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType

from kg.api import aggregate
from kg.records import GraphDocument
from kg.schema.aggregates import Aggregated
from kg.settings import Settings
from kg.stores import neo4j as sink
from kg.testing import synthetic_graph


def small_change(graph: GraphDocument, step: int = 100) -> GraphDocument:
    """Every ``step``-th node renamed and every ``step``-th relationship dropped."""
    nodes = tuple(replace(n, name=f"{n.name} (renamed)") if i % step == 0 else n for i, n in enumerate(graph.nodes))
    edges = tuple(e for i, e in enumerate(graph.edges) if i % step != 1)
    return GraphDocument(nodes, edges, graph.meta)


def _server_cpu() -> float:
    """CPU seconds used so far by the server scripts/neo4j-local started (NaN if it is elsewhere).

    Throughput on a shared machine follows the load average; CPU seconds per phase do not.
    """
    home = Path(os.environ.get("NEO4J_LOCAL_HOME", Path(__file__).resolve().parents[1] / ".neo4j-local"))
    try:
        fields = Path(f"/proc/{int((home / 'neo4j.pid').read_text())}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, ValueError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("neo4j_sink_compared", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _load(module: ModuleType, graph: GraphDocument, aggregated: Aggregated, **kw):
    """Load with ``module``: a sink whose ``load`` takes ``aggregated`` gets the graph with its
    aggregates, computed once before the timing (a build computes them once for every sink); an
    older one computed them itself, inside its timed load."""
    takes_aggregates = next(iter(inspect.signature(module.load).parameters)) == "aggregated"
    return module.load(aggregated if takes_aggregates else graph, **kw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="built graph folder holding graph.json.gz (default: synthetic)")
    parser.add_argument("--papers", type=int, default=5000, help="papers in the synthetic graph")
    parser.add_argument("--batch-sizes", type=int, nargs="*", default=[1000, 10000],
                        help="the diff loader's batch sizes (none: only the bulk table)")
    parser.add_argument("--compare", type=Path, help="an older neo4j.py to time on the same graph")
    parser.add_argument("--bulk", action="store_true", help="also time the bulk import (restarts the server)")
    args = parser.parse_args()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # older sinks draw warnings

    if args.out:
        from kg.stores.nx import read_node_link

        graph = read_node_link(args.out / "graph.json.gz")
        source = str(args.out)
    else:
        graph = synthetic_graph(args.papers)
        source = f"synthetic, {args.papers} papers"
    changed = small_change(graph)
    t = time.perf_counter()
    aggregated = aggregate(graph)
    seconds_aggregate = time.perf_counter() - t
    changed_aggregated = aggregate(changed)
    empty = GraphDocument((), ())
    empty_aggregated = aggregate(empty)
    sinks = {"current": sink} | ({args.compare.name: _module(args.compare)} if args.compare else {})
    conn = Settings.from_env()
    kw = {"uri": conn.neo4j_uri, "user": conn.neo4j_user, "password": conn.neo4j_password, "database": conn.neo4j_database}
    print(f"graph: {source}: {len(graph.nodes):,} nodes, {len(graph.edges):,} relationships; {conn.neo4j_uri}")
    print(f"aggregates: {seconds_aggregate:.1f} s, computed once per build for every sink, outside the times below")
    load1 = os.getloadavg()[0]
    header = (
        f"{'sink':>16} {'batch':>6} {'constr. s':>9} {'nodes s':>8} {'nodes/s':>8} {'rels s':>8} {'rels/s':>8} "
        f"{'prune s':>8} {'total s':>8} {'srv cpu':>8} {'cli cpu':>8} {'no-op s':>8} {'1% chg s':>8}"
    )
    if args.batch_sizes:
        print(header)
        print("-" * len(header))
    for size in args.batch_sizes:
        for name, module in sinks.items():
            _load(module, empty, empty_aggregated, **kw, progress=False)  # empty the database
            t, server, client = time.perf_counter(), _server_cpu(), time.process_time()
            report = _load(module, graph, aggregated, **kw, batch_size=size, progress=False)
            total = time.perf_counter() - t
            server, client = _server_cpu() - server, time.process_time() - client
            t = time.perf_counter()
            _load(module, graph, aggregated, **kw, batch_size=size, progress=False)
            noop = time.perf_counter() - t
            t = time.perf_counter()
            _load(module, changed, changed_aggregated, **kw, batch_size=size, progress=False)
            change = time.perf_counter() - t
            s = report.seconds
            print(
                f"{name:>16} {size:>6} {s['constraints']:>9.2f} {s['nodes']:>8.2f} {len(graph.nodes) / s['nodes']:>8,.0f} "
                f"{s['relationships']:>8.2f} {len(graph.edges) / s['relationships']:>8,.0f} {s['prune']:>8.2f} "
                f"{total:>8.2f} {server:>8.1f} {client:>8.1f} {noop:>8.2f} {change:>8.2f}",
                flush=True,
            )
    if args.bulk:
        _bulk_table(graph, aggregated, changed_aggregated, conn, kw)
    print(f"load average (1 min) at start {load1:.1f}, at end {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores")


def _bulk_table(graph: GraphDocument, aggregated: Aggregated, changed: Aggregated, conn: Settings, kw: dict) -> None:
    """One bulk import (over whatever the database holds), then the diff loader on top of it; the
    aggregates are computed before the timing, as for the diff loader's rows."""
    from kg.api import load_neo4j

    _csv_by_processes(aggregated)
    phases = ("csv", "import", "start", "indexes", "finish")
    header = f"{'sink':>16} " + " ".join(f"{p + ' s':>9}" for p in phases) + f" {'total s':>8} {'rels/s':>8} {'no-op s':>8} {'1% chg s':>8}"
    print()
    print(header)
    print("-" * len(header))
    t = time.perf_counter()
    report = load_neo4j(aggregated, conn, bulk=True, overwrite=True)
    total = time.perf_counter() - t
    t = time.perf_counter()
    sink.load(aggregated, **kw, progress=False)
    noop = time.perf_counter() - t
    t = time.perf_counter()
    sink.load(changed, **kw, progress=False)
    change = time.perf_counter() - t
    print(
        f"{'bulk':>16} " + " ".join(f"{report.seconds.get(p, 0.0):>9.2f}" for p in phases)
        + f" {total:>8.2f} {len(graph.edges) / total:>8,.0f} {noop:>8.2f} {change:>8.2f}",
        flush=True,
    )


def _csv_by_processes(aggregated: Aggregated) -> None:
    """The importer's CSV written by one process and by two, one after the other: seconds each and
    whether the files are the same byte for byte."""
    import shutil
    import tempfile

    from kg.stores.neo4j_bulk import write_csv

    root = Path(tempfile.mkdtemp(prefix="kg-bench-csv-"))
    try:
        seconds, files = {}, {}
        for jobs in (1, 2):
            t = time.perf_counter()
            files[jobs] = write_csv(aggregated, root / str(jobs), jobs=jobs)
            seconds[jobs] = time.perf_counter() - t
        names = files[1].nodes + files[1].relationships
        same = names == files[2].nodes + files[2].relationships and all(
            (root / "1" / n).read_bytes() == (root / "2" / n).read_bytes() for n in names)
        print(f"\nimporter CSV: one process {seconds[1]:.2f} s, two processes {seconds[2]:.2f} s "
              f"(ratio {seconds[2] / seconds[1]:.2f}); the same files: {'yes' if same else 'NO'}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
