// name: new_in_corpus
// summary: Entities of one type first mentioned in a given year (no dated paper mentions them earlier)
// params: type (label), year (int), limit (int = 25)
// returns: entity, id, abstracts (int), total (int)
// firstYear, firstYearPapers, datedPapers and firstYearBand come from kg.schema.aggregates: ranks
// 1..$limit within (type, first year) lie in the bands up to last = bit length of $limit - 1, an
// index seek per label instead of reading every mention of the year.
WITH size([i IN range(0, 62) WHERE 2 ^ i < $limit]) AS last
CALL (last) {
  MATCH (e:Method) WHERE $type = 'Method' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
  UNION ALL
  MATCH (e:Model) WHERE $type = 'Model' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
  UNION ALL
  MATCH (e:Problem) WHERE $type = 'Problem' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
  UNION ALL
  MATCH (e:Dataset) WHERE $type = 'Dataset' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
  UNION ALL
  MATCH (e:Metric) WHERE $type = 'Metric' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
  UNION ALL
  MATCH (e:Concept) WHERE $type = 'Concept' AND e.firstYear = $year AND e.firstYearBand <= last RETURN e
}
RETURN e.name AS entity, e.id AS id, e.firstYearPapers AS abstracts, e.datedPapers AS total
ORDER BY abstracts DESC, entity, id
LIMIT $limit
