"""Node and edge types of the graph: the single allow-list every sink checks against.

Labels and relationship types cannot be query parameters in Cypher, so a sink may only
splice names that appear here into query text.
"""

from __future__ import annotations

from kg.records import ENTITY_LABELS

NODE_LABELS: tuple[str, ...] = ("Paper", *ENTITY_LABELS, "Bound", "Result")

EDGE_TYPES: dict[str, str] = {
    "MENTIONS": "paper mentions an entity (provenance: sentence and offsets)",
    "PROPOSES": "paper proposes a method or model",
    "ADDRESSES": "paper, method or model addresses a problem",
    "USES": "method or model uses another method, model, dataset or concept",
    "EVALUATED_ON": "method or model is evaluated on a dataset",
    "MEASURED_BY": "problem, method or dataset is measured by a metric",
    "OUTPERFORMS": "method or model is reported to beat another",
    "IS_A": "entity is a kind of another (hyponym)",
    "PART_OF": "entity is part of another",
    "COMPARED_WITH": "two entities are compared",
    "STATES_BOUND": "paper states a complexity bound",
    "BOUNDS": "bound is about a method, model or problem",
    "IMPROVES_ON": "bound improves on an earlier bound",
    "REPORTS": "paper reports a result (a number it measured)",
    "ACHIEVED_BY": "result was achieved by a method or model",
    "ON_DATASET": "result was measured on a dataset or benchmark",
    "ON_METRIC": "result is a value of a metric",
    "AGAINST": "result is a change measured against a baseline method or model",
}

SCIERC_TO_SCHEMA: dict[str, str | None] = {
    "Task": "Problem",
    "Method": "Method",  # or Model, decided by the extractor
    "Material": "Dataset",
    "Metric": "Metric",
    "OtherScientificTerm": "Concept",
    "Generic": None,
}


def node_id(label: str, key: str) -> str:
    """Deterministic node id: lower-case label and a normalised key (``method:equilibrium propagation``)."""
    return f"{label.lower()}:{key}"


def check_label(label: str) -> str:
    """Return ``label`` if it is a known node label, else raise ``ValueError`` naming the known ones."""
    if label not in NODE_LABELS:
        raise ValueError(f"unknown node label {label!r}; known: {', '.join(NODE_LABELS)}")
    return label


def check_edge_type(edge_type: str) -> str:
    """Return ``edge_type`` if it is a known relationship type, else raise ``ValueError``."""
    if edge_type not in EDGE_TYPES:
        raise ValueError(f"unknown edge type {edge_type!r}; known: {', '.join(EDGE_TYPES)}")
    return edge_type


def node_properties(node) -> dict:
    """Flat property map of a node, the same in every store (scalars and lists of scalars only)."""
    props = {
        "id": node.id,
        "name": node.name,
        "aliases": list(node.aliases),
        "papers": list(node.papers),
        "support": node.support,
        "mentions": node.mentions,
    }
    props.update(node.properties)
    return props


def edge_properties(edge) -> dict:
    """Flat property map of an edge: support, papers and per-evidence parallel lists.

    Evidence offsets index the paper's ``abstract`` property; the sentence text is sliced from it.
    """
    ev = edge.evidence
    props = {
        "key": edge.key,
        "support": edge.support,
        "papers": list(edge.papers),
        "evidencePapers": [e.paper for e in ev],
        "sentenceStarts": [e.sentence_start for e in ev],
        "sentenceEnds": [e.sentence_end for e in ev],
        "starts": [e.start for e in ev],
        "ends": [e.end for e in ev],
        "rules": [e.rule for e in ev],
        "confidences": [e.confidence for e in ev],
    }
    props.update(edge.properties)
    return props
