// name: bounds_for_problem
// summary: Complexity bounds stated about a problem (or a method or model), optionally of one quantity, with the non-dominated frontier marked
// params: problem (Problem|Method|Model), quantity (str?)
// returns: bound, expression, unicode, notation, quantity, role, paper, year (int), frontier (bool)
MATCH (:Problem|Method|Model {id: $problem})<-[:BOUNDS]-(b:Bound)
WHERE b.quantity = coalesce($quantity, b.quantity)
OPTIONAL MATCH (paper:Paper)-[:STATES_BOUND]->(b)
RETURN b.id AS bound, b.expression AS expression, b.unicode AS unicode, b.notation AS notation,
       b.quantity AS quantity, b.role AS role, paper.id AS paper, paper.year AS year
ORDER BY quantity, coalesce(role, ''), bound
