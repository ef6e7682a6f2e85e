// name: datasets_for_method
// summary: Datasets a method or model is evaluated on, by number of supporting papers
// params: method (Method|Model), limit (int = 25)
// returns: dataset, id, abstracts (int), papers (list)
MATCH (:Method|Model {id: $method})-[r:EVALUATED_ON]->(d:Dataset)
RETURN d.name AS dataset, d.id AS id, size(r.papers) AS abstracts, r.papers AS papers
ORDER BY abstracts DESC, dataset, id
LIMIT $limit
