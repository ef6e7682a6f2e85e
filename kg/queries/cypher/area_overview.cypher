// name: area_overview
// summary: Top problems, methods (and models) and bound quantities in one ICLR primary area
// params: primary_area (str), top (int = 10)
// returns: section, name, id, abstracts (int)
// Bound rows are quantities (regret, time ...): name is the quantity, id is empty.
// Problems and methods come from the areaBands and areaPapers aggregates (kg.schema.aggregates): ranks
// 1..$top of a section lie in the bands up to last = bit length of $top - 1, found through the text
// index on areaKeys (kg.stores.neo4j.area_keys: "upto<last>" holds bands 0..last, up to band 10;
// beyond, one key per band) instead of counting every mention in the area.  Bounds are few: read
// from the Bound side.
CALL () {
  WITH size([i IN range(0, 62) WHERE 2 ^ i < $top]) AS last
  UNWIND ['upto' + toString(CASE WHEN last < 10 THEN last ELSE 10 END)] + [b IN range(11, last) | toString(b)] AS suffix
  WITH suffix WHERE $top > 0
  WITH '\u001e' + $primary_area + '\u001f' + suffix + '\u001e' AS key
  CALL (key) {
    MATCH (e:Problem) WHERE e.areaKeys CONTAINS key RETURN e, 'Problem' AS section
    UNION ALL
    MATCH (e:Method) WHERE e.areaKeys CONTAINS key RETURN e, 'Method' AS section
    UNION ALL
    MATCH (e:Model) WHERE e.areaKeys CONTAINS key RETURN e, 'Method' AS section
  }
  WITH section, e.name AS name, e.id AS id,
       toInteger(substring([x IN e.areaPapers WHERE x STARTS WITH $primary_area + '\u001f'][0], size($primary_area) + 1)) AS abstracts
  ORDER BY section, abstracts DESC, name, id
  WITH section, collect({name: name, id: id, abstracts: abstracts})[..$top] AS rows
  UNWIND rows AS row
  RETURN section, row.name AS name, row.id AS id, row.abstracts AS abstracts
  UNION ALL
  MATCH (b:Bound)<-[:STATES_BOUND]-(p:Paper)
  USING SCAN b:Bound
  WHERE p.primaryArea = $primary_area AND b.quantity IS NOT NULL
  WITH b.quantity AS name, count(DISTINCT p) AS abstracts
  ORDER BY abstracts DESC, name
  WITH collect({name: name, abstracts: abstracts})[..$top] AS rows
  UNWIND rows AS row
  RETURN 'Bound' AS section, row.name AS name, null AS id, row.abstracts AS abstracts
}
RETURN section, name, id, abstracts
ORDER BY section, abstracts DESC, name, coalesce(id, '')
