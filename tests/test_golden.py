"""Reviewed golden output on the 38 seeds: counts (regenerate with ``pytest --update-golden`` and
review the diff) plus a handful of exact entities and bounds checked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.records import GraphDocument

GOLDEN = Path(__file__).parent / "golden" / "seeds" / "counts.json"


def _counts(summary: dict) -> dict:
    return {k: summary[k] for k in ("papers", "entities", "relations", "bounds", "nodes", "edges")}


def test_golden_seed_counts(seeds_out: Path, update_golden: bool) -> None:
    counts = _counts(json.loads((seeds_out / "summary.json").read_text()))
    if update_golden:
        GOLDEN.write_text(json.dumps(counts, indent=2, sort_keys=True) + "\n")
    assert counts == json.loads(GOLDEN.read_text())


def _node(graph: GraphDocument, node_id: str):
    return next(n for n in graph.nodes if n.id == node_id)


@pytest.mark.parametrize(
    "node_id,name,alias",
    [
        ("method:equilibrium propagation", "Equilibrium Propagation", "EP"),
        ("model:kolmogorov arnold network", "Kolmogorov-Arnold Networks", "KANs"),
        ("method:stochastic gradient descent", "stochastic gradient descent", "SGD"),
        ("method:post training quantization", "Post-Training Quantization", "PTQ"),
    ],
)
def test_golden_seed_entities(seeds_graph: GraphDocument, node_id: str, name: str, alias: str) -> None:
    node = _node(seeds_graph, node_id)
    assert node.name == name and alias in node.aliases


@pytest.mark.parametrize(
    "text,notation,quantity,role,unicode",
    [
        ("$\\tilde{O}_T(\\sqrt{T})$", "soft-O", "regret", "new", "Õ_T(√T)"),
        ("\\mathcal{O}(n^2)", "O", "width/size/parameters", "new", "O(n²)"),
        ("\\tilde\\Omega(C^\\*)", "soft-Omega", "sample-complexity", "condition", "Ω̃(C*)"),
        ("$O(n^2 \\log(n))$", "O", "time", "new", "O(n²·log(n))"),
        ("$1/\\tau$", "rate", "convergence-rate", "new", "1/τ"),
    ],
)
def test_golden_seed_bounds(seeds_graph: GraphDocument, text: str, notation: str, quantity: str, role: str, unicode: str) -> None:
    [bound] = [n for n in seeds_graph.nodes if n.label == "Bound" and n.properties["text"] == text]
    p = bound.properties
    assert (p["notation"], p["quantity"], p["role"], p["unicode"]) == (notation, quantity, role, unicode)


def test_golden_seed_improvement_chain(seeds_graph: GraphDocument) -> None:
    improves = [(e.source, e.target) for e in seeds_graph.edges if e.type == "IMPROVES_ON"]
    texts = {n.id: n.properties.get("text") for n in seeds_graph.nodes if n.label == "Bound"}
    assert ("\\mathcal{O}(n^2)", "\\mathcal{O}(n^6)") in {(texts[s], texts[t]) for s, t in improves}
    assert len(improves) == 3
