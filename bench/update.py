"""Benchmark: `kg add` of N new abstracts to a graph of M papers and `kg remove` of N papers, against a
full `kg build` of the same final set, each split into extraction and resolve + write seconds.

The graph is built from the first M ICLR 2026 abstracts (``--papers all``: the whole file, the full
ICLR graph; about 20 minutes on 2 cores); the N new ones are the next N of the file, or with
``--papers all`` the first N of the older ICLR/ICML/NeurIPS file.  `kg add` adds them, a full build of
the M + N papers is timed for comparison, then `kg remove` takes the same N out again and is compared
with the first build (the same final set).  Extraction is ``summary.json``'s ``seconds.extract`` (for an
update: reading the sources, loading the pipeline and extracting the new papers); resolve + write is
the rest of the run, reading the kept extraction records included.  The last column says whether
the updated folder equals the full build's (``kg.testing.output_digest``).

With ``--from OUT`` (a folder ``kg build`` wrote, e.g. of the whole ICLR 2026 file), the graph updated
is OUT's papers, and the "full build" rows write the same final set from its kept extraction records
(resolve + write, no extraction): the update is compared with what it replaces, without an hour of
parsing.  The new abstracts are then the first N of the older file that OUT does not hold.
Run: python bench/update.py [--papers 2000] [--n 100] [--jobs 1] [--from OUT]
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from pathlib import Path

import click

import kg
from kg.corpus import read_abstracts
from kg.settings import shared_path
from kg.testing import output_digest, write_jsonl

CORPUS = shared_path("corpus", "iclr2026.jsonl.gz")
OLDER = shared_path("corpus", "iclr-icml-neurips-older.jsonl.gz")


def _row(what: str, papers: str, seconds: dict, wall: float, same: str = "") -> str:
    """Extraction, then the rest split into reading the kept records, resolving (with the aggregates)
    and writing the outputs."""
    extract, records, write = seconds.get("extract", 0.0), seconds.get("records", 0.0), seconds["write"]
    rest = wall - extract
    return (f"| {what} | {papers} | {extract:.1f} | {rest:.1f} | {records:.1f} | {rest - records - write:.1f} | {write:.1f} | "
            f"{wall:.1f} | {same} |")


@click.command()
@click.option("--papers", default="2000", show_default=True, help="M, papers in the graph updated ('all': the whole corpus file).")
@click.option("--n", type=int, default=100, show_default=True, help="N, abstracts added, then removed.")
@click.option("--jobs", type=int, default=1, show_default=True)
@click.option("--corpus", type=click.Path(exists=True, path_type=Path), default=CORPUS)
@click.option("--from", "source", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Update a copy of this built folder; full builds are written from kept records.")
def main(papers: str, n: int, jobs: int, corpus: Path, source: Path | None) -> None:
    if source is not None:
        return _from_records(source, n, jobs)
    abstracts = list(read_abstracts([corpus]))
    if papers == "all":
        base, new = abstracts, [a for a in read_abstracts([OLDER]) if a.id not in {b.id for b in abstracts}][:n]
    else:
        base, new = abstracts[: int(papers)], abstracts[int(papers): int(papers) + n]
    m = len(base)
    work = Path(tempfile.mkdtemp(prefix="bench-update-"))
    try:
        base_src, final_src, new_src = write_jsonl(work / "base.jsonl", base), write_jsonl(work / "final.jsonl", base + new), write_jsonl(work / "new.jsonl", new)
        out, rebuilt, initial = work / "out", work / "rebuilt", work / "initial"
        rows = []

        t0 = time.perf_counter()
        first = kg.build([base_src], initial, jobs=jobs)
        initial_wall = time.perf_counter() - t0
        shutil.copytree(initial, out)

        t0 = time.perf_counter()
        added = kg.api.add(out, [new_src], jobs=jobs)
        wall = time.perf_counter() - t0
        t0 = time.perf_counter()
        full = kg.build([final_src], rebuilt, jobs=jobs)
        full_wall = time.perf_counter() - t0
        same = "yes" if output_digest(out) == output_digest(rebuilt) else "NO"
        rows.append(_row(f"kg add {len(added.added)}", f"{m} -> {m + len(new)}", added.summary["seconds"], wall, same))
        rows.append(_row("full kg build", f"{m + len(new)}", full.summary["seconds"], full_wall))

        t0 = time.perf_counter()
        removed = kg.api.remove(out, [a.id for a in new])
        wall = time.perf_counter() - t0
        same = "yes" if output_digest(out) == output_digest(initial) else "NO"
        rows.append(_row(f"kg remove {len(removed.removed)}", f"{m + len(new)} -> {m}", removed.summary["seconds"], wall, same))
        rows.append(_row("full kg build", f"{m}", first.summary["seconds"], initial_wall))

        records = (out / "extractions.jsonl.gz").stat().st_size / 2**20
        print(f"graph of {m} papers: {full.summary['nodes']:,} nodes, {full.summary['edges']:,} edges; "
              f"kept extraction records {records:.1f} MB; jobs {jobs}")
        print("| run | papers | extraction s | resolve + write s | of which: kept records s | resolve s | write s | total s | same as full build |")
        print("|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            print(row)
        for what, result in (("kg add", added), ("kg remove", removed), ("full build", full)):
            print(f"{what} writers s: " + ", ".join(f"{k} {v:.1f}" for k, v in result.summary["seconds"]["writers"].items()))
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _write_from_records(source: Path, out: Path) -> tuple[dict, float]:
    """What ``kg build`` writes for ``source``'s papers, from its kept extraction records (no extraction)."""
    from kg import archive, outdir

    t0 = time.perf_counter()
    out = out.resolve()
    with outdir.exclusive(out):
        records = list(archive.read(source / archive.FILE_NAME))
        _, summary, _ = kg.api._resolve_and_write(records, archive.read_header(source / archive.FILE_NAME), out,
                                                  skipped=[], seconds={"extract": 0.0}, started=t0)
    return summary, time.perf_counter() - t0


def _from_records(source: Path, n: int, jobs: int) -> None:
    from kg import archive

    held = {a.id for a, _ in archive.read(source / archive.FILE_NAME)}
    new = [a for a in read_abstracts([OLDER]) if a.id not in held][:n]
    work = Path(tempfile.mkdtemp(prefix="bench-update-"))
    try:
        new_src = write_jsonl(work / "new.jsonl", new)
        out, rebuilt, initial = work / "out", work / "rebuilt", work / "initial"
        first, initial_wall = _write_from_records(source, initial)
        shutil.copytree(initial, out)
        t0 = time.perf_counter()
        added = kg.api.add(out, [new_src], jobs=jobs)
        add_wall = time.perf_counter() - t0
        full, full_wall = _write_from_records(out, rebuilt)
        add_same = "yes" if output_digest(out) == output_digest(rebuilt) else "NO"
        t0 = time.perf_counter()
        removed = kg.api.remove(out, [a.id for a in new])
        remove_wall = time.perf_counter() - t0
        remove_same = "yes" if output_digest(out) == output_digest(initial) else "NO"
        m = len(held)
        print(f"graph of {m} papers: {full['nodes']:,} nodes, {full['edges']:,} edges; jobs {jobs}; full builds written from kept records")
        print("| run | papers | extraction s | resolve + write s | of which: kept records s | resolve s | write s | total s | same as full build |")
        print("|---|---|---|---|---|---|---|---|---|")
        print(_row(f"kg add {len(added.added)}", f"{m} -> {m + len(new)}", added.summary["seconds"], add_wall, add_same))
        print(_row("full write", f"{m + len(new)}", full["seconds"], full_wall))
        print(_row(f"kg remove {len(removed.removed)}", f"{m + len(new)} -> {m}", removed.summary["seconds"], remove_wall, remove_same))
        print(_row("full write", f"{m}", first["seconds"], initial_wall))
        for what, seconds in (("kg add", added.summary["seconds"]), ("kg remove", removed.summary["seconds"]), ("full write", full["seconds"])):
            print(f"{what} writers s: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds["writers"].items()))
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
