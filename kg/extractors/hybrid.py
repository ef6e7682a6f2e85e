"""The trained SciERC recogniser and relation model combined with the rules, as one spaCy pipeline.

The trained components (shipped in ``kg/models/scierc``) are sourced into the base English
pipeline next to their own encoder, so the parser the rules need and the SciERC model share one
``nlp.pipe`` pass.  ``kg_merge`` then combines both:

* mentions: the rules' high-precision ones (abbreviation pairs, gazetteer, "we propose X") win any
  overlap; otherwise the trained model's spans (mapped onto the schema, Generic dropped) win over
  the rules' noun-chunk and name heuristics;
* relations: SciERC relations are mapped onto the graph's edge types (``SCIERC_RELATIONS``), the
  rules' paper-level and cue-word relations are kept, both re-indexed onto the merged mentions.
"""

from __future__ import annotations

import re
from dataclasses import replace
from importlib.resources import as_file, files

import spacy
from spacy.language import Language
from spacy.pipeline.tok2vec import Tok2VecListener
from spacy.tokens import Doc, Span

from kg.extractors import relations as _relations  # noqa: F401  (registers kg_relations)
from kg.extractors.rules import whole_words
from kg.names import canonical
from kg.extractors.text import trim_markup
from kg.extractors.scierc import EXTRACTOR_NAME, schema_label
from kg.records import Mention, Relation

TRUSTED_RULES = ("abbreviation", "gazetteer", "propose")
"""Rule families whose mentions beat the trained model's on overlap."""


def source_scierc(nlp: Language, model_name: str = "scierc") -> Language:
    """Add the shipped SciERC encoder, recogniser and relation model to ``nlp``.

    The trained components listen to their own encoder, renamed ``scierc_tok2vec`` so that it sits
    beside the base pipeline's ``tok2vec`` (which the parser listens to); one encoder pass serves both.
    """
    with as_file(files("kg.models") / model_name) as path:
        sci = spacy.load(path)
    for name in ("ner", "relations"):
        for node in sci.get_pipe(name).model.walk():
            if isinstance(node, Tok2VecListener):
                node.upstream_name = "scierc_tok2vec"
    nlp.add_pipe("tok2vec", name="scierc_tok2vec", source=sci)
    nlp.add_pipe("ner", name="scierc_ner", source=sci)
    nlp.add_pipe("relations", name="scierc_relations", source=sci)
    nlp._link_components()  # bind the renamed listeners to scierc_tok2vec
    return nlp


def map_relation(label: str, head: Mention, tail: Mention) -> tuple[str, bool] | None:
    """A SciERC relation as (edge type, reversed?) between schema-typed mentions, or ``None``.

    Example:
        >>> m = lambda label: Mention(0, 1, "x", label, "x")
        >>> map_relation("USED-FOR", m("Method"), m("Problem")), map_relation("EVALUATE-FOR", m("Dataset"), m("Model"))
        (('ADDRESSES', False), ('EVALUATED_ON', True))
    """
    actors = ("Method", "Model")
    h, t = head.label, tail.label
    if label == "USED-FOR":
        if h in actors and t == "Problem":
            return "ADDRESSES", False
        if t in actors and h in (*actors, "Dataset", "Concept"):
            return "USES", True
    elif label == "EVALUATE-FOR":
        if h == "Dataset" and t in (*actors, "Problem"):
            return "EVALUATED_ON", True
        if h == "Metric":
            return "MEASURED_BY", True
    elif label == "HYPONYM-OF":
        return "IS_A", False
    elif label == "PART-OF":
        return "PART_OF", False
    elif label == "COMPARE" and h in actors and t in actors:
        return "COMPARED_WITH", False
    return None


@Language.component("kg_merge")
def merge_component(doc: Doc) -> Doc:
    """Combine ``doc.ents``/``doc._.relations`` (trained) with ``doc._.kg_mentions`` (rules)."""
    rules = list(doc._.kg_mentions)
    trained, trained_relations = _trained(doc)
    trusted = [m for m in rules if any(f":{family}" in m.rule for family in TRUSTED_RULES)]
    merged: list[Mention] = list(trusted)
    taken = [(m.start, m.end) for m in trusted]
    index: dict[tuple[str, int], int] = {}

    def overlaps(m: Mention) -> bool:
        return any(m.start < e and s < m.end for s, e in taken)

    for i, m in enumerate(trained):
        if m is not None and not overlaps(m):
            taken.append((m.start, m.end))
            merged.append(m)
            index[("trained", i)] = len(merged) - 1
    for m in rules:
        if m not in trusted and not overlaps(m):
            taken.append((m.start, m.end))
            merged.append(m)
    order = sorted(range(len(merged)), key=lambda i: (merged[i].start, merged[i].end))
    position = {old: new for new, old in enumerate(order)}
    mentions = [merged[i] for i in order]
    by_span = {(m.start, m.end, m.label): i for i, m in enumerate(mentions)}

    relations: list[Relation] = []
    for r in doc._.kg_relations:
        tail = by_span.get(_key(rules[r.tail]))
        head = None if r.head is None else by_span.get(_key(rules[r.head]))
        if tail is not None and (r.head is None or head is not None):
            relations.append(replace(r, head=head, tail=tail))
    for h, t, label, r in trained_relations:
        if ("trained", h) not in index or ("trained", t) not in index:
            continue
        head, tail = position[index[("trained", h)]], position[index[("trained", t)]]
        mapped = map_relation(label, mentions[head], mentions[tail])
        if mapped:
            edge, flipped = mapped
            head, tail = (tail, head) if flipped else (head, tail)
            relations.append(replace(r, head=head, tail=tail, label=edge))
    doc._.kg_mentions = tuple(mentions)
    doc._.kg_relations = tuple(relations)
    return doc


def _key(m: Mention) -> tuple[int, int, str]:
    return (m.start, m.end, m.label)


_QUANTITY = re.compile(r"[\d.,]+\s?[KMBT]?-?")
"""A bare count ("300M", "1.5B") left after tidying is a model size, not a name."""

_DANGLING = frozenset({"ADP", "CCONJ", "SCONJ", "DET", "PRON", "PART", "AUX", "PUNCT"})
"""Parts of speech a name does not end with: "reducing hallucination without", "data and"."""


def _tidy(span: Span) -> Span | None:
    """The span widened to whole hyphenated words, cut at an inner comma and before dangling function words.

    SciERC's tokens split at hyphens, so the recogniser can tag "CNN" inside "Faster R-CNN"; on
    ICLR text it also runs spans on into the next clause. ``None`` if nothing is left.
    """
    doc = span.doc
    start, end = whole_words(doc, span.start, span.end)
    # a list of names ("Faster R-CNN, YOLO series", "BigCodeBench and MetaMathQA"): keep the first;
    # shared-head lists of common words ("tabular, image, and text data") stay whole
    end = next((t.i for t in doc[start + 1 : end]
                if (t.text in (",", ";", ":") or t.pos_ == "CCONJ") and any(c.isupper() or c.isdigit() for c in doc[t.i - 1].text)),
               end)
    while end > start and doc[end - 1].pos_ in _DANGLING and doc[end - 1].text not in (")", "]", "+"):
        end -= 1
    tidy = doc[start:end]
    return tidy if end > start and not _QUANTITY.fullmatch(tidy.text) else None


def _trained(doc: Doc) -> tuple[list[Mention | None], list[tuple[int, int, str, Relation]]]:
    """Trained spans as schema mentions (``None`` where dropped) and their raw relations."""
    spans = sorted(doc.ents, key=lambda s: (s.start, s.end, s.label_))
    text = doc.text  # joined anew on each access: read it once
    mentions: list[Mention | None] = []
    for s in spans:
        tidy = _tidy(s)
        start, end = (0, 0) if tidy is None else trim_markup(text, tidy.start_char, tidy.end_char)
        raw = None if start == end else Mention(
            start, end, text[start:end], s.label_, canonical(text[start:end]), s.sent.start_char, s.sent.end_char,
            EXTRACTOR_NAME, 0.7)
        label = None if raw is None else schema_label(raw)
        mentions.append(None if label is None or not raw.canonical else replace(raw, label=label))
    index = {(s.start, s.end): i for i, s in enumerate(spans)}
    relations = []
    for hs, he, ts, te, label, score in doc._.relations or []:
        h, t = index.get((hs, he)), index.get((ts, te))
        if h is None or t is None or mentions[h] is None or mentions[t] is None:
            continue
        m = mentions[h]
        relations.append((h, t, label, Relation(h, t, label, m.sentence_start, m.sentence_end, EXTRACTOR_NAME, round(float(score), 3))))
    return mentions, relations
