"""SciERC scoring, training and the shipped pipeline, checked against the shared scorer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from kg.evaluation.scierc import evaluate_scierc, format_report, predict, read_jsonl, score
from kg.extractors.scierc import extract_scierc, load_pipeline, schema_label, to_schema
from kg.records import Mention, Relation
from kg.training.scierc import gold_to_docbin, train

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "eval" / "scierc"  # ../shared beside the clone, as in CI
SCORER = DATA.parent / "score_scierc.py"
MODEL = ROOT / "kg" / "models" / "scierc"

TEXT = "We apply a convolutional network to image retrieval on ImageNet ."
GOLD = {
    "id": "fx1",
    "abstract": TEXT,
    "entities": [
        {"start": 11, "end": 32, "text": "convolutional network", "label": "Method"},
        {"start": 36, "end": 51, "text": "image retrieval", "label": "Task"},
        {"start": 55, "end": 63, "text": "ImageNet", "label": "Material"},
    ],
    "relations": [{"head": 0, "tail": 1, "label": "USED-FOR"}, {"head": 2, "tail": 1, "label": "EVALUATE-FOR"}],
}
GOLD2 = {"id": "fx2", "abstract": "Parsing .", "entities": [{"start": 0, "end": 7, "text": "Parsing", "label": "Task"}],
         "relations": []}
PARTIAL = {
    "id": "fx1",
    "entities": [
        {"start": 11, "end": 32, "label": "Method"},
        {"start": 36, "end": 51, "label": "Method"},  # right span, wrong type
        {"start": 55, "end": 63, "label": "Material"},
        {"start": 0, "end": 2, "label": "Generic"},
    ],
    "relations": [{"head": 0, "tail": 1, "label": "USED-FOR"}, {"head": 1, "tail": 2, "label": "COMPARE"}],
}


def shared_scorer(tmp_path: Path, predictions: list[dict], gold: list[dict]) -> dict:
    pred_path, gold_path = tmp_path / "pred.jsonl", tmp_path / "gold.jsonl"
    pred_path.write_text("".join(json.dumps(d) + "\n" for d in predictions))
    gold_path.write_text("".join(json.dumps(d) + "\n" for d in gold))
    out = subprocess.run([sys.executable, str(SCORER), str(pred_path), str(gold_path), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def same_as_shared(ours: dict, theirs: dict) -> None:
    for key in ("ent", "rel", "rel+", "per_type", "missing_docs"):
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize(
    ("predictions", "ent_f1", "rel_f1", "relp_f1"),
    [
        ([GOLD, GOLD2], 100.0, 100.0, 100.0),  # perfect
        ([], 0.0, 0.0, 0.0),  # empty: every document missing
        ([PARTIAL], 50.0, 50.0, 0.0),  # partial: 2 of 4 predicted entities, 1 of 2 relations (types wrong for Rel+)
    ],
)
def test_scierc_score_matches_shared_scorer(tmp_path, predictions, ent_f1, rel_f1, relp_f1):
    ours = score(predictions, [GOLD, GOLD2])
    same_as_shared(ours, shared_scorer(tmp_path, predictions, [GOLD, GOLD2]))
    assert (ours["ent"]["f1"], ours["rel"]["f1"], ours["rel+"]["f1"]) == (ent_f1, rel_f1, relp_f1)


def test_scierc_score_partial_per_type():
    s = score([PARTIAL], [GOLD, GOLD2])
    assert s["per_type_prf"]["Method"] == {"p": 50.0, "r": 100.0, "f1": 66.67, "tp": 1, "pred": 2, "gold": 1}
    assert s["per_type_prf"]["Task"]["r"] == 0.0 and s["missing_docs"] == 1
    assert "entities (micro)" in format_report(s)


def test_scierc_gold_to_docbin_keeps_spans_and_relations():
    db, misaligned = gold_to_docbin([GOLD])
    (doc,) = db.get_docs(spacy.blank("en").vocab)
    assert misaligned == 0
    assert [(s.text, s.label_) for s in doc.spans["sc"]] == [
        ("convolutional network", "Method"), ("image retrieval", "Task"), ("ImageNet", "Material")]
    assert [tuple(r) for r in doc._.relations] == [(3, 5, 6, 8, "USED-FOR"), (9, 10, 6, 8, "EVALUATE-FOR")]


def test_scierc_train_tiny_subset(tmp_path):
    record = train(DATA, tmp_path / "model", limit=3, work_dir=tmp_path / "work",
                   overrides={"training.max_steps": 4, "training.eval_frequency": 2})
    nlp = spacy.load(tmp_path / "model")
    assert nlp.pipe_names == ["sentencizer", "tok2vec", "ner", "relations"]
    assert set(nlp.get_pipe("relations").labels) <= {
        "USED-FOR", "FEATURE-OF", "HYPONYM-OF", "PART-OF", "COMPARE", "CONJUNCTION", "EVALUATE-FOR"}
    saved = json.loads((tmp_path / "model" / "dev_scores.json").read_text())
    assert saved == json.loads(json.dumps(record)) and 0.0 <= saved["scores"]["ent"]["f1"] <= 100.0
    ents, _ = extract_scierc([TEXT], nlp=nlp)[0]
    assert all(TEXT[m.start : m.end] == m.text for m in ents)


def test_scierc_shipped_model_reproduces_recorded_dev_score(tmp_path):
    recorded = json.loads((MODEL / "dev_scores.json").read_text())["scores"]
    nlp = load_pipeline()
    gold = read_jsonl(DATA / "dev.gold.jsonl")
    predictions = predict(nlp, read_jsonl(DATA / "dev.input.jsonl"))
    ours = score(predictions, gold)
    same_as_shared(ours, shared_scorer(tmp_path, predictions, gold))
    for key in ("ent", "rel", "rel+"):
        assert ours[key]["f1"] == pytest.approx(recorded[key]["f1"], abs=0.005)
    assert evaluate_scierc("dev", DATA, nlp=nlp)["ent"] == ours["ent"]


def test_scierc_extract_offsets_and_relation_indices():
    texts = [d["abstract"] for d in read_jsonl(DATA / "dev.input.jsonl")[:5]]
    for text, (ents, rels) in zip(texts, extract_scierc(texts)):
        assert ents and all(text[m.start : m.end] == m.text for m in ents)
        assert all(0 <= r.head < len(ents) and 0 <= r.tail < len(ents) and r.head != r.tail for r in rels)


def mention(text: str, label: str) -> Mention:
    return Mention(0, len(text), text, label, text.lower())


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        ("convolutional neural network", "Method", "Model"),
        ("BERT encoder", "Method", "Model"),
        ("beam search", "Method", "Method"),
        ("ImageNet", "Material", "Dataset"),
        ("parallel corpus", "Material", "Dataset"),
        ("images", "Material", "Concept"),
        ("machine translation", "Task", "Problem"),
        ("BLEU", "Metric", "Metric"),
        ("features", "OtherScientificTerm", "Concept"),
        ("approach", "Generic", None),
        ("differential handling network (DHNet)", "Method", "Model"),
        ("Large language models (LLMs)", "Task", "Model"),
        ("Vision-Language Models (VLMs)", "Method", "Model"),
        ("VBench-2.0 benchmark", "Method", "Dataset"),
        ("image deblurring", "Task", "Problem"),
        ("aligning language models", "Task", "Problem"),
        ("inference-time alignment of generative models", "Task", "Problem"),
    ],
)
def test_scierc_schema_label(text, label, expected):
    assert schema_label(mention(text, label)) == expected


def test_scierc_to_schema_drops_generic_and_reindexes():
    mentions = (mention("approach", "Generic"), mention("LSTM", "Method"), mention("tagging", "Task"))
    relations = (Relation(0, 2, "USED-FOR"), Relation(1, 2, "USED-FOR"))
    ents, rels = to_schema(mentions, relations)
    assert [(m.text, m.label) for m in ents] == [("LSTM", "Model"), ("tagging", "Problem")]
    assert rels == (Relation(0, 1, "USED-FOR"),)
