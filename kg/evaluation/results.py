"""Result records scored by the rules of ``../shared/eval/score_results.py`` (tests hold the numbers equal).

A predicted record matches a gold one when their value spans overlap (one to one, largest overlap
first).  On matched pairs: the number (low and high within 0.5 % relative), kind, direction and the
names method / baseline / metric / dataset (loose name match; null matches only null; a gold field
may list accepted alternatives).  A tuple is right when matched with its number, method, metric and
dataset all right.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kg.evaluation.entities import names_match

NAME_FIELDS = ("method", "baseline", "metric", "dataset")


def same_number(p: dict, g: dict) -> bool:
    try:
        return all(abs(float(p[k]) - float(g[k])) <= 0.005 * max(1.0, abs(float(g[k]))) for k in ("low", "high"))
    except (KeyError, TypeError, ValueError):
        return False


def same_name(p, g) -> bool:
    """``g`` may be a list of accepted alternatives; ``None`` in it accepts a null prediction."""
    if isinstance(g, list):
        return any(same_name(p, x) for x in g)
    if not p or not g:
        return not p and not g
    return names_match(str(p), str(g))


def matched_pairs(predicted: Sequence[tuple[int, int]], gold: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """(predicted, gold) index pairs of value spans that overlap, one to one, largest overlap first.

    Example:
        >>> matched_pairs([(0, 4), (10, 14)], [(2, 6), (11, 12), (30, 33)])
        [(0, 0), (1, 1)]
    """
    pairs = sorted(((min(p[1], g[1]) - max(p[0], g[0]), i, j) for i, p in enumerate(predicted) for j, g in enumerate(gold)),
                   reverse=True)
    used_p, used_g, out = set(), set(), []
    for overlap, i, j in pairs:
        if overlap <= 0:
            break
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            out.append((i, j))
    return out


def _f1(t: int, p: int, g: int) -> float:
    return round(200 * t / (p + g), 1) if p + g else 0.0


def score_results(predictions: Iterable[dict], gold: Iterable[dict]) -> dict:
    """Detection P/R/F1, tuple F1 and per-field accuracy on matched records (percent, one decimal).

    Example:
        >>> g = {"id": "a", "results": [{"start": 0, "end": 3, "low": 1, "high": 1, "kind": "score"}]}
        >>> score_results([g], [g])["detect_f1"], score_results([], [g])["detect_f1"]
        (100.0, 0.0)
    """
    pred = {d["id"]: d.get("results", []) for d in predictions}
    gold = {d["id"]: d.get("results", []) for d in gold}
    n_pred = n_gold = n_match = n_tuple = 0
    right = {k: 0 for k in ("number", "kind", "direction") + NAME_FIELDS}
    for pid, G in gold.items():
        P = pred.get(pid, [])
        n_pred += len(P)
        n_gold += len(G)
        for i, j in matched_pairs([(p["start"], p["end"]) for p in P], [(g["start"], g["end"]) for g in G]):
            n_match += 1
            p, g = P[i], G[j]
            ok = {"number": same_number(p, g), "kind": p.get("kind") == g.get("kind"),
                  "direction": p.get("direction") == g.get("direction")}
            ok.update({k: same_name(p.get(k), g.get(k)) for k in NAME_FIELDS})
            for k, v in ok.items():
                right[k] += v
            n_tuple += ok["number"] and ok["method"] and ok["metric"] and ok["dataset"]
    return {
        "detect_p": round(100 * n_match / n_pred, 1) if n_pred else 0.0,
        "detect_r": round(100 * n_match / n_gold, 1) if n_gold else 0.0,
        "detect_f1": _f1(n_match, n_pred, n_gold),
        "tuple_f1": _f1(n_tuple, n_pred, n_gold),
        "on_matched": {k: round(100 * v / n_match, 1) if n_match else 0.0 for k, v in right.items()},
        "pred": n_pred, "gold": n_gold, "matched": n_match,
        "missing_docs": sum(1 for k in gold if k not in pred),
    }


def evaluate_results(gold: list[dict], *, extractor: str, model: str, jobs: int = 1) -> dict:
    """Run ``extractor`` over the gold abstracts and score its result records."""
    from kg.evaluation.entities import predict

    preds = predict(gold, extractor=extractor, model=model, jobs=jobs)
    return {"abstracts": len(gold), "extractor": extractor, **score_results(preds, gold)}


def format_report(scores: dict) -> str:
    """A plain-text summary, as ``kg eval results`` prints it."""
    fields = "  ".join(f"{k} {v:.1f}" for k, v in scores["on_matched"].items())
    return (f"{scores['abstracts']} abstracts, extractor {scores['extractor']}\n"
            f"detection  P {scores['detect_p']:.1f}  R {scores['detect_r']:.1f}  F1 {scores['detect_f1']:.1f}"
            f"  (pred {scores['pred']}, gold {scores['gold']}, matched {scores['matched']})\n"
            f"tuple F1   {scores['tuple_f1']:.1f}  (number + method + metric + dataset)\n"
            f"on matched records (% right): {fields}")
