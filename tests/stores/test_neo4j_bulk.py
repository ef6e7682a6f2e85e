"""The bulk import (``kg.stores.neo4j_bulk``): its CSV as the importer reads it, the command lines it
builds, and against a real server started by ``scripts/neo4j-local`` (NEO4J_URI, NEO4J_LOCAL_HOME):
the database it makes equals the diff loader's, a database with data is refused, and a killed
import leaves the served database as it was.

Each import restarts the server (tens of seconds), so the server tests import twice in all.
"""

from __future__ import annotations

import csv
import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kg.api import aggregate
from kg.errors import SinkError
from kg.records import GraphDocument
from kg.stores import graph_counts
from kg.stores.neo4j_bulk import ComposeServer, ImportFiles, LocalServer, _shares, column_types, formatter, write_csv
from kg.testing import synthetic_graph
from tests.stores.conftest import papers_for_entity_plan

ROOT = Path(__file__).resolve().parents[2]
TRICKY = [
    'a "quoted", comma-separated name',
    "two\nlines and a\r\nWindows break",
    "non-BMP 𝒪(√T) 😀 and a backslash \\ at the end\\",
    "  spaces kept  ",
    "semi;colon and the\x1fseparators\x1e",
    "",
]


def _tricky_graph() -> GraphDocument:
    """A small synthetic graph whose first entities carry names and aliases the CSV must escape."""
    graph = synthetic_graph(60, seed=5)
    entities = iter(TRICKY)
    nodes = []
    for node in graph.nodes:
        name = next(entities, None) if node.label != "Paper" else None
        nodes.append(node if name is None else replace(node, name=name or "empty alias", aliases=(name, "x,y")))
    return GraphDocument(tuple(nodes), graph.edges, graph.meta)


def _read_csv(path: Path) -> list[dict[str, str]]:
    # RFC 4180 as the importer reads it: fields in double quotes, a quote doubled, newlines inside quotes.
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, doublequote=True, quotechar='"', strict=True))


def test_neo4j_bulk_csv_values_read_back_exactly(tmp_path):
    graph = _tricky_graph()
    files = write_csv(aggregate(graph), tmp_path)
    rows = [row for name in files.nodes for row in _read_csv(tmp_path / name)]
    by_id = {row["id:ID"]: row for row in rows}
    tricky = [n for n in graph.nodes if n.name in TRICKY or n.name == "empty alias"]
    assert len(tricky) == len(TRICKY)
    for node in tricky:
        row = by_id[node.id]
        assert row[":LABEL"] == node.label
        assert row["name:string"] == node.name
        assert row["aliases:string[]"].split(files.array_delimiter) == list(node.aliases)
    assert len(rows) == len(graph.nodes)
    edges = [row for name in files.relationships for row in _read_csv(tmp_path / name)]
    assert sorted((r[":START_ID"], r[":TYPE"], r[":END_ID"]) for r in edges) == sorted(
        (e.source, e.type, e.target) for e in graph.edges
    )


def test_neo4j_bulk_empty_lists_scanned_only_where_every_node_holds_the_list(tmp_path):
    """The importer stores no empty list; where every node of a label holds the property, the nodes
    left without it are exactly those with an empty one, and a label scan may set them."""
    from kg.records import Node
    from kg.stores.neo4j_bulk import EmptyLists

    nodes = (Node("method:a", "Method", "A", properties={"tags": []}), Node("method:b", "Method", "B", aliases=("b",)))
    files = write_csv(aggregate(GraphDocument(nodes, ())), tmp_path)
    assert files.empty_lists[("Method", "aliases")] == EmptyLists(["method:a"], True)
    assert files.empty_lists[("Method", "tags")] == EmptyLists(["method:a"], False)

@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([{"n": 1, "x": 0.5, "b": True, "s": "a"}], {"n": "long", "x": "double", "b": "boolean", "s": "string"}),
        ([{"l": []}, {"l": [1, 2]}], {"l": "long[]"}),
        ([{"l": []}], {"l": "string[]"}),
    ],
)
def test_neo4j_bulk_column_types(rows, expected):
    assert column_types(rows, "Method") == expected


@pytest.mark.parametrize(
    ("rows", "message"),
    [([{"v": 1}, {"v": 1.5}], "holds double and long values"), ([{"v": [1, "a"]}], "one type"),
     ([{"v": {"a": 1}}], "holds dict values")],
)
def test_neo4j_bulk_refuses_a_column_of_two_types(rows, message):
    with pytest.raises(SinkError, match=message):
        column_types(rows, "Method")


def test_neo4j_bulk_array_delimiter_avoids_the_data(tmp_path):
    graph = synthetic_graph(20, seed=1)
    node = next(n for n in graph.nodes if n.label == "Method")
    graph = GraphDocument(tuple(replace(n, aliases=("a\x1db",)) if n is node else n for n in graph.nodes), graph.edges)
    files = write_csv(aggregate(graph), tmp_path)
    assert files.array_delimiter == "\x1c"
    assert "--array-delimiter=U+001C" in files.importer_args("/x")
    assert formatter("string[]", files.array_delimiter)(["a\x1db", 'q"']) == '"a\x1db\x1cq"""'


def _in_forked_share(aggregated) -> str:
    """A label a forked process writes when two processes share the CSV."""
    shares = _shares(aggregated, 2)
    assert len(shares) == 2 and shares[1][0], shares
    return sorted(shares[1][0])[0]


def test_neo4j_bulk_csv_the_same_from_one_or_two_processes(tmp_path):
    aggregated = aggregate(_tricky_graph())
    one, two = write_csv(aggregated, tmp_path / "one", jobs=1), write_csv(aggregated, tmp_path / "two", jobs=2)
    assert (one.nodes, one.relationships, one.array_delimiter, one.empty_lists) == (
        two.nodes, two.relationships, two.array_delimiter, two.empty_lists)
    assert one.nodes and one.relationships
    for name in one.nodes + one.relationships:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_neo4j_bulk_csv_processes_agree_on_the_delimiter(tmp_path):
    graph = synthetic_graph(20, seed=1)
    label = _in_forked_share(aggregate(graph))
    node = next(n for n in graph.nodes if n.label == label)
    graph = GraphDocument(tuple(replace(n, aliases=("a\x1db", "c")) if n is node else n for n in graph.nodes), graph.edges)
    files = write_csv(aggregate(graph), tmp_path, jobs=2)
    assert files.array_delimiter == "\x1c"
    assert '"a\x1db\x1cc"' in (tmp_path / f"{label}.csv").read_text(encoding="utf-8")


def test_neo4j_bulk_csv_error_of_a_forked_writer_is_raised_here(tmp_path):
    graph = synthetic_graph(20, seed=1)
    label = _in_forked_share(aggregate(graph))
    first, second = [n for n in graph.nodes if n.label == label][:2]
    odd = {first.id: {"score": 1}, second.id: {"score": "high"}}
    graph = GraphDocument(tuple(replace(n, properties={**n.properties, **odd[n.id]}) if n.id in odd else n
                                for n in graph.nodes), graph.edges)
    with pytest.raises(SinkError, match=f"property 'score' of {label} holds long and string values"):
        write_csv(aggregate(graph), tmp_path, jobs=2)


def test_neo4j_bulk_compose_commands_import_aside_then_swap():
    files = ImportFiles(Path("/tmp/kg-import-1"), ("Paper.csv", "Method.csv"), ("USES.csv",), "\x1d")
    run, stop, swap, start = ComposeServer(project_directory=Path("/srv/kg")).commands(files, "neo4j")
    compose = ["docker", "compose", "--project-directory", "/srv/kg"]
    assert run[:9] == [*compose, "run", "--rm", "--no-deps", "-v", "/tmp/kg-import-1:/import-kg:ro"]
    assert run[9:14] == ["neo4j", "neo4j-admin", "database", "import", "full"]
    assert "--nodes=/import-kg/Method.csv" in run and "--relationships=/import-kg/USES.csv" in run
    assert run[-1] == "kgimport"  # the served database is not touched by the import
    assert stop == [*compose, "stop", "neo4j"] and start == [*compose, "start", "neo4j"]
    # The names reach the swap script as arguments, never inside its text.
    assert swap[-3:] == ["swap", "neo4j", "kgimport"] and "neo4j" not in swap[-4]


def test_neo4j_bulk_local_command_is_the_script():
    files = ImportFiles(Path("/tmp/csv"), ("Paper.csv",), ("USES.csv",), "\x1d")
    server = LocalServer(ROOT / "scripts" / "neo4j-local", Path("/tmp/home"))
    (command,) = server.commands(files, "neo4j")
    assert command[:3] == [str(ROOT / "scripts" / "neo4j-local"), "import", "neo4j"]
    assert "--relationships=/tmp/csv/USES.csv" in command
    assert server.environment() == {"NEO4J_LOCAL_HOME": "/tmp/home"}


def test_neo4j_bulk_auto_mode_keeps_small_graphs_on_the_diff_loader():
    """Below BULK_MIN_ROWS the importer's fixed cost (restart included) is never worth it: no server asked."""
    from kg.stores.neo4j_bulk import BULK_MIN_ROWS, choose

    graph = synthetic_graph(50)
    assert len(graph.nodes) + len(graph.edges) < BULK_MIN_ROWS
    assert choose(aggregate(graph), LocalServer(Path("/nonexistent/neo4j-local")), "bolt://127.0.0.1:1", "neo4j", "", "neo4j") is False


# -- against a server run by scripts/neo4j-local -----------------------------------------------


@pytest.fixture(scope="module")
def local():
    """Connection settings for a server scripts/neo4j-local runs (the bulk path restarts it)."""
    from kg.settings import Settings
    from kg.stores.neo4j import count

    conn = Settings.from_env()
    home = Path(conn.neo4j_local_home or ROOT / ".neo4j-local")
    try:
        count(conn.neo4j_uri, conn.neo4j_user, conn.neo4j_password, conn.neo4j_database)
        int((home / "neo4j.pid").read_text())
    except (SinkError, OSError, ValueError) as e:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail(f"KG_REQUIRE_NEO4J=1 but no Neo4j run by scripts/neo4j-local answers: {e}")
        pytest.skip(f"no Neo4j run by scripts/neo4j-local: {e}")
    return conn, home


def _dump(conn) -> dict[str, list]:
    """Everything a load writes: nodes, relationships (all properties), indexes, constraints, format."""
    import neo4j

    queries = {
        "nodes": "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props ORDER BY n.id, labels(n)[0]",
        "relationships": "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS type, b.id AS b, properties(r) AS props ORDER BY r.key",
        "indexes": "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state "
                   "WHERE type <> 'LOOKUP' RETURN * ORDER BY name",
        "constraints": "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN * ORDER BY name",
    }
    with neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password)) as driver:
        return {k: [r.data() for r in driver.execute_query(q, database_=conn.neo4j_database)[0]] for k, q in queries.items()}


@pytest.mark.neo4j
def test_neo4j_bulk_refuses_a_database_that_holds_data(local):
    from kg.api import load_neo4j

    conn, _ = local
    graph = synthetic_graph(30, seed=2)
    load_neo4j(graph, conn)
    with pytest.raises(SinkError, match=r"holds [\d,]+ nodes, which a bulk import would replace; pass --overwrite"):
        load_neo4j(synthetic_graph(40, seed=3), conn, bulk=True)
    from kg.stores.neo4j import count

    assert count(conn.neo4j_uri, conn.neo4j_user, conn.neo4j_password, conn.neo4j_database) == graph_counts(graph)


def _importer_pid(marker: str) -> int | None:
    """The running importer (java ... AdminTool ...) whose arguments name ``marker``."""
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if "org.neo4j.cli.AdminTool" in cmdline and marker in cmdline:
            return int(proc.name)
    return None


@pytest.mark.neo4j
def test_neo4j_bulk_killed_import_keeps_the_database_and_a_rerun_equals_the_diff_load(local, tmp_path):
    from kg.api import load_neo4j
    from kg.stores import neo4j_bulk

    conn, home = local
    graph = _tricky_graph()
    load_neo4j(graph, conn)  # the diff loader's database: the reference
    expected = _dump(conn)

    server = LocalServer(ROOT / "scripts" / "neo4j-local", home)
    outcome: list[object] = []

    def bulk() -> None:
        try:
            outcome.append(neo4j_bulk.load(aggregate(graph), server, conn.neo4j_uri, conn.neo4j_user,
                                           conn.neo4j_password, conn.neo4j_database, overwrite=True,
                                           work_directory=tmp_path))
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome.append(e)

    loader = threading.Thread(target=bulk)
    loader.start()
    deadline = time.monotonic() + 300
    while (pid := _importer_pid(str(tmp_path))) is None or not (home / "data" / "databases" / "kgimport").exists():
        assert loader.is_alive() and time.monotonic() < deadline, f"import ended before the kill: {outcome}"
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    loader.join(timeout=300)
    assert isinstance(outcome[0], SinkError) and "is unchanged" in str(outcome[0]), outcome
    assert _dump(conn) == expected  # the previous database still serves, untouched
    assert not (home / "data" / "databases" / "kgimport").exists()

    report = load_neo4j(graph, conn, bulk=True, overwrite=True)
    assert (report.nodes, report.edges) == graph_counts(graph)
    assert {"csv", "import", "indexes", "finish"} <= set(report.seconds)
    assert _dump(conn) == expected  # same nodes, relationships, properties, indexes, format node
    # no resample after the import: the indexes built over its data already let the planner seek
    assert "DirectedRelationshipIndexSeek" in papers_for_entity_plan(conn, next(n.id for n in graph.nodes if n.label == "Method"))
    # The restarted server maps the classes an earlier run of it archived as it stopped
    # (scripts/neo4j-local: class_archive).
    pid = int((home / "neo4j.pid").read_text())
    mapped = {line.split()[-1] for line in Path(f"/proc/{pid}/maps").read_text().splitlines() if line.endswith(".jsa")}
    assert any(Path(m).parent == home / "cds" and Path(m).name.startswith("server-") for m in mapped), mapped
