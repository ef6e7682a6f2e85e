// name: paper_profile
// summary: Everything extracted from one paper (by id, source id or title): its edges and the relations it supports
// params: paper (Paper)
// returns: relation, source, source_name, target, target_name, target_label
MATCH (p:Paper {id: $paper})
CALL (p) {
  MATCH (p)-[r]->(t)
  RETURN type(r) AS relation, p AS s, t
  UNION
  MATCH (p)-[:MENTIONS|STATES_BOUND]->(s)-[r]->(t)
  WHERE p.id IN r.papers
  RETURN type(r) AS relation, s, t
}
RETURN relation, s.id AS source, s.name AS source_name, t.id AS target, t.name AS target_name,
       labels(t)[0] AS target_label
ORDER BY relation, source, target
