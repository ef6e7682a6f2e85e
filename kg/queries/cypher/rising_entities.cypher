// name: rising_entities
// summary: Entities of one type whose share of dated papers grew from before a year to since it
// params: type (label), since (int = 2020), limit (int = 25)
// returns: entity, id, before (int), after (int), before_share (float), after_share (float)
// Ranked by after/totalAfter - before/totalBefore, compared exactly as after*totalBefore - before*totalAfter.
MATCH (p:Paper)
WHERE p.year IS NOT NULL
WITH sum(CASE WHEN p.year < $since THEN 1 ELSE 0 END) AS totalBefore,
     sum(CASE WHEN p.year >= $since THEN 1 ELSE 0 END) AS totalAfter
// With no dated paper before $since or none since it, no share grows: skip reading every mention.
WHERE totalBefore > 0 AND totalAfter > 0
MATCH (q:Paper)-[:MENTIONS]->(e)
WHERE q.year IS NOT NULL AND $type IN labels(e)
WITH totalBefore, totalAfter, e,
     sum(CASE WHEN q.year < $since THEN 1 ELSE 0 END) AS before,
     sum(CASE WHEN q.year >= $since THEN 1 ELSE 0 END) AS after
WITH e, before, after, totalBefore, totalAfter, after * totalBefore - before * totalAfter AS growth
WHERE growth > 0
RETURN e.name AS entity, e.id AS id, before, after,
       CASE WHEN totalBefore = 0 THEN null ELSE toFloat(before) / totalBefore END AS before_share,
       CASE WHEN totalAfter = 0 THEN null ELSE toFloat(after) / totalAfter END AS after_share
ORDER BY growth DESC, after DESC, id
LIMIT $limit
