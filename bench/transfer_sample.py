"""A fixed random sample of ICLR 2026 abstracts with what the default pipeline extracts, for reading.

SciERC is 2010s ACL/AAAI text; this shows how the extractor transfers to today's ML abstracts.
Prints Markdown: per abstract its id, title and text, then the Methods, Models, Problems and Datasets
found (the types a reader judges for precision), each with the rule or model that produced it.

usage: python bench/transfer_sample.py [--n 30] [--seed 2026] [--corpus PATH] > sample.md
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from kg.api import extract, read
from kg.settings import shared_path

TYPES = ("Method", "Model", "Problem", "Dataset")


def sample(corpus: Path, n: int, seed: int) -> list:
    abstracts = sorted(read([corpus], on_error="skip"), key=lambda a: a.id)
    return random.Random(seed).sample(abstracts, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    args = parser.parse_args()
    abstracts = sample(args.corpus, args.n, args.seed)
    print(f"# {args.n} ICLR 2026 abstracts (seed {args.seed}): {' '.join(a.id for a in abstracts)}\n")
    for abstract, extraction in zip(abstracts, extract(abstracts)):
        print(f"## {abstract.id}: {abstract.title}\n\n{abstract.text}\n")
        for label in TYPES:
            found = sorted({m.text for m in extraction.entities if m.label == label}, key=str.lower)
            print(f"- **{label}** ({len(found)}): " + " | ".join(found))
        print()


if __name__ == "__main__":
    main()
