"""The extraction output contract of ``kg extract --format jsonl`` (the evaluation harness reads it).

One JSON object per abstract: ``id``, ``entities`` (start, end, text, label, canonical), ``relations``
(head, tail, label: indices into ``entities``), ``bounds`` (start, end, text, notation, expression,
quantity, subject, role, improves_on: an index into ``bounds`` or null; plus kind, quantity_detail,
unicode, variables, parsed and subject_entity, an index into ``entities`` or null).  Relations whose subject is
the paper itself (PROPOSES, ADDRESSES) have no head entity and go to ``paper_relations`` (tail, label).
"""

from __future__ import annotations

from typing import Any

from kg.records import Extraction


def to_contract(x: Extraction) -> dict[str, Any]:
    """The contract object of one extraction.

    Example:
        >>> to_contract(Extraction("a1", "rules.v1"))
        {'id': 'a1', 'entities': [], 'relations': [], 'paper_relations': [], 'bounds': []}
    """
    return {
        "id": x.abstract_id,
        "entities": [
            {"start": m.start, "end": m.end, "text": m.text, "label": m.label, "canonical": m.canonical}
            for m in x.entities
        ],
        "relations": [{"head": r.head, "tail": r.tail, "label": r.label} for r in x.relations if r.head is not None],
        "paper_relations": [{"tail": r.tail, "label": r.label} for r in x.relations if r.head is None],
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
