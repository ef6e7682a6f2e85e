"""Train the SciERC entity + relation pipeline in one reproducible command.

Converts the char-offset gold (``train.gold.jsonl``, ``dev.gold.jsonl``) to spaCy DocBin in a
work directory, trains ``training/scierc/config.cfg`` with a fixed seed (model selection on
dev), and copies the best pipeline into the output directory (by default the package data
``kg/models/scierc``) with its dev scores in ``dev_scores.json``.

Example:
    kg train scierc --data ../shared/eval/scierc
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.util import filter_spans

import kg.extractors.relations  # noqa: F401  (registers the kg_relations factory)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO / "training" / "scierc" / "config.cfg"
DEFAULT_OUTPUT = REPO / "kg" / "models" / "scierc"
SEED = 0
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def read_gold(path: Path, limit: int | None = None) -> list[dict]:
    """Gold abstracts of one split (``{"id", "abstract", "entities", "relations"}`` per line)."""
    with open(path, encoding="utf-8") as fh:
        docs = [json.loads(line) for line in fh if line.strip()]
    return docs[:limit] if limit else docs


def gold_to_docbin(docs: list[dict], lang: str = "en") -> tuple[DocBin, int]:
    """DocBin of reference docs: all entities in ``spans["sc"]``, non-overlapping ones in ``ents``,
    sentences from the sentencizer (as at prediction time) and relations on ``doc._.relations``.

    Returns the DocBin and the number of gold entities whose offsets do not fall on token
    boundaries (they are dropped, and reported).
    """
    nlp = spacy.blank(lang)
    sentencizer = nlp.add_pipe("sentencizer")
    db = DocBin(store_user_data=True)
    misaligned = 0
    for d in docs:
        doc = sentencizer(nlp.make_doc(d["abstract"]))
        spans = [doc.char_span(e["start"], e["end"], label=e["label"]) for e in d["entities"]]
        misaligned += sum(s is None for s in spans)
        doc.spans["sc"] = [s for s in spans if s is not None]
        doc.ents = filter_spans(doc.spans["sc"])
        doc._.relations = [
            [spans[r["head"]].start, spans[r["head"]].end, spans[r["tail"]].start, spans[r["tail"]].end, r["label"]]
            for r in d["relations"]
            if spans[r["head"]] is not None and spans[r["tail"]] is not None
        ]
        db.add(doc)
    return db, misaligned


def train(
    data_dir: Path,
    output: Path = DEFAULT_OUTPUT,
    config: Path = DEFAULT_CONFIG,
    *,
    limit: int | None = None,
    overrides: dict | None = None,
    work_dir: Path | None = None,
) -> dict:
    """Convert, train and install the pipeline into ``output``; return its dev scores."""
    from spacy.cli.train import train as spacy_train

    work = Path(work_dir or tempfile.mkdtemp(prefix="scierc-train-"))
    work.mkdir(parents=True, exist_ok=True)
    paths = {}
    for split in ("train", "dev"):
        gold = read_gold(data_dir / f"{split}.gold.jsonl", limit)
        db, misaligned = gold_to_docbin(gold)
        paths[split] = work / f"{split}.spacy"
        db.to_disk(paths[split])
        (work / f"{split}.gold.jsonl").write_text("".join(json.dumps(d) + "\n" for d in gold))
        print(f"{split}: {len(db)} docs, {misaligned} entities off token boundaries (dropped)")
    settings = {
        "paths.train": str(paths["train"]),
        "paths.dev": str(paths["dev"]),
        "system.seed": SEED,
        **(overrides or {}),
    }
    started = time.perf_counter()
    spacy_train(config, work / "out", overrides=settings, use_gpu=-1)
    seconds = time.perf_counter() - started
    return install(work / "out" / "model-best", output, work / "dev.gold.jsonl", seconds)


def install(trained: Path, output: Path, dev_gold: Path, seconds: float | None = None) -> dict:
    """Copy a trained pipeline to ``output``, tune its relation threshold on dev, record dev scores."""
    from kg.evaluation.scierc import evaluate_pipeline

    if output.exists():
        shutil.rmtree(output)
    shutil.copytree(trained, output)
    nlp = spacy.load(output)
    threshold = tune_threshold(nlp, dev_gold)
    nlp.to_disk(output)
    scores = evaluate_pipeline(spacy.load(output), dev_gold)
    record = {"split": "dev", "training_seconds": None if seconds is None else round(seconds, 1),
              "relation_threshold": threshold, "scores": scores}
    (output / "dev_scores.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def tune_threshold(nlp: spacy.language.Language, gold_path: Path, grid: tuple[float, ...] = THRESHOLDS) -> float:
    """Set the relation threshold to the grid value with the best dev Rel F1 and return it."""
    from kg.evaluation.scierc import prediction_record, score
    from kg.extractors.scierc import extract_scierc

    gold = read_gold(gold_path)
    relations = nlp.get_pipe("relations")
    relations.cfg["threshold"] = min(grid)
    results = extract_scierc([d["abstract"] for d in gold], nlp=nlp)

    def rel_f1(threshold: float) -> float:
        preds = [
            prediction_record(d["id"], ents, [r for r in rels if r.confidence >= threshold])
            for d, (ents, rels) in zip(gold, results)
        ]
        return score(preds, gold)["rel"]["f1"]

    best = max(grid, key=lambda t: (rel_f1(t), -abs(t - 0.5)))
    relations.cfg["threshold"] = best
    return best
