"""A small hand-made GraphDocument and a headless Chromium with the network cut off.

The graph has the shapes the explorer must handle: papers with abstracts, entities with aliases,
MENTIONS evidence with offsets into sentences, typed relations, two bounds (one improving on the
other), reported results, and one hostile paper whose title, abstract, url, entity name and result
carry markup.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.records import Edge, Evidence, GraphDocument, Node

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">GraphNet'
HOSTILE_ABSTRACT = (
    "We study <script>window.__pwned=2</script> graphs. "
    'See <a href="javascript:window.__pwned=3">here</a> and <img src=x onerror="window.__pwned=4">. '
    "GraphNet <b>wins</b>."
)
HOSTILE_URL = "javascript:window.__pwned=5"

S1 = "We propose Equilibrium Propagation (EqProp), a learning rule for energy-based models."
S2 = "EqProp trains Hopfield networks on MNIST with error rate below 2%."
S3 = "Our online facility location algorithm achieves regret O(sqrt(T)), improving on O(T^(2/3))."
S4 = "Backpropagation remains the standard baseline for Hopfield networks."


def _ev(paper: str, sentence: str, mention: str) -> Evidence:
    """Evidence for ``mention`` in ``sentence``, by offsets into the paper's abstract (built below)."""
    offset = ABSTRACTS[paper].index(sentence)
    start = offset + sentence.index(mention)
    return Evidence(paper, start, start + len(mention), offset, offset + len(sentence), "test", 1.0)


def _paper(pid: str, title: str, year: int, text: str, url: str) -> Node:
    props = {"title": title, "year": year, "venue": "ICLR", "primaryArea": "learning", "decision": "Accept",
             "url": url, "abstract": text, "authors": ["A. Author", "B. <i>Author</i>"]}
    return Node(pid, "Paper", title, papers=(pid,), mentions=1, properties=props)


def _entity(nid: str, label: str, name: str, papers: tuple[str, ...], aliases: tuple[str, ...] = ()) -> Node:
    return Node(nid, label, name, aliases=aliases, papers=papers, mentions=len(papers))


RESULT_START = len(S1) + 1 + S2.index("2%")
ABSTRACTS = {"paper:p1": f"{S1} {S2}", "paper:p2": S3, "paper:p3": S4, "paper:evil": HOSTILE_ABSTRACT}


def make_graph() -> GraphDocument:
    """The fixture graph; ids sorted as GraphDocument promises."""
    nodes = [
        _paper("paper:p1", "Equilibrium Propagation", 2017, ABSTRACTS["paper:p1"], "https://openreview.net/forum?id=p1"),
        _paper("paper:p2", "Online Facility Location with Regret", 2026, S3, "https://openreview.net/forum?id=p2"),
        _paper("paper:p3", "Hopfield Baselines", 2024, S4, ""),
        _paper("paper:evil", "<script>window.__pwned=6</script>Evil", 2025, HOSTILE_ABSTRACT, HOSTILE_URL),
        _entity("method:equilibrium propagation", "Method", "Equilibrium Propagation", ("paper:p1",), ("EqProp",)),
        _entity("method:backpropagation", "Method", "Backpropagation", ("paper:p3",), ("backprop", "BP")),
        _entity("model:hopfield network", "Model", "Hopfield network", ("paper:p1", "paper:p3"), ("Hopfield networks",)),
        _entity("dataset:mnist", "Dataset", "MNIST", ("paper:p1",)),
        _entity("metric:error rate", "Metric", "error rate", ("paper:p1",)),
        _entity("problem:online facility location", "Problem", "online facility location", ("paper:p2",), ("OFL",)),
        _entity("concept:energy-based model", "Concept", "energy-based model", ("paper:p1",), ("EBM",)),
        _entity("method:graphnet", "Method", HOSTILE_NAME, ("paper:evil",), ("<script>alert(1)</script>",)),
        Node("bound:p2:new", "Bound", "O(sqrt(T))", papers=("paper:p2",), mentions=1,
             properties={"text": "O(sqrt(T))", "expression": "O(sqrt(T))", "unicode": "O(√T)", "notation": "O",
                         "quantity": "regret", "role": "new"}),
        Node("result:p1:0", "Result", "2% error rate", papers=("paper:p1",), mentions=1,
             properties={"value": "2%", "unit": "%", "kind": "score", "qualifier": "below", "methodName": "EqProp",
                         "metricName": "error rate", "datasetName": "MNIST", "better": "down", "start": RESULT_START}),
        Node("result:evil:0", "Result", "9% <i>gain</i>", papers=("paper:evil",), mentions=1,
             properties={"value": "9%", "kind": "change", "direction": "up", "methodName": HOSTILE_NAME,
                         "setting": "<script>window.__pwned=7</script>", "start": 0}),
        Node("bound:p2:prior", "Bound", "O(T^(2/3))", papers=("paper:p2",), mentions=1,
             properties={"text": "O(T^(2/3))", "expression": "O(T^(2/3))", "unicode": "O(T²ᐟ³)", "notation": "O",
                         "quantity": "regret", "role": "prior"}),
    ]
    edges = [
        Edge("paper:p1", "method:equilibrium propagation", "MENTIONS", (_ev("paper:p1", S1, "EqProp"),)),
        Edge("paper:p1", "model:hopfield network", "MENTIONS", (_ev("paper:p1", S2, "Hopfield networks"),)),
        Edge("paper:p1", "dataset:mnist", "MENTIONS", (_ev("paper:p1", S2, "MNIST"),)),
        Edge("paper:p1", "metric:error rate", "MENTIONS", (_ev("paper:p1", S2, "error rate"),)),
        Edge("paper:p1", "concept:energy-based model", "MENTIONS", (_ev("paper:p1", S1, "energy-based models"),)),
        Edge("paper:p1", "method:equilibrium propagation", "PROPOSES", (_ev("paper:p1", S1, "Equilibrium Propagation"),)),
        Edge("method:equilibrium propagation", "dataset:mnist", "EVALUATED_ON", (_ev("paper:p1", S2, "MNIST"),)),
        Edge("paper:p3", "method:backpropagation", "MENTIONS", (_ev("paper:p3", S4, "Backpropagation"),)),
        Edge("paper:p3", "model:hopfield network", "MENTIONS", (_ev("paper:p3", S4, "Hopfield networks"),)),
        Edge("paper:p2", "problem:online facility location", "MENTIONS",
             (_ev("paper:p2", S3, "online facility location"),)),
        Edge("paper:p2", "problem:online facility location", "ADDRESSES",
             (_ev("paper:p2", S3, "online facility location"),)),
        Edge("paper:p2", "bound:p2:new", "STATES_BOUND", (_ev("paper:p2", S3, "O(sqrt(T))"),)),
        Edge("paper:p2", "bound:p2:prior", "STATES_BOUND", (_ev("paper:p2", S3, "O(T^(2/3))"),)),
        Edge("bound:p2:new", "problem:online facility location", "BOUNDS", (_ev("paper:p2", S3, "O(sqrt(T))"),)),
        Edge("bound:p2:new", "bound:p2:prior", "IMPROVES_ON", (_ev("paper:p2", S3, "improving on"),)),
        Edge("paper:evil", "method:graphnet", "MENTIONS",
             (_ev("paper:evil", HOSTILE_ABSTRACT, "GraphNet"),)),
        Edge("paper:p1", "result:p1:0", "REPORTS", (_ev("paper:p1", S2, "2%"),)),
        Edge("result:p1:0", "method:equilibrium propagation", "ACHIEVED_BY", (_ev("paper:p1", S2, "EqProp"),)),
        Edge("result:p1:0", "dataset:mnist", "ON_DATASET", (_ev("paper:p1", S2, "MNIST"),)),
        Edge("result:p1:0", "metric:error rate", "ON_METRIC", (_ev("paper:p1", S2, "error rate"),)),
        Edge("paper:evil", "result:evil:0", "REPORTS", (_ev("paper:evil", HOSTILE_ABSTRACT, "GraphNet"),)),
    ]
    return GraphDocument(nodes=tuple(sorted(nodes, key=lambda n: n.id)),
                         edges=tuple(sorted(edges, key=lambda e: e.key)))


@pytest.fixture(scope="session")
def graph() -> GraphDocument:
    return make_graph()


@pytest.fixture
def open_page(browser, tmp_path):
    """Write an explorer to a file and open it with every non-file request aborted and recorded."""
    pages = []

    def _open(html: str, name: str = "explorer.html"):
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.attempted = []
        page.dialogs = []
        page.errors = []

        def block(route):
            if not route.request.url.startswith("file://"):
                page.attempted.append(route.request.url)
                route.abort()
            else:
                route.continue_()

        page.route("**/*", block)
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function("document.body.dataset.ready === 'true'", timeout=60_000)
        pages.append(page)
        return page

    yield _open
    for page in pages:
        page.close()
