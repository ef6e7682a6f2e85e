"""Normalised ASCII expression -> sympy expression, through sympy's own parser.

Identifiers are swapped for placeholders before ``parse_expr`` so that names such as ``lambda``,
``S``, ``N`` or ``E`` stay plain positive symbols instead of Python keywords or sympy singletons.
"""

from __future__ import annotations

import re
from functools import lru_cache
from tokenize import TokenError

import sympy
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
_KNOWN_FUNCTIONS = {
    "log": sympy.log, "ln": sympy.log, "lg": sympy.log, "exp": sympy.exp, "sqrt": sympy.sqrt,
    "abs": sympy.Abs, "min": sympy.Min, "max": sympy.Max,
}
_TRANSFORMS = (*standard_transformations, convert_xor)
_MAX_LENGTH = 400
_HUGE_POWER = re.compile(r"\d\s*\^\s*\(?\s*\d+\s*\^|\^\s*\(?\s*\d{4,}")  # 2^(10^10) would hang sympy's evaluation


@lru_cache(maxsize=65536)
def to_sympy(ascii_expr: str) -> sympy.Expr | None:
    """Parse a normalised ASCII expression; ``None`` when sympy cannot read it.

    Symbols are positive (sizes, accuracies and horizons are), so ``sqrt(n^2)`` is ``n``.

    Example:
        >>> to_sympy("d*log(1/delta)^(3/2)/eps")
        d*log(1/delta)**(3/2)/eps
        >>> to_sympy("n +* 1") is None
        True
    """
    if not ascii_expr or len(ascii_expr) > _MAX_LENGTH or _HUGE_POWER.search(ascii_expr):
        return None
    names: dict[str, object] = {}
    pieces: list[str] = []
    last = 0
    for match in _IDENT.finditer(ascii_expr):
        name = match.group()
        if match.start() > 0 and (ascii_expr[match.start() - 1].isdigit() or ascii_expr[match.start() - 1] == "_"):
            continue
        is_call = ascii_expr[match.end():match.end() + 1] == "("
        placeholder = f"_v{len(names)}"
        if is_call:
            names[placeholder] = _KNOWN_FUNCTIONS.get(name) or sympy.Function(name)
        elif name == "oo":
            names[placeholder] = sympy.oo
        else:
            names[placeholder] = sympy.Symbol(name, positive=True)
        pieces.append(ascii_expr[last:match.start()])
        pieces.append(placeholder)
        last = match.end()
    pieces.append(ascii_expr[last:])
    try:
        expr = parse_expr("".join(pieces), local_dict=names, transformations=_TRANSFORMS)
    except (SyntaxError, TypeError, ValueError, AttributeError, ZeroDivisionError, TokenError):
        return None
    return expr if isinstance(expr, sympy.Expr) else None


def variables(expr: sympy.Expr | None, ascii_expr: str = "") -> tuple[str, ...]:
    """Sorted variable names of a parsed expression, or identifiers of the raw text when unparsed.

    Example:
        >>> variables(to_sympy("d*log(1/delta)^(3/2)/eps"))
        ('d', 'delta', 'eps')
    """
    if expr is not None:
        return tuple(sorted(s.name for s in expr.free_symbols))
    found = {m.group() for m in _IDENT.finditer(ascii_expr)}
    return tuple(sorted(found - set(_KNOWN_FUNCTIONS) - {"O", "Omega", "Theta", "o", "omega"}))

