"""Post-processing shared by every backend: what neither Cypher nor SPARQL can say well.

Comparing bounds needs sympy (``kg.complexity``), and the length of improvement chains needs the
whole IMPROVES_ON relation; so the query returns the raw rows and the same Python code adds these
columns whichever backend answered.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache, lru_cache
from types import SimpleNamespace
from typing import Any

Rows = list[dict[str, Any]]
"""Each function here takes the rows and the query's parameter values; its query declares it
(``kg.queries.spec.canned``)."""


def mark_frontier(rows: Rows, values: dict[str, Any]) -> Rows:
    """``frontier``: ``kg.complexity.frontier`` keeps this upper bound (no bound on the same quantity is better).

    Lower bounds and conditions are never on the frontier.
    """
    from kg.complexity import frontier

    bounds = [SimpleNamespace(**row, subject="", text=row["expression"] or "") for row in rows]
    kept = {b.bound for members in frontier(bounds).values() for b in members}
    return [row | {"frontier": row["bound"] in kept} for row in rows]


def mark_chains(rows: Rows, values: dict[str, Any]) -> Rows:
    """``chain``: the number of IMPROVES_ON steps in the longest chain that starts at ``bound``."""
    improves: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        improves[row["bound"]].add(row["improves_on"])

    @cache
    def depth(bound: str, seen: frozenset[str] = frozenset()) -> int:
        nxt = [depth(o, seen | {bound}) for o in improves.get(bound, ()) if o not in seen and o != bound]
        return 1 + max(nxt) if nxt else 0

    return [row | {"chain": depth(row["bound"])} for row in rows]


def mark_gaps(rows: Rows, values: dict[str, Any]) -> Rows:
    """``gap`` between an upper and a lower bound: tight, log-factor, polynomial or unknown."""
    return [row | {"gap": _gap(row["upper_expression"] or "", row["lower_expression"] or "")} for row in rows]


@lru_cache(maxsize=65536)
def _gap(upper: str, lower: str) -> str:
    """``kg.complexity.gap`` of two expressions, remembered: sympy takes milliseconds a pair, every time."""
    from kg.complexity import gap

    return gap(upper, lower)


def top_per_section(rows: Rows, values: dict[str, Any]) -> Rows:
    """The first ``top`` rows of each section (SPARQL has no per-group LIMIT)."""
    top = values["top"]
    seen: dict[str, int] = defaultdict(int)
    kept = []
    for row in rows:
        seen[row["section"]] += 1
        if seen[row["section"]] <= top:
            kept.append(row)
    return kept


def first_per_method(rows: Rows, values: dict[str, Any]) -> Rows:
    """Each method's first row: its best result, as the query orders rows best first (then by
    method and result id).  A grouped subquery or a NOT EXISTS would say it in SPARQL, but
    Oxigraph evaluates either over every result of the store (2-3 s on the ICLR graph)."""
    seen: set[str] = set()
    kept = []
    for row in rows:
        if row["id"] not in seen:
            seen.add(row["id"])
            kept.append(row)
    return kept
