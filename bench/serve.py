"""Load on ``kg serve``: concurrent clients on loopback, latency per endpoint, throughput, RSS, and a
deliberately slow SPARQL query that must time out (504) without slowing the others.

Usage:
    python bench/serve.py OUT [--clients 16] [--seconds 150] [--sparql-timeout 5] [--workers 1] [--cache-mb 64]

Starts ``kg serve OUT`` on a free loopback port, then runs two phases of ``--seconds`` each with
``--clients`` threads (one ``httpx.Client`` each) cycling through a mix: every canned query with its
bench samples (``kg.testing.param_sets``), entity search, entity cards and a small SPARQL query.
Phase 2 adds one more client that keeps sending a SPARQL cross product that cannot finish in time.
Prints p50/p95/p99 per endpoint and phase, requests per second, errors (any status but 200, and
status 0 for a request that got no answer within 60 s; the slow query's 504 is counted apart), the
RSS of the server (its processes and SPARQL workers) sampled every 5 s, and the answers one server
process keeps.  Targets: canned-query p95 <= 100 ms at 16 clients, zero errors, RSS flat, every slow
query a 504.  Bounded: 2 x ``--seconds`` of load, loopback only.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

import kg
from kg.testing import param_sets

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper . ?q a kg:Paper . ?r a kg:Paper }"
"""Slow (7.5e12 rows on the ICLR graph) but lean: a cross product of all triples would meet the
workers' memory cap (503) before their time limit (504)."""
SMALL = "SELECT ?p ?t WHERE { ?p a kg:Paper ; dcterms:title ?t } LIMIT 20"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants (server processes, SPARQL workers), in MB."""
    total, pids = 0, [pid]
    while pids:
        p = pids.pop()
        try:
            pids += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
            status = Path(f"/proc/{p}/status").read_text()
        except FileNotFoundError:  # a SPARQL worker replaced after a timeout
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of ``pid`` and its living descendants, in seconds."""
    total, pids = 0.0, [pid]
    tick = os.sysconf("SC_CLK_TCK")
    while pids:
        p = pids.pop()
        try:
            pids += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _mix(out: Path) -> list[tuple[str, str, dict]]:
    """(endpoint label, path, params) for every request the clients cycle through."""
    document = kg.open(out).document
    samples = param_sets(document)
    best = sorted((n for n in document.nodes if n.label not in ("Paper", "Bound", "Result")), key=lambda n: -n.support)[:5]
    del document
    gc.collect()
    mix = [(f"query {name}", f"/api/queries/{name}", {k: str(v) for k, v in params.items()})
           for name, sets in sorted(samples.items()) for params in sets]
    mix += [("entities search", "/api/entities", {"q": n.name.lower()}) for n in best]
    mix += [("entity card", f"/api/entities/{n.id}", {"evidence": "20"}) for n in best[:2]]
    mix += [("sparql small", "/sparql", {"query": SMALL})]
    return mix


def _client(url: str, mix: list, offset: int, until: float, times: dict, errors: dict, lock: threading.Lock) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        for label, path, params in itertools.islice(itertools.cycle(mix), offset, None):
            if time.monotonic() >= until:
                return
            start = time.perf_counter()
            try:
                status = client.get(path, params=params).status_code
            except httpx.TransportError:  # a client timeout (60 s) is an error, not the end of this client
                status = 0
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                times[label].append(elapsed)
                if status != 200:
                    errors[(label, status)] += 1


def _slow_client(url: str, until: float, results: list) -> None:
    with httpx.Client(base_url=url, timeout=120) as client:
        while time.monotonic() < until:
            start = time.perf_counter()
            status = client.get("/sparql", params={"query": SLOW}).status_code
            results.append((status, time.perf_counter() - start))


def _phase(url: str, mix: list, clients: int, seconds: float, pid: int, slow: bool) -> dict:
    times: dict[str, list[float]] = defaultdict(list)
    errors: dict[tuple[str, int], int] = defaultdict(int)
    lock = threading.Lock()
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_client, args=(url, mix, i * len(mix) // clients, until, times, errors, lock))
               for i in range(clients)]
    slow_results: list = []
    if slow:
        threads.append(threading.Thread(target=_slow_client, args=(url, until, slow_results)))
    rss = []
    started, server_cpu, own_cpu = time.monotonic(), _cpu_seconds(pid), time.process_time()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        rss.append(_rss_mb(pid))
        time.sleep(5)
    for t in threads:
        t.join()
    return {"times": times, "errors": errors, "rss": rss, "seconds": time.monotonic() - started, "slow": slow_results,
            "server_cpu": _cpu_seconds(pid) - server_cpu, "client_cpu": time.process_time() - own_cpu}


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def _report(name: str, result: dict, clients: int) -> None:
    times, errors = result["times"], result["errors"]
    total = sum(len(v) for v in times.values())
    print(f"\n{name}: {clients} clients, {result['seconds']:.0f} s, {total} requests, {total / result['seconds']:.1f} req/s, "
          f"errors {sum(errors.values())}")
    print(f"{'endpoint':<36} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    print("-" * 70)
    canned = [t for label, v in times.items() if label.startswith("query ") for t in v]
    for label in sorted(times):
        v = times[label]
        print(f"{label:<36} {len(v):>6} {_pct(v, 50):>8.1f} {_pct(v, 95):>8.1f} {_pct(v, 99):>8.1f}")
    print(f"{'all canned queries':<36} {len(canned):>6} {_pct(canned, 50):>8.1f} {_pct(canned, 95):>8.1f} {_pct(canned, 99):>8.1f}")
    for (label, status), n in sorted(errors.items()):
        print(f"error: {label} -> {status} x{n}")
    print(f"CPU per request: server {1000 * result['server_cpu'] / total:.1f} ms, these clients {1000 * result['client_cpu'] / total:.1f} ms")
    rss = result["rss"]
    print(f"server RSS MB (every 5 s): first {rss[0]:.0f}, max {max(rss):.0f}, last {rss[-1]:.0f}; every 30 s: "
          + " ".join(f"{r:.0f}" for r in rss[::6]))
    if result["slow"]:
        statuses = sorted({s for s, _ in result["slow"]})
        print(f"slow SPARQL: {len(result['slow'])} sent, statuses {statuses}, "
              f"answered after {min(s for _, s in result['slow']):.1f}-{max(s for _, s in result['slow']):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=150, help="per phase (two phases)")
    parser.add_argument("--sparql-timeout", type=float, default=5)
    parser.add_argument("--workers", type=int, default=1, help="kg serve --workers (server processes)")
    parser.add_argument("--cache-mb", type=float, default=None, help="kg serve --cache-mb (0: every request computed)")
    args = parser.parse_args()

    mix = _mix(args.out)
    port = _port()
    command = [sys.executable, "-c", "from kg.cli import cli; cli()", "serve", str(args.out), "--port", str(port),
               "--sparql-timeout", str(args.sparql_timeout), "--workers", str(args.workers)]
    command += ["--cache-mb", str(args.cache_mb)] if args.cache_mb is not None else []
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                health = httpx.get(f"{url}/health", timeout=5).json()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("kg serve did not start")
                time.sleep(0.5)
        print(f"{args.out}: {health['papers']} papers, {health['nodes']} nodes, {health['edges']} edges; "
              f"{len(mix)} requests in the mix; SPARQL timeout {args.sparql_timeout:g} s; {args.workers} server process(es)")
        for label, path, params in mix:  # warm: first resolutions, the Browser guide's examples, caches
            httpx.get(url + path, params=params, timeout=120)
        _report("phase 1 (mix)", _phase(url, mix, args.clients, args.seconds, server.pid, slow=False), args.clients)
        _report("phase 2 (mix + a slow SPARQL client)", _phase(url, mix, args.clients, args.seconds, server.pid, slow=True),
                args.clients)
        cache = httpx.get(f"{url}/health", timeout=30).json()["cache"]
        print(f"\nanswers kept (one server process): {cache['entries']} entries, {cache['bytes'] / 1e6:.1f} of "
              f"{cache['max_bytes'] / 1e6:.0f} MB, {cache['hits']} hits, {cache['misses']} misses")
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
