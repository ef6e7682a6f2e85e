"""Metrics as data: which way is better for each known metric (a curated table,
``metric_directions.jsonl``) and patterns that find their names in text.  Resolution gives every
Metric node and Result its ``better`` direction from here; leaderboards order by it."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def metric_patterns() -> tuple[dict[str, str], re.Pattern[str], re.Pattern[str]]:
    """The metric table: lower-cased name → better direction, and regexes that find the names in text
    (case-insensitive for lower-case names, exact for acronyms so that "map" and "mr" stay words)."""
    path = resources.files("kg.schema") / "metric_directions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    table = {r["metric"].lower(): r["better"] for r in rows}
    names = sorted((r["metric"] for r in rows), key=len, reverse=True)

    def alternation(items: list[str]) -> str:
        # a space in a name matches a space or a hyphen: "F1 score", "F1-score"
        return "|".join(re.escape(n).replace(r"\ ", r"[\s-]") for n in items) or "(?!)"

    lower = re.compile(rf"(?<![\w@-])(?:{alternation([n for n in names if n == n.lower()])})s?(?![\w@])", re.I)
    exact = re.compile(rf"(?<![\w@-])(?:[A-Za-z][\w-]*@(?:\d+|k)|(?:{alternation([n for n in names if n != n.lower()])})s?(?![\w@]))")
    return table, lower, exact


def better_direction(metric: str) -> str:
    """Which way is better for a metric: ``"up"``, ``"down"`` or ``"unknown"``, by the shipped table;
    a longer known name inside the metric wins ("top-1 error rate" is an error rate).

    Example:
        >>> better_direction("Top-1 accuracy"), better_direction("FID"), better_direction("vibes")
        ('up', 'down', 'unknown')
    """
    table, lower, exact = metric_patterns()
    key = " ".join(metric.lower().split())
    for name in (key, re.sub(r"@\S*", "", key)):
        if name in table:
            return table[name]
    found = [m.group(0) for pattern in (lower, exact) for m in pattern.finditer(metric)]
    for name in sorted(found, key=len, reverse=True):
        name = name.lower()
        hit = table.get(name) or table.get(name[:-1])
        if hit:
            return hit
    return "unknown"
