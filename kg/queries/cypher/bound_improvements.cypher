// name: bound_improvements
// summary: Bounds that improve on earlier ones, with their papers and the length of the chain each starts
// params: -
// returns: bound, expression, paper, improves_on, improves_on_expression, improves_on_paper, chain (int)
MATCH (b:Bound)-[:IMPROVES_ON]->(o:Bound)
OPTIONAL MATCH (bp:Paper)-[:STATES_BOUND]->(b)
OPTIONAL MATCH (op:Paper)-[:STATES_BOUND]->(o)
RETURN b.id AS bound, b.expression AS expression, bp.id AS paper, o.id AS improves_on,
       o.expression AS improves_on_expression, op.id AS improves_on_paper
ORDER BY coalesce(paper, ''), bound, improves_on
