"""Mentions per year: which entities rose, and when each first appeared.

Counts are papers (one per paper however often it repeats a name), and papers without a year are
left out, as the ``rising_entities`` and ``new_in_corpus`` queries count them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

import pandas as pd

from kg.records import ENTITY_LABELS, GraphDocument


def _years(doc: GraphDocument, keep) -> tuple[Counter[int], dict[str, list[int]]]:
    year = {n.id: y for n in doc.nodes if n.label == "Paper" and isinstance(y := n.properties.get("year"), int)}
    mentioned: dict[str, list[int]] = defaultdict(list)
    for e in doc.edges:
        if e.type == "MENTIONS" and e.source in year and keep(e.target):
            mentioned[e.target].append(year[e.source])
    return Counter(year.values()), mentioned


def trends(doc: GraphDocument, type: str | None = None, since: int = 2020, normalize: bool = True) -> pd.DataFrame:
    """One row per mentioned entity (of ``type``): how much it is named before and from ``since``.

    Columns: id, name, type, first_year, papers, before, after (papers before ``since`` and from it
    on), before_share, after_share (those counts over all papers of the same years), growth
    (``after_share - before_share`` when ``normalize``, else ``after - before``).  Sorted as
    ``rising_entities`` sorts: growth first (the share difference compared exactly, in integers),
    then ``after``, then id; its rows are the rows here with ``growth > 0``.
    """
    nodes = {n.id: n for n in doc.nodes if n.label in ENTITY_LABELS and (type is None or n.label == type)}
    per_year, mentioned = _years(doc, nodes.__contains__)
    total_before = sum(c for y, c in per_year.items() if y < since)
    total_after = sum(per_year.values()) - total_before
    rows = []
    for nid, years in mentioned.items():
        before = sum(y < since for y in years)
        after = len(years) - before
        exact = after * total_before - before * total_after  # share difference times both totals
        before_share = before / total_before if total_before else None
        after_share = after / total_after if total_after else None
        growth = (after_share or 0.0) - (before_share or 0.0) if normalize else float(after - before)
        rows.append({"id": nid, "name": nodes[nid].name, "type": nodes[nid].label, "first_year": min(years),
                     "papers": len(years), "before": before, "after": after, "before_share": before_share,
                     "after_share": after_share, "growth": growth, "_exact": exact if normalize else after - before})
    df = pd.DataFrame(rows, columns=["id", "name", "type", "first_year", "papers", "before", "after", "before_share",
                                     "after_share", "growth", "_exact"])
    df = df.sort_values(["_exact", "after", "id"], ascending=[False, False, True], kind="stable")
    df = df.drop(columns="_exact").reset_index(drop=True)
    df.attrs.update(since=since, normalize=normalize, papers_per_year=dict(sorted(per_year.items())))
    return df


def yearly(doc: GraphDocument, entities: Iterable[str], normalize: bool = True) -> pd.DataFrame:
    """Papers per year naming each entity (node ids), for trend lines.

    Columns: year, id, name, papers, share (papers over all papers of that year).  Every year of
    the corpus has a row for every entity, zeros included, so lines do not skip years.
    """
    wanted = list(dict.fromkeys(entities))
    names = {n.id: n.name for n in doc.nodes if n.id in set(wanted)}
    per_year, mentioned = _years(doc, set(wanted).__contains__)
    rows = []
    for nid in wanted:
        counts = Counter(mentioned.get(nid, ()))
        for y in sorted(per_year):
            rows.append({"year": y, "id": nid, "name": names.get(nid, nid), "papers": counts[y],
                         "share": counts[y] / per_year[y]})
    df = pd.DataFrame(rows, columns=["year", "id", "name", "papers", "share"])
    df.attrs.update(normalize=normalize)
    return df
