"""The Neo4j sink against a real server (``scripts/neo4j-local start``; CI starts one).

Without a server these tests skip, unless ``KG_REQUIRE_NEO4J=1`` (CI), which turns the skip
into a failure. The wrong-password test needs auth on: start the server with
``NEO4J_AUTH=neo4j/PASSWORD`` and export ``NEO4J_PASSWORD=PASSWORD``.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kg.errors import SinkError
from kg.records import Edge, Evidence, GraphDocument, Node
from kg.schema import EDGE_TYPES, NODE_LABELS, edge_properties, node_properties
from kg.schema.formats import NEO4J_FORMAT
from kg.api import aggregate
from kg.settings import shared_path
from kg.stores import graph_counts
from tests.stores.conftest import papers_for_entity_plan

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "neo4j-local"
SEEDS = shared_path("seeds")


def _ev(paper: str, sentence: str, surface: str, rule: str = "rules.v1", confidence: float = 0.9) -> Evidence:
    start = sentence.index(surface)
    return Evidence(paper, start, start + len(surface), 0, len(sentence), rule, confidence)


def _tiny_graph() -> GraphDocument:
    """Three papers, every node label, most edge types, provenance on every edge."""
    s1 = "We propose FedAvg-X, a federated method for non-IID data, evaluated on CIFAR-10 by accuracy."
    s2 = "Our algorithm achieves a regret of O(√T) for online facility location."
    s3 = "Unlike FedAvg-X, LoRA-Q adapts large language models with low-rank updates."
    p1, p2, p3 = "paper:p1", "paper:p2", "paper:p3"
    nodes = [
        Node(p1, "Paper", "Federated averaging revisited", papers=(p1,), properties={"title": "Federated averaging revisited", "year": 2026, "keywords": ["federated learning"]}),
        Node(p2, "Paper", "Online facility location with advice", papers=(p2,), properties={"title": "Online facility location with advice", "year": 2026}),
        Node(p3, "Paper", "Low-rank adaptation, quantised", papers=(p3,), properties={"title": "Low-rank adaptation, quantised", "year": 2025}),
        Node("method:fedavg-x", "Method", "FedAvg-X", aliases=("FedAvgX",), papers=(p1, p3), mentions=2),
        Node("method:lora-q", "Method", "LoRA-Q", papers=(p3,), mentions=1),
        Node("model:large language model", "Model", "large language model", aliases=("LLM",), papers=(p3,), mentions=1),
        Node("problem:online facility location", "Problem", "online facility location", papers=(p2,), mentions=1),
        Node("problem:non-iid data", "Problem", "non-IID data", papers=(p1,), mentions=1),
        Node("dataset:cifar-10", "Dataset", "CIFAR-10", papers=(p1,), mentions=1),
        Node("metric:accuracy", "Metric", "accuracy", papers=(p1,), mentions=1),
        Node("concept:low-rank update", "Concept", "low-rank update", papers=(p3,), mentions=1),
        Node("bound:p2:0", "Bound", "O(√T)", papers=(p2,), mentions=1, properties={"expression": "O(sqrt(T))", "notation": "O", "quantity": "regret", "paper": p2}),
    ]
    edges = [
        Edge(p1, "method:fedavg-x", "MENTIONS", (_ev(p1, s1, "FedAvg-X"),)),
        Edge(p1, "method:fedavg-x", "PROPOSES", (_ev(p1, s1, "FedAvg-X"),)),
        Edge(p1, "problem:non-iid data", "ADDRESSES", (_ev(p1, s1, "non-IID data"),)),
        Edge(p1, "dataset:cifar-10", "MENTIONS", (_ev(p1, s1, "CIFAR-10"),)),
        Edge(p1, "metric:accuracy", "MENTIONS", (_ev(p1, s1, "accuracy"),)),
        Edge("method:fedavg-x", "dataset:cifar-10", "EVALUATED_ON", (_ev(p1, s1, "evaluated on CIFAR-10"),)),
        Edge("dataset:cifar-10", "metric:accuracy", "MEASURED_BY", (_ev(p1, s1, "by accuracy", "rules.v2", 0.5),)),
        Edge(p2, "problem:online facility location", "MENTIONS", (_ev(p2, s2, "online facility location"),)),
        Edge(p2, "bound:p2:0", "STATES_BOUND", (_ev(p2, s2, "O(√T)"),)),
        Edge("bound:p2:0", "problem:online facility location", "BOUNDS", (_ev(p2, s2, "O(√T)"),)),
        Edge(p3, "method:fedavg-x", "MENTIONS", (_ev(p3, s3, "FedAvg-X"),)),
        Edge(p3, "method:lora-q", "PROPOSES", (_ev(p3, s3, "LoRA-Q"),)),
        Edge("method:lora-q", "method:fedavg-x", "COMPARED_WITH", (_ev(p3, s3, "Unlike FedAvg-X, LoRA-Q"),)),
        Edge("method:lora-q", "model:large language model", "USES", (_ev(p3, s3, "large language models"),)),
        Edge("method:lora-q", "concept:low-rank update", "USES", (_ev(p3, s3, "low-rank updates"),)),
        Edge("method:lora-q", "problem:non-iid data", "ADDRESSES", (_ev(p3, s3, "adapts"), _ev(p1, s1, "non-IID data"))),
        Edge("method:fedavg-x", "problem:non-iid data", "ADDRESSES", (_ev(p1, s1, "a federated method for non-IID data"),)),
    ]
    return GraphDocument(tuple(sorted(nodes, key=lambda n: n.id)), tuple(sorted(edges, key=lambda e: e.key)))


@pytest.fixture(scope="module")
def tiny_graph() -> GraphDocument:
    return _tiny_graph()


def _seeds_buildable() -> bool:
    return SEEDS.is_dir() and importlib.util.find_spec("kg.api") is not None


@pytest.fixture(scope="module")
def seeds_graph(tmp_path_factory: pytest.TempPathFactory) -> GraphDocument:
    from kg.api import build

    return build([SEEDS], tmp_path_factory.mktemp("seeds") / "out").graph


GRAPHS = ["tiny_graph", *(["seeds_graph"] if _seeds_buildable() else [])]


@pytest.fixture(scope="module")
def neo4j_conn():
    """The server from NEO4J_* settings (default bolt://127.0.0.1:7687); skip or fail if none answers."""
    from kg.settings import Settings
    from kg.stores.neo4j import count

    conn = Settings.from_env()
    try:
        count(conn.neo4j_uri, conn.neo4j_user, conn.neo4j_password, conn.neo4j_database)
    except SinkError as e:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail(f"KG_REQUIRE_NEO4J=1 but Neo4j is not usable: {e}")
        pytest.skip(f"no Neo4j server: {e}")
    return conn


@pytest.fixture()
def db(neo4j_conn):
    """A database holding none of our labels or types (loading the empty graph prunes everything)."""
    from kg.stores import neo4j as sink

    sink.load(aggregate(GraphDocument((), ())), **_kw(neo4j_conn), progress=False)
    return neo4j_conn


def _kw(conn) -> dict:
    return {"uri": conn.neo4j_uri, "user": conn.neo4j_user, "password": conn.neo4j_password, "database": conn.neo4j_database}


def _counts(conn) -> tuple[dict[str, int], dict[str, int]]:
    from kg.stores.neo4j import count

    return count(**_kw(conn))


def _read(conn, query: str, **params) -> list[dict]:
    import neo4j

    with neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password)) as driver:
        records, _, _ = driver.execute_query(query, params, database_=conn.neo4j_database)
    return [r.data() for r in records]


def _dump(conn) -> tuple[list, list]:
    """Every node and relationship with all its properties, sorted: to compare whole databases."""
    nodes = _read(conn, "MATCH (n) WHERE NOT n:PaperkgFormat AND NOT n:PaperkgRising "
                        "RETURN labels(n) AS labels, properties(n) AS props ORDER BY n.id")
    rels = _read(
        conn,
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS type, b.id AS b, properties(r) AS props "
        "ORDER BY r.key",
    )
    return nodes, rels


def _duplicates(conn) -> int:
    """Nodes sharing an id within a label plus relationships sharing (source, type, target)."""
    n = sum(
        _read(conn, f"MATCH (n:{label}) WITH n.id AS id, count(*) AS c WHERE c > 1 RETURN count(*) AS d")[0]["d"]
        for label in NODE_LABELS
    )
    r = _read(conn, "MATCH (a)-[r]->(b) WITH a, b, type(r) AS t, count(*) AS c WHERE c > 1 RETURN count(*) AS d")
    return n + r[0]["d"]


@pytest.mark.neo4j
@pytest.mark.parametrize("graph_name", GRAPHS)
def test_neo4j_load_counts_equal_graph(db, graph_name, request):
    from kg.stores import neo4j as sink

    graph = request.getfixturevalue(graph_name)
    report = sink.load(aggregate(graph), **_kw(db), progress=False)
    expected = graph_counts(graph)
    assert _counts(db) == expected
    assert (report.nodes, report.edges) == expected
    assert set(report.seconds) == {"constraints", "nodes", "relationships", "prune", "statistics"}
    assert _duplicates(db) == 0


@pytest.mark.neo4j
@pytest.mark.parametrize("graph_name", GRAPHS)
def test_neo4j_second_load_changes_nothing(db, graph_name, request):
    from kg.stores import neo4j as sink

    graph = request.getfixturevalue(graph_name)
    sink.load(aggregate(graph), **_kw(db), progress=False)
    before = _dump(db)
    sink.load(aggregate(graph), **_kw(db), progress=False, batch_size=7)
    assert _dump(db) == before
    assert _counts(db) == graph_counts(graph)


@pytest.mark.neo4j
def test_neo4j_properties_are_the_schema_maps(db, tiny_graph):
    from kg.names import name_keys
    from kg.schema.aggregates import joined_keys
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    nodes, rels = _dump(db)
    # with the build-time aggregates the canned queries seek on (kg.schema.aggregates), and the name
    # keys that resolve a parameter through a text index
    names = {n["props"]["id"]: n["props"].pop(sink.NAME_KEYS, None) for n in nodes}
    digests = [n["props"].pop(sink.DIGEST) for n in nodes] + [r["props"].pop(sink.DIGEST) for r in rels]
    assert len(set(digests)) == len(digests) and all(len(d) == 24 for d in digests)
    assert names == {n.id: joined_keys(sorted(name_keys(n))) if n.label != "Bound" else None for n in tiny_graph.nodes}
    assert names["model:large language model"] == "\x1elarge language model\x1ellm\x1e"
    aggregated = aggregate(tiny_graph)
    assert nodes == [{"labels": [n.label], "props": node_properties(n)} for n in aggregated.graph.nodes]
    by_key = {e.key: e for e in aggregated.graph.edges}
    assert [r["props"]["key"] for r in rels] == sorted(by_key)
    for r in rels:
        edge = by_key[r["props"]["key"]]
        assert (r["a"], r["type"], r["b"]) == (edge.source, edge.type, edge.target)
        assert r["props"] == edge_properties(edge)


@pytest.mark.neo4j
def test_neo4j_queries_refuse_a_database_no_complete_load_wrote(db, tiny_graph):
    """The canned queries need this version's aggregates: a database without the format a complete
    load records (cut short, or loaded by another version) is refused, not answered wrongly."""
    import neo4j

    from kg import queries
    from kg.errors import KGError
    from kg.stores import neo4j as sink

    def ask() -> list[dict]:
        with neo4j.GraphDatabase.driver(db.neo4j_uri, auth=(db.neo4j_user, db.neo4j_password)) as driver:
            return queries.run("top_entities", {"type": "Method", "limit": 1}, "neo4j", driver=driver, database=db.neo4j_database)

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    assert _read(db, "MATCH (f:PaperkgFormat) RETURN f.format AS format") == [{"format": NEO4J_FORMAT}]
    assert ask() == queries.run("top_entities", {"type": "Method", "limit": 1}, "python", graph=tiny_graph)
    _read(db, "MATCH (f:PaperkgFormat) SET f.format = $older", older=NEO4J_FORMAT - 1)
    with pytest.raises(KGError, match=rf"another paperkg version \(format {NEO4J_FORMAT - 1}; this version reads {NEO4J_FORMAT}\).*kg load neo4j"):
        ask()
    _read(db, "MATCH (f:PaperkgFormat) DELETE f")
    with pytest.raises(KGError, match=r"no graph that a complete load by paperkg recorded"):
        ask()
    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    assert ask()


@pytest.mark.neo4j
def test_neo4j_holds_the_indexes_the_canned_queries_seek_on(db):
    """Every index the load declares exists and is online, and an entity's papers are found by
    seeking ``paperBand`` in the relationship index (the plan, not a timing), also right after a
    load into an emptied database, whose index statistics the planner would otherwise trust."""
    from kg.schema import NODE_LABELS
    from kg.stores import neo4j as sink
    from kg.testing import synthetic_graph

    graph = synthetic_graph(200)
    _read(db, "CALL db.prepareForReplanning()")  # statistics of the emptied database, no cached plans
    sink.load(aggregate(graph), **_kw(db), progress=False)
    held = {
        (r["entityType"], r["labelsOrTypes"][0], tuple(r["properties"]), r["type"])
        for r in _read(db, "SHOW INDEXES YIELD entityType, labelsOrTypes, properties, type, state "
                           "WHERE type <> 'LOOKUP' AND state = 'ONLINE' RETURN *")
    }
    expected = (
        {("NODE", label, ("id",), "RANGE") for label in NODE_LABELS}
        | {("NODE", label, props, "RANGE") for label, indexed in sink.INDEXES.items() for props in indexed}
        | {("NODE", label, (prop,), "TEXT") for label, props in sink.TEXT_INDEXES.items() for prop in props}
        | {("RELATIONSHIP", t, (prop,), "RANGE") for t, props in sink.RELATIONSHIP_INDEXES.items() for prop in props}
        | {("NODE", "PaperkgRising", ("id",), "RANGE")}
    )
    assert ("RELATIONSHIP", "MENTIONS", ("paperBand",), "RANGE") in expected
    assert held == expected

    assert "DirectedRelationshipIndexSeek" in papers_for_entity_plan(db, next(n.id for n in graph.nodes if n.label == "Method"))


@pytest.mark.neo4j
@pytest.mark.parametrize(
    ("problem", "limit", "expected"),
    [
        ("non-IID data", 25, [{"method": "FedAvg-X", "support": 1}, {"method": "LoRA-Q", "support": 2}]),
        ("non-IID data", 1, [{"method": "FedAvg-X", "support": 1}]),
        ("online facility location", 25, []),
    ],
)
def test_neo4j_parameterised_query_returns_rows(db, tiny_graph, problem, limit, expected):
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    rows = _read(
        db,
        "MATCH (:Problem {name: $problem})<-[r:ADDRESSES]-(m:Method) "
        "RETURN m.name AS method, r.support AS support ORDER BY method LIMIT $limit",
        problem=problem,
        limit=limit,
    )
    assert rows == expected


@pytest.mark.neo4j
def test_neo4j_rebuilt_graph_updates_in_place(db, tiny_graph):
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    dropped = "metric:accuracy"
    renamed = "bound:p2:0"
    nodes = tuple(
        replace(n, name="Θ(√T)", properties={"notation": "Theta"}) if n.id == renamed else n
        for n in tiny_graph.nodes
        if n.id != dropped
    )
    edges = tuple(e for e in tiny_graph.edges if dropped not in (e.source, e.target) and e.type != "USES")
    rebuilt = GraphDocument(nodes, edges)
    sink.load(aggregate(rebuilt), **_kw(db), progress=False)
    assert _counts(db) == graph_counts(rebuilt)
    assert _read(db, "MATCH (n {id: $id}) RETURN n", id=dropped) == []
    bound = _read(db, "MATCH (b:Bound {id: $id}) RETURN properties(b) AS p", id=renamed)[0]["p"]
    assert bound["name"] == "Θ(√T)" and bound["notation"] == "Theta"
    assert "expression" not in bound  # a property the rebuild dropped is gone, not left stale
    assert _dump(db) != ([], [])


@pytest.mark.neo4j
def test_neo4j_load_repairs_drift(db, tiny_graph):
    """Whatever was done to our labels and types by hand, a load leaves exactly the graph again."""
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    clean = _dump(db)
    for query in HAND_EDITS:
        _read(db, query)
    assert _dump(db) != clean
    sink.load(aggregate(tiny_graph), **_kw(db), progress=False, verify=True)
    assert _dump(db) == clean
    assert _duplicates(db) == 0


@pytest.mark.neo4j
def test_neo4j_load_by_digests_repairs_all_but_edited_values(db, tiny_graph):
    """Without ``verify`` the load reads digests, not values: a value edited by hand beside an
    unchanged digest stays (documented), everything else is repaired; a verified load then repairs it."""
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    clean = _dump(db)
    for query in HAND_EDITS:
        _read(db, query)
    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    nodes, rels = _dump(db)
    assert _duplicates(db) == 0
    edited = [n["props"] for n in nodes if n["props"]["id"] == "method:lora-q"]
    assert edited[0]["name"] == "edited" and edited[0]["extra"] == 1
    assert {r["props"]["support"] for r in rels if r["type"] == "USES"} == {99}
    shape = lambda dump: ([(n["labels"], n["props"]["id"]) for n in dump[0]],  # noqa: E731
                          [(r["a"], r["type"], r["b"], r["props"]["key"]) for r in dump[1]])
    assert shape((nodes, rels)) == shape(clean)
    sink.load(aggregate(tiny_graph), **_kw(db), progress=False, verify=True)
    assert _dump(db) == clean


HAND_EDITS = (
        "MATCH (m:Method {id: 'method:lora-q'}) SET m.name = 'edited', m.extra = 1",  # changed and added
        "MATCH ()-[r:USES]->() SET r.support = 99",
        "MATCH (a)-[r:PROPOSES]->(b) CREATE (a)-[d:PROPOSES]->(b) SET d = properties(r)",  # duplicate keys
        "MATCH (:Paper {id: 'paper:p2'})-[r:MENTIONS]->() DELETE r",  # missing
        "MATCH (a {id: 'method:lora-q'})-[r:COMPARED_WITH]->(b) CREATE (b)-[x:COMPARED_WITH]->(a) "
        "SET x = properties(r) DELETE r",  # the right key between the wrong nodes
        "CREATE (:Method {id: 'method:stale', name: 'stale'})-[:USES {key: 'x'}]->(:Dataset {id: 'dataset:stale'})",
)
"""Drift by hand: changed and added values, duplicate keys, a missing, a misplaced and a stale element."""


@pytest.mark.neo4j
def test_neo4j_retry_form_of_a_committed_batch_adds_nothing(db, tiny_graph):
    """A batch is retried as MERGE because its first commit may have landed: rerunning it is a no-op."""
    import neo4j

    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    before = _dump(db)
    aggregated = aggregate(tiny_graph)
    with neo4j.GraphDatabase.driver(db.neo4j_uri, auth=(db.neo4j_user, db.neo4j_password)) as driver, driver.session(database=db.neo4j_database) as s:
        eids = {}
        for label, rows in sink.node_rows(aggregated).items():
            eids.update((r["id"], r["eid"]) for r in s.execute_write(sink._run, sink.node_create_query(label, merge=True), rows))
        for edge_type, rows in sink.edge_rows(aggregated.graph, eids).items():
            sent = [{"a": r["a"], "b": r["b"], "props": sink.row_properties(r)} for r in rows]
            assert s.execute_write(sink._run, sink.edge_create_query(edge_type, merge=True), sent)[0]["n"] == len(rows)
    assert _dump(db) == before
    assert _duplicates(db) == 0


@pytest.mark.neo4j
def test_neo4j_wrong_password_is_clear_error(neo4j_conn, tiny_graph):
    from kg.stores import neo4j as sink

    wrong = neo4j_conn.neo4j_password + "-not-it"
    try:
        sink.count(neo4j_conn.neo4j_uri, neo4j_conn.neo4j_user, wrong, neo4j_conn.neo4j_database)
    except SinkError:
        pass
    else:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail("the server accepts any password: start it with NEO4J_AUTH=neo4j/PASSWORD")
        pytest.skip("the server runs without auth (start it with NEO4J_AUTH=neo4j/PASSWORD)")
    with pytest.raises(SinkError, match=r"rejected the credentials of user 'neo4j'.*NEO4J_PASSWORD") as info:
        sink.load(aggregate(tiny_graph), neo4j_conn.neo4j_uri, neo4j_conn.neo4j_user, wrong, neo4j_conn.neo4j_database, progress=False)
    assert wrong not in str(info.value)


@pytest.mark.neo4j
@pytest.mark.parametrize(
    ("uri", "database", "message"),
    [
        ("bolt://127.0.0.1:1", "neo4j", r"cannot reach Neo4j at bolt://127.0.0.1:1 .*scripts/neo4j-local start"),
        (None, "nosuchdb", r"database 'nosuchdb' does not exist"),
        ("http://127.0.0.1:7474", "neo4j", r"at http://127.0.0.1:7474: use a bolt:// or neo4j:// URI"),
        ("bolt://127.0.0.1:7687:x", "neo4j", r"cannot load into Neo4j at bolt://127.0.0.1:7687:x: "),
    ],
)
def test_neo4j_bad_target_is_clear_error(neo4j_conn, tiny_graph, uri, database, message):
    from kg.stores import neo4j as sink

    kw = _kw(neo4j_conn) | {"database": database} | ({"uri": uri} if uri else {})
    with pytest.raises(SinkError, match=message):
        sink.load(aggregate(tiny_graph), **kw, progress=False, retry_seconds=0)


def test_neo4j_import_kg_leaves_driver_unloaded():
    code = "import sys, kg, kg.stores, kg.schema.style; assert 'neo4j' not in sys.modules, 'driver imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def _server_pid() -> int | None:
    home = Path(os.environ.get("NEO4J_LOCAL_HOME", ROOT / ".neo4j-local"))
    try:
        return int((home / "neo4j.pid").read_text())
    except (OSError, ValueError):
        return None


@pytest.mark.neo4j
def test_neo4j_killed_mid_load_then_rerun_is_exact(db):
    """kill -9 the server while a load is writing, restart it, load again: exact counts, no duplicates."""
    from kg.stores import neo4j as sink
    from kg.testing import synthetic_graph

    pid = _server_pid()
    if pid is None:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail("KG_REQUIRE_NEO4J=1 but the server was not started by scripts/neo4j-local")
        pytest.skip("the server was not started by scripts/neo4j-local (no pid file)")
    graph = synthetic_graph(500, seed=7)
    outcome: list[BaseException | object] = []

    def first_load() -> None:
        try:
            outcome.append(sink.load(aggregate(graph), **_kw(db), progress=False, batch_size=50, retry_seconds=1))
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome.append(e)

    loader = threading.Thread(target=first_load)
    loader.start()
    deadline = time.monotonic() + 300
    while not sum(_counts(db)[1].values()):  # wait for the relationship phase to commit something
        assert loader.is_alive() and time.monotonic() < deadline, f"load ended before the kill: {outcome}"
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    loader.join(timeout=120)
    assert not loader.is_alive()
    assert isinstance(outcome[0], SinkError), outcome

    subprocess.run([str(SCRIPT), "start"], check=True, timeout=600)
    partial = _counts(db)
    assert sum(partial[1].values()) < len(graph.edges)  # the kill really interrupted the load
    sink.load(aggregate(graph), **_kw(db), progress=False, batch_size=500)
    assert _counts(db) == graph_counts(graph)
    assert _duplicates(db) == 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_neo4j_query_against_no_server_is_a_clear_error_within_seconds():
    """No server at the URI: BackendUnavailable naming the way out after a few seconds of retries
    (the driver's default would retry for thirty), not a driver traceback."""
    from kg import queries
    from kg.errors import BackendUnavailable

    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match=r"Neo4j does not answer \(ServiceUnavailable.*scripts/neo4j-local start"):
        queries.run("top_entities", {"type": "Method"}, "neo4j", uri=f"bolt://127.0.0.1:{_free_port()}", auth=("neo4j", "x"))
    assert time.monotonic() - started < 25


@pytest.mark.neo4j
def test_neo4j_stopped_mid_query_is_a_clear_error_and_asking_again_works(db):
    """kill -9 the server while canned queries run back to back: the one in flight ends in
    BackendUnavailable (no driver error leaks); once the server is back the same question gets
    the same rows."""
    import neo4j

    from kg import queries
    from kg.errors import BackendUnavailable
    from kg.stores import neo4j as sink
    from kg.testing import synthetic_graph

    pid = _server_pid()
    if pid is None:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail("KG_REQUIRE_NEO4J=1 but the server was not started by scripts/neo4j-local")
        pytest.skip("the server was not started by scripts/neo4j-local (no pid file)")
    sink.load(aggregate(synthetic_graph(300, seed=3)), **_kw(db), progress=False)
    asked = {"type": "Method"}
    auth = (db.neo4j_user, db.neo4j_password)
    with neo4j.GraphDatabase.driver(db.neo4j_uri, auth=auth) as driver:
        before = queries.run("top_entities", asked, "neo4j", driver=driver, database=db.neo4j_database)
    assert before
    answered: list[int] = []
    ended: list[BaseException] = []

    def ask_until_it_fails() -> None:
        with neo4j.GraphDatabase.driver(db.neo4j_uri, auth=auth, max_transaction_retry_time=2.0, connection_timeout=5.0) as d:
            try:
                while True:
                    queries.run("top_entities", asked, "neo4j", driver=d, database=db.neo4j_database)
                    answered.append(1)
            except BaseException as e:  # noqa: BLE001 - handed to the test thread
                ended.append(e)

    asker = threading.Thread(target=ask_until_it_fails)
    asker.start()
    deadline = time.monotonic() + 120
    while len(answered) < 3:
        assert asker.is_alive() and time.monotonic() < deadline, ended
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    asker.join(timeout=120)
    assert not asker.is_alive()
    assert len(ended) == 1 and isinstance(ended[0], BackendUnavailable), ended
    assert "Neo4j does not answer" in str(ended[0]) and "scripts/neo4j-local start" in str(ended[0])

    subprocess.run([str(SCRIPT), "start"], check=True, timeout=600)
    with neo4j.GraphDatabase.driver(db.neo4j_uri, auth=auth) as driver:
        assert queries.run("top_entities", asked, "neo4j", driver=driver, database=db.neo4j_database) == before


@pytest.mark.neo4j
def test_neo4j_count_covers_only_allow_list(db, tiny_graph):
    from kg.stores import neo4j as sink

    sink.load(aggregate(tiny_graph), **_kw(db), progress=False)
    nodes, rels = _counts(db)
    assert set(nodes) <= set(NODE_LABELS) and set(rels) <= set(EDGE_TYPES)
    assert nodes["Paper"] == 3 and rels["MENTIONS"] == 5


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (GraphDocument((Node("thing:x", "Thing", "x"),), ()), r"unknown node label 'Thing'; known: Paper"),
        (
            GraphDocument((Node("method:a", "Method", "a"),), (Edge("method:a", "method:b", "USES"),)),
            r"edge 'method:a\|USES\|method:b' names node 'method:b', which is not in the graph",
        ),
        (
            GraphDocument((Node("method:a", "Method", "a"),), (Edge("method:a", "method:a", "LIKES"),)),
            r"unknown edge type 'LIKES'",
        ),
    ],
)
def test_neo4j_bad_graph_is_refused_before_any_write(graph, message):
    """Names outside the allow-list never reach query text; no server is contacted (port 1 is closed)."""
    from kg.stores import neo4j as sink

    with pytest.raises(SinkError, match=message):
        sink.load(aggregate(graph), "bolt://127.0.0.1:1", progress=False)


@pytest.mark.neo4j
def test_kg_build_with_neo4j_loads_what_it_wrote(db, tmp_path):
    """``kg build --neo4j``: the database then holds the built graph, and a canned query answers on
    Neo4j as on the embedded store of the same build (one set of aggregates served both)."""
    from click.testing import CliRunner

    import kg
    from kg.cli import cli
    from tests.conftest import SEEDS

    out = tmp_path / "out"
    result = CliRunner(env={"NEO4J_PASSWORD": db.neo4j_password}).invoke(
        cli, ["build", str(SEEDS), "-o", str(out), "--limit", "6", "--neo4j", db.neo4j_uri])
    assert result.exit_code == 0, result.output
    graph = kg.open(out)
    assert _counts(db) == graph_counts(graph.document)
    params = {"type": "Method", "limit": 5}
    assert kg.api.query("top_entities", params, backend="neo4j", settings=db) == graph.query("top_entities", **params)
