"""Neo4j Browser files: style sheet, guide, favourites zip, and the CORS server the Browser fetches from."""

from __future__ import annotations

import io
import threading
import urllib.request
import zipfile
from dataclasses import replace

import pytest

from kg.queries import list_queries
from kg.records import GraphDocument, Node
from kg.schema import NODE_LABELS
from kg.schema.style import STYLE
from kg.viz import neo4j_browser as browser


def test_browser_grass_styles_every_label():
    text = browser.grass()
    for label in NODE_LABELS:
        assert f"node.{label} {{ color: {STYLE[label]['color']};" in text
    assert text.count('caption: "{name}"') == len(NODE_LABELS) + 1


def test_browser_guide_has_a_slide_per_query_with_runnable_params():
    queries = list_queries()
    page = browser.guide_html(queries, {"Problem": "problem:online facility location"})
    assert page.count("<slide ") == len(queries) + 1
    assert page.count('<pre class="pre-scrollable code runnable">') == len(queries)
    mfp = next(q for q in queries if q.name == "methods_for_problem")
    assert ':params {&quot;problem&quot;: &quot;problem:online facility location&quot;, &quot;limit&quot;: 25}' in page
    assert f"<h3>{mfp.name}</h3>" in page


@pytest.mark.parametrize("hostile", ['<script>alert("x")</script>', "a & b"])
def test_browser_guide_escapes_every_string(hostile):
    q = list_queries()[0]
    q = replace(q, header=replace(q.header, summary=hostile))
    page = browser.guide_html([q], {"Problem": hostile})
    assert hostile not in page
    assert "<script>" not in page


def test_browser_examples_pick_best_supported_node():
    nodes = (
        Node("problem:a", "Problem", "a", papers=("p1",)),
        Node("problem:b", "Problem", "b", papers=("p1", "p2")),
    )
    assert browser.examples(GraphDocument(nodes, ())) == {"Problem": "problem:b"}


def test_browser_favourites_zip_holds_every_query():
    queries = list_queries()
    with zipfile.ZipFile(io.BytesIO(browser.favourites_zip(queries))) as z:
        names = sorted(z.namelist())
        first = z.read(f"paperkg/{queries[0].name}.cypher").decode()
    assert names == sorted(f"paperkg/{q.name}.cypher" for q in queries)
    assert first.startswith(f"// paperkg {queries[0].name}: {queries[0].summary}\n")


def test_browser_server_answers_preflight_and_get_with_cors(tmp_path):
    browser.write(tmp_path, None, list_queries())
    server = browser.serve(tmp_path, port=0)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        pre = urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/guide.html", method="OPTIONS"))
        assert pre.status == 204 and pre.headers["Access-Control-Allow-Origin"] == "*"
        got = urllib.request.urlopen(f"http://127.0.0.1:{port}/guide.html")
        assert got.headers["Access-Control-Allow-Origin"] == "*"
        assert got.read().decode().startswith('<article class="guide">')
    finally:
        server.shutdown()
        server.server_close()


def test_kg_browser_writes_the_files_for_a_built_folder(seeds_out, tmp_path):
    from click.testing import CliRunner

    from kg.cli import cli

    result = CliRunner().invoke(cli, ["browser", str(seeds_out), "--directory", str(tmp_path / "b"), "--no-serve"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["guide.html", "paperkg-queries.zip", "paperkg.grass"]
    import html

    import kg

    guide = (tmp_path / "b" / "guide.html").read_text()
    assert guide.count("<slide ") == len(list_queries()) + 1
    best_problem = browser.examples(kg.open(seeds_out).document)["Problem"]
    assert html.escape(best_problem) in guide  # example parameters come from the built graph
