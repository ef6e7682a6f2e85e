"""View selection, safe embedding and layout, without a browser."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from kg.schema import NODE_LABELS
from kg.schema.style import STYLE
from kg.viz import embed_json, render
from kg.viz.layout import EXACT_MAX, layout
from kg.viz.payload import build_payload


def _names(payload: dict) -> set[str]:
    return {row[2] for row in payload["nodes"]}


def test_style_covers_every_label():
    assert set(STYLE) == set(NODE_LABELS)
    for style in STYLE.values():
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", style["color"])
        assert style["shape"] in ("circle", "square")


@pytest.mark.parametrize(
    "value",
    [{"t": "</script><script>alert(1)</script>"}, {"t": "<!-- x --> & \u2028 \u2029"}, ["a<b", {"k>": "&amp;"}]],
)
def test_viz_embed_json_escapes_markup_and_round_trips(value):
    text = embed_json(value)
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == value


def test_viz_render_never_emits_hostile_text_raw(graph):
    page = render(graph)
    assert "<script>window.__pwned" not in page
    assert "<img src=x" not in page
    assert "javascript:window" in page  # present only inside the JSON string, as data
    assert len(re.findall(r"<script\b", page)) == 3  # data, vendor bundle, explorer: nothing else
    assert "Permission is hereby granted" in page and "sigma@3.0.3 (MIT)" in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp and csp.count("'sha256-") == 2


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"types": ["Dataset", "Metric"]}, {"MNIST", "error rate"}),
        ({"types": ["Model"], "min_support": 2}, {"Hopfield network"}),
        ({"types": ["Method"], "years": (2024, 2026)}, {"Backpropagation", '<img src=x onerror="window.__pwned=1">GraphNet'}),
        ({"entity": "EqProp", "hops": 1}, {"Equilibrium Propagation", "MNIST"}),
        ({"entity": "ofl", "hops": 1, "types": ["Bound"]}, {"online facility location", "O(sqrt(T))"}),
    ],
)
def test_viz_payload_filters(graph, kwargs, expected):
    payload = build_payload(graph, **kwargs)
    names = _names(payload)
    if "entity" in kwargs and "types" not in kwargs:
        assert expected <= names and "Backpropagation" not in names
    else:
        assert names == expected


def test_viz_payload_ego_marks_centre_and_counts_hops(graph):
    payload = build_payload(graph, entity="Hopfield networks", hops=1)
    centre = payload["nodes"][payload["view"]["centre"]]
    assert centre[0] == "model:hopfield network"
    assert {row[0] for row in payload["nodes"]} == {"model:hopfield network", "paper:p1", "paper:p3"}
    assert payload["view"]["hops"] == 1 and payload["view"]["total"] == len(graph.nodes)


def test_viz_payload_unknown_entity_suggests_names(graph):
    """The explorer resolves as the canned queries do: same rules, same error, same suggestions."""
    from kg import queries
    from kg.errors import UnknownEntity

    with pytest.raises(UnknownEntity, match=r"no entity named 'MNISTT'; did you mean: MNIST\?") as raised:
        build_payload(graph, entity="MNISTT")
    with pytest.raises(UnknownEntity) as by_query:
        queries.run("papers_for_entity", {"entity": "MNISTT"}, "python", graph=graph)
    assert raised.value.suggestions == by_query.value.suggestions == ("MNIST",)
    assert build_payload(graph, entity="hopfield-network", hops=0)["view"]["centre"] is not None


def test_viz_payload_overview_keeps_best_supported(graph):
    payload = build_payload(graph, max_nodes=1)
    assert [row[0] for row in payload["nodes"]] == ["model:hopfield network"]
    assert payload["edges"] == []


def test_viz_payload_evidence_points_into_shared_sentences(graph):
    payload = build_payload(graph)
    assert len(payload["sentences"]) == len(set(payload["sentences"]))
    by_id = {row[0]: i for i, row in enumerate(payload["nodes"])}
    mnist = by_id["dataset:mnist"]
    spans = []
    for source, target, _type, support, total, evidence in payload["edges"]:
        assert support >= 1 and total == len(evidence)
        if target == mnist:
            spans += [payload["sentences"][s][a:b] for s, a, b, _p in evidence]
    assert spans and set(spans) == {"MNIST"}


def test_viz_layout_small_is_deterministic_and_spread():
    edges = [(0, 1), (1, 2), (2, 0), (3, 4)]
    a, b = layout(5, edges), layout(5, edges)
    assert np.array_equal(a, b)
    distances = np.linalg.norm(a[:, None] - a[None, :], axis=2)[np.triu_indices(5, 1)]
    assert distances.min() > 0.1 * distances.max()


def test_viz_layout_grid_keeps_communities_together():
    n, size = 3 * EXACT_MAX, EXACT_MAX // 5  # above EXACT_MAX, so the grid approximation runs
    rnd = random.Random(3)
    edges = [(i, (i // size) * size + rnd.randrange(size)) for i in range(n) for _ in range(3)]
    edges = [(s, t) for s, t in edges if s != t]
    pos = layout(n, edges, iterations=120)
    assert np.isfinite(pos).all() and len({tuple(p) for p in pos.round(6)}) == n
    community = np.arange(n) // size
    centres = np.array([pos[community == c].mean(axis=0) for c in range(n // size)])
    spread_within = np.linalg.norm(pos - centres[community], axis=1).mean()
    spread_between = np.linalg.norm(centres - centres.mean(axis=0), axis=1).mean()
    assert spread_within < 0.6 * spread_between
