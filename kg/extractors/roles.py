"""Paper roles: what the paper does with each entity it names, as a trained classifier.

For every entity of an abstract (its mentions grouped by name, an acronym with its long form) a
logistic model per role decides whether the paper proposes it, addresses it, uses it, evaluates
on it or compares with it.  Features are the entity's label, where and how often it occurs, the
title, the words around each mention and in its sentences (cue phrases: "we propose",
"outperforms", "on the ... benchmark"), the words of its name, and how many abstracts of the
unlabelled corpus name it: a name a hundred papers use is seldom this paper's proposal.  Weights
and that count are made by ``kg train indomain`` and shipped beside the recogniser
(``roles.json.gz``); a role's probability is the confidence of the edge it becomes.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kg.extractors.text import as_written
from kg.records import Mention, Relation

ROLE_LABELS: dict[str, tuple[str, ...]] = {
    "proposes": ("Method", "Model", "Dataset"),
    "addresses": ("Problem",),
    "uses": ("Method", "Model"),
    "evaluated_on": ("Dataset",),
    "compared_with": ("Method", "Model"),
}
"""Each role and the entity labels it can hold (what the guidelines' paper facts range over)."""

ROLE_EDGES = {"proposes": "PROPOSES", "addresses": "ADDRESSES", "uses": "USES",
              "evaluated_on": "EVALUATED_ON", "compared_with": "COMPARED_WITH"}
"""The graph edge each role becomes: PROPOSES/ADDRESSES from the paper, the others from what it proposes."""

_WORD = re.compile(r"[a-z][a-z\-]*|\d+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$(\"“])|\n\s*\n")
_OUTPERFORM = re.compile(r"\b(outperform\w*|surpass\w*|beat\w*|exceed\w*|better than|superior to)\b", re.I)


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence offsets by punctuation: the same split at training and at extraction time."""
    bounds, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        bounds.append((start, m.start()))
        start = m.end()
    bounds.append((start, len(text)))
    return [(s, e) for s, e in bounds if e > s]


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity of an abstract: its label and the offsets of its mentions, the first being its name."""

    key: str
    label: str
    spans: tuple[tuple[int, int], ...]


def _bucket(n: int, edges: Sequence[int]) -> int:
    return next((i for i, e in enumerate(edges) if n <= e), len(edges))


_NAME_WORD = re.compile(r"[a-z0-9]+")
NAME_FEATURES = ("n:", "n_last:", "seen=")
"""The features of an entity's name itself (its words, how common it is), not of where it stands."""


def name_key(name: str) -> str:
    """A name as the corpus's abstracts per name are counted and looked up: its words, lower case.

        >>> name_key("GPT-4o (mini)")
        'gpt 4o mini'
    """
    return " ".join(_NAME_WORD.findall(name.lower()))


def seen_bucket(abstracts: int) -> int:
    """Abstracts naming a name, in powers of two; one or none alike, since a paper's own new name is
    counted once when it is in the corpus and not at all when it is not.

        >>> [seen_bucket(n) for n in (0, 1, 2, 3, 4, 100, 5000)]
        [0, 0, 1, 1, 2, 6, 7]
    """
    return 0 if abstracts <= 1 else min(int(math.log2(abstracts)), 7)


def features(text: str, title: str, entity: Entity, entities: Sequence[Entity], seen: Mapping[str, int]) -> list[str]:
    """The feature names of one entity (binary features; the model sums their weights); ``seen``:
    abstracts of the unlabelled corpus per ``name_key``."""
    sents = sentences(text)
    lab = entity.label
    f = [f"label={lab}", f"mentions={_bucket(len(entity.spans), (1, 2, 4))}|{lab}"]
    name = text[entity.spans[0][0] : entity.spans[0][1]]
    words = _WORD.findall(name.lower())
    f += [f"n:{w}|{lab}" for w in words]
    if words:
        f.append(f"n_last:{words[-1]}|{lab}")
    f.append(f"seen={seen_bucket(seen.get(name_key(name), 0))}|{lab}")
    surfaces = {text[s:e] for s, e in entity.spans}
    low_title = title.lower()
    if any(s.lower() in low_title for s in surfaces if len(s) > 1):
        f.append(f"in_title|{lab}")
        if any(low_title.startswith(s.lower()) for s in surfaces):
            f.append(f"title_starts|{lab}")
    if any(re.search(r"[A-Z].*[A-Z]|\d", s) for s in surfaces):
        f.append(f"name_like|{lab}")
    if len(entity.spans) > 1 and any(text[e : e + 2] == " (" for s, e in entity.spans):
        f.append(f"defined|{lab}")
    same_label = sorted((en for en in entities if en.label == lab), key=lambda en: en.spans[0][0])
    f.append(f"rank={min(same_label.index(entity), 3)}|{lab}")
    most = max(len(en.spans) for en in same_label)
    if len(entity.spans) == most:
        f.append(f"most_mentioned|{lab}")
    first = entity.spans[0][0]
    sent_index = next((i for i, (s, e) in enumerate(sents) if s <= first < e), 0)
    f.append(f"first_sent={_bucket(sent_index, (0, 1, 2))}|{lab}")
    f.append(f"first_pos={_bucket(int(4 * first / max(1, len(text))), (0, 1, 2))}|{lab}")
    for s, e in entity.spans:
        before = _WORD.findall(text[max(0, s - 60) : s].lower())[-4:]
        after = _WORD.findall(text[e : e + 40].lower())[:3]
        for w in before:
            f.append(f"b:{w}|{lab}")
        if before:
            f.append(f"b1:{before[-1]}|{lab}")
            f.append(f"b2:{' '.join(before[-2:])}|{lab}")
        for w in after:
            f.append(f"a:{w}|{lab}")
        if after:
            f.append(f"a1:{after[0]}|{lab}")
        ss, se = next(((a, b) for a, b in sents if a <= s < b), (0, len(text)))
        sentence = text[ss:se].lower()
        for w in set(_WORD.findall(sentence)):
            f.append(f"s:{w}|{lab}")
        if re.search(r"\b(we|this paper|this work)\b", sentence):
            f.append(f"s_we|{lab}")
        m = _OUTPERFORM.search(sentence)
        if m:
            f.append(f"{'after' if s - ss > m.start() else 'before'}_outperform|{lab}")
    return sorted(set(f))


class LinearHeads:
    """Logistic heads over binary feature names (weights per head), each with a threshold tuned on dev
    and a calibration (``scale``, ``shift`` of the score, fitted on dev predictions: the heads are
    trained on gold entities but run on recognised ones, which would make them overconfident).

    Used for the roles (one head per role) and for mention confidence (one head).
    """

    def __init__(self, weights: dict[str, dict[str, float]], bias: dict[str, float], thresholds: dict[str, float],
                 calibration: dict[str, tuple[float, float]] | None = None) -> None:
        self.weights, self.bias, self.thresholds = weights, bias, thresholds
        self.calibration = calibration or {}

    @classmethod
    def from_disk(cls, path: str | Path) -> LinearHeads:
        """Read the JSON ``to_disk`` wrote, gzip'd when the name ends in ``.gz``."""
        raw = Path(path).read_bytes()
        return cls.from_dict(json.loads(gzip.decompress(raw) if str(path).endswith(".gz") else raw))

    @classmethod
    def from_dict(cls, data: dict) -> LinearHeads:
        calibration = {h: (float(a), float(b)) for h, (a, b) in data.get("calibration", {}).items()}
        return cls(data["weights"], data["bias"], data["thresholds"], calibration)

    def to_dict(self) -> dict:
        return {"weights": self.weights, "bias": self.bias, "thresholds": self.thresholds,
                "calibration": {h: list(ab) for h, ab in self.calibration.items()}}

    def to_disk(self, path: str | Path) -> None:
        """JSON, gzip'd (with no time stamp, so the same heads give the same bytes) for a ``.gz`` name."""
        raw = (json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")
        Path(path).write_bytes(gzip.compress(raw, mtime=0) if str(path).endswith(".gz") else raw)

    def score(self, head: str, feats: Sequence[str]) -> float:
        """The head's raw score (log-odds before calibration)."""
        w = self.weights[head]
        return self.bias[head] + sum(w.get(x, 0.0) for x in feats)

    def probability(self, head: str, feats: Sequence[str]) -> float:
        scale, shift = self.calibration.get(head, (1.0, 0.0))
        z = scale * self.score(head, feats) + shift
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


class RoleHeads(LinearHeads):
    """The role heads (one per role) and ``seen``, the abstracts of the unlabelled corpus per name
    (``name_key``, names counted in two or more) that their ``seen=`` features read."""

    def __init__(self, weights: dict[str, dict[str, float]], bias: dict[str, float], thresholds: dict[str, float],
                 calibration: dict[str, tuple[float, float]] | None = None, seen: dict[str, int] | None = None) -> None:
        super().__init__(weights, bias, thresholds, calibration)
        self.seen = seen or {}

    @classmethod
    def from_dict(cls, data: dict) -> RoleHeads:
        heads = super().from_dict(data)
        heads.seen = data["seen"]
        return heads

    def to_dict(self) -> dict:
        return super().to_dict() | {"seen": self.seen}

    def role_probabilities(self, feats: Sequence[str], label: str) -> dict[str, float]:
        """Each role's probability for an entity of ``label`` (roles it cannot hold are left out)."""
        return {role: self.probability(role, feats) for role, labels in ROLE_LABELS.items() if label in labels}


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def group_mentions(mentions: Sequence[Mention]) -> list[tuple[Entity, list[int]]]:
    """Mentions grouped into entities by resolution key (an acronym joins its long form's group).

    The group's first span is its name: the long form where the abstract spells one out.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for i, m in enumerate(mentions):
        key = m.canonical
        groups.setdefault((key, m.label), []).append(i)
    out = []
    for (key, label), idx in groups.items():
        named = sorted(idx, key=lambda i: (bool(mentions[i].aliases) and mentions[i].text == mentions[i].aliases[-1], mentions[i].start))
        spans = tuple((mentions[i].start, mentions[i].end) for i in named)
        out.append((Entity(key, label, spans), named))
    return sorted(out, key=lambda g: g[0].spans[0][0])


@Language.factory("kg_roles", default_config={"path": None})
def make_roles(nlp: Language, name: str, path: str | None) -> RoleClassifier:
    """spaCy factory: the paper-role classifier with its heads from ``path`` (``roles.json.gz``)."""
    return RoleClassifier(RoleHeads.from_disk(path))


class RoleClassifier:
    """Adds the paper's role edges for the mentions in ``doc._.kg_mentions`` to ``doc._.kg_relations``.

    PROPOSES and ADDRESSES come from the paper; USES, EVALUATED_ON and COMPARED_WITH from the
    entity it most surely proposes; when none passes as proposed, or that entity is their tail (a
    benchmark the paper introduces and evaluates on), from the method or model likeliest the paper's
    own (an evaluation's model, an analysis's subject), so that the graph still says what was
    evaluated on what; from the paper only when the abstract names no other.  A comparison is
    OUTPERFORMS when the sentence of a mention written like the baseline's first one says the
    proposal does better (that mention and sentence are then the evidence); a sentence with only the
    acronym is not read, since the edge would then be named by the acronym.  An entity is proposed
    (new) or used (existing), never both: where both heads pass, the one further above its threshold stays.
    ``doc.user_data["title"]`` is read when the caller sets it.
    """

    def __init__(self, model: RoleHeads) -> None:
        self.model = model

    def __call__(self, doc: Doc) -> Doc:
        # the text and names as written, as the heads learnt them from the gold and the records
        text, title = doc.user_data.get("text", doc.text), doc.user_data.get("title", "")
        mentions = [as_written(m, text) for m in doc._.kg_mentions]
        grouped = group_mentions(mentions)
        entities = [g for g, _ in grouped]
        decided: list[tuple[str, list[int], float]] = []
        proposed: tuple[int, float] | None = None  # the mention and probability of the entity most surely proposed
        likely: list[tuple[float, int]] = []  # (proposes probability, mention) of each method and model
        for entity, idx in grouped:
            probs = self.model.role_probabilities(features(text, title, entity, entities, self.model.seen), entity.label)
            if entity.label in ("Method", "Model"):
                likely.append((probs["proposes"], idx[0]))
            roles = {role: p for role, p in probs.items() if p >= self.model.thresholds[role]}
            if "proposes" in roles and (proposed is None or roles["proposes"] > proposed[1]):
                proposed = (idx[0], roles["proposes"])
            if "proposes" in roles and "uses" in roles:  # new or existing, not both: the surer one stays
                del roles[min(("proposes", "uses"), key=lambda r: _logit(roles[r]) - _logit(self.model.thresholds[r]))]
            decided += [(role, idx, p) for role, p in roles.items()]
        relations = list(doc._.kg_relations)
        likely.sort(key=lambda x: (-x[0], x[1]))
        for role, idx, p in decided:
            tail = idx[0]
            if role in ("proposes", "addresses"):
                head = None
            elif proposed is not None and proposed[0] != tail:
                head = proposed[0]
            else:  # nothing passes as proposed, or this is the proposal itself (a benchmark evaluated on)
                head = next((i for _, i in likely if i != tail), None)
            label = ROLE_EDGES[role]
            if role == "compared_with":  # beaten where a sentence spelling its name says so (not its acronym's)
                beaten = next((i for i in idx if mentions[i].text == mentions[tail].text
                               and _OUTPERFORM.search(text[mentions[i].sentence_start : mentions[i].sentence_end])), None)
                if beaten is not None:
                    tail, label = beaten, "OUTPERFORMS"
            m = mentions[tail]
            relations.append(Relation(head, tail, label, m.sentence_start, m.sentence_end, "roles.v1", round(p, 3)))
        doc._.kg_relations = tuple(relations)
        return doc


def entities_from_gold(text: str, gold_entities: Sequence[dict], key) -> list[tuple[Entity, str]]:
    """Entities of a gold abstract grouped by canonical name, with the canonical each stands for."""
    by_name: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for e in gold_entities:
        by_name.setdefault((e["canonical"], e["label"]), []).append((e["start"], e["end"]))
    out = []
    for (name, label), spans in by_name.items():
        long_first = sorted(spans, key=lambda s: (text[s[0]:s[1]].isupper() and len(spans) > 1, s[0]))
        out.append((Entity(key(name), label, tuple(long_first)), name))
    return sorted(out, key=lambda g: g[0].spans[0][0])

