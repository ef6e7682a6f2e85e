"""Sample parameters for every canned query, chosen from the graph itself so that each finds something.

The parity tests and ``bench/queries.py`` run every query with these on any built graph.

The busiest node of the right kind is picked (most edges of the types the query follows, then
most papers, then smallest id), so the same rule serves the fixture, the seeds and a corpus slice.
Busy nodes are given both by name and by id, to exercise resolution on every backend and so that a
name resolving to another node cannot go unnoticed in the benchmark (it reports every set).
``co_occurring`` also runs on the busiest entity whose co-occurrences are counted, not stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from kg.records import ENTITY_LABELS, METHOD_LABELS, GraphDocument
from kg.schema.aggregates import CO_OCCURRING_MIN_PAPERS



def param_sets(doc: GraphDocument) -> dict[str, list[dict]]:
    """Query name -> parameter sets to run it with."""
    degree: Counter[tuple[str, str, str]] = Counter()
    for e in doc.edges:
        degree[(e.type, "out", e.source)] += 1
        degree[(e.type, "in", e.target)] += 1
    nodes = {n.id: n for n in doc.nodes}

    def best(labels: tuple[str, ...], *keys: tuple[str, str], skip: Collection[str] = ()) -> str:
        candidates = [n for n in doc.nodes if n.label in labels and n.id not in skip]
        if not candidates:
            raise ValueError(f"the graph has no {' or '.join(labels)} node to sample a parameter from")
        return min(candidates, key=lambda n: (-sum(degree[(*k, n.id)] for k in keys), -n.support, n.id)).id

    def name(node_id: str) -> str:
        return nodes[node_id].name

    problem = best(("Problem",), ("ADDRESSES", "in"))
    method = best(METHOD_LABELS, ("ADDRESSES", "out"), ("PROPOSES", "in"))
    rival = best(METHOD_LABELS, ("OUTPERFORMS", "out"), ("OUTPERFORMS", "in"))
    dataset = best(("Dataset",), ("EVALUATED_ON", "in"))
    evaluated = best(METHOD_LABELS, ("EVALUATED_ON", "out"))
    bounded = best(("Problem", *METHOD_LABELS), ("BOUNDS", "in"))
    entity = best(ENTITY_LABELS, ("MENTIONS", "in"))
    other = best(("Problem",), ("MENTIONS", "in"), skip=(entity,))
    quiet = best(ENTITY_LABELS, ("MENTIONS", "in"), skip={n.id for n in doc.nodes if n.support >= CO_OCCURRING_MIN_PAPERS})
    rare = max((n for n in doc.nodes if n.label in ENTITY_LABELS), key=lambda n: (-n.support, n.id)).id
    paper = best(("Paper",), ("MENTIONS", "out"))
    years = sorted({n.properties["year"] for n in doc.nodes if n.label == "Paper" and n.properties.get("year")}) or [2026]
    areas = Counter(n.properties.get("primaryArea") for n in doc.nodes if n.label == "Paper" and n.properties.get("primaryArea"))
    area = min(areas, key=lambda a: (-areas[a], a)) if areas else "optimization"
    quantities = Counter(n.properties.get("quantity") for n in doc.nodes if n.label == "Bound")
    achiever = best(METHOD_LABELS, ("ACHIEVED_BY", "in"))
    baseline = best(METHOD_LABELS, ("AGAINST", "in"))
    board = best(("Dataset",), ("ON_DATASET", "in"))
    on_board = {e.source for e in doc.edges if e.type == "ON_DATASET" and e.target == board}
    scored = Counter(e.target for e in doc.edges if e.type == "ON_METRIC" and e.source in on_board)
    metric = min(scored, key=lambda m: (-scored[m], m)) if scored else best(("Metric",), ("ON_METRIC", "in"))
    return {
        "methods_for_problem": [{"problem": name(problem)}, {"problem": problem, "limit": 3}],
        "problems_for_method": [{"method": name(method)}, {"method": method}],
        "top_entities": [{"type": "Method"}, {"type": "problem", "limit": 5}],
        "co_occurring": [{"entity": name(entity)}, {"entity": entity, "type": "Method", "limit": 5}, {"entity": quiet}],
        "papers_for_entity": [{"entity": name(entity), "limit": 10}, {"entity": entity}],
        "paper_profile": [{"paper": paper}, {"paper": nodes[paper].properties.get("title") or paper}],
        "bounds_for_problem": [{"problem": bounded}, {"problem": bounded, "quantity": min(quantities) if quantities else "time"}],
        "bound_improvements": [{}],
        "bound_gaps": [{}],
        "outperforms": [{"method": name(rival)}, {"method": rival, "limit": 10}],
        "datasets_for_method": [{"method": evaluated}],
        "methods_on_dataset": [{"dataset": name(dataset)}],
        "new_in_corpus": [{"type": "Method", "year": years[-1]}, {"type": "Problem", "year": years[0]}],
        "rising_entities": [{"type": "Method"}, {"type": "Problem", "since": years[-1], "limit": 10}],
        "similar_papers": [{"paper": paper, "k": 5}],
        "connection": [{"a": entity, "b": other}, {"a": name(rare), "b": problem}],
        "area_overview": [{"primary_area": area, "top": 5}],
        "leaderboard": [{"dataset": name(board), "metric": name(metric)}, {"dataset": board, "metric": metric, "limit": 1}],
        "results_for_method": [{"method": name(achiever)}, {"method": achiever, "limit": 2}],
        "claims_over_baseline": [{"baseline": name(baseline)}],
    }
