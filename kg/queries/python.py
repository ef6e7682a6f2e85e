"""The canned queries over a networkx ``MultiDiGraph`` (``kg.stores.nx.to_networkx``).

One function per query, named as the query files, taking the parameters their headers declare
(node references already resolved to node ids) and declared with ``kg.queries.spec.canned``: the
one place a query is registered.  Each returns the rows the Cypher and SPARQL
versions return, in the same order: these functions are the reference the parity test holds the
other two backends to, so they say plainly what each query means.

Shared meaning: an entity's papers are the papers with a MENTIONS edge to it; a relation's
supporting papers are its edge's evidence papers; for ADDRESSES, a paper that PROPOSES a method
and ADDRESSES a problem also supports "method addresses problem".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import networkx as nx

from kg.queries import post, steps
from kg.queries.spec import canned
from kg.records import METHOD_LABELS

LOWER_NOTATIONS = ("Omega", "soft-Omega", "omega")
UPPER_NOTATIONS = ("O", "soft-O", "Theta", "o", "rate")  # as kg.complexity.order
MAX_CONNECTION_PAPERS = 3


def _out(g: nx.MultiDiGraph, node: str, etype: str) -> Iterator[tuple[str, dict]]:
    for target, keyed in g.succ[node].items():
        if etype in keyed:
            yield target, keyed[etype]


def _in(g: nx.MultiDiGraph, node: str, etype: str) -> Iterator[tuple[str, dict]]:
    for source, keyed in g.pred[node].items():
        if etype in keyed:
            yield source, keyed[etype]


def _label(g: nx.MultiDiGraph, node: str) -> str:
    return g.nodes[node]["label"]


def _name(g: nx.MultiDiGraph, node: str) -> str:
    return g.nodes[node]["name"]


def _ranked(g: nx.MultiDiGraph, support: dict[str, set[str]], column: str, limit: int, with_label: bool = True) -> list[dict]:
    """Rows of (name, id, label, abstracts, papers) by supporting papers, then name, then id."""
    rows = []
    for node, papers in support.items():
        row = {column: _name(g, node), "id": node}
        if with_label:
            row["label"] = _label(g, node)
        rows.append(row | {"abstracts": len(papers), "papers": sorted(papers)})
    rows.sort(key=lambda r: (-r["abstracts"], r[column], r["id"]))
    return rows[:limit]


@canned(aggregates=("addressings",))
def methods_for_problem(g: nx.MultiDiGraph, problem: str, limit: int = 25) -> list[dict]:
    support: dict[str, set[str]] = defaultdict(set)
    for source, data in _in(g, problem, "ADDRESSES"):
        if _label(g, source) in METHOD_LABELS:
            support[source].update(data["papers"])
        elif _label(g, source) == "Paper":
            for method, _ in _out(g, source, "PROPOSES"):
                if _label(g, method) in METHOD_LABELS:
                    support[method].add(source)
    return _ranked(g, support, "method", limit)


@canned(aggregates=("addressings",))
def problems_for_method(g: nx.MultiDiGraph, method: str, limit: int = 25) -> list[dict]:
    support: dict[str, set[str]] = defaultdict(set)
    for problem, data in _out(g, method, "ADDRESSES"):
        if _label(g, problem) == "Problem":
            support[problem].update(data["papers"])
    for paper, _ in _in(g, method, "PROPOSES"):
        if _label(g, paper) == "Paper":
            for problem, _ in _out(g, paper, "ADDRESSES"):
                if _label(g, problem) == "Problem":
                    support[problem].add(paper)
    return _ranked(g, support, "problem", limit, with_label=False)


@canned(aggregates=("rank_bands",))
def top_entities(g: nx.MultiDiGraph, type: str, limit: int = 25) -> list[dict]:
    rows = [
        {"entity": d["name"], "id": n, "abstracts": d["support"], "mentions": d["mentions"]}
        for n, d in g.nodes(data=True)
        if d["label"] == type
    ]
    rows.sort(key=lambda r: (-r["abstracts"], -r["mentions"], r["id"]))
    return rows[:limit]


@canned(program=steps.co_occurring, aggregates=("co_occurrences",))
def co_occurring(g: nx.MultiDiGraph, entity: str, type: str | None = None, limit: int = 25) -> list[dict]:
    papers: dict[str, set[str]] = defaultdict(set)
    for paper, _ in _in(g, entity, "MENTIONS"):
        for other, _ in _out(g, paper, "MENTIONS"):
            if other != entity and (type is None or _label(g, other) == type):
                papers[other].add(paper)
    rows = [{"name": _name(g, o), "id": o, "label": _label(g, o), "abstracts": len(ps)} for o, ps in papers.items()]
    rows.sort(key=lambda r: (-r["abstracts"], r["name"], r["id"]))
    return rows[:limit]


@canned(aggregates=("paper_ranks",))
def papers_for_entity(g: nx.MultiDiGraph, entity: str, limit: int = 100) -> list[dict]:
    rows = []
    for paper, data in _in(g, entity, "MENTIONS"):
        p = g.nodes[paper]
        rows.append(
            {"paper": paper, "title": p.get("title"), "year": p.get("year"),
             "sentences": sorted({p.get("abstract", "")[s:e] for s, e in zip(data["sentenceStarts"], data["sentenceEnds"])})}
        )
    rows.sort(key=lambda r: (-(r["year"] or 0), r["paper"]))
    return rows[:limit]


@canned()
def paper_profile(g: nx.MultiDiGraph, paper: str) -> list[dict]:
    rows = []

    def add(source: str, etype: str, target: str) -> None:
        rows.append(
            {"relation": etype, "source": source, "source_name": _name(g, source), "target": target,
             "target_name": _name(g, target), "target_label": _label(g, target)}
        )

    for target, keyed in g.succ[paper].items():
        for etype in keyed:
            add(paper, etype, target)
            if etype not in ("MENTIONS", "STATES_BOUND"):
                continue
            for other, keyed2 in g.succ[target].items():
                for etype2, data in keyed2.items():
                    if paper in data["papers"]:
                        add(target, etype2, other)
    unique = {(r["relation"], r["source"], r["target"]): r for r in rows}
    return [unique[k] for k in sorted(unique)]


def _bound_row(g: nx.MultiDiGraph, bound: str) -> dict:
    b = g.nodes[bound]
    paper = next((p for p, _ in _in(g, bound, "STATES_BOUND")), None)
    return {
        "bound": bound, "expression": b.get("expression"), "unicode": b.get("unicode"), "notation": b.get("notation"),
        "quantity": b.get("quantity"), "role": b.get("role"), "paper": paper,
        "year": g.nodes[paper].get("year") if paper else None,
    }


@canned(post=post.mark_frontier, added=("frontier",))
def bounds_for_problem(g: nx.MultiDiGraph, problem: str, quantity: str | None = None) -> list[dict]:
    rows = [
        _bound_row(g, bound)
        for bound, _ in _in(g, problem, "BOUNDS")
        if _label(g, bound) == "Bound"
        and g.nodes[bound].get("quantity") is not None
        and (quantity is None or g.nodes[bound]["quantity"] == quantity)
    ]
    rows.sort(key=lambda r: (r["quantity"], r["role"] or "", r["bound"]))
    return rows


@canned(post=post.mark_chains, added=("chain",))
def bound_improvements(g: nx.MultiDiGraph) -> list[dict]:
    rows = []
    for bound, target, key in g.edges(keys=True):
        if key == "IMPROVES_ON":
            new, old = _bound_row(g, bound), _bound_row(g, target)
            rows.append(
                {"bound": bound, "expression": new["expression"], "paper": new["paper"], "improves_on": target,
                 "improves_on_expression": old["expression"], "improves_on_paper": old["paper"]}
            )
    rows.sort(key=lambda r: (r["paper"] or "", r["bound"], r["improves_on"]))
    return rows


def _is_upper(b: dict) -> bool:
    return b.get("role") in ("new", "prior") and b.get("notation") in UPPER_NOTATIONS


def _is_lower(b: dict) -> bool:
    return b.get("role") == "lower" or b.get("notation") in LOWER_NOTATIONS


@canned(post=post.mark_gaps, added=("gap",))
def bound_gaps(g: nx.MultiDiGraph) -> list[dict]:
    rows = []
    for subject, d in g.nodes(data=True):
        if d["label"] == "Bound":
            continue
        bounds = [b for b, _ in _in(g, subject, "BOUNDS") if _label(g, b) == "Bound"]
        lower = [b for b in bounds if _is_lower(g.nodes[b])]
        upper = [b for b in bounds if _is_upper(g.nodes[b])]
        for u in upper:
            for low in lower:
                uq, lq = g.nodes[u].get("quantity"), g.nodes[low].get("quantity")
                if uq is not None and uq == lq:
                    rows.append(
                        {"subject": d["name"], "id": subject, "quantity": uq, "upper": u,
                         "upper_expression": g.nodes[u].get("expression"), "lower": low,
                         "lower_expression": g.nodes[low].get("expression")}
                    )
    rows.sort(key=lambda r: (r["id"], r["quantity"], r["upper"], r["lower"]))
    return rows


@canned(aggregates=("outperform_bands",))
def outperforms(g: nx.MultiDiGraph, method: str, limit: int = 50) -> list[dict]:
    rows = []
    for direction, edges in (("beats", _out(g, method, "OUTPERFORMS")), ("beaten_by", _in(g, method, "OUTPERFORMS"))):
        for other, data in edges:
            rows.append(
                {"direction": direction, "other": _name(g, other), "id": other, "label": _label(g, other),
                 "abstracts": data["support"], "papers": sorted(data["papers"])}
            )
    rows.sort(key=lambda r: (r["direction"], -r["abstracts"], r["other"], r["id"]))
    return rows[:limit]


@canned()
def datasets_for_method(g: nx.MultiDiGraph, method: str, limit: int = 25) -> list[dict]:
    support = {d: set(data["papers"]) for d, data in _out(g, method, "EVALUATED_ON") if _label(g, d) == "Dataset"}
    return _ranked(g, support, "dataset", limit, with_label=False)


@canned()
def methods_on_dataset(g: nx.MultiDiGraph, dataset: str, limit: int = 25) -> list[dict]:
    support = {m: set(data["papers"]) for m, data in _in(g, dataset, "EVALUATED_ON") if _label(g, m) in METHOD_LABELS}
    return _ranked(g, support, "method", limit)


def _year(g: nx.MultiDiGraph, paper: str) -> int | None:
    return g.nodes[paper].get("year")


@canned(aggregates=("first_year",))
def new_in_corpus(g: nx.MultiDiGraph, type: str, year: int, limit: int = 25) -> list[dict]:
    rows = []
    for entity, d in g.nodes(data=True):
        if d["label"] != type:
            continue
        years = [y for p, _ in _in(g, entity, "MENTIONS") if (y := _year(g, p)) is not None]
        if years and min(years) == year:
            rows.append({"entity": d["name"], "id": entity, "abstracts": years.count(year), "total": len(years)})
    rows.sort(key=lambda r: (-r["abstracts"], r["entity"], r["id"]))
    return rows[:limit]


@canned(program=steps.rising_entities, aggregates=("risings",))
def rising_entities(g: nx.MultiDiGraph, type: str, since: int = 2020, limit: int = 25) -> list[dict]:
    years = [y for _, d in g.nodes(data=True) if d["label"] == "Paper" and (y := d.get("year")) is not None]
    total_before = sum(y < since for y in years)
    total_after = len(years) - total_before
    rows = []
    for entity, d in g.nodes(data=True):
        if d["label"] != type:
            continue
        mentioned = [y for p, _ in _in(g, entity, "MENTIONS") if (y := _year(g, p)) is not None]
        before = sum(y < since for y in mentioned)
        after = len(mentioned) - before
        growth = after * total_before - before * total_after  # share difference times both totals: exact
        if growth > 0:
            rows.append(
                {"entity": d["name"], "id": entity, "before": before, "after": after,
                 "before_share": before / total_before if total_before else None,
                 "after_share": after / total_after if total_after else None, "_growth": growth}
            )
    rows.sort(key=lambda r: (-r["_growth"], -r["after"], r["id"]))
    return [{k: v for k, v in r.items() if k != "_growth"} for r in rows[:limit]]


@canned(program=steps.similar_papers, aggregates=("entity_count",))
def similar_papers(g: nx.MultiDiGraph, paper: str, k: int = 10) -> list[dict]:
    mine = {e for e, _ in _out(g, paper, "MENTIONS")}
    shared: dict[str, int] = defaultdict(int)
    for entity in mine:
        for other, _ in _in(g, entity, "MENTIONS"):
            if other != paper:
                shared[other] += 1
    rows = []
    for other, n in shared.items():
        theirs = sum(1 for _ in _out(g, other, "MENTIONS"))
        rows.append({"similar": other, "title": g.nodes[other].get("title"), "shared": n, "score": n / (len(mine) + theirs - n)})
    rows.sort(key=lambda r: (-r["score"], -r["shared"], r["similar"]))
    return rows[:k]


def _mention_neighbours(g: nx.MultiDiGraph, node: str) -> set[str]:
    return {n for n, _ in _out(g, node, "MENTIONS")} | {n for n, _ in _in(g, node, "MENTIONS")}


@canned(program=steps.connection)
def connection(g: nx.MultiDiGraph, a: str, b: str) -> list[dict]:
    """The shortest entity-paper-entity path from a to b (at most 3 papers), smallest ids first on ties."""
    if a == b:
        return []
    dist = {b: 0}
    frontier = [b]
    while frontier and a not in dist and dist[frontier[0]] < 2 * MAX_CONNECTION_PAPERS:
        nxt = []
        for node in frontier:
            for n in _mention_neighbours(g, node):
                if n not in dist:
                    dist[n] = dist[node] + 1
                    nxt.append(n)
        frontier = nxt
    if a not in dist:
        return []
    path = [a]
    while path[-1] != b:
        path.append(min(n for n in _mention_neighbours(g, path[-1]) if dist.get(n) == dist[path[-1]] - 1))
    return [{"step": i, "id": n, "name": _name(g, n), "label": _label(g, n)} for i, n in enumerate(path)]


@canned(post=post.top_per_section, aggregates=("areas",))
def area_overview(g: nx.MultiDiGraph, primary_area: str, top: int = 10) -> list[dict]:
    papers = [p for p, d in g.nodes(data=True) if d["label"] == "Paper" and d.get("primaryArea") == primary_area]
    counts: dict[tuple[str, str | None, str], set[str]] = defaultdict(set)
    for paper in papers:
        for entity, _ in _out(g, paper, "MENTIONS"):
            label = _label(g, entity)
            if label in ("Problem", *METHOD_LABELS):
                section = "Problem" if label == "Problem" else "Method"
                counts[(section, entity, _name(g, entity))].add(paper)
        for bound, _ in _out(g, paper, "STATES_BOUND"):
            quantity = g.nodes[bound].get("quantity")
            if quantity is not None:
                counts[("Bound", None, quantity)].add(paper)
    rows = [{"section": s, "name": name, "id": i, "abstracts": len(ps)} for (s, i, name), ps in counts.items()]
    rows.sort(key=lambda r: (r["section"], -r["abstracts"], r["name"], r["id"] or ""))
    kept: dict[str, int] = defaultdict(int)
    out = []
    for r in rows:
        kept[r["section"]] += 1
        if kept[r["section"]] <= top:
            out.append(r)
    return out


def _evidence(g: nx.MultiDiGraph, paper: str, result: dict) -> str:
    return g.nodes[paper].get("abstract", "")[result["sentenceStart"] : result["sentenceEnd"]]


def _result_rows(g: nx.MultiDiGraph, results: list[str], limit: int) -> list[tuple[str, str, dict]]:
    """(result id, paper id, result properties) in paper, then text, order."""
    rows = []
    for r in results:
        for paper, _ in _in(g, r, "REPORTS"):
            rows.append((paper, g.nodes[r]["start"], r))
    rows.sort()
    return [(r, paper, g.nodes[r]) for paper, _, r in rows[:limit]]


@canned()
def results_for_method(g: nx.MultiDiGraph, method: str, limit: int = 50) -> list[dict]:
    results = [r for r, _ in _in(g, method, "ACHIEVED_BY") if _label(g, r) == "Result"]
    return [
        {"result": r, "value": d["value"], "low": d["low"], "high": d["high"], "unit": d.get("unit"), "kind": d["kind"],
         "direction": d.get("direction"), "qualifier": d.get("qualifier"), "metric": d.get("metricName"),
         "dataset": d.get("datasetName"), "baseline": d.get("baselineName"), "setting": d.get("setting"),
         "paper": paper, "year": g.nodes[paper].get("year"), "evidence": _evidence(g, paper, d)}
        for r, paper, d in _result_rows(g, results, limit)
    ]


@canned()
def claims_over_baseline(g: nx.MultiDiGraph, baseline: str, limit: int = 50) -> list[dict]:
    results = [r for r, _ in _in(g, baseline, "AGAINST") if _label(g, r) == "Result"]
    rows = []
    for r, paper, d in _result_rows(g, results, limit):
        achiever = next((x for x, _ in _out(g, r, "ACHIEVED_BY")), None)
        rows.append({"method": _name(g, achiever) if achiever else d.get("methodName"), "method_id": achiever,
                     "result": r, "value": d["value"], "low": d["low"], "high": d["high"], "unit": d.get("unit"),
                     "direction": d.get("direction"), "qualifier": d.get("qualifier"), "metric": d.get("metricName"),
                     "dataset": d.get("datasetName"), "paper": paper, "year": g.nodes[paper].get("year"),
                     "evidence": _evidence(g, paper, d)})
    return rows


@canned(post=post.first_per_method)
def leaderboard(g: nx.MultiDiGraph, dataset: str, metric: str, limit: int = 25) -> list[dict]:
    """Every score on the dataset for the metric, best first; ``kg.queries.post`` keeps each method's first."""
    better = g.nodes[metric].get("better")
    rows = []
    for r, _ in _in(g, dataset, "ON_DATASET"):
        d = g.nodes[r]
        if d["label"] != "Result" or d.get("kind") != "score" or "ON_METRIC" not in g.succ[r].get(metric, {}):
            continue
        score = -d["low"] if better == "down" else d["high"]
        paper = next(p for p, _ in _in(g, r, "REPORTS"))
        for x, _ in _out(g, r, "ACHIEVED_BY"):
            rows.append((-score, _name(g, x), x, r, {
                "method": _name(g, x), "id": x, "value": d["value"], "low": d["low"], "high": d["high"],
                "unit": d.get("unit"), "qualifier": d.get("qualifier"), "better": better or "unknown", "result": r,
                "paper": paper, "year": g.nodes[paper].get("year"), "evidence": _evidence(g, paper, d)}))
    rows.sort(key=lambda row: row[:4])
    return [row[4] for row in rows]
