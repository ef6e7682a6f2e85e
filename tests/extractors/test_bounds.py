"""Bound extraction: every notation and spelling, the negatives, fields, offsets, the spaCy component."""

from __future__ import annotations

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extractors.bounds import find_bounds, math_segments, sentence_spans
from kg.records import Mention


def only(text: str):
    bounds = find_bounds(text)
    assert len(bounds) == 1, [b.text for b in bounds]
    return bounds[0]


@pytest.mark.parametrize(
    ("text", "span", "notation", "expression"),
    [
        (r"We prove it runs in $O(n^2)$ time.", r"$O(n^2)$", "O", "O(n^2)"),
        (r"Existing methods require $\Omega(s(n))$ steps.", r"$\Omega(s(n))$", "Omega", "Omega(s(n))"),
        (r"Sorting takes $\Theta(n \log n)$ comparisons.", r"$\Theta(n \log n)$", "Theta", "Theta(n*log(n))"),
        (r"We show $o(1/\sqrt{T})$ convergence.", r"$o(1/\sqrt{T})$", "o", "o(1/sqrt(T))"),
        (r"This avoids an $\omega(1)$ update time.", r"$\omega(1)$", "omega", "omega(1)"),
        (r"It needs $\tilde{O}(d/\epsilon^2)$ samples.", r"$\tilde{O}(d/\epsilon^2)$", "soft-O", "O~(d/eps^2)"),
        (r"It has $\widetilde{O}(\sqrt{T})$ regret.", r"$\widetilde{O}(\sqrt{T})$", "soft-O", "O~(sqrt(T))"),
        (r"It has $\tilde O(\sqrt{T})$ regret.", r"$\tilde O(\sqrt{T})$", "soft-O", "O~(sqrt(T))"),
        (r"When the budget is $N=\tilde\Omega(C^\*)$, it works.", r"\tilde\Omega(C^\*)", "soft-Omega", "Omega~(C_star)"),
        (r"A width of $m=\mathcal{O}(n^2)$ suffices.", r"\mathcal{O}(n^2)", "O", "O(n^2)"),
        (r"It costs $\widetilde{\mathcal{O}}(\epsilon^{-3})$ calls.", r"$\widetilde{\mathcal{O}}(\epsilon^{-3})$", "soft-O", "O~(eps^(-3))"),
        (r"ESTOR obtains regret $\tilde{O}_T(\sqrt{T})$ here.", r"$\tilde{O}_T(\sqrt{T})$", "soft-O", "O~_T(sqrt(T))"),
        (r"It converges after $O_\epsilon(1/\epsilon^4)$ iterations.", r"$O_\epsilon(1/\epsilon^4)$", "O", "O_eps(1/eps^4)"),
        ("Our bandit gets Õ(√T) regret.", "Õ(√T)", "soft-O", "O~(sqrt(T))"),
        ("The search runs in O(n^2 log n) time.", "O(n^2 log n)", "O", "O(n^2*log(n))"),
        ("The sort costs Θ(n log n) time.", "Θ(n log n)", "Theta", "Theta(n*log(n))"),
        (r"It uses $\\mathcal{O}(\\sqrt{T})$ memory.", r"$\\mathcal{O}(\\sqrt{T})$", "O", "O(sqrt(T))"),
        (r"It uses $\\widetilde{\\mathcal{O}}(d\\,\\mathsf{k})$ bits.", r"$\\widetilde{\\mathcal{O}}(d\\,\\mathsf{k})$", "soft-O", "O~(d*k)"),
        (r"Rate ${\cal O}(\frac{1}{T^{1/4}})$ holds.", r"${\cal O}(\frac{1}{T^{1/4}})$", "O", "O(1/T^(1/4))"),
        (r"We get $\cO(n^{-1/2})$ error.", r"$\cO(n^{-1/2})$", "O", "O(n^(-1/2))"),
        (r"It converges as $\mathcal {O}(1/k^3)$ .", r"$\mathcal {O}(1/k^3)$", "O", "O(1/k^3)"),
        (r"It attains $O\big( 1/T^{(p-1)/(2p)} \big)$ rates.", r"$O\big( 1/T^{(p-1)/(2p)} \big)$", "O", "O(1/T^((p - 1)/(2*p)))"),
        (r"It runs in $\tilde{O}\left(\tfrac{d \log^{3/2}(1/\delta)}{\varepsilon}\right)$ steps.",
         r"$\tilde{O}\left(\tfrac{d \log^{3/2}(1/\delta)}{\varepsilon}\right)$", "soft-O", "O~(d*log(1/delta)^(3/2)/eps)"),
        (r"It is computed in $n^{1+o(1)}$ time.", r"$n^{1+o(1)}$", "o", "n^(1 + o(1))"),
        (r"Queries take $\log^{O(k)}(n/\varepsilon)$ time.", r"$\log^{O(k)}(n/\varepsilon)$", "O", "log(n/eps)^(O(k))"),
        (r"It stores ${O(\sqrt{N} \cdot d)}$ floats.", r"${O(\sqrt{N} \cdot d)}$", "O", "O(sqrt(N)*d)"),
        (r"The loss converges to zero with a $1/\tau$ rate.", r"$1/\tau$", "rate", "1/tau"),
        (r"Our method achieves $\sqrt{T}$ regret.", r"$\sqrt{T}$", "rate", "sqrt(T)"),
        (r"The learning curve decays as $1/t^{\alpha}$ in practice.", r"$1/t^{\alpha}$", "rate", "1/t^alpha"),
        (r"Variance is controlled by $t_{\mathrm{mix}}/(G\sqrt{K})$ here.", r"$t_{\mathrm{mix}}/(G\sqrt{K})$", "rate", "t_mix/(G*sqrt(K))"),
    ],
)
def test_bounds_notation_and_form(text: str, span: str, notation: str, expression: str) -> None:
    bound = only(text)
    assert (bound.text, bound.notation, bound.expression) == (span, notation, expression)
    assert text[bound.start:bound.end] == bound.text
    assert bound.parsed and bound.rule == "bounds.v1"


@pytest.mark.parametrize(
    "text",
    [
        r"We pick $k$ experts and set $c>0$ with $\beta\in(0,1)$.",
        "Accuracy improves by 54% and by $25\\%$ on $10^6$ images, 85× faster.",
        r"The groups $SU(2)$ and $\mathrm{SO}(3)$ act on $\mathsf{N}(0,1)$ and $\mathcal{N}(0, I)$ noise.",
        r"A $(4+\epsilon)$-approximate plan, better than $2$, and a $(1\pm\epsilon)$-approximation.",
        r"It finds $\epsilon$-stationary points of $(t(n),s(n))$-bounded machines with $W=0$.",
        "It runs in quadratic time with almost-linear memory and sub-linear regret.",
        r"The network is $O(d)$-equivariant and enforces $SO(3)/O(3)$-equivariance on $X/(S_n \times O(d))$.",
        "The dataset scales to O(100 million) images.",
        r"The estimator attains the minimax $L^2$ rate and a learning rate of $4.5 \times 10^{-5}$.",
        r"We remove the $\ln(1/\epsilon)$ factor and the quartic dependence on $\omega^{-1}$.",
        "We present Top-Theta (Top-θ) attention and compare to BLIP3-o (0.84).",
        r"Their change rate $\delta_m(t)$ and the quantity $\\mathsf{TC}^0$ are tracked.",
    ],
)
def test_bounds_negatives(text: str) -> None:
    assert find_bounds(text) == ()


@pytest.mark.parametrize(
    ("text", "quantity"),
    [
        (r"It runs in $O(n^3)$ time.", "time"),
        (r"It needs $O(\log T)$ rounds.", "iterations"),
        (r"It has an oracle complexity $O(\epsilon^{-3})$ overall.", "iterations"),
        (r"The sample complexity is $O(d/\epsilon^2)$.", "sample-complexity"),
        (r"We obtain $\tilde O(\sqrt{T})$ regret.", "regret"),
        (r"The excess risk is $O(1/n)$.", "error"),
        (r"It converges at a rate of $O(1/T)$.", "convergence-rate"),
        (r"It keeps an $O(W)$ ring buffer.", "space/memory"),
        (r"A hidden layer width of $m=O(n^2)$ suffices.", "width/size/parameters"),
        (r"It uses $O(\log n)$ bits of communication per round.", "communication"),
        (r"It answers with $O(1/\varepsilon^2)$ queries.", "query"),
    ],
)
def test_bounds_quantity(text: str, quantity: str) -> None:
    assert only(text).quantity == quantity


def test_bounds_other_quantity_names_the_parameter() -> None:
    bound = only(r"It converges as long as the weak convexity parameter is no larger than $O(1/\delta)$.")
    assert (bound.quantity, bound.quantity_detail, bound.role) == ("other", "weak convexity parameter", "condition")


def test_bounds_factor_kind() -> None:
    bound = only(r"The best previous result achieved an $O(\log n)$-approximation.")
    assert (bound.kind, bound.quantity, bound.quantity_detail, bound.role) == ("factor", "other", "approximation factor", "prior")


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        (r"Existing constructions require $\Omega(s(n))$ steps. We need only $O(s(n)^c)$ steps.", ["prior", "new"]),
        (r"We prove a lower bound: any algorithm requires at least $\Omega(\sqrt{T})$ regret.", ["lower"]),
        (r"We show that when the budget is $N=\tilde\Omega(C)$, the regret of BoM is $O(\sqrt{C/k})$.", ["condition", "new"]),
        (r"Attention is $O(N^2)$ in the sequence length. We propose a linear model.", ["prior"]),
        (r"We reduce the cost from $O(L^2)$ to $O(L)$.", ["prior", "new"]),
    ],
)
def test_bounds_role(text: str, roles: list[str]) -> None:
    assert [b.role for b in find_bounds(text)] == roles


@pytest.mark.parametrize(
    ("text", "links"),
    [
        (r"We reduce the space complexity from $O(d^4)$, where $d$ is the width, to $O(d^2)$.", [None, 0]),
        (r"We prove $\tilde{O}(d/\epsilon)$ steps suffice to reach $O(\epsilon^2)$ error, improving upon "
         r"the previous best result requiring $\tilde{O}(d/\epsilon^2)$ steps.", [2, None, None]),
        (r"Width $m=O(n^2)$ suffices, a polynomial improvement over the $m=O(n^6)$ requirement.", [1, None]),
        (r"Prior work needs $O(T^{2/3})$ regret. We improve this to $O(\sqrt{T})$ regret.", [None, 0]),
        (r"The method runs in $O(n^3)$ time and $O(n^2)$ memory.", [None, None]),
        (r"We cut the cost from $O(n)$ to $O(n^2)$.", [None, None]),  # not an improvement: dropped
    ],
)
def test_bounds_improves_on(text: str, links: list[int | None]) -> None:
    assert [b.improves_on for b in find_bounds(text)] == links


def test_bounds_improves_on_points_to_first_mention() -> None:
    text = (r"Prior work attains $O(T^{2/3})$ regret. Their $O(T^{2/3})$ regret is loose. "
            r"We achieve $O(\sqrt{T})$ regret, improving on the $O(T^{2/3})$ bound.")
    assert [b.improves_on for b in find_bounds(text)] == [None, None, 0, None]


def test_bounds_unicode_rendering_and_variables() -> None:
    bound = only(r"It needs $\tilde{O}\left(\tfrac{d \log^{3/2}(1/\delta)}{\varepsilon}\right)$ steps.")
    assert bound.unicode == "Õ(d·log^{3/2}(1/δ)/ε)"
    assert bound.variables == ("d", "delta", "eps")


def test_bounds_unparsable_are_kept_and_flagged() -> None:
    bound = only(r"The algorithm has total complexity $O(\sum_{n=1}^{N} k_n^3)$ overall.")
    assert bound.text == r"$O(\sum_{n=1}^{N} k_n^3)$"
    assert bound.parsed is False and bound.notation == "O" and bound.confidence < 0.9


def test_bounds_subject_from_entities_and_text() -> None:
    text = r"Our ESTOR obtains regret $\tilde{O}(\sqrt{T})$. It needs $O(d)$ memory for GLM-ES."
    mentions = (Mention(4, 9, "ESTOR", "Method", "estor"), Mention(72, 78, "GLM-ES", "Method", "glm-es"))
    linked = find_bounds(text, mentions)
    assert [(b.subject, b.subject_entity) for b in linked] == [("ESTOR", 0), ("GLM-ES", 1)]
    plain = find_bounds(text)
    assert [(b.subject, b.subject_entity) for b in plain] == [("Our ESTOR", None), ("GLM-ES", None)]


def test_bounds_sentences() -> None:
    text = r"We study bandits, e.g. linear ones. We prove $O(\sqrt{T})$ regret. Done."
    assert sentence_spans(text, math_segments(text)) == [(0, 35), (36, 66), (67, 72)]
    bound = only(text)
    assert (bound.sentence_start, bound.sentence_end) == (36, 66)
    given_sentences = find_bounds(text, sentences=[(0, 72)])
    assert (given_sentences[0].sentence_start, given_sentences[0].sentence_end) == (0, 72)


def test_bounds_spacy_component_matches_function() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("kg_bounds")
    text = r"Prior work needs $O(T^{2/3})$ regret. We improve this to $O(\sqrt{T})$ regret."
    doc = nlp(text)
    sentences = [(s.start_char, s.end_char) for s in doc.sents]
    assert doc._.bounds == find_bounds(text, sentences=sentences)
    assert [b.improves_on for b in doc._.bounds] == [None, 0]


INSERTED = [
    r"$O(n^2)$", r"$\tilde{O}(\sqrt{T})$", "O(n log n)", r"$\Omega(d/\epsilon^2)$", "Õ(√T)",
    r"$\mathcal{O}(1/k)$", r"$n^{1+o(1)}$", r"$\\mathcal{O}(\\log n)$", r"$\Theta(1)$",
]
FILLER = st.text(alphabet=st.sampled_from(list("abcdeOTxyz ,.;-")), max_size=40)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(FILLER, st.sampled_from(INSERTED)), min_size=1, max_size=5), FILLER)
def test_bounds_offsets_invariant(pieces: list[tuple[str, str]], tail: str) -> None:
    text, expected = "", []
    for filler, bound in pieces:
        text += filler + " "
        expected.append((len(text), len(text) + len(bound)))
        text += bound + " "
    text += tail
    found = find_bounds(text)
    assert all(text[b.start:b.end] == b.text for b in found)
    assert [(b.start, b.end) for b in found] == expected
    assert all(b.sentence_start <= b.start < b.end <= b.sentence_end for b in found)


def test_bounds_sentence_covers_a_bound_the_splitter_cut() -> None:
    """An unclosed "$O(..." can run past the sentence the splitter saw: the evidence sentence then
    spans every sentence the bound touches (found by the fuzz tests)."""
    from kg.extractors import extract
    from kg.records import Abstract

    text = ("We study conformal regression. Our bounds of order $\\mathcal{O}(the set length from the oracle "
            "interval length for quantile regression trained via SGD, under mild assumptions. Our bounds of "
            "order $\\mathcal{O}(n)$ hold. Experiments confirm it.")
    [x] = list(extract([Abstract("t", text)]))
    assert x.bounds
    for b in x.bounds:
        assert text[b.start:b.end] == b.text and b.sentence_start <= b.start < b.end <= b.sentence_end
