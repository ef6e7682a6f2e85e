"""Answers kept in memory: the graph a server reads does not change while it runs (a rebuild swaps
the folder; the server keeps the store it opened), so the same GET gets the same bytes.

A plain ASGI middleware in front of the routes: a request whose path starts with one of
``prefixes`` is looked up by (path, query string, ``Accept``); a miss runs the route and keeps a
200 answer if it fits.  Entries are dropped least recently used first, so the memory held stays
under ``max_bytes``.  Each server process has its own.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_ENTRY_SHARE = 16
"""No one answer may take more than this share of the cache (a 1,000-row CSV is kept; an answer the
size of the cache would evict everything else)."""


class Answers:
    """Least-recently-used answers, at most ``max_bytes`` of body (0: none are kept), with counts."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: OrderedDict[tuple, tuple[int, list, bytes]] = OrderedDict()
        self.size = self.hits = self.misses = 0

    def stats(self) -> dict[str, int]:
        return {"entries": len(self.entries), "bytes": self.size, "max_bytes": self.max_bytes, "hits": self.hits,
                "misses": self.misses}

    def get(self, key: tuple) -> tuple[int, list, bytes] | None:
        kept = self.entries.get(key)
        if kept is None:
            self.misses += 1
        else:
            self.entries.move_to_end(key)
            self.hits += 1
        return kept

    def put(self, key: tuple, status: int, headers: list, body: bytes) -> None:
        if len(body) * MAX_ENTRY_SHARE > self.max_bytes or key in self.entries:
            return
        self.entries[key] = (status, list(headers), body)
        self.size += len(body)
        while self.size > self.max_bytes:
            _, (_, _, dropped) = self.entries.popitem(last=False)
            self.size -= len(dropped)


class ResponseCache:
    """The middleware: GET requests under ``prefixes`` answered from ``answers`` when they can be."""

    def __init__(self, app: Any, *, answers: Answers, prefixes: tuple[str, ...]) -> None:
        self.app, self.answers, self.prefixes = app, answers, prefixes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if (scope["type"] != "http" or scope["method"] != "GET" or self.answers.max_bytes <= 0
                or not scope["path"].startswith(self.prefixes)):
            return await self.app(scope, receive, send)
        key = (scope["path"], scope["query_string"], dict(scope["headers"]).get(b"accept", b""))
        if (kept := self.answers.get(key)) is not None:
            status, headers, body = kept
            await send({"type": "http.response.start", "status": status, "headers": list(headers)})
            await send({"type": "http.response.body", "body": body})
            return
        start: dict = {}
        chunks: list[bytes] = []

        async def keep(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message, headers=list(message.get("headers", [])))  # before outer layers add theirs
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body") and start.get("status") == 200:
                    self.answers.put(key, start["status"], start.get("headers", []), b"".join(chunks))
            await send(message)

        await self.app(scope, receive, keep)
