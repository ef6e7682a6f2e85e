"""Query files, the runner and entity resolution, checked on the hand-made fixture graph."""

from __future__ import annotations

import inspect
import re

import pytest

from kg import queries
from kg.api import aggregate
from kg.errors import QueryNotFound, UnknownEntity
from kg.queries import python, steps
from kg.queries.spec import parse_header

NAMES = [q.name for q in queries.list_queries()]
ISSUE_QUERIES = {
    "methods_for_problem", "problems_for_method", "top_entities", "co_occurring", "papers_for_entity",
    "paper_profile", "bounds_for_problem", "bound_improvements", "bound_gaps", "outperforms",
    "datasets_for_method", "methods_on_dataset", "new_in_corpus", "rising_entities", "similar_papers",
    "connection", "area_overview",
    "leaderboard", "results_for_method", "claims_over_baseline",  # results as data
}


def test_queries_cover_the_issue() -> None:
    assert set(NAMES) == ISSUE_QUERIES


def _code(text: str, comment: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(comment))


@pytest.mark.parametrize("name", NAMES)
def test_queries_header_matches_parameters(name: str) -> None:
    query = queries.get(name)
    declared = {p.name for p in query.params}
    assert query.summary and query.returns
    # Cypher binds every declared parameter, and nothing else
    assert set(re.findall(r"\$(\w+)", _code(query.cypher, "//"))) == declared
    # SPARQL uses every parameter but the row caps the runner applies, and each statement (or part,
    # kg.queries.steps) projects the parameters it uses, so that Oxigraph substitutes them
    statements = [_code(text, "#") for text in (steps.parts(query.sparql) or {"": query.sparql}).values()]
    for param in declared - set(queries.LIMIT_PARAMS) - {"top"}:
        assert any(re.search(rf"\?{param}\b", s) for s in statements), f"{name}.rq never uses ?{param}"
    for sparql in statements:
        projection = sparql[sparql.index("SELECT") : sparql.index("WHERE")]
        for param in declared:
            if re.search(rf"\?{param}\b", sparql):
                assert re.search(rf"\?{param}\b", projection), f"{name}.rq must project ?{param} where it uses it"
    # the Python function takes exactly the declared parameters
    signature = inspect.signature(getattr(python, name))
    assert list(signature.parameters)[1:] == [p.name for p in query.params]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("backend", ["python", "embedded"])
def test_queries_return_declared_columns(name: str, backend: str, fixture_built) -> None:
    from kg.testing import param_sets

    params = param_sets(fixture_built.document)[name][0]
    rows = queries.run(name, params, backend, graph=fixture_built.graph, store=fixture_built.store)
    assert rows, f"{name} finds nothing on the fixture"
    assert all(list(row) == [c.name for c in queries.get(name).returns] for row in rows)
    types = {"str": str, "int": int, "float": float, "bool": bool, "list": list}
    for column in queries.get(name).returns:
        assert all(row[column.name] is None or isinstance(row[column.name], types[column.type]) for row in rows)


def test_queries_post_columns_are_declared() -> None:
    added = {q.name: q.declaration.added for q in queries.list_queries() if q.declaration.added}
    assert added == {"bounds_for_problem": ("frontier",), "bound_improvements": ("chain",), "bound_gaps": ("gap",)}
    for name, columns in added.items():
        assert set(columns) <= {c.name for c in queries.get(name).returns}


def test_every_aggregate_kind_serves_a_declared_query() -> None:
    from kg.schema.aggregates import KINDS

    assert queries.needed_aggregates() == set(KINDS)
    for q in queries.list_queries():
        texts = q.cypher + q.sparql
        looked_up = {"rank_bands": "rankBand", "first_year": "firstYearBand", "entity_count": "entityCount",
                     "areas": "areaBands", "co_occurrences": "coOccurr", "addressings": "Addressing",
                     "paper_ranks": "paperBand", "outperform_bands": "beatsBand", "risings": "risingBand"}
        assert {k for k, word in looked_up.items() if word in texts} == set(q.declaration.aggregates), q.name


def test_declarations_are_checked() -> None:
    from kg.queries.spec import canned

    with pytest.raises(ValueError, match="declared twice"):
        canned()(queries.get("top_entities").declaration.reference)
    with pytest.raises(ValueError, match="unknown aggregate kind"):
        canned(aggregates=("rank_band",))
    with pytest.raises(ValueError, match="added columns need"):
        canned(added=("x",))


def test_queries_header_rejects_bad_lines() -> None:
    with pytest.raises(ValueError, match="lacks returns"):
        parse_header("// name: x\n// summary: y\n// params: -\nRETURN 1")
    with pytest.raises(ValueError, match="unknown type"):
        parse_header("# name: x\n# summary: y\n# params: a (Gadget)\n# returns: b\nSELECT")


def _run(name: str, fixture_built, **params) -> list[dict]:
    return queries.run(name, params, "python", graph=fixture_built.graph)


RESOLUTIONS = [
    ("OFL", "problem:online facility location"),  # alias
    ("online FACILITY location", "problem:online facility location"),  # case
    ("SGD", "method:stochastic gradient descent"),
    ("transformers", "model:transformer"),  # plural
    ("U-Nets", "model:u-net"),  # plural of a hyphenated name
    ("DiT", "model:diffusion transformer"),
    ("model:u-net", "model:u-net"),  # an id
]


@pytest.mark.parametrize("given,expected", RESOLUTIONS)
def test_queries_resolve_names_and_aliases(fixture_built, given: str, expected: str) -> None:
    from kg.queries.backends import PythonBackend, SparqlBackend
    from kg.queries.spec import Param

    param = Param("entity", "entity")
    for backend in (PythonBackend(fixture_built.graph), SparqlBackend(fixture_built.store)):
        assert queries.resolve(backend, param, given) == expected


@pytest.mark.neo4j
def test_queries_resolve_names_and_aliases_on_neo4j(fixture_built, neo4j_driver) -> None:
    """Neo4j looks names, titles and aliases up in its nameKeys text index."""
    from conftest import load_into_neo4j

    from kg.queries.backends import CypherBackend
    from kg.queries.spec import Param

    backend = CypherBackend(load_into_neo4j(neo4j_driver, fixture_built))
    assert [queries.resolve(backend, Param("entity", "entity"), given) for given, _ in RESOLUTIONS] == [e for _, e in RESOLUTIONS]
    paper = next(n for n in fixture_built.document.nodes if n.label == "Paper" and n.properties.get("title"))
    assert queries.resolve(backend, Param("paper", "Paper"), paper.properties["title"].upper()) == paper.id


def test_queries_resolve_is_type_scoped(fixture_built) -> None:
    # "competitive ratio" is both a Concept and a Metric; a Metric parameter finds the Metric
    from kg.queries.backends import PythonBackend
    from kg.queries.spec import Param

    backend = PythonBackend(fixture_built.graph)
    assert queries.resolve(backend, Param("m", "Metric"), "Competitive Ratio") == "metric:competitive ratio"
    assert queries.resolve(backend, Param("c", "Concept"), "Competitive Ratio") == "concept:competitive ratio"


@pytest.mark.parametrize("backend", ["python", "embedded"])
def test_queries_unknown_entity_suggests_names(fixture_built, backend: str) -> None:
    with pytest.raises(UnknownEntity, match=r"no Problem named 'image generatoin'; did you mean: image generation") as err:
        queries.run("methods_for_problem", {"problem": "image generatoin"}, backend,
                    graph=fixture_built.graph, store=fixture_built.store)
    assert err.value.suggestions[0] == "image generation"  # for callers of the Python API


def test_queries_resolve_prefers_the_spelling_then_the_busier_label(tmp_path) -> None:
    """A name two labels share resolves to the node more papers mention, whichever label comes first."""
    from kg.queries.backends import PythonBackend, SparqlBackend
    from kg.queries.spec import Param
    from kg.records import GraphDocument, Node
    from kg.stores import rdf

    doc = GraphDocument((
        Node("method:transformer", "Method", "transformer", papers=("paper:1",)),
        Node("model:transformer", "Model", "Transformer", papers=("paper:1", "paper:2", "paper:3")),
        Node("method:transformers", "Method", "transformers'", papers=("paper:2",)),
    ), ())
    rdf.write_store(aggregate(doc), tmp_path / "store")
    param = Param("method", "Method|Model")
    for backend in (PythonBackend(doc), SparqlBackend(rdf.open_store(tmp_path / "store"))):
        assert queries.resolve(backend, param, "Transformer") == "model:transformer"
        assert queries.resolve(backend, param, "transformers") == "method:transformers"  # as given first


TYPOS = ["image generatoin", "stochastic gradiant descent", "FIDD", "difusion transformers", "Imagenet-1k", "online learnin", "ImaegNet"]


@pytest.mark.parametrize("backend", ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def test_queries_suggestions_are_the_same_on_every_backend(fixture_built, backend: str, request) -> None:
    """The embedded store gathers candidates from its kg:nameFragment index, the others by a substring
    scan: the shared fragment rule makes the pools, and so the suggestions, equal.  Names of several
    words are first looked for among names sharing fragments of two of them."""
    from kg.queries.backends import CypherBackend, PythonBackend, SparqlBackend
    from kg.queries.spec import Param

    if backend == "neo4j":
        from conftest import load_into_neo4j

        other = CypherBackend(load_into_neo4j(request.getfixturevalue("neo4j_driver"), fixture_built))
    else:
        other = SparqlBackend(fixture_built.store)
    for typo in TYPOS:
        messages = set()
        for b in (PythonBackend(fixture_built.graph), other):
            with pytest.raises(UnknownEntity) as err:
                queries.resolve(b, Param("entity", "entity"), typo)
            messages.add(str(err.value))
        assert len(messages) == 1 and "did you mean" in messages.pop(), typo


def test_queries_suggestions_fall_back_to_one_word(fixture_built) -> None:
    """'ratoi' shares no fragment with 'ratio' ('rato', 'atoi' against 'rati', 'atio'): no name meets
    both words of 'competitve ratoi', and the names sharing a fragment of one word still give it."""
    from kg.queries.backends import PythonBackend

    backend = PythonBackend(fixture_built.graph)
    assert queries.suggestions(backend, ["Metric"], "competitve ratio")[:1] == ["competitive ratio"]
    assert queries.suggestions(backend, ["Metric"], "competitve ratoi") == ["competitive ratio"]


def test_queries_suggestions_survive_an_edit_in_the_middle_of_a_word(fixture_built) -> None:
    """'ImaegNet' changes both four-letter ends of 'imagenet' ('imae', 'gnet'); its outer letters
    ('im…et') still find it."""
    from kg.queries.backends import PythonBackend, SparqlBackend

    for backend in (PythonBackend(fixture_built.graph), SparqlBackend(fixture_built.store)):
        assert queries.suggestions(backend, ["Dataset"], "ImaegNet") == ["ImageNet"]


@pytest.mark.neo4j
def test_queries_unknown_entity_suggests_names_on_neo4j(fixture_built, neo4j_driver) -> None:
    from conftest import load_into_neo4j

    driver = load_into_neo4j(neo4j_driver, fixture_built)
    with pytest.raises(UnknownEntity, match=r"no Problem named 'image generatoin'; did you mean: image generation"):
        queries.run("methods_for_problem", {"problem": "image generatoin"}, "neo4j", driver=driver)


def test_queries_errors_name_the_way_out(fixture_built) -> None:
    g = fixture_built.graph
    with pytest.raises(QueryNotFound, match="did you mean methods_for_problem"):
        queries.run("method_for_problem", {}, "python", graph=g)
    with pytest.raises(QueryNotFound, match="needs parameter 'problem'"):
        queries.run("methods_for_problem", {}, "python", graph=g)
    with pytest.raises(QueryNotFound, match="has no parameter colour"):
        queries.run("top_entities", {"type": "Method", "colour": "red"}, "python", graph=g)
    with pytest.raises(QueryNotFound, match="must be int"):
        queries.run("top_entities", {"type": "Method", "limit": "many"}, "python", graph=g)
    for backend in ("python", "embedded"):  # a negative cap once crashed one backend and cut rows on another
        with pytest.raises(QueryNotFound, match="'limit' of 'co_occurring' counts rows: it cannot be -1"):
            queries.run("co_occurring", {"entity": "method:a", "limit": -1}, backend, graph=g, store=fixture_built.store)
    with pytest.raises(QueryNotFound, match="unknown entity type 'Gadget'"):
        queries.run("top_entities", {"type": "Gadget"}, "python", graph=g)
    with pytest.raises(QueryNotFound, match="needs store"):
        queries.run("top_entities", {"type": "Method"}, "embedded")


def test_queries_cli_strings_are_converted(fixture_built) -> None:
    rows = queries.run("top_entities", {"type": "method", "limit": "2"}, "python", graph=fixture_built.graph)
    assert [r["id"] for r in rows] == ["method:stochastic gradient descent", "method:online rounding"]


# Reviewed answers on the fixture (see fixture_graph.py for the story each one checks).


def test_queries_methods_for_problem_counts_proposing_papers(fixture_built) -> None:
    rows = _run("methods_for_problem", fixture_built, problem="OFL")
    assert [(r["id"], r["abstracts"], r["papers"]) for r in rows] == [
        ("method:primal-dual algorithm", 2, ["paper:p1", "paper:p2"]),  # stated in p1 and p2
        ("method:learning-augmented algorithm", 1, ["paper:p3"]),  # stated and proposed in p3
        ("method:online rounding", 1, ["paper:p2"]),  # p2 proposes it and addresses OFL
    ]


def test_queries_bounds_frontier_and_gaps(fixture_built) -> None:
    rows = _run("bounds_for_problem", fixture_built, problem="linear regression")
    assert {r["bound"]: r["frontier"] for r in rows} == {
        "bound:p4:0": True,  # O(1/T) beats both priors
        "bound:p4:1": False,
        "bound:p4:2": False,
        "bound:p4:3": False,  # a lower bound is never on the (upper) frontier
    }
    gaps = {(r["upper"], r["lower"]): r["gap"] for r in _run("bound_gaps", fixture_built)}
    assert gaps[("bound:p4:0", "bound:p4:3")] == "tight"
    assert gaps[("bound:p4:1", "bound:p4:3")] == "polynomial"
    assert gaps[("bound:p2:0", "bound:p3:0")] == "tight"


def test_queries_bound_improvement_chains(fixture_built) -> None:
    rows = _run("bound_improvements", fixture_built)
    assert [(r["bound"], r["improves_on"], r["chain"]) for r in rows] == [
        ("bound:p2:0", "bound:p2:1", 1),
        ("bound:p4:0", "bound:p4:1", 2),
        ("bound:p4:1", "bound:p4:2", 1),
    ]


def test_queries_connection_breaks_ties_by_id(fixture_built) -> None:
    rows = _run("connection", fixture_built, a="online facility location", b="image generation")
    # two paths of two papers: through quantization (p3, p7) and through SGD (p3, p6); ids decide
    assert [r["id"] for r in rows] == [
        "problem:online facility location", "paper:p3", "concept:quantization", "paper:p7", "problem:image generation",
    ]
    assert _run("connection", fixture_built, a="OFL", b="OFL") == []


def test_queries_time_and_similarity(fixture_built) -> None:
    assert [r["id"] for r in _run("new_in_corpus", fixture_built, type="Method", year=2026)] == [
        "method:stochastic gradient descent", "method:learning-augmented algorithm",
    ]
    rising = _run("rising_entities", fixture_built, type="Method")
    assert rising[0] == {"entity": "stochastic gradient descent", "id": "method:stochastic gradient descent",
                         "before": 0, "after": 3, "before_share": 0.0, "after_share": 0.6}
    similar = _run("similar_papers", fixture_built, paper="Diffusion transformers", k=2)
    assert [(r["similar"], r["shared"], r["score"]) for r in similar] == [("paper:p7", 4, 0.571429), ("paper:p6", 3, 0.428571)]
    overview = _run("area_overview", fixture_built, primary_area="learning theory", top=1)
    assert [(r["section"], r["name"]) for r in overview] == [
        ("Bound", "error"), ("Method", "stochastic gradient descent"), ("Problem", "Online Facility Location"),
    ]


def test_queries_leaderboard_orders_by_the_metrics_better_direction_and_breaks_ties(fixture_built) -> None:
    rows = queries.run("leaderboard", {"dataset": "ImageNet", "metric": "Frechet Inception Distance"}, "python",
                       graph=fixture_built.graph)
    # FID: lower is better; DiT's best of 2.27 and 2.10 is 2.10; U-Net reports 3.5 twice, the lower id wins
    assert [(r["method"], r["value"], r["result"], r["better"]) for r in rows] == [
        ("Diffusion Transformer", "2.10", "result:p7:0", "down"), ("U-Net", "3.5", "result:p6:0", "down")]
    assert rows[0]["evidence"] == "In p7, 2.10 appears." and rows[0]["year"] == 2026


def test_queries_results_for_a_method_and_claims_over_a_baseline(fixture_built) -> None:
    own = queries.run("results_for_method", {"method": "DiT"}, "python", graph=fixture_built.graph)
    assert [(r["value"], r["kind"], r["baseline"]) for r in own] == [("2.27", "score", None), ("20%", "change", "U-Net"),
                                                                      ("2.10", "score", None)]
    claims = queries.run("claims_over_baseline", {"baseline": "UNet"}, "python", graph=fixture_built.graph)
    assert [(r["method"], r["value"], r["direction"], r["metric"], r["dataset"]) for r in claims] == [
        ("Diffusion Transformer", "20%", "down", "FID", "ImageNet")]
