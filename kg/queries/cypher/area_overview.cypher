// name: area_overview
// summary: Top problems, methods (and models) and bound quantities in one ICLR primary area
// params: primary_area (str), top (int = 10)
// returns: section, name, id, abstracts (int)
// Bound rows are quantities (regret, time ...): name is the quantity, id is empty.
// Counts come first, without names: only entities that count at least as many papers as the
// $top-th of their section can be in its top rows, so only theirs are read and sorted by name.
MATCH (p:Paper {primaryArea: $primary_area})-[:MENTIONS]->(e:Problem|Method|Model)
WITH e, count(DISTINCT p) AS abstracts
WITH CASE WHEN e:Problem THEN 'Problem' ELSE 'Method' END AS section, e, abstracts
ORDER BY abstracts DESC
WITH section, collect({e: e, abstracts: abstracts}) AS ranked
WHERE $top > 0
WITH section, [r IN ranked WHERE r.abstracts >= ranked[size(ranked[..$top]) - 1].abstracts] AS kept
UNWIND kept AS r
WITH section, r.e.name AS name, r.e.id AS id, r.abstracts AS abstracts
ORDER BY section, abstracts DESC, name, id
WITH section, collect({name: name, id: id, abstracts: abstracts})[..$top] AS rows
UNWIND rows AS row
RETURN section, row.name AS name, row.id AS id, row.abstracts AS abstracts
UNION ALL
MATCH (p:Paper {primaryArea: $primary_area})-[:STATES_BOUND]->(b:Bound)
WHERE b.quantity IS NOT NULL
WITH b.quantity AS name, count(DISTINCT p) AS abstracts
ORDER BY abstracts DESC, name
WITH collect({name: name, abstracts: abstracts})[..$top] AS rows
UNWIND rows AS row
RETURN 'Bound' AS section, row.name AS name, null AS id, row.abstracts AS abstracts
