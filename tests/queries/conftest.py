"""Graphs the query tests run on, each held in all three backends.

``fixture``: the hand-made graph of ``fixture_graph.py``; ``seeds``: the 38 seeds built with the
default pipeline (the root ``seeds_graph`` fixture); ``iclr1000``: the first 1,000 abstracts of
the ICLR 2026 corpus, extracted and resolved by the real pipeline (slow: about a minute of CPU).
"""

from __future__ import annotations

import atexit
import gzip
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kg.records import GraphDocument

sys.path.insert(0, str(Path(__file__).parent))  # fixture_graph.py beside this file
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "iclr2026.jsonl.gz"
SLICE = 1000


@dataclass
class Built:
    """One graph in every backend: the records, the networkx graph and the embedded store."""

    name: str
    document: GraphDocument
    graph: Any
    store: Any


def _built(name: str, document: GraphDocument, folder: Path) -> Built:
    """Every store of one graph, with the build-time aggregates the embedded queries look up."""
    from kg.api import aggregate
    from kg.stores.nx import to_networkx
    from kg.stores.rdf import open_store, write_store

    aggregated = aggregate(document)
    write_store(aggregated, folder / "store")
    return Built(name, aggregated.graph, to_networkx(aggregated.graph), open_store(folder / "store"))


@pytest.fixture(scope="session")
def fixture_built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    from fixture_graph import fixture_graph

    return _built("fixture", fixture_graph(), tmp_path_factory.mktemp("fixture"))


@pytest.fixture(scope="session")
def seeds_built(seeds_graph: GraphDocument, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return _built("seeds", seeds_graph, tmp_path_factory.mktemp("seeds-store"))


@pytest.fixture(scope="session")
def iclr_built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    from kg.api import extract, read
    from kg.resolve import build_graph

    folder = tmp_path_factory.mktemp("iclr1000")
    sample = folder / "iclr1000.jsonl"
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src:
        sample.write_text("".join(itertools.islice(src, SLICE)), encoding="utf-8")
    abstracts = read([sample])
    # two processes, as `kg build --jobs 2` runs: the slice's extraction is the suite's longest step
    document = build_graph(zip(abstracts, extract(abstracts, jobs=2)))
    return _built("iclr1000", document, folder)


@pytest.fixture(scope="session")
def neo4j_driver():
    """A driver on the live server of ``scripts/neo4j-local`` (``NEO4J_*`` settings); skipped when unreachable."""
    neo4j = pytest.importorskip("neo4j")
    from kg.settings import Settings

    conn = Settings.from_env()
    driver = neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password), connection_timeout=5.0)
    try:
        driver.verify_connectivity()
    except Exception as exc:  # noqa: BLE001 - any failure to connect means "no server here"
        driver.close()
        if os.environ.get("KG_REQUIRE_NEO4J"):
            raise
        pytest.skip(f"no Neo4j at {conn.neo4j_uri} ({exc.__class__.__name__}); start one with scripts/neo4j-local start")
    yield driver, conn
    driver.close()


_loaded: dict[str, str] = {}
_after_import: dict[str, Any] = {}


@pytest.fixture(scope="session")
def iclr_dated_built(iclr_built: Built, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The ICLR slice with its papers spread over 2015-2026 with gaps (every paper there is from 2026):
    enough rising entities of every type that ``rising_entities`` runs past its stored depth."""
    from dataclasses import replace

    years = (2015, 2016, 2018, 2019, 2023, 2026)  # 2017 and 2020-2022 split the papers as 2018 and 2023 do
    nodes = tuple(replace(n, properties=n.properties | {"year": years[i % len(years)]}) if n.label == "Paper" else n
                  for i, n in enumerate(iclr_built.document.nodes))
    return _built("iclr1000-dated", replace(iclr_built.document, nodes=nodes), tmp_path_factory.mktemp("iclr1000-dated"))


def load_into_neo4j(driver_conn: tuple[Any, Any], built: Built, bulk: bool = False) -> Any:
    """Make the database hold exactly ``built`` (once per graph and loader per session, in order of
    use); ``bulk``: by the offline importer (``kg.stores.neo4j_bulk``, which restarts the server)."""
    from kg.api import aggregate, load_neo4j
    from kg.stores.neo4j import load

    import neo4j

    driver, conn = driver_conn
    driver = _after_import.get("driver", driver)
    key = f"{built.name}:{'bulk' if bulk else 'diff'}"
    if _loaded.get("current") != key:
        if bulk:
            load_neo4j(built.document, conn, bulk=True, overwrite=True)
            # The imported database numbers its transactions afresh: a driver that ran queries before
            # holds bookmarks it never reaches (BookmarkTimeout), so later tests use a new one.
            driver = neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password))
            atexit.register(driver.close)
            _after_import["driver"] = driver
        else:
            load(aggregate(built.document), conn.neo4j_uri, conn.neo4j_user, conn.neo4j_password, conn.neo4j_database, progress=False)
        _loaded["current"] = key
    return driver
