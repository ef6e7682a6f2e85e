// name: papers_for_entity
// summary: Papers that mention an entity, newest first, with the sentences that mention it
// params: entity (entity), limit (int = 100)
// returns: paper, title, year (int), sentences (list)
// r.paperRank orders the entity's papers as this query does (kg.schema.aggregates); ranks 1..$limit
// lie in the bands whose first rank (1, then 2^(b-1) + 1) is at most $limit, found by key
// ("<entity id>\u001f<band>") in the range index on r.paperBand instead of ordering every paper of
// a busy entity (thousands).  The hint keeps the planner on that index; the load resamples index
// statistics (kg.stores.neo4j), without which it scans the index instead of seeking it.
WITH [b IN range(0, 24) WHERE CASE b WHEN 0 THEN 1 ELSE 2 ^ (b - 1) + 1 END <= $limit | $entity + '\u001f' + toString(b)] AS keys
MATCH (p:Paper)-[r:MENTIONS]->(:Method|Model|Problem|Dataset|Metric|Concept)
USING INDEX r:MENTIONS(paperBand)
WHERE r.paperBand IN keys
WITH p, r ORDER BY r.paperRank LIMIT $limit
RETURN p.id AS paper, p.title AS title, p.year AS year,
       [i IN range(0, size(r.sentenceStarts) - 1) | substring(p.abstract, r.sentenceStarts[i], r.sentenceEnds[i] - r.sentenceStarts[i])] AS sentences
ORDER BY r.paperRank
