"""Neo4j sink: load a ``GraphDocument`` into a live Neo4j 5 server, idempotently and in batches.

The load mirrors the graph: after it, the database holds exactly the graph's nodes (by label)
and relationships (by type), with the properties of :func:`kg.schema.node_properties` and
:func:`kg.schema.edge_properties`, whatever was loaded before. Nodes and relationships of our
labels and types that are no longer in the graph are deleted (``prune=True``); other labels
and types in the same database are left alone.

The load is a diff, because MERGE-and-compare on the server cost a lookup and a property read
per row even when nothing changed. Phases, each write in batched transactions (the driver
retries transient failures, with backoff, for ``retry_seconds``):

1. one uniqueness constraint on ``id`` per label (``IF NOT EXISTS``), which also indexes MERGE, and
   the indexes of :data:`INDEXES`, :data:`TEXT_INDEXES` and :data:`RELATIONSHIP_INDEXES` that the
   canned queries seek on;
2. per label: read what the database holds (``id``, element id, :data:`DIGEST`) as one list,
   then ``UNWIND $rows ... CREATE`` the missing nodes and ``SET n = row.props`` (by element id)
   only where the digest differs;
3. per type the same for relationships, read with their endpoints' element ids, created between
   endpoints found by element id (a direct lookup, one query plan per type);
4. prune: delete what the graph no longer has, and any duplicate of a relationship key;
5. resample the index statistics and clear cached plans, so queries are planned for this graph,
   and record ``kg.schema.formats.NEO4J_FORMAT``, which the canned queries check.

``SET n = row.props`` (not ``+=``) so a property dropped by a rebuild disappears too; a second
load of the same graph writes nothing. Every node and relationship holds a digest of its other
properties (:data:`DIGEST`; a relationship's is of the edge record they are made from), so the load
reads ids and digests rather than every property (the state of the ICLR 2026 graph's 207k
MENTIONS: 0.7 s against 6 s), reads them in a second session while it builds its rows, and makes
the property maps of only the relationships it writes. A property edited by hand keeps
its digest and goes unnoticed; ``verify=True`` (``kg load neo4j --verify``) compares every property
instead and repairs it. Missing, duplicate, stale and misplaced elements are found either way.

Labels and types enter query text only after
:func:`kg.schema.check_label` / :func:`kg.schema.check_edge_type`; every value is a parameter.
A load killed half-way leaves whole committed batches, which the next load's diff completes.
A batch the driver retries (its commit may have gone through before the connection dropped) is
sent again as MERGE, so a retry can never duplicate. Two loads into one database at the same
time are not supported; the next load removes any duplicate relationships they leave.

Nodes and relationships carry the build-time aggregates of :mod:`kg.schema.aggregates` (rank
bands, first year, paper counts, each paper's rank among an entity's papers), as in the RDF store,
so whole-type canned queries and a busy entity's papers seek a few nodes or relationships by index,
and a busy entity holds its first co-occurring entities as three lists (``coOccurringIds``,
``coOccurringAbstracts``, ``coOccurringLabels``).

The ``neo4j`` driver is imported here, and this module is imported only on use, so
``import kg`` stays light.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import neo4j
from neo4j import exceptions as nex

from kg.errors import SinkError
from kg.settings import DEFAULT_NEO4J_URI
from kg.records import ENTITY_LABELS, Edge, GraphDocument
from kg.schema import EDGE_TYPES, NODE_LABELS, check_edge_type, check_label, edge_properties, node_properties
from kg.schema.formats import FORMAT_LABEL, NEO4J_FORMAT, RISING_LABEL
from kg.names import name_keys
from kg.schema.aggregates import SECTIONS, SEPARATOR, Aggregated, CoOccurrence, Rising, joined_keys
from kg.stores import WriteReport, graph_counts, no_gc

log = logging.getLogger(__name__)

# -- query builders: text only, names checked against the schema's allow-list ---------------


def constraint_query(label: str) -> str:
    """Uniqueness of ``id`` per label; also the index every MERGE below uses.

    Example:
        >>> constraint_query("Paper")
        'CREATE CONSTRAINT paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE'
    """
    check_label(label)
    return f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"


INDEXES: dict[str, tuple[tuple[str, ...], ...]] = {
    **{label: (("rankBand",), ("firstYear", "firstYearBand")) for label in ENTITY_LABELS},
    "Paper": (("year",), ("primaryArea",)),
}
"""Range indexes per label: the rank bands of ``top_entities`` and ``new_in_corpus``, paper year and area."""
# The format node (kg.schema.formats) is dropped when a load starts and set when it ends.
DROP_FORMAT = f"MATCH (f:{FORMAT_LABEL}) DELETE f"
SET_FORMAT = f"MERGE (f:{FORMAT_LABEL}) SET f.format = $format"
# The rows of rising_entities (kg.schema.aggregates.risings), rewritten whole before the format node is set.
DROP_RISING = f"MATCH (r:{RISING_LABEL}) DELETE r"
CREATE_RISING = f"UNWIND $rows AS row CREATE (r:{RISING_LABEL}) SET r = row"
RISING_CONSTRAINT = f"CREATE CONSTRAINT paperkgrising_id IF NOT EXISTS FOR (r:{RISING_LABEL}) REQUIRE r.id IS UNIQUE"
RELATIONSHIP_INDEXES: dict[str, tuple[str, ...]] = {"MENTIONS": ("paperBand",)}
"""Range indexes per relationship type: ``papers_for_entity`` seeks its first rows by band key."""
AREA_KEYS = "areaKeys"
"""Neo4j's form of ``areaBands``: a range index takes no list, so keys are joined into one string, each
between record separators (U+001E), that a text index finds with CONTAINS.  An entity in band b of an
area holds ``area<US>upto<c>`` for every c from b to :data:`AREA_KEY_BANDS` (so ranks 1..top need one
look-up per label, not one per band), or ``area<US><b>`` beyond that."""
AREA_KEY_BANDS = 10
"""Bands (ranks up to 1,024) that get cumulative ``upto`` keys."""
NAME_KEYS = "nameKeys"
"""The lower-cased name, title and aliases of a node (``kg.names.name_keys``), joined as
:data:`AREA_KEYS` are: resolving a parameter by name is a text-index look-up, not a scan of every
node's aliases (half a second on the ICLR 2026 graph)."""
TEXT_INDEXES: dict[str, tuple[str, ...]] = {
    label: ((AREA_KEYS,) if label in SECTIONS else ()) + (NAME_KEYS,) for label in (*ENTITY_LABELS, "Paper")
}
"""Text indexes per label: ``area_overview`` looks band keys up in ``areaKeys``, name resolution
names up in ``nameKeys``."""


def index_query(label: str, properties: tuple[str, ...]) -> str:
    """One range index (``IF NOT EXISTS``); property names come from :data:`INDEXES`, never from data.

    Example:
        >>> index_query("Method", ("firstYear", "firstYearBand"))
        'CREATE INDEX method_firstyear_firstyearband IF NOT EXISTS FOR (n:Method) ON (n.firstYear, n.firstYearBand)'
    """
    check_label(label)
    name = "_".join((label, *properties)).lower()
    return f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON ({', '.join(f'n.{p}' for p in properties)})"


def relationship_index_query(edge_type: str, prop: str) -> str:
    """One range index on a relationship property (``IF NOT EXISTS``), from :data:`RELATIONSHIP_INDEXES`.

    Example:
        >>> relationship_index_query("MENTIONS", "paperBand")
        'CREATE INDEX mentions_paperband IF NOT EXISTS FOR ()-[r:MENTIONS]-() ON (r.paperBand)'
    """
    check_edge_type(edge_type)
    return f"CREATE INDEX {edge_type.lower()}_{prop.lower()} IF NOT EXISTS FOR ()-[r:{edge_type}]-() ON (r.{prop})"


def text_index_query(label: str, prop: str) -> str:
    """One text index (``IF NOT EXISTS``); the property name comes from :data:`TEXT_INDEXES`.

    Example:
        >>> text_index_query("Problem", "areaKeys")
        'CREATE TEXT INDEX problem_areakeys IF NOT EXISTS FOR (n:Problem) ON (n.areaKeys)'
    """
    check_label(label)
    return f"CREATE TEXT INDEX {label.lower()}_{prop.lower()} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})"


def state_query(name: str, verify: bool = False) -> str:
    """What the database holds of a label (``id``) or type (``key`` and endpoints): one record whose
    ``held`` lists ``[key, element id, digest(, a, b)]``, or with ``verify`` one record per element
    with all its properties.

    The diff against the graph happens in Python (``WHERE NOT n.id IN $ids`` would compare each
    node with the whole list). One list, not a record per element: the driver spends ~10 µs on a
    record, and the ICLR 2026 graph has 560k elements.

    Example:
        >>> state_query("Bound")
        'MATCH (x:Bound) RETURN collect([x.id, elementId(x), x.kgDigest]) AS held'
        >>> state_query("USES")
        'MATCH (a)-[x:USES]->(b) RETURN collect([x.key, elementId(x), x.kgDigest, elementId(a), elementId(b)]) AS held'
        >>> state_query("USES", verify=True)  # doctest: +NORMALIZE_WHITESPACE
        'MATCH (a)-[x:USES]->(b) RETURN x.key AS key, elementId(x) AS eid, properties(x) AS props,
         elementId(a) AS a, elementId(b) AS b'
    """
    if name in EDGE_TYPES:
        match, key, ends = f"MATCH (a)-[x:{check_edge_type(name)}]->(b)", "x.key", ("a", "b")
    else:
        match, key, ends = f"MATCH (x:{check_label(name)})", "x.id", ()
    if verify:
        return f"{match} RETURN {key} AS key, elementId(x) AS eid, properties(x) AS props" + "".join(
            f", elementId({end}) AS {end}" for end in ends)
    fields = [key, "elementId(x)", f"x.{DIGEST}", *(f"elementId({end})" for end in ends)]
    return f"{match} RETURN collect([{', '.join(fields)}]) AS held"


def held(session: neo4j.Session, name: str, verify: bool = False) -> Iterable[Sequence[Any]]:
    """The database's records of a label or type, as :func:`state_query` reads them."""
    if verify:
        return session.run(state_query(name, verify=True))
    return session.run(state_query(name)).single(strict=True)["held"]


def read_states(driver: neo4j.Driver, database: str, fetch_size: int) -> dict[str, Sequence[Sequence[Any]]]:
    """What the database holds of every label and type (:func:`held`), in a session of its own.

    It may be read before the nodes are written: the load creates nodes without relationships,
    keeps element ids when it updates and deletes only after both phases.
    """
    with driver.session(database=database, fetch_size=fetch_size) as session:
        return {name: held(session, name) for name in (*NODE_LABELS, *EDGE_TYPES)}


def node_create_query(label: str, merge: bool = False) -> str:
    """One batch of new nodes of one label: rows ``{id, props}``; returns each row's element id.

    ``merge=True`` is the retry form: a retried batch may have committed already.

    Example:
        >>> node_create_query("Method")
        'UNWIND $rows AS row CREATE (n:Method) SET n = row.props RETURN row.id AS id, elementId(n) AS eid'
        >>> node_create_query("Method", merge=True)  # doctest: +NORMALIZE_WHITESPACE
        'UNWIND $rows AS row MERGE (n:Method {id: row.id}) SET n = row.props
         RETURN row.id AS id, elementId(n) AS eid'
    """
    check_label(label)
    pattern = f"MERGE (n:{label} {{id: row.id}})" if merge else f"CREATE (n:{label})"
    return f"UNWIND $rows AS row {pattern} SET n = row.props RETURN row.id AS id, elementId(n) AS eid"


def edge_create_query(edge_type: str, merge: bool = False) -> str:
    """One batch of new relationships of one type: rows ``{a, b, props}``, endpoints by element id.

    Element ids serve every (source label, target label) pair with one query plan per type
    and are a direct lookup, not an index seek. Returns how many rows found both endpoints.
    ``merge=True`` is the retry form (one edge per (source, type, target), so MERGE is exact).

    Example:
        >>> edge_create_query("MENTIONS")  # doctest: +NORMALIZE_WHITESPACE
        'UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.a MATCH (b) WHERE elementId(b) = row.b
         CREATE (a)-[r:MENTIONS]->(b) SET r = row.props RETURN count(*) AS n'
    """
    check_edge_type(edge_type)
    return (
        "UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.a MATCH (b) WHERE elementId(b) = row.b "
        f"{'MERGE' if merge else 'CREATE'} (a)-[r:{edge_type}]->(b) SET r = row.props RETURN count(*) AS n"
    )


# Rows ``{eid, props}``: properties replaced where the diff found them changed.
UPDATE_NODES = "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n = row.props RETURN count(*) AS n"
UPDATE_RELATIONSHIPS = (
    "UNWIND $rows AS row MATCH ()-[r]->() WHERE elementId(r) = row.eid SET r = row.props RETURN count(*) AS n"
)
DELETE_NODES = "UNWIND $rows AS eid MATCH (n) WHERE elementId(n) = eid DETACH DELETE n"
DELETE_RELATIONSHIPS = "UNWIND $rows AS eid MATCH ()-[r]->() WHERE elementId(r) = eid DELETE r"


# -- rows and the diff ------------------------------------------------------------------------

DIGEST = "kgDigest"
"""The property that holds a digest of a node's or relationship's other properties (:func:`digested`)."""


def digested(props: dict[str, Any]) -> dict[str, Any]:
    """``props`` with :data:`DIGEST` added: 96 bits of BLAKE2b over their ``repr``, which is the same
    for the same values in the same order (the schema builds maps in a fixed order).

    Example:
        >>> digested({"id": "method:x", "aliases": ["X"]})[DIGEST]
        '8d6a1bf7459c1a171bbfa711'
    """
    props[DIGEST] = _digest(props)
    return props


def _digest(value: Any) -> str:
    return hashlib.blake2b(repr(value).encode(), digest_size=12).hexdigest()


_EVIDENCE_FIELDS = attrgetter("paper", "start", "end", "sentence_start", "sentence_end", "rule", "confidence")


def edge_digest(edge: Edge) -> str:
    """A relationship's :data:`DIGEST`: of the edge record its properties are made from, not of the
    property map, so that a load finds the unchanged relationships without building their maps
    (4 s of the ICLR 2026 graph's 428k, in every load).

    Example:
        >>> edge_digest(Edge("method:x", "problem:y", "ADDRESSES"))
        '6dbb822c70eb3d09a92c2e65'
    """
    return _digest((edge.source, edge.type, edge.target, list(map(_EVIDENCE_FIELDS, edge.evidence)), edge.properties))


def node_rows(aggregated: Aggregated, labels: Container[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rows ``{id, digest, props}`` per label (of ``labels`` only, if given), in the graph's (sorted)
    order, with its aggregates (``kg.schema.aggregates``) and the Neo4j forms of the keys and lists."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    co_occurring: dict[str, list[CoOccurrence]] = defaultdict(list)
    for c in aggregated.co_occurrences:
        co_occurring[c.entity].append(c)
    for node in aggregated.graph.nodes:
        if labels is not None and node.label not in labels:
            continue
        props = node_properties(node)
        if props.get("areaBands"):
            props[AREA_KEYS] = area_keys(props["areaBands"])
        if node.label in TEXT_INDEXES:
            props[NAME_KEYS] = joined_keys(sorted(name_keys(node)))
        if node.id in co_occurring:
            props["coOccurringIds"] = [c.other for c in co_occurring[node.id]]
            props["coOccurringAbstracts"] = [c.abstracts for c in co_occurring[node.id]]
            props["coOccurringLabels"] = [c.label for c in co_occurring[node.id]]
        props = digested(props)
        rows[check_label(node.label)].append({"id": node.id, "digest": props[DIGEST], "props": props})
    return dict(rows)


def rising_rows(risings: Sequence[Rising]) -> list[dict[str, Any]]:
    """One row per (label, since) that has rising entities, id ``<label><US><since>``: the entity ids of
    the first ``RISING_DEPTH`` of the ranking in its order, their dated papers before and since, and
    the totals (``kg.queries.steps.rising_entities`` decides when to count instead).

    Example:
        >>> rising_rows([Rising("method:b", "Method", (2019, 2020), 0, 1, 1, 2, 1)])[1]["id"]
        'Method\\x1f2020'
    """
    rows: dict[str, dict[str, Any]] = {}
    for r in risings:  # by label, split and rank
        for since in r.sinces:
            key = f"{r.label}{SEPARATOR}{since}"
            row = rows.setdefault(key, {"id": key, "entityIds": [], "papersBefore": [], "papersSince": [],
                                        "datedPapersBefore": r.total_before, "datedPapersSince": r.total_after})
            row["entityIds"].append(r.entity)
            row["papersBefore"].append(r.before)
            row["papersSince"].append(r.after)
    return list(rows.values())


def area_keys(area_bands: Sequence[str]) -> str:
    """The :data:`AREA_KEYS` string of an entity's ``areaBands`` items (``area<US>band``).

    Example:
        >>> area_keys(["vision\\x1f9", "rl\\x1f11"]).split("\\x1e")
        ['', 'vision\\x1fupto9', 'vision\\x1fupto10', 'rl\\x1f11', '']
    """
    keys = []
    for item in area_bands:
        area, _, number = item.rpartition("\x1f")
        band = int(number)
        if band <= AREA_KEY_BANDS:
            keys += [f"{area}\x1fupto{c}" for c in range(band, AREA_KEY_BANDS + 1)]
        else:
            keys.append(item)
    return joined_keys(keys)


def edge_rows(graph: GraphDocument, element_ids: Mapping[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Rows per type: ``key``, endpoints ``a``/``b`` as the element ids the node phase found, the
    ``digest`` and the ``edge`` whose properties :func:`row_properties` makes when they are written."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for edge in graph.edges:
        rows[check_edge_type(edge.type)].append(
            {"key": edge.key, "a": element_ids[edge.source], "b": element_ids[edge.target], "digest": edge_digest(edge), "edge": edge}
        )
    return dict(rows)


def relationship_properties(edge: Edge) -> dict[str, Any]:
    """What a relationship holds: the schema's map (:func:`kg.schema.edge_properties`) and its digest."""
    props = edge_properties(edge)
    props[DIGEST] = edge_digest(edge)
    return props


def row_properties(row: Mapping[str, Any]) -> dict[str, Any]:
    """The properties a node row carries, or those of a relationship row's edge."""
    return row["props"] if "props" in row else relationship_properties(row["edge"])


def stored(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties as Neo4j keeps them: no null values (``SET n = map`` drops them), lists not tuples.

    Example:
        >>> stored({"a": None, "b": (1, 2), "c": "x"})
        {'b': [1, 2], 'c': 'x'}
    """
    return {k: list(v) if isinstance(v, tuple) else v for k, v in props.items() if v is not None}


@dataclass(slots=True)
class Diff:
    """What one label or type needs: rows to create, ``{eid, props}`` rows to update, stale element ids.

    ``kept`` maps each key the database already holds to its element id.
    """

    create: list[dict[str, Any]] = field(default_factory=list)
    update: list[dict[str, Any]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    kept: dict[Any, str] = field(default_factory=dict)
    unchanged: int = 0


def diff(rows: Sequence[Mapping[str, Any]], key: str, held: Iterable[Sequence[Any]], verify: bool = False) -> Diff:
    """Compare the graph's rows with what the database holds: records ``(key, eid, digest[, a, b])``,
    or with ``verify`` ``(key, eid, props[, a, b])``.

    A held record whose key the graph lacks, a second record with the same key (only two loads
    running at once could leave one), or a relationship whose endpoints (element ids ``a``,
    ``b``) are not its row's is stale; a graph row without a held record is created; one whose
    digest (or with ``verify``, whose properties) differ is updated.

    Example:
        >>> rows = [{"id": i, "props": digested({"id": i, "v": 1})} for i in "ab"]
        >>> rows = [{**row, "digest": row["props"][DIGEST]} for row in rows]
        >>> d = diff(rows, "id", [("a", "e1", rows[0]["digest"]), ("c", "e3", "0f")])
        >>> [r["id"] for r in d.create], d.update, d.stale, d.unchanged
        (['b'], [], ['e3'], 1)
        >>> edited = {**rows[0]["props"], "v": 2}  # by hand: the digest is the graph's, a value is not
        >>> [u["eid"] for u in diff(rows, "id", [("a", "e1", edited)], verify=True).update]
        ['e1']
    """
    want = {row[key]: row for row in rows}
    seen: set[Any] = set()
    out = Diff()
    for k, eid, value, *ends in held:
        row = want.get(k)
        if row is None or k in seen or (ends and (ends[0], ends[1]) != (row["a"], row["b"])):
            out.stale.append(eid)
            continue
        seen.add(k)
        out.kept[k] = eid
        if value == (stored(row_properties(row)) if verify else row["digest"]):
            out.unchanged += 1
        else:
            out.update.append({"eid": eid, "props": row_properties(row)})
    out.create = [row for k, row in want.items() if k not in seen]
    return out


def _batches(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


# -- errors -----------------------------------------------------------------------------------


@contextlib.contextmanager
def clear_errors(uri: str, user: str, database: str) -> Iterator[None]:
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


QUERY_RETRY_SECONDS = 5.0
"""A question is asked once: a few seconds of retries and of connecting, not the driver's default thirty."""


def query_driver(uri: str, auth: tuple[str, str] | None) -> neo4j.Driver:
    """A driver for questions (``kg query``, ``kg serve``): a dead server is reported in seconds."""
    return neo4j.GraphDatabase.driver(uri, auth=auth, max_transaction_retry_time=QUERY_RETRY_SECONDS,
                                      connection_timeout=QUERY_RETRY_SECONDS)


def connect(uri: str, user: str, password: str, retry_seconds: float) -> neo4j.Driver:
    if not uri.startswith(("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")):
        # The driver also takes http:// (a preview Query API needing aiohttp); we load over Bolt.
        raise SinkError(f"cannot load into Neo4j at {uri}: use a bolt:// or neo4j:// URI (port 7687 by default)")
    return neo4j.GraphDatabase.driver(
        uri, auth=(user, password), max_transaction_retry_time=retry_seconds, connection_timeout=10.0,
        # Reading a type no load has created yet draws an "unknown relationship type" warning.
        notifications_min_severity="OFF",
    )


# -- the writer -------------------------------------------------------------------------------

DEFAULT_BATCH_SIZE = 10_000


def load(
    aggregated: Aggregated,
    uri: str = DEFAULT_NEO4J_URI,
    user: str = "neo4j",
    password: str = "",
    database: str = "neo4j",
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    prune: bool = True,
    retry_seconds: float = 30.0,
    verify: bool = False,
) -> WriteReport:
    """Load a graph so that the database holds exactly its nodes and relationships.

    Args:
        aggregated: the graph with its aggregates (``kg.schema.aggregates.aggregate``).
        uri, user, password, database: the server (``kg.settings.Settings.from_env()`` reads
            them from the environment; the password is never logged).
        batch_size: rows per write transaction.
        progress: show a progress bar on stderr.
        prune: delete nodes of our labels and relationships of our types that are not in ``graph``.
        retry_seconds: how long the driver retries a batch that failed transiently.
        verify: compare every property, not digests, so hand edits of properties are repaired too.

    Returns:
        WriteReport: counts in the graph by label and type, seconds per phase.

    Raises:
        SinkError: wrong credentials, unreachable server, unknown database, refused data.

    Example:
        >>> from kg.schema.aggregates import aggregate
        >>> load(aggregate(GraphDocument((), ())), "bolt://127.0.0.1:1", progress=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kg.errors.SinkError: cannot reach Neo4j at bolt://127.0.0.1:1 (...
    """
    if batch_size < 1:
        raise SinkError(f"batch_size must be at least 1, got {batch_size}")
    seconds: dict[str, float] = {}
    # no_gc: rows built and states read are millions of small objects beside the graph's own.
    with (clear_errors(uri, user, database), connect(uri, user, password, retry_seconds) as driver, no_gc(),
          ThreadPoolExecutor(1) as reader):
        graph = aggregated.graph
        check_graph(graph)
        t = time.perf_counter()
        driver.verify_connectivity()
        # fetch_size: the state reads stream whole labels and types; fewer round trips.
        with driver.session(database=database, fetch_size=batch_size) as session:
            session.run("RETURN 1").consume()  # an unknown database fails here, before any write
            create_schema(session)
            session.run(DROP_FORMAT).consume()
            seconds["constraints"] = time.perf_counter() - t
            # The server reads its state while the rows are built here; with verify, every property
            # of every element would be held at once, so that state is read label by label instead.
            states = None if verify else reader.submit(read_states, driver, database, batch_size)
            nodes = node_rows(aggregated)

            def state(name: str) -> Iterable[Sequence[Any]]:
                return held(session, name, verify=True) if states is None else states.result()[name]

            bar = _progress(len(graph.nodes) + len(graph.edges), progress)
            stale: list[tuple[str, list[str]]] = []
            done = Counter[str]()
            try:
                t = time.perf_counter()
                element_ids: dict[str, str] = {}
                for label in NODE_LABELS:
                    d = diff(nodes.get(label, []), "id", state(label), verify)
                    element_ids.update(d.kept)
                    bar.update(d.unchanged)
                    for batch in _batches(d.create, batch_size):
                        records = _write(session, node_create_query(label), batch, node_create_query(label, merge=True))
                        element_ids.update((r["id"], r["eid"]) for r in records)
                        bar.update(len(batch))
                    _update(session, UPDATE_NODES, d.update, batch_size, bar)
                    stale.append((DELETE_NODES, d.stale))
                    done.update(created=len(d.create), updated=len(d.update))
                seconds["nodes"] = time.perf_counter() - t

                t = time.perf_counter()
                edges = edge_rows(graph, element_ids)
                for edge_type in EDGE_TYPES:
                    d = diff(edges.get(edge_type, []), "key", state(edge_type), verify)
                    bar.update(d.unchanged)
                    create, merge = edge_create_query(edge_type), edge_create_query(edge_type, merge=True)
                    for batch in _batches(d.create, batch_size):
                        sent = [{"a": r["a"], "b": r["b"], "props": row_properties(r)} for r in batch]
                        _check_written(_write(session, create, sent, merge), len(sent))
                        bar.update(len(batch))
                    _update(session, UPDATE_RELATIONSHIPS, d.update, batch_size, bar)
                    stale.insert(0, (DELETE_RELATIONSHIPS, d.stale))  # relationships before nodes
                    done.update(created=len(d.create), updated=len(d.update))
                seconds["relationships"] = time.perf_counter() - t
            finally:
                bar.close()

            if prune:
                t = time.perf_counter()
                for query, eids in stale:
                    for batch in _batches(eids, batch_size):
                        session.execute_write(_run, query, batch)
                    done.update(deleted=len(eids))
                seconds["prune"] = time.perf_counter() - t

            t = time.perf_counter()
            finish(session, aggregated)
            seconds["statistics"] = time.perf_counter() - t
    n_counts, e_counts = graph_counts(graph)
    log.info(
        "neo4j: loaded %d nodes, %d relationships into %s/%s (created %d, updated %d, deleted %d)",
        len(graph.nodes), len(graph.edges), uri, database, done["created"], done["updated"], done["deleted"],
    )
    return WriteReport("neo4j", n_counts, e_counts, seconds, batch_size)


def create_schema(session: neo4j.Session, wait: bool = True) -> None:
    """The constraints and indexes of every load (diff or bulk), then (``wait``) wait until they are
    online; a bulk import writes beside their population and waits later (``await_indexes``)."""
    for label in NODE_LABELS:
        session.run(constraint_query(label)).consume()
    session.run(RISING_CONSTRAINT).consume()
    for label, indexed in INDEXES.items():
        for properties in indexed:
            session.run(index_query(label, properties)).consume()
    for label, props in TEXT_INDEXES.items():
        for prop in props:
            session.run(text_index_query(label, prop)).consume()
    for edge_type, props in RELATIONSHIP_INDEXES.items():
        for prop in props:
            session.run(relationship_index_query(edge_type, prop)).consume()
    if wait:
        await_indexes(session)


def await_indexes(session: neo4j.Session) -> None:
    """Until every index is online (populated)."""
    session.run("CALL db.awaitIndexes(300)").consume()


def finish(session: neo4j.Session, aggregated: Aggregated, resample: bool = True) -> None:
    """The rows of ``rising_entities``, fresh index statistics and plans, then the format node that
    marks the load complete.

    Statistics sampled while the database was empty make the planner scan an index it should seek
    (papers_for_entity did, after a load into an emptied database).  A bulk import passes
    ``resample=False``: its indexes were just built over the imported data, which samples them, and
    the restart left no cached plan.
    """
    session.execute_write(lambda tx: (tx.run(DROP_RISING).consume(),
                                      tx.run(CREATE_RISING, rows=rising_rows(aggregated.risings)).consume()))
    if resample:
        session.run("CALL db.prepareForReplanning()").consume()
    session.run(SET_FORMAT, format=NEO4J_FORMAT).consume()


def _run(tx: neo4j.ManagedTransaction, query: str, batch: Sequence[Any]) -> list[neo4j.Record]:
    return list(tx.run(query, rows=batch))


def _write(session: neo4j.Session, query: str, batch: Sequence[Any], retry_query: str) -> list[neo4j.Record]:
    """One CREATE batch; a retry runs ``retry_query`` (MERGE), since the first commit may have landed."""
    attempts = 0

    def work(tx: neo4j.ManagedTransaction) -> list[neo4j.Record]:
        nonlocal attempts
        attempts += 1
        return _run(tx, query if attempts == 1 else retry_query, batch)

    # execute_write retries transient errors and lost connections with backoff.
    return session.execute_write(work)


def _update(session: neo4j.Session, query: str, rows: Sequence[Any], batch_size: int, bar: Any) -> None:
    for batch in _batches(rows, batch_size):
        _check_written(session.execute_write(_run, query, batch), len(batch))
        bar.update(len(batch))


def _check_written(records: Sequence[neo4j.Record], expected: int) -> None:
    """Rows are matched by element ids read moments ago; fewer matches means another writer."""
    if records[0]["n"] != expected:
        raise SinkError(
            f"{expected - records[0]['n']} of {expected} rows found no node or relationship: the database "
            "changed during the load (another writer?); run the load again"
        )


def check_graph(graph: GraphDocument) -> None:
    """Refuse unknown labels and types and dangling edges before the server is contacted."""
    for label in sorted({node.label for node in graph.nodes}):
        check_label(label)
    ids = {node.id for node in graph.nodes}
    for edge in graph.edges:
        check_edge_type(edge.type)
        for end in (edge.source, edge.target):
            if end not in ids:
                raise SinkError(f"edge {edge.key!r} names node {end!r}, which is not in the graph")


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="row", desc="neo4j", disable=not enabled, leave=False)


def count(
    uri: str = DEFAULT_NEO4J_URI, user: str = "neo4j", password: str = "", database: str = "neo4j"
) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes by label and relationships by type in the database, our labels and types only.

    Same shape as :func:`kg.stores.graph_counts`, so a test can compare the two directly
    (zero counts are left out). Reads Neo4j's count store: constant time.
    """
    with clear_errors(uri, user, database), connect(uri, user, password, 5.0) as driver:
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
