"""Read a written bound (``$\\tilde{O}_T(\\sqrt{T})$``, ``O(n^2 log n)``, ``Õ(√T)``) into data.

``HEAD`` recognises the asymptotic operator in every spelling found in abstracts (LaTeX with one or
two backslashes, ``\\mathcal``, ``\\cO``, tilde wrappers, Unicode); ``parse_bound`` splits a bound
into notation, subscript and argument, converts the argument with ``latex_to_ascii`` and sympy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sympy

from kg.complexity.expr import to_sympy, variables
from kg.complexity.latex import latex_to_ascii, normalise_escapes

_B = r"\\+"
_CAL = rf"{_B}(?:mathcal|mathscr|cal|mathrm|mathsf|mathbf|mathbb|mathit)\s*(?:\{{\s*O\s*\}}|O)"
_BIG_O = rf"(?:{_CAL}|\{{\s*{_CAL}\s*\}}|{_B}cO|\{{\s*O\s*\}}|(?<![A-Za-z0-9\\])O|𝒪|Ο)"
_OMEGA = rf"(?:{_B}Omega|\{{\s*{_B}Omega\s*\}}|Ω|(?<![A-Za-z\\])Omega)"
_THETA = rf"(?:{_B}Theta|\{{\s*{_B}Theta\s*\}}|Θ|(?<![A-Za-z\\])Theta)"
_INNER = rf"(?:{_CAL}|{_B}cO|O|{_B}Omega|{_B}Theta)"
_TILDE = rf"{_B}(?:widetilde|tilde|wt)\s*(?:\{{\s*{_INNER}\s*\}}|{_INNER})"
_SOFT = rf"(?:{_TILDE}|\{{\s*{_TILDE}\s*\}}|Õ|[OΩΘ]\u0303|𝒪\u0303|(?<![A-Za-z\\])(?:O|Omega|Theta)~)"
_LITTLE = r"(?:(?<![A-Za-z0-9\\])o(?=\()|\\+omega|ω)"
_SUB = r"(?:\s*\\?_\s*(?:\{[^{}$]{0,30}\}|\\+[A-Za-z]+|[A-Za-z0-9]))?"
_SIZE = r"(?:\s*\\+[!,;: ])*(?:\s*\\+(?:left|bigl|biggl|Biggl|Bigl|bigg|Bigg|Big|big)\s*)?"
HEAD = re.compile(
    rf"(?P<op>{_SOFT}|{_BIG_O}|{_OMEGA}|{_THETA}|{_LITTLE})(?P<sub>{_SUB})(?P<size>{_SIZE})\s{{0,2}}(?P<open>\{{\s*\(|\()"
)
"""An asymptotic operator with optional subscript and size command, up to its opening parenthesis."""

_SYMBOL = {"O": "O", "Omega": "Omega", "Theta": "Theta", "o": "o", "omega": "omega",
           "soft-O": "O~", "soft-Omega": "Omega~", "soft-Theta": "Theta~"}


def notation_of(operator: str) -> str:
    """Notation name of an operator as written (``\\widetilde{\\mathcal O}`` -> ``soft-O``).

    Example:
        >>> notation_of(r"\\tilde\\Omega"), notation_of("Θ"), notation_of(r"\\mathcal{O}")
        ('soft-Omega', 'Theta', 'O')
    """
    soft = any(mark in operator for mark in ("tilde", "wt", "Õ", "\u0303", "~"))
    if "Omega" in operator or "Ω" in operator:
        base = "Omega"
    elif "Theta" in operator or "Θ" in operator:
        base = "Theta"
    elif "omega" in operator or "ω" in operator:
        base = "omega"
    elif operator == "o":
        base = "o"
    else:
        base = "O"
    if soft:
        return "soft-Theta" if base == "Theta" else f"soft-{base}"
    return base


def closing_paren(text: str, open_index: int, limit: int = 600) -> int | None:
    """Index just past the parenthesis matching ``text[open_index] == '('`` (``None`` if unbalanced).

    Example:
        >>> closing_paren("O(n(1+x)) y", 1)
        9
    """
    depth = 0
    for k in range(open_index, min(len(text), open_index + limit)):
        ch = text[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return k + 1
        elif ch == "$" or (ch == "\n" and depth > 0 and text[k:k + 2] == "\n\n"):
            return None
    return None


@dataclass(frozen=True, slots=True)
class ParsedBound:
    """A bound read into data: notation, normalised expression, sympy argument and variables."""

    notation: str
    expression: str
    argument: str
    sympy_expr: sympy.Expr | None
    variables: tuple[str, ...]
    parsed: bool
    unicode: str


@lru_cache(maxsize=65536)
def parse_bound(text: str) -> ParsedBound:
    """Parse one bound as written, with or without ``$``; a bare expression is a ``rate``.

    Example:
        >>> b = parse_bound(r"$\\tilde{O}_T(\\sqrt{T})$")
        >>> b.notation, b.expression, b.variables, b.unicode
        ('soft-O', 'O~_T(sqrt(T))', ('T',), 'Õ_T(√T)')
        >>> parse_bound("$1/\\\\tau$").expression
        '1/tau'
    """
    body = text.strip()
    if body.startswith("$"):
        body = body.strip("$").strip()
    while body.startswith("{") and body.endswith("}") and _wraps(body):
        body = body[1:-1].strip()
    match = HEAD.match(body)
    end = closing_paren(body, match.end() - 1) if match else None
    if match and end is not None and not body[end:].strip(" .,;}"):
        notation = notation_of(match.group("op"))
        sub = _subscript(match.group("sub"))
        inner = body[match.end():end - 1]
        converted = latex_to_ascii(inner)
        argument = converted.ascii
        expr = to_sympy(argument) if converted.ok else None
        symbol = _SYMBOL[notation] + (f"_{sub}" if sub else "")
        expression = f"{symbol}({argument})"
        notation = "Theta" if notation == "soft-Theta" else notation
    else:
        converted = latex_to_ascii(body)
        argument = expression = converted.ascii
        expr = to_sympy(argument) if converted.ok else None
        heads = [m for m in HEAD.finditer(body)]
        notation = notation_of(heads[0].group("op")) if heads else "rate"
        notation = "Theta" if notation == "soft-Theta" else notation
    parsed = expr is not None
    return ParsedBound(notation, expression, argument, expr, variables(expr, argument), parsed,
                       to_unicode(expression) if converted.ok else text.strip("$ "))


def _wraps(body: str) -> bool:
    """True when the first ``{`` of ``body`` closes at its very end (``{O(n)}``, not ``{a}{b}``)."""
    depth = 0
    for k, ch in enumerate(body):
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0:
            return k == len(body) - 1
    return False


def _subscript(raw: str) -> str:
    """``_T``, ``_{\\epsilon}``, ``\\_d`` -> ``T``, ``eps``, ``d``."""
    raw = normalise_escapes(raw).strip().lstrip("_").strip()
    if not raw:
        return ""
    converted = latex_to_ascii(raw[1:-1] if raw.startswith("{") else raw)
    return re.sub(r"[^A-Za-z0-9_,]", "", converted.ascii)


_GREEK_OUT = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "eps": "ε", "zeta": "ζ", "eta": "η",
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ", "oo": "∞",
}
_SUPER = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def to_unicode(expression: str) -> str:
    """Readable rendering of a normalised expression for people.

    Example:
        >>> to_unicode("O~(d*log(1/delta)^(3/2)/eps)")
        'Õ(d·log^{3/2}(1/δ)/ε)'
        >>> to_unicode("Omega~(sqrt(T)*n^2)")
        'Ω̃(√T·n²)'
    """
    text = expression
    text = re.sub(r"^O~", "Õ", text)
    text = re.sub(r"^Omega~", "Ω\u0303", text)
    text = re.sub(r"^Theta~", "Θ\u0303", text)
    text = _move_function_powers(text)
    text = re.sub(r"sqrt\(([A-Za-z0-9_]+)\)", r"√\1", text)
    text = text.replace("sqrt(", "√(")
    text = re.sub(r"(?<![A-Za-z])([A-Za-z]+)(?![A-Za-z(])", lambda m: _GREEK_OUT.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\^\((-?\d+)\)|\^(\d+)", lambda m: (m.group(1) or m.group(2)).translate(_SUPER), text)
    text = re.sub(r"\^\(([^()]*)\)", r"^{\1}", text)
    text = re.sub(r"\b(Omega|Theta|omega)(?=[(_])", lambda m: _GREEK_OUT[m.group(1)], text)
    return text.replace("*", "·").replace("_star", "*")


def _move_function_powers(text: str) -> str:
    """``log(x)^(3/2)`` -> ``log^{3/2}(x)``, as people write it."""
    out = text
    for name in ("log", "exp"):
        start = 0
        while (k := out.find(f"{name}(", start)) >= 0:
            end = closing_paren(out, k + len(name))
            start = k + 1
            if end is None or not out.startswith("^", end):
                continue
            power_match = re.match(r"\^(\([^()]*\)|\d+)", out[end:])
            if not power_match:
                continue
            power = power_match.group(1).strip("()")
            out = f"{out[:k]}{name}^{{{power}}}{out[k + len(name):end]}{out[end + power_match.end():]}"
    return out
