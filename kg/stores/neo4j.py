"""Neo4j sink: load a ``GraphDocument`` into a live Neo4j 5 server, idempotently and in batches.

The load mirrors the graph: after it, the database holds exactly the graph's nodes (by label)
and relationships (by type), with the properties of :func:`kg.schema.node_properties` and
:func:`kg.schema.edge_properties`, whatever was loaded before. Nodes and relationships of our
labels and types that are no longer in the graph are deleted (``prune=True``); other labels
and types in the same database are left alone.

Phases, each in batched write transactions (the driver retries transient failures, with
backoff, for ``retry_seconds``):

1. one uniqueness constraint on ``id`` per label (``IF NOT EXISTS``), which also indexes MERGE;
2. ``UNWIND $rows AS row MERGE (n:Label {id: row.id}) SET n = row.props`` per label, returning
   each node's element id;
3. ``UNWIND $rows AS row MATCH (a), (b) by element id MERGE (a)-[r:TYPE]->(b) SET r = row.props``
   per type;
4. prune what the graph no longer has.

``SET n = row.props`` (not ``+=``) so a property dropped by a rebuild disappears too, and only
when the properties differ, so a second load of the same graph writes nothing. Labels
and types enter query text only after :func:`kg.schema.check_label` /
:func:`kg.schema.check_edge_type`; every value is a parameter. A load killed half-way leaves
a subset that the next load completes: MERGE on the unique ``id`` cannot duplicate.

The ``neo4j`` driver is imported here, and this module is imported only on use, so
``import kg`` stays light.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import neo4j
from neo4j import exceptions as nex

from kg.errors import SinkError
from kg.records import GraphDocument
from kg.schema import EDGE_TYPES, NODE_LABELS, check_edge_type, check_label, edge_properties, node_properties
from kg.stores import WriteReport, graph_counts

log = logging.getLogger(__name__)

DEFAULT_URI = "bolt://127.0.0.1:7687"


@dataclass(frozen=True, slots=True)
class Connection:
    """Where to load: Neo4j's own setting names; the password is kept out of ``repr``."""

    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: str = field(default="", repr=False)
    database: str = "neo4j"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Connection:
        """Read ``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``.

        Example:
            >>> Connection.from_env({"NEO4J_PASSWORD": "s3cret-pass"})
            Connection(uri='bolt://127.0.0.1:7687', user='neo4j', database='neo4j')
        """
        env = os.environ if environ is None else environ
        return cls(
            uri=env.get("NEO4J_URI") or DEFAULT_URI,
            user=env.get("NEO4J_USERNAME") or "neo4j",
            password=env.get("NEO4J_PASSWORD", ""),
            database=env.get("NEO4J_DATABASE") or "neo4j",
        )


# -- query builders: text only, names checked against the schema's allow-list ---------------


def constraint_query(label: str) -> str:
    """Uniqueness of ``id`` per label; also the index every MERGE and MATCH below uses.

    Example:
        >>> constraint_query("Paper")
        'CREATE CONSTRAINT paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE'
    """
    check_label(label)
    return f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"


def node_merge_query(label: str) -> str:
    """One batch of nodes of one label: rows are ``{id, props}``; returns each row's element id.

    Properties are written only when they differ, so a no-op reload writes nothing.

    Example:
        >>> node_merge_query("Method")  # doctest: +NORMALIZE_WHITESPACE
        'UNWIND $rows AS row MERGE (n:Method {id: row.id})
         FOREACH (_ IN CASE WHEN properties(n) <> row.props THEN [1] ELSE [] END | SET n = row.props)
         RETURN row.id AS id, elementId(n) AS eid'
    """
    check_label(label)
    return (
        f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) "
        "FOREACH (_ IN CASE WHEN properties(n) <> row.props THEN [1] ELSE [] END | SET n = row.props) "
        "RETURN row.id AS id, elementId(n) AS eid"
    )


def edge_merge_query(edge_type: str) -> str:
    """One batch of relationships of one type: rows ``{a, b, props}``, ``a``/``b`` element ids.

    The endpoints are found by the element ids the node phase returned, so one query per type
    serves every (source label, target label) pair: far fewer query plans than one per label
    pair, and a direct lookup instead of two index seeks. There is one edge per (source,
    type, target) (``Edge.key``), so MERGE on the pattern alone is exact.

    Example:
        >>> edge_merge_query("MENTIONS")  # doctest: +NORMALIZE_WHITESPACE
        'UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.a MATCH (b) WHERE elementId(b) = row.b
         MERGE (a)-[r:MENTIONS]->(b)
         FOREACH (_ IN CASE WHEN properties(r) <> row.props THEN [1] ELSE [] END | SET r = row.props)'
    """
    check_edge_type(edge_type)
    return (
        "UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.a MATCH (b) WHERE elementId(b) = row.b "
        f"MERGE (a)-[r:{edge_type}]->(b) "
        "FOREACH (_ IN CASE WHEN properties(r) <> row.props THEN [1] ELSE [] END | SET r = row.props)"
    )


def keys_query(name: str) -> str:
    """Identity and element id of every node of a label (``id``) or relationship of a type (``key``).

    Pruning diffs these against the graph in Python: ``WHERE NOT n.id IN $ids`` would compare
    each node with the whole list.

    Example:
        >>> keys_query("Bound")
        'MATCH (x:Bound) RETURN x.id AS key, elementId(x) AS eid'
        >>> keys_query("USES")
        'MATCH ()-[x:USES]->() RETURN x.key AS key, elementId(x) AS eid'
    """
    if name in EDGE_TYPES:
        return f"MATCH ()-[x:{check_edge_type(name)}]->() RETURN x.key AS key, elementId(x) AS eid"
    return f"MATCH (x:{check_label(name)}) RETURN x.id AS key, elementId(x) AS eid"


DELETE_NODES = "UNWIND $rows AS eid MATCH (n) WHERE elementId(n) = eid DETACH DELETE n"
DELETE_RELATIONSHIPS = "UNWIND $rows AS eid MATCH ()-[r]->() WHERE elementId(r) = eid DELETE r"


# -- rows -------------------------------------------------------------------------------------


def node_rows(graph: GraphDocument) -> dict[str, list[dict[str, Any]]]:
    """Rows per label, in the graph's (sorted) order."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for node in graph.nodes:
        rows[check_label(node.label)].append({"id": node.id, "props": node_properties(node)})
    return dict(rows)


def edge_rows(graph: GraphDocument, element_ids: Mapping[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Rows per type, endpoints as the element ids the node phase returned."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for edge in graph.edges:
        row = {"a": element_ids[edge.source], "b": element_ids[edge.target], "props": edge_properties(edge)}
        rows[check_edge_type(edge.type)].append(row)
    return dict(rows)


def _batches(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


# -- errors -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _clear_errors(uri: str, user: str, database: str) -> Iterator[None]:
    """Turn driver errors into one ``SinkError`` that names the problem and the way out."""
    try:
        yield
    except SinkError:
        raise
    except nex.AuthError as e:
        raise SinkError(
            f"Neo4j at {uri} rejected the credentials of user {user!r} ({e.code or 'auth error'}); "
            "check NEO4J_USERNAME and NEO4J_PASSWORD"
        ) from None
    except nex.ServiceUnavailable as e:
        raise SinkError(
            f"cannot reach Neo4j at {uri} ({_one_line(e)}); start it with `scripts/neo4j-local start` or "
            "`docker compose up -d`, or set NEO4J_URI"
        ) from None
    except nex.ClientError as e:
        if e.code == "Neo.ClientError.Database.DatabaseNotFound":
            raise SinkError(
                f"database {database!r} does not exist on Neo4j at {uri}; set NEO4J_DATABASE "
                "(community edition has only 'neo4j')"
            ) from None
        raise SinkError(f"Neo4j at {uri} refused the load: {e.code}: {e.message}") from None
    except nex.ConfigurationError as e:
        raise SinkError(f"cannot load into Neo4j at {uri}: {_one_line(e)}") from None
    except (nex.Neo4jError, nex.DriverError) as e:
        raise SinkError(f"Neo4j at {uri} failed during the load: {type(e).__name__}: {_one_line(e)}") from None
    except ValueError as e:  # malformed URI, unknown label or type
        raise SinkError(f"cannot load into Neo4j at {uri}: {e}") from None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _driver(uri: str, user: str, password: str, retry_seconds: float) -> neo4j.Driver:
    if not uri.startswith(("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")):
        # The driver also takes http:// (a preview Query API needing aiohttp); we load over Bolt.
        raise SinkError(f"cannot load into Neo4j at {uri}: use a bolt:// or neo4j:// URI (port 7687 by default)")
    return neo4j.GraphDatabase.driver(
        uri, auth=(user, password), max_transaction_retry_time=retry_seconds, connection_timeout=10.0
    )


# -- the writer -------------------------------------------------------------------------------


def load(
    graph: GraphDocument,
    uri: str = DEFAULT_URI,
    user: str = "neo4j",
    password: str = "",
    database: str = "neo4j",
    batch_size: int = 1000,
    progress: bool = True,
    prune: bool = True,
    retry_seconds: float = 30.0,
) -> WriteReport:
    """Load ``graph`` so that the database holds exactly its nodes and relationships.

    Args:
        graph: the graph to load.
        uri, user, password, database: the server (``Connection.from_env()`` reads them from
            the environment; the password is never logged).
        batch_size: rows per write transaction.
        progress: show a progress bar on stderr.
        prune: delete nodes of our labels and relationships of our types that are not in ``graph``.
        retry_seconds: how long the driver retries a batch that failed transiently.

    Returns:
        WriteReport: counts in the graph by label and type, seconds per phase.

    Raises:
        SinkError: wrong credentials, unreachable server, unknown database, refused data.

    Example:
        >>> load(GraphDocument((), ()), "bolt://127.0.0.1:1", progress=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kg.errors.SinkError: cannot reach Neo4j at bolt://127.0.0.1:1 (...
    """
    if batch_size < 1:
        raise SinkError(f"batch_size must be at least 1, got {batch_size}")
    seconds: dict[str, float] = {}
    with _clear_errors(uri, user, database), _driver(uri, user, password, retry_seconds) as driver:
        nodes = node_rows(graph)
        _check_edges(graph)
        t = time.perf_counter()
        driver.verify_connectivity()
        with driver.session(database=database) as session:
            session.run("RETURN 1").consume()  # an unknown database fails here, before any write
            for label in NODE_LABELS:
                session.run(constraint_query(label)).consume()
            session.run("CALL db.awaitIndexes(300)").consume()
            seconds["constraints"] = time.perf_counter() - t

            bar = _progress(len(graph.nodes) + len(graph.edges), progress)
            try:
                t = time.perf_counter()
                element_ids: dict[str, str] = {}
                for label, rows in nodes.items():
                    for batch in _batches(rows, batch_size):
                        # execute_write retries transient errors and lost connections with backoff.
                        element_ids.update(session.execute_write(_run_batch, node_merge_query(label), batch))
                        bar.update(len(batch))
                seconds["nodes"] = time.perf_counter() - t
                t = time.perf_counter()
                for edge_type, rows in edge_rows(graph, element_ids).items():
                    for batch in _batches(rows, batch_size):
                        session.execute_write(_run_batch, edge_merge_query(edge_type), batch)
                        bar.update(len(batch))
                seconds["relationships"] = time.perf_counter() - t
            finally:
                bar.close()

            if prune:
                t = time.perf_counter()
                removed = _prune(session, graph, batch_size)
                seconds["prune"] = time.perf_counter() - t
                if removed:
                    log.info("neo4j: removed %d nodes and relationships no longer in the graph", removed)
    n_counts, e_counts = graph_counts(graph)
    log.info("neo4j: loaded %d nodes, %d relationships into %s/%s", len(graph.nodes), len(graph.edges), uri, database)
    return WriteReport("neo4j", n_counts, e_counts, seconds, batch_size)


def _run_batch(tx: neo4j.ManagedTransaction, query: str, batch: Sequence[Any]) -> dict[str, str]:
    """One write transaction; returns ``{id: element id}`` for node batches, ``{}`` for relationships."""
    return {record["id"]: record["eid"] for record in tx.run(query, rows=batch)}


def _check_edges(graph: GraphDocument) -> None:
    """Refuse unknown types and dangling edges before anything is written."""
    ids = {node.id for node in graph.nodes}
    for edge in graph.edges:
        check_edge_type(edge.type)
        for end in (edge.source, edge.target):
            if end not in ids:
                raise SinkError(f"edge {edge.key!r} names node {end!r}, which is not in the graph")


def _prune(session: neo4j.Session, graph: GraphDocument, batch_size: int) -> int:
    keep = {node.id for node in graph.nodes} | {edge.key for edge in graph.edges}
    removed = 0
    # Relationships first: a stale node's relationships go with it anyway.
    for names, delete in ((EDGE_TYPES, DELETE_RELATIONSHIPS), (NODE_LABELS, DELETE_NODES)):
        for name in names:
            stale = [eid for key, eid in session.run(keys_query(name)).values() if key not in keep]
            for batch in _batches(stale, batch_size):
                session.execute_write(_run_batch, delete, batch)
            removed += len(stale)
    return removed


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="row", desc="neo4j", disable=not enabled, leave=False)


def count(
    uri: str = DEFAULT_URI, user: str = "neo4j", password: str = "", database: str = "neo4j"
) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes by label and relationships by type in the database, our labels and types only.

    Same shape as :func:`kg.stores.graph_counts`, so a test can compare the two directly
    (zero counts are left out). Reads Neo4j's count store: constant time.
    """
    with _clear_errors(uri, user, database), _driver(uri, user, password, 5.0) as driver:
        with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session:
            nodes = {
                label: session.run(f"MATCH (n:{check_label(label)}) RETURN count(n) AS c").single(strict=True)["c"]
                for label in NODE_LABELS
            }
            rels = {
                t: session.run(f"MATCH ()-[r:{check_edge_type(t)}]->() RETURN count(r) AS c").single(strict=True)["c"]
                for t in EDGE_TYPES
            }
    return (
        {k: v for k, v in sorted(nodes.items()) if v},
        {k: v for k, v in sorted(rels.items()) if v},
    )
