"""The three places a canned query runs: networkx (Python), the embedded RDF store (SPARQL), Neo4j (Cypher).

Each backend runs a query's own text with bound parameters and answers the three look-ups entity
resolution needs (which candidate ids exist, which nodes carry a name, every name for suggestions).
Labels reach Cypher text only after the schema's allow-list has checked them.
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kg.errors import BackendUnavailable
from kg.queries.spec import Param
from kg.schema import check_label
from kg.schema import vocab as v
from kg.schema.formats import READ_NEO4J_FORMAT, check_neo4j
from kg.stores.rdf import to_python
from kg.names import fragment_pieces
from kg.schema.aggregates import SEPARATOR, joined_keys

LIST_SEPARATOR = "\x1f"
"""What SPARQL ``GROUP_CONCAT`` joins list columns with: a control character no name contains."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node a parameter value may resolve to."""

    id: str
    label: str
    name: str
    support: int


class Backend(Protocol):
    """Runs query text (the Python backend runs the references instead) and answers resolution look-ups."""

    name: str

    def execute(self, text: str, values: dict[str, Any], params: Sequence[Param], cap: int | None = None) -> list[dict[str, Any]]:
        """Rows of the query text; ``cap``: the caller keeps only the first rows (the query's order is total)."""
        ...

    def existing(self, ids: Sequence[str], labels: Sequence[str]) -> list[Candidate]: ...

    def named(self, keys: Sequence[str], labels: Sequence[str]) -> list[Candidate]: ...

    def names(self, labels: Sequence[str], groups: Sequence[frozenset[str]], at_least: int) -> list[str]:
        """Names of nodes with these labels, at least every one whose ``name_fragments`` meet ``at_least``
        of the fragment ``groups`` (a backend may return more, e.g. by a substring test; the caller
        filters)."""
        ...


class PythonBackend:
    """The reference implementation: the runner calls each query's declared Python function on
    ``graph``, a networkx ``MultiDiGraph`` (``kg.stores.nx.to_networkx``) or a ``GraphDocument``
    (converted when a query first runs: resolving a name needs only the nodes)."""

    name = "python"
    _indexes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __init__(self, graph: Any) -> None:
        from kg.records import GraphDocument

        if isinstance(graph, GraphDocument):
            self._document, self._graph = graph, None
            self.nodes: Any = {n.id: {"label": n.label, "name": n.name, "title": n.properties.get("title"),
                                      "aliases": n.aliases, "support": n.support} for n in graph.nodes}
            self._own_index: dict[str, set[str]] | None = None
        else:
            self._document, self._graph, self.nodes = None, graph, graph.nodes

    @property
    def graph(self) -> Any:
        if self._graph is None:
            from kg.stores.nx import to_networkx

            self._graph = to_networkx(self._document)
        return self._graph

    def _candidate(self, node: str) -> Candidate:
        d = self.nodes[node]
        return Candidate(node, d["label"], d["name"], d.get("support", 0))

    def existing(self, ids: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        return [self._candidate(i) for i in dict.fromkeys(ids) if i in self.nodes and self.nodes[i]["label"] in labels]

    def _index(self) -> dict[str, set[str]]:
        """Lower-cased names, aliases and titles to node ids, built once per graph."""
        index = self._indexes.get(self._graph) if self._graph is not None else self._own_index
        if index is None:
            index = {}
            for node, d in self.nodes.items():
                for text in (d.get("name"), d.get("title"), *d.get("aliases", ())):
                    if text:
                        index.setdefault(text.lower(), set()).add(node)
            if self._document is None:
                self._indexes[self._graph] = index
            else:
                self._own_index = index
        return index

    def named(self, keys: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        index = self._index()
        found = {n for k in keys for n in index.get(k, ())}
        return [self._candidate(n) for n in sorted(found) if self.nodes[n]["label"] in labels]

    def names(self, labels: Sequence[str], groups: Sequence[frozenset[str]], at_least: int) -> list[str]:
        return [
            d["name"] for d in self.nodes.values()
            if d["label"] in labels and sum(any(_contains(d["name"].lower(), f) for f in g) for g in groups) >= at_least
        ]


class SparqlBackend:
    """The embedded store: a ``pyoxigraph.Store`` holding the ``kg.schema.vocab`` mapping.

    Oxigraph plans a query without knowing that a substituted variable is bound (pyoxigraph 0.5.13,
    the latest, still does), so the canned queries start from a triple pattern on the parameter,
    join every further pattern through a variable already bound, and read per-row values with
    OPTIONALs of one triple.  An OPTIONAL of several triples, or an edge type compared with ``=``
    (a constant the planner would start from), makes Oxigraph read whole predicates instead.
    Whole-type rankings read the rank bands of ``kg.schema.aggregates``.  Patterns that follow a
    UNION of look-ups go in a LATERAL, or the planner starts from them (every ``?n a ?cls``).  A
    substituted variable must also be projected.
    """

    name = "embedded"

    def __init__(self, store: Any) -> None:
        self.store = store

    def _select(
        self, text: str, substitutions: dict[str, Any], cap: int | None = None, read: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Rows of a SELECT, as Python values of the variables in ``read`` (default: all projected; the
        substituted ones must be projected too, and a look-up may substitute hundreds)."""
        import pyoxigraph as ox

        subs = {ox.Variable(k): term for k, term in substitutions.items()}
        result = self.store.query(text, prefixes=v.PREFIXES, substitutions=subs)
        names = [var.value for var in result.variables if read is None or var.value in read]
        # Each solution costs a Python object: stop at the cap rather than convert rows the runner drops.
        return [{n: to_python(sol[n], node_ids=False) for n in names} for sol in itertools.islice(result, cap)]

    def execute(self, text: str, values: dict[str, Any], params: Sequence[Param], cap: int | None = None) -> list[dict[str, Any]]:
        import pyoxigraph as ox

        types = {p.name: p for p in params}
        subs: dict[str, Any] = {}
        for key, value in values.items():
            if value is None or not re.search(rf"\?{key}\b", _code(text)):
                continue  # left out, an optional parameter stays a free variable that matches anything
            param = types[key]
            if param.labels:
                subs[key] = ox.NamedNode(v.node_iri(value))
            elif param.type == "label":
                subs[key] = ox.NamedNode(v.class_iri(value))
            else:
                subs[key] = ox.Literal(value)
        return self._select(text, subs, cap)

    def existing(self, ids: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        import pyoxigraph as ox

        ids = list(dict.fromkeys(ids))
        # One query for every candidate id (a resolution tries dozens): a UNION branch per id, each
        # starting from its own bound variable.
        branches = " UNION ".join(f"{{ {_node_pattern(f'?n{i}')} BIND({i} AS ?at) }}" for i in range(len(ids)))
        text = f"SELECT {' '.join(f'?n{i}' for i in range(len(ids)))} ?at ?cls ?name ?support WHERE {{ {branches} }}"
        found = {}
        subs = {f"n{i}": ox.NamedNode(v.node_iri(node)) for i, node in enumerate(ids)}
        for row in self._select(text, subs, read=("at", "cls", "name", "support")):
            candidate = _candidate(ids[row["at"]], row, labels)
            if candidate is not None:
                found[row["at"]] = candidate
        return [found[i] for i in sorted(found)]

    def named(self, keys: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        # kg:nameKey holds every lower-cased name, title and alias
        rows = self._look_up("kg:nameKey", [(k,) for k in dict.fromkeys(keys)], _node_pattern("?n"), ("cls", "name", "support"))
        found = (_candidate(v.node_id(row["n"]), row, labels) for row in rows)
        return sorted((c for c in found if c is not None), key=lambda c: c.id)

    def names(self, labels: Sequence[str], groups: Sequence[frozenset[str]], at_least: int) -> list[str]:
        # kg:nameFragment indexes "<label><US><fragment>" for the pieces name_fragments gives; a node
        # meets two groups when it has a fragment of each: a branch per pair, joined in the store
        picks = [
            tuple(f"{label}{SEPARATOR}{f}" for f in chosen)
            for label in labels
            for chosen_groups in itertools.combinations([sorted(g) for g in groups], at_least)
            for chosen in itertools.product(*chosen_groups)
        ]
        return [row["name"] for row in self._look_up("kg:nameFragment", picks, "?n skos:prefLabel ?name", ("name",))]

    def _look_up(self, predicate: str, keys: Sequence[Sequence[str]], pattern: str, columns: Sequence[str]) -> list[dict[str, Any]]:
        """Rows of the nodes ``?n`` whose ``predicate`` has every value of one of ``keys``: a UNION
        branch per tuple, each starting from its bound literals, then ``pattern`` in a LATERAL (after a
        UNION, the planner would start from it)."""
        import pyoxigraph as ox

        subs = {f"k{i}_{j}": ox.Literal(k) for i, tup in enumerate(keys) for j, k in enumerate(tup)}
        if not subs:
            return []
        branches = " UNION ".join(
            "{ " + " . ".join(f"?n {predicate} ?k{i}_{j}" for j in range(len(tup))) + " }" for i, tup in enumerate(keys)
        )
        text = f"SELECT DISTINCT {' '.join(f'?{k}' for k in subs)} ?n {' '.join(f'?{c}' for c in columns)} WHERE {{ {branches} LATERAL {{ {pattern} }} }}"
        return self._select(text, subs, read=("n", *columns))


def _contains(name: str, fragment: str) -> bool:
    """Whether lower-cased ``name`` contains every piece of ``fragment`` (a superset of having it)."""
    return all(piece in name for piece in fragment_pieces(fragment))


def _node_pattern(node: str) -> str:
    """The class, name and support of ``node`` (a variable), each a one-triple pattern."""
    return f"{node} a ?cls . OPTIONAL {{ {node} skos:prefLabel ?name }} OPTIONAL {{ {node} kg:support ?support }}"


def _candidate(node_id: str, row: dict[str, Any], labels: Sequence[str]) -> Candidate | None:
    """A resolution candidate from a row of ``_node_pattern``, if its class is one of ``labels``."""
    label = row["cls"].removeprefix(v.KG)
    return Candidate(node_id, label, row["name"] or "", row["support"] or 0) if label in labels else None


def _code(text: str) -> str:
    """Query text without its comment lines (the header names parameters too)."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


class CypherBackend:
    """Neo4j through the official driver; reads only, parameters always bound."""

    name = "neo4j"
    _checked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __init__(self, driver: Any, database: str | None = None) -> None:
        self.driver = driver
        self.database = database
        self._check_format()

    def _check_format(self) -> None:
        """Refuse a database that no complete load by this version wrote (``kg.schema.formats``).
        Asked once per driver and database."""
        checked = self._checked.setdefault(self.driver, set())
        if self.database in checked:
            return
        check_neo4j([r["format"] for r in self._read(READ_NEO4J_FORMAT, {})], self.database)
        checked.add(self.database)

    def _read(self, text: str, parameters: dict[str, Any]) -> list[dict[str, Any]]:
        import neo4j
        import neo4j.exceptions as nex

        try:
            records, _, _ = self.driver.execute_query(
                text, parameters_=parameters, database_=self.database, routing_=neo4j.RoutingControl.READ
            )
        except (nex.ServiceUnavailable, nex.SessionExpired, nex.DatabaseUnavailable) as e:
            # A server that is down or stopped mid-query: the driver retried; say what to do, not a traceback.
            raise BackendUnavailable(
                f"Neo4j does not answer ({type(e).__name__}: {' '.join(str(e).split())}); start it with "
                "`scripts/neo4j-local start` or `docker compose up -d` (or set NEO4J_URI) and ask again"
            ) from None
        return [record.data() for record in records]

    def execute(self, text: str, values: dict[str, Any], params: Sequence[Param], cap: int | None = None) -> list[dict[str, Any]]:
        return self._read(text, values)

    @staticmethod
    def _labels(labels: Iterable[str]) -> str:
        return "|".join(check_label(label) for label in labels)

    def existing(self, ids: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        text = (
            f"UNWIND $ids AS i MATCH (n:{self._labels(labels)} {{id: i}}) "
            "RETURN n.id AS id, labels(n)[0] AS label, n.name AS name, n.support AS support"
        )
        return [Candidate(r["id"], r["label"], r["name"] or "", r["support"] or 0) for r in self._read(text, {"ids": list(dict.fromkeys(ids))})]

    def named(self, keys: Sequence[str], labels: Sequence[str]) -> list[Candidate]:
        # nameKeys (kg.stores.neo4j) holds every lower-cased name, title and alias, each between
        # record separators, under a text index per label: one branch per label uses it
        branches = " UNION ".join(f"MATCH (n:{check_label(label)}) WHERE n.nameKeys CONTAINS key RETURN n" for label in labels)
        text = (
            f"UNWIND $keys AS key CALL (key) {{ {branches} }} "
            "RETURN DISTINCT n.id AS id, labels(n)[0] AS label, n.name AS name, n.support AS support ORDER BY id"
        )
        found = self._read(text, {"keys": [joined_keys([k]) for k in dict.fromkeys(keys)]})
        return [Candidate(r["id"], r["label"], r["name"] or "", r["support"] or 0) for r in found]

    def names(self, labels: Sequence[str], groups: Sequence[frozenset[str]], at_least: int) -> list[str]:
        text = (
            f"MATCH (n:{self._labels(labels)}) WITH n, toLower(n.name) AS name "
            "WHERE size([g IN $groups WHERE any(f IN g WHERE all(piece IN f WHERE name CONTAINS piece))]) >= $at_least "
            "RETURN n.name AS name"
        )
        pieces = [[fragment_pieces(f) for f in sorted(g)] for g in groups]
        return [r["name"] for r in self._read(text, {"groups": pieces, "at_least": at_least})]
