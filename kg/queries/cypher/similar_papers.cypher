// name: similar_papers
// summary: Papers that mention the most of the same entities as a paper (Jaccard over mentioned entities)
// params: paper (Paper), k (int = 10)
// returns: similar, title, shared (int), score (float)
// entityCount (kg.schema.aggregates) is the number of entities a paper mentions: a property read
// per candidate instead of counting its relationships.
MATCH (p:Paper {id: $paper})-[:MENTIONS]->(e)<-[:MENTIONS]-(q:Paper)
WHERE q <> p
WITH p, q, count(DISTINCT e) AS shared
WITH q, shared, toFloat(shared) / (p.entityCount + q.entityCount - shared) AS score
RETURN q.id AS similar, q.title AS title, shared, score
ORDER BY score DESC, shared DESC, similar
LIMIT $k
