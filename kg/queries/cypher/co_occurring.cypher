// name: co_occurring
// summary: Entities mentioned in the same abstracts as an entity, optionally of one type
// params: entity (entity), type (label?), limit (int = 25)
// returns: name, id, label, abstracts (int)
MATCH (e:Method|Model|Problem|Dataset|Metric|Concept {id: $entity})<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(o)
WHERE o <> e AND ($type IS NULL OR $type IN labels(o))
WITH o, count(DISTINCT p) AS abstracts
RETURN o.name AS name, o.id AS id, labels(o)[0] AS label, abstracts
ORDER BY abstracts DESC, name, id
LIMIT $limit
