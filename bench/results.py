"""Time of result extraction (``find_results``, text only) per abstract on ICLR 2026 abstracts.

usage: python bench/results.py [--n 1000] [--corpus PATH] [--repeat 3]
Prints one table: abstracts, results found, total seconds and ms per abstract (mean, median, p95,
max over abstracts, best of ``--repeat`` runs).  Reading the corpus is not timed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from itertools import islice
from pathlib import Path

from kg.extractors.results import find_results
from kg.settings import shared_path


def read_abstracts(path: Path, n: int) -> list[str]:
    """The first ``n`` non-empty abstracts of a JSONL(.gz) corpus."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh if line.strip())
        return [r["abstract"] for r in islice((r for r in rows if r.get("abstract")), n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    abstracts = read_abstracts(args.corpus, args.n)
    find_results(abstracts[0])  # warm-up: compile the patterns, read the metric table
    best: list[float] = []
    found = 0
    for _ in range(max(args.repeat, 1)):
        times = []
        found = 0
        for text in abstracts:
            start = time.perf_counter()
            found += len(find_results(text))
            times.append(time.perf_counter() - start)
        if not best or sum(times) < sum(best):
            best = times
    ms = sorted(1000 * t for t in best)
    print(f"{'abstracts':>9s} {'results':>7s} {'seconds':>8s} {'mean ms':>8s} {'median ms':>9s} {'p95 ms':>7s} {'max ms':>7s}")
    print(f"{len(abstracts):9d} {found:7d} {sum(best):8.2f} {statistics.fmean(ms):8.2f} {statistics.median(ms):9.2f} "
          f"{ms[int(0.95 * (len(ms) - 1))]:7.2f} {ms[-1]:7.2f}")


if __name__ == "__main__":
    main()
