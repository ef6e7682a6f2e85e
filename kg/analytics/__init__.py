"""Graph analytics as pandas DataFrames: rankings, research communities, trends, lineage, similarity.

Each function takes the graph's records (``Graph.document``) and node ids; ``kg.open(out)`` has the
same functions as methods that also accept names (resolved as every query resolves them).
Algorithms run in igraph (C, seeded): PageRank on the full ICLR graph takes seconds where
networkx's pure-Python loops take minutes; networkx stays for users' own code
(``Graph.to_networkx``).  Plots are in ``kg.analytics.plots`` (matplotlib, imported on use).

Example:
    >>> from kg.testing import planted_graph
    >>> doc = planted_graph(groups=3, entities=4, papers=12)
    >>> communities(doc)[["community", "entities"]].values.tolist()
    [[0, 4], [1, 4], [2, 4]]
    >>> centrality(doc, type="Method", top=1)["rank"].tolist()
    [1]
"""

from __future__ import annotations

from kg.analytics.lineage import frontier, lineage
from kg.analytics.measures import MEASURES, centrality, communities, community_members, similar, summarise
from kg.analytics.projections import PROJECTIONS, project
from kg.analytics.trends import trends, yearly

__all__ = ["MEASURES", "PROJECTIONS", "centrality", "communities", "community_members", "frontier", "lineage", "project",
           "similar", "summarise", "trends", "yearly"]
