// name: bound_gaps
// summary: Subjects with both an upper and a lower bound on the same quantity, and the gap between them
// params: -
// returns: subject, id, quantity, upper, upper_expression, lower, lower_expression, gap
// Upper: a new or prior result in O, soft-O, Theta, o or rate notation (as kg.complexity.frontier); lower: a proven lower bound or Omega-like notation.
MATCH (s)<-[:BOUNDS]-(u:Bound), (s)<-[:BOUNDS]-(l:Bound)
WHERE u.quantity = l.quantity
  AND u.role IN ['new', 'prior'] AND u.notation IN ['O', 'soft-O', 'Theta', 'o', 'rate']
  AND (l.role = 'lower' OR l.notation IN ['Omega', 'soft-Omega', 'omega'])
RETURN s.name AS subject, s.id AS id, u.quantity AS quantity, u.id AS upper, u.expression AS upper_expression,
       l.id AS lower, l.expression AS lower_expression
ORDER BY id, quantity, upper, lower
