"""Throughput of the shipped SciERC pipeline and of the default build extractor on ICLR 2026
abstracts, and the SciERC pipeline's dev F1.

usage: python bench/extract.py [--n 500] [--corpus PATH] [--data DIR] [--processes 1 2]
Prints one table row per pipeline and process count (abstracts/s, entities and relations found):
``scierc`` is the trained model alone (what ``kg eval scierc`` scores), ``scierc.v1`` is what
``kg build`` runs by default (the English parser, the trained model, rules, bounds; --jobs N).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from itertools import islice
from pathlib import Path

from kg.settings import shared_path
from kg.evaluation.scierc import evaluate_scierc
from kg.extractors import extract
from kg.extractors.scierc import extract_scierc, load_pipeline
from kg.records import Abstract


def read_abstracts(path: Path, n: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh if line.strip())
        return [r["abstract"] for r in islice((r for r in rows if r.get("abstract")), n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    parser.add_argument("--data", type=Path, default=shared_path("eval", "scierc"))
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    texts = read_abstracts(args.corpus, args.n)
    nlp = load_pipeline()
    extract_scierc(texts[:8], nlp=nlp)  # warm-up: lazy model init, caches
    # CPU seconds of this process show the cost apart from contention on a shared machine
    # (children's CPU is not counted, so the column is only meaningful for 1 process).
    print(f"{'pipeline':>9s} {'processes':>9s} {'abstracts':>9s} {'seconds':>8s} {'abstracts/s':>11s} "
          f"{'cpu s (parent)':>14s} {'entities':>8s} {'relations':>9s}")

    def row(name: str, n_process: int, run) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        results = run()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        n_ents = sum(len(e) for e, _ in results)
        n_rels = sum(len(r) for _, r in results)
        print(f"{name:>9s} {n_process:9d} {len(texts):9d} {seconds:8.1f} {len(texts) / seconds:11.1f} {cpu:14.1f} "
              f"{n_ents:8d} {n_rels:9d}", flush=True)

    abstracts = [Abstract(f"bench{i}", text) for i, text in enumerate(texts)]
    list(extract(abstracts[:8]))  # warm-up of the build extractor in this process
    for n_process in args.processes:
        row("scierc", n_process, lambda: extract_scierc(texts, nlp=nlp, batch_size=32, n_process=n_process))
        row("scierc.v1", n_process, lambda: [(x.entities, x.relations) for x in extract(abstracts, jobs=n_process)])
    scores = evaluate_scierc("dev", args.data, nlp=nlp)
    size = sum(p.stat().st_size for p in Path(nlp.path).rglob("*") if p.is_file()) if nlp.path else 0
    print(f"\ndev entity F1 {scores['ent']['f1']:.2f}  Rel F1 {scores['rel']['f1']:.2f}  "
          f"Rel+ F1 {scores['rel+']['f1']:.2f}  model size {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
