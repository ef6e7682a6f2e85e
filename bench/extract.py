"""Throughput of the extraction pipelines on ICLR 2026 abstracts, and the size of the shipped models.

usage: python bench/extract.py [--n 500] [--extractors indomain.v1 scierc.v1] [--processes 1 2]
Prints one row per pipeline and process count (abstracts/s, entities and relations found).
``indomain.v1`` is what ``kg build`` runs by default (``--jobs N`` is the process count).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from itertools import islice
from pathlib import Path

from kg.extractors import extract
from kg.records import Abstract
from kg.settings import DEFAULT_EXTRACTOR, shared_path

MODELS = Path(__file__).resolve().parents[1] / "kg" / "models"


def read_abstracts(path: Path, n: int) -> list[Abstract]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh if line.strip())
        return [Abstract(r["id"], r["abstract"], title=r.get("title") or "")
                for r in islice((r for r in rows if r.get("abstract")), n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    parser.add_argument("--extractors", nargs="+", default=[DEFAULT_EXTRACTOR])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    abstracts = read_abstracts(args.corpus, args.n)
    print(f"{'extractor':>12s} {'processes':>9s} {'abstracts':>9s} {'seconds':>8s} {'abstracts/s':>11s} "
          f"{'entities':>8s} {'relations':>9s}")
    for name in args.extractors:
        list(extract(abstracts[:8], extractor=name))  # warm-up: load the pipeline, lazy model init
        for n_process in args.processes:
            start = time.perf_counter()
            found = [(len(x.entities), len(x.relations)) for x in extract(abstracts, extractor=name, jobs=n_process)]
            seconds = time.perf_counter() - start
            print(f"{name:>12s} {n_process:9d} {len(abstracts):9d} {seconds:8.1f} {len(abstracts) / seconds:11.1f} "
                  f"{sum(e for e, _ in found):8d} {sum(r for _, r in found):9d}", flush=True)
    print()
    for model in sorted(p for p in MODELS.iterdir() if p.is_dir() and not p.name.startswith("_")):
        size = sum(p.stat().st_size for p in model.rglob("*") if p.is_file())
        print(f"model kg/models/{model.name}: {size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
