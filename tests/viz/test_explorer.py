"""The explorer in a real headless Chromium (Debian's ``chromium``), opened from file:// offline."""

from __future__ import annotations

import struct
import zlib

import pytest

from kg.schema.style import STYLE
from kg.viz import render

from tests.viz.conftest import ARTIFACTS, HOSTILE_ABSTRACT

pytestmark = pytest.mark.browser

VISIBLE = "() => window.kgExplorer.nodes.filter((n) => !window.kgExplorer.sigma.getNodeDisplayData(String(n.i)).hidden).map((n) => n.id).sort()"


def _index(page, node_id: str) -> int:
    return page.evaluate("(id) => window.kgExplorer.nodes.find((n) => n.id === id).i", node_id)


def _screen_position(page, node_id: str) -> tuple[float, float]:
    """Where sigma draws the node, in page coordinates."""
    i = _index(page, node_id)
    x, y = page.evaluate(
        """(i) => { const s = window.kgExplorer.sigma; const p = s.graphToViewport(s.getGraph().getNodeAttributes(String(i)));
                     return [p.x, p.y]; }""",
        i,
    )
    box = page.locator("#graph").bounding_box()
    return box["x"] + x, box["y"] + y


def _pixel(page, x: float, y: float) -> tuple[int, int, int]:
    """The composited colour on screen at page point (x, y), from a one-pixel PNG screenshot."""
    png = page.screenshot(clip={"x": int(x), "y": int(y), "width": 1, "height": 1})
    chunks, at = {}, 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8].decode("ascii")
        chunks[kind] = chunks.get(kind, b"") + png[at + 8 : at + 8 + length]
        at += 12 + length
    assert chunks["IHDR"][8] == 8  # 8 bits per channel; one pixel, so no PNG filter changes it
    raw = zlib.decompress(chunks["IDAT"])
    return raw[1], raw[2], raw[3]


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@pytest.fixture
def overview(open_page, graph):
    return open_page(render(graph, title="Fixture graph"))


def test_explorer_loads_offline_and_saves_overview(overview):
    page = overview
    assert page.attempted == []
    assert page.errors == []
    assert page.inner_text("#status") == "16 of 16 nodes shown"
    assert page.inner_text("#title") == "Fixture graph"
    assert page.evaluate("window.kgExplorer.sigma.getGraph().order") == 16
    assert page.evaluate("window.kgExplorer.state.edgesDrawn") == 21
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-overview.png"))


@pytest.mark.parametrize(
    ("query", "node_id", "alias"),
    [
        ("backprop", "method:backpropagation", "alias: backprop"),
        ("EBM", "concept:energy-based model", "alias: EBM"),
        ("hopfeild network", "model:hopfield network", None),  # a typo still finds it
    ],
)
def test_explorer_search_finds_node_by_alias(overview, query, node_id, alias):
    page = overview
    page.fill("#search", query)
    first = page.locator("#results li").first
    name = page.evaluate("(id) => window.kgExplorer.nodes.find((n) => n.id === id).name", node_id)
    assert first.inner_text().startswith(name)
    if alias:
        assert alias in first.inner_text()
    page.press("#search", "Enter")
    assert page.inner_text("#details h2") == name
    assert page.evaluate("window.kgExplorer.state.selected") == _index(page, node_id)
    assert page.locator("#results li").count() == 0


def test_explorer_click_shows_evidence_with_mention_marked(overview):
    page = overview
    x, y = _screen_position(page, "dataset:mnist")
    page.mouse.click(x, y)
    assert page.inner_text("#details h2") == "MNIST"
    quotes = page.locator("#details blockquote")
    assert quotes.count() == 3  # MENTIONS, EVALUATED_ON and the result's ON_DATASET
    assert quotes.first.inner_text().startswith("EqProp trains Hopfield networks on MNIST")
    assert page.locator("#details blockquote mark").all_inner_texts() == ["MNIST", "MNIST", "MNIST"]
    assert page.locator("#details .papers a").get_attribute("href") == "https://openreview.net/forum?id=p1"


def test_explorer_hover_dims_the_rest(overview):
    page = overview
    method = _hex("#F79767")
    backprop = _screen_position(page, "method:backpropagation")
    eqprop = _screen_position(page, "method:equilibrium propagation")
    paper = _screen_position(page, "paper:p1")
    assert _pixel(page, *backprop) == method
    assert _pixel(page, *paper) == _hex(STYLE["Paper"]["color"])  # squares are filled point sprites
    x, y = _screen_position(page, "dataset:mnist")
    page.mouse.move(x, y)
    page.wait_for_function("window.kgExplorer.state.hovered !== null")
    focused = page.evaluate("window.kgExplorer.state.focused.map((i) => window.kgExplorer.nodes[i].id).sort()")
    assert focused == ["dataset:mnist", "method:equilibrium propagation", "paper:p1", "result:p1:0"]
    # on screen: the neighbour keeps its colour, the rest is washed out towards white
    assert _pixel(page, *eqprop) == method
    assert _pixel(page, *paper) == _hex(STYLE["Paper"]["color"])
    dimmed = _pixel(page, *backprop)
    assert all(c >= 0.8 * 255 for c in dimmed) and dimmed != method, dimmed
    page.mouse.move(5, 5)
    page.wait_for_function("window.kgExplorer.state.hovered === null")
    assert page.evaluate("window.kgExplorer.state.focused") is None
    assert _pixel(page, *backprop) == method


def test_explorer_hover_does_not_redraw_the_graph(overview):
    """Hover only redraws the focus layer, so its cost does not grow with the view (issue 7)."""
    page = overview
    page.evaluate("""() => { const s = window.kgExplorer.sigma; window.kgCount = { process: 0, render: 0 };
                            s.on("afterProcess", () => window.kgCount.process++); s.on("afterRender", () => window.kgCount.render++); }""")
    x, y = _screen_position(page, "model:hopfield network")
    page.mouse.move(x, y)
    page.wait_for_function("window.kgExplorer.state.hovered !== null")
    page.mouse.move(5, 5)
    page.wait_for_function("window.kgExplorer.state.hovered === null")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.evaluate("window.kgCount") == {"process": 0, "render": 0}


def test_explorer_type_filter_hides_nodes(overview):
    page = overview
    every = page.evaluate(VISIBLE)
    page.click("#legend button[data-label='Method']")
    assert page.inner_text("#status") == "13 of 16 nodes shown"
    hidden = sorted(set(every) - set(page.evaluate(VISIBLE)))
    assert hidden == ["method:backpropagation", "method:equilibrium propagation", "method:graphnet"]
    # the edge layer draws only edges between shown nodes: 21 less the 6 touching a method
    assert page.evaluate("window.kgExplorer.state.edgesDrawn") == 15
    assert page.get_attribute("#legend button[data-label='Method']", "aria-pressed") == "false"
    page.click("#legend button[data-label='Method']")
    assert page.evaluate(VISIBLE) == every


def test_explorer_year_and_support_filters(overview):
    page = overview
    page.fill("#year-lo", "2024")
    page.press("#year-lo", "Tab")
    shown = page.evaluate(VISIBLE)
    assert "paper:p1" not in shown and "dataset:mnist" not in shown and "paper:p3" in shown
    page.fill("#year-lo", "2017")
    page.press("#year-lo", "Tab")
    page.fill("#min-support", "2")
    page.press("#min-support", "Tab")
    shown = page.evaluate(VISIBLE)
    assert [i for i in shown if i.split(":")[0] not in ("paper", "bound", "result")] == ["model:hopfield network"]


def test_explorer_bound_details_show_quantity_and_improvement(overview):
    page = overview
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "bound:p2:new"))
    details = page.inner_text("#details")
    assert page.inner_text("#details h2") == "O(√T)"
    assert "quantity: regret" in details and "role: new" in details
    assert page.locator("#details h3", has_text="Improves on").count() == 1
    page.click("#details button.bound")
    assert page.inner_text("#details h2") == "O(T²ᐟ³)"


def test_explorer_paper_details_tabulate_its_results_and_a_result_shows_its_fields(overview):
    page = overview
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "paper:p1"))
    rows = page.locator("#details table.results tr")
    assert rows.count() == 2
    assert rows.nth(1).locator("td").all_inner_texts() == ["2%", "error rate", "MNIST", "EqProp", "", "below", ""]
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "result:p1:0"))
    facts = page.locator("#details .result-facts li").all_inner_texts()
    assert {"as written: 2%", "metric: error rate", "better: down", "dataset: MNIST", "qualifier: below"} <= set(facts)


def test_explorer_hostile_text_is_inert(overview):
    page = overview
    page.fill("#search", "graphnet")
    assert "<img src=x" in page.inner_text("#results li >> nth=0")
    page.press("#search", "Enter")
    assert page.inner_text("#details h2").startswith("<img src=x onerror=")
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "paper:evil"))
    assert page.inner_text("#details .abstract") == HOSTILE_ABSTRACT
    assert page.inner_text("#details .authors") == "A. Author, B. <i>Author</i>"
    assert page.locator("#details i, #details b, #details script").count() == 0
    assert page.inner_text("#details h2") == "<script>window.__pwned=6</script>Evil"
    assert page.locator("#details .url").inner_text() == "javascript:window.__pwned=5"
    # the evidence sentence (the whole hostile abstract) is text too, with its mention marked
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "method:graphnet"))
    assert page.locator("#details blockquote mark").all_inner_texts() == ["GraphNet"]
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "paper:evil"))
    assert page.locator("#details table.results td").all_inner_texts()[-1] == "<script>window.__pwned=7</script>"
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == [] and page.errors == [] and page.attempted == []
    assert page.locator("img").count() == 0
    assert page.locator("a[href^='javascript:' i]").count() == 0
    assert page.locator("script").count() == 3


def test_explorer_ego_view_file(open_page, graph):
    page = open_page(render(graph, entity="Hopfield networks", hops=1), name="ego.html")
    assert page.evaluate(VISIBLE) == ["model:hopfield network", "paper:p1", "paper:p3"]
    assert page.inner_text("#details h2") == "Hopfield network"
    assert page.attempted == [] and page.errors == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-ego.png"))


def test_explorer_ego_view_button_and_back(overview):
    page = overview
    page.evaluate("(i) => window.kgExplorer.focusNode(i)", _index(page, "model:hopfield network"))
    page.fill("#ego-hops", "1")
    page.click("#ego")
    assert page.evaluate(VISIBLE) == ["model:hopfield network", "paper:p1", "paper:p3"]
    page.click("#overview")
    assert page.inner_text("#status") == "16 of 16 nodes shown"


def test_explorer_top_n_control(overview):
    page = overview
    page.eval_on_selector("#top-n", "(el) => { el.value = '3'; el.dispatchEvent(new Event('input')); el.dispatchEvent(new Event('change')); }")
    assert page.inner_text("#status") == "3 of 16 nodes shown"
    assert "model:hopfield network" in page.evaluate(VISIBLE)


@pytest.mark.issue(21)
def test_explorer_marks_the_mention_after_characters_above_u_ffff(open_page, nonbmp_out):
    """Offsets count code points, JavaScript strings UTF-16 units: the highlight must convert."""
    import kg

    from tests.conftest import NONBMP_SENTENCE

    from tests.conftest import NONBMP_ABSTRACT

    document = kg.open(nonbmp_out).document
    page = open_page(render(document), name="nonbmp.html")
    # every entity the extractor found: its marks are the mentions Python slices, in the sentences it slices
    mentions = {}
    for edge in document.edges:
        if edge.type == "MENTIONS":
            for ev in edge.evidence:
                mentions.setdefault(edge.target, set()).add(
                    (NONBMP_ABSTRACT[ev.start:ev.end], NONBMP_ABSTRACT[ev.sentence_start:ev.sentence_end]))
    names = {n.id: n.name for n in document.nodes}
    assert "dataset:imagenet" in mentions and any(ord(c) > 0xFFFF for c in NONBMP_ABSTRACT[:NONBMP_ABSTRACT.index("ImageNet")])
    every_mention = {m for found in mentions.values() for m, _ in found}
    every_sentence = {sentence for found in mentions.values() for _, sentence in found}
    for node, found in sorted(mentions.items()):
        page.fill("#search", names[node])
        page.press("#search", "Enter")
        assert page.inner_text("#details h2") == names[node]
        marks = set(page.locator("#details blockquote mark").all_inner_texts())
        # its own mentions are marked, and every mark is a mention as Python slices it (a UTF-16 slip shifts them)
        assert {m for m, _ in found} <= marks <= every_mention, node
        quotes = page.locator("#details blockquote").all_inner_texts()
        assert quotes and {q.split("\n")[0] for q in quotes} <= every_sentence, node
    page.fill("#search", "ImageNet")
    page.press("#search", "Enter")
    quotes = page.locator("#details blockquote").all_inner_texts()
    assert quotes and {q.split("\n")[0] for q in quotes} == {NONBMP_SENTENCE}
    assert page.errors == [] and page.attempted == []
