// name: similar_papers
// summary: Papers that mention the most of the same entities as a paper (Jaccard over mentioned entities)
// params: paper (Paper), k (int = 10)
// returns: similar, title, shared (int), score (float)
MATCH (p:Paper {id: $paper})
WITH p, COUNT { (p)-[:MENTIONS]->() } AS mine
MATCH (p)-[:MENTIONS]->(e)<-[:MENTIONS]-(q:Paper)
WHERE q <> p
WITH q, mine, count(DISTINCT e) AS shared
WITH q, shared, toFloat(shared) / (mine + COUNT { (q)-[:MENTIONS]->() } - shared) AS score
RETURN q.id AS similar, q.title AS title, shared, score
ORDER BY score DESC, shared DESC, similar
LIMIT $k
