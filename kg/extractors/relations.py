"""Trainable spaCy component that types relations between entity spans of one sentence.

Each ordered pair of entity spans in a sentence becomes one instance; a small thinc network
reads pooled token vectors of the head, the tail and the words between them (from the shared
``tok2vec`` through a listener, so relation loss also trains the encoder) plus the two entity
labels, direction and distance, and predicts one relation label or ``NONE``.

Predictions are stored on ``doc._.relations`` as ``(head_start, head_end, tail_start,
tail_end, label, score)`` token offsets; gold relations for training use the same attribute
(without the score) on the reference doc.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer, Relu, Softmax, chain
from thinc.types import Floats2d

NONE = "NONE"
DISTANCE_BUCKETS = (0, 1, 2, 4, 8, 16, 10_000)
"""Upper bounds of the token-gap buckets one-hot encoded for each pair."""

if not Doc.has_extension("relations"):
    Doc.set_extension("relations", default=None)

Pair = tuple[int, int, int, int, int, int]
"""head start, head end, tail start, tail end, head label id, tail label id."""


def _bucket(gap: int) -> int:
    return next(i for i, upper in enumerate(DISTANCE_BUCKETS) if gap <= upper)


def _pair_features(model: Model, inputs: list[tuple[Doc, numpy.ndarray]], is_train: bool):
    """Pool head, tail and between-span vectors per pair; backprop scatters into token vectors."""
    tok2vec = model.layers[0]
    n_ent = model.attrs["n_entity_labels"] + 1
    n_extra = 2 * n_ent + len(DISTANCE_BUCKETS) + 2
    docs = [doc for doc, _ in inputs]
    tokvecs, backprop_tok = tok2vec(docs, is_train)
    rows: list[numpy.ndarray] = []
    caches = []
    for X, pairs in zip(tokvecs, (p for _, p in inputs)):
        X = model.ops.to_numpy(X)
        width = X.shape[1]
        if len(pairs) == 0:
            caches.append(None)
            continue
        cum = numpy.vstack([numpy.zeros((1, width), dtype="f"), numpy.cumsum(X, axis=0)])
        hs, he, ts, te, hl, tl = (pairs[:, i] for i in range(6))
        bs = numpy.minimum(he, te)
        be = numpy.maximum(numpy.maximum(hs, ts), bs)
        ranges = [(hs, he), (ts, te), (bs, be)]
        means = []
        for s, e in ranges:
            n = numpy.maximum(e - s, 1).astype("f")[:, None]
            means.append((cum[e] - cum[s]) / n)
        h, t, b = means
        extra = numpy.zeros((len(pairs), n_extra), dtype="f")
        idx = numpy.arange(len(pairs))
        extra[idx, hl] = 1.0
        extra[idx, n_ent + tl] = 1.0
        gaps = be - bs
        extra[idx, 2 * n_ent + numpy.array([_bucket(int(g)) for g in gaps])] = 1.0
        extra[:, -2] = (hs < ts).astype("f")
        extra[:, -1] = ((hs < te) & (ts < he)).astype("f")  # nested or overlapping spans
        rows.append(numpy.hstack([h, t, b, h * t, extra]))
        caches.append((len(X), width, ranges, h, t))
    n_out = model.get_dim("nO")
    output = numpy.vstack(rows) if rows else numpy.zeros((0, n_out), dtype="f")

    def backprop(d_output: Floats2d) -> list:
        d_output = model.ops.to_numpy(d_output)
        d_tokvecs = []
        offset = 0
        for X, cache in zip(tokvecs, caches):
            if cache is None:
                d_tokvecs.append(model.ops.alloc2f(*X.shape))
                continue
            n_tok, width, ranges, h, t = cache
            n_pairs = len(h)
            d = d_output[offset : offset + n_pairs]
            offset += n_pairs
            d_h = d[:, :width] + d[:, 3 * width : 4 * width] * t
            d_t = d[:, width : 2 * width] + d[:, 3 * width : 4 * width] * h
            d_b = d[:, 2 * width : 3 * width]
            diff = numpy.zeros((n_tok + 1, width), dtype="f")
            for (s, e), g in zip(ranges, (d_h, d_t, d_b)):
                g = g / numpy.maximum(e - s, 1).astype("f")[:, None]
                g = g * (e > s)[:, None]
                numpy.add.at(diff, s, g)
                numpy.add.at(diff, e, -g)
            d_tokvecs.append(model.ops.asarray2f(numpy.cumsum(diff, axis=0)[:n_tok]))
        return backprop_tok(d_tokvecs)

    return model.ops.asarray2f(output), backprop


def _init_pair_features(model: Model, X=None, Y=None) -> None:
    tok2vec = model.layers[0]
    tok2vec.initialize(X=[doc for doc, _ in X] if X is not None else None)
    width = tok2vec.get_dim("nO")
    n_ent = model.attrs["n_entity_labels"] + 1
    model.set_dim("nO", 4 * width + 2 * n_ent + len(DISTANCE_BUCKETS) + 2)


@registry.architectures("kg.RelationClassifier.v1")
def build_relation_classifier(
    tok2vec: Model[list[Doc], list[Floats2d]],
    n_entity_labels: int = 6,
    hidden_width: int = 256,
    dropout: float = 0.2,
    nO: int | None = None,
) -> Model:
    """Pair features over a (listened) tok2vec, one ReLU layer and a softmax over labels + NONE."""
    pairs: Model = Model(
        "rel_pair_features",
        _pair_features,
        init=_init_pair_features,
        layers=[tok2vec],
        dims={"nO": None},
        attrs={"n_entity_labels": n_entity_labels},
    )
    return chain(pairs, Relu(nO=hidden_width, dropout=dropout), Softmax(nO=nO))


def _entity_spans(doc: Doc, spans_key: str) -> list[Span]:
    spans = doc.ents if spans_key == "ents" else doc.spans.get(spans_key, [])
    return sorted(spans, key=lambda s: (s.start, s.end))


def candidate_pairs(spans: list[Span], sent_ids: list[int]) -> list[tuple[Span, Span]]:
    """Ordered pairs of distinct spans that start in the same sentence (``sent_ids`` per span)."""
    return [
        (a, b)
        for i, a in enumerate(spans)
        for j, b in enumerate(spans)
        if i != j and sent_ids[i] == sent_ids[j]
    ]


class RelationExtractor(TrainablePipe):
    """Classify every same-sentence ordered entity pair into a relation label or NONE."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "relations",
        *,
        spans_key: str = "ents",
        gold_spans_key: str = "sc",
        threshold: float = 0.5,
    ) -> None:
        self.vocab = vocab
        self.model = model
        self.name = name
        self.cfg: dict[str, Any] = {
            "labels": [],
            "entity_labels": [],
            "spans_key": spans_key,
            "gold_spans_key": gold_spans_key,
            "threshold": threshold,
        }

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        if label in self.cfg["labels"]:
            return 0
        self.cfg["labels"].append(label)
        return 1

    def _label_id(self, label: str) -> int:
        labels = self.cfg["entity_labels"]
        return labels.index(label) + 1 if label in labels else 0

    def _pairs(self, doc: Doc, spans_key: str) -> list[tuple[Span, Span]]:
        spans = _entity_spans(doc, spans_key)
        if not spans:
            return []
        sent_of = {}
        for i, sent in enumerate(doc.sents):
            for k in range(sent.start, sent.end):
                sent_of[k] = i
        return candidate_pairs(spans, [sent_of[s.start] for s in spans])

    def _encode(self, pairs: list[tuple[Span, Span]]) -> numpy.ndarray:
        arr = numpy.array(
            [
                (h.start, h.end, t.start, t.end, self._label_id(h.label_), self._label_id(t.label_))
                for h, t in pairs
            ],
            dtype="i",
        )
        return arr.reshape((-1, 6))

    def predict(self, docs: Iterable[Doc]):
        docs = list(docs)
        pairs = [self._pairs(doc, self.cfg["spans_key"]) for doc in docs]
        if not any(pairs):
            return pairs, None
        scores = self.model.predict([(doc, self._encode(p)) for doc, p in zip(docs, pairs)])
        return pairs, self.model.ops.to_numpy(scores)

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Keep, per unordered pair, the direction and label with the highest non-NONE probability
        if it reaches the threshold (gold has one relation per pair in >99.8% of cases)."""
        pairs, scores = predictions
        offset = 0
        names = self.cfg["labels"]
        for doc, doc_pairs in zip(docs, pairs):
            best: dict[tuple, tuple] = {}
            for h, t in doc_pairs:
                row = scores[offset, 1:]
                offset += 1
                k = int(row.argmax())
                prob = float(row[k])
                key = tuple(sorted([(h.start, h.end), (t.start, t.end)]))
                if prob >= self.cfg["threshold"] and (key not in best or prob > best[key][-1]):
                    best[key] = (h.start, h.end, t.start, t.end, names[k], prob)
            doc._.relations = sorted(best.values())

    def _gold(self, examples: Iterable[Example]):
        inputs, truths = [], []
        names = [NONE, *self.cfg["labels"]]
        for eg in examples:
            ref = eg.reference
            pairs = self._pairs(ref, self.cfg["gold_spans_key"]) if len(ref) == len(eg.predicted) else []
            gold = {(r[0], r[1], r[2], r[3]): r[4] for r in (ref._.relations or [])}
            inputs.append((eg.predicted, self._encode(pairs)))
            for h, t in pairs:
                label = gold.get((h.start, h.end, t.start, t.end), NONE)
                truths.append(names.index(label) if label in names else 0)
        return inputs, numpy.array(truths, dtype="i")

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optimizer | None = None,
        losses: dict[str, float] | None = None,
    ) -> dict[str, float]:
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        inputs, truths = self._gold(list(examples))
        if len(truths) == 0:
            return losses
        scores, backprop = self.model.begin_update(inputs)
        scores = self.model.ops.to_numpy(scores)
        target = numpy.zeros_like(scores)
        target[numpy.arange(len(truths)), truths] = 1.0
        d_scores = scores - target
        backprop(self.model.ops.asarray2f(d_scores))
        if sgd is not None:
            self.finish_update(sgd)
        picked = scores[numpy.arange(len(truths)), truths]
        losses[self.name] += float(-numpy.log(numpy.maximum(picked, 1e-8)).sum())
        return losses

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Language | None = None) -> None:
        examples = list(get_examples())
        ent_labels, rel_labels = set(), set()
        for eg in examples:
            ent_labels.update(s.label_ for s in _entity_spans(eg.reference, self.cfg["gold_spans_key"]))
            rel_labels.update(r[4] for r in eg.reference._.relations or [])
        self.cfg["entity_labels"] = sorted(ent_labels)
        for label in sorted(rel_labels):
            self.add_label(label)
        self.model.layers[0].attrs["n_entity_labels"] = len(ent_labels)
        self.model.layers[-1].set_dim("nO", len(self.labels) + 1)
        inputs, truths = self._gold(examples[:10])
        sample_y = numpy.zeros((len(truths), len(self.labels) + 1), dtype="f")
        self.model.initialize(X=inputs, Y=self.model.ops.asarray2f(sample_y))

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, float]:
        """Micro P/R/F1 of predicted vs gold relations by exact token spans and label."""
        tp = n_pred = n_gold = 0
        for eg in examples:
            pred = {tuple(r[:5]) for r in eg.predicted._.relations or []}
            gold = {tuple(r[:5]) for r in eg.reference._.relations or []}
            tp += len(pred & gold)
            n_pred += len(pred)
            n_gold += len(gold)
        p = tp / n_pred if n_pred else 0.0
        r = tp / n_gold if n_gold else 0.0
        return {"rel_micro_p": p, "rel_micro_r": r, "rel_micro_f": 2 * p * r / (p + r) if p + r else 0.0}


@Language.factory(
    "kg_relations",
    default_config={"spans_key": "ents", "gold_spans_key": "sc", "threshold": 0.5},
    default_score_weights={"rel_micro_f": 1.0, "rel_micro_p": 0.0, "rel_micro_r": 0.0},
)
def make_relation_extractor(
    nlp: Language, name: str, model: Model, spans_key: str, gold_spans_key: str, threshold: float
) -> RelationExtractor:
    """spaCy factory ``kg_relations``: see :class:`RelationExtractor`."""
    return RelationExtractor(
        nlp.vocab, model, name, spans_key=spans_key, gold_spans_key=gold_spans_key, threshold=threshold
    )
