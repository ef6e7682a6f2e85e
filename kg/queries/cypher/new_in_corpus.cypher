// name: new_in_corpus
// summary: Entities of one type first mentioned in a given year (no dated paper mentions them earlier)
// params: type (label), year (int), limit (int = 25)
// returns: entity, id, abstracts (int), total (int)
MATCH (p:Paper {year: $year})-[:MENTIONS]->(e)
WHERE $type IN labels(e)
WITH e, count(DISTINCT p) AS abstracts
WHERE NOT EXISTS { MATCH (q:Paper)-[:MENTIONS]->(e) WHERE q.year < $year }
RETURN e.name AS entity, e.id AS id, abstracts,
       COUNT { MATCH (q:Paper)-[:MENTIONS]->(e) WHERE q.year IS NOT NULL } AS total
ORDER BY abstracts DESC, entity, id
LIMIT $limit
