// name: claims_over_baseline
// summary: Who reports beating (or changing a number against) a baseline, by how much, on what, with evidence
// params: baseline (Method|Model), limit (int = 50)
// returns: method, method_id, result, value, low (float), high (float), unit, direction, qualifier, metric, dataset, paper, year (int), evidence
MATCH (:Method|Model {id: $baseline})<-[:AGAINST]-(r:Result)<-[:REPORTS]-(p:Paper)
OPTIONAL MATCH (r)-[:ACHIEVED_BY]->(x)
RETURN coalesce(x.name, r.methodName) AS method, x.id AS method_id, r.id AS result, r.value AS value, r.low AS low,
       r.high AS high, r.unit AS unit, r.direction AS direction, r.qualifier AS qualifier, r.metricName AS metric,
       r.datasetName AS dataset, p.id AS paper, p.year AS year,
       substring(p.abstract, r.sentenceStart, r.sentenceEnd - r.sentenceStart) AS evidence
ORDER BY paper, r.start, result
LIMIT $limit
