"""Bound evaluation: the seed targets, and equality with the shared scorer ``score_bounds.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from kg.evaluation.bounds import evaluate_bounds, format_report, match_spans, predict, score, write_predictions
from kg.extractors.bounds import find_bounds

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"  # ../shared beside the clone, as in CI
GOLD = EVAL / "bounds-seeds.json"
SCORER = EVAL / "score_bounds.py"


def shared_scorer(pred_path: Path, gold_path: Path) -> dict:
    done = subprocess.run([sys.executable, str(SCORER), str(pred_path), str(gold_path), "--json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_evaluation_bounds_seed_targets() -> None:
    result = evaluate_bounds(GOLD)
    assert result["span"]["f"] == 1.0
    assert result["accuracy"]["notation"] == 1.0
    assert result["accuracy"]["quantity"] >= 0.95
    assert result["improves_on"]["f"] >= 0.9
    assert result["negatives"]["false_positives"] == 0
    report = format_report(result)
    assert "span         1.000      1.000   1.000" in report
    assert "notation      1.000" in report


def test_evaluation_bounds_equals_shared_scorer(tmp_path: Path) -> None:
    gold = json.loads(GOLD.read_text(encoding="utf-8"))
    predictions = predict(gold)
    # Damage the predictions so every part of the score is exercised: a missing document, a missed
    # span, a shifted span, a spurious one, wrong fields and a wrong link.
    ids = [d["id"] for d in gold if d["bounds"]]
    del predictions[ids[0]]
    predictions[ids[1]] = predictions[ids[1]][1:]
    shifted = dict(predictions[ids[2]][0], start=predictions[ids[2]][0]["start"] + 3)
    predictions[ids[2]] = [shifted, *predictions[ids[2]][1:]]
    predictions[ids[3]] = [dict(b, notation="Theta", quantity="time", role="prior") for b in predictions[ids[3]]]
    negative = next(d for d in gold if not d["bounds"])
    predictions[negative["id"]] = [asdict(find_bounds("It runs in $O(n)$ time.")[0])]
    linked = next(i for i in ids[4:] if len(predictions[i]) > 1)
    predictions[linked] = [dict(b, improves_on=(k + 1) % len(predictions[linked])) for k, b in enumerate(predictions[linked])]
    path = tmp_path / "pred.jsonl"
    write_predictions(predictions, path)
    ours = score(predictions, gold)
    theirs = shared_scorer(path, GOLD)
    assert ours["span"] == theirs["span"]
    assert ours["accuracy"] == theirs["accuracy"]
    assert ours["improves_on"] == theirs["improves_on"]
    assert ours["negatives"] == theirs["negatives"] == {"docs": 27, "false_positives": 1}
    assert ours["counts"] == theirs["counts"]
    assert ours["missing_docs"] == theirs["missing_docs"] == 1
    assert ours["span"]["f"] < 1.0 and ours["accuracy"]["role"] < 1.0


def test_evaluation_bounds_matching_is_one_to_one() -> None:
    pred = [{"start": 0, "end": 10}, {"start": 0, "end": 9}]
    gold = [{"start": 0, "end": 10}, {"start": 20, "end": 30}]
    assert match_spans(pred, gold) == {0: 0}
    assert match_spans([{"start": 0, "end": 4}], [{"start": 0, "end": 9}]) == {}
