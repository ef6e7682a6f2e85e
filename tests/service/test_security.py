"""The service is safe to share: loopback by default, no traversal out of its static routes, hostile
names and parameters answered (or refused with 4xx) and never pasted into a query or run in a
page (headless Chromium), CORS off unless asked for, and the compose service's command line valid."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

import kg
from kg.settings import Settings
from tests.service.conftest import Live, free_port
from tests.viz.conftest import HOSTILE_NAME

ROOT = Path(__file__).resolve().parents[2]
KG = str(Path(sys.executable).with_name("kg"))

HOSTILE = [
    '"', "'", "}", '"} . ?s ?p ?o . {', "') RETURN n //", "<script>alert(1)</script>", HOSTILE_NAME,
    "\U0001F600 \U00010348 émoji", "\\u0000", "%00", "../../etc/passwd", "a" * 1_500, "x" * 60_000,
]
"""Values for every parameter; 60 kB is the longest URL httpx sends (100 kB goes by socket, below)."""


def _listening(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net/tcp writes them) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


@pytest.mark.parametrize("workers", [1, 2])
def test_security_kg_serve_binds_loopback_by_default(seeds_out: Path, workers: int) -> None:
    """Also with ``--workers 2``: two server processes on the one loopback socket, each answering as ``kg query``."""
    port = free_port()
    server = subprocess.Popen([KG, "serve", str(seeds_out), "--port", str(port), "--sparql-workers", "1", "--workers", str(workers)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        assert _listening(port) == {"0100007F"}  # 127.0.0.1 only, not 0.0.0.0 or ::
        expected = kg.api.query("top_entities", {"type": "Method", "limit": 5}, out=seeds_out)
        for _ in range(8):  # new connections, shared among the processes by the kernel
            got = httpx.get(f"http://127.0.0.1:{port}/api/queries/top_entities", params={"type": "Method", "limit": "5"}, timeout=30)
            assert got.json()["rows"] == expected
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        spawned = [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert len(spawned) == (workers if workers > 1 else 0)  # uvicorn's worker processes
    finally:
        server.terminate()
        server.wait(20)


@pytest.mark.parametrize("path", [
    "/neo4j-browser/../../../etc/passwd", "/neo4j-browser/..%2f..%2f..%2fetc%2fpasswd", "/neo4j-browser/%2e%2e/summary.json",
    "/neo4j-browser/..%5c..%5csummary.json", "/neo4j-browser/guide.html%00.txt", "/../summary.json", "/%2e%2e/%2e%2e/etc/passwd",
    "/neo4j-browser/", "/static/../store/CURRENT",
])
def test_security_no_path_traversal_out_of_static_routes(client, path: str) -> None:
    got = client.get(path)
    assert got.status_code in (400, 404), (path, got.status_code)
    assert "root:" not in got.text and "manifest" not in got.text.lower() and '"papers"' not in got.text


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_security_hostile_values_are_answered_or_refused_never_pasted(client, value: str) -> None:
    requests = [
        ("/api/entities", {"q": value}),
        ("/api/queries/methods_for_problem", {"problem": value}),
        ("/api/queries/top_entities", {"type": value}),
        ("/api/queries/papers_for_entity", {"entity": value, "limit": "5"}),
        ("/explorer", {"entity": value}),
        (f"/api/entities/{value}", {}),
        (f"/api/papers/{value}", {}),
        ("/sparql", {"query": value}),
    ]
    for path, params in requests:
        got = client.get(path, params=params)
        assert got.status_code in (200, 400, 404, 413), (path, got.status_code, got.text[:200])
        assert "Traceback" not in got.text
        if got.status_code != 200:
            assert got.headers["content-type"] == "application/problem+json"
            assert got.json()["status"] == got.status_code
        elif path == "/api/entities":
            assert got.json()["results"] == []  # a quote or brace matched nothing: it was a value, not code
        if len(value) > 2_000:
            assert got.status_code == 413, path


def test_security_100_kb_values_are_4xx_by_get_and_post(live, client) -> None:
    import socket

    value = "\U0001F600" * 25_000  # 100 kB of UTF-8, non-BMP
    for path in ("/api/entities?q=", "/api/queries/methods_for_problem?problem=", "/explorer?entity=", "/sparql?query="):
        with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
            sock.sendall(f"GET {path}{'%F0%9F%98%80' * 25_000} HTTP/1.1\r\n"
                         "Host: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            status = sock.recv(64).split(b" ")[1]
        assert status.startswith(b"4"), (path, status)
    for field in ("query", "update"):
        got = client.post("/sparql", data={field: value})
        assert got.status_code == 400 and got.json()["status"] == 400


def test_security_hostile_names_resolve_as_names(hostile_out: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(kg.api.app(hostile_out, sparql_workers=1)) as client:
        got = client.get("/api/entities", params={"q": HOSTILE_NAME}).json()
        assert [r["id"] for r in got["results"]] == ["method:graphnet"] and got["results"][0]["name"] == HOSTILE_NAME
        card = client.get("/api/entities/method:graphnet").json()
        assert card["name"] == HOSTILE_NAME and "<script>alert(1)</script>" in card["aliases"]


def test_security_cors_is_off_unless_asked_for(seeds_out: Path, client) -> None:
    from fastapi.testclient import TestClient

    origin = {"Origin": "https://evil.example"}
    assert "access-control-allow-origin" not in client.get("/api/queries", headers=origin).headers
    with TestClient(kg.api.app(seeds_out, cors="https://lab.example", sparql_workers=1)) as shared:
        allowed = shared.get("/api/queries", headers={"Origin": "https://lab.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://lab.example"
        assert "access-control-allow-origin" not in shared.get("/api/queries", headers=origin).headers


def test_security_large_bodies_are_413(client) -> None:
    got = client.post("/sparql", content="#" * 1_100_000, headers={"Content-Type": "application/sparql-query"})
    assert got.status_code == 413 and got.json()["status"] == 413


def test_security_compose_service_command_line_is_valid(seeds_out: Path) -> None:
    from kg.cli import cli

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["paperkg"]
    command = service["command"]
    assert command[0] == "serve" and "--backend" in command and command[command.index("--backend") + 1] == "neo4j"
    args = [str(seeds_out) if a == "/data/out" else a for a in command]
    context = cli.make_context("kg", list(args))
    sub = cli.get_command(context, args[0]).make_context("serve", args[1:], parent=context)
    assert sub.params["host"] == "0.0.0.0" and sub.params["backend"] == "neo4j" and sub.params["port"] == 8000
    assert service["ports"] == ["127.0.0.1:8000:8000"]  # published on the host's loopback only


@pytest.mark.browser
def test_security_hostile_graph_never_runs_script_in_the_browser(hostile_out: Path, browser) -> None:
    server = Live(kg.api.app(hostile_out, settings=Settings(), sparql_workers=1))
    try:
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ("/", f"/explorer?entity={HOSTILE_NAME}", "/explorer?entity=method:graphnet&hops=2",
                     "/explorer?entity=<script>alert(1)</script>", "/api/entities/method:graphnet",
                     "/api/entities?q=<script>alert(1)</script>", "/neo4j-browser/guide.html", "/docs"):
            page.goto(server.url + path)
            page.wait_for_timeout(300)
            if path.startswith("/explorer?entity=method") or path == "/":
                page.wait_for_function("document.body.dataset.ready === 'true'", timeout=60_000)
            assert page.evaluate("window.__pwned") is None, path
        assert dialogs == []
        page.close()
    finally:
        server.stop()


@pytest.mark.browser
def test_security_api_docs_render_with_every_request_kept_on_the_server(live, browser) -> None:
    """/docs loads Swagger UI from the service itself: with every other host blocked it still lists
    the canned queries, and nothing was requested elsewhere."""
    page = browser.new_page()
    elsewhere: list[str] = []

    def only_local(route) -> None:
        if route.request.url.startswith(live.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(live.url + "/docs")
    page.get_by_text("/api/queries/methods_for_problem").first.wait_for(timeout=60_000)
    page.close()
    assert elsewhere == []
