"""Nodes that are one name spelled two ways: how many a built graph has, and how many the current
name rules leave once every mention's name is keyed again.

A graph folder keeps each mention's canonical name as the extraction made it.  This re-resolves the
kept records twice, as kept and with each name keyed again by ``kg.names.canonical``, and counts the
groups of nodes of one type whose shown names differ only in punctuation, spacing and case
("fine-tuning" and "fine‑tuning" with a non-breaking hyphen).  Some groups are different things
that share a name ("PRISM" of two papers: one acronym, two methods), so a group is a candidate, not a
fault.  Run it on two commits to compare their name rules without extracting again.

usage: python bench/name_variants.py OUT [--examples 20]
Prints nodes, edges, variant groups and the seconds resolution took, both ways; the mentions keyed
differently; and the largest groups left.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import defaultdict
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from kg.api import _kept_records
from kg.names import canonical
from kg.records import ENTITY_LABELS
from kg.resolve import build_graph
from kg.stores import no_gc


def variant_groups(graph) -> list[tuple[int, str, list[tuple[int, str]]]]:
    """(mentions, label, [(mentions, name)]) per group of 2+ nodes, largest first; "+" counts as a letter
    ("Transformer++" is another model)."""
    groups = defaultdict(list)
    for n in graph.nodes:
        if n.label in ENTITY_LABELS:
            groups[(n.label, re.sub(r"[^a-z0-9+]", "", n.name.lower()))].append((n.mentions, n.name))
    found = [(sum(m for m, _ in v), label, sorted(v, reverse=True)) for (label, _), v in groups.items() if len(v) > 1]
    return sorted(found, reverse=True)


def keyed_again(records):
    """The records with each mention's canonical name made by today's rules; and how many changed."""
    key = lru_cache(maxsize=None)(canonical)
    out, changed = [], 0
    for abstract, x in records:
        entities = []
        for m in x.entities:
            name = key(m.aliases[0] if m.aliases else m.text)
            if name and name != m.canonical:
                changed += 1
                m = replace(m, canonical=name)
            entities.append(m)
        out.append((abstract, replace(x, entities=tuple(entities))))
    return out, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--examples", type=int, default=20)
    args = parser.parse_args()
    with no_gc():
        records = sorted(_kept_records(args.out).values(), key=lambda r: r[0].id)
        again, changed = keyed_again(records)
        rows = []
        for name, pairs in (("as kept", records), ("keyed again", again)):
            start = time.perf_counter()
            graph = build_graph(pairs)
            seconds = time.perf_counter() - start
            groups = variant_groups(graph)
            rows.append((name, len(graph.nodes), len(graph.edges), len(groups), sum(len(v) for _, _, v in groups), seconds, groups))
    print(f"{'names':<12} {'nodes':>8} {'edges':>8} {'variant groups':>15} {'nodes in them':>14} {'resolve s':>10}")
    for name, nodes, edges, n_groups, in_groups, seconds, _ in rows:
        print(f"{name:<12} {nodes:>8,} {edges:>8,} {n_groups:>15,} {in_groups:>14,} {seconds:>10.2f}")
    print(f"mentions keyed differently: {changed:,}")
    for total, label, names in rows[-1][-1][: args.examples]:
        print(f"  {total:>6} {label:<8} " + ", ".join(f"{name!r} {m}" for m, name in names))


if __name__ == "__main__":
    main()
