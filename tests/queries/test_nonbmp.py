"""One sentence after characters above U+FFFF, sliced by its offsets in Python, SPARQL and Cypher:
every one must give the same text (the explorer's highlight is checked in tests/viz/test_explorer.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import kg
import kg.queries
from tests.conftest import NONBMP_ABSTRACT, NONBMP_SENTENCE

pytestmark = pytest.mark.issue(21)

MENTIONS = """
SELECT ?tid ?sentence ?mention WHERE {
  ?edge kg:edgeType "MENTIONS" ; kg:target ?t ; kg:evidence ?e .
  ?t kg:id ?tid .
  ?e kg:paper ?p ; kg:sentenceStart ?ss ; kg:sentenceEnd ?se ; kg:start ?s ; kg:end ?end .
  ?p kg:abstract ?abstract .
  BIND(SUBSTR(?abstract, ?ss + 1, ?se - ?ss) AS ?sentence)
  BIND(SUBSTR(?abstract, ?s + 1, ?end - ?s) AS ?mention)
}"""


def test_nonbmp_fixture_needs_the_conversion() -> None:
    """The sentence starts after astral characters: UTF-16 or UTF-8 offsets would land elsewhere."""
    start = NONBMP_ABSTRACT.index(NONBMP_SENTENCE)
    assert len(NONBMP_ABSTRACT[:start].encode("utf-16-le")) // 2 > start
    assert any(ord(c) > 0xFFFF for c in NONBMP_SENTENCE) and "\u0308" in NONBMP_ABSTRACT


def test_nonbmp_python_evidence_slices_the_sentence(nonbmp_out: Path) -> None:
    rows = kg.open(nonbmp_out).evidence("ImageNet")
    assert rows and {r["sentence"] for r in rows} == {NONBMP_SENTENCE}
    assert {r["sentence"][r["start"] - r["sentence_start"] : r["end"] - r["sentence_start"]] for r in rows} == {"ImageNet"}


def test_nonbmp_sparql_substr_slices_the_same_sentence(nonbmp_out: Path) -> None:
    graph = kg.open(nonbmp_out)
    rows = graph.sparql(MENTIONS, tid="dataset:imagenet")
    assert rows == [{"sentence": NONBMP_SENTENCE, "mention": "ImageNet"}]
    every = graph.sparql(MENTIONS)
    assert every and all(NONBMP_ABSTRACT.count(r["sentence"]) == 1 and r["mention"] in r["sentence"] for r in every)
    # every mention the extractor found, sliced in SPARQL as Python slices it (code points, not UTF-16)
    by_python = {(NONBMP_ABSTRACT[ev.sentence_start:ev.sentence_end], NONBMP_ABSTRACT[ev.start:ev.end])
                 for e in graph.document.edges if e.type == "MENTIONS" for ev in e.evidence}
    assert {(r["sentence"], r["mention"]) for r in every} == by_python


@pytest.mark.parametrize("backend", ["python", "embedded"])
def test_nonbmp_canned_query_evidence_is_the_sentence(nonbmp_out: Path, backend: str) -> None:
    rows = kg.api.query("results_for_method", {"method": "EP"}, backend=backend, out=nonbmp_out)
    assert [(r["value"], r["evidence"]) for r in rows] == [("95.1%", NONBMP_SENTENCE)]


@pytest.mark.neo4j
def test_nonbmp_cypher_substring_slices_the_same_sentence(nonbmp_out: Path, neo4j_driver, tmp_path: Path) -> None:
    from conftest import _built, load_into_neo4j

    driver = load_into_neo4j(neo4j_driver, _built("nonbmp", kg.open(nonbmp_out).document, tmp_path))
    rows = kg.queries.run("results_for_method", {"method": "EP"}, "neo4j", driver=driver, database=neo4j_driver[1].neo4j_database)
    assert [(r["value"], r["evidence"]) for r in rows] == [("95.1%", NONBMP_SENTENCE)]
    start = NONBMP_ABSTRACT.index(NONBMP_SENTENCE)
    mention = NONBMP_ABSTRACT.index("ImageNet")
    with driver.session(database=neo4j_driver[1].neo4j_database) as session:
        record = session.run(
            "MATCH (p:Paper {id: $id}) RETURN substring(p.abstract, $s, $e - $s) AS sentence, substring(p.abstract, $m, 8) AS mention",
            id="paper:nonbmp", s=start, e=start + len(NONBMP_SENTENCE), m=mention,
        ).single()
    assert (record["sentence"], record["mention"]) == (NONBMP_SENTENCE, "ImageNet")
