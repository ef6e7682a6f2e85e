// name: methods_for_problem
// summary: Methods and models that address a problem, by number of supporting papers
// params: problem (Problem), limit (int = 25)
// returns: method, id, label, abstracts (int), papers (list)
// A paper supports "method addresses problem" when it states it, or when it proposes the method
// and addresses the problem.
MATCH (p:Problem {id: $problem})
CALL (p) {
  MATCH (m:Method|Model)-[r:ADDRESSES]->(p)
  UNWIND r.papers AS paper
  RETURN m, paper
  UNION
  MATCH (m:Method|Model)<-[:PROPOSES]-(pp:Paper)-[:ADDRESSES]->(p)
  RETURN m, pp.id AS paper
}
WITH m, collect(DISTINCT paper) AS papers
RETURN m.name AS method, m.id AS id, labels(m)[0] AS label, size(papers) AS abstracts, papers
ORDER BY abstracts DESC, method, id
LIMIT $limit
