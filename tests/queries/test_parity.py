"""Every canned query gives the same rows on networkx, the embedded store and Neo4j.

Rows are compared in order: each query defines a total order (ties broken on names and ids), so
equal lists mean equal answers.  The Python functions are the reference.
"""

from __future__ import annotations

import pytest

from kg import queries
from kg.testing import param_sets

NAMES = [q.name for q in queries.list_queries()]


def _cases(built) -> list[tuple[str, dict]]:
    sets = param_sets(built.document)
    assert set(sets) == set(NAMES), "every query needs parameter sets"
    return [(name, params) for name in NAMES for params in sets[name]]


def _compare(built, backend: str, **connection) -> None:
    failures = []
    answered = set()
    for name, params in _cases(built):
        expected = queries.run(name, params, "python", graph=built.graph)
        got = queries.run(name, params, backend, **connection)
        if expected:
            answered.add(name)
        if got != expected:
            failures.append(f"{name}({params}): python {expected!r}\n    {backend} {got!r}")
    assert not failures, f"{len(failures)} queries differ on {built.name}:\n" + "\n".join(failures)
    if built.name == "fixture":  # made so that every query finds something: no parity of empty lists
        assert answered == set(NAMES)


def test_parity_fixture_embedded(fixture_built) -> None:
    _compare(fixture_built, "embedded", store=fixture_built.store)


def test_parity_seeds_embedded(seeds_built) -> None:
    _compare(seeds_built, "embedded", store=seeds_built.store)


@pytest.mark.slow
def test_parity_iclr_slice_embedded(iclr_built) -> None:
    _compare(iclr_built, "embedded", store=iclr_built.store)


@pytest.mark.neo4j
def test_parity_fixture_neo4j(fixture_built, neo4j_driver) -> None:
    from conftest import load_into_neo4j

    _compare(fixture_built, "neo4j", driver=load_into_neo4j(neo4j_driver, fixture_built))


@pytest.mark.neo4j
def test_parity_seeds_neo4j(seeds_built, neo4j_driver) -> None:
    from conftest import load_into_neo4j

    _compare(seeds_built, "neo4j", driver=load_into_neo4j(neo4j_driver, seeds_built))


@pytest.mark.neo4j
def test_parity_seeds_neo4j_bulk(seeds_built, neo4j_driver) -> None:
    """The same rows from a database the offline importer wrote (one import: the server restarts)."""
    from conftest import load_into_neo4j

    _compare(seeds_built, "neo4j", driver=load_into_neo4j(neo4j_driver, seeds_built, bulk=True))


@pytest.mark.neo4j
@pytest.mark.slow
def test_parity_iclr_slice_neo4j(iclr_built, neo4j_driver) -> None:
    from conftest import load_into_neo4j

    _compare(iclr_built, "neo4j", driver=load_into_neo4j(neo4j_driver, iclr_built))


def _connection_pairs(built) -> list[dict]:
    """For each path length (1-3 papers, then none), the first entity pair in id order that has it."""
    from kg.records import ENTITY_LABELS

    entities = sorted(n.id for n in built.document.nodes if n.label in ENTITY_LABELS and n.support)
    found: dict[int, dict] = {}
    for a in entities:
        for b in entities:
            if a != b:
                papers = len(queries.run("connection", {"a": a, "b": b}, "python", graph=built.graph)) // 2
                found.setdefault(papers, {"a": a, "b": b})
        if len(found) == 4:
            break
    return [found[k] for k in sorted(found)]


@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
@pytest.mark.parametrize("graph", ["fixture_built", "seeds_built"])
def test_parity_connection_every_length(graph: str, backend: str, request) -> None:
    """Each length runs its own part (kg.queries.steps) or subquery: all agree with the reference."""
    built = request.getfixturevalue(graph)
    connection = {"store": built.store}
    if backend == "neo4j":
        from conftest import load_into_neo4j

        connection = {"driver": load_into_neo4j(request.getfixturevalue("neo4j_driver"), built)}
    pairs = _connection_pairs(built)
    assert len(pairs) >= 3, "the graph has paths of at least two lengths and unconnected pairs"
    for params in pairs:
        assert queries.run("connection", params, backend, **connection) == queries.run(
            "connection", params, "python", graph=built.graph
        ), params


@pytest.mark.slow
def test_similar_papers_every_paper_both_paths(iclr_built, monkeypatch) -> None:
    """similar_papers on the embedded store ranks only strong candidates when that provably gives the
    first k, else everything: both paths must equal the reference for every paper of the slice."""
    papers = sorted(n.id for n in iclr_built.document.nodes if n.label == "Paper")[:150]
    shortcuts = 0
    original = queries.get("similar_papers").declaration.program

    def counting(part, paper, k):
        nonlocal shortcuts
        used = []
        rows = original(lambda name, *a, **kw: used.append(name) or part(name, *a, **kw), paper, k)
        shortcuts += "ranked" not in used
        return rows

    _replace_program(monkeypatch, "similar_papers", counting)
    for paper in papers:
        for k in (1, 5, 20):
            params = {"paper": paper, "k": k}
            expected = queries.run("similar_papers", params, "python", graph=iclr_built.graph)
            assert queries.run("similar_papers", params, "embedded", store=iclr_built.store) == expected, params
    assert 0 < shortcuts < 3 * len(papers)  # both paths were taken


def _replace_program(monkeypatch, name: str, program) -> None:
    """Run ``name`` with another steps program for the rest of the test (to watch which parts run)."""
    from dataclasses import replace

    query = queries.get(name)
    monkeypatch.setitem(queries._catalogue(), name, replace(query, declaration=replace(query.declaration, program=program)))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_co_occurring_stored_and_counted(iclr_built, backend: str, request, monkeypatch) -> None:
    """A busy entity answers co_occurring from its stored rows when the limit is within their depth,
    and by counting beyond it or for an entity in few papers: every path equals the reference, for
    every type and at the edges of the depth."""
    from kg.records import ENTITY_LABELS
    from kg.schema.aggregates import CO_OCCURRING_DEPTH, CO_OCCURRING_MIN_PAPERS

    entities = sorted((n for n in iclr_built.document.nodes if n.label in ENTITY_LABELS), key=lambda n: n.id)
    busy = [n.id for n in entities if n.support >= CO_OCCURRING_MIN_PAPERS]
    quiet = [n.id for n in entities if 2 <= n.support < CO_OCCURRING_MIN_PAPERS]
    assert len(busy) >= 30 and len(quiet) >= 10
    connection = {"store": iclr_built.store}
    if backend == "neo4j":
        from conftest import load_into_neo4j

        driver = load_into_neo4j(request.getfixturevalue("neo4j_driver"), iclr_built)
        connection = {"driver": driver}
        depth = driver.execute_query("MATCH (n {id: $id}) RETURN n.coOccurringDepth AS d", id=busy[0]).records[0]["d"]
        assert depth == CO_OCCURRING_DEPTH
    used: list[str] = []
    original = queries.get("co_occurring").declaration.program
    _replace_program(monkeypatch, "co_occurring",
                     lambda part, **kw: original(lambda name, *a, **k: used.append(name) or part(name, *a, **k), **kw))
    for entity in busy[:30] + quiet[:10]:
        for type in (None, "Method", "Dataset", "Metric"):
            for limit in (1, 7, 25, CO_OCCURRING_DEPTH, CO_OCCURRING_DEPTH + 1):
                params = {"entity": entity, "type": type, "limit": limit}
                expected = queries.run("co_occurring", params, "python", graph=iclr_built.graph)
                assert queries.run("co_occurring", params, backend, **connection) == expected, params
    if backend == "embedded":
        assert used.count("stored") == 30 * 4 * 4 and used.count("counted") == 30 * 4 + 10 * 4 * 5


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_rising_entities_stored_and_counted(iclr_dated_built, backend: str, request, monkeypatch) -> None:
    """rising_entities answers from its stored rows within their depth (or when fewer were kept) and
    by counting beyond it: every path equals the reference, for every type, for years that split the
    papers, years in a gap between them and years outside them, and at the edges of the depth."""
    from kg.records import ENTITY_LABELS
    from kg.schema.aggregates import RISING_DEPTH

    built = iclr_dated_built
    connection = {"store": built.store}
    if backend == "neo4j":
        from conftest import load_into_neo4j

        connection = {"driver": load_into_neo4j(request.getfixturevalue("neo4j_driver"), built)}
    used: list[str] = []
    original = queries.get("rising_entities").declaration.program
    _replace_program(monkeypatch, "rising_entities",
                     lambda part, **kw: original(lambda name, *a, **k: used.append(name) or part(name, *a, **k), **kw))
    counted = 0
    for type in ENTITY_LABELS:
        for since in (2014, 2015, 2016, 2017, 2020, 2023, 2026, 2027):
            for limit in (1, 25, RISING_DEPTH, RISING_DEPTH + 1, 500):
                params = {"type": type, "since": since, "limit": limit}
                expected = queries.run("rising_entities", params, "python", graph=built.graph)
                assert queries.run("rising_entities", params, backend, **connection) == expected, params
                counted += limit > RISING_DEPTH and len(expected) >= RISING_DEPTH  # all the depth kept: count
    assert counted >= 20  # the counting path is exercised, not only the stored rows
    if backend == "embedded":
        assert used.count("stored") == 6 * 8 * 5 and used.count("ranked") == counted
