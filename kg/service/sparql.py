"""The SPARQL 1.1 Protocol endpoint's engine: queries only, on the store opened read-only, in worker
processes that a timeout can kill.

Why our own handler rather than the ``oxigraph`` server: Oxigraph evaluates ``SERVICE`` by fetching
any URL it names (a request-forgery hole on a shared service), has no per-query time limit that
stops the evaluation, and no row cap that tells the client it cut.  A query runs inside
``Store.query`` (Rust, no cancellation point), so a thread could only be abandoned still burning a
core; a process can be killed.  Each worker holds the store opened read-only and answers one query
at a time; a query over its time limit has its worker killed and replaced.
"""

from __future__ import annotations

import csv
import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from kg.errors import KGError
from kg.schema import vocab as v

RESULT_TYPES = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
}
GRAPH_TYPES = {"nt": "application/n-triples", "ttl": "text/turtle"}
_ALIASES = {"application/json": "json", "application/xml": "xml", "text/xml": "xml", "text/plain": "nt",
            "application/n-triples": "nt", "text/turtle": "ttl"}
_REFUSED = re.compile(r"(?<![\w?$:])(SERVICE|LOAD|INSERT|DELETE|CLEAR|DROP|CREATE|COPY|MOVE|ADD|WITH)\b(?!:)", re.IGNORECASE)
"""Keywords of SERVICE and of SPARQL Update, not as a variable (``?load``) or in a prefixed name."""
_HIDDEN = re.compile(r"""#[^\n]*|<[^<>"{}|^`\\\s]*>|'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""", re.DOTALL)


class QueryRefused(KGError):
    """A SPARQL request the endpoint does not run: an update, SERVICE or LOAD."""


class QueryTimeout(KGError):
    """A SPARQL query ran past the endpoint's time limit and was stopped."""


class QueryTooLarge(KGError):
    """A SPARQL query needed more memory than a worker may use and was stopped."""


class Overloaded(KGError):
    """Every SPARQL worker stayed busy for the whole time limit."""


def refuse_unsafe(query: str) -> None:
    """Refuse SERVICE (the store would fetch any URL it names), LOAD and every other update keyword,
    found in the query's code outside strings, IRIs and comments.

    Example:
        >>> refuse_unsafe('SELECT * WHERE { ?s ?p "SERVICE" } # LOAD')
        >>> refuse_unsafe("SELECT * WHERE { SERVICE <http://169.254.169.254/> { ?s ?p ?o } }")
        Traceback (most recent call last):
        ...
        kg.service.sparql.QueryRefused: SERVICE is not allowed: this endpoint answers read-only queries on its own graph
    """
    found = _REFUSED.search(_HIDDEN.sub(" ", query))
    if found:
        raise QueryRefused(f"{found.group(1).upper()} is not allowed: this endpoint answers read-only queries on its own graph")


def negotiate(accept: str | None, format: str | None = None) -> str:
    """The result format (a key of ``RESULT_TYPES``/``GRAPH_TYPES``) a client asks for, by ``format``
    or the first ``Accept`` type we serve (JSON by default).

    Example:
        >>> negotiate("text/csv;q=0.9, application/sparql-results+xml"), negotiate(None, "tsv")
        ('csv', 'tsv')
    """
    if format:
        return format
    for part in (accept or "").split(","):
        mime = part.split(";")[0].strip().lower()
        for key, value in (*RESULT_TYPES.items(), *GRAPH_TYPES.items()):
            if mime == value:
                return key
        if mime in _ALIASES:
            return _ALIASES[mime]
    return "json"


@dataclass(frozen=True, slots=True)
class Answer:
    """A serialised answer: bytes, media type, whether the row cap cut it, rows sent."""

    body: bytes
    media_type: str
    truncated: bool
    rows: int


def evaluate(store: Any, query: str, fmt: str, cap: int) -> Answer:
    """Run ``query`` on ``store`` (the kg prefixes predeclared) and serialise at most ``cap`` rows as ``fmt``."""
    import pyoxigraph as ox

    try:
        result = store.query(query, prefixes=v.PREFIXES)
    except SyntaxError as exc:
        raise KGError(f"SPARQL syntax error: {exc}") from None
    try:
        if isinstance(result, ox.QueryBoolean):
            return _boolean(bool(result), fmt)
        if isinstance(result, ox.QueryTriples):
            return _triples(result, fmt, cap)
        return _solutions(result, fmt, cap)
    except (OSError, RuntimeError, ValueError) as exc:
        raise KGError(f"SPARQL query failed: {exc}") from None


def _taken(iterator: Any, cap: int) -> tuple[list[Any], bool]:
    items = []
    for item in iterator:
        if len(items) == cap:
            return items, True
        items.append(item)
    return items, False


def _solutions(result: Any, fmt: str, cap: int) -> Answer:
    if fmt not in RESULT_TYPES:
        fmt = "json"
    names = [var.value for var in result.variables]
    rows, truncated = _taken(result, cap)
    cells = [[sol[n] for n in names] for sol in rows]
    if fmt == "json":
        bindings = [{n: _json_term(t) for n, t in zip(names, row) if t is not None} for row in cells]
        body = json.dumps({"head": {"vars": names}, "results": {"bindings": bindings}}, ensure_ascii=False).encode()
    elif fmt == "xml":
        out = ['<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>']
        out += [f"<variable name={quoteattr(n)}/>" for n in names]
        out.append("</head><results>")
        for row in cells:
            out.append("<result>")
            out += [f"<binding name={quoteattr(n)}>{_xml_term(t)}</binding>" for n, t in zip(names, row) if t is not None]
            out.append("</result>")
        out.append("</results></sparql>\n")
        body = "".join(out).encode()
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(names)
        writer.writerows([_csv_term(t) for t in row] for row in cells)
        body = buffer.getvalue().encode()
    else:
        lines = ["\t".join(f"?{n}" for n in names)]
        lines += ["\t".join("" if t is None else str(t) for t in row) for row in cells]
        body = ("\n".join(lines) + "\n").encode()
    return Answer(body, RESULT_TYPES[fmt], truncated, len(cells))


def _boolean(value: bool, fmt: str) -> Answer:
    if fmt == "xml":
        body = f'<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><boolean>{str(value).lower()}</boolean></sparql>\n'
        return Answer(body.encode(), RESULT_TYPES["xml"], False, 1)
    return Answer(json.dumps({"head": {}, "boolean": value}).encode(), RESULT_TYPES["json"], False, 1)


def _triples(result: Any, fmt: str, cap: int) -> Answer:
    import pyoxigraph as ox

    triples, truncated = _taken(result, cap)
    kind = fmt if fmt in GRAPH_TYPES else "nt"
    body = ox.serialize(triples, format=ox.RdfFormat.TURTLE if kind == "ttl" else ox.RdfFormat.N_TRIPLES,
                        prefixes=v.PREFIXES if kind == "ttl" else None)
    return Answer(body or b"", GRAPH_TYPES[kind], truncated, len(triples))


def _json_term(term: Any) -> dict[str, str]:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, ox.Literal):
        out = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != v.XSD + "string":
            out["datatype"] = term.datatype.value
        return out
    return {"type": "literal", "value": str(term)}


def _xml_term(term: Any) -> str:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, ox.BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if isinstance(term, ox.Literal):
        if term.language:
            return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
        if term.datatype.value != v.XSD + "string":
            return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"
        return f"<literal>{escape(term.value)}</literal>"
    return f"<literal>{escape(str(term))}</literal>"


def _csv_term(term: Any) -> str:
    import pyoxigraph as ox

    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return term.value if isinstance(term, (ox.NamedNode, ox.Literal)) else str(term)


# -- worker processes ----------------------------------------------------------------------------


def work(path: str, fd: int, memory_bytes: int = 0) -> None:
    """A worker's loop: cap its memory, open the store read-only, answer (query, format, cap) on
    socket ``fd`` until it closes.  The cap is on the heap (``RLIMIT_DATA``), not on the store's
    files mapped read-only; a query that needs more aborts the worker, which the pool reports."""
    import resource

    import pyoxigraph as ox

    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    conn = Connection(fd)
    store = ox.Store.read_only(path)
    conn.send(("ready", None))
    while True:
        try:
            query, fmt, cap = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("ok", evaluate(store, query, fmt, cap)))
        except KGError as exc:
            conn.send(("error", str(exc)))


class _Worker:
    """A worker process (a fresh interpreter: forking a threaded server is unsafe) and its socket."""

    def __init__(self, path: str, memory_bytes: int) -> None:
        ours, theirs = socket.socketpair()
        root = str(Path(__file__).resolve().parents[2])  # this checkout's kg, whatever the caller's sys.path
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        code = f"from kg.service.sparql import work; work({path!r}, {theirs.fileno()}, {int(memory_bytes)})"
        self.process = subprocess.Popen([sys.executable, "-c", code], pass_fds=[theirs.fileno()], env=env,
                                        stderr=subprocess.DEVNULL)  # an aborted query's allocator message
        theirs.close()
        self.conn = Connection(ours.detach())
        self.conn.recv()  # ready: the store is open

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.conn.close()


class SparqlPool:
    """Worker processes that each hold the store read-only; ``run`` gives one query to an idle one
    for at most ``timeout`` seconds, then kills it (``QueryTimeout``) and starts a fresh one."""

    def __init__(self, store_path: str, *, workers: int = 2, timeout: float = 10.0, row_cap: int = 10_000,
                 memory_mb: int = 0) -> None:
        self.path, self.timeout, self.row_cap, self.memory_mb = store_path, timeout, row_cap, memory_mb
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        for _ in range(workers):
            self._add()

    def _add(self) -> None:
        worker = _Worker(self.path, self.memory_mb * 1_000_000)
        with self._lock:
            if self._closed:
                worker.stop()
                return
            self._all.append(worker)
        self._idle.put(worker)

    def run(self, query: str, fmt: str) -> Answer:
        """Answer ``query`` as ``fmt`` within the time limit (``QueryTimeout``/``Overloaded`` otherwise)."""
        refuse_unsafe(query)
        if self._closed:
            raise Overloaded("the SPARQL workers are stopped: the service is shutting down")
        try:
            worker = self._idle.get(timeout=self.timeout)
        except queue.Empty:
            raise Overloaded(f"every SPARQL worker stayed busy for {self.timeout:g} s; try again later") from None
        worker.conn.send((query, fmt, self.row_cap))
        if not worker.conn.poll(self.timeout):
            self._replace(worker)
            raise QueryTimeout(f"the query ran past the {self.timeout:g} s limit and was stopped; narrow it or add a LIMIT")
        try:
            status, value = worker.conn.recv()
        except (EOFError, OSError):  # the worker died (over its memory cap, a crash): replace it
            self._replace(worker)
            if self.memory_mb and worker.process.returncode == -signal.SIGABRT:
                raise QueryTooLarge(f"the query needed more than the {self.memory_mb} MB a SPARQL worker may use "
                                    "and was stopped; narrow it or add a LIMIT") from None
            raise Overloaded("the SPARQL worker stopped while answering; try again") from None
        self._idle.put(worker)
        if status == "error":
            raise KGError(value)
        return value

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker`` and start its successor in the background, so the 504 is not held up by it."""
        with self._lock:
            self._all.remove(worker)
        worker.stop()
        threading.Thread(target=self._add, daemon=True).start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._all = self._all, []
        for worker in workers:
            worker.stop()
