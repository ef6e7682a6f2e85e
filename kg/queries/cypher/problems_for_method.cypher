// name: problems_for_method
// summary: Problems a method or model addresses, by number of supporting papers
// params: method (Method|Model), limit (int = 25)
// returns: problem, id, abstracts (int), papers (list)
MATCH (m:Method|Model {id: $method})
CALL (m) {
  MATCH (m)-[r:ADDRESSES]->(p:Problem)
  UNWIND r.papers AS paper
  RETURN p, paper
  UNION
  MATCH (m)<-[:PROPOSES]-(pp:Paper)-[:ADDRESSES]->(p:Problem)
  RETURN p, pp.id AS paper
}
WITH p, collect(DISTINCT paper) AS papers
RETURN p.name AS problem, p.id AS id, size(papers) AS abstracts, papers
ORDER BY abstracts DESC, problem, id
LIMIT $limit
