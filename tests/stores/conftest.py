"""Helpers shared by the store tests."""

from __future__ import annotations


def papers_for_entity_plan(conn, entity: str) -> list[str]:
    """The operators of the plan Neo4j makes for ``papers_for_entity`` on ``entity`` (``conn``: the
    ``NEO4J_*`` settings), to check that it seeks an index rather than timing it."""
    import neo4j

    from kg import queries

    with neo4j.GraphDatabase.driver(conn.neo4j_uri, auth=(conn.neo4j_user, conn.neo4j_password)) as driver:
        plan = driver.execute_query("EXPLAIN " + queries.get("papers_for_entity").cypher, {"entity": entity, "limit": 100},
                                    database_=conn.neo4j_database).summary.plan

    def operators(step: dict) -> list[str]:
        return [step["operatorType"].split("@")[0], *(o for child in step.get("children", ()) for o in operators(child))]

    return operators(plan)
