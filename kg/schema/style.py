"""One style per node label, shared by every view (HTML explorer, Neo4j Browser ``.grass``).

Colours are the Neo4j Browser's default palette so a node looks the same in both tools;
``shape`` is what the HTML explorer draws (``circle`` or ``square``): papers, bounds and results
are records rather than concepts, so they are squares.
"""

from __future__ import annotations


STYLE: dict[str, dict[str, str]] = {
    "Paper": {"color": "#4C8EDA", "shape": "square"},
    "Method": {"color": "#F79767", "shape": "circle"},
    "Model": {"color": "#DA7194", "shape": "circle"},
    "Problem": {"color": "#F16667", "shape": "circle"},
    "Dataset": {"color": "#57C7E3", "shape": "circle"},
    "Metric": {"color": "#8DCC93", "shape": "circle"},
    "Concept": {"color": "#C990C0", "shape": "circle"},
    "Bound": {"color": "#FFC454", "shape": "square"},
    "Result": {"color": "#D9C8AE", "shape": "square"},
}
