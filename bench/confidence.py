"""How far the confidences can be trusted: reliability of mention and paper-role confidences on an
annotated split, and what ``kg build --min-confidence`` trades (precision, recall, mentions kept).

usage: python bench/confidence.py [--split test] [--extractor indomain.v1]
Mentions are right when their span and label are in the gold; a role edge is right when its tail's
name matches a gold paper fact of that kind (the fact scorer's loose match).
"""

from __future__ import annotations

import argparse

from kg.evaluation.entities import RELATION_FACTS, PAPER_LABELS, names_match
from kg.extractors import extract
from kg.records import Abstract
from kg.resolve import confident
from kg.settings import DEFAULT_EXTRACTOR
from kg.training.annotations import load_gold

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)
FACT_OF = {**PAPER_LABELS, **RELATION_FACTS}


def _reliability(title: str, pairs: list[tuple[float, bool]]) -> None:
    print(f"\n{title}: {len(pairs)} predictions")
    print(f"{'confidence':>12s} {'n':>6s} {'mean conf':>9s} {'right':>7s}")
    ece = 0.0
    for lo, hi in zip(BINS, BINS[1:]):
        rows = [(c, ok) for c, ok in pairs if lo <= c < hi]
        if rows:
            mean, right = sum(c for c, _ in rows) / len(rows), sum(ok for _, ok in rows) / len(rows)
            ece += len(rows) / len(pairs) * abs(mean - right)
            print(f"{lo:5.1f}-{min(hi, 1.0):<6.1f} {len(rows):6d} {mean:9.2f} {right:7.2f}")
    print(f"expected calibration error {ece:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=("dev", "test"))
    parser.add_argument("--extractor", default=DEFAULT_EXTRACTOR)
    args = parser.parse_args()
    gold = load_gold(args.split)
    xs = list(extract([Abstract(g["id"], g["abstract"], title=g["title"]) for g in gold], extractor=args.extractor))
    mentions, roles = [], []
    for x, g in zip(xs, gold):
        truth = {(e["start"], e["end"], e["label"]) for e in g["entities"]}
        mentions += [(m.confidence, (m.start, m.end, m.label) in truth) for m in x.entities]
        for r in x.relations:
            kind = FACT_OF.get(r.label)
            if kind:
                roles.append((r.confidence, any(names_match(x.entities[r.tail].text, n) for n in g["paper"][kind])))
    print(f"{args.extractor} on the {args.split} split ({len(gold)} abstracts)")
    _reliability("mentions", mentions)
    _reliability("paper-role edges", roles)
    n_gold = sum(len(g["entities"]) for g in gold)
    print(f"\n{'min-confidence':>14s} {'mentions':>8s} {'precision':>9s} {'recall':>7s}")
    for t in (0.0, 0.3, 0.5, 0.7, 0.9):
        kept = [confident(x, t) for x in xs]
        right = sum((m.start, m.end, m.label) in {(e["start"], e["end"], e["label"]) for e in g["entities"]}
                    for x, g in zip(kept, gold) for m in x.entities)
        n = sum(len(x.entities) for x in kept)
        print(f"{t:14.1f} {n:8d} {right / max(1, n):9.3f} {right / n_gold:7.3f}")


if __name__ == "__main__":
    main()
