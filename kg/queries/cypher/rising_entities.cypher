// name: rising_entities
// summary: Entities of one type whose share of dated papers grew from before a year to since it
// params: type (label), since (int = 2020), limit (int = 25)
// returns: entity, id, before (int), after (int), before_share (float), after_share (float)
// Ranked by after/totalAfter - before/totalBefore, compared exactly as after*totalBefore - before*totalAfter.
// Runs as parts (kg.queries.steps.rising_entities).  "stored" reads the first rows of the ranking,
// kept at build time in the lists of one PaperkgRising node per (type, since) (kg.stores.neo4j.rising_rows),
// instead of counting every dated mention; no such node: no entity of the type rises then.  Beyond
// the stored depth, "totals" then "ranked" count them.
// part: stored
MATCH (r:PaperkgRising {id: $type + '\u001f' + toString($since)})
UNWIND range(0, size(r.entityIds) - 1)[..$limit] AS i
MATCH (e:Method|Model|Problem|Dataset|Metric|Concept {id: r.entityIds[i]})
WITH e, r.papersBefore[i] AS before, r.papersSince[i] AS after,
     r.datedPapersBefore AS totalBefore, r.datedPapersSince AS totalAfter
RETURN e.name AS entity, e.id AS id, before, after,
       toFloat(before) / totalBefore AS before_share, toFloat(after) / totalAfter AS after_share
ORDER BY after * totalBefore - before * totalAfter DESC, after DESC, id
// part: totals
MATCH (p:Paper)
WHERE p.year IS NOT NULL
RETURN sum(CASE WHEN p.year < $since THEN 1 ELSE 0 END) AS before, sum(CASE WHEN p.year >= $since THEN 1 ELSE 0 END) AS after
// part: ranked
MATCH (p:Paper)
WHERE p.year IS NOT NULL
WITH sum(CASE WHEN p.year < $since THEN 1 ELSE 0 END) AS totalBefore,
     sum(CASE WHEN p.year >= $since THEN 1 ELSE 0 END) AS totalAfter
MATCH (q:Paper)-[:MENTIONS]->(e)
WHERE q.year IS NOT NULL AND $type IN labels(e)
WITH totalBefore, totalAfter, e,
     sum(CASE WHEN q.year < $since THEN 1 ELSE 0 END) AS before,
     sum(CASE WHEN q.year >= $since THEN 1 ELSE 0 END) AS after
WITH e, before, after, totalBefore, totalAfter, after * totalBefore - before * totalAfter AS growth
WHERE growth > 0
RETURN e.name AS entity, e.id AS id, before, after,
       toFloat(before) / totalBefore AS before_share, toFloat(after) / totalAfter AS after_share
ORDER BY growth DESC, after DESC, id
LIMIT $limit
