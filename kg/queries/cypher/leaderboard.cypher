// name: leaderboard
// summary: Each method's best reported score on a dataset for a metric, best first (the metric's better direction), with paper, year and evidence
// params: dataset (Dataset), metric (Metric), limit (int = 25)
// returns: method, id, value, low (float), high (float), unit, qualifier, better, result, paper, year (int), evidence
// A metric whose better direction is unknown ranks higher numbers first.  Ties go to the lower result
// id.  Cypher keeps each method's best itself (kg.queries.post does it for SPARQL and Python).
MATCH (:Dataset {id: $dataset})<-[:ON_DATASET]-(r:Result)-[:ON_METRIC]->(m:Metric {id: $metric})
WHERE r.kind = 'score'
MATCH (r)-[:ACHIEVED_BY]->(x)
MATCH (p:Paper)-[:REPORTS]->(r)
WITH x, r, p, m, CASE m.better WHEN 'down' THEN -r.low ELSE r.high END AS score
ORDER BY score DESC, r.id
WITH x, m, collect({r: r, p: p, score: score})[0] AS best
RETURN x.name AS method, x.id AS id, best.r.value AS value, best.r.low AS low, best.r.high AS high,
       best.r.unit AS unit, best.r.qualifier AS qualifier, coalesce(m.better, 'unknown') AS better,
       best.r.id AS result, best.p.id AS paper, best.p.year AS year,
       substring(best.p.abstract, best.r.sentenceStart, best.r.sentenceEnd - best.r.sentenceStart) AS evidence
ORDER BY best.score DESC, method, id
LIMIT $limit
