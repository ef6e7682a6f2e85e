// name: connection
// summary: The shortest path between two entities through the papers that mention them (at most 3 papers)
// params: a (entity), b (entity)
// returns: step (int), id, name, label
// Among equally short paths, the one whose node ids sort first, so every backend gives the same path.
// Runs as parts (kg.queries.steps.connection): one length at a time, stopping at the first that has
// a path (allShortestPaths enumerated every shortest path before picking one).
// part: first
MATCH (:Method|Model|Problem|Dataset|Metric|Concept {id: $a})<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(:Method|Model|Problem|Dataset|Metric|Concept {id: $b})
RETURN p.id AS n1
ORDER BY n1
LIMIT 1
// part: pair2
MATCH (:Method|Model|Problem|Dataset|Metric|Concept {id: $b})<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(e)
WITH collect(DISTINCT e) AS near
MATCH (:Method|Model|Problem|Dataset|Metric|Concept {id: $a})<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(e)
WHERE e IN near
RETURN p.id AS n1, e.id AS n2
ORDER BY n1, n2
LIMIT 1
// part: pair3
// The middle papers are those mentioning an entity of a paper of $a and one of a paper of $b.
MATCH (:Method|Model|Problem|Dataset|Metric|Concept {id: $b})<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(e)
WITH DISTINCT e
MATCH (e)<-[:MENTIONS]-(m:Paper)
WITH collect(DISTINCT m) AS middle
MATCH (:Method|Model|Problem|Dataset|Metric|Concept {id: $a})<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(e)
WHERE EXISTS { MATCH (e)<-[:MENTIONS]-(m:Paper) WHERE m IN middle }
RETURN p.id AS n1, e.id AS n2
ORDER BY n1, n2
LIMIT 1
// part: node
MATCH (n:Paper|Method|Model|Problem|Dataset|Metric|Concept {id: $a})
RETURN n.id AS id, n.name AS name, labels(n)[0] AS label
