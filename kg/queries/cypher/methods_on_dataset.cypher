// name: methods_on_dataset
// summary: Methods and models evaluated on a dataset, by number of supporting papers
// params: dataset (Dataset), limit (int = 25)
// returns: method, id, label, abstracts (int), papers (list)
MATCH (:Dataset {id: $dataset})<-[r:EVALUATED_ON]-(m:Method|Model)
RETURN m.name AS method, m.id AS id, labels(m)[0] AS label, size(r.papers) AS abstracts, r.papers AS papers
ORDER BY abstracts DESC, method, id
LIMIT $limit
