"""A reader's judgement of what the graph holds: precision of the Method, Problem and Dataset nodes
extracted from random corpus abstracts outside every annotated split, per extractor.

usage:
    python bench/judged_sample.py prepare [--n 30] [--extractors scierc.v1 indomain.v1]
        writes training/indomain/judged/items.jsonl: one line per (paper, label, name) node, from all
        extractors pooled and shuffled, and key.jsonl (which extractors found each item), so the
        reader, who reads items.jsonl only, does not know which extractor found what
    python bench/judged_sample.py score
        reads items.jsonl, key.jsonl and the reader's verdicts.jsonl ({"item", "correct": true|false})
        and prints the precision per extractor and label

A node is correct when it names a method, problem or dataset of that type as the abstract uses it
(entities-GUIDELINES.md), with no generic word for a name ("benchmark datasets", "our method").
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from kg.extractors import extract
from kg.records import Abstract
from kg.resolve import build_graph
from kg.training.annotations import corpus, forbidden_ids, load_sample

OUT = Path(__file__).resolve().parents[1] / "training" / "indomain" / "judged"
LABELS = ("Method", "Problem", "Dataset")
SEED = 30


def draw(n: int) -> list[Abstract]:
    """The first ``n`` of a seeded order of the corpus outside every split: a later annotation
    draw replaces only the abstracts it takes, so most verdicts carry over."""
    pool = sorted(r.id for r in corpus().values() if r.corpus == "iclr2026.jsonl.gz" and r.id not in forbidden_ids()
                  and len(r.abstract.split()) >= 40)
    annotated = {r["id"] for r in load_sample()}
    ids = [i for i in random.Random(SEED).sample(pool, len(pool)) if i not in annotated][:n]
    return [Abstract(i, corpus()[i].abstract, title=corpus()[i].title) for i in ids]


def prepare(n: int, extractors: list[str]) -> None:
    abstracts = draw(n)
    found: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for name in extractors:
        for a, x in zip(abstracts, extract(abstracts, extractor=name)):
            graph = build_graph([(a, x)])
            for node in graph.nodes:
                if node.label in LABELS:
                    found[(a.id, node.label, node.name)].add(name)
    items = sorted(found)
    random.Random(SEED).shuffle(items)
    judged = _judged()
    OUT.mkdir(parents=True, exist_ok=True)
    with (open(OUT / "items.jsonl", "w", encoding="utf-8") as fh, open(OUT / "key.jsonl", "w", encoding="utf-8") as key,
          open(OUT / "verdicts.jsonl", "w", encoding="utf-8") as kept):
        for i, (paper, label, name) in enumerate(items):
            fh.write(json.dumps({"item": i, "paper": paper, "label": label, "name": name}, ensure_ascii=False) + "\n")
            key.write(json.dumps({"item": i, "extractors": sorted(found[(paper, label, name)])}) + "\n")
            if (paper, label, name) in judged:
                kept.write(json.dumps({"item": i, **judged[(paper, label, name)]}, ensure_ascii=False) + "\n")
    carried = sum(item in judged for item in items)
    print(f"{len(abstracts)} abstracts, {len(items)} nodes: {carried} keep their verdicts, {len(items) - carried} to judge "
          f"(python bench/judged_sample.py todo)")


def _read(name: str) -> list[dict]:
    path = OUT / name
    return [json.loads(line) for line in open(path, encoding="utf-8")] if path.exists() else []


def _judged() -> dict[tuple[str, str, str], dict]:
    """Verdicts given so far, by (paper, label, name), without their item numbers."""
    items = {i["item"]: (i["paper"], i["label"], i["name"]) for i in _read("items.jsonl")}
    return {items[v["item"]]: {k: x for k, x in v.items() if k != "item"} for v in _read("verdicts.jsonl") if v["item"] in items}


def todo() -> None:
    judged = {v["item"] for v in _read("verdicts.jsonl")}
    pending = [i for i in _read("items.jsonl") if i["item"] not in judged]
    for paper in dict.fromkeys(i["paper"] for i in pending):
        record = corpus()[paper]
        print(f"## {paper}: {record.title}\n\n{record.abstract}\n")
        for i in pending:
            if i["paper"] == paper:
                print(f"- item {i['item']}: {i['label']} \"{i['name']}\"")
        print()


def score() -> None:
    items = _read("items.jsonl")
    key = {k["item"]: k["extractors"] for k in _read("key.jsonl")}
    verdicts = {v["item"]: v["correct"] for v in _read("verdicts.jsonl")}
    missing = [i["item"] for i in items if i["item"] not in verdicts]
    if missing:
        raise SystemExit(f"verdicts.jsonl has no verdict for {len(missing)} items (python bench/judged_sample.py todo)")
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        for name in key[item["item"]]:
            for label in (item["label"], "all"):
                table[(name, label)][0] += verdicts[item["item"]]
                table[(name, label)][1] += 1
    print(f"{'extractor':>12s} {'label':>8s} {'nodes':>6s} {'correct':>8s} {'precision':>9s}")
    for (name, label), (right, n) in sorted(table.items()):
        print(f"{name:>12s} {label:>8s} {n:6d} {right:8d} {100 * right / n:8.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--n", type=int, default=30)
    p.add_argument("--extractors", nargs="+", default=["scierc.v1", "indomain.v1"])
    sub.add_parser("todo")
    sub.add_parser("score")
    args = parser.parse_args()
    if args.cmd == "prepare":
        prepare(args.n, args.extractors)
    else:
        {"todo": todo, "score": score}[args.cmd]()


if __name__ == "__main__":
    main()
