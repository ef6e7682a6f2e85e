"""pyvis views: the explorer's selection and colours, hover titles with evidence, offline, inert
hostile text, a clear error past pyvis's size, and a page that renders in headless Chromium."""

from __future__ import annotations

import pytest

from kg.errors import KGError
from kg.schema.style import STYLE
from kg.viz.pyvis_view import MAX_NODES, OfflineNetwork, network
from kg.viz.payload import build_payload
from tests.viz.conftest import ARTIFACTS, HOSTILE_NAME, S2


def _by_name(net: OfflineNetwork) -> dict[str, dict]:
    return {n["label"]: n for n in net.nodes}


def test_pyvis_view_selects_as_the_explorer_and_uses_its_colours(graph) -> None:
    net = network(graph, entity="EqProp", hops=1)
    assert [n["label"] for n in net.nodes] == [row[2] for row in build_payload(graph, entity="EqProp", hops=1)["nodes"]]
    # the method, the paper of the same name, its dataset and its result
    assert sorted(n["label"] for n in net.nodes) == ["2% error rate", "Equilibrium Propagation", "Equilibrium Propagation", "MNIST"]
    nodes = _by_name(net)
    assert nodes["MNIST"]["color"] == STYLE["Dataset"]["color"] and nodes["MNIST"]["shape"] == "dot"
    assert nodes["2% error rate"]["color"] == STYLE["Result"]["color"] and nodes["2% error rate"]["shape"] == "square"
    only = network(graph, types=["Method"])
    assert {n["color"] for n in only.nodes} == {STYLE["Method"]["color"]}
    assert len(network(graph, max_nodes=3).nodes) == 3


def test_pyvis_view_hover_titles_carry_evidence(graph) -> None:
    net = network(graph, entity="EqProp", hops=1)
    evaluated = next(e for e in net.edges if e["title"].startswith("EVALUATED_ON"))
    assert evaluated["title"] == f"EVALUATED_ON, 1 paper\n- {S2} (Equilibrium Propagation, 2017)"
    assert _by_name(net)["MNIST"]["title"] == f"MNIST\nDataset, 1 paper\nyears 2017\n- {S2}"


def test_pyvis_view_refuses_sizes_pyvis_cannot_show(graph) -> None:
    with pytest.raises(KGError, match=f"past {MAX_NODES}.*sigma explorer"):
        network(graph, max_nodes=MAX_NODES + 1)


def test_pyvis_view_html_links_nothing_external(graph) -> None:
    page = network(graph).generate_html()
    assert "cdn.jsdelivr.net" not in page and "cdnjs" not in page
    assert "<script>window.__pwned" not in page and HOSTILE_NAME not in page  # names travel as escaped JSON
    notebook = network(graph, notebook=True)
    assert notebook._repr_html_().startswith("<iframe srcdoc=") and "<script" not in notebook._repr_html_()


@pytest.mark.browser
def test_pyvis_view_renders_offline_with_inert_hostile_text(graph, browser, tmp_path) -> None:
    path = tmp_path / "pyvis.html"
    network(graph, max_nodes=50).write_html(str(path))
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    attempted, errors = [], []

    def block(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    page.route("**/*", block)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("typeof network !== 'undefined' && network.body.data.nodes.length > 0", timeout=60_000)
    page.wait_for_timeout(500)
    assert attempted == [] and errors == []
    assert page.evaluate("network.body.data.nodes.length") == len(graph.nodes)
    assert page.evaluate("window.__pwned") is None
    # hover a node: vis-network shows its title as text, markup and all
    target = page.evaluate(
        "(() => { const id = network.body.data.nodes.get().find(n => n.label.includes('GraphNet')).id;"
        " const p = network.canvasToDOM(network.getPositions([id])[id]); const r = document.querySelector('#mynetwork').getBoundingClientRect();"
        " return [p.x + r.left, p.y + r.top]; })()")
    page.mouse.move(*target)
    page.wait_for_selector("div.vis-tooltip", state="visible", timeout=5_000)
    tooltip = page.locator("div.vis-tooltip")
    assert HOSTILE_NAME in tooltip.inner_text() and tooltip.locator("img").count() == 0
    assert page.evaluate("window.__pwned") is None
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pyvis-view.png"))
    page.close()
