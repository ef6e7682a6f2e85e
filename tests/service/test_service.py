"""The HTTP API answers as the Python API does: the catalogue, every canned query (JSON and CSV),
name resolution with "did you mean", entity and paper cards, health, the explorer, the Browser guide,
and problem details for every error."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

import kg
from kg.testing import param_sets

PROBLEM = "application/problem+json"


def _samples(seeds_out: Path) -> list[tuple[str, dict]]:
    document = kg.open(seeds_out).document
    return [(name, sets[0]) for name, sets in sorted(param_sets(document).items())]


def test_service_catalogue_lists_every_query_with_types_and_defaults(client) -> None:
    listed = {q["name"]: q for q in client.get("/api/queries").json()}
    assert list(listed) == [q.name for q in kg.api.list_queries()]
    for q in kg.api.list_queries():
        got = listed[q.name]
        assert [(p["name"], p["type"], p["required"]) for p in got["params"]] == [(p.name, p.type, p.required) for p in q.params]
        assert [p["default"] for p in got["params"] if not p["required"]] == [p.default for p in q.params if not p.required]
        assert [c["name"] for c in got["returns"]] == [c.name for c in q.returns]


def test_service_every_canned_query_answers_as_kg_query(client, seeds_out: Path) -> None:
    for name, params in _samples(seeds_out):
        got = client.get(f"/api/queries/{name}", params={k: str(v) for k, v in params.items()})
        assert got.status_code == 200, (name, got.text)
        expected = kg.api.query(name, params, out=seeds_out)
        assert got.json()["rows"] == expected, name
        assert got.json()["columns"] == [c.name for c in kg.queries.get(name).returns]


def test_service_csv_by_format_or_accept_holds_the_same_rows(client, seeds_out: Path) -> None:
    params = {"problem": "image generation"}
    expected = kg.api.query("methods_for_problem", params, out=seeds_out)
    for request in ({"params": {**params, "format": "csv"}}, {"params": params, "headers": {"Accept": "text/csv"}}):
        got = client.get("/api/queries/methods_for_problem", **request)
        assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(got.text)))
        assert [r["id"] for r in rows] == [r["id"] for r in expected] and len(rows) > 0
        assert [int(r["abstracts"]) for r in rows] == [r["abstracts"] for r in expected]


def test_service_misspelt_names_get_did_you_mean(client) -> None:
    got = client.get("/api/queries/methods_for_problem", params={"problem": "image generatoin"})
    assert got.status_code == 404 and got.headers["content-type"] == PROBLEM
    assert got.json()["suggestions"] == ["image generation"] and "did you mean" in got.json()["detail"]
    got = client.get("/api/queries/methods_for_problm")
    assert got.status_code == 404 and "did you mean methods_for_problem" in got.json()["detail"]


@pytest.mark.parametrize(("params", "words"), [
    ({"problem": "image generation", "limit": "many"}, "must be int"),
    ({"problem": "image generation", "colour": "red"}, "has no parameter colour"),
    ({}, "needs parameter 'problem'"),
    ({"problem": "image generation", "format": "xlsx"}, "unknown format"),
])
def test_service_bad_parameters_are_400_problems(client, params: dict, words: str) -> None:
    got = client.get("/api/queries/methods_for_problem", params=params)
    assert got.status_code == 400 and got.headers["content-type"] == PROBLEM
    assert got.json()["status"] == 400 and words in got.json()["detail"]


def test_service_entity_search_by_name_alias_and_abbreviation(client, seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    node = graph.find("EP")
    for q in ("EP", node.name, node.name.lower(), node.id):
        got = client.get("/api/entities", params={"q": q}).json()
        assert [r["id"] for r in got["results"]] == [node.id] and got["suggestions"] == [], q
    got = client.get("/api/entities", params={"q": node.name[:-1] + "nn"}).json()
    assert got["results"] == [] and node.name in got["suggestions"]
    assert client.get("/api/entities", params={"q": "EP", "type": "Dataset"}).json()["results"] == []
    assert client.get("/api/entities", params={"q": "EP", "type": "Planet"}).status_code == 400


def test_service_entity_card_holds_properties_neighbours_and_evidence(client, seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    best = max(graph.entities(), key=lambda n: (n.support, n.id))
    got = client.get(f"/api/entities/{best.id}", params={"evidence": 1000}).json()
    assert (got["id"], got["label"], got["name"], got["support"]) == (best.id, best.label, best.name, best.support)
    assert sorted(got["aliases"]) == sorted(best.aliases)
    counts: dict[str, int] = {}
    for e in graph.document.edges:
        if best.id in (e.source, e.target):
            key = f"{e.type} {'out' if e.source == best.id else 'in'}"
            counts[key] = counts.get(key, 0) + 1
    assert {k: v["count"] for k, v in got["neighbours"].items()} == counts
    expected = sorted((r["paper"], r["start"], r["end"], r["sentence"]) for r in graph.evidence(best.id))
    assert sorted((r["paper"], r["start"], r["end"], r["sentence"]) for r in got["evidence"]) == expected
    abstracts = {p.id: p.properties["abstract"] for p in graph.papers()}
    for r in got["evidence"]:
        assert abstracts[r["paper"]][r["start"]:r["end"]] == r["sentence"][r["start"] - r["sentence_start"]:r["end"] - r["sentence_start"]]


def test_packed_neighbourhoods_equal_the_edges_read_live(seeds_out: Path, tmp_path: Path) -> None:
    """A store that packs every node's neighbourhood gives the same cards as the seeds store, which
    packs none (no seeds node has NEIGHBOURHOOD_MIN_EDGES edges): counts, ends, their order and ties."""
    from dataclasses import replace

    from kg.schema.aggregates import NEIGHBOURHOOD_DEPTH, NEIGHBOURHOOD_MIN_EDGES, aggregate, neighbourhoods
    from kg.service import nodes
    from kg.stores.rdf import open_store, write_store

    graph = kg.open(seeds_out)
    degree: dict[str, int] = {}
    for e in graph.document.edges:
        for end in (e.source, e.target):
            degree[end] = degree.get(end, 0) + 1
    assert max(degree.values()) < NEIGHBOURHOOD_MIN_EDGES
    aggregated = aggregate(graph.document)
    write_store(replace(aggregated, neighbourhoods=tuple(neighbourhoods(graph.document, min_edges=1))), tmp_path / "store")
    packed, live = open_store(tmp_path / "store"), graph.store
    busiest = sorted(degree, key=lambda n: (-degree[n], n))[:40]
    assert degree[busiest[0]] > 20
    for node_id in busiest:
        for per_type in (1, 3, 20, NEIGHBOURHOOD_DEPTH + 1):
            assert nodes.neighbours(packed, node_id, per_type) == nodes.neighbours(live, node_id, per_type), (node_id, per_type)
    assert nodes.node(packed, busiest[0]) == nodes.node(live, busiest[0])  # the packed index is not a property


def test_service_paper_card_by_id_or_source_id(client, seeds_out: Path) -> None:
    paper = kg.open(seeds_out).papers()[0]
    for ref in (paper.id, paper.id.removeprefix("paper:")):
        got = client.get(f"/api/papers/{ref}").json()
        assert got["id"] == paper.id and got["properties"]["abstract"] == paper.properties["abstract"]
        assert got["neighbours"]["MENTIONS out"]["count"] == sum(1 for e in kg.open(seeds_out).document.edges
                                                                  if e.source == paper.id and e.type == "MENTIONS")
    assert client.get("/api/papers/paper:nope").status_code == 404
    assert client.get("/api/entities/" + paper.id).status_code == 404  # a paper is not an entity


def test_service_health_reports_format_counts_and_limits(client, seeds_out: Path) -> None:
    summary = kg.open(seeds_out).summary
    got = client.get("/health").json()
    assert (got["format"], got["papers"], got["nodes"], got["edges"]) == (summary["format"], 38, summary["nodes"], summary["edges"])
    assert got["sparql"] == {"timeout_seconds": 2.0, "row_cap": 1000, "memory_mb": 2000} and got["backend"] == "embedded"


def test_service_explorer_overview_and_ego_view(client, seeds_out: Path) -> None:
    assert client.get("/").text == (seeds_out / "explorer.html").read_text(encoding="utf-8")
    node = kg.open(seeds_out).find("EP")
    page = client.get("/explorer", params={"entity": "EP", "hops": 1})
    assert page.status_code == 200 and page.text.startswith("<!doctype html>")
    assert kg.viz.embed_json(node.id)[1:-1] in page.text
    missing = client.get("/explorer", params={"entity": node.name + "zz"})
    assert missing.status_code == 404 and missing.json()["suggestions"]


def test_service_serves_the_neo4j_browser_guide_with_cors(client) -> None:
    guide = client.get("/neo4j-browser/guide.html")
    assert guide.status_code == 200 and guide.headers["access-control-allow-origin"] == "*"
    assert guide.text.startswith('<article class="guide">') and guide.text.count("<slide") == len(kg.api.list_queries()) + 1
    assert ":style http://testserver/neo4j-browser/paperkg.grass" in guide.text
    assert client.get("/neo4j-browser/paperkg.grass").text.startswith("node {")
    preflight = client.options("/neo4j-browser/guide.html", headers={"Origin": "http://localhost:7474",
                                                                      "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "*"


def test_service_openapi_documents_every_route_and_query(client) -> None:
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    assert {"/health", "/api/queries", "/api/entities", "/sparql", "/explorer"} <= paths
    assert {f"/api/queries/{q.name}" for q in kg.api.list_queries()} <= paths
    documented = [p["name"] for p in spec["paths"]["/api/queries/methods_for_problem"]["get"]["parameters"]]
    assert documented == ["problem", "limit", "format"]
    assert client.get("/docs").status_code == 200


@pytest.mark.neo4j
def test_service_neo4j_backend_answers_as_embedded(seeds_out: Path) -> None:
    from fastapi.testclient import TestClient

    from kg.settings import Settings

    settings = Settings.from_env()
    kg.api.load_neo4j(seeds_out, settings)
    with TestClient(kg.api.app(seeds_out, backend="neo4j", settings=settings, sparql_workers=1)) as client:
        assert client.get("/health").json()["backend"] == "neo4j"
        for name, params in _samples(seeds_out):
            got = client.get(f"/api/queries/{name}", params={k: str(v) for k, v in params.items()})
            assert got.status_code == 200, (name, got.text)
            assert got.json()["rows"] == kg.api.query(name, params, out=seeds_out), name


def test_service_neo4j_backend_without_a_server_answers_503_problem(seeds_out: Path) -> None:
    """Neo4j down behind `kg serve --backend neo4j`: a 503 problem saying what to start, not a 500."""
    import socket
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from kg.settings import Settings

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = replace(Settings.from_env(), neo4j_uri=f"bolt://127.0.0.1:{port}")
    with TestClient(kg.api.app(seeds_out, backend="neo4j", settings=settings, sparql_workers=1)) as client:
        got = client.get("/api/queries/top_entities", params={"type": "Method"})
    assert got.status_code == 503
    assert got.headers["content-type"].startswith("application/problem+json")
    assert "Neo4j does not answer" in got.json()["detail"] and "scripts/neo4j-local start" in got.json()["detail"]


def test_service_keeps_answers_and_sends_the_same_bytes_again(seeds_out: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(kg.api.app(seeds_out, sparql_workers=1), raise_server_exceptions=False) as c:
        def stats() -> dict:
            return c.get("/health").json()["cache"]

        path, params = "/api/queries/top_entities", {"type": "Method", "limit": "3"}
        first = c.get(path, params=params)
        assert stats() | {"bytes": 0} == {"entries": 1, "bytes": 0, "max_bytes": 64_000_000, "hits": 0, "misses": 1}
        again = c.get(path, params=params)
        assert (again.status_code, again.content, again.headers["content-type"]) == (200, first.content, first.headers["content-type"])
        assert again.headers.get_list("x-content-type-options") == ["nosniff"]
        assert stats()["hits"] == 1 and stats()["bytes"] == len(first.content)
        as_csv = c.get(path, params=params, headers={"Accept": "text/csv"})  # another answer, kept apart
        assert as_csv.headers["content-type"].startswith("text/csv") and stats()["entries"] == 2
        for _ in range(2):  # problems are not kept: a misspelt name is answered afresh each time
            assert c.get("/api/queries/methods_for_problem", params={"problem": "image generatoin"}).status_code == 404
        card = c.get("/api/entities/" + kg.open(seeds_out).entities()[0].id)
        assert c.get(card.url.raw_path.decode()).content == card.content
        assert stats()["entries"] == 3 and stats()["misses"] == 5 and stats()["hits"] == 2
    with TestClient(kg.api.app(seeds_out, sparql_workers=1, cache_mb=0), raise_server_exceptions=False) as c:
        for _ in range(2):
            assert c.get(path, params=params).content == first.content
        assert c.get("/health").json()["cache"] == {"entries": 0, "bytes": 0, "max_bytes": 0, "hits": 0, "misses": 0}


def test_answers_drop_the_least_recently_used_and_stay_under_their_bound() -> None:
    from kg.service.cache import MAX_ENTRY_SHARE, Answers

    answers = Answers(max_bytes=100 * MAX_ENTRY_SHARE)
    for i in range(20):
        answers.put(("a", i), 200, [], b"x" * 100)
        if i == 5:
            assert answers.get(("a", 0)) is not None  # used: kept ahead of 1, 2, ...
    assert answers.size == 100 * MAX_ENTRY_SHARE and len(answers.entries) == MAX_ENTRY_SHARE
    assert answers.get(("a", 0)) is not None and answers.get(("a", 1)) is None and answers.get(("a", 19)) is not None
    answers.put(("big",), 200, [], b"x" * 101)  # 1/16 of the cache is 100 bytes
    assert answers.get(("big",)) is None  # over its share of the cache
