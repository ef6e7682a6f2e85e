// name: area_overview
// summary: Top problems, methods (and models) and bound quantities in one ICLR primary area
// params: primary_area (str), top (int = 10)
// returns: section, name, id, abstracts (int)
// Bound rows are quantities (regret, time ...): name is the quantity, id is empty.
MATCH (p:Paper {primaryArea: $primary_area})
CALL (p) {
  MATCH (p)-[:MENTIONS]->(e:Problem)
  RETURN 'Problem' AS section, e.name AS name, e.id AS id
  UNION
  MATCH (p)-[:MENTIONS]->(e:Method|Model)
  RETURN 'Method' AS section, e.name AS name, e.id AS id
  UNION
  MATCH (p)-[:STATES_BOUND]->(b:Bound)
  WHERE b.quantity IS NOT NULL
  RETURN 'Bound' AS section, b.quantity AS name, null AS id
}
WITH section, name, id, count(DISTINCT p) AS abstracts
ORDER BY section, abstracts DESC, name, coalesce(id, '')
WITH section, collect({name: name, id: id, abstracts: abstracts})[..$top] AS rows
UNWIND rows AS row
RETURN section, row.name AS name, row.id AS id, row.abstracts AS abstracts
ORDER BY section, abstracts DESC, name, coalesce(id, '')
