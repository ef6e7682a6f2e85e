"""The in-domain recogniser: Method, Model, Problem, Dataset and Metric mentions as the graph wants them.

``kg/models/indomain`` holds a spaCy encoder and ``ner`` trained on ML abstracts annotated here in
the graph's own schema (``kg train indomain``), plus two small JSON models: the
mention confidence (``mentions.json``) and the paper roles (``roles.json.gz``, ``kg.extractors.roles``).
The recogniser is sourced into the English pipeline beside the parser; ``kg_entities`` turns its
spans into mentions: markup trimmed, acronyms tied to their long forms (in the text, or in a title
such as "DeMo: Decoupled Momentum Optimization"), every repeat of a name the recogniser found once
marked too (the guidelines annotate repeats), and a calibrated confidence.  ``kg_confident_mentions``,
last in the pipeline, drops the mentions below the confidence model's threshold.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from importlib.resources import as_file, files
from pathlib import Path

import numpy
import spacy
from spacy.language import Language
from spacy.pipeline.tok2vec import Tok2VecListener
from spacy.tokens import Doc

from kg.extractors.abbreviations import Abbreviation, spells_in_order, title_abbreviation
from kg.extractors.roles import LinearHeads
from kg.names import canonical
from kg.extractors.text import balanced, name_shape, trim_markup, whole_words, without_overlaps, word_occurrences
from kg.records import Mention, Result

EXTRACTOR_NAME = "indomain.v1"
MODEL_NAME = "indomain"


def model_path(name: str = MODEL_NAME) -> Path:
    """The shipped model folder (package data)."""
    with as_file(files("kg.models") / name) as path:
        return Path(path)


TRAINED_PIPES = ("tok2vec", "ner")


def cast_weights(nlp: Language, source: str, target: str) -> None:
    """Cast every weight of the trained components from dtype ``source`` to ``target``."""
    for pipe in TRAINED_PIPES:
        for node in nlp.get_pipe(pipe).model.walk():
            for name in node.param_names:
                if node.has_param(name) and node.get_param(name).dtype == source:
                    node.set_param(name, node.get_param(name).astype(target))


def store_half_precision(path: Path) -> None:
    """Rewrite the trained components and the floret table of the model folder at ``path`` with
    float16 weights: half the size on disk (the encoder would not fit in a 20 MB file otherwise, and
    the model beside the tagger not in 50 MB), read back as float32 by ``source_indomain``.  Training
    scores the model in this form, so its recorded scores hold."""
    nlp = spacy.load(path)
    cast_weights(nlp, "float32", "float16")
    for pipe in TRAINED_PIPES:
        (path / pipe / "model").write_bytes(nlp.get_pipe(pipe).model.to_bytes())
    with (path / "vocab" / "vectors").open("wb") as f:
        numpy.save(f, nlp.vocab.vectors.data.astype("float16"))


def source_indomain(nlp: Language, path: Path | None = None) -> Language:
    """Add the in-domain encoder and recogniser to ``nlp`` (the encoder renamed, in case ``nlp`` has its own)."""
    trained = spacy.load(path or model_path())
    cast_weights(trained, "float16", "float32")  # stored at half precision, computed at single
    # The encoder reads the in-domain floret table: the English pipeline (which has none) takes it over.
    trained.vocab.vectors.data = trained.vocab.vectors.data.astype("float32")
    nlp.vocab.vectors = trained.vocab.vectors
    for node in trained.get_pipe("ner").model.walk():
        if isinstance(node, Tok2VecListener):
            node.upstream_name = "indomain_tok2vec"
    nlp.add_pipe("tok2vec", name="indomain_tok2vec", source=trained)
    nlp.add_pipe("ner", name="indomain_ner", source=trained)
    nlp._link_components()
    return nlp


def mention_features(m: Mention, source: str, count: int) -> list[str]:
    """What the confidence model reads about one mention: label, where it came from, its shape."""
    words = m.text.split()
    lab = m.label
    shape = name_shape(m.text)
    return [
        f"label={lab}",
        f"source={source}|{lab}",
        f"words={min(len(words), 5)}|{lab}",
        f"shape={shape}|{lab}",
        f"digit={any(c.isdigit() for c in m.text)}|{lab}",
        f"count={min(count, 4)}|{lab}",
        f"head={words[-1].lower() if words else ''}|{lab}",
        f"first={words[0].lower() if words else ''}|{lab}",
        f"abbreviation={bool(m.aliases)}|{lab}",
    ]


@Language.factory("kg_entities", default_config={"confidence": None})
def make_entities(nlp: Language, name: str, confidence: str | None) -> EntityMentions:
    """spaCy factory: recogniser spans -> ``doc._.kg_mentions`` (confidence weights from ``confidence``)."""
    return EntityMentions(LinearHeads.from_disk(confidence) if confidence else None)


_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "to", "for", "in", "on", "with", "without", "and", "or", "by", "from"})
"""Words no name ends with ("the topic of"): a span the recogniser ran on into them is a misreading, dropped."""


class EntityMentions:
    """Sets ``doc._.kg_mentions`` from ``doc.ents`` and ``doc._.abbreviations``."""

    def __init__(self, confidence: LinearHeads | None) -> None:
        self.confidence = confidence

    def __call__(self, doc: Doc) -> Doc:
        text, as_read = doc.text, doc.user_data.get("text", doc.text)  # cleaned for the NLP; as given
        sents = [(s.start_char, s.end_char) for s in doc.sents] if doc.has_annotation("SENT_START") else [(0, len(text))]
        found: list[tuple[int, int, str, str]] = []  # start, end, label, source
        for span in doc.ents:
            start, end = _whole_words(as_read, *trim_markup(text, span.start_char, span.end_char))
            last = span[-1].lower_
            cut = balanced(as_read, start, end)
            if cut != (start, end):  # "large language models(LLMs": cut at the bracket
                start, end = trim_markup(as_read, *cut)
                last = (text[start:end].split() or [""])[-1].lower()
            if end > start and canonical(text[start:end]) and last not in _FUNCTION_WORDS:
                found.append((start, end, span.label_, "ner"))
        found = without_overlaps([], found)  # spans grown over emphasis may meet ("Re" and "current")
        abbreviations = [replace(a, long_start=s, long_end=e, long=as_read[s:e])
                         for a in getattr(doc._, "abbreviations", ()) for s, e in [_whole_words(as_read, a.long_start, a.long_end)]]
        abbreviations, found = _aligned(abbreviations, as_read, found)
        found = _with_abbreviations(abbreviations, text, found)
        found = _with_repeats(text, found)
        counts: dict[str, int] = {}
        for s, e, _, _ in found:
            counts[text[s:e]] = counts.get(text[s:e], 0) + 1
        pairs = {a.short: (a.long, a.short) for a in abbreviations}
        long_spans = {(a.long_start, a.long_end): (a.long, a.short) for a in abbreviations}
        titled = title_abbreviation(doc.user_data.get("title", ""))
        if titled and titled[1] not in pairs:  # "DeMo: Decoupled Momentum Optimization" as the title
            pairs[titled[1]] = titled
        spelled_alike = {short.lower(): pair for short, pair in pairs.items()}  # "MIDSTEER (...)", then "MidSteer"
        named = []
        for start, end, label, source in found:
            surface = text[start:end]
            aliases = pairs.get(surface) or long_spans.get((start, end)) or spelled_alike.get(surface.lower()) or ()
            named.append((start, end, label, source, aliases, canonical(aliases[0] if aliases else as_read[start:end])))
        labels = _one_label_per_name([(start, label, key) for start, _, label, _, _, key in named])
        mentions = []
        for start, end, _, source, aliases, key in named:
            surface, label = text[start:end], labels[key]
            ss, se = next(((a, b) for a, b in sents if a <= start < b), (start, end))
            m = Mention(start, end, surface, label, key, ss, se, f"{EXTRACTOR_NAME}:{source}", 1.0, aliases)
            if self.confidence is not None:
                p = self.confidence.probability("mention", mention_features(m, source, counts[surface]))
                m = replace(m, confidence=round(p, 3))
            mentions.append(m)
        doc._.kg_mentions = tuple(mentions)
        return doc


@Language.factory("kg_confident_mentions", default_config={"confidence": None})
def make_confident_mentions(nlp: Language, name: str, confidence: str | None) -> ConfidentMentions:
    """spaCy factory: drop the mentions below the threshold of the confidence model at ``confidence``."""
    return ConfidentMentions(LinearHeads.from_disk(confidence).thresholds["mention"] if confidence else 0.0)


class ConfidentMentions:
    """Drops the mentions whose confidence is below ``threshold``, after the roles, results and bounds
    have read them all (their heads were fitted on every mention).  A mention a relation stands on
    stays, so every relation and its evidence are as the roles made them; a result name or bound
    subject that pointed at a dropped mention moves to a kept mention of the same name, if any.

    The threshold (``mentions.json``, chosen by ``kg train indomain``) is half the F1 it gives on
    dev: 0.39.  Entity F1 on our dev 76.88 -> 77.40, on draws 14-17 77.20 -> 77.31, on shared
    entities-dev 76.52 -> 76.55, paper facts and results the same.  Moving relations to a kept
    mention of the same name instead gained more (77.64, 77.35, 76.73) but put a fact on an acronym
    in another sentence than the one its evidence names.
    """

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __call__(self, doc: Doc) -> Doc:
        mentions = doc._.kg_mentions
        relations = getattr(doc._, "kg_relations", ()) or ()
        keep = {i for i, m in enumerate(mentions) if m.confidence >= self.threshold}
        keep |= {r.tail for r in relations} | {r.head for r in relations if r.head is not None}
        if len(keep) == len(mentions):
            return doc
        new = {old: k for k, old in enumerate(sorted(keep))}
        same_name: dict[tuple[str, str], int] = {}
        for old, k in new.items():
            same_name.setdefault((mentions[old].label, mentions[old].canonical), k)

        def moved(i: int | None) -> int | None:
            return None if i is None else new.get(i, same_name.get((mentions[i].label, mentions[i].canonical)))

        doc._.kg_relations = tuple(replace(r, head=None if r.head is None else new[r.head], tail=new[r.tail])
                                   for r in relations)
        doc._.kg_results = tuple(replace(r, **{f: moved(getattr(r, f)) for f in _RESULT_MENTIONS})
                                 for r in getattr(doc._, "kg_results", ()) or ())
        doc._.bounds = tuple(replace(b, subject_entity=moved(b.subject_entity)) for b in doc._.bounds)
        doc._.kg_mentions = tuple(mentions[i] for i in sorted(keep))
        return doc


_RESULT_MENTIONS = tuple(f.name for f in fields(Result) if f.name.endswith("_entity"))
"""The fields of a result that point at a mention (``method_entity``...)."""


def _one_label_per_name(mentions: list[tuple[int, str, str]]) -> dict[str, str]:
    """One label per name (acronym and long form together) in an abstract: the one most of its
    mentions got, ties to the earliest.  The recogniser decides each mention alone and sometimes
    calls a name a Problem once and a Method later; the guidelines give a name one type per abstract.

        >>> _one_label_per_name([(0, "Problem", "ilp"), (40, "Method", "ilp"), (90, "Method", "ilp")])
        {'ilp': 'Method'}
    """
    votes: dict[str, dict[str, list[int]]] = {}
    for start, label, key in mentions:
        votes.setdefault(key, {}).setdefault(label, []).append(start)
    return {key: max(by_label, key=lambda lab: (len(by_label[lab]), -min(by_label[lab]))) for key, by_label in votes.items()}


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """A span grown over the letters emphasis splits from its edge words, trimmed again."""
    grown = whole_words(text, start, end)
    return (start, end) if grown == (start, end) else trim_markup(text, *grown)


_GENERIC_HEAD = re.compile(r"\s+(?:method|approach|framework|strategy|module|mechanism|technique|algorithm|scheme|pipeline|paradigm|system|procedure|architecture)s?$", re.I)
"""A trailing word a long form may run to that the name drops when the words before it spell the
acronym ("Dual-View Feature Interaction module (DVFI)"), and keeps when capitalised ("Material Point Method")."""


def _aligned(abbreviations: list[Abbreviation], text: str, found: list[tuple[int, int, str, str]]) -> tuple[list[Abbreviation], list[tuple[int, int, str, str]]]:
    """Each long form and the recogniser's reading of it made one, so that the acronym joins the
    entity the recogniser found.  A recognised name that ends where the long form does and starts
    before it is the name ("Copeland Confidence Bound (CCB)": the letters stop at "Confidence");
    recognised pieces inside the long form give way to it ("Thinking-level" and "Direct Preference
    Optimization" to "Thinking-level Direct Preference Optimization (T-DPO)"), less a generic head.

        >>> t = "we use Thinking-level Direct Preference Optimization (T-DPO) here"
        >>> pairs, spans = _aligned([Abbreviation(7, 52, 54, 59, t[7:52], "T-DPO")], t, [(7, 21, "Method", "ner"), (22, 52, "Method", "ner")])
        >>> [t[s:e] for s, e, _, _ in spans]
        ['Thinking-level Direct Preference Optimization']
    """
    aligned = []
    for a in abbreviations:
        start, end = trim_markup(text, a.long_start, a.long_end)
        if end <= start:
            aligned.append(a)
            continue
        head = _GENERIC_HEAD.search(text[start:end])
        spelled = head and head.group().islower() and spells_in_order(a.short, text[start : start + head.start()])
        name_end = start + head.start() if spelled else end
        pieces = [f for f in found if f[0] < end and f[1] > start]
        if len(pieces) == 1 and pieces[0][0] < start and name_end <= pieces[0][1] <= end:
            start, name_end = pieces[0][:2]
        elif pieces and all(start <= f[0] and f[1] <= end for f in pieces):
            label = max(pieces, key=lambda f: f[1] - f[0])[2]
            found = sorted([f for f in found if f not in pieces] + [(start, name_end, label, "ner")])
        elif pieces:
            aligned.append(a)
            continue
        aligned.append(replace(a, long_start=start, long_end=name_end, long=text[start:name_end]))
    return aligned, found


def _with_abbreviations(abbreviations: list[Abbreviation], text: str, found: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """A defined acronym takes its long form's label and the long form its acronym's: both are mentions."""
    by_span = {(s, e): lab for s, e, lab, _ in found}
    extra = []
    for a in abbreviations:
        long_label = by_span.get((a.long_start, a.long_end))
        short_label = by_span.get((a.short_start, a.short_end))
        if long_label and not short_label:
            extra.append((a.short_start, a.short_end, long_label, "abbreviation"))
        elif short_label and not long_label:
            start, end = trim_markup(text, a.long_start, a.long_end)
            if end > start:
                extra.append((start, end, short_label, "abbreviation"))
    return without_overlaps(found, extra)


def _with_repeats(text: str, found: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """Every other occurrence of a recognised name, with the label it had (the first label seen)."""
    labels: dict[str, str] = {}
    for s, e, lab, _ in sorted(found):
        labels.setdefault(text[s:e], lab)
    extra = [(s, s + len(surface), lab, "repeat") for surface, lab in labels.items() for s in word_occurrences(text, surface)]
    return without_overlaps(found, extra)
