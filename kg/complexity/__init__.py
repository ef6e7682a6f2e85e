"""Complexity bounds as data: parse a written bound into sympy, compare, find frontiers and gaps."""

from __future__ import annotations

from kg.complexity.order import compare, frontier, gap, tends_to_zero
from kg.complexity.parse import ParsedBound, parse_bound, to_unicode

__all__ = ["ParsedBound", "compare", "frontier", "gap", "parse_bound", "tends_to_zero", "to_unicode"]
