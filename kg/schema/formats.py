"""What each store must hold for this version's canned queries, as one number per store, declared
and checked here.

A store built or loaded by another version would answer some queries wrongly (an older one lacks
an aggregate a query looks up, so it finds nothing) rather than fail, so reading one is an error
that says how to rebuild.  A number is bumped when what the queries need of that store changes.
"""

from __future__ import annotations

from pathlib import Path

from kg.errors import KGError

STORE_FORMAT = 5
"""The embedded store (``summary.json`` records it): 2 = with the query aggregates of
``kg.schema.aggregates`` (paper ranks on MENTIONS edges); 3 = also the ranked ``kg:Addressing``
rows of ``methods_for_problem``; 4 = also the ``kg:CoOccurrence`` rows of ``co_occurring`` and the
ranks of OUTPERFORMS edges; 5 = also the ``kg:Rising`` rows of ``rising_entities``."""
NEO4J_FORMAT = 2
"""Neo4j: the aggregates and indexes a load makes (2 = also the ``RISING_LABEL`` nodes).  A load that
completes records it on the one ``FORMAT_LABEL`` node (dropped when a load starts, so a load cut
short leaves none)."""
FORMAT_LABEL = "PaperkgFormat"
"""The label of Neo4j's format node; not one of the graph's labels, so counts and prunes leave it alone."""
RISING_LABEL = "PaperkgRising"
"""The label of Neo4j's ``rising_entities`` rows (``kg.stores.neo4j.rising_rows``): like the format
node, not one of the graph's labels."""
READ_NEO4J_FORMAT = f"MATCH (f:{FORMAT_LABEL}) RETURN f.format AS format"


def check_store(out: Path, built: int) -> None:
    """Refuse an embedded store of another format (``built``, from the folder's ``summary.json``).

    Example:
        >>> check_store(Path("out"), 1)
        Traceback (most recent call last):
        ...
        kg.errors.KGError: out: the store was built by another paperkg version (store format 1, this version reads 5); rebuild it with `kg build ... -o out`
    """
    if built != STORE_FORMAT:
        raise KGError(f"{out}: the store was built by another paperkg version (store format {built}, "
                      f"this version reads {STORE_FORMAT}); rebuild it with `kg build ... -o {out}`")


def check_neo4j(found: list[int], database: str | None) -> None:
    """Refuse a Neo4j database whose format node (``found``: its values) no complete load by this
    version wrote."""
    if found == [NEO4J_FORMAT]:
        return
    held = (
        f"a graph loaded by another paperkg version (format {found[0]}; this version reads {NEO4J_FORMAT})"
        if found else "no graph that a complete load by paperkg recorded"
    )
    raise KGError(f"Neo4j database {database or '(default)'} holds {held}: load the graph again with `kg load neo4j OUT`")
