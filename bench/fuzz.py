"""Fuzz: N generated or mutated ICLR 2026 abstracts through read → extract → resolve → write.

Inputs are corpus abstracts (ICLR 2026 and older) with 1–8 random edits each (``kg.testing.mutate``:
LaTeX, Markdown, URLs, mixed scripts, astral characters, control characters, huge tokens, unbalanced
``$`` and braces), and every tenth one generated from those pieces and corpus words alone.  Each
batch is written as JSONL (``ensure_ascii=False``, so U+2028 and friends stay raw), read back by
``kg.corpus``, each abstract extracted on its own under a CPU-time limit (ITIMER_PROF, so that a
busy machine does not turn slowness into hangs; a hang is logged and counted, not waited on), the batch resolved into a graph and every output written as a build does.
Checked: the reader gives back the text written (or says why it skips it); every span's offsets
select its text; every evidence lies inside its sentence inside the abstract.  Any exception is a
crash, logged with its input.  Prints inputs, crashes, hangs, offset errors, skips, rate and the
slowest inputs; SIGTERM or Ctrl-C stops early and still prints what finished.
Run: python bench/fuzz.py --n 100000 --time-limit 10 --log fuzz.jsonl
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import shutil
import signal
import tempfile
import time
import traceback
from pathlib import Path

import click

from kg import outdir
from kg.api import extract, summarize, write_outputs
from kg.corpus import ReadReport, read_abstracts
from kg.records import Abstract
from kg.resolve import build_graph
from kg.settings import shared_path
from kg.testing import MUTATION_PIECES, mutate

CORPORA = (shared_path("corpus", "iclr2026.jsonl.gz"), *sorted(shared_path("corpus").glob("*older*.jsonl.gz")))


class Hang(Exception):
    """An abstract took longer than the time limit."""


def _alarm(signum, frame):
    raise Hang()


def _stop(signum, frame):
    raise KeyboardInterrupt()


def seeds() -> list[str]:
    texts = []
    for path in CORPORA:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            texts.extend(json.loads(line)["abstract"] for line in fh)
    return texts


def inputs(n: int, texts: list[str], seed: int):
    words = [w for t in texts[:2000] for w in t.split()]
    for i in range(n):
        rng = random.Random(seed * 1_000_003 + i)
        if i % 10 == 9:
            text = " ".join(rng.choice(MUTATION_PIECES) if rng.random() < 0.3 else rng.choice(words) for _ in range(rng.randint(5, 400)))
        else:
            text = mutate(texts[rng.randrange(len(texts))], rng, edits=rng.randint(1, 8))
        yield {"id": f"fuzz{i}", "title": mutate("A title", rng, 1), "abstract": text, "year": rng.choice([2026, "2025", None, "n/a"])}


def offset_errors(abstract, x) -> list[str]:
    text = abstract.text
    bad = [f"entity {e.start}:{e.end} {e.text!r}" for e in x.entities if text[e.start:e.end] != e.text]
    bad += [f"bound {b.start}:{b.end} {b.text!r}" for b in x.bounds if text[b.start:b.end] != b.text]
    bad += [f"result {r.start}:{r.end} {r.text!r}" for r in x.results if text[r.start:r.end] != r.text]
    return bad


@click.command()
@click.option("--n", type=int, default=2000, show_default=True, help="Inputs to run.")
@click.option("--batch", type=int, default=500, show_default=True, help="Inputs per read/resolve/write round.")
@click.option("--time-limit", type=int, default=10, show_default=True, help="CPU seconds one abstract may take to extract.")
@click.option("--seed", type=int, default=21, show_default=True)
@click.option("--log", "log_path", type=click.Path(path_type=Path), default=Path("fuzz.jsonl"), show_default=True,
              help="One JSON line per crash, hang or offset error, and one per finished batch.")
def main(n: int, batch: int, time_limit: int, seed: int, log_path: Path) -> None:
    signal.signal(signal.SIGPROF, _alarm)
    signal.signal(signal.SIGTERM, _stop)
    texts = seeds()
    # Load the pipeline before the clock runs: an alarm during the load would interrupt it on every call.
    list(extract([Abstract(id="warm-up", text=texts[0])]))
    counts = {"inputs": 0, "read": 0, "extracted": 0, "skipped": 0, "crashes": 0, "hangs": 0, "offset errors": 0, "written batches": 0}
    slowest: list[tuple[float, str, str]] = []
    work = Path(tempfile.mkdtemp(prefix="kg-fuzz-"))
    started = time.perf_counter()
    with log_path.open("w", encoding="utf-8") as log:

        def note(kind: str, **fields) -> None:
            log.write(json.dumps({"kind": kind, **fields}, ensure_ascii=False) + "\n")
            log.flush()

        stream = inputs(n, texts, seed)
        try:
            for number in itertools.count():
                records = list(itertools.islice(stream, batch))
                if not records:
                    break
                source = work / "batch.jsonl"
                source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
                report = ReadReport()
                try:
                    abstracts = list(read_abstracts([source], on_error="skip", report=report))
                except Exception as exc:  # noqa: BLE001 - every failure is what we are counting
                    counts["crashes"] += 1
                    note("crash", stage="read", batch=number, error=repr(exc), trace=traceback.format_exc())
                    counts["inputs"] += len(records)
                    continue
                written = {r["id"]: r["abstract"] for r in records}
                for a in abstracts:
                    if a.text != written[a.id]:
                        counts["offset errors"] += 1
                        note("reader changed the text", id=a.id)
                counts["inputs"] += len(records)
                counts["read"] += len(abstracts)
                counts["skipped"] += len(report.skipped)
                pairs = []
                for a in abstracts:
                    signal.setitimer(signal.ITIMER_PROF, time_limit)
                    t0 = time.process_time()
                    try:
                        [x] = list(extract([a]))
                    except Hang:
                        counts["hangs"] += 1
                        note("hang", id=a.id, limit=time_limit, text=a.text)
                        continue
                    except Exception as exc:  # noqa: BLE001
                        counts["crashes"] += 1
                        note("crash", stage="extract", id=a.id, error=repr(exc), text=a.text, trace=traceback.format_exc())
                        continue
                    finally:
                        signal.setitimer(signal.ITIMER_PROF, 0)
                    seconds = time.process_time() - t0
                    counts["extracted"] += 1
                    slowest = sorted([*slowest, (seconds, a.id, a.text[:80])], reverse=True)[:10]
                    for error in offset_errors(a, x):
                        counts["offset errors"] += 1
                        note("offset error", id=a.id, error=error, text=a.text)
                    pairs.append((a, x))
                try:
                    graph = build_graph(pairs)
                    for edge in graph.edges:
                        for ev in edge.evidence:
                            if not ev.sentence_start <= ev.start <= ev.end <= ev.sentence_end:
                                counts["offset errors"] += 1
                                note("evidence outside its sentence", edge=edge.key, paper=ev.paper)
                    out = work / "out"
                    with outdir.exclusive(out):
                        write_outputs(graph, summarize(graph, [x for _, x in pairs]), out)
                    counts["written batches"] += 1
                except Exception as exc:  # noqa: BLE001
                    counts["crashes"] += 1
                    note("crash", stage="resolve/write", batch=number, error=repr(exc), trace=traceback.format_exc())
                note("batch", batch=number, **counts, seconds=round(time.perf_counter() - started, 1))
        except KeyboardInterrupt:
            note("stopped", **counts)
    shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print(f"| inputs | read | extracted | skipped by the reader | crashes | hangs (> {time_limit} CPU s) | offset errors | batches written | seconds | extracted/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {counts['inputs']:,} | {counts['read']:,} | {counts['extracted']:,} | {counts['skipped']:,} | {counts['crashes']} | {counts['hangs']} | "
          f"{counts['offset errors']} | {counts['written batches']} | {elapsed:,.0f} | {counts['extracted'] / elapsed:.1f} |")
    print("\n| slowest extraction, CPU s | id | text |\n|---|---|---|")
    for seconds, aid, text in slowest:
        print(f"| {seconds:.2f} | {aid} | {json.dumps(text, ensure_ascii=False)[:80]} |")
    print(f"\nlog: {log_path}")


if __name__ == "__main__":
    main()
