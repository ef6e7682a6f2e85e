"""Latency of every canned query on every backend: p50 and p95 over repeated warm runs.

Usage:
    python bench/queries.py OUT [--runs 20] [--backend embedded --backend python --backend neo4j] [--load]
                            [--query NAME ...]

``OUT`` is a folder written by ``kg build`` (``store/``, ``graph.json.gz``).  Parameters come from
``kg.testing.param_sets`` (the busiest node of the right kind, by name and by id), every set.  Times
include entity resolution and the shared post-processing, as a user sees them.  ``neo4j`` reads the
``NEO4J_*`` settings; ``--load`` first loads the graph there (replacing what the database holds).
Prints one table row per query, parameter set and backend; the target is p95 <= 50 ms on embedded
and Neo4j.  A second table times name resolution alone: a name in other case, an alias, and
misspelt names of one and of several words (which end in "did you mean").
The CPU columns are this process's CPU time: on a shared machine they show the embedded and Python
cost without the wait for a core (for Neo4j the work is in the server, so they show only the driver).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import kg
from kg import queries
from kg.errors import UnknownEntity
from kg.queries.backends import CypherBackend, PythonBackend, SparqlBackend
from kg.testing import param_sets
from kg.queries.spec import Param
from kg.records import ENTITY_LABELS, GraphDocument


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(run: Callable[[], object], runs: int) -> tuple[object, list[float], list[float]]:
    """The first result (a warm-up run: caches, Neo4j query plans, page cache), then wall and CPU ms per run."""
    first = run()
    times, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        run()
        times.append(1000 * (time.perf_counter() - t))
        cpu.append(1000 * (time.process_time() - c))
    return first, times, cpu


def _cells(times: list[float], cpu: list[float]) -> str:
    return (f"{statistics.median(times):>9.1f} {_percentile(times, 0.95):>9.1f}"
            f" {statistics.median(cpu):>9.1f} {_percentile(cpu, 0.95):>9.1f}")


def _misspelt(name: str) -> str:
    """``name`` with two letters in the middle of its longest word swapped."""
    word = max(name.split(), key=len)
    i = len(word) // 2
    return name.replace(word, word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :], 1)


def resolution_cases(doc: GraphDocument) -> list[tuple[str, str]]:
    """(case, value) pairs taken from the busiest entities: one per way a user names an entity."""
    entities = sorted((n for n in doc.nodes if n.label in ENTITY_LABELS), key=lambda n: (-n.support, n.id))
    one_word = next(n.name for n in entities if " " not in n.name and len(n.name) >= 6 and n.name.isalpha())
    several = next(n.name for n in entities if len(n.name.split()) >= 2 and len(max(n.name.split(), key=len)) >= 6)
    cases = [("name, upper case", entities[0].name.upper())]
    alias = next((a for n in entities for a in n.aliases if a.lower() != n.name.lower()), None)
    if alias:
        cases.append(("alias", alias))
    return cases + [("misspelt, one word", _misspelt(one_word)), ("misspelt, several words", _misspelt(several))]


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

        from kg.api import aggregate
        from kg.settings import Settings
        from kg.stores.neo4j import load

        conn = Settings.from_env()
        if args.load:
            load(aggregate(document), conn.neo4j_uri, conn.neo4j_user, conn.neo4j_password, conn.neo4j_database, progress=False)
        driver = neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password))
        connection["neo4j"] = {"driver": driver, "database": conn.neo4j_database}

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
            rows, times, cpu = _timed(run, args.runs)
            print(f"{query.name:<22} {shown:<40} {backend:<9} {len(rows):>5} {_cells(times, cpu)}")

    resolvers = {
        "embedded": lambda: SparqlBackend(graph.store),
        "python": lambda: PythonBackend(connection["python"]["graph"]),
        "neo4j": lambda: CypherBackend(connection["neo4j"]["driver"], connection["neo4j"]["database"]),
    }
    print(f"\n{'resolution':<24} {'value':<38} {'backend':<9} {'p50 ms':>9} {'p95 ms':>9} {'cpu p50':>9} {'cpu p95':>9}  found")
    print("-" * 119)
    for case, value in resolution_cases(document):
        for backend in backends:
            resolver = resolvers[backend]()

            def resolve() -> str:
                try:
                    return queries.resolve(resolver, Param("entity", "entity"), value)
                except UnknownEntity as err:
                    return f"{len(err.suggestions)} suggested"

            found, times, cpu = _timed(resolve, args.runs)
            print(f"{case:<24} {value[:38]:<38} {backend:<9} {_cells(times, cpu)}  {found}")


if __name__ == "__main__":
    main()
