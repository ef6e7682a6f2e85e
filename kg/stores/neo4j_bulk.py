"""Bulk load: the graph as ``neo4j-admin database import full`` CSV, imported offline, then the same
constraints, indexes and format node the diff loader (:mod:`kg.stores.neo4j`) writes.

The result is the database the diff loader makes from the same graph (same nodes, relationships,
properties, indexes, format node, canned-query answers). It pays a fixed ~30 s (the importer's start,
the server's stop and start) and then goes at about twice the diff loader's rate: on the ICLR 2026
graph (133k nodes, 428k relationships) it took 55 s (CSV 17 s, import with the restart 29 s) and the
diff loader 49 s, so it wins from about a million nodes and relationships (:data:`BULK_MIN_ROWS`).

Steps:

1. refuse a database that holds nodes (other than the format node) unless ``overwrite``: an import
   replaces the whole database, so never silently;
2. write one CSV per label and per type (:func:`write_csv`): ``id:ID``, ``:LABEL``, ``:START_ID``,
   ``:END_ID``, ``:TYPE``, typed properties and arrays, values quoted as the importer reads them;
   a forked process writes about half the rows;
3. run the server's import commands (:class:`LocalServer`, :class:`ComposeServer`): the import
   writes a side database (``kgimport``) while the server keeps serving the old one, then the server
   stops, the side database is swapped in under the target's name and the server starts. A failed
   or killed import leaves the served database as it was, and a rerun overwrites the side database;
4. constraints and indexes (built over the imported data, which gives them fresh statistics),
   empty lists (the importer stores none; set by label scans while the indexes populate where
   every node of the label holds the list), the rows of ``rising_entities`` and the format node, as
   the diff loader does.

Community edition serves one user database and cannot create another, hence the swap of store
folders while the server is down (a restart: ~20 s here) rather than ``CREATE DATABASE``. The imported
database numbers its transactions afresh, so a driver kept open across the import holds bookmarks it
never reaches (``BookmarkTimeout``): clients make a new driver, as :func:`load` does.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j
from neo4j import exceptions as nex

from kg.errors import SinkError
from kg.schema import check_edge_type, check_label
from kg.schema.aggregates import Aggregated
from kg.schema.formats import FORMAT_LABEL, RISING_LABEL
from kg.stores import WriteReport, die_with_parent, graph_counts, no_gc
from kg.stores.neo4j import (await_indexes, check_graph, clear_errors, connect, create_schema, finish, node_rows,
                             relationship_properties, stored)

SIDE_DATABASE = "kgimport"
"""The database an import writes before it is swapped in (``scripts/neo4j-local`` uses the same name)."""
ARRAY_DELIMITERS = "\x1d\x1c\x1b\x02\x03\x04"
"""Candidates for the importer's array delimiter: control characters, the first no array item holds."""
BULK_MIN_ROWS = 1_000_000
"""Nodes plus relationships from which ``choose`` picks the importer for an empty database: below it the
diff loader (~11k rows a second, no restart) finishes before the importer (~30 s fixed, then ~20k rows
a second), measured with ``bench/neo4j_load.py --bulk`` on the ICLR 2026 graph."""

_TYPES = {bool: "boolean", int: "long", float: "double", str: "string"}

# Run in the Neo4j container with the database names as arguments, never pasted into the script.
SWAP_SCRIPT = (
    'set -e; for d in databases transactions; do rm -rf "/data/$d/$1.previous"; '
    'if [ -e "/data/$d/$1" ]; then mv "/data/$d/$1" "/data/$d/$1.previous"; fi; '
    'mv "/data/$d/$2" "/data/$d/$1"; done'
)


@dataclass(frozen=True, slots=True)
class EmptyLists:
    """The nodes of one label whose list property is empty: the importer cannot store an empty list
    (an empty field is no property), so they are set after the import."""

    ids: list[str]
    on_every_node: bool
    """Every node of the label holds the property, so the nodes the import left without it are
    exactly ``ids``: one label scan sets them, with no look-up per id."""


@dataclass(frozen=True, slots=True)
class ImportFiles:
    """The CSV files of one graph and what the importer must be told about them.

    ``empty_lists`` maps ``(label, property)`` to the nodes whose list is empty (:class:`EmptyLists`).
    """

    directory: Path
    nodes: tuple[str, ...]
    relationships: tuple[str, ...]
    array_delimiter: str
    empty_lists: dict[tuple[str, str], EmptyLists] = field(default_factory=dict)

    def importer_args(self, root: str) -> list[str]:
        """The importer's options, with the files under ``root`` (the folder as the importer sees it).

        Example:
            >>> ImportFiles(Path("x"), ("Paper.csv",), ("USES.csv",), "\\x1d").importer_args("/import")
            ['--nodes=/import/Paper.csv', '--relationships=/import/USES.csv', '--array-delimiter=U+001D', '--multiline-fields=true']
        """
        return [
            *(f"--nodes={root}/{name}" for name in self.nodes),
            *(f"--relationships={root}/{name}" for name in self.relationships),
            f"--array-delimiter=U+{ord(self.array_delimiter):04X}",
            "--multiline-fields=true",  # abstracts hold newlines
        ]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")  # Java's spelling
    return value if isinstance(value, str) else repr(value)


def column_types(rows: Iterable[Mapping[str, Any]], where: str) -> dict[str, str]:
    """The importer type of every property in ``rows`` (``long``, ``string[]``...), in first-seen order.

    A property whose values differ in type cannot be one column: refused, naming it.

    Example:
        >>> column_types([{"a": 1, "b": []}, {"a": 2, "b": ["x"], "c": 0.5}], "Method")
        {'a': 'long', 'b': 'string[]', 'c': 'double'}
    """
    rows = list(rows)
    keys = dict.fromkeys(k for row in rows for k in row)
    return {key: _column_type([row.get(key) for row in rows], key, where) for key in keys}


def _column_type(values: list[Any], key: str, where: str) -> str:
    """One column's type from the set of its values' Python types (a C-speed pass, not a call per value)."""
    kinds = {type(v) for v in values} - {type(None)}
    if kinds <= {list, tuple}:
        items = {type(x) for v in values if v for x in v}
        if len(items) > 1 or not items <= set(_TYPES):
            raise SinkError(f"property {key!r} of {where}: an array must hold values of one type "
                            f"(boolean, long, double or string), not {sorted(t.__name__ for t in items)}")
        return f"{_TYPES[items.pop()]}[]" if items else "string[]"
    if len(kinds) > 1 or not kinds <= set(_TYPES):
        names = " and ".join(sorted(_TYPES.get(t, t.__name__) for t in kinds))
        raise SinkError(f"property {key!r} of {where} holds {names} values; one column needs one type")
    return _TYPES[kinds.pop()]


def formatter(kind: str, delimiter: str = "\x1d") -> Callable[[Any], str]:
    """A function from one value of a column of ``kind`` to its field as the importer reads it: strings
    and arrays quoted (``"`` doubled), no value (and an empty array) an empty field.

    Example:
        >>> formatter("string")('say "hi", then\\nleave'), formatter("string")(None), formatter("long")(3)
        ('"say ""hi"", then\\nleave"', '', '3')
        >>> formatter("string[]")(["a", 'b"c']), formatter("double[]")([0.1, 2.0]), formatter("boolean")(True)
        ('"a\\x1db""c"', '"0.1\\x1d2.0"', 'true')
    """
    if kind == "string":
        return lambda v: "" if v is None else '"' + v.replace('"', '""') + '"'
    if kind == "string[]":
        return lambda v: '"' + delimiter.join(v).replace('"', '""') + '"' if v else ""
    if kind.endswith("[]"):
        return lambda v: '"' + delimiter.join(map(_scalar, v)) + '"' if v else ""
    return lambda v: "" if v is None else _scalar(v)


def _table(path: Path, head: list[str], fixed: list[list[str]], rows: list[dict[str, Any]], types: Mapping[str, str],
           delimiter: str) -> str:
    """Write a header and, per row, its ``fixed`` fields then its properties, column by column."""
    columns = [*fixed]
    for key, kind in types.items():
        columns.append(list(map(formatter(kind, delimiter), [row.get(key) for row in rows])))
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write(",".join([*head, *(f"{k}:{v}" for k, v in types.items())]) + "\n")
        f.writelines(",".join(fields) + "\n" for fields in zip(*columns))
    return path.name


def write_csv(aggregated: Aggregated, directory: Path, jobs: int = 2) -> ImportFiles:
    """One CSV per label and per relationship type in ``directory``, with the diff loader's properties.

    Node and relationship properties are those of :func:`kg.stores.neo4j.node_rows` and
    :func:`kg.stores.neo4j.relationship_properties` as :func:`kg.stores.neo4j.stored` keeps them, so an import
    and a diff load store the same values.  With ``jobs`` above 1 (and as many cores), forked processes
    write shares of the rows (:func:`_shares`): the same files, in about half the time with two (0.55
    and 0.47 of one process's 31 s and 36 s on the ICLR 2026 graph, ``bench/neo4j_load.py --bulk``).
    """
    check_graph(aggregated.graph)
    label_order = list(dict.fromkeys(check_label(n.label) for n in aggregated.graph.nodes))
    type_order = list(dict.fromkeys(check_edge_type(e.type) for e in aggregated.graph.edges))
    directory.mkdir(parents=True, exist_ok=True)
    forks = "fork" in multiprocessing.get_all_start_methods()
    shares = _shares(aggregated, min(jobs, os.cpu_count() or 1) if forks else 1)
    with no_gc():
        if len(shares) == 1:
            tables = _Tables(aggregated, *shares[0])
            written = tables.write(directory, _first_free(tables.delimiters_held()))
        else:
            written = _write_beside(aggregated, directory, shares)
    nodes, edges, empty_lists, delimiter = written
    return ImportFiles(directory, tuple(nodes[label] for label in label_order), tuple(edges[t] for t in type_order),
                       delimiter, {key: empty_lists[key] for key in sorted(empty_lists, key=lambda k: label_order.index(k[0]))})


def _shares(aggregated: Aggregated, jobs: int) -> list[tuple[frozenset[str], frozenset[str]]]:
    """The labels and relationship types each process writes: the largest tables first, each to the
    process with the fewest rows so far."""
    sizes = [*((("node", k), n) for k, n in Counter(n.label for n in aggregated.graph.nodes).items()),
             *((("edge", k), n) for k, n in Counter(e.type for e in aggregated.graph.edges).items())]
    loads = [[0, set(), set()] for _ in range(max(1, min(jobs, len(sizes))))]
    for (kind, name), n in sorted(sizes, key=lambda x: (-x[1], x[0])):
        share = min(loads, key=lambda load: load[0])
        share[0] += n
        share[1 if kind == "node" else 2].add(name)
    return [(frozenset(labels), frozenset(types)) for _, labels, types in loads]


class _Tables:
    """The rows of some labels and relationship types, made once, then written as CSV."""

    def __init__(self, aggregated: Aggregated, labels: frozenset[str], types: frozenset[str]) -> None:
        self.nodes = {label: [stored(row["props"]) for row in rows] for label, rows in node_rows(aggregated, labels).items()}
        self.edges: dict[str, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
        for edge in aggregated.graph.edges:
            if edge.type in types:
                self.edges[edge.type].append((edge.source, edge.target, stored(relationship_properties(edge))))

    def delimiters_held(self) -> frozenset[str]:
        """The :data:`ARRAY_DELIMITERS` some string in an array of these rows contains."""
        rows = [props for rows in self.nodes.values() for props in rows] + [props for rows in self.edges.values() for _, _, props in rows]
        text = "".join(item for props in rows for v in props.values() if isinstance(v, list) for item in v if isinstance(item, str))
        return frozenset(c for c in ARRAY_DELIMITERS if c in text)

    def write(self, directory: Path, delimiter: str) -> tuple[dict[str, str], dict[str, str], dict[tuple[str, str], EmptyLists], str]:
        """The files per label and per type, the nodes with an empty list, and the delimiter."""
        quoted = formatter("string", delimiter)
        node_files, empty_lists = {}, {}
        for label, rows in self.nodes.items():
            types = {k: v for k, v in column_types(rows, label).items() if k != "id"}
            for key, kind in types.items():
                if kind.endswith("[]"):
                    empty = [props["id"] for props in rows if props.get(key) == []]
                    if empty:
                        empty_lists[(label, key)] = EmptyLists(empty, all(key in props for props in rows))
            ids = [quoted(props["id"]) for props in rows]
            node_files[label] = _table(directory / f"{label}.csv", ["id:ID", ":LABEL"], [ids, [label] * len(rows)], rows,
                                       types, delimiter)
        edge_files = {}
        for edge_type, triples in self.edges.items():
            rows = [props for _, _, props in triples]
            fixed = [[quoted(a) for a, _, _ in triples], [quoted(b) for _, b, _ in triples], [edge_type] * len(triples)]
            edge_files[edge_type] = _table(directory / f"{edge_type}.csv", [":START_ID", ":END_ID", ":TYPE"], fixed, rows,
                                           column_types(rows, edge_type), delimiter)
        return node_files, edge_files, empty_lists, delimiter


def _first_free(held: frozenset[str]) -> str:
    """The first of :data:`ARRAY_DELIMITERS` that no string in any array contains."""
    for c in ARRAY_DELIMITERS:
        if c not in held:
            return c
    raise SinkError("every candidate array delimiter occurs in the data; the importer cannot split its arrays")


def _write_beside(aggregated: Aggregated, directory: Path, shares: list[tuple[frozenset[str], frozenset[str]]]):
    """:meth:`_Tables.write` for the first share here and for the others in forked processes, which
    agree first on the delimiter (none may occur in any process's arrays)."""
    context = multiprocessing.get_context("fork")
    links, children = [], []
    try:
        for share in shares[1:]:
            here, there = context.Pipe()
            child = context.Process(target=_write_share, args=(aggregated, directory, share, there, os.getpid()), daemon=True)
            child.start()
            there.close()
            links.append(here)
            children.append(child)
        tables = _Tables(aggregated, *shares[0])
        held = set(tables.delimiters_held())
        for link in links:
            held |= _received(link)
        delimiter = _first_free(frozenset(held))
        for link in links:
            link.send(delimiter)
        nodes, edges, empty_lists, _ = tables.write(directory, delimiter)
        for link in links:
            more = _received(link)
            nodes.update(more[0])
            edges.update(more[1])
            empty_lists.update(more[2])
        return nodes, edges, empty_lists, delimiter
    finally:
        for child in children:
            if child.is_alive():
                child.kill()
            child.join()


def _write_share(aggregated: Aggregated, directory: Path, share: tuple[frozenset[str], frozenset[str]], link: Any,
                 parent: int) -> None:
    """A forked process's part: its rows, the delimiters they hold, then its files once told the delimiter."""
    die_with_parent(parent)
    try:
        tables = _Tables(aggregated, *share)
        link.send(tables.delimiters_held())
        delimiter = link.recv()
        link.send(tables.write(directory, delimiter))
    except BaseException as exc:  # noqa: BLE001 - sent whole to be raised there: a SinkError names the property and label
        try:
            link.send(exc if isinstance(exc, Exception) else SinkError(f"the CSV writer stopped ({exc!r})"))
        except Exception:  # an exception that does not pickle
            link.send(SinkError(f"the CSV writer failed: {type(exc).__name__}: {exc}"))


def _received(link: Any) -> Any:
    """What a forked writer sent, or the error it stopped with, raised here."""
    try:
        got = link.recv()
    except EOFError:
        raise SinkError("a CSV writer process died before it finished (out of memory?); run the load again") from None
    if isinstance(got, Exception):
        raise got
    return got


# -- servers: where the import runs -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LocalServer:
    """The server ``scripts/neo4j-local`` runs: its ``import`` command imports, swaps and restarts.

    ``home`` is its ``NEO4J_LOCAL_HOME`` (``None``: the script's default).
    """

    script: Path
    home: Path | None = None

    def commands(self, files: ImportFiles, database: str) -> list[list[str]]:
        """Example:
        >>> files = ImportFiles(Path("/tmp/csv"), ("Paper.csv",), (), "\\x1d")
        >>> LocalServer(Path("scripts/neo4j-local")).commands(files, "neo4j")  # doctest: +NORMALIZE_WHITESPACE
        [['scripts/neo4j-local', 'import', 'neo4j', '--nodes=/tmp/csv/Paper.csv', '--array-delimiter=U+001D',
          '--multiline-fields=true']]
        """
        return [[str(self.script), "import", database, *files.importer_args(str(files.directory))]]

    def environment(self) -> dict[str, str]:
        return {"NEO4J_LOCAL_HOME": str(self.home)} if self.home else {}

    def controllable(self) -> bool:
        """True when the script runs a server for this home (so ``choose`` may pick the importer)."""
        if not self.script.is_file():
            return False
        return _run(self, [str(self.script), "status"], timeout=30).returncode == 0


@dataclass(frozen=True, slots=True)
class ComposeServer:
    """The ``neo4j`` service of ``docker-compose.yml``: import in a one-off container on the same
    volume, then stop the service, swap the side database in, start it."""

    service: str = "neo4j"
    project_directory: Path | None = None

    def commands(self, files: ImportFiles, database: str) -> list[list[str]]:
        """Example:
        >>> files = ImportFiles(Path("/tmp/csv"), ("Paper.csv",), (), "\\x1d")
        >>> for command in ComposeServer().commands(files, "neo4j"):
        ...     print(" ".join(command[:9]))
        docker compose run --rm --no-deps -v /tmp/csv:/import-kg:ro neo4j neo4j-admin
        docker compose stop neo4j
        docker compose run --rm --no-deps --entrypoint sh neo4j -c
        docker compose start neo4j
        """
        compose = ["docker", "compose", *(["--project-directory", str(self.project_directory)] if self.project_directory else [])]
        return [
            [*compose, "run", "--rm", "--no-deps", "-v", f"{files.directory}:/import-kg:ro", self.service,
             "neo4j-admin", "database", "import", "full", "--overwrite-destination=true",
             *files.importer_args("/import-kg"), SIDE_DATABASE],
            [*compose, "stop", self.service],
            [*compose, "run", "--rm", "--no-deps", "--entrypoint", "sh", self.service, "-c", SWAP_SCRIPT, "swap",
             database, SIDE_DATABASE],
            [*compose, "start", self.service],
        ]

    def environment(self) -> dict[str, str]:
        return {}

    def controllable(self) -> bool:
        return shutil.which("docker") is not None


Server = LocalServer | ComposeServer


def _run(server: Server, command: list[str], timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``cwd``: the importer writes its ``import.report`` into the working directory."""
    env = {**os.environ, **server.environment()}  # the script reads NEO4J_AUTH and its ports too
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


# -- the load ---------------------------------------------------------------------------------


def held_nodes(driver: neo4j.Driver, database: str) -> int:
    """Nodes in the database other than the format node and the rows of ``rising_entities`` (count
    store: constant time)."""
    with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session:
        every = session.run("MATCH (n) RETURN count(n) AS c").single(strict=True)["c"]
        marks = sum(session.run(f"MATCH (f:{label}) RETURN count(f) AS c").single(strict=True)["c"]
                    for label in (FORMAT_LABEL, RISING_LABEL))
    return int(every - marks)


def choose(aggregated: Aggregated, server: Server, uri: str, user: str, password: str, database: str) -> bool:
    """Whether ``load`` should bulk-import: the database is empty, the graph big enough
    (:data:`BULK_MIN_ROWS`) and the server one kg can stop and start."""
    graph = aggregated.graph
    if len(graph.nodes) + len(graph.edges) < BULK_MIN_ROWS or not server.controllable():
        return False
    with clear_errors(uri, user, database), connect(uri, user, password, 5.0) as driver:
        return held_nodes(driver, database) == 0


def load(
    aggregated: Aggregated,
    server: Server,
    uri: str,
    user: str = "neo4j",
    password: str = "",
    database: str = "neo4j",
    overwrite: bool = False,
    timeout: float = 1800.0,
    work_directory: Path | None = None,
) -> WriteReport:
    """Replace the database with the graph by an offline import; returns counts and seconds per phase.

    Args:
        aggregated: the graph with its aggregates (``kg.schema.aggregates.aggregate``).
        server: where the import runs (:class:`LocalServer` or :class:`ComposeServer`).
        uri, user, password, database: the server over Bolt (password never logged).
        overwrite: replace a database that holds data; without it such a database is refused.
        timeout: seconds allowed for the import and restart.
        work_directory: where the CSV files go (a temporary folder, deleted after).

    Raises:
        SinkError: the database holds data and ``overwrite`` is off, the import or restart failed
            (the database being served is then unchanged), or the server did not come back.
    """
    graph = aggregated.graph
    seconds: dict[str, float] = {}
    check_graph(graph)
    with clear_errors(uri, user, database), connect(uri, user, password, 30.0) as driver:
        held = held_nodes(driver, database)
    if held and not overwrite:
        raise SinkError(
            f"database {database!r} at {uri} holds {held:,} nodes, which a bulk import would replace; "
            "pass --overwrite (overwrite=True) to replace them, or load with --mode diff"
        )
    directory = Path(tempfile.mkdtemp(prefix="kg-import-", dir=work_directory))
    try:
        t = time.perf_counter()
        files = write_csv(aggregated, directory)
        seconds["csv"] = time.perf_counter() - t
        t = time.perf_counter()
        for command in server.commands(files, database):
            try:
                done = _run(server, command, timeout, cwd=directory)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise SinkError(f"bulk import: `{' '.join(command[:4])} …` did not run to the end ({e})") from None
            if done.returncode != 0:
                tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-5:])
                raise SinkError(
                    f"bulk import: `{' '.join(command[:4])} …` failed (exit {done.returncode}): {tail}; "
                    f"check the server at {uri} and run the load again"
                )
        seconds["import"] = time.perf_counter() - t
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    with clear_errors(uri, user, database), connect(uri, user, password, 30.0) as driver:
        t = time.perf_counter()
        _wait_online(driver, database, timeout)
        seconds["start"] = time.perf_counter() - t
        with driver.session(database=database) as session:
            t = time.perf_counter()
            create_schema(session, wait=False)
            for (label, key), empty in files.empty_lists.items():  # while the indexes populate: a scan needs none
                if empty.on_every_node:
                    session.run(empty_list_query(label, key, scan=True)).consume()
            await_indexes(session)
            seconds["indexes"] = time.perf_counter() - t
            t = time.perf_counter()
            for (label, key), empty in files.empty_lists.items():
                if not empty.on_every_node:  # by id, through the id constraint's index
                    for i in range(0, len(empty.ids), 10_000):
                        session.run(empty_list_query(label, key), ids=empty.ids[i : i + 10_000]).consume()
            finish(session, aggregated, resample=False)
            seconds["finish"] = time.perf_counter() - t
    n_counts, e_counts = graph_counts(graph)
    return WriteReport("neo4j-bulk", n_counts, e_counts, seconds)


def empty_list_query(label: str, key: str, scan: bool = False) -> str:
    """Empty lists set by id (the importer stores none), or with ``scan`` on every node of the label
    without the property (:attr:`EmptyLists.on_every_node`); property names come from our schema's maps.

    Example:
        >>> empty_list_query("Method", "aliases")
        'UNWIND $ids AS id MATCH (n:Method {id: id}) SET n.aliases = []'
        >>> empty_list_query("Paper", "aliases", scan=True)
        'MATCH (n:Paper) WHERE n.aliases IS NULL SET n.aliases = []'
    """
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
        raise SinkError(f"property name {key!r} cannot enter a query")
    if scan:
        return f"MATCH (n:{check_label(label)}) WHERE n.{key} IS NULL SET n.{key} = []"
    return f"UNWIND $ids AS id MATCH (n:{check_label(label)} {{id: id}}) SET n.{key} = []"


def _wait_online(driver: neo4j.Driver, database: str, timeout: float) -> None:
    """Until the database answers a query (a server started by ``docker compose start`` is not yet up)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with driver.session(database=database) as session:
                session.run("RETURN 1").consume()
            return
        except (nex.ServiceUnavailable, nex.SessionExpired, nex.TransientError, nex.DatabaseUnavailable):
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)
