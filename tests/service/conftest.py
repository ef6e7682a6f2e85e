"""The service over the seeds graph, in process (``TestClient``) and on a real loopback socket
(uvicorn in a thread) for real clients: rdflib's SPARQLStore and headless Chromium."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import kg
from kg.settings import Settings

TIMEOUT = 2.0
ROW_CAP = 1000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app(seeds_out: Path):
    return kg.api.app(seeds_out, settings=Settings(sparql_timeout=TIMEOUT, sparql_row_cap=ROW_CAP))


@pytest.fixture(scope="session")
def client(app) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


class Live:
    """A uvicorn server on a free loopback port, in a thread; ``url`` is its root."""

    def __init__(self, app) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="session")
def live(app) -> Iterator[Live]:
    server = Live(app)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def hostile_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The explorer tests' hand-made graph with markup in titles, abstracts, names and results, built into a folder."""
    from tests.viz.conftest import make_graph

    graph = make_graph()
    out = tmp_path_factory.mktemp("hostile") / "out"
    kg.api.write_outputs(graph, kg.api.summarize(graph, []), out)
    return out
