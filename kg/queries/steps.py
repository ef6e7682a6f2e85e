"""Queries that run as a few statements: a query file made of parts, and the program that runs them.

Oxigraph evaluates every part of one statement, even a part the others have already ruled out:
``connection`` must stop at the shortest length that has a path, and the single statement
enumerated every path of up to three papers (over 40 s on the full ICLR 2026 graph).  Such a
query's file keeps its parsed header and then holds named parts, each opening with a
``# part: NAME`` line (``// part: NAME`` in Cypher, where OPTIONAL CALL usually does the same in
one statement).  The program below runs the parts in order; every value a part needs is bound as
one of the query's declared parameters, never pasted into the text.  The Python backend runs the
reference function instead.

Example:
    >>> parts("# name: q\\n# part: one\\nSELECT 1\\n# part: two\\nSELECT 2")
    {'one': 'SELECT 1', 'two': 'SELECT 2'}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kg.schema.aggregates import RISING_DEPTH

Part = Callable[..., list[dict[str, Any]]]
"""``part(name, values, cap=None)``: the rows of one part run with these parameter values (``cap``: only
the first rows are kept)."""

_PART = re.compile(r"^\s*(?:#|//)\s*part:\s*(\w+)\s*$", re.MULTILINE)


def parts(text: str) -> dict[str, str]:
    """The named parts of a query file, in order (empty when the file is one statement)."""
    found = list(_PART.finditer(text))
    return {
        m.group(1): text[m.end() : found[i + 1].start() if i + 1 < len(found) else len(text)].strip()
        for i, m in enumerate(found)
    }


def connection(part: Part, a: str, b: str) -> list[dict[str, Any]]:
    """The path of ``kg.queries.python.connection``, found length by length (at most 3 papers).

    Parts: ``first`` — the smallest paper mentioning both ``a`` and ``b``; ``pair2`` and
    ``pair3`` — the smallest (paper of ``a``, entity of that paper) whose entity is one or two
    papers from ``b``; ``node`` — id, name and label of node ``a``.  A length is tried only when
    no shorter path exists, so the entity chosen by ``pair2``/``pair3`` is exactly one or two
    papers from ``b`` and the rest of the path is the same search from it: among equally short
    paths this picks the one whose ids sort first, as the reference does.
    """
    if a == b:
        return []
    path = [a]
    for length in (1, 2, 3):
        if _extend(part, path, b, length):
            return [part("node", {"a": node})[0] | {"step": i} for i, node in enumerate(path)]
    return []


def _extend(part: Part, path: list[str], b: str, length: int) -> bool:
    """Append the first path of ``length`` papers from ``path[-1]`` to ``b``; False when there is none."""
    if length == 1:
        rows = part("first", {"a": path[-1], "b": b})
        if rows:
            path += [rows[0]["n1"], b]
        return bool(rows)
    rows = part(f"pair{length}", {"a": path[-1], "b": b})
    if not rows:
        return False
    path += [rows[0]["n1"], rows[0]["n2"]]
    # n2 is exactly length - 1 papers from b (a shorter path from it would make a shorter whole)
    if not _extend(part, path, b, length - 1):
        raise RuntimeError(f"connection: no path of {length - 1} papers continues {path} to {b}")
    return True


def rising_entities(part: Part, type: str, since: int, limit: int) -> list[dict[str, Any]]:
    """The ``stored`` rows (the first ``RISING_DEPTH`` of the ranking, kept at build time) when they
    cover ``limit``; otherwise the rows of ``ranked``, run only when dated papers fall both before and
    since ``since``.

    Parts: ``stored`` — the kept rows by rank band; ``totals`` — dated papers before and since
    ``since``; ``ranked`` — the ranking counted from every dated mention.
    """
    rows = part("stored", {"type": type, "since": since, "limit": min(limit, RISING_DEPTH)}, limit)
    if limit <= RISING_DEPTH or len(rows) < RISING_DEPTH:  # fewer kept than the depth: they are all
        return rows
    totals = part("totals", {"since": since})
    if not totals or not totals[0]["before"] or not totals[0]["after"]:
        return []  # growth = after * totalBefore - before * totalAfter is never positive
    return part("ranked", {"type": type, "since": since, "limit": limit}, limit)


def similar_papers(part: Part, paper: str, k: int) -> list[dict[str, Any]]:
    """The first ``k`` rows of the ranking, each with its paper's title from the ``title`` part.

    Parts: ``strong`` ranks only candidates sharing two or more entities. A candidate sharing one
    scores 1 / (mine + theirs - 1) <= 1 / mine, and on equal scores more shared entities rank first,
    so when the k-th strong row scores at least 1 / mine (compared in integers: shared * mine >=
    mine + theirs - shared) no other candidate can enter the first k. Otherwise ``ranked`` ranks all.
    """
    rows = part("strong", {"paper": paper, "k": k}, k)[:k]
    if len(rows) < k or (rows and not _beats_one_shared(rows[-1])):
        rows = part("ranked", {"paper": paper, "k": k}, k)[:k]
    return [row | {"title": part("title", {"paper": row["similar"]})[0]["title"]} for row in rows]


def _beats_one_shared(row: dict[str, Any]) -> bool:
    """Whether ``row`` scores at least 1 / mine, the most a candidate sharing one entity can score."""
    return row["shared"] * row["mine"] >= row["mine"] + row["theirs"] - row["shared"]


def co_occurring(part: Part, entity: str, type: str | None, limit: int) -> list[dict[str, Any]]:
    """The ``stored`` rows when the entity's stored depth covers ``limit``, else the ``counted`` ones.

    Parts: ``depth`` — the entity's ``coOccurringDepth`` (none for an entity in few papers);
    ``stored`` — the first rows of its stored ranking for ``type`` (or every type); ``counted`` — the
    ranking counted from its papers.
    """
    depth = part("depth", {"entity": entity})[0]["depth"]
    values = {"entity": entity, "type": type, "limit": limit}
    return part("stored" if depth is not None and limit <= depth else "counted", values, limit)
