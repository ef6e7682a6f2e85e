// name: outperforms
// summary: What a method or model is reported to beat, and what beats it
// params: method (Method|Model), limit (int = 50)
// returns: direction, other, id, label, abstracts (int), papers (list)
MATCH (m:Method|Model {id: $method})
CALL (m) {
  MATCH (m)-[r:OUTPERFORMS]->(o)
  RETURN 'beats' AS direction, o, r
  UNION
  MATCH (m)<-[r:OUTPERFORMS]-(o)
  RETURN 'beaten_by' AS direction, o, r
}
RETURN direction, o.name AS other, o.id AS id, labels(o)[0] AS label, r.support AS abstracts, r.papers AS papers
ORDER BY direction, abstracts DESC, other, id
LIMIT $limit
