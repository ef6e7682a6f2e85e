"""Score SciERC predictions exactly as ``score_scierc.py`` does, plus per-type P/R.

Entities match on exact (start, end, label); Rel on exact head span, tail span and label
(directional); Rel+ also on both entity labels. Micro-averaged over all gold documents; a
document without a prediction counts as predicting nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from spacy.language import Language

from kg.settings import shared_path
from kg.records import Mention, Relation

DEFAULT_DATA = shared_path("eval", "scierc")


def _prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f1": round(100 * f, 2)}


def _sets(doc: dict) -> tuple[set, set, set]:
    ents = doc.get("entities", [])
    E = {(e["start"], e["end"], e["label"]) for e in ents}
    R, Rp = set(), set()
    for r in doc.get("relations", []):
        h, t = ents[r["head"]], ents[r["tail"]]
        R.add(((h["start"], h["end"]), (t["start"], t["end"]), r["label"]))
        Rp.add(((h["start"], h["end"], h["label"]), (t["start"], t["end"], t["label"]), r["label"]))
    return E, R, Rp


def score(predictions: Iterable[dict], gold: Iterable[dict]) -> dict:
    """Scores of prediction dicts against gold dicts (both ``{"id", "entities", "relations"}``).

    Returns ``ent``/``rel``/``rel+`` as ``{"p", "r", "f1"}`` (percent, 2 decimals),
    ``per_type`` F1 as the shared scorer prints it, ``per_type_prf`` with P/R/F1 and counts,
    and ``missing_docs``.

    Example:
        >>> g = {"id": "a", "entities": [{"start": 0, "end": 2, "label": "Task"}], "relations": []}
        >>> score([g], [g])["ent"]
        {'p': 100.0, 'r': 100.0, 'f1': 100.0}
    """
    pred = {d["id"]: d for d in predictions}
    counts = {k: [0, 0, 0] for k in ("ent", "rel", "rel+")}
    per_type: dict[str, list[int]] = {}
    missing = 0
    for g in gold:
        missing += g["id"] not in pred
        ge, gr, grp = _sets(g)
        pe, pr, prp = _sets(pred.get(g["id"], {}))
        for key, P, G in (("ent", pe, ge), ("rel", pr, gr), ("rel+", prp, grp)):
            counts[key][0] += len(P & G)
            counts[key][1] += len(P)
            counts[key][2] += len(G)
        for lab in {x[2] for x in ge | pe}:
            t = per_type.setdefault(lab, [0, 0, 0])
            P = {x for x in pe if x[2] == lab}
            G = {x for x in ge if x[2] == lab}
            t[0] += len(P & G)
            t[1] += len(P)
            t[2] += len(G)
    out: dict = {k: _prf(*v) for k, v in counts.items()}
    out["per_type"] = {k: _prf(*v)["f1"] for k, v in sorted(per_type.items())}
    out["per_type_prf"] = {
        k: {**_prf(*v), "tp": v[0], "pred": v[1], "gold": v[2]} for k, v in sorted(per_type.items())
    }
    out["missing_docs"] = missing
    return out


def prediction_record(doc_id: str, mentions: Iterable[Mention], relations: Iterable[Relation]) -> dict:
    """One line of ``kg extract --labels scierc --format jsonl`` output, the scorer's PRED shape."""
    return {
        "id": doc_id,
        "entities": [{"start": m.start, "end": m.end, "text": m.text, "label": m.label} for m in mentions],
        "relations": [{"head": r.head, "tail": r.tail, "label": r.label} for r in relations],
    }


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def predict(nlp: Language, abstracts: list[dict], *, batch_size: int = 32, n_process: int = 1) -> list[dict]:
    """Prediction records for ``{"id", "abstract"}`` dicts."""
    from kg.extractors.scierc import extract_scierc

    results = extract_scierc(
        (a["abstract"] for a in abstracts), nlp=nlp, batch_size=batch_size, n_process=n_process
    )
    return [prediction_record(a["id"], ents, rels) for a, (ents, rels) in zip(abstracts, results)]


def evaluate_pipeline(nlp: Language, gold_path: Path, input_path: Path | None = None) -> dict:
    """Run ``nlp`` over the inputs (or the gold abstracts) and score against ``gold_path``."""
    gold = read_jsonl(gold_path)
    inputs = read_jsonl(input_path) if input_path and input_path.exists() else gold
    return score(predict(nlp, inputs), gold)


def evaluate_scierc(split: str = "dev", data_dir: Path | str | None = None, *, nlp: Language | None = None) -> dict:
    """Scores of the shipped pipeline on ``{data_dir}/{split}.gold.jsonl``.

    Reads ``{split}.input.jsonl`` when present, else the abstracts of the gold file.
    """
    from kg.extractors.scierc import load_pipeline

    data = Path(data_dir) if data_dir is not None else DEFAULT_DATA
    gold_path = data / f"{split}.gold.jsonl"
    if not gold_path.exists():
        raise FileNotFoundError(f"no gold file {gold_path}; pass data_dir= a folder with {split}.gold.jsonl")
    return evaluate_pipeline(nlp or load_pipeline(), gold_path, data / f"{split}.input.jsonl")


def format_report(scores: dict) -> str:
    """Table of the scores for people: per-type P/R/F1, entity micro, Rel and Rel+."""
    lines = [f"{'':22s} {'P':>6s} {'R':>6s} {'F1':>6s} {'gold':>5s}"]
    for label, s in scores["per_type_prf"].items():
        lines.append(f"{label:22s} {s['p']:6.2f} {s['r']:6.2f} {s['f1']:6.2f} {s['gold']:5d}")
    names = {"ent": "entities (micro)", "rel": "Rel", "rel+": "Rel+"}
    for key, name in names.items():
        s = scores[key]
        lines.append(f"{name:22s} {s['p']:6.2f} {s['r']:6.2f} {s['f1']:6.2f}")
    if scores.get("missing_docs"):
        lines.append(f"missing docs: {scores['missing_docs']}")
    return "\n".join(lines)
