// name: connection
// summary: The shortest path between two entities through the papers that mention them (at most 3 papers)
// params: a (entity), b (entity)
// returns: step (int), id, name, label
// Among equally short paths, the one whose node ids sort first, so every backend gives the same path.
// One length at a time: each OPTIONAL CALL runs only when the shorter ones found nothing
// (allShortestPaths enumerated every shortest path before picking one).  A longer path takes the
// smallest (paper of a, entity of it) whose entity is one or two papers from b, then continues
// from that entity the same way, as kg.queries.python.connection does.  For two papers the search
// starts from whichever of a and b is in fewer papers: from a busy problem, the entities one paper
// away number tens of thousands.
MATCH (a:Method|Model|Problem|Dataset|Metric|Concept {id: $a}), (b:Method|Model|Problem|Dataset|Metric|Concept {id: $b})
WHERE a <> b
OPTIONAL CALL (a, b) {
  MATCH (a)<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(b)
  RETURN [p] AS one
  ORDER BY p.id
  LIMIT 1
}
OPTIONAL CALL (a, b, one) {
  WITH a, b WHERE one IS NULL
  CALL (a, b) {
    WITH a, b WHERE a.support <= b.support
    MATCH (a)<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(e)
    WHERE EXISTS { MATCH (e)<-[:MENTIONS]-(q:Paper) WHERE (q)-[:MENTIONS]->(b) }
    RETURN p, e ORDER BY p.id, e.id LIMIT 1
    UNION
    WITH a, b WHERE a.support > b.support
    MATCH (b)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(e)
    WITH a, collect(DISTINCT e) AS near
    UNWIND near AS e
    MATCH (e)<-[:MENTIONS]-(p:Paper)
    WHERE (p)-[:MENTIONS]->(a)
    RETURN p, e ORDER BY p.id, e.id LIMIT 1
  }
  MATCH (e)<-[:MENTIONS]-(q:Paper)-[:MENTIONS]->(b)
  RETURN [p, e, q] AS two
  ORDER BY q.id
  LIMIT 1
}
OPTIONAL CALL (a, b, one, two) {
  WITH a, b WHERE one IS NULL AND two IS NULL
  MATCH (b)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(e)
  WITH a, b, collect(DISTINCT e) AS near
  UNWIND near AS e
  MATCH (e)<-[:MENTIONS]-(m:Paper)
  WITH a, b, near, collect(DISTINCT m) AS middle
  MATCH (a)<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(e)
  WHERE EXISTS { MATCH (e)<-[:MENTIONS]-(m:Paper) WHERE m IN middle }
  WITH b, near, p, e ORDER BY p.id, e.id LIMIT 1
  MATCH (e)<-[:MENTIONS]-(q:Paper)-[:MENTIONS]->(f)
  WHERE f IN near
  WITH b, p, e, q, f ORDER BY q.id, f.id LIMIT 1
  MATCH (f)<-[:MENTIONS]-(r:Paper)-[:MENTIONS]->(b)
  RETURN [p, e, q, f, r] AS three
  ORDER BY r.id
  LIMIT 1
}
WITH a, b, coalesce(one, two, three) AS middle
WHERE middle IS NOT NULL
WITH [a] + middle + [b] AS ns
UNWIND range(0, size(ns) - 1) AS step
RETURN step, ns[step].id AS id, ns[step].name AS name, labels(ns[step])[0] AS label
ORDER BY step
