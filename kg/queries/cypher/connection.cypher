// name: connection
// summary: The shortest path between two entities through the papers that mention them (at most 3 papers)
// params: a (entity), b (entity)
// returns: step (int), id, name, label
// Among equally short paths, the one whose node ids sort first, so every backend gives the same path.
MATCH (a:Method|Model|Problem|Dataset|Metric|Concept {id: $a}),
      (b:Method|Model|Problem|Dataset|Metric|Concept {id: $b})
WHERE a <> b
MATCH path = allShortestPaths((a)-[:MENTIONS*..6]-(b))
WITH nodes(path) AS ns, [n IN nodes(path) | n.id] AS ids
ORDER BY ids
LIMIT 1
UNWIND range(0, size(ns) - 1) AS step
RETURN step, ns[step].id AS id, ns[step].name AS name, labels(ns[step])[0] AS label
ORDER BY step
