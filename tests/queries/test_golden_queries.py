"""Reviewed answers of every canned query on the 38 seeds (``tests/golden/queries/NAME.json``).

Regenerate with ``pytest tests/queries/test_golden_queries.py --update-golden`` after a change in
extraction, and read the diff: each file holds the parameters and the rows they gave.  The seeds
carry no year or ICLR area, so the time and area queries answer nothing here; their reviewed
answers are in ``test_queries.py`` on the fixture graph.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg import queries

GOLDEN = Path(__file__).parents[1] / "golden" / "queries"
CASES = {
    "methods_for_problem": {"problem": "image generation"},
    "problems_for_method": {"method": "SVR"},
    "top_entities": {"type": "Method", "limit": 5},
    "co_occurring": {"entity": "stochastic gradient descent", "limit": 5},
    "papers_for_entity": {"entity": "SGD"},
    "paper_profile": {"paper": "4f30a836fb1a6d04"},
    "bounds_for_problem": {"problem": "transformer"},
    "bound_improvements": {},
    "bound_gaps": {},
    "outperforms": {"method": "SVR"},
    "datasets_for_method": {"method": "alternating optimization"},
    "methods_on_dataset": {"dataset": "CIFAR10"},
    "new_in_corpus": {"type": "Method", "year": 2026},
    "rising_entities": {"type": "Method"},
    "similar_papers": {"paper": "d14dfffd76bf42b3", "k": 3},
    "connection": {"a": "SGD", "b": "transformers"},
    "area_overview": {"primary_area": "optimization"},
    "results_for_method": {"method": "DeMo"},
    "claims_over_baseline": {"baseline": "AdamW-DDP"},
    "leaderboard": {"dataset": "CIFAR10", "metric": "accuracy"},
}


def test_golden_queries_cover_every_query() -> None:
    assert set(CASES) == {q.name for q in queries.list_queries()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_queries_seeds(name: str, seeds_built, update_golden: bool) -> None:
    rows = queries.run(name, CASES[name], "python", graph=seeds_built.graph)
    assert queries.run(name, CASES[name], "embedded", store=seeds_built.store) == rows
    path = GOLDEN / f"{name}.json"
    answer = {"params": CASES[name], "rows": rows}
    if update_golden:
        path.write_text(json.dumps(answer, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    assert answer == json.loads(path.read_text(encoding="utf-8"))
