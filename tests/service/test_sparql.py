"""The SPARQL endpoint: the 1.1 Protocol's query operation by GET and POST, four result formats
with the rows of ``kg sparql``, refusals of updates, SERVICE and LOAD, the row cap and the time
limit (a slow query is stopped with 504 while others are answered), and a real client."""

from __future__ import annotations

import csv
import io
import statistics
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import kg
from kg.service.sparql import QueryRefused, refuse_unsafe
from tests.service.conftest import ROW_CAP, TIMEOUT

PAPERS = "SELECT ?p ?n WHERE { ?p a kg:Paper ; kg:mentionCount ?n } ORDER BY ?p"
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
SR = "{http://www.w3.org/2005/sparql-results#}"


def _expected(seeds_out: Path) -> list[tuple[str, int]]:
    rows = kg.open(seeds_out).sparql(PAPERS)
    return [(kg.schema.vocab.node_iri(r["p"]), r["n"]) for r in rows]


def test_sparql_json_xml_csv_tsv_hold_the_rows_of_kg_sparql(client, seeds_out: Path) -> None:
    expected = _expected(seeds_out)
    assert len(expected) == 38
    got = client.get("/sparql", params={"query": PAPERS}, headers={"Accept": "application/sparql-results+json"})
    assert got.headers["content-type"] == "application/sparql-results+json" and got.headers["x-truncated"] == "false"
    body = got.json()
    assert body["head"]["vars"] == ["p", "n"]
    assert [(b["p"]["value"], int(b["n"]["value"])) for b in body["results"]["bindings"]] == expected
    assert {b["n"]["datatype"] for b in body["results"]["bindings"]} == {"http://www.w3.org/2001/XMLSchema#integer"}

    root = ET.fromstring(client.get("/sparql", params={"query": PAPERS}, headers={"Accept": "application/sparql-results+xml"}).content)
    rows = [{b.get("name"): b[0].text for b in r} for r in root.iter(f"{SR}result")]
    assert [(r["p"], int(r["n"])) for r in rows] == expected

    text = client.get("/sparql", params={"query": PAPERS, "format": "csv"}).text
    assert [(r["p"], int(r["n"])) for r in csv.DictReader(io.StringIO(text))] == expected and "\r\n" in text

    lines = client.get("/sparql", params={"query": PAPERS}, headers={"Accept": "text/tab-separated-values"}).text.splitlines()
    assert lines[0] == "?p\t?n"
    assert [(a.strip("<>"), int(b.split("^^")[0].strip('"'))) for a, b in (line.split("\t") for line in lines[1:])] == expected


def test_sparql_post_form_and_query_body_ask_and_construct(client, seeds_out: Path) -> None:
    expected = _expected(seeds_out)
    for request in ({"data": {"query": PAPERS}}, {"content": PAPERS, "headers": {"Content-Type": "application/sparql-query"}}):
        got = client.post("/sparql", **request)
        assert got.status_code == 200
        assert [(b["p"]["value"], int(b["n"]["value"])) for b in got.json()["results"]["bindings"]] == expected
    ask = client.post("/sparql", content="ASK { ?p a kg:Paper }", headers={"Content-Type": "application/sparql-query"})
    assert ask.json() == {"head": {}, "boolean": True}
    graph = client.get("/sparql", params={"query": "CONSTRUCT { ?p a kg:Paper } WHERE { ?p a kg:Paper }"},
                       headers={"Accept": "application/n-triples"})
    assert graph.headers["content-type"].startswith("application/n-triples") and len(graph.text.splitlines()) == 38
    assert client.post("/sparql", content=PAPERS, headers={"Content-Type": "text/plain"}).status_code == 415


@pytest.mark.parametrize("query", [
    "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://127.0.0.1:1/data.ttl>",
    "CLEAR ALL",
    "SELECT * WHERE { SERVICE <http://169.254.169.254/latest/meta-data/> { ?s ?p ?o } }",
    "SELECT * WHERE { service <http://127.0.0.1:7474/> { ?s ?p ?o } }",
    "SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:1/> { ?s ?p ?o } }",
])
def test_sparql_updates_service_and_load_are_refused(client, query: str) -> None:
    for got in (client.get("/sparql", params={"query": query}), client.post("/sparql", data={"query": query}),
                client.post("/sparql", content=query, headers={"Content-Type": "application/sparql-query"})):
        assert got.status_code == 400 and got.headers["content-type"] == "application/problem+json", query
        assert "not allowed" in got.json()["detail"]
    for got in (client.post("/sparql", data={"update": query}),
                client.post("/sparql", content=query, headers={"Content-Type": "application/sparql-update"})):
        assert got.status_code == 400 and "read-only" in got.json()["detail"]


@pytest.mark.parametrize("query", [
    'SELECT ?load ?service WHERE { ?load kg:support ?service } LIMIT 1',
    'SELECT * WHERE { ?s skos:prefLabel "SERVICE <http://x/> LOAD" } # INSERT, DELETE',
    "SELECT * WHERE { <http://example.org/SERVICE/LOAD> ?p ?o }",
    "PREFIX service: <urn:x#> SELECT * WHERE { ?s service:load ?o }",
])
def test_sparql_keywords_inside_names_strings_and_iris_pass(query: str) -> None:
    refuse_unsafe(query)


def test_sparql_refusal_sees_through_case_and_spacing() -> None:
    with pytest.raises(QueryRefused):
        refuse_unsafe("SELECT * WHERE {\n  SeRvIcE\t<urn:x> { ?s ?p ?o } }")


def test_sparql_row_cap_cuts_and_says_so(client) -> None:
    got = client.get("/sparql", params={"query": "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"})
    assert got.status_code == 200 and got.headers["x-truncated"] == "true" and got.headers["x-row-cap"] == str(ROW_CAP)
    assert len(got.json()["results"]["bindings"]) == ROW_CAP


def test_sparql_syntax_errors_are_400(client) -> None:
    got = client.get("/sparql", params={"query": "SELEKT * WHERE { ?s ?p ?o }"})
    assert got.status_code == 400 and "syntax error" in got.json()["detail"]


def test_sparql_slow_query_stops_with_504_while_others_are_answered(client, app, seeds_out: Path) -> None:
    slow: dict = {}

    def run_slow() -> None:
        start = time.monotonic()
        slow["response"] = client.get("/sparql", params={"query": SLOW})
        slow["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run_slow)
    thread.start()
    time.sleep(0.2)
    fast = []
    while thread.is_alive():
        start = time.monotonic()
        got = client.get("/sparql", params={"query": PAPERS})
        fast.append((got.status_code, time.monotonic() - start))
    thread.join()
    assert slow["response"].status_code == 504 and slow["response"].json()["status"] == 504
    assert TIMEOUT <= slow["seconds"] < TIMEOUT + 5  # stopped at the limit; unstopped, the cross product runs for hours
    # A pool that made the others wait would answer one or two of them, after the kill; one slow
    # answer on a busy machine is noise, so the count and the median say "answered meanwhile".
    assert len(fast) >= 10 and all(status == 200 for status, _ in fast)
    assert statistics.median(s for _, s in fast) < TIMEOUT / 4
    after = client.get("/sparql", params={"query": PAPERS})
    assert after.status_code == 200 and len(after.json()["results"]["bindings"]) == 38
    pool = app.state.service.sparql
    deadline = time.monotonic() + 30
    while len(pool._all) < 2 and time.monotonic() < deadline:  # the killed worker's successor starts in the background
        time.sleep(0.1)
    assert len(pool._all) == 2 and all(w.process.poll() is None for w in pool._all)


def test_sparql_query_over_the_memory_cap_is_stopped_and_its_worker_replaced(seeds_out: Path) -> None:
    """Sorting a cross product of the seeds (577 M rows) needs gigabytes: with a 300 MB cap the worker
    stops in well under the time limit, the client is told why (503), and the next query is answered."""
    from fastapi.testclient import TestClient

    from kg.settings import Settings

    app = kg.api.app(seeds_out, settings=Settings(sparql_timeout=60, sparql_memory_mb=300), sparql_workers=1)
    with TestClient(app, raise_server_exceptions=False) as c:
        start = time.monotonic()
        got = c.get("/sparql", params={"query": "SELECT ?c ?o WHERE { ?a ?b ?c . ?d ?e ?o } ORDER BY ?c ?o LIMIT 1"})
        assert got.status_code == 503 and "300 MB" in got.json()["detail"] and time.monotonic() - start < 30
        assert c.get("/health").json()["sparql"]["memory_mb"] == 300
        after = c.get("/sparql", params={"query": PAPERS})  # waits for the successor
        assert after.status_code == 200 and len(after.json()["results"]["bindings"]) == 38


def test_sparql_rdflib_sparqlstore_reads_the_rows_of_kg_sparql(live, seeds_out: Path) -> None:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    store = SPARQLStore(f"{live.url}/sparql", returnFormat="json", method="POST")
    rows = [(str(r.p), int(r.n)) for r in store.query(PAPERS)]
    assert rows == _expected(seeds_out)
    xml = SPARQLStore(f"{live.url}/sparql", returnFormat="xml")
    assert [(str(r.p), int(r.n)) for r in xml.query(PAPERS)] == rows
