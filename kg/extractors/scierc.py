"""SciERC-typed entity and relation extraction with the trained pipeline shipped in ``kg/models``.

The pipeline (sentencizer, tok2vec, ner, kg_relations) is trained by
``kg train scierc``; this module loads it from package data, runs it over
abstracts and turns spaCy docs into :class:`kg.records.Mention` / :class:`kg.records.Relation`
records, with a mapping from SciERC types onto the graph schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from importlib.resources import as_file, files

import spacy
from spacy.language import Language
from spacy.tokens import Doc

import kg.extractors.relations  # noqa: F401  (registers the kg_relations factory)
from kg.extractors.rules import NAMED_DATASET, NAMED_MODEL
from kg.records import Mention, Relation
from kg.schema import SCIERC_TO_SCHEMA

EXTRACTOR_NAME = "scierc.v1"

MODEL_HEADS = frozenset(
    """network networks net nets transformer transformers model models llm llms architecture
    architectures encoder encoders decoder decoders autoencoder autoencoders gan gans cnn cnns rnn
    rnns lstm lstms vlm vlms bert gpt mlp mlps perceptron perceptrons vae vaes resnet backbone backbones
    classifier classifiers""".split()
)
"""Head nouns that make a SciERC Method a Model (an architecture or model family)."""

DATASET_WORDS = frozenset(
    "dataset datasets data-set corpus corpora benchmark benchmarks treebank database databases suite".split()
)
"""Words that make a SciERC Material a Dataset."""

_LINKS = frozenset("of in for on with from to by via".split())
_NAMED = re.compile(r"[A-Z].*[A-Z0-9]|\d")  # ImageNet, CIFAR-10, MNIST, WMT14: a named resource


@lru_cache(maxsize=2)
def load_pipeline(name: str = "scierc") -> Language:
    """Load the shipped pipeline ``kg/models/<name>`` (cached per process)."""
    with as_file(files("kg.models") / name) as path:
        return spacy.load(path)


def normalise(text: str) -> str:
    """Canonical name: lower case, single spaces, no space before punctuation or around hyphens."""
    text = re.sub(r"\s+", " ", text.strip().lower())
    text = re.sub(r"\s+([,.;:)\]])", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    return re.sub(r"\s*-\s*", "-", text)


def _entity_spans(nlp: Language, doc: Doc):
    key = nlp.get_pipe("relations").cfg["spans_key"] if "relations" in nlp.pipe_names else "ents"
    spans = doc.ents if key == "ents" else doc.spans.get(key, [])
    return sorted(spans, key=lambda s: (s.start, s.end, s.label_))


def doc_to_records(nlp: Language, doc: Doc) -> tuple[tuple[Mention, ...], tuple[Relation, ...]]:
    """SciERC-labelled mentions (char offsets into ``doc.text``) and relations of one doc."""
    spans = _entity_spans(nlp, doc)
    mentions = tuple(
        Mention(
            start=s.start_char,
            end=s.end_char,
            text=s.text,
            label=s.label_,
            canonical=normalise(s.text),
            sentence_start=s.sent.start_char,
            sentence_end=s.sent.end_char,
            rule=EXTRACTOR_NAME,
        )
        for s in spans
    )
    index = {(s.start, s.end): i for i, s in enumerate(spans)}
    relations = []
    for hs, he, ts, te, label, score in doc._.relations or []:
        head, tail = index.get((hs, he)), index.get((ts, te))
        if head is None or tail is None:
            continue
        relations.append(
            Relation(
                head=head,
                tail=tail,
                label=label,
                sentence_start=mentions[head].sentence_start,
                sentence_end=mentions[head].sentence_end,
                rule=EXTRACTOR_NAME,
                confidence=round(score, 4),
            )
        )
    return mentions, tuple(relations)


def extract_scierc(
    texts: Iterable[str],
    *,
    nlp: Language | None = None,
    batch_size: int = 32,
    n_process: int = 1,
) -> list[tuple[tuple[Mention, ...], tuple[Relation, ...]]]:
    """SciERC entities and relations for each text, in order.

    Example:
        >>> text = "We use a neural network for machine translation ."
        >>> ents, rels = extract_scierc([text])[0]
        >>> all(text[m.start : m.end] == m.text for m in ents)
        True
    """
    nlp = nlp or load_pipeline()
    return [doc_to_records(nlp, doc) for doc in nlp.pipe(texts, batch_size=batch_size, n_process=n_process)]


def schema_label(mention: Mention) -> str | None:
    """Graph label of a SciERC mention; ``None`` for Generic mentions, which are dropped.

    The head noun (last word, ignoring a trailing parenthesised acronym) decides: model heads
    make Methods a Model, and also bare noun-phrase Tasks such as "large language models (LLMs)",
    which the SciERC-trained tagger often calls tasks; dataset heads make Methods and Materials
    a Dataset. Today's names need two more cues SciERC's 2010s text lacks: benchmark-suffixed names
    (BigCodeBench, MetaMathQA) are Datasets, released model families and checkpoints (GPT-5,
    DeepSeek-R1, a "7B") are Models.
    """
    label = SCIERC_TO_SCHEMA.get(mention.label)
    words = re.sub(r"\s*\([^)]*\)?$", "", mention.canonical).replace("-", " ").split()
    if not words or label is None:
        return None
    head = words[-1]
    if mention.label == "Method" and head in MODEL_HEADS:
        return "Model"
    # "aligning language models", "alignment of generative models" stay tasks
    if mention.label == "Task" and head in MODEL_HEADS and not words[0].endswith("ing") and not _LINKS.intersection(words):
        return "Model"
    if mention.label in ("Method", "Material") and (head in DATASET_WORDS or NAMED_DATASET.match(mention.text)):
        return "Dataset"
    if mention.label in ("Method", "Material") and NAMED_MODEL.search(mention.text) and all(w[0].isupper() or w[0].isdigit() for w in mention.text.split()):
        return "Model"
    if mention.label == "Method" and words[0] in MODEL_HEADS:
        return "Model"
    if mention.label == "Material":
        return "Dataset" if _NAMED.search(mention.text) is not None else "Concept"
    return label


def to_schema(
    mentions: Sequence[Mention], relations: Sequence[Relation]
) -> tuple[tuple[Mention, ...], tuple[Relation, ...]]:
    """Relabel mentions onto the graph schema, drop Generic ones and re-index relations to match."""
    kept: dict[int, int] = {}
    out: list[Mention] = []
    for i, m in enumerate(mentions):
        label = schema_label(m)
        if label is not None:
            kept[i] = len(out)
            out.append(replace(m, label=label))
    rels = tuple(
        Relation(
            head=kept[r.head],
            tail=kept[r.tail],
            label=r.label,
            sentence_start=r.sentence_start,
            sentence_end=r.sentence_end,
            rule=r.rule,
            confidence=r.confidence,
        )
        for r in relations
        if r.head in kept and r.tail in kept
    )
    return tuple(out), rels
