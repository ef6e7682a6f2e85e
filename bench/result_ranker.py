"""The result ranker held out honestly: tuple F1 on train abstracts the recogniser and tagger never saw.

The name heads learn from the pipeline's reading of the train abstracts, whose mentions come from
a recogniser and tagger that learnt from those same abstracts, and dev has only about 60 matched
results.  The train abstracts annotated after the shipped recogniser and tagger were trained (all
but the first ``--seen``) are read as any new abstract is: this splits them in ``--folds`` parts,
trains the heads on the rest of train with each ``--c`` (``kg.training.indomain.train_result_names``)
and scores each held-out part by the rules of score_results.py, beside the shipped heads on the
same abstracts (marked ``*`` when those heads learnt from some of them: the row then shows how much
better the heads look on what they learnt from, and a second table scores every row on the
abstracts annotated after the shipped heads too).  The roles that mark the paper's proposed entity,
one of the ranker's cues, are the shipped ones either way.

usage: python bench/result_ranker.py [--seen 18120] [--c 1.0 0.3 0.1] [--folds 5] [--jobs 2]
Prints a table (two when the shipped heads learnt from some of those abstracts): heads, abstracts,
matched results, tuple F1 and the share of matched results whose method, metric, dataset and baseline are right.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from kg.contract import to_contract
from kg.evaluation.results import score_results
from kg.extractors.indomain import model_path
from kg.extractors.result_names import NameRanker
from kg.extractors.results import metric_spans
from kg.extractors.roles import LinearHeads
from kg.training.annotations import load_gold
from kg.training.indomain import _predict, train_result_names


def ranked(heads: LinearHeads, doc: dict, extraction) -> dict:
    """The contract record of one abstract with its results' names chosen by ``heads``."""
    text = doc["abstract"]
    results = NameRanker(heads).rank(extraction.results, text, doc.get("title", ""), extraction.entities,
                                     extraction.relations, metric_spans(text, 0, len(text)))
    return to_contract(replace(extraction, results=results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seen", type=int, default=18_120, help="Train abstracts the shipped recogniser (and the tagger, from the first 14,520) learnt from.")
    parser.add_argument("--c", type=float, nargs="+", default=[1.0, 0.3, 0.1])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    train = load_gold("train")
    unseen_ids = {d["id"] for d in train[args.seen :]}
    docs = [d for d in train if d["results"]]
    extractions = _predict(model_path(), docs, args.jobs, rank=False)
    unseen = [i for i, d in enumerate(docs) if d["id"] in unseen_ids]
    seen = [i for i, d in enumerate(docs) if d["id"] not in unseen_ids]
    learnt = json.loads((model_path() / "scores.json").read_text(encoding="utf-8"))["train_abstracts"]
    shipped = LinearHeads.from_disk(model_path() / "result_names.json")
    predictions = {"shipped": {i: ranked(shipped, docs[i], extractions[i]) for i in unseen}}
    for c in args.c:
        preds = predictions[f"C={c}"] = {}
        for k in range(args.folds):
            held = unseen[k :: args.folds]
            learn = seen + [i for j, i in enumerate(unseen) if j % args.folds != k]
            heads = train_result_names([extractions[i] for i in learn], [docs[i] for i in learn], c=c)
            preds.update({i: ranked(heads, docs[i], extractions[i]) for i in held})
    if learnt <= args.seen:
        _table(predictions, docs, unseen, "shipped", "")
        return
    _table(predictions, docs, unseen, "shipped*", f"; the shipped heads (*) learnt from {'them' if learnt >= len(train) else 'some of them'}")
    never_learnt = {d["id"] for d in train[learnt:]}
    fresh = [i for i in unseen if docs[i]["id"] in never_learnt]
    if fresh:
        _table(predictions, docs, fresh, "shipped", "; nor did the shipped heads")


def _table(predictions: dict[str, dict[int, dict]], docs: list[dict], chosen: list[int], shipped_name: str, note: str) -> None:
    """One table: every row's predictions scored on the ``chosen`` abstracts."""
    print(f"{'heads':>8s} {'abstracts':>9s} {'matched':>7s} {'tuple F1':>8s} {'method':>6s} {'metric':>6s} {'dataset':>7s} {'baseline':>8s}")
    for name, preds in predictions.items():
        s = score_results([preds[i] for i in chosen], [docs[i] for i in chosen])
        m = s["on_matched"]
        name = shipped_name if name == "shipped" else name
        print(f"{name:>8s} {len(chosen):9d} {s['matched']:7d} {s['tuple_f1']:8.1f} {m['method']:6.1f} {m['metric']:6.1f} {m['dataset']:7.1f} {m['baseline']:8.1f}")
    print(f"({len(chosen)} train abstracts the recogniser and tagger never saw{note})\n")


if __name__ == "__main__":
    main()
