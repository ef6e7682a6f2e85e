"""The extraction output contract of ``kg extract --format jsonl`` (the evaluation harness reads it).

One JSON object per abstract: ``id``, ``entities`` (start, end, text, label, canonical, confidence),
``relations`` (head, tail, label: indices into ``entities``; confidence), ``bounds`` (start, end, text, notation, expression,
quantity, subject, role, improves_on: an index into ``bounds`` or null; plus kind, quantity_detail,
unicode, variables, parsed and subject_entity, an index into ``entities`` or null).  Relations whose subject is
the paper itself (PROPOSES, ADDRESSES) have no head entity and go to ``paper_relations`` (tail, label).
``results`` are the reported results (value as written, start, end and the fields of
``results-GUIDELINES.md``; ``*_entity`` index ``entities`` where a name is a mention).
"""

from __future__ import annotations

from typing import Any

from kg.records import Extraction

RESULT_FIELDS = ("low", "high", "unit", "kind", "direction", "qualifier", "method", "baseline", "metric", "dataset",
                 "setting", "method_entity", "baseline_entity", "metric_entity", "dataset_entity")
"""The fields of a result record (``results-GUIDELINES.md``) plus the mentions its names point at."""


def to_contract(x: Extraction) -> dict[str, Any]:
    """The contract object of one extraction.

    Example:
        >>> to_contract(Extraction("a1", "rules.v1"))
        {'id': 'a1', 'entities': [], 'relations': [], 'paper_relations': [], 'results': [], 'bounds': []}
    """
    return {
        "id": x.abstract_id,
        "entities": [
            {"start": m.start, "end": m.end, "text": m.text, "label": m.label, "canonical": m.canonical, "confidence": m.confidence}
            for m in x.entities
        ],
        "relations": [{"head": r.head, "tail": r.tail, "label": r.label, "confidence": r.confidence} for r in x.relations if r.head is not None],
        "paper_relations": [{"tail": r.tail, "label": r.label, "confidence": r.confidence} for r in x.relations if r.head is None],
        "results": [
            {
                "value": r.text,
                "start": r.start,
                "end": r.end,
                **{k: getattr(r, k) for k in RESULT_FIELDS},
                "confidence": r.confidence,
            }
            for r in x.results
        ],
        "bounds": [
            {
                "start": b.start,
                "end": b.end,
                "text": b.text,
                "notation": b.notation,
                "expression": b.expression,
                "quantity": b.quantity,
                "subject": b.subject,
                "role": b.role,
                "improves_on": b.improves_on,
                "subject_entity": b.subject_entity,
                "kind": b.kind,
                "quantity_detail": b.quantity_detail,
                "unicode": b.unicode,
                "variables": list(b.variables),
                "parsed": b.parsed,
            }
            for b in x.bounds
        ],
    }
