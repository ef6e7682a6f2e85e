"""Fuzzing with hypothesis (examples per test from the profile in conftest.py): records through the
reader, mutated abstracts through the extractor, and any text through the explorer's page.
``bench/fuzz.py`` runs the long version over the corpus; query parameters are fuzzed in
tests/queries/test_hostile.py."""

from __future__ import annotations

import csv
import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg.corpus import ReadReport, placeholder_reason, read_abstracts
from kg.errors import InputError
from kg.records import Abstract, Edge, Evidence, GraphDocument, Node
from kg.testing import MUTATION_PIECES, mutate
from tests.conftest import NONBMP_ABSTRACT, SEEDS

pytestmark = pytest.mark.issue(21)

# Any text a JSON or CSV file can hold: every code point but lone surrogates.
any_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
# Text shaped like abstracts: the pieces that break things, between words.
pieces = st.lists(st.one_of(st.sampled_from(MUTATION_PIECES), st.from_regex(r"[A-Za-z][a-z]{0,12}", fullmatch=True), any_text.map(lambda t: t[:20])), max_size=60)
abstract_text = pieces.map(" ".join)


def _seed_texts() -> list[str]:
    return [a.text for a in read_abstracts([SEEDS])] + [NONBMP_ABSTRACT]


def _read_one(path: Path) -> tuple[list[Abstract], ReadReport]:
    report = ReadReport()
    return list(read_abstracts([path], on_error="skip", report=report)), report


@given(text=st.one_of(any_text, abstract_text), title=any_text)
@example(text="We propose a method\u2028that spans\u2029three\u0085separators and then some more words.", title="t\u2028")
def test_fuzz_reader_gives_back_any_jsonl_record(text: str, title: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.jsonl"
        path.write_text(json.dumps({"id": "x", "title": title, "abstract": text}, ensure_ascii=False) + "\n", encoding="utf-8")
        try:
            got, report = _read_one(path)
        except InputError as exc:  # only a file with nothing in it may be refused outright
            assert "file is empty" in str(exc)
            return
    if placeholder_reason(text):
        assert got == [] and len(report.skipped) == 1
    else:
        assert [a.text for a in got] == [text] and got[0].title == " ".join(title.split())


@given(text=st.one_of(any_text, abstract_text).filter(lambda t: "\x00" not in t))
def test_fuzz_reader_gives_back_any_csv_field(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows([["id", "abstract"], ["x", text]])
        got, _ = _read_one(path)
    assert [a.text for a in got] == ([] if placeholder_reason(text) else [text])


@given(data=st.binary(max_size=400), suffix=st.sampled_from([".jsonl", ".csv", ".txt", ".jsonl.gz"]))
def test_fuzz_reader_on_random_bytes_reads_or_says_why(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"f{suffix}"
        path.write_bytes(data)
        try:
            got, _ = _read_one(path)
        except InputError as exc:
            assert str(path) in str(exc)
            return
    assert all(isinstance(a.text, str) for a in got)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(_seed_texts()), rng=st.randoms(use_true_random=False), edits=st.integers(1, 8))
def test_fuzz_extractor_offsets_hold_on_mutated_abstracts(seed: str, rng: random.Random, edits: int) -> None:
    from kg.api import extract
    from kg.resolve import build_graph

    text = mutate(seed, rng, edits)
    abstract = Abstract(id="fuzz", text=text)
    [x] = list(extract([abstract]))
    assert all(text[e.start:e.end] == e.text for e in x.entities)
    assert all(text[b.start:b.end] == b.text and b.sentence_start <= b.start < b.end <= b.sentence_end for b in x.bounds)
    assert all(text[r.start:r.end] == r.text for r in x.results)
    graph = build_graph([(abstract, x)])
    for edge in graph.edges:
        for ev in edge.evidence:
            assert 0 <= ev.sentence_start <= ev.start <= ev.end <= ev.sentence_end <= len(text), edge.key


@given(name=any_text.filter(str.strip), alias=any_text, abstract=st.one_of(any_text, abstract_text), title=any_text)
@example(name="</script><script>alert(1)</script>", alias="<!--", abstract="a \u2028 b </SCRIPT> 𝒪", title="</title><script>")
def test_fuzz_explorer_page_carries_any_text_as_data(name: str, alias: str, abstract: str, title: str) -> None:
    """Whatever the text, the page has our three scripts only and its data parses back to the payload."""
    from kg.viz import render
    from kg.viz.payload import build_payload

    paper = Node("paper:p", "Paper", title or "p", papers=("paper:p",), properties={"abstract": abstract, "title": title})
    method = Node("method:m", "Method", name, aliases=(alias,), papers=("paper:p",), mentions=1)
    end = min(len(abstract), 3)
    graph = GraphDocument((method, paper), (Edge("paper:p", "method:m", "MENTIONS", (Evidence("paper:p", 0, end, 0, len(abstract), "r", 1.0),)),))
    page = render(graph, title=title)
    assert len(re.findall(r"<script\b", page)) == 3 and page.count("</script>") == 3
    [data] = re.findall(r'<script type="application/json" id="kg-data">(.*?)</script>', page, re.DOTALL)
    assert json.loads(data) == json.loads(json.dumps(build_payload(graph)))
