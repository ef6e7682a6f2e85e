"""The offset invariant: every span indexes the abstract as read (``text[start:end] == surface``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.extractors import extract
from kg.extractors.abbreviations import find_abbreviations
from kg.extractors.text import balanced, clean_for_nlp
from kg.records import Abstract

PIECES = [
    "We propose Equilibrium Propagation (EP) for image classification.",
    " **Bold** claim with `code` and [a link](https://example.org/x).",
    "\nHard\nline breaks\r\n in the middle.",
    " See https://github.com/org/repo.",
    " A bound $\\tilde{O}(\\sqrt{T})$ and O(n^2 \\log n) time.",
    " Kolmogorov-Arnold Networks (KANs) outperform MLPs on ImageNet.",
    " \\emph{Emphasis} and \\\\textbf{double} escapes 25\\\\%.",
    " Curly “quotes” — dashes, Greek α, β and Õ(√T).",
    " # Heading\n- bullet item\n",
    " <script>alert(1)</script> & stuff.",
    " Image seg(cid:173) mentation and (cid:12)ne-tuning.",
]


def _check(text: str, x) -> None:
    for m in x.entities:
        assert text[m.start : m.end] == m.text, m
        assert m.sentence_start <= m.start and m.end <= m.sentence_end <= len(text)
    for b in x.bounds:
        assert text[b.start : b.end] == b.text, b
    for r in x.relations:
        assert r.head is None or 0 <= r.head < len(x.entities)
        assert 0 <= r.tail < len(x.entities)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=40), min_size=1, max_size=8))
def test_offsets_cleaning_keeps_length_and_math(parts: list[str]) -> None:
    text = "".join(parts)
    cleaned = clean_for_nlp(text)
    assert len(cleaned) == len(text)
    for a in find_abbreviations(text):
        assert text[a.long_start : a.long_end] == a.long and text[a.short_start : a.short_end] == a.short


def test_offsets_pdf_glyphs_are_blanked() -> None:
    """Unmapped PDF glyphs ("(cid:173)", a soft hyphen at a line break) read as the word break they are."""
    text = "image seg(cid:173) mentation and (cid:12)ne-tuning"
    assert clean_for_nlp(text) == "image seg          mentation and         ne-tuning"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES) | st.text(alphabet=st.characters(codec="utf-8"), max_size=30), min_size=1, max_size=6))
def test_offsets_extraction_spans_index_the_text(parts: list[str]) -> None:
    text = "".join(parts)
    [x] = list(extract([Abstract("h", text)]))
    _check(text, x)


def test_offsets_exact_on_every_seed(seed_abstracts) -> None:
    extractions = list(extract(seed_abstracts))
    assert [x.abstract_id for x in extractions] == [a.id for a in seed_abstracts]
    for a, x in zip(seed_abstracts, extractions):
        _check(a.text, x)


@pytest.mark.parametrize(
    "text,pairs",
    [
        ("Equilibrium Propagation (EP) is a framework.", [("Equilibrium Propagation", "EP")]),
        ("We use Kolmogorov-Arnold Networks (KANs).", [("Kolmogorov-Arnold Networks", "KANs")]),
        ("the second-order stationary point (SOSP) of it", [("second-order stationary point", "SOSP")]),
        ("results (see Table 2) and (p < 0.05)", []),
        ("can enhance large language models’ (LLMs) reasoning", [("large language models", "LLMs")]),
        # spelled out after the name, as ML abstracts often do; a citation or a note in parentheses is not a long form
        ("we introduce SAISA (Self-Attention Input Space Alignment), a novel", [("Self-Attention Input Space Alignment", "SAISA")]),
        ("we propose ODConNet(OD Pairs based Conditional Travel Time Inference Network).",
         [("OD Pairs based Conditional Travel Time Inference Network", "ODConNet")]),
        ("GPT-4 (OpenAI, 2023), MMLU (Hendrycks et al.) and ImageNet (ILSVRC 2012)", []),
        # a long form joined to the word before it by a dash or a brace starts after it
        ("a new method—Partial Model Collapse (PMC) that", [("Partial Model Collapse", "PMC")]),
        ("we call it \\textit{Equilibrium Matching} (EqM)", [("Equilibrium Matching", "EqM")]),
        ("RoPE (rotary position embedding) in Equilibrium Propagation (EP)",
         [("rotary position embedding", "RoPE"), ("Equilibrium Propagation", "EP")]),
        # the first letter is the word's before a lower-case "and", "of"...; a name may start with one
        ("solved on the Abstraction and Reasoning Corpus (ARC), and", [("Abstraction and Reasoning Corpus", "ARC")]),
        ("effects of prediction to in silico perturbations (ISP)", [("in silico perturbations", "ISP")]),
        ("we propose The Attack Means Nothing (TAME)", [("The Attack Means Nothing", "TAME")]),
        # a short form may start with a digit; a size or a single letter after one is no short form
        ("built on 3D Gaussian Splatting (3DGS), we", [("3D Gaussian Splatting", "3DGS")]),
        ("as expressive as the 1-dimensional Weisfeiler-Lehman (1-WL) test", [("1-dimensional Weisfeiler-Lehman", "1-WL")]),
        ("DeepSeek-R1 (671B) and Qwen3 (8B) in 3D (3D) with rate (1/T)", []),
        # read aloud: a "2" between letters is the word "to", a first "X" is "ex"
        ("advances in text-to-image (T2I) models", [("text-to-image", "T2I")]),
        ("a sequence-to-sequence (Seq2Seq) model", [("sequence-to-sequence", "Seq2Seq")]),
        ("the field of explainable AI (XAI) has", [("explainable AI", "XAI")]),
        ("trained by Advantage Actor-Critic (A2C) here", []),
    ],
)
def test_offsets_abbreviation_pairs(text: str, pairs: list[tuple[str, str]]) -> None:
    assert [(a.long, a.short) for a in find_abbreviations(text)] == pairs


def test_offsets_parallel_extraction_matches_serial(seed_abstracts) -> None:
    serial = list(extract(seed_abstracts[:8]))
    parallel = list(extract(seed_abstracts[:8], jobs=2, batch_size=2))
    assert parallel == serial


def test_offsets_surfaces_are_read_from_the_original_text() -> None:
    text = "We propose **Equilibrium Propagation** (EP) and show EP scales as O(n^2 log n) time on ImageNet."
    [x] = list(extract([Abstract("md", text)]))
    _check(text, x)
    assert "**" in text and any(m.text == "EP" for m in x.entities)
    assert [b.text for b in x.bounds] == ["O(n^2 log n)"]


def _paired(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch in "([") - (ch in ")]")
        if depth < 0:
            return False
    return depth == 0


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ([)]~", max_size=30), st.data())
def test_offsets_balanced_span_holds_its_brackets_in_pairs(text: str, data) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    s, e = balanced(text, start, end)
    assert start <= s <= e <= end
    assert _paired(text[s:e]) or s == e
    if _paired(text[start:end]):
        assert (s, e) == (start, end)
