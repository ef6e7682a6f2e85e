// name: top_entities
// summary: The entities of one type mentioned by the most papers
// params: type (label), limit (int = 25)
// returns: entity, id, abstracts (int), mentions (int)
// rankBand (kg.schema.aggregates) holds ranks 2^(b-1)+1 .. 2^b, so ranks 1..$limit lie in bands up to
// last = bit length of $limit - 1: an index seek per label (labels cannot be parameters; the
// branch of another type finds its guard false) instead of reading every node of the type.
WITH size([i IN range(0, 62) WHERE 2 ^ i < $limit]) AS last
CALL (last) {
  MATCH (n:Method) WHERE $type = 'Method' AND n.rankBand <= last RETURN n
  UNION ALL
  MATCH (n:Model) WHERE $type = 'Model' AND n.rankBand <= last RETURN n
  UNION ALL
  MATCH (n:Problem) WHERE $type = 'Problem' AND n.rankBand <= last RETURN n
  UNION ALL
  MATCH (n:Dataset) WHERE $type = 'Dataset' AND n.rankBand <= last RETURN n
  UNION ALL
  MATCH (n:Metric) WHERE $type = 'Metric' AND n.rankBand <= last RETURN n
  UNION ALL
  MATCH (n:Concept) WHERE $type = 'Concept' AND n.rankBand <= last RETURN n
}
RETURN n.name AS entity, n.id AS id, n.support AS abstracts, n.mentions AS mentions
ORDER BY abstracts DESC, mentions DESC, id
LIMIT $limit
