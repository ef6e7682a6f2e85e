"""Entity and paper-fact scores in our schema, by the rules of ``score_entities.py`` and
``score_paper_facts.py`` in ``../shared/eval`` (tests hold the numbers equal on the same files).

Entities: exact (start, end, label); partial (same label, overlap >= half the union, one to one,
best overlap first); untyped exact spans; Method and Model merged.  Each is micro P/R/F1 overall
and per type.  Paper facts: per paper and kind, predicted names against gold names, matched one
to one when, lower-cased and without a plural s, one contains the other or their word overlap
(Jaccard) is at least one half.  Predictions are contract objects (``kg extract --format jsonl``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TYPES = ("Method", "Model", "Problem", "Dataset", "Metric")
FACTS = ("proposes", "addresses", "evaluated_on", "uses", "compared_with")
PAPER_LABELS = {"PROPOSES": "proposes", "ADDRESSES": "addresses"}
"""Paper-level relations (no head) and the fact each one states."""
RELATION_FACTS = {"EVALUATED_ON": "evaluated_on", "USES": "uses", "COMPARED_WITH": "compared_with", "OUTPERFORMS": "compared_with"}
"""Entity relations whose tail is a paper-level fact."""


def _prf(tp: int, n_pred: int, n_gold: int, digits: int = 2) -> dict[str, float | int]:
    return {
        "p": round(100 * tp / n_pred, digits) if n_pred else 0.0,
        "r": round(100 * tp / n_gold, digits) if n_gold else 0.0,
        "f1": round(200 * tp / (n_pred + n_gold), digits) if n_pred + n_gold else 0.0,
        "tp": tp, "pred": n_pred, "gold": n_gold,
    }


def _prf_split(tp_p: int, tp_r: int, n_pred: int, n_gold: int) -> dict[str, float | int]:
    """P/R/F1 when a true positive counts differently on the two sides (untyped, per type)."""
    p = tp_p / n_pred if n_pred else 0.0
    r = tp_r / n_gold if n_gold else 0.0
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f1": round(200 * p * r / (p + r), 2) if p + r else 0.0,
            "tp": tp_r, "pred": n_pred, "gold": n_gold}


def _iou(a: tuple, b: tuple) -> float:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def _partial_matches(pred: list[tuple], gold: list[tuple]) -> list[tuple[int, int]]:
    """One-to-one (pred, gold) index pairs of the same label overlapping >= half their union."""
    pairs = sorted(((_iou(p, g), i, j) for i, p in enumerate(pred) for j, g in enumerate(gold) if p[2] == g[2]), reverse=True)
    used_p, used_g, out = set(), set(), []
    for s, i, j in pairs:
        if s < 0.5:
            break
        if i not in used_p and j not in used_g:
            used_p.add(i), used_g.add(j), out.append((i, j))
    return out


def score_entities(predictions: Iterable[dict], gold: Iterable[dict]) -> dict:
    """``exact``/``partial``/``untyped``/``merged``, each ``{"p","r","f1","tp","pred","gold"}`` with
    ``per_type``; the shared scorer's F1s are the ``f1`` fields.

    Example:
        >>> g = {"id": "a", "entities": [{"start": 0, "end": 3, "label": "Model"}]}
        >>> score_entities([g], [g])["exact"]["f1"], score_entities([], [g])["exact"]["f1"]
        (100.0, 0.0)
    """
    pred = {d["id"]: [(e["start"], e["end"], e["label"]) for e in d.get("entities", []) if e["label"] in TYPES] for d in predictions}
    kinds = ("exact", "partial", "untyped", "merged")
    total = {k: [0, 0, 0] for k in kinds}
    per = {k: {t: [0, 0, 0] for t in TYPES} for k in ("exact", "partial")}
    untyped_t = {t: [0, 0, 0, 0] for t in TYPES}
    missing = 0
    for g in gold:
        missing += g["id"] not in pred
        G = [(e["start"], e["end"], e["label"]) for e in g["entities"]]
        P = pred.get(g["id"], [])
        Gs, Ps = set(G), set(P)
        merge = lambda x: (x[0], x[1], "Method" if x[2] in ("Method", "Model") else x[2])  # noqa: E731
        views = {
            "exact": (Ps, Gs),
            "untyped": ({x[:2] for x in Ps}, {x[:2] for x in Gs}),
            "merged": ({merge(x) for x in Ps}, {merge(x) for x in Gs}),
        }
        for kind, (p, q) in views.items():
            total[kind][0] += len(p & q)
            total[kind][1] += len(p)
            total[kind][2] += len(q)
        for t in TYPES:
            pt, gt = {x for x in Ps if x[2] == t}, {x for x in Gs if x[2] == t}
            per["exact"][t][0] += len(pt & gt)
            per["exact"][t][1] += len(pt)
            per["exact"][t][2] += len(gt)
            # untyped per type: a predicted t-span that is some gold span, a gold t-span predicted at any type
            spans_p, spans_g = {x[:2] for x in pt}, {x[:2] for x in gt}
            untyped_t[t][0] += len(spans_p & views["untyped"][1])
            untyped_t[t][1] += len(spans_g & views["untyped"][0])
            untyped_t[t][2] += len(spans_p)
            untyped_t[t][3] += len(spans_g)
        matched = _partial_matches(P, G)
        total["partial"][0] += len(matched)
        total["partial"][1] += len(P)
        total["partial"][2] += len(G)
        for t in TYPES:
            per["partial"][t][0] += sum(1 for i, _ in matched if P[i][2] == t)
            per["partial"][t][1] += sum(1 for x in P if x[2] == t)
            per["partial"][t][2] += sum(1 for x in G if x[2] == t)
    out: dict = {k: {**_prf(*total[k]), "per_type": {t: _prf(*per[k][t]) for t in TYPES}} for k in ("exact", "partial")}
    out["untyped"] = {**_prf(*total["untyped"]), "per_type": {t: _prf_split(*untyped_t[t]) for t in TYPES}}
    out["merged"] = _prf(*total["merged"])
    out["missing_docs"] = missing
    return out


def _norm(name: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", name.lower())
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words]


def names_match(a: str, b: str) -> bool:
    """The shared scorers' loose name match: containment or word Jaccard >= 0.5.

    Example:
        >>> names_match("Vision Transformers", "vision transformer"), names_match("BERT", "GPT")
        (True, False)
    """
    x, y = _norm(a), _norm(b)
    if not x or not y:
        return False
    jx, jy = " ".join(x), " ".join(y)
    if jx == jy or f" {jx} " in f" {jy} " or f" {jy} " in f" {jx} ":
        return True
    return len(set(x) & set(y)) / len(set(x) | set(y)) >= 0.5


def paper_facts(prediction: dict) -> dict[str, list[str]]:
    """The paper-level facts a contract object states, as mention texts per kind (first seen first)."""
    ents = prediction.get("entities", [])
    facts: dict[str, list[str]] = {k: [] for k in FACTS}
    for r in prediction.get("paper_relations", []):
        kind = PAPER_LABELS.get(r["label"].upper())
        if kind and r["tail"] is not None and r["tail"] < len(ents):
            facts[kind].append(ents[r["tail"]]["text"])
    for r in prediction.get("relations", []):
        kind = RELATION_FACTS.get(r["label"].upper())
        if kind and r["tail"] < len(ents):
            facts[kind].append(ents[r["tail"]]["text"])
    return {k: list(dict.fromkeys(v)) for k, v in facts.items()}


def _matched(pred: list[str], gold: list[str]) -> int:
    used, tp = set(), 0
    for g in gold:
        for i, p in enumerate(pred):
            if i not in used and names_match(p, g):
                used.add(i)
                tp += 1
                break
    return tp


def score_paper_facts(predictions: Iterable[dict], gold: Iterable[dict]) -> dict:
    """Per fact kind ``{"p","r","f1","pred","gold","tp"}`` (percent, one decimal, as the shared scorer)."""
    return score_facts({d["id"]: paper_facts(d) for d in predictions}, gold)


def score_facts(facts: dict[str, dict[str, list[str]]], gold: Iterable[dict], digits: int = 1) -> dict:
    """The fact scores of names per paper and kind (``paper_facts`` of a prediction, or an annotation's
    ``paper``) against the gold; a kind a paper's entry lacks counts as stating nothing."""
    counts = {k: [0, 0, 0] for k in FACTS}
    for g in gold:
        stated = facts.get(g["id"], {})
        for k in FACTS:
            P = list(dict.fromkeys(stated.get(k, [])))
            G = list(dict.fromkeys(g["paper"].get(k, [])))
            counts[k][0] += _matched(P, G)
            counts[k][1] += len(P)
            counts[k][2] += len(G)
    return {k: _prf(*v, digits=digits) for k, v in counts.items()}


def format_report(entities: dict, facts: dict) -> str:
    """A plain-text table of both scores, as ``kg eval entities`` prints it."""
    lines = [f"{'entities':<10} {'type':<8} {'P':>6} {'R':>6} {'F1':>6} {'gold':>5}"]
    for kind in ("exact", "partial", "untyped"):
        s = entities[kind]
        lines.append(f"{kind:<10} {'all':<8} {s['p']:>6.1f} {s['r']:>6.1f} {s['f1']:>6.1f} {s['gold']:>5}")
        for t in TYPES:
            x = s["per_type"][t]
            lines.append(f"{'':<10} {t:<8} {x['p']:>6.1f} {x['r']:>6.1f} {x['f1']:>6.1f} {x['gold']:>5}")
    m = entities["merged"]
    lines.append(f"{'merged':<10} {'M+M':<8} {m['p']:>6.1f} {m['r']:>6.1f} {m['f1']:>6.1f} {m['gold']:>5}")
    lines.append("")
    lines.append(f"{'paper fact':<14} {'P':>6} {'R':>6} {'F1':>6} {'gold':>5}")
    for k in FACTS:
        x = facts[k]
        lines.append(f"{k:<14} {x['p']:>6.1f} {x['r']:>6.1f} {x['f1']:>6.1f} {x['gold']:>5}")
    return "\n".join(lines)


def load_gold_file(path) -> list[dict]:
    """A gold file in the shared scorers' shape (a JSON list, or JSONL)."""
    import json
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8").strip()
    return json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]


def predict(gold: list[dict], *, extractor: str, model: str, jobs: int = 1) -> list[dict]:
    """``extractor``'s contract rows for the gold abstracts, in their order (what the scorers read)."""
    from kg.contract import to_contract
    from kg.extractors.pipeline import extract
    from kg.records import Abstract

    abstracts = [Abstract(g["id"], g["abstract"], title=g.get("title", ""), year=g.get("year")) for g in gold]
    return [to_contract(x) for x in extract(abstracts, extractor=extractor, model=model, jobs=jobs)]


def evaluate_entities(gold: list[dict], *, extractor: str, model: str, jobs: int = 1) -> dict:
    """Run ``extractor`` over the gold abstracts and score entities and paper facts."""
    preds = predict(gold, extractor=extractor, model=model, jobs=jobs)
    return {"abstracts": len(gold), "extractor": extractor, "entities": score_entities(preds, gold),
            "paper_facts": score_paper_facts(preds, gold)}
