// name: co_occurring
// summary: Entities mentioned in the same abstracts as an entity, optionally of one type
// params: entity (entity), type (label?), limit (int = 25)
// returns: name, id, label, abstracts (int)
// A busy entity (kg.schema.aggregates) carries its first co-occurring entities, overall and per
// type, in the lists coOccurringIds, coOccurringAbstracts and coOccurringLabels, in this order and
// coOccurringDepth deep: within that depth the answer is the first $limit of the type, read from
// them instead of counting every (paper, entity) pair of thousands of papers.  Otherwise the pairs
// are counted.
MATCH (e:Method|Model|Problem|Dataset|Metric|Concept {id: $entity})
CALL (e) {
  WITH e WHERE e.coOccurringDepth IS NOT NULL AND $limit <= e.coOccurringDepth
  UNWIND [i IN range(0, size(e.coOccurringIds) - 1) WHERE $type IS NULL OR e.coOccurringLabels[i] = $type][..$limit] AS i
  MATCH (o:Method|Model|Problem|Dataset|Metric|Concept {id: e.coOccurringIds[i]})
  RETURN o, e.coOccurringAbstracts[i] AS abstracts
  UNION
  WITH e WHERE e.coOccurringDepth IS NULL OR $limit > e.coOccurringDepth
  MATCH (e)<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(o)
  WHERE o <> e AND ($type IS NULL OR $type IN labels(o))
  WITH o, count(DISTINCT p) AS abstracts
  RETURN o, abstracts
}
RETURN o.name AS name, o.id AS id, labels(o)[0] AS label, abstracts
ORDER BY abstracts DESC, name, id
LIMIT $limit
