"""First-cut rule extractor: typed entity mentions and relations from the parse.

Entities come, in order of trust, from abbreviation long forms, the objects of "we propose",
the gazetteer (``patterns/gazetteer.jsonl``), name-like tokens and noun chunks whose head word
says what they are ("... network" is a Model, "... problem" a Problem).  Relations come from
cue words in the sentence that holds both ends.  Every mention and relation records the rule that
produced it and a confidence, so a trained component can be combined with or preferred over it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources

import srsly
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from kg.extractors.text import trim_markup
from kg.names import canonical
from kg.records import Mention, Relation

RULES_VERSION = "rules.v1"

MODEL_HEADS = frozenset(
    "network networks net nets transformer transformers model models llm llms lm lms architecture "
    "architectures encoder encoders decoder decoders autoencoder autoencoders gan gans vae vaes mlp mlps "
    "cnn cnns rnn rnns lstm lstms backbone backbones vlm vlms mllm mllms".split()
)
METHOD_HEADS = frozenset(
    "method methods algorithm algorithms framework frameworks approach approaches technique techniques "
    "scheme schemes procedure strategy strategies optimizer optimizers estimator estimators mechanism "
    "mechanisms objective loss regularization regularizer descent propagation sampling sampler decoding "
    "attention distillation training tuning fine-tuning finetuning inference search pruning quantization "
    "augmentation protocol pipeline paradigm module modules layer layers kernel kernels embedding "
    "embeddings policy optimization learning".split()
)
PROBLEM_HEADS = frozenset(
    "problem problems task tasks classification detection segmentation generation recognition translation "
    "prediction forecasting estimation retrieval reasoning planning clustering regression summarization "
    "localization tracking completion answering synthesis reconstruction editing captioning navigation "
    "ranking recommendation identification discovery imputation".split()
)
DATASET_HEADS = frozenset("dataset datasets benchmark benchmarks corpus corpora suite".split())
METRIC_HEADS = frozenset("accuracy perplexity precision recall f1 auc bleu rouge".split())
HEAD_LABELS = (
    (MODEL_HEADS, "Model"),
    (DATASET_HEADS, "Dataset"),
    (PROBLEM_HEADS, "Problem"),
    (METRIC_HEADS, "Metric"),
    (METHOD_HEADS, "Method"),
)
GENERIC_MODIFIERS = frozenset(
    "a an the this that these those our their its his her such several various different many most "
    "some any each every all both new novel proposed existing simple efficient effective standard "
    "popular recent prior previous current state-of-the-art general unified first two three "
    "other further same key main resulting powerful principled robust scalable fundamental significant "
    "indispensable analytical strong single only important challenging critical crucial major good better "
    "best great theoretical practical empirical specific particular common typical natural prominent "
    "promising remarkable substantial notable widespread solvable modern novel underlying overall "
    "traditional conventional classical original naive generic whole entire full complex simpler".split()
)
PROPOSE_VERBS = frozenset("propose introduce present develop design devise establish build construct".split())
OUTPERFORM_CUES = re.compile(r"\b(outperform\w*|surpass\w*|beat\w*|exceed\w*|improv\w* (?:up)?on|superior to|better than)\b", re.I)
EVAL_CUES = re.compile(r"\b(experiment\w*|evaluat\w*|benchmark\w*|tested|results on|empirical\w*)\b", re.I)
USE_CUES = re.compile(r"\b(us(?:e|es|ing)|leverag\w*|build\w* (?:up)?on|based on|employ\w*|adopt\w*|incorporat\w*)\b", re.I)
NAME_LIKE = re.compile(r"^(?=.*[A-Za-z])(?:[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[\w\-+]*|[A-Za-z]+-?\d[\w\-.]*|[a-z]+[A-Z]\w*)$")
NOT_NAMES = frozenset("AI ML NLP CV RL LLM LLMs GPU GPUs CPU API URL PDF ICLR ICML NeurIPS SOTA II III IV".split())
NAMED_DATASET = re.compile(
    r"^[A-Z][\w.+-]*(?:Bench|bench|BENCH|QA|MMLU|Eval|Arena|GLUE|Instruct|Gym)(?:[-_ ]?v?\d+(?:\.\d+)*)?\+?$"
)
"""One-word resource names with a benchmark suffix: MBPP+ is not, BigCodeBench, MetaMathQA, MathInstruct are."""

NAMED_MODEL = re.compile(
    r"\b\d+(?:\.\d+)?[BM]\b"  # a parameter count: GUI-Cursor 7B, Llama-3 70B
    r"|-R1\b|\b(?:GPT|LLaMA|Llama|Qwen|Claude|Gemini|Mistral|Mixtral|DeepSeek|Gemma|PaLM|Vicuna|LLaVA|InternVL"
    r"|RoBERTa|BERT|ViT|CLIP|YOLO\w*|DETR|RT-DETR|ResNet|ResNeXt|Whisper|OpenAI-o\d)(?:\b|[-\d])"
)
"""Names of released model families and checkpoints, which SciERC's older text calls Methods
(only for names whose every word is capitalised: "BERT-based reranking" stays a Method)."""


if not Doc.has_extension("kg_mentions"):
    Doc.set_extension("kg_mentions", default=())
if not Doc.has_extension("kg_relations"):
    Doc.set_extension("kg_relations", default=())


def label_by_head(head: str) -> str | None:
    """Entity label implied by a head word, if any."""
    low = head.lower()
    for heads, label in HEAD_LABELS:
        if low in heads:
            return label
    return None


@Language.factory("kg_rules", default_config={"gazetteer": None})
def make_rules(nlp: Language, name: str, gazetteer: str | None) -> RuleExtractor:
    """spaCy factory of the rule extractor; ``gazetteer`` overrides the packaged pattern file."""
    return RuleExtractor(nlp, gazetteer)


class RuleExtractor:
    """Sets ``doc._.kg_mentions`` and ``doc._.kg_relations`` from rules over the parse."""

    def __init__(self, nlp: Language, gazetteer: str | None = None) -> None:
        path = gazetteer or str(resources.files("kg.extractors") / "patterns" / "gazetteer.jsonl")
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        for row in srsly.read_jsonl(path):
            pattern = row["pattern"]
            matcher = self.lower if pattern.islower() else self.exact
            matcher.add(row["label"], [nlp.make_doc(pattern)])
        self.lemmatizer = nlp.get_pipe("lemmatizer") if "lemmatizer" in nlp.component_names else None

    def lemma(self, token) -> str:
        """The token's lemma, asked of the (possibly disabled) lemmatizer only for tokens we test."""
        if token.lemma_ or self.lemmatizer is None:
            return token.lemma_ or token.lower_
        return self.lemmatizer.lemmatize(token)[0]

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text  # Doc.text joins every token on each access: read it once
        mentions = _select(self._candidates(doc, text))
        doc._.kg_mentions = tuple(mentions)
        doc._.kg_relations = tuple(_relations(text, mentions))
        return doc

    def _candidates(self, doc: Doc, text: str) -> list[tuple[int, Mention]]:
        """(priority, mention) pairs; lower priority numbers win overlaps."""
        found: list[tuple[int, Mention]] = []
        for abbr in getattr(doc._, "abbreviations", ()):
            long_span = doc.char_span(abbr.long_start, abbr.long_end, alignment_mode="expand")
            if long_span is None:
                continue
            label = label_by_head(long_span[-1].text) or "Method"
            aliases = (abbr.long, abbr.short)
            name = canonical(abbr.long)
            found.append((0, _mention(doc, text, abbr.long_start, abbr.long_end, label, name, "abbreviation.long", 0.8, aliases)))
            found.append((0, _mention(doc, text, abbr.short_start, abbr.short_end, label, name, "abbreviation.short", 0.8, aliases)))
            for match in re.finditer(rf"(?<![\w-]){re.escape(abbr.short)}(?![\w-])", text):
                if match.start() != abbr.short_start:
                    found.append((1, _mention(doc, text, match.start(), match.end(), label, name, "abbreviation.reuse", 0.7, aliases)))
        for matcher in (self.exact, self.lower):
            for match_id, start, end in matcher(doc):
                span = doc[start:end]
                if _inside_word(text, span.start_char, span.end_char):
                    continue
                label = doc.vocab.strings[match_id]
                found.append((2, _mention(doc, text, span.start_char, span.end_char, label, canonical(span.text), "gazetteer", 0.9)))
        for token in doc:
            if token.pos_ == "VERB" and self.lemma(token).lower() in PROPOSE_VERBS:
                for obj in token.children:
                    if obj.dep_ in ("dobj", "obj"):
                        found.extend((1, m) for m in _proposed(doc, text, obj, self.lemma))
            if NAME_LIKE.match(token.text) and token.text not in NOT_NAMES and token.pos_ in ("PROPN", "NOUN", "ADJ", "VERB", "X"):
                nxt = token.nbor(1) if token.i + 1 < len(doc) else None
                label = label_by_head(nxt.text) if nxt is not None and nxt.dep_ != "punct" else None
                name = doc[slice(*whole_words(doc, token.i, token.i + 1))]
                label = label or ("Dataset" if NAMED_DATASET.match(name.text) else "Model" if NAMED_MODEL.search(name.text) else "Method")
                found.append((3, _mention(doc, text, name.start_char, name.end_char, label, canonical(name.text), "name", 0.5)))
        for chunk in doc.noun_chunks:
            trimmed = _trim(chunk)
            if trimmed is None:
                continue
            label = label_by_head(trimmed[-1].text)
            if label:
                found.append((4, _mention(doc, text, trimmed.start_char, trimmed.end_char, label, canonical(trimmed.text), "noun_chunk.head", 0.6)))
        return found


def whole_words(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Token range ``start:end`` widened to whole hyphenated words: spaCy splits "DriveAgent-R1" and
    "R-CNN" at the hyphen, and a name is the whole compound."""
    def attached(left: int, right: int) -> bool:  # tokens left, right touch and join a compound
        return not doc[left].whitespace_ and (doc[left].text == "-" or doc[right].text == "-" or
                                              (doc[left].text[-1].isalnum() and doc[right].text[0].isalnum()))
    while start > 0 and attached(start - 1, start):
        start -= 1
    while end < len(doc) and attached(end - 1, end):
        end += 1
    return start, end


def _inside_word(text: str, start: int, end: int) -> bool:
    """A match that is only the tail of a hyphenated name ("CNN" in "Faster R-CNN") or part of a longer word."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return before == "-" or before.isalnum() or after.isalnum()


def _mention(doc: Doc, text: str, start: int, end: int, label: str, name: str, rule: str, confidence: float, aliases: tuple[str, ...] = ()) -> Mention:
    trimmed = trim_markup(text, start, end)
    if trimmed != (start, end):
        start, end = trimmed
        name = name if aliases else canonical(text[start:end])
    sent = doc.char_span(start, end, alignment_mode="expand")
    sentence = sent.sent if sent is not None else doc[:]
    return Mention(
        start=start,
        end=end,
        text=text[start:end],
        label=label,
        canonical=name,
        sentence_start=sentence.start_char,
        sentence_end=sentence.end_char,
        rule=f"{RULES_VERSION}:{rule}",
        confidence=confidence,
        aliases=aliases,
    )


def _trim(span: Span) -> Span | None:
    """Drop determiners and generic modifiers; ``None`` when only a bare head word is left."""
    start = span.start
    while start < span.end and (span.doc[start].lower_ in GENERIC_MODIFIERS or span.doc[start].pos_ in ("DET", "PRON", "NUM", "PUNCT")):
        start += 1
    trimmed = span.doc[start : span.end]
    if len(trimmed) < 2 or len(trimmed) > 6 or any(c in trimmed.text for c in "$\\()[]{}=") or any(t.dep_ == "cc" for t in trimmed):
        return None
    if not any(t.is_alpha and len(t) > 2 for t in trimmed[:-1]):
        return None
    return trimmed


def _proposed(doc: Doc, text: str, obj, lemma: Callable) -> list[Mention]:
    """The thing a "we propose X" sentence names: an apposed or called-name, else the trimmed object chunk."""
    found = []
    for child in obj.subtree:
        if (child.dep_ == "appos" and (child.pos_ == "PROPN" or NAME_LIKE.match(child.text))) or (child.dep_ in ("oprd", "xcomp", "attr", "dobj") and lemma(child.head) in {"call", "name", "term", "dub"}):
            name = doc[child.left_edge.i : child.right_edge.i + 1] if child.dep_ != "appos" else doc[child.i : child.i + 1]
            label = label_by_head(obj.text) or "Method"
            found.append(_mention(doc, text, name.start_char, name.end_char, label, canonical(name.text), "propose.named", 0.8))
    chunk = next((c for c in doc.noun_chunks if c.root == obj), None)
    trimmed = _trim(chunk) if chunk is not None else None
    if trimmed is not None:
        label = label_by_head(trimmed[-1].text)
        if label in ("Method", "Model"):
            found.append(_mention(doc, text, trimmed.start_char, trimmed.end_char, label, canonical(trimmed.text), "propose.object", 0.7))
    return found


def _select(candidates: list[tuple[int, Mention]]) -> list[Mention]:
    """Keep the most trusted, then longest, of overlapping candidates; return in text order."""
    chosen: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for _, mention in sorted(candidates, key=lambda pm: (pm[0], -(pm[1].end - pm[1].start), pm[1].start)):
        if not mention.canonical or any(mention.start < e and s < mention.end for s, e in taken):
            continue
        chosen.append(mention)
        taken.append((mention.start, mention.end))
    return sorted(chosen, key=lambda m: (m.start, m.end))


def _relations(text: str, mentions: list[Mention]) -> list[Relation]:
    """Paper- and sentence-level relations from the mentions and cue words."""
    relations: list[Relation] = []
    proposed = [i for i, m in enumerate(mentions) if ":propose" in m.rule]
    proposed_names = {mentions[i].canonical for i in proposed}
    proposed += [i for i, m in enumerate(mentions) if m.canonical in proposed_names and i not in proposed]
    seen: set[tuple] = set()

    def add(head: int | None, tail: int, label: str, rule: str, confidence: float) -> None:
        key = (head if head is None else mentions[head].canonical, mentions[tail].canonical, label)
        if key in seen or (head is not None and mentions[head].canonical == mentions[tail].canonical):
            return
        seen.add(key)
        m = mentions[tail]
        relations.append(Relation(head, tail, label, m.sentence_start, m.sentence_end, f"{RULES_VERSION}:{rule}", confidence))

    for i in proposed:
        if mentions[i].label in ("Method", "Model"):
            add(None, i, "PROPOSES", "propose", 0.8)
    by_sentence: dict[tuple[int, int], list[int]] = {}
    for i, m in enumerate(mentions):
        by_sentence.setdefault((m.sentence_start, m.sentence_end), []).append(i)
    for (s, e), members in by_sentence.items():
        sentence = text[s:e]
        subjects = [i for i in members if i in proposed and mentions[i].label in ("Method", "Model")]
        problems = [i for i in members if mentions[i].label == "Problem"]
        for p in problems:
            add(None, p, "ADDRESSES", "sentence.problem", 0.5)
            for subj in subjects:
                add(subj, p, "ADDRESSES", "sentence.propose+problem", 0.6)
        if EVAL_CUES.search(sentence):
            for subj in subjects or [i for i in proposed if mentions[i].label in ("Method", "Model")][:1]:
                for d in (i for i in members if mentions[i].label == "Dataset"):
                    add(subj, d, "EVALUATED_ON", "sentence.evaluate", 0.6)
        cue = OUTPERFORM_CUES.search(sentence)
        if cue:
            cut = s + cue.start()
            left = [i for i in members if mentions[i].end <= cut and mentions[i].label in ("Method", "Model")]
            right = [i for i in members if mentions[i].start >= s + cue.end() and mentions[i].label in ("Method", "Model")]
            heads = [i for i in left if i in proposed] or left[-1:] or [i for i in proposed if mentions[i].label in ("Method", "Model")][:1]
            for h in heads:
                for t in right:
                    add(h, t, "OUTPERFORMS", "sentence.outperform", 0.6)
        cue = USE_CUES.search(sentence)
        if cue and subjects:
            for t in (i for i in members if mentions[i].start >= s + cue.end() and i not in subjects):
                if mentions[t].label in ("Method", "Model", "Concept", "Dataset"):
                    add(subjects[0], t, "USES", "sentence.use", 0.5)
        for i in members:
            if mentions[i].label == "Metric":
                for subj in subjects:
                    add(subj, i, "MEASURED_BY", "sentence.metric", 0.5)
    return relations
