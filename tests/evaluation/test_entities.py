"""Entity, paper-fact and result scores: hand-made cases, and the same numbers as the shared scorers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kg.evaluation.entities import names_match, score_entities, score_paper_facts
from kg.evaluation.results import score_results

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"

GOLD = {
    "id": "g1",
    "abstract": "We propose FlowNet, a network for optical flow on Sintel, and beat PWC-Net in EPE.",
    "entities": [
        {"start": 11, "end": 18, "text": "FlowNet", "label": "Model", "canonical": "FlowNet"},
        {"start": 34, "end": 46, "text": "optical flow", "label": "Problem", "canonical": "optical flow"},
        {"start": 50, "end": 56, "text": "Sintel", "label": "Dataset", "canonical": "Sintel"},
        {"start": 67, "end": 74, "text": "PWC-Net", "label": "Model", "canonical": "PWC-Net"},
        {"start": 78, "end": 81, "text": "EPE", "label": "Metric", "canonical": "EPE"},
    ],
    "paper": {"proposes": ["FlowNet"], "addresses": ["optical flow"], "uses": [], "evaluated_on": ["Sintel"],
              "compared_with": ["PWC-Net"]},
}


def _pred(entities, paper_relations=(), relations=()):
    return {"id": "g1", "entities": entities, "paper_relations": list(paper_relations), "relations": list(relations)}


def test_gold_fixture_offsets() -> None:
    assert all(GOLD["abstract"][e["start"] : e["end"]] == e["text"] for e in GOLD["entities"])


def test_perfect_prediction_scores_100() -> None:
    facts = _pred(GOLD["entities"], [{"tail": 0, "label": "PROPOSES"}, {"tail": 1, "label": "ADDRESSES"}],
                  [{"head": 0, "tail": 2, "label": "EVALUATED_ON"}, {"head": 0, "tail": 3, "label": "OUTPERFORMS"}])
    e = score_entities([facts], [GOLD])
    assert (e["exact"]["f1"], e["partial"]["f1"], e["untyped"]["f1"], e["merged"]["f1"]) == (100.0, 100.0, 100.0, 100.0)
    f = score_paper_facts([facts], [GOLD])
    assert [f[k]["f1"] for k in ("proposes", "addresses", "evaluated_on", "compared_with")] == [100.0] * 4
    assert f["uses"] == {"p": 0.0, "r": 0.0, "f1": 0.0, "tp": 0, "pred": 0, "gold": 0}


def test_empty_prediction_scores_0_and_counts_the_missing_document() -> None:
    e = score_entities([], [GOLD])
    assert e["exact"]["f1"] == 0.0 and e["exact"]["gold"] == 5 and e["missing_docs"] == 1
    assert score_paper_facts([], [GOLD])["proposes"]["r"] == 0.0


def test_partial_prediction() -> None:
    ents = [
        {"start": 11, "end": 18, "label": "Method"},      # right span, Method for a Model: merged counts it
        {"start": 20, "end": 46, "label": "Problem"},     # "a network for optical flow": overlap 12/26, no partial match
        {"start": 42, "end": 46, "label": "Problem"},     # "flow": 4/12 of the gold span, no partial match
        {"start": 50, "end": 56, "label": "Dataset"},     # exact
        {"start": 67, "end": 73, "label": "Model"},       # "PWC-Ne": partial (6/7)
    ]
    e = score_entities([_pred(ents)], [GOLD])
    assert e["exact"]["tp"] == 1 and e["exact"]["pred"] == 5
    assert e["partial"]["tp"] == 2  # Sintel and PWC-Ne (FlowNet has the wrong label)
    assert e["untyped"]["tp"] == 2 and e["merged"]["tp"] == 2
    assert e["exact"]["per_type"]["Dataset"]["f1"] == 100.0 and e["exact"]["per_type"]["Model"]["f1"] == 0.0
    assert e["untyped"]["per_type"]["Model"]["r"] == 50.0  # FlowNet found (as a Method), PWC-Net not


def test_names_match_loosely_as_the_shared_scorer() -> None:
    assert names_match("Low-Rank Adaptations", "low-rank adaptation")
    assert names_match("graph neural network", "GNN graph neural networks")
    assert not names_match("BERT", "RoBERTa") and not names_match("", "x")


def _shared(script: str, pred: Path, gold: Path) -> dict:
    out = subprocess.run([sys.executable, str(EVAL / script), str(pred), str(gold), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _perturbed(gold: list[dict]) -> list[dict]:
    """A prediction that is right, wrong and missing in many ways: every third mention dropped,
    every fifth shortened, every seventh relabelled; facts from every other gold fact."""
    out = []
    for n, g in enumerate(gold):
        ents = []
        for i, e in enumerate(g["entities"]):
            if i % 3 == 2:
                continue
            e = dict(e)
            if i % 5 == 4 and e["end"] - e["start"] > 2:
                e["end"] -= 1
            if i % 7 == 6:
                e["label"] = "Method" if e["label"] != "Method" else "Problem"
            ents.append(e)
        names = [{"text": name, "label": "Concept", "start": 0, "end": 0} for k in ("proposes", "addresses", "uses") for name in g["paper"][k][::2]]
        ents_with_names = ents + names
        base = len(ents)
        paper, rels, i = [], [], base
        for k, label in (("proposes", "PROPOSES"), ("addresses", "ADDRESSES"), ("uses", "USES")):
            for _ in g["paper"][k][::2]:
                (paper if label != "USES" else rels).append({"tail": i, "label": label} if label != "USES" else {"head": 0, "tail": i, "label": label})
                i += 1
        if n % 4 == 0:
            continue  # a missing document
        out.append({"id": g["id"], "entities": ents_with_names, "paper_relations": paper, "relations": rels})
    return out


def test_same_numbers_as_the_shared_entity_and_fact_scorers(tmp_path: Path) -> None:
    gold_path = EVAL / "entities-dev.json"
    gold = json.loads(gold_path.read_text())
    pred = _perturbed(gold)
    pred_path = tmp_path / "pred.jsonl"
    pred_path.write_text("".join(json.dumps(p) + "\n" for p in pred))
    ours, theirs = score_entities(pred, gold), _shared("score_entities.py", pred_path, gold_path)
    assert 0 < ours["exact"]["f1"] < 100
    assert {k: ours[k]["f1"] for k in ("exact", "partial", "untyped", "merged")} == {k: theirs[k] for k in ("exact", "partial", "untyped", "merged")}
    assert {t: v["f1"] for t, v in ours["exact"]["per_type"].items()} == theirs["per_type_exact"]
    assert ours["missing_docs"] == theirs["missing_docs"] > 0
    facts, shared_facts = score_paper_facts(pred, gold), _shared("score_paper_facts.py", pred_path, gold_path)
    assert {k: {x: v[x] for x in ("p", "r", "f1", "pred", "gold")} for k, v in facts.items()} == shared_facts


def test_same_numbers_as_the_shared_results_scorer(tmp_path: Path) -> None:
    gold_path = EVAL / "results-dev.json"
    gold = json.loads(gold_path.read_text())
    pred = []
    for n, g in enumerate(gold):
        rows = []
        for i, r in enumerate(g["results"]):
            r = dict(r)
            if i % 3 == 1:
                r["low"] = r["high"] = float(r["low"]) + 1
            if i % 4 == 2:
                r["method"] = None
            if i % 5 != 4:
                rows.append(r)
        if n % 6:
            pred.append({"id": g["id"], "results": rows})
    pred_path = tmp_path / "pred.jsonl"
    pred_path.write_text("".join(json.dumps(p) + "\n" for p in pred))
    ours, theirs = score_results(pred, gold), _shared("score_results.py", pred_path, gold_path)
    assert 0 < ours["tuple_f1"] < ours["detect_f1"] < 100
    assert ours == theirs


@pytest.mark.parametrize("gold_value,pred_value,same", [(["LoRA", "low-rank adaptation"], "low-rank adaptation", True),
                                                        ([None, "x"], None, True), (None, "x", False)])
def test_result_name_fields_accept_listed_alternatives(gold_value, pred_value, same) -> None:
    g = {"id": "a", "results": [{"start": 0, "end": 2, "low": 1, "high": 1, "kind": "score", "method": gold_value}]}
    p = {"id": "a", "results": [{"start": 1, "end": 3, "low": 1, "high": 1, "kind": "score", "method": pred_value}]}
    assert score_results([p], [g])["on_matched"]["method"] == (100.0 if same else 0.0)


def test_kg_eval_results_equals_the_shared_scorer_on_the_extractor_output(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kg.cli import cli

    gold = json.loads((EVAL / "results-dev.json").read_text())[:8]
    gold_path = tmp_path / "gold.json"
    gold_path.write_text(json.dumps(gold))
    runner = CliRunner()
    ours = json.loads(runner.invoke(cli, ["eval", "results", "--gold", str(gold_path), "--json"]).stdout)
    extracted = runner.invoke(cli, ["extract", str(_as_input(gold, tmp_path))])
    pred_path = tmp_path / "pred.jsonl"
    pred_path.write_text(extracted.stdout)
    theirs = _shared("score_results.py", pred_path, gold_path)
    assert {k: v for k, v in ours.items() if k not in ("abstracts", "extractor")} == theirs
    assert ours["abstracts"] == 8 and ours["gold"] == sum(len(g["results"]) for g in gold) and ours["matched"] > 0


def _as_input(gold: list[dict], tmp_path: Path) -> Path:
    path = tmp_path / "abstracts.jsonl"
    path.write_text("".join(json.dumps({"id": g["id"], "title": g.get("title", ""), "abstract": g["abstract"]}) + "\n" for g in gold))
    return path
