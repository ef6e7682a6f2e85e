"""Benchmark: `kg build` on the first N ICLR 2026 abstracts against bare spaCy passes over the same texts.

Two baselines, timed in the same run: the base English model (``en_core_web_sm``, all components),
and the extraction pipeline itself (base model + trained SciERC components + rules, ``nlp.pipe`` only).
The first ratio is what the whole tool costs next to parsing; the second is what conversion,
resolution and the stores add on top of running the pipeline.  Prints abstracts, seconds,
abstracts/s, both ratios and peak RSS for each N.
Run: python bench/build.py [--n 1000 --n 5000] [--jobs 1]
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from pathlib import Path

import click
import spacy

from kg.settings import shared_path
import kg
from kg.corpus import read_abstracts
from kg.extractors.pipeline import DEFAULT_MODEL, load_pipeline
from kg.extractors.text import clean_for_nlp
from kg.settings import Settings

CORPUS = shared_path("corpus", "iclr2026.jsonl.gz")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@click.command()
@click.option("--n", "sizes", type=int, multiple=True, default=(1000, 5000))
@click.option("--jobs", type=int, default=1)
@click.option("--corpus", type=click.Path(exists=True, path_type=Path), default=CORPUS)
def main(sizes: tuple[int, ...], jobs: int, corpus: Path) -> None:
    abstracts = list(read_abstracts([corpus]))
    extractor = Settings().extractor
    print(f"| N | bare {DEFAULT_MODEL} s | bare {extractor} pipeline s | kg build s | abstracts/s | ratio to bare model | ratio to bare pipeline | peak RSS MB | nodes | edges |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        subset = abstracts[:n]
        texts = [a.text for a in subset]
        nlp = spacy.load(DEFAULT_MODEL)
        t0 = time.perf_counter()
        for _ in nlp.pipe(texts, batch_size=32, n_process=jobs):
            pass
        bare = time.perf_counter() - t0
        pipeline = load_pipeline(extractor, DEFAULT_MODEL)
        t0 = time.perf_counter()
        for _ in pipeline.pipe((clean_for_nlp(t) for t in texts), batch_size=32):
            pass
        bare_pipeline = time.perf_counter() - t0
        out = Path(tempfile.mkdtemp()) / "out"
        t0 = time.perf_counter()
        result = kg.build([corpus], out, jobs=jobs, limit=n)
        full = time.perf_counter() - t0
        print(
            f"| {len(subset)} | {bare:.1f} | {bare_pipeline:.1f} | {full:.1f} | {len(subset) / full:.1f} | {full / bare:.2f} | {full / bare_pipeline:.2f} | "
            f"{peak_rss_mb():.0f} | {result.summary['nodes']} | {result.summary['edges']} |",
            flush=True,
        )
        shutil.rmtree(out.parent)


if __name__ == "__main__":
    main()
