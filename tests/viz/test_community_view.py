"""The explorer's community view: members only, one region and one colour per community, a label
per community on the graph, and each community's summary in the side panel."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kg import analytics
from kg.testing import planted_graph
from kg.viz import render
from kg.viz.payload import build_payload
from tests.viz.conftest import ARTIFACTS

DOC = planted_graph(groups=4, entities=6, papers=20, cross=0.05)


def _communities() -> dict:
    members = analytics.community_members(DOC)
    return {"membership": dict(zip(members["id"], members["community"].tolist())),
            "summaries": json.loads(analytics.communities(DOC, min_size=1).to_json(orient="records"))}


def test_community_view_payload_places_each_community_apart() -> None:
    payload = build_payload(DOC, communities=_communities())
    assert {n[0].split(":")[0] for n in payload["nodes"]} == {"method", "problem", "dataset", "model"}  # no papers
    assert len(payload["communities"]) == 4 and payload["communities"][0]["entities"] == 6
    by_group: dict[int, list] = {}
    for n in payload["nodes"]:
        by_group.setdefault(n[11], []).append((n[3], n[4]))
    centres = {g: np.mean(p, axis=0) for g, p in by_group.items()}
    spread = max(float(np.max(np.linalg.norm(np.array(p) - centres[g], axis=1))) for g, p in by_group.items())
    gaps = [float(np.linalg.norm(centres[a] - centres[b])) for a in centres for b in centres if a < b]
    assert min(gaps) > spread  # regions do not overlap: every centre is further than any member from its own
    for g, points in by_group.items():  # a region holds one planted area
        ids = {n[0] for n in payload["nodes"] if n[11] == g}
        assert len({i.split("area ")[1].split(" ")[0] for i in ids}) == 1


@pytest.mark.browser
def test_community_view_colours_labels_and_summaries(open_page) -> None:
    page = open_page(render(DOC, communities=_communities()), "areas.html")
    colours = page.evaluate("""() => { const e = window.kgExplorer; const by = {};
        e.nodes.forEach((n) => { (by[n.community] = by[n.community] || new Set()).add(e.graph.getNodeAttribute(String(n.i), 'color')); });
        return Object.values(by).map((s) => [...s]); }""")
    assert all(len(c) == 1 for c in colours) and len({c[0] for c in colours}) == 4
    labels = page.evaluate("window.kgExplorer.state.groupLabels")
    assert len(labels) == 4 and all(label.count(" / ") == 2 for label in labels)
    panel = page.locator("#communities")
    assert panel.locator("details").count() == 4
    assert panel.locator("h2").inner_text() == "4 communities"
    panel.locator("summary").first.click()
    text = panel.locator("details").first.inner_text()
    assert "Methods" in text and "Problems" in text and "2018–2025" in text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer-communities.png"))
    assert page.attempted == [] and page.errors == []
