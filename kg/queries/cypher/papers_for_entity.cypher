// name: papers_for_entity
// summary: Papers that mention an entity, newest first, with the sentences that mention it
// params: entity (entity), limit (int = 100)
// returns: paper, title, year (int), sentences (list)
MATCH (e:Method|Model|Problem|Dataset|Metric|Concept {id: $entity})<-[r:MENTIONS]-(p:Paper)
RETURN p.id AS paper, p.title AS title, p.year AS year,
       [i IN range(0, size(r.sentenceStarts) - 1) | substring(p.abstract, r.sentenceStarts[i], r.sentenceEnds[i] - r.sentenceStarts[i])] AS sentences
ORDER BY coalesce(year, 0) DESC, paper
LIMIT $limit
