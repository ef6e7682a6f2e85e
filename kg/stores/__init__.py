"""Sinks: where a ``GraphDocument`` goes (embedded RDF store, Turtle, node-link JSON, GraphML, Neo4j).

Heavy backends are imported lazily so that ``import kg`` stays light.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import gzip
import multiprocessing
import os
import pickle
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO
from dataclasses import dataclass, field

from kg.records import GraphDocument


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a forked writer: be killed when ``parent`` dies (Linux), and exit now if it already has,
    so that no writer outlives the run that started it into the next run's clean-up."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@dataclass(frozen=True, slots=True)
class WriteReport:
    """What a sink wrote: counts by node label and edge type, and seconds per phase."""

    sink: str
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    batch_size: int = 0


def graph_counts(graph: GraphDocument) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes by label and edges by type, sorted by name: the counts every store must reproduce."""
    nodes = Counter(n.label for n in graph.nodes)
    edges = Counter(e.type for e in graph.edges)
    return dict(sorted(nodes.items())), dict(sorted(edges.items()))


def open_output(path: Path) -> BinaryIO:
    """A file to write an export into, gzip-compressed when its name ends in ``.gz``: level 6 (the
    level of ``graph.ttl.gz``'s segments, ``kg.stores.rdf``), no timestamp, so the same graph gives
    the same bytes."""
    if path.suffix == ".gz":
        return gzip.GzipFile(filename=str(path), mode="wb", compresslevel=6, mtime=0)  # type: ignore[return-value]
    return open(path, "wb")


def open_input(path: Path) -> BinaryIO:
    """An export to read, decompressed when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")  # type: ignore[return-value]


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic collector off while rows are built from a large graph: millions of small lists,
    dicts and strings, none cyclic, whose allocation makes the collector walk every live object
    again and again (two thirds of the time of building a relationship row per edge of the ICLR
    2026 graph)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def forked(doing: str, compute: Callable[..., Any], *args: Any) -> Iterator[Callable[[], Any]]:
    """``compute(*args)`` in a forked child while this process goes on (the child shares its memory
    copy-on-write); yields the function that waits for the value, or raises the child's error (a
    ``ChildProcessError`` saying "the process ``doing`` died" if it died).
    Leaving the block ends a child whose value was not taken.  Where the platform cannot fork, the
    value is computed here, when asked for."""
    if "fork" not in multiprocessing.get_all_start_methods():
        yield lambda: compute(*args)
        return
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_compute_in_child, args=(compute, args, send, os.getpid()), daemon=True)
    child.start()
    send.close()

    def value() -> Any:
        try:
            ok, outcome = receive.recv()
        except EOFError:
            child.join()
            raise ChildProcessError(f"the process {doing} died, exit code {child.exitcode}") from None
        if not ok:
            raise outcome
        return outcome

    try:
        yield value
    finally:
        child.kill()
        child.join()
        receive.close()


def _compute_in_child(compute: Callable[..., Any], args: tuple, send: Any, parent: int) -> None:
    die_with_parent(parent)
    try:
        with no_gc():
            outcome = (True, compute(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, which raises it
        outcome = (False, exc if _pickles(exc) else RuntimeError(f"{type(exc).__name__}: {exc}"))
    send.send(outcome)


def _pickles(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001 - whatever pickling raises, the value does not travel
        return False
    return True
