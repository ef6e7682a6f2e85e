// name: top_entities
// summary: The entities of one type mentioned by the most papers
// params: type (label), limit (int = 25)
// returns: entity, id, abstracts (int), mentions (int)
MATCH (n)
WHERE $type IN labels(n)
RETURN n.name AS entity, n.id AS id, n.support AS abstracts, n.mentions AS mentions
ORDER BY abstracts DESC, mentions DESC, id
LIMIT $limit
