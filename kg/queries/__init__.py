"""Canned questions, each in Cypher, SPARQL and Python, with the same answers on every backend.

``list_queries()`` names them; ``run(name, params, backend, ...)`` resolves entity parameters from
names and aliases, runs the backend's version with every value bound, and returns plain-dict rows
whose columns and types are those the header declares, in the query's own (total) order.

Example:
    >>> [q.name for q in list_queries()][:3]
    ['area_overview', 'bound_gaps', 'bound_improvements']
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from kg.errors import QueryNotFound, UnknownEntity
from kg.queries.backends import LIST_SEPARATOR, Backend, Candidate, CypherBackend, PythonBackend, SparqlBackend
from kg.queries import steps
from kg.queries.spec import DECLARED, Column, Declaration, Header, Param, parse_header
from kg.records import ENTITY_LABELS
from kg.schema import node_id
from kg.names import groups_met, lone_surrogate, variants, word_fragments

BACKENDS = ("embedded", "neo4j", "python")
LIMIT_PARAMS = ("limit", "k")
"""Parameters that cap the number of rows: SPARQL cannot bind them, so the runner applies them."""
FLOAT_DIGITS = 6
"""Floats are rounded to this many digits so that SPARQL decimals and IEEE doubles agree."""


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a text cell as a formula (CSV injection)."""


def to_csv(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """``rows`` as CSV for people's spreadsheets: lists joined with "; ", ``None`` empty, and a text
    cell that would start a formula prefixed with ``'`` (OWASP's advice; names come from abstracts,
    which anyone writes).  Numbers stay numbers.

    Example:
        >>> to_csv([{"name": "=HYPERLINK(1)", "score": -1.5, "aliases": ["a", "b"]}]).splitlines()
        ['name,score,aliases', "'=HYPERLINK(1),-1.5,a; b"]
    """
    import csv
    import io

    def cell(value: Any) -> Any:
        if isinstance(value, list):
            value = "; ".join(map(str, value))
        if value is None:
            return ""
        if isinstance(value, str) and value.startswith(FORMULA_STARTS):
            return "'" + value
        return value

    columns = list(columns if columns is not None else rows[0] if rows else [])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    writer.writerows([cell(row.get(c)) for c in columns] for row in rows)
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class Query:
    """One canned query: its declaration, header and Cypher and SPARQL text."""

    declaration: Declaration
    header: Header
    cypher: str
    sparql: str

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def summary(self) -> str:
        return self.header.summary

    @property
    def params(self) -> tuple[Param, ...]:
        return self.header.params

    @property
    def returns(self) -> tuple[Column, ...]:
        return self.header.returns


@cache
def _catalogue() -> dict[str, Query]:
    """Every declared query with its texts; a text file without a declaration, or the reverse, is an error."""
    from kg.queries import python  # noqa: F401 - its decorators declare the queries

    root = resources.files("kg.queries")
    files = {item.name.removesuffix(".cypher") for item in root.joinpath("cypher").iterdir() if item.name.endswith(".cypher")}
    if files != set(DECLARED):
        raise ValueError(f"query files without a declaration: {sorted(files - set(DECLARED))}; "
                         f"declarations without files: {sorted(set(DECLARED) - files)}")
    queries = {}
    for name in sorted(DECLARED):
        cypher = root.joinpath("cypher", f"{name}.cypher").read_text(encoding="utf-8")
        sparql = root.joinpath("sparql", f"{name}.rq").read_text(encoding="utf-8")
        header = parse_header(cypher, f"cypher/{name}.cypher")
        if parse_header(sparql, f"sparql/{name}.rq") != header or header.name != name:
            raise ValueError(f"query {name!r}: the .cypher and .rq headers and the file name must agree")
        if (steps.parts(cypher) or steps.parts(sparql)) and DECLARED[name].program is None:
            raise ValueError(f"query {name!r}: a file made of parts needs a steps program in its declaration")
        queries[name] = Query(DECLARED[name], header, cypher, sparql)
    return queries


def needed_aggregates() -> frozenset[str]:
    """The aggregate kinds (``kg.schema.aggregates.KINDS``) the canned queries declare: what a build computes."""
    return frozenset(kind for q in _catalogue().values() for kind in q.declaration.aggregates)


def list_queries() -> list[Query]:
    """Every canned query, by name."""
    return list(_catalogue().values())


def get(name: str) -> Query:
    """The query called ``name``, or ``QueryNotFound`` with the closest names."""
    try:
        return _catalogue()[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(_catalogue()), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise QueryNotFound(f"unknown query {name!r}; {hint}`kg queries` lists them") from None


def run(
    name: str,
    params: dict[str, Any] | None = None,
    backend: str = "python",
    *,
    graph: Any = None,
    store: Any = None,
    driver: Any = None,
    uri: str | None = None,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
) -> list[dict[str, Any]]:
    """Run a canned query on one backend and return its rows as plain dicts.

    Args:
        name: the query name (``kg queries`` lists them).
        params: parameter values by name; strings are converted to the declared types, node
            references are resolved by id, name or alias (case-insensitive, singular or plural).
        backend: ``embedded`` (``store``: a ``pyoxigraph.Store``), ``neo4j`` (``driver``, or ``uri``
            with ``auth``; ``database``) or ``python`` (``graph``: a ``GraphDocument`` or the
            ``MultiDiGraph`` of ``kg.stores.nx.to_networkx``).

    Example:
        >>> from kg.records import GraphDocument, Node
        >>> g = GraphDocument((Node("method:sgd", "Method", "SGD", papers=("paper:1",)),), ())
        >>> run("top_entities", {"type": "Method"}, "python", graph=g)
        [{'entity': 'SGD', 'id': 'method:sgd', 'abstracts': 1, 'mentions': 0}]
    """
    query = get(name)
    if backend == "neo4j" and driver is None and uri is not None:
        from kg.stores.neo4j import query_driver

        with query_driver(uri, auth) as own:
            return _run(query, params or {}, CypherBackend(own, database))
    return _run(query, params or {}, _backend(backend, graph=graph, store=store, driver=driver, database=database))


def _backend(backend: str, *, graph: Any, store: Any, driver: Any, database: str | None) -> Backend:
    needs = {"python": ("graph", graph), "embedded": ("store", store), "neo4j": ("driver or uri", driver)}
    if backend not in needs:
        raise QueryNotFound(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    what, value = needs[backend]
    if value is None:
        raise QueryNotFound(f"backend {backend!r} needs {what}")
    if backend == "python":
        return PythonBackend(graph)
    if backend == "embedded":
        return SparqlBackend(store)
    return CypherBackend(driver, database)


def _run(query: Query, given: dict[str, Any], backend: Backend) -> list[dict[str, Any]]:
    declared = query.declaration
    values = bind(query, given)
    for param in query.params:
        if param.labels and values[param.name] is not None:
            values[param.name] = resolve(backend, param, values[param.name])
    cap = None if declared.reads_whole else next((values[k] for k in LIMIT_PARAMS if k in values), None)
    text = "" if backend.name == "python" else _text(query, backend)
    parts = steps.parts(text)
    if backend.name == "python":
        rows = declared.reference(backend.graph, **values)
    elif parts:  # a file of parts (in SPARQL, or in Cypher too) runs through the query's program

        def part(name: str, given: dict[str, Any], cap: int | None = None) -> list[dict[str, Any]]:
            return backend.execute(parts[name], given, query.params, cap)

        rows = declared.program(part, **values)
    else:
        rows = backend.execute(text, values, query.params, cap)
    rows = [_normalise(row, query.returns, declared.added) for row in rows]
    if declared.post is not None:
        rows = declared.post(rows, values)
    for key in LIMIT_PARAMS:
        if key in values:
            rows = rows[: values[key]]  # SPARQL's LIMIT takes no variable, so the runner applies it
    return rows


def bind(query: Query, given: dict[str, Any]) -> dict[str, Any]:
    """Declared parameters with defaults filled in and values converted; unknown or missing ones raise."""
    declared = {p.name: p for p in query.params}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise QueryNotFound(f"query {query.name!r} has no parameter {', '.join(unknown)}; it takes: {_signature(query)}")
    values = {}
    for param in query.params:
        if param.name in given:
            _check_text(given[param.name], f"parameter {param.name!r} of {query.name!r}")
            try:
                values[param.name] = param.coerce(given[param.name])
            except ValueError:
                raise QueryNotFound(f"parameter {param.name!r} of {query.name!r} must be {param.type}, not {given[param.name]!r}") from None
            if param.name in (*LIMIT_PARAMS, "top") and values[param.name] < 0:
                raise QueryNotFound(f"parameter {param.name!r} of {query.name!r} counts rows: it cannot be {values[param.name]}")
        elif param.required:
            raise QueryNotFound(f"query {query.name!r} needs parameter {param.name!r}; it takes: {_signature(query)}")
        else:
            values[param.name] = param.default
        if param.type == "label" and values[param.name] is not None and values[param.name] not in ENTITY_LABELS:
            label = str(values[param.name]).capitalize()
            if label not in ENTITY_LABELS:
                raise QueryNotFound(f"unknown entity type {values[param.name]!r}; known: {', '.join(ENTITY_LABELS)}")
            values[param.name] = label
    return values


def _check_text(value: Any, what: str) -> None:
    """Refuse text no backend can hold (a lone surrogate), with a message instead of an encoder's crash."""
    at = lone_surrogate(value) if isinstance(value, str) else None
    if at is not None:
        raise QueryNotFound(f"{what} is not valid text: a lone surrogate ({value[at]!r}) at position {at}; pass UTF-8 text")


def _signature(query: Query) -> str:
    return ", ".join(str(p) for p in query.params) or "no parameters"


def _text(query: Query, backend: Backend) -> str:
    return {"embedded": query.sparql, "neo4j": query.cypher}[backend.name]


def resolve(backend: Backend, param: Param, value: str) -> str:
    """The node id a parameter value names: an id, a name, an alias or (for papers) a title or source id.

    Preference: the spelling as given before variants (whatever the label: "transformers" finds the
    busy Model "transformer" before a rare Method of that name), names before aliases, then more
    supporting papers, then the smaller id, so every backend picks the same node.
    """
    _check_text(value, f"the name {value!r}")
    labels = param.labels
    spellings = variants(value)
    rank = {value: 0}
    for n, spelling in enumerate(spellings, 1):
        for label in labels:
            rank.setdefault(node_id(label, spelling), n)
    if "Paper" in labels:
        rank.setdefault(node_id("Paper", value.strip()), len(spellings) + 1)
    found = backend.existing(list(rank), labels)
    if found:
        return min(found, key=lambda c: (rank.get(c.id, len(rank)), -c.support, c.id)).id
    found = backend.named(spellings, labels)
    if found:
        return min(found, key=lambda c: _name_rank(c, spellings)).id
    close = suggestions(backend, labels, value)
    what = " or ".join(labels) if len(labels) < len(ENTITY_LABELS) else "entity"
    hint = f"; did you mean: {', '.join(close)}?" if close else "; try `kg query top_entities -p type ...` to see names"
    raise UnknownEntity(f"no {what} named {value!r}{hint}", tuple(close))


def find(backend: Backend, value: str, labels: Sequence[str] = ENTITY_LABELS) -> str:
    """The id of the node of one of ``labels`` that ``value`` names, by the rules of ``resolve``: the
    one resolver behind ``kg.api.Graph.find``, the explorer's ``--entity`` and every canned query.

    Example:
        >>> from kg.queries.backends import PythonBackend
        >>> from kg.records import GraphDocument, Node
        >>> g = GraphDocument((Node("method:sgd", "Method", "stochastic gradient descent", aliases=("SGD",)),), ())
        >>> find(PythonBackend(g), "sgd"), find(PythonBackend(g), "Stochastic-Gradient-Descent")
        ('method:sgd', 'method:sgd')
    """
    return resolve(backend, Param("entity", "|".join(labels)), value)


def suggestions(backend: Backend, labels: Sequence[str], value: str) -> list[str]:
    """The names closest to a misspelt ``value`` (difflib), from the names that share fragments of two
    of its words (``kg.names.word_fragments``), else of one: a word ending in "tion"
    alone would bring tens of thousands of names to compare.  Backends may fetch more (a substring
    test); every backend then keeps the same pool, so suggestions agree."""
    groups = word_fragments(value)
    for at_least in sorted({min(2, len(groups)), 1}, reverse=True) if groups else ():
        pool = sorted({n for n in backend.names(labels, groups, at_least) if groups_met(groups, n) >= at_least})
        lowered: dict[str, str] = {}
        for name in pool:
            lowered.setdefault(name.lower(), name)
        close = [lowered[n] for n in difflib.get_close_matches(value.lower(), list(lowered), n=5, cutoff=0.6)]
        if close:
            return close
    return []


def _name_rank(c: Candidate, spellings: list[str]) -> tuple:
    name = c.name.lower()
    return (spellings.index(name) if name in spellings else len(spellings), -c.support, c.id)


def _normalise(row: dict[str, Any], columns: tuple[Column, ...], added: tuple[str, ...]) -> dict[str, Any]:
    """Keep the declared columns, in order, as plain Python values of the declared types."""
    out = {}
    for column in columns:
        if column.name in added:
            continue
        value = row.get(column.name)
        if value is None:
            out[column.name] = [] if column.type == "list" else None
        elif column.type == "list":
            items = value.split(LIST_SEPARATOR) if isinstance(value, str) else value
            out[column.name] = sorted({str(i) for i in items if i != ""})
        elif column.type == "int":
            out[column.name] = int(value)
        elif column.type == "float":
            out[column.name] = round(float(value), FLOAT_DIGITS)
        elif column.type == "bool":
            out[column.name] = bool(value)
        else:
            out[column.name] = str(value)
    return out


__all__ = ["BACKENDS", "Query", "bind", "find", "get", "list_queries", "needed_aggregates", "resolve", "run", "suggestions", "variants"]
