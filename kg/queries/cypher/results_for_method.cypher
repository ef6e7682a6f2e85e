// name: results_for_method
// summary: Every result reported for a method or model: its own numbers and its claims over baselines, with evidence
// params: method (Method|Model), limit (int = 50)
// returns: result, value, low (float), high (float), unit, kind, direction, qualifier, metric, dataset, baseline, setting, paper, year (int), evidence
MATCH (:Method|Model {id: $method})<-[:ACHIEVED_BY]-(r:Result)<-[:REPORTS]-(p:Paper)
RETURN r.id AS result, r.value AS value, r.low AS low, r.high AS high, r.unit AS unit, r.kind AS kind,
       r.direction AS direction, r.qualifier AS qualifier, r.metricName AS metric, r.datasetName AS dataset,
       r.baselineName AS baseline, r.setting AS setting, p.id AS paper, p.year AS year,
       substring(p.abstract, r.sentenceStart, r.sentenceEnd - r.sentenceStart) AS evidence
ORDER BY paper, r.start, result
LIMIT $limit
