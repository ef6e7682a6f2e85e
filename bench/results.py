"""Time of result extraction per abstract on ICLR 2026 abstracts: the rules (``find_results``, text
only) with the hand weights and with the shipped detector's, and the name ranker over their results
(``kg.extractors.result_names``).

usage: python bench/results.py [--n 1000] [--corpus PATH] [--repeat 3] [--jobs 2]
Prints one table, a row per stage: abstracts, results, total seconds and ms per abstract (mean,
median, p95, max over abstracts, best of ``--repeat`` runs).  Reading the corpus and the extraction
that gives the ranker its mentions and roles are not timed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from kg.extractors.indomain import model_path
from kg.extractors.pipeline import extract
from kg.extractors.result_names import NameRanker
from kg.extractors.results import find_results, metric_spans
from kg.extractors.roles import LinearHeads
from kg.records import Abstract
from kg.settings import shared_path


def read_abstracts(path: Path, n: int) -> list[dict]:
    """The first ``n`` records with an abstract of a JSONL(.gz) corpus."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh if line.strip())
        return list(islice((r for r in rows if r.get("abstract")), n))


def best_times(step: Callable[[int], int], n: int, repeat: int) -> tuple[list[float], int]:
    """Seconds per item of the fastest of ``repeat`` passes over ``n`` items, and what ``step`` counted."""
    best: list[float] = []
    found = 0
    for _ in range(max(repeat, 1)):
        times = []
        found = 0
        for k in range(n):
            start = time.perf_counter()
            found += step(k)
            times.append(time.perf_counter() - start)
        if not best or sum(times) < sum(best):
            best = times
    return best, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, default=shared_path("corpus", "iclr2026.jsonl.gz"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2, help="processes for the untimed extraction")
    args = parser.parse_args()
    rows = read_abstracts(args.corpus, args.n)
    texts = [r["abstract"] for r in rows]
    find_results(texts[0])  # warm-up: compile the patterns, read the metric table
    detector = LinearHeads.from_disk(model_path() / "result_detector.json")
    stages = {"rules": best_times(lambda k: len(find_results(texts[k])), len(texts), args.repeat),
              "detector": best_times(lambda k: len(find_results(texts[k], detector=detector)), len(texts), args.repeat)}

    extractions = list(extract([Abstract(r["id"], r["abstract"], title=r.get("title", "")) for r in rows], jobs=args.jobs))
    ranker = NameRanker(LinearHeads.from_disk(model_path() / "result_names.json"))

    def rank(k: int) -> int:
        text, x = texts[k], extractions[k]
        if x.results:
            ranker.rank(x.results, text, rows[k].get("title", ""), x.entities, x.relations, metric_spans(text, 0, len(text)))
        return len(x.results)

    stages["ranker"] = best_times(rank, len(texts), args.repeat)
    print(f"{'stage':8s} {'abstracts':>9s} {'results':>7s} {'seconds':>8s} {'mean ms':>8s} {'median ms':>9s} {'p95 ms':>7s} {'max ms':>7s}")
    for name, (best, found) in stages.items():
        ms = sorted(1000 * t for t in best)
        print(f"{name:8s} {len(texts):9d} {found:7d} {sum(best):8.2f} {statistics.fmean(ms):8.2f} {statistics.median(ms):9.2f} "
              f"{ms[int(0.95 * (len(ms) - 1))]:7.2f} {ms[-1]:7.2f}")


if __name__ == "__main__":
    main()
