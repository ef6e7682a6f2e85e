"""Faults: `kg build` killed with SIGKILL at random moments, over and over.

OUT first holds a smaller graph (the first 20 seeds, digest P); each trial starts a full build of
the seeds (digest C of a clean build) and kills it at a random moment of one phase, in turn:
extraction (a random time before the temporary folder appears), the writers (a random time after
it appears) and the swap (as soon as the temporary folder holds summary.json, the last file before
the rename).  After the kill OUT must hold P or C whole (``kg.testing.output_digest``) and answer
`kg info` and `kg query`; then a rerun must give C and leave no `.OUT.*` sibling behind.
Prints one row per trial and the totals; "lost" counts trials where anything failed.
Run: python bench/faults.py [--trials 20] [--seed 21]
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from kg.settings import shared_path
from kg.testing import output_digest

SEEDS = shared_path("seeds")
ROOT = Path(__file__).resolve().parents[1]
KG = [sys.executable, "-c", "from kg.cli import cli; cli()"]
PHASES = ("extraction", "writers", "swap")


def kg(*args: str, wait: bool = True):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([*KG, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    out, err = proc.communicate()
    return proc.returncode, out, err


def litter(out: Path) -> list[Path]:
    return sorted(p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def size_mb(paths: list[Path]) -> float:
    return sum(f.stat().st_size for p in paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()) / 1e6


def temporary(out: Path) -> Path | None:
    found = [p for p in litter(out) if p.name.startswith(f".{out.name}.tmp-")]
    return found[0] if found else None


def kill_at(out: Path, phase: str, rng: random.Random, timing: dict[str, float]) -> tuple[float, str]:
    """Start a build, kill it at a random moment of ``phase``; returns when, and where it really was."""
    proc = kg("build", str(SEEDS), "-o", str(out), wait=False)
    t0 = time.perf_counter()
    tmp = None
    if phase == "extraction":
        deadline = t0 + rng.uniform(0.2, timing["extraction"])
        while time.perf_counter() < deadline and (tmp := temporary(out)) is None:
            time.sleep(0.001)
    else:
        while (tmp := temporary(out)) is None and proc.poll() is None:
            time.sleep(0.001)
        if phase == "writers":
            time.sleep(rng.uniform(0, 0.7 * timing["writers"]))
        else:  # summary.json is the last file written before the exchange
            while tmp is not None and not (tmp / "summary.json").exists() and proc.poll() is None:
                time.sleep(0.0002)
    at = time.perf_counter() - t0
    now = temporary(out)
    if proc.poll() is not None:
        seen = "finished"
    elif now is None:
        seen = "extraction" if tmp is None else "after the swap"
    else:
        seen = "swap (summary written)" if (now / "summary.json").exists() else "writers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return at, seen


def readable(out: Path) -> bool:
    info = kg("info", str(out))
    query = kg("query", "top_entities", "-p", "type", "Method", "--out", str(out), "--format", "json")
    return info[0] == 0 and query[0] == 0 and query[1].strip().startswith("[")


@click.command()
@click.option("--trials", type=int, default=20, show_default=True)
@click.option("--seed", type=int, default=21, show_default=True)
def main(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="kg-faults-"))
    previous, clean, out = work / "previous", work / "clean", work / "out"
    assert kg("build", str(SEEDS), "-o", str(previous), "--limit", "20")[0] == 0
    t0 = time.perf_counter()
    proc = kg("build", str(SEEDS), "-o", str(clean), wait=False)
    while temporary(clean) is None and proc.poll() is None:
        time.sleep(0.001)
    appeared = time.perf_counter() - t0
    assert proc.wait() == 0
    timing = {"extraction": appeared, "writers": time.perf_counter() - t0 - appeared}
    p_digest, c_digest = output_digest(previous), output_digest(clean)
    print(f"clean build: {appeared:.1f} s to the temporary folder, {timing['writers']:.1f} s of writers and swap")
    print("| trial | aimed at | killed in | at s | OUT after kill | readable | litter MB | rerun = clean | litter after rerun | lost |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {"old": 0, "new": 0, "lost": 0}
    for trial in range(1, trials + 1):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(previous, out)
        phase = PHASES[(trial - 1) % len(PHASES)]
        at, seen = kill_at(out, phase, rng, timing)
        digest = output_digest(out) if (out / "summary.json").exists() else None
        state = {p_digest: "old", c_digest: "new"}.get(digest, "BROKEN")
        ok_read = readable(out)
        left = size_mb(litter(out))
        code = kg("build", str(SEEDS), "-o", str(out))[0]
        rerun = code == 0 and output_digest(out) == c_digest
        after = [p.name for p in litter(out)]
        lost = state == "BROKEN" or not ok_read or not rerun or bool(after)
        totals["lost" if lost else state] += 1
        print(f"| {trial} | {phase} | {seen} | {at:.2f} | {state} | {ok_read} | {left:.1f} | {rerun} | {len(after)} | {'yes' if lost else 'no'} |", flush=True)
    print(f"\n{trials} trials: previous graph kept {totals['old']}, new graph complete {totals['new']}, lost {totals['lost']}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
