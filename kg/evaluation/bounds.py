"""Score ``find_bounds`` against bound gold exactly as ``score_bounds.py`` does.

Spans match one to one, greedily by best overlap first, when their overlap is at least half of
their union; notation, quantity and role are accuracies over matched pairs (case-insensitive string
equality); an improves_on link counts when both its ends match gold bounds linked the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kg.extractors.bounds import find_bounds
from kg.records import Bound

FIELDS = ("notation", "quantity", "role")


def _iou(a: tuple[int, int], b: tuple[int, int]) -> float:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def match_spans(pred: Sequence[dict], gold: Sequence[dict]) -> dict[int, int]:
    """Greedy one-to-one matching of predicted to gold spans (overlap >= half the union).

    Example:
        >>> match_spans([{"start": 0, "end": 10}], [{"start": 1, "end": 10}, {"start": 0, "end": 4}])
        {0: 0}
    """
    pairs = sorted(
        ((_iou((p["start"], p["end"]), (g["start"], g["end"])), i, j)
         for i, p in enumerate(pred) for j, g in enumerate(gold)),
        reverse=True,
    )
    used_p: set[int] = set()
    used_g: set[int] = set()
    matched: dict[int, int] = {}
    for score, i, j in pairs:
        if score < 0.5:
            break
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            matched[i] = j
    return matched


def _prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return {"p": round(p, 3), "r": round(r, 3), "f": round(2 * p * r / (p + r) if p + r else 0.0, 3)}


def score(predictions: dict[str, Sequence[dict]], gold: Iterable[dict]) -> dict[str, Any]:
    """Scores of predicted bounds (dicts keyed by abstract id) against gold documents."""
    tp = n_pred = n_gold = 0
    acc = {k: [0, 0] for k in FIELDS}
    link_tp = link_pred = link_gold = 0
    neg_fp = neg_docs = missing = 0
    for doc in gold:
        gb = doc["bounds"]
        if doc["id"] not in predictions:
            missing += 1
        pb = list(predictions.get(doc["id"], []))
        m = match_spans(pb, gb)
        tp += len(m)
        n_pred += len(pb)
        n_gold += len(gb)
        if not gb:
            neg_docs += 1
            neg_fp += len(pb)
        for i, j in m.items():
            for k in FIELDS:
                acc[k][1] += 1
                acc[k][0] += str(pb[i].get(k, "")).lower() == str(gb[j].get(k, "")).lower()
        glinks = {(j, gb[j]["improves_on"]) for j in range(len(gb)) if gb[j].get("improves_on") is not None}
        plinks = set()
        for i, p in enumerate(pb):
            t = p.get("improves_on")
            if t is not None and isinstance(t, int) and 0 <= t < len(pb):
                plinks.add((m.get(i, ("p", i)), m.get(t, ("p", t))))
        link_tp += len(plinks & glinks)
        link_pred += len(plinks)
        link_gold += len(glinks)
    return {
        "span": _prf(tp, n_pred, n_gold),
        "accuracy": {k: round(v[0] / v[1], 3) if v[1] else None for k, v in acc.items()},
        "improves_on": _prf(link_tp, link_pred, link_gold),
        "negatives": {"docs": neg_docs, "false_positives": neg_fp},
        "counts": {"gold": n_gold, "pred": n_pred, "matched": tp},
        "missing_docs": missing,
    }


def predict(gold: Iterable[dict], extract: Callable[[str], Sequence[Bound]] = find_bounds) -> dict[str, list[dict]]:
    """Run an extractor on every gold abstract; bounds as plain dicts, keyed by abstract id."""
    return {doc["id"]: [asdict(b) for b in extract(doc["abstract"])] for doc in gold}


def evaluate_bounds(gold_path: str | Path) -> dict[str, Any]:
    """Run ``find_bounds`` on the gold abstracts and score it like ``score_bounds.py``.

    Returns the scorer's dict plus ``errors``: missed gold spans and spurious predictions, so a
    report can show what went wrong.
    """
    gold = json.loads(Path(gold_path).read_text(encoding="utf-8"))
    predictions = predict(gold)
    result = score(predictions, gold)
    errors = []
    for doc in gold:
        pb, gb = predictions[doc["id"]], doc["bounds"]
        m = match_spans(pb, gb)
        errors += [{"id": doc["id"], "kind": "missed", "text": gb[j]["text"]} for j in range(len(gb)) if j not in m.values()]
        errors += [{"id": doc["id"], "kind": "spurious", "text": pb[i]["text"]} for i in range(len(pb)) if i not in m]
        for i, j in m.items():
            for k in FIELDS:
                if str(pb[i].get(k, "")).lower() != str(gb[j].get(k, "")).lower():
                    errors.append({"id": doc["id"], "kind": k, "text": gb[j]["text"],
                                   "predicted": pb[i].get(k), "gold": gb[j].get(k)})
    result["errors"] = errors
    return result


def write_predictions(predictions: dict[str, Sequence[dict]], path: str | Path) -> None:
    """Write predictions in ``kg extract --format jsonl`` shape (``{"id", "bounds"}`` per line)."""
    with Path(path).open("w", encoding="utf-8") as out:
        for doc_id, bounds in predictions.items():
            out.write(json.dumps({"id": doc_id, "bounds": list(bounds)}, sort_keys=True) + "\n")


def format_report(result: dict[str, Any]) -> str:
    """A plain-text table of the scores (and the first errors) for people.

    Example:
        >>> r = {"span": {"p": 1.0, "r": 0.5, "f": 0.667}, "accuracy": {"notation": 1.0, "quantity": None,
        ...      "role": 0.5}, "improves_on": {"p": 0.0, "r": 0.0, "f": 0.0},
        ...      "negatives": {"docs": 2, "false_positives": 0}, "counts": {"gold": 2, "pred": 1, "matched": 1}}
        >>> print(format_report(r).splitlines()[2])
        span         1.000      0.500   0.667
    """
    lines = [f"{'':12} {'precision':>9} {'recall':>9} {'F1':>7}", "-" * 40]
    for key in ("span", "improves_on"):
        s = result[key]
        lines.append(f"{key:12} {s['p']:>5.3f} {s['r']:>10.3f} {s['f']:>7.3f}")
    lines.append("")
    lines.append(f"{'accuracy on matched spans':28}")
    for key, value in result["accuracy"].items():
        lines.append(f"  {key:10} {'n/a' if value is None else f'{value:.3f}':>8}")
    counts, negatives = result["counts"], result["negatives"]
    lines.append("")
    lines.append(f"gold {counts['gold']}, predicted {counts['pred']}, matched {counts['matched']}; "
                 f"false positives on {negatives['docs']} negative abstracts: {negatives['false_positives']}")
    errors = result.get("errors", [])
    if errors:
        lines.append("")
        lines.append(f"errors ({len(errors)}):")
        for e in errors[:30]:
            extra = f" predicted {e['predicted']!r}, gold {e['gold']!r}" if "gold" in e else ""
            lines.append(f"  {e['id']} {e['kind']:9} {e['text'][:60]}{extra}")
    return "\n".join(lines)
