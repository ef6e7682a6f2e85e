"""kg.analytics against references: networkx for PageRank and betweenness, a planted partition for
Leiden, the canned queries for trends and the frontier, planted chains and cycles for lineage."""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import pytest

from kg import analytics
from kg.api import aggregate
from kg.errors import KGError, UnknownEntity
from kg.queries import run
from kg.stores.nx import to_networkx
from kg.testing import planted_graph, synthetic_graph

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "queries"))  # the queries' hand-made fixture graph
from fixture_graph import fixture_graph  # noqa: E402

PAGERANK_TOLERANCE = 1e-8
"""igraph (PRPACK, solved exactly) against networkx iterated to tol=1e-12: they agree to this per node."""


def _typed_digraph(doc) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(n.id for n in doc.nodes)
    for e in doc.edges:
        w = g.get_edge_data(e.source, e.target, {}).get("weight", 0)
        g.add_edge(e.source, e.target, weight=w + max(1, e.support))
    return g


@pytest.mark.parametrize("doc", [planted_graph(cross=0.2), synthetic_graph(300)], ids=["planted", "synthetic"])
def test_analytics_pagerank_equals_networkx(doc) -> None:
    ours = analytics.centrality(doc, top=None).set_index("id")["score"]
    reference = nx.pagerank(_typed_digraph(doc), weight="weight", tol=1e-12, max_iter=1000)
    assert len(ours) == len(reference) == len(doc.nodes)
    assert max(abs(ours[n] - reference[n]) for n in reference) < PAGERANK_TOLERANCE
    assert ours.is_monotonic_decreasing


def test_analytics_betweenness_equals_networkx_exact_and_sampled() -> None:
    doc = planted_graph(groups=3, entities=5, papers=10, cross=0.3)
    p = analytics.project(doc, "cooccurrence")
    g = nx.Graph()
    g.add_nodes_from(n.id for n in p.nodes)
    g.add_edges_from((p.nodes[e.source].id, p.nodes[e.target].id) for e in p.graph.es)
    reference = nx.betweenness_centrality(g, normalized=False)
    exact = analytics.centrality(doc, measure="betweenness", projection="cooccurrence", top=None)
    assert exact.attrs["sample"] is None
    assert exact.set_index("id")["score"].to_dict() == pytest.approx(reference)
    # every vertex as a sampled source is the exact value: the scaling n / sample is right
    full = analytics.centrality(doc, measure="betweenness", projection="cooccurrence", top=None, exact_up_to=1, sample=len(p.nodes))
    assert full.attrs["sample"] == len(p.nodes)
    assert full.set_index("id")["score"].to_dict() == pytest.approx(reference)
    half = analytics.centrality(doc, measure="betweenness", projection="cooccurrence", top=None, exact_up_to=1, sample=7, seed=3)
    assert half.attrs["sample"] == 7
    assert half.equals(analytics.centrality(doc, measure="betweenness", projection="cooccurrence", top=None, exact_up_to=1, sample=7, seed=3))


def test_analytics_degree_counts_distinct_neighbours() -> None:
    doc = planted_graph(groups=2, entities=4, papers=6)
    df = analytics.centrality(doc, measure="degree", type="Paper", top=None)
    assert set(df["score"]) == {3}  # every planted paper names three entities and nothing else points at it
    assert df.columns.tolist() == ["rank", "id", "name", "type", "papers", "score"]


@pytest.mark.parametrize("cross", [0.0, 0.15])
def test_analytics_leiden_recovers_a_planted_partition(cross: float) -> None:
    doc = planted_graph(groups=4, entities=6, papers=30, cross=cross)
    members = analytics.community_members(doc, seed=7)
    found = {frozenset(group["id"]) for _, group in members.groupby("community")}
    planted = {frozenset(n.id for n in doc.nodes if f"area {g} " in n.id) for g in range(4)}
    assert found == planted
    summary = analytics.communities(doc, seed=7)
    assert summary["entities"].tolist() == [6, 6, 6, 6]
    assert summary["papers"].min() >= 30
    assert summary.loc[0, "first_year"] == 2018 and summary.loc[0, "last_year"] == 2025
    assert all(len(label.split(" / ")) == 3 for label in summary["label"])
    assert all(all(m.startswith("Area") for m in row) for row in summary["top_methods"])


def test_analytics_communities_are_deterministic_with_a_seed() -> None:
    doc = synthetic_graph(400)
    a, b = analytics.communities(doc, seed=1), analytics.communities(doc, seed=1)
    assert a.equals(b) and len(a) > 1


def test_analytics_communities_refuse_the_directed_graph() -> None:
    with pytest.raises(KGError, match="undirected projection"):
        analytics.communities(planted_graph(), projection="typed")


@pytest.fixture(scope="module")
def fixture():
    document = aggregate(fixture_graph()).graph
    return document, to_networkx(document)


@pytest.mark.parametrize(("type", "since"), [("Method", 2020), ("Problem", 2020), ("Method", 2026), ("Concept", 2017)])
def test_analytics_trends_equal_rising_entities(fixture, type: str, since: int) -> None:
    document, g = fixture
    rows = run("rising_entities", {"type": type, "since": since, "limit": 100}, "python", graph=g)
    df = analytics.trends(document, type=type, since=since)
    rising = df[df["growth"] > 0]
    assert rows, "the fixture must have rising entities for this case"
    assert rising[["id", "before", "after"]].to_dict("records") == [{k: r[k] for k in ("id", "before", "after")} for r in rows]
    # the query rounds shares to six places
    assert rising["before_share"].tolist() == pytest.approx([r["before_share"] for r in rows], abs=1e-6)
    assert rising["after_share"].tolist() == pytest.approx([r["after_share"] for r in rows], abs=1e-6)


@pytest.mark.parametrize(("type", "year"), [("Method", 2026), ("Problem", 2016), ("Model", 2026)])
def test_analytics_trends_first_year_equals_new_in_corpus(fixture, type: str, year: int) -> None:
    document, g = fixture
    rows = run("new_in_corpus", {"type": type, "year": year, "limit": 100}, "python", graph=g)
    df = analytics.trends(document, type=type)
    new = df[df["first_year"] == year]
    assert rows
    assert sorted(new["id"]) == sorted(r["id"] for r in rows)
    assert sorted(new["papers"]) == sorted(r["total"] for r in rows)


def test_analytics_yearly_counts_every_year() -> None:
    doc = planted_graph(groups=2, entities=4, papers=8)
    df = analytics.yearly(doc, ["method:area 0 entity 0"])
    assert df["year"].tolist() == list(range(2018, 2026))
    mentioned = next(n for n in doc.nodes if n.id == "method:area 0 entity 0").support
    assert df["papers"].sum() == mentioned
    assert df["share"].tolist() == [p / 2 for p in df["papers"]]  # one paper per area per year


def test_analytics_lineage_finds_a_planted_chain() -> None:
    doc = planted_graph()
    df = analytics.lineage(doc, "dataset:area 0 entity 2")  # from the middle of the chain, both ways
    chain = ["method:area 0 entity 0", "problem:area 0 entity 1", "dataset:area 0 entity 2", "model:area 0 entity 3"]
    assert list(zip(df["source"], df["target"])) == sorted(zip(chain, chain[1:]))
    assert dict(zip(df["source"], df["level"])) == {chain[0]: 0, chain[1]: 1, chain[2]: 2}
    assert not df["in_cycle"].any() and df.attrs["cycles"] == []


def test_analytics_lineage_reports_a_planted_cycle() -> None:
    df = analytics.lineage(planted_graph(), "method:area 1 entity 0")
    assert df.attrs["cycles"] == [["method:area 1 entity 0", "problem:area 1 entity 1"]]
    assert df["in_cycle"].tolist() == [True, True]


def test_analytics_lineage_follows_bound_improvements(fixture) -> None:
    document, g = fixture
    improvements = run("bound_improvements", {}, "python", graph=g)
    start = max(improvements, key=lambda r: r["chain"])
    df = analytics.lineage(document, start["bound"])
    assert set(df["type"]) == {"IMPROVES_ON"}
    assert df["level"].max() + 1 == start["chain"]


def test_analytics_frontier_equals_bounds_for_problem(fixture) -> None:
    document, g = fixture
    rows = run("bounds_for_problem", {"problem": "problem:online facility location"}, "python", graph=g)
    df = analytics.frontier(document, "problem:online facility location")
    assert df["frontier"].any() and not df["frontier"].all()
    assert sorted(df[["bound", "frontier", "quantity", "role"]].itertuples(index=False, name=None)) == sorted(
        (r["bound"], r["frontier"], r["quantity"], r["role"]) for r in rows)
    assert df["frontier"].tolist() == sorted(df["frontier"], reverse=True)


def test_analytics_similar_finds_the_same_area() -> None:
    doc = planted_graph(groups=3, entities=6, papers=20, cross=0.05)
    df = analytics.similar(doc, "method:area 0 entity 0", k=5, same_type=False)
    assert len(df) == 5 and all("area 0 " in i for i in df["id"])
    assert df["score"].is_monotonic_decreasing and df["score"].iloc[0] <= 1.0
    same = analytics.similar(doc, "method:area 0 entity 0", k=5)
    assert set(same["type"]) <= {"Method"}
    with pytest.raises(KGError, match="not an entity"):
        analytics.similar(doc, "method:nothing")


def test_analytics_unknown_measure_and_projection() -> None:
    with pytest.raises(KGError, match="known: pagerank, degree, betweenness"):
        analytics.centrality(planted_graph(), measure="closeness")
    with pytest.raises(KGError, match="known: typed, cooccurrence, method-problem"):
        analytics.centrality(planted_graph(), projection="bipartite")


def test_analytics_method_problem_projection_joins_only_methods_and_problems() -> None:
    p = analytics.project(planted_graph(groups=2, entities=8, papers=20), "method-problem")
    pairs = {frozenset((p.nodes[e.source].label, p.nodes[e.target].label)) for e in p.graph.es}
    assert pairs and pairs <= {frozenset(("Method", "Problem")), frozenset(("Model", "Problem"))}


def test_analytics_on_a_built_graph_resolve_names(seeds_out) -> None:
    import kg

    graph = kg.open(seeds_out)
    similar = graph.similar("equilibrium propagation", k=3)
    assert len(similar) == 3 and "method:equilibrium propagation" not in set(similar["id"])
    assert graph.centrality(type="Problem", top=4)["type"].tolist() == ["Problem"] * 4
    assert graph.communities()["entities"].sum() > 100
    with pytest.raises(UnknownEntity) as err:
        graph.lineage("equilibrium propagatoin")
    assert err.value.suggestions
