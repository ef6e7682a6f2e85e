"""The in-domain tagger: a small transformer that gives the recogniser's names a second reading.

MiniLM (6 layers, width 384), fine-tuned here on the annotated abstracts (``kg train indomain``),
labels each word piece B-/I-/O per type.  It runs under ONNX Runtime with 8-bit weights:
``tagger.onnx``, its word pieces ``tagger-pieces.json`` (the vocabulary cut to the pieces the corpus
uses) and ``tagger.json`` (labels, window, thresholds).  It reads a window of 256 pieces at once,
so a name's label can follow from a sentence far from it, where the recogniser's convolutional
encoder sees four words either side.  Alone it scores below the recogniser (dev exact F1 65 against
68); as a second reader it is right where the two differ often enough to pay: ``second_reading``
takes its label for a name both found when it is sure, and adds a name only it found when it is
sure, with the thresholds (one to relabel, one per type to add) chosen on dev.  Long abstracts are
read in overlapping windows; each piece takes its label from the window where it sits farthest
from an edge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import filter_spans, minibatch

MODEL_FILE = "tagger.onnx"
PIECES_FILE = "tagger-pieces.json"
SETTINGS_FILE = "tagger.json"


@dataclass(frozen=True)
class Tagged:
    """One recognised name: character offsets, label and the mean probability of its pieces' labels."""

    start: int
    end: int
    label: str
    probability: float


def windows(n: int, size: int, stride: int) -> list[tuple[int, int]]:
    """Piece ranges covering ``n`` pieces, ``size`` long, each ``stride`` after the last.

        >>> windows(5, 4, 2)
        [(0, 4), (2, 5)]
        >>> windows(3, 4, 2)
        [(0, 3)]
    """
    out, start = [], 0
    while True:
        out.append((start, min(n, start + size)))
        if start + size >= n:
            return out
        start += stride


def decode(offsets: list[tuple[int, int]], pieces: list[str], labels: list[str], probabilities: list[float]) -> list[Tagged]:
    """BIO labels of pieces -> names.  A word's later pieces ("##...") take its first piece's label, so
    a name never starts or ends inside a word; an I- that continues no name of its type starts one.

        >>> decode([(0, 3), (4, 7), (7, 9), (10, 12)], ["big", "res", "##et", "on"],
        ...        ["B-Model", "I-Model", "O", "O"], [0.9, 0.7, 0.5, 0.99])
        [Tagged(start=0, end=9, label='Model', probability=0.7)]
    """
    found: list[list] = []
    current = None
    word_label = "O"
    for (start, end), piece, label, p in zip(offsets, pieces, labels, probabilities):
        if piece.startswith("##"):
            label = "O" if word_label == "O" else "I-" + word_label.split("-", 1)[1]
        else:
            word_label = label
        if label == "O":
            current = None
            continue
        prefix, kind = label.split("-", 1)
        if prefix == "I" and current is not None and current[2] == kind:
            current[1] = end
            current[3].append(p)
        else:
            current = [start, end, kind, [p]]
            found.append(current)
    return [Tagged(s, e, k, round(float(np.mean(ps)), 4)) for s, e, k, ps in found]


class PieceTagger:
    """The ONNX model and its word pieces; ``tag`` turns texts into ``Tagged`` names."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        settings = json.loads((path / SETTINGS_FILE).read_text(encoding="utf-8"))
        self.labels: list[str] = settings["labels"]
        self.size, self.stride = settings["window"], settings["stride"]
        self.tokenizer = Tokenizer.from_file(str(path / PIECES_FILE))
        self.cls, self.sep = self.tokenizer.token_to_id("[CLS]"), self.tokenizer.token_to_id("[SEP]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads  # the build runs one process per core
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path / MODEL_FILE), options, providers=["CPUExecutionProvider"])

    def tag(self, texts: list[str]) -> list[list[Tagged]]:
        return [self._read(e) for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def _read(self, encoding) -> list[Tagged]:
        """Each window runs alone: 8-bit inference scales activations per tensor, so padding a
        window to a batch's longest would make an abstract's names depend on its batch."""
        if not encoding.ids:
            return []
        scores = np.zeros((len(encoding.ids), len(self.labels)), dtype=np.float32)
        centred = np.full(len(encoding.ids), -1)
        for a, b in windows(len(encoding.ids), self.size, self.stride):
            ids = np.array([[self.cls, *encoding.ids[a:b], self.sep]], dtype=np.int64)
            logits = self.session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
            for piece in range(a, b):
                margin = min(piece - a, b - 1 - piece)
                if margin > centred[piece]:
                    centred[piece] = margin
                    scores[piece] = logits[1 + piece - a]
        probs = np.exp(scores - scores.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        best = probs.argmax(axis=1)
        return decode(encoding.offsets, encoding.tokens, [self.labels[j] for j in best], [probs[n, j] for n, j in enumerate(best)])


def second_reading(names: list[tuple[int, int, str]], tagged: list[Tagged], relabel: float,
                   add: Mapping[str, float]) -> list[tuple[int, int, str]]:
    """The recogniser's names with the tagger's reading: a name the tagger also found, and labels
    with probability >= ``relabel``, takes its label; a name only the tagger found, with probability
    >= ``add`` of its label and overlapping none of the recogniser's, is added.  Each label has its
    own bar to add, chosen on dev: a type whose added names are seldom right there gets a higher one.

        >>> second_reading([(0, 4, "Method"), (10, 14, "Problem")],
        ...                [Tagged(0, 4, "Model", 0.95), Tagged(20, 25, "Dataset", 0.9), Tagged(11, 14, "Metric", 0.99),
        ...                 Tagged(30, 35, "Problem", 0.9)],
        ...                relabel=0.9, add={"Method": 0.8, "Model": 0.8, "Dataset": 0.8, "Metric": 0.8, "Problem": 0.95})
        [(0, 4, 'Model'), (10, 14, 'Problem'), (20, 25, 'Dataset')]
    """
    sure = {(t.start, t.end): t.label for t in tagged if t.probability >= relabel}
    out = [(s, e, sure.get((s, e), label)) for s, e, label in names]
    out += [(t.start, t.end, t.label) for t in tagged
            if t.probability >= add[t.label] and not any(s < t.end and t.start < e for s, e, _ in names)]
    return sorted(out)


def name_types(labels: Iterable[str]) -> list[str]:
    """The entity types of BIO piece labels, in their order.

        >>> name_types(["O", "B-Method", "I-Method", "B-Problem", "I-Problem"])
        ['Method', 'Problem']
    """
    return list(dict.fromkeys(label.split("-", 1)[1] for label in labels if label != "O"))


@Language.factory("kg_tagger", default_config={"path": None})
def make_tagger(nlp: Language, name: str, path: str) -> TaggerPipe:
    """spaCy factory: the tagger in the model folder ``path`` gives ``doc.ents`` its second reading."""
    return TaggerPipe(PieceTagger(Path(path)), **json.loads((Path(path) / SETTINGS_FILE).read_text(encoding="utf-8"))["thresholds"])


class TaggerPipe:
    """Rewrites ``doc.ents`` by ``second_reading`` (added names widened to token edges); batches
    abstracts under ``nlp.pipe``."""

    def __init__(self, tagger: PieceTagger, relabel: float, add: float | Mapping[str, float]) -> None:
        # ``add``: a bar per label, or one for all (a model trained before the bars were per label)
        self.tagger, self.relabel = tagger, relabel
        self.add = dict(add) if isinstance(add, Mapping) else dict.fromkeys(name_types(tagger.labels), add)

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 16) -> Iterator[Doc]:
        for batch in minibatch(docs, batch_size):
            for doc, tagged in zip(batch, self.tagger.tag([d.text for d in batch])):
                names = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
                merged = second_reading(names, tagged, self.relabel, self.add)
                spans = [doc.char_span(s, e, label=label, alignment_mode="expand") for s, e, label in merged]
                doc.ents = filter_spans([s for s in spans if s is not None])
                yield doc
