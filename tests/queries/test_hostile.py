"""Hostile values through every canned query, name resolution and SPARQL bindings, on every backend:
the right rows or a clear ``KGError``, never a syntax error (which would mean a value was pasted into
the query text) and never a crash.  Names that are themselves hostile must resolve to their own node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from click.testing import CliRunner

from kg import queries
from kg.cli import cli
from kg.errors import KGError, QueryNotFound
from kg.queries.backends import CypherBackend, PythonBackend, SparqlBackend
from kg.records import Edge, Evidence, GraphDocument, Node
from kg.testing import param_sets

pytestmark = pytest.mark.issue(21)

HOSTILE_NAMES = {
    "double-quote": 'The "quoted" method',
    "single-quote": "O'Brien's method",
    "sparql": '" } ; DROP ALL ; SELECT * WHERE { ?s ?p "',
    "cypher": "x'}) MATCH (n) DETACH DELETE n //",
    "braces": "{{ $problem }} ${x} ?x method",
    "backslash": "C:\\new\\table \\u0022 \\\\ method",
    "script": "<script>alert(1)</script> method",
    "nul": "null\x00byte method",
    "astral": "𝒪-net 🚀 method",
    "long": "long " * 1_000 + "method",  # 5 kB: a name Neo4j's text index still takes
}
HOSTILE_VALUES = [*HOSTILE_NAMES.values(), "x" * 100_000, "\ud800 lone surrogate", "", "   ", "%", "*", "\\", "'", '"']


def hostile_graph() -> GraphDocument:
    """The query fixture graph plus one Method per hostile name, each mentioned by paper p1."""
    from fixture_graph import fixture_graph

    base = fixture_graph()
    extra = [Node(f"method:hostile-{key}", "Method", name, papers=("paper:p1",), mentions=1) for key, name in HOSTILE_NAMES.items()]
    ev = (Evidence("paper:p1", 0, 4, 0, 10, "test", 1.0),)
    edges = [Edge("paper:p1", n.id, "MENTIONS", ev) for n in extra]
    return GraphDocument(tuple(sorted((*base.nodes, *extra), key=lambda n: n.id)), tuple(sorted((*base.edges, *edges), key=lambda e: e.key)))


@pytest.fixture(scope="module")
def hostile_built(tmp_path_factory: pytest.TempPathFactory):
    from conftest import _built

    return _built("hostile", hostile_graph(), tmp_path_factory.mktemp("hostile"))


def _backends(built, neo4j_driver=None) -> dict[str, Any]:
    if neo4j_driver is not None:
        from conftest import load_into_neo4j

        driver = load_into_neo4j(neo4j_driver, built)
        return {"neo4j": CypherBackend(driver, neo4j_driver[1].neo4j_database)}
    return {"python": PythonBackend(built.graph), "embedded": SparqlBackend(built.store)}


def _outcome(name: str, params: dict[str, Any], backend) -> Any:
    """Rows, or the class of a clear error; anything else (a syntax error, a crash) fails the test."""
    try:
        rows = queries._run(queries.get(name), params, backend)
    except KGError as exc:
        assert str(exc) and "\n" not in str(exc)[:200]
        return type(exc).__name__
    assert isinstance(rows, list) and all(isinstance(r, dict) for r in rows)
    return rows


def _cases(doc: GraphDocument):
    """Every canned query × every text parameter × every hostile value, other parameters from the graph."""
    sets = param_sets(doc)
    for query in queries.list_queries():
        base = sets[query.name][0] if sets.get(query.name) else {}
        for param in query.params:
            if param.type == "int":
                continue
            for value in HOSTILE_VALUES:
                yield query.name, param.name, {**base, param.name: value}


def _resolution(backends: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {}
    for key, name in HOSTILE_NAMES.items():
        for backend_name, backend in backends.items():
            rows = queries._run(queries.get("papers_for_entity"), {"entity": name}, backend)
            found[f"{backend_name}/{key}"] = (queries.find(backend, name), [r["paper"] for r in rows])
    return found


def test_hostile_names_resolve_to_their_own_node(hostile_built) -> None:
    found = _resolution(_backends(hostile_built))
    assert found == {f"{b}/{k}": (f"method:hostile-{k}", ["paper:p1"]) for b in ("python", "embedded") for k in HOSTILE_NAMES}


def test_hostile_values_in_every_canned_query_agree_across_backends(hostile_built) -> None:
    backends = _backends(hostile_built)
    cases = list(_cases(hostile_built.document))
    assert len(cases) > 300
    for name, param, params in cases:
        python, embedded = (_outcome(name, params, b) for b in backends.values())
        assert python == embedded, (name, param, repr(params[param])[:60])
    surrogate = {"entity": "\ud800 lone surrogate"}
    with pytest.raises(QueryNotFound, match=r"not valid text: a lone surrogate \('\\ud800'\) at position 0"):
        queries._run(queries.get("papers_for_entity"), surrogate, backends["embedded"])


@pytest.mark.neo4j
def test_hostile_values_on_neo4j_match_python(hostile_built, neo4j_driver) -> None:
    neo4j = _backends(hostile_built, neo4j_driver)["neo4j"]
    python = PythonBackend(hostile_built.graph)
    assert _resolution({"neo4j": neo4j}) == {f"neo4j/{k}": (f"method:hostile-{k}", ["paper:p1"]) for k in HOSTILE_NAMES}
    for name, param, params in _cases(hostile_built.document):
        assert _outcome(name, params, neo4j) == _outcome(name, params, python), (name, param, repr(params[param])[:60])


def test_hostile_sparql_bindings_are_values_not_text(hostile_built, seeds_out: Path) -> None:
    from kg.stores.rdf import sparql

    query = "SELECT * WHERE { ?x skos:prefLabel ?name }"
    for key, name in HOSTILE_NAMES.items():
        assert sparql(hostile_built.store, query, {"name": name}) == [{"x": f"method:hostile-{key}"}]
    for value in HOSTILE_VALUES:
        result = CliRunner().invoke(cli, ["sparql", str(seeds_out), query, "-p", "name", value, "--format", "json"])
        if "\ud800" in value:
            assert result.exit_code == 1 and "not valid text (a lone surrogate at position 0)" in result.output
        else:
            assert (result.exit_code, result.output.strip()) == (0, "[]"), result.output[:300]


def test_hostile_names_are_escaped_in_the_explorer(hostile_built) -> None:
    from kg.viz import render

    page = render(hostile_built.document)
    assert "<script>alert(1)" not in page and "DETACH DELETE n //" in page


_param_text = st.text(st.characters(), max_size=80) | st.sampled_from(list(HOSTILE_NAMES.values()))


@given(data=st.data())
def test_fuzz_query_parameters_agree_across_backends(hostile_built, data) -> None:
    """Any text (lone surrogates included) as any text parameter of any canned query: the same rows
    or the same clear error on the Python and embedded backends."""
    backends = _backends(hostile_built)
    query = data.draw(st.sampled_from([q for q in queries.list_queries() if any(p.type != "int" for p in q.params)]))
    param = data.draw(st.sampled_from([p for p in query.params if p.type != "int"]))
    sets = param_sets(hostile_built.document).get(query.name) or [{}]
    params = {**sets[0], param.name: data.draw(_param_text)}
    python, embedded = (_outcome(query.name, params, b) for b in backends.values())
    assert python == embedded
