"""Bounds over a whole corpus: how many, by notation and quantity, unparsable rate, time, and a sample.

usage: python bench/bounds.py [--corpus PATH] [--sample 25] [--seed 2026]
Prints tables of counts and timing, then ``--sample`` random bounds (fixed seed) with their
context so a person can check them by hand.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time
from collections import Counter
from pathlib import Path

from kg.settings import shared_path
from kg.complexity.expr import to_sympy
from kg.complexity.latex import latex_to_ascii
from kg.complexity.parse import parse_bound
from kg.extractors.bounds import find_bounds


def read_corpus(path: Path) -> list[tuple[str, str]]:
    """(id, abstract) pairs of a JSONL(.gz) corpus with an ``abstract`` field."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh if line.strip())
        return [(r["id"], r["abstract"]) for r in rows if r.get("abstract")]


def table(title: str, counts: Counter, total: int) -> str:
    lines = [f"{title:24} {'bounds':>7} {'share':>6}"]
    lines += [f"{key:24} {n:>7} {n / total:>6.1%}" for key, n in counts.most_common()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    parser.add_argument("--sample", type=int, default=25)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    docs = read_corpus(args.corpus)
    start = time.perf_counter()
    found = [(doc_id, text, find_bounds(text)) for doc_id, text in docs]
    seconds = time.perf_counter() - start
    bounds = [(doc_id, text, b) for doc_id, text, bs in found for b in bs]
    total = max(len(bounds), 1)
    with_bounds = sum(1 for _, _, bs in found if bs)
    unparsed = sum(1 for _, _, b in bounds if not b.parsed)
    print(f"{'abstracts':24} {len(docs):>7}")
    print(f"{'with a bound':24} {with_bounds:>7}")
    print(f"{'bounds':24} {len(bounds):>7}")
    print(f"{'unparsable':24} {unparsed:>7} {unparsed / total:>6.1%}")
    print(f"{'improves_on links':24} {sum(1 for _, _, b in bounds if b.improves_on is not None):>7}")
    print(f"{'seconds':24} {seconds:>7.1f}")
    print(f"{'ms per abstract':24} {1000 * seconds / max(len(docs), 1):>7.2f}")
    for cached in (parse_bound, latex_to_ascii, to_sympy):
        cached.cache_clear()
    start = time.perf_counter()
    for _, _, b in bounds:
        parse_bound(b.text)
    parse_seconds = time.perf_counter() - start
    print(f"{'parse ms per bound':24} {1000 * parse_seconds / total:>7.2f}")
    print()
    print(table("notation", Counter(b.notation for _, _, b in bounds), total))
    print()
    print(table("quantity", Counter(b.quantity for _, _, b in bounds), total))
    print()
    print(table("role", Counter(b.role for _, _, b in bounds), total))
    print()
    print(table("kind", Counter(b.kind for _, _, b in bounds), total))
    rng = random.Random(args.seed)
    print(f"\n{args.sample} random bounds (seed {args.seed}):")
    for n, (doc_id, text, b) in enumerate(rng.sample(bounds, min(args.sample, len(bounds))), 1):
        context = text[max(0, b.start - 90):b.end + 60].replace("\n", " ")
        print(f"\n[{n}] {doc_id} {b.start}:{b.end} {b.text!r}")
        print(f"    notation={b.notation} quantity={b.quantity} ({b.quantity_detail}) role={b.role} "
              f"kind={b.kind} parsed={b.parsed} expr={b.expression} improves_on={b.improves_on}")
        print(f"    subject={b.subject!r}")
        print(f"    ...{context}...")


if __name__ == "__main__":
    main()
