"""Entity names on today's ML text: whole hyphenated names, no list or clause run-ons, named models and
benchmarks typed (the rules that tidy the SciERC model's spans, ``scierc.v1``; the default pipeline's
names are tested in ``test_indomain.py``)."""

from __future__ import annotations

import re

from kg.extractors import extract
from kg.names import canonical
from kg.records import ENTITY_LABELS, Abstract

DETECTORS = "FINE applies to various detectors, including Faster R-CNN, YOLO series, and RT-DETR."
CHECKPOINTS = "We compare GPT-5 and DriveAgent-R1 on BigCodeBench and MetaMathQA."


def _mentions(text: str) -> dict[str, str]:
    (x,) = extract([Abstract("t", text)], extractor="scierc.v1")
    return {m.text: m.label for m in x.entities}


def test_hyphenated_name_is_not_cut_and_lists_are_split():
    found = _mentions(DETECTORS)
    assert found.get("Faster R-CNN") == "Model" and found.get("YOLO") == "Model" and found.get("RT-DETR") == "Model"
    assert "CNN" not in found  # the gazetteer's CNN is the tail of R-CNN here
    assert not any("," in name for name in found)


def test_released_models_and_benchmarks_get_their_types():
    found = _mentions(CHECKPOINTS)
    assert found.get("GPT-5") == "Model" and found.get("DriveAgent-R1") == "Model"
    assert found.get("BigCodeBench") == "Dataset" and found.get("MetaMathQA") == "Dataset"


def test_quotes_and_possessives_do_not_split_a_name():
    assert canonical("large language models’") == canonical("Large Language Models") == "large language model"
    assert canonical("``hallucinations''") == canonical('"hallucinations"') == "hallucination"
    assert canonical("Kolmogorov’s theorem") == "kolmogorov's theorem"
    assert canonical("large language model's") == "large language model"


def test_typographic_and_latex_spellings_key_one_name():
    """Spellings ICLR 2026 abstracts give one name, which resolution must merge (most of these made
    two nodes of the full ICLR 2026 graph before): dashes of every kind, LaTeX math and ties, "'24"."""
    same = [("fine-tuning", "fine\u2011tuning", "fine\u2010tuning", "fine\u2013tuning"),
            ("reasoning", "reasoning\u2014"), ("CIFAR-10", "CIFAR\u201110", "CIFAR\u221210"),
            ("pass@k", "Pass@$k$", "pass@$k"), ("R^2", "R$^2$"), ("Qwen2.5-7B-Instruct", "Qwen$2.5$-$7$B-Instruct"),
            ("Key-Value (KV) cache", "Key-Value~(KV) cache"), ("AIME24", "AIME'24", "AIME\u201924"),
            ("V*Bench", "V\\*Bench"), ("accuracy", "accuracy$\\"), ("R2", "R²"), ("μP", "µP"), ("Muon", "𝖬𝗎𝗈𝗇")]
    for spellings in same:
        assert len({canonical(s) for s in spellings}) == 1, spellings
    assert canonical("Transformer") != canonical("Transformer++") and canonical("GPT-4") != canonical("GPT-4o")
    # an article is dropped only as a word of its own: A-OKVQA is not OK-VQA, nor A-ROUGE ROUGE
    assert canonical("the OK-VQA") == "ok vqa" != canonical("A-OKVQA") and canonical("A-ROUGE") != canonical("ROUGE")
    assert canonical("A/B testing") == "a b testing"


def test_plural_and_singular_key_one_name_and_a_singular_in_s_keeps_it():
    """"-es" plurals made two nodes of the full ICLR 2026 graph ("Gaussian processes" 18 papers,
    "Gaussian process" 25), and a singular ending in "s" lost it ("spectral bias" was "spectral bia")."""
    same = [("Gaussian processes", "Gaussian process"), ("diffusion-based approaches", "diffusion-based approach"),
            ("social biases", "social bias"), ("contrastive losses", "contrastive loss"), ("KV caches", "KV cache"),
            ("causal analyses", "causal analysis"), ("vertices", "vertex"), ("policies", "policy"),
            ("chains of thought", "chain-of-thought"), ("Mixtures of Experts", "mixture of experts")]
    for spellings in same:
        assert len({canonical(s) for s in spellings}) == 1, spellings
    assert [canonical(s) for s in ("spectral bias", "time series", "species", "training dynamics", "logit lens")] == [
        "spectral bias", "time series", "species", "training dynamics", "logit lens"]


def test_latex_macros_are_not_names_and_markup_is_trimmed():
    found = _mentions(r"We propose \method, a framework for graph learning. \method beats *GraphGPS*. "
                      r"We introduce \textit{Embodied Reasoning Agent} for robot planning, "
                      r"unlike the Distributed Data Parallel~\cite{li2020} trainer.")
    assert not any("\\" in name or "*" in name or "{" in name or "~" in name for name in found)
    assert {"GraphGPS", "Embodied Reasoning Agent", "graph learning"} <= set(found)


def test_seed_entity_names_do_not_end_in_function_words(seeds_graph):
    dangling = re.compile(r"\s(?:and|or|of|with|without|the|a|an|to|for|in|on)$", re.I)
    names = [n.name for n in seeds_graph.nodes if n.label in ENTITY_LABELS]
    assert len(names) > 300 and [n for n in names if dangling.search(n)] == []
