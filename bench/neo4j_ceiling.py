"""How fast can any Bolt loader create relationships on this machine? The ceiling under kg's loader.

Creates ``--nodes`` nodes with a unique key, then ``--rels`` relationships between them by key
look-up (``UNWIND $rows AS r MATCH (a {key: r.a}) MATCH (b {key: r.b}) CREATE (a)-[:R {...}]->(b)``),
with three property sets: none, one integer, and the shape kg writes on an evidence-bearing edge
(key, support, paper list and seven evidence lists of one element). Each case runs with one writer
and with ``--writers`` concurrent writers over disjoint batches. Prints rels/s and server CPU seconds
per 10,000 relationships (when scripts/neo4j-local runs the server), so the figure does not depend
on what else the machine was doing.

    scripts/neo4j-local start
    python bench/neo4j_ceiling.py [--nodes 100000] [--rels 200000] [--batch 10000] [--writers 2]

The database is emptied of the benchmark's label (:CeilingNode) and type; nothing else is touched.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

from neo4j import GraphDatabase

from neo4j_load import _server_cpu  # bench/ is on sys.path when run as a script

PROPERTY_SETS = {
    "none": "",
    "one int": " {support: r.support}",
    "kg evidence edge": (
        " {key: r.key, support: r.support, evidencePapers: r.papers, sentenceStarts: r.ss, sentenceEnds: r.se,"
        " starts: r.s, ends: r.e, rules: r.rules, confidences: r.conf}"
    ),
}


def rows(n_nodes: int, n_rels: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    return [
        {"a": rng.randrange(n_nodes), "b": rng.randrange(n_nodes), "key": f"r{i}", "support": 1,
         "papers": [f"paper:{i % 20000}"], "ss": [i % 900], "se": [i % 900 + 120], "s": [i % 900 + 10],
         "e": [i % 900 + 25], "rules": ["scierc:ner"], "conf": [0.9]}
        for i in range(n_rels)
    ]


def reset(driver, n_nodes: int) -> None:
    driver.execute_query("CREATE CONSTRAINT ceiling_key IF NOT EXISTS FOR (n:CeilingNode) REQUIRE n.key IS UNIQUE")
    while driver.execute_query("MATCH (:CeilingNode)-[r:CEILING]->() WITH r LIMIT 50000 DELETE r RETURN count(*) AS n")[0][0]["n"]:
        pass
    while driver.execute_query("MATCH (n:CeilingNode) WITH n LIMIT 50000 DELETE n RETURN count(*) AS n")[0][0]["n"]:
        pass
    for start in range(0, n_nodes, 50000):
        driver.execute_query("UNWIND range($start, $end - 1) AS k CREATE (:CeilingNode {key: k})",
                             start=start, end=min(start + 50000, n_nodes))


def load(driver, data: list[dict], props: str, batch: int, writers: int) -> tuple[float, float]:
    query = ("UNWIND $rows AS r MATCH (a:CeilingNode {key: r.a}) MATCH (b:CeilingNode {key: r.b}) "
             f"CREATE (a)-[:CEILING{props}]->(b)")
    batches = [data[i : i + batch] for i in range(0, len(data), batch)]

    def write(chunk: list[dict]) -> None:
        with driver.session() as session:
            session.execute_write(lambda tx: tx.run(query, rows=chunk).consume())

    cpu, started = _server_cpu(), time.perf_counter()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, batches))
    return time.perf_counter() - started, _server_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--rels", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--writers", type=int, default=2)
    args = parser.parse_args()
    auth = (os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ["NEO4J_PASSWORD"]) if os.environ.get("NEO4J_PASSWORD") else None
    data = rows(args.nodes, args.rels)
    print(f"{args.rels:,} relationships between {args.nodes:,} nodes, batch {args.batch:,}, load average {os.getloadavg()[0]:.1f}\n")
    print("| properties | writers | rels/s | seconds | server CPU s per 10k rels |")
    print("|---|---|---|---|---|")
    with GraphDatabase.driver(os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687"), auth=auth) as driver:
        reset(driver, args.nodes)
        load(driver, data[: 2 * args.batch], PROPERTY_SETS["kg evidence edge"], args.batch, 1)  # JIT warm-up
        for name, props in PROPERTY_SETS.items():
            for writers in sorted({1, args.writers}):
                reset(driver, args.nodes)
                seconds, cpu = load(driver, data, props, args.batch, writers)
                print(f"| {name} | {writers} | {args.rels / seconds:,.0f} | {seconds:.1f} | {cpu / args.rels * 1e4:.2f} |",
                      flush=True)
        reset(driver, 0)
        driver.execute_query("DROP CONSTRAINT ceiling_key IF EXISTS")


if __name__ == "__main__":
    main()
