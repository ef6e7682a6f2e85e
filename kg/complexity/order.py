"""Asymptotic dominance between bounds: compare, frontier of non-dominated bounds, upper/lower gap.

Convention: every variable grows to infinity except accuracy, confidence and miscoverage parameters
(names ``eps``, ``epsilon``, ``delta``, ``alpha`` and their subscripted forms such as ``eps_opt``),
which tend to 0 from above.  Variables are taken one at a time with the others held fixed (positive
constants), which makes dominance a partial order: a bound is *better* when it grows no faster along
every variable and strictly slower along at least one, whatever the bound is about (time, samples,
error: smaller is better).  Products of powers and logarithms are ordered exactly by their exponent
triples (cheap path, microseconds); anything else goes to ``sympy.limit`` under a time limit, and an
undecided limit answers ``incomparable``/``unknown`` rather than guessing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Literal

import sympy

from kg.complexity.parse import parse_bound

Comparison = Literal["better", "worse", "equal", "incomparable"]
Gap = Literal["tight", "log-factor", "polynomial", "exponential", "inverted", "unknown"]
TO_ZERO = ("eps", "epsilon", "varepsilon", "delta", "alpha")
UPPER_NOTATIONS = ("O", "soft-O", "Theta", "o", "rate")
LIMIT_SECONDS = 1.0
Order = tuple[Fraction, Fraction, Fraction]  # growth v^a * log(v)^b * log(log(v))^c as (a, b, c)
_ZERO: Order = (Fraction(0), Fraction(0), Fraction(0))


def tends_to_zero(name: str) -> bool:
    """True for accuracy-like variables (``eps``, ``delta_1``, ``alpha``) that tend to 0.

    Example:
        >>> tends_to_zero("eps_opt"), tends_to_zero("n")
        (True, False)
    """
    return name.split("_")[0] in TO_ZERO


def expression_of(bound: Any) -> sympy.Expr | None:
    """The sympy argument of a bound given as text, a ``ParsedBound`` or a ``kg.records.Bound``."""
    if isinstance(bound, sympy.Expr):
        return bound
    if hasattr(bound, "sympy_expr"):
        return bound.sympy_expr
    text = bound if isinstance(bound, str) else (getattr(bound, "expression", "") or bound.text)
    return parse_bound(text).sympy_expr


def _to_infinity(a: sympy.Expr, b: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, list[sympy.Symbol]]:
    """Substitute ``v -> 1/v`` for variables that tend to 0, so every variable tends to infinity."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    flips = {s: 1 / s for s in symbols if tends_to_zero(s.name)}
    if flips:
        a, b = a.xreplace(flips), b.xreplace(flips)
    return a, b, symbols


def _order(expr: sympy.Expr, v: sympy.Symbol) -> Order | None:
    """Growth of ``expr`` as ``v -> oo`` as exponents of ``v``, ``log v``, ``log log v``; ``None`` if unknown."""
    if v not in expr.free_symbols:
        return _ZERO if expr.is_positive is not False else None
    if expr == v:
        return (Fraction(1), Fraction(0), Fraction(0))
    if expr.is_Mul:
        total = _ZERO
        for factor in expr.args:
            part = _order(factor, v)
            if part is None:
                return None
            total = (total[0] + part[0], total[1] + part[1], total[2] + part[2])
        return total
    if expr.is_Pow:
        base, exponent = expr.args
        if v in exponent.free_symbols or not exponent.is_Rational:
            return None
        part = _order(base, v)
        if part is None:
            return None
        k = Fraction(int(exponent.p), int(exponent.q))
        return (part[0] * k, part[1] * k, part[2] * k)
    if isinstance(expr, sympy.log):
        inner = _order(expr.args[0], v)
        if inner is None or inner <= _ZERO:
            return None  # log of something bounded or shrinking: let sympy decide
        if inner[0] > 0:
            return (Fraction(0), Fraction(1), Fraction(0))
        return (Fraction(0), Fraction(0), Fraction(1)) if inner[1] > 0 else None
    if expr.is_Add:
        parts = []
        for term in expr.args:
            part = _order(term, v)
            if part is None or term.could_extract_minus_sign():
                return None
            parts.append(part)
        return max(parts)
    return None


@contextmanager
def _time_limit(seconds: float):
    """Interrupt a runaway sympy limit (only possible in the main thread; elsewhere it just runs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _limit(expr: sympy.Expr, v: sympy.Symbol) -> sympy.Expr | None:
    try:
        with _time_limit(LIMIT_SECONDS):
            value = sympy.limit(expr, v, sympy.oo)
    except (TimeoutError, NotImplementedError, ValueError, TypeError, RecursionError):
        return None
    if value.has(sympy.Limit, sympy.AccumBounds, sympy.nan) or value is sympy.zoo:
        return None
    return value


def _sign(a: sympy.Expr, b: sympy.Expr, v: sympy.Symbol) -> int | None:
    """-1, 0 or +1 as ``a/b`` tends to 0, a positive constant or infinity along ``v``."""
    oa, ob = _order(a, v), _order(b, v)
    if oa is not None and ob is not None:
        diff = tuple(x - y for x, y in zip(oa, ob))
        return (diff > (0, 0, 0)) - (diff < (0, 0, 0))
    value = _limit(a / b, v)
    if value is None:
        return None
    if value == 0:
        return -1
    if value in (sympy.oo,):
        return 1
    if value.is_positive and value.is_finite:
        return 0
    return None


def compare(a: Any, b: Any) -> Comparison:
    """Asymptotic dominance of ``a`` over ``b`` (``better``: ``a`` grows strictly slower).

    Example:
        >>> compare("O~(d*log(1/delta)^(3/2)/eps)", "O~(d*log(1/delta)^2/eps^2)")
        'better'
        >>> compare("O(n^2)", "O(n*m)")
        'incomparable'
    """
    ea, eb = expression_of(a), expression_of(b)
    if ea is None or eb is None:
        same = _text(a) == _text(b) and _text(a) != ""
        return "equal" if same else "incomparable"
    if ea == eb:
        return "equal"
    ea, eb, symbols = _to_infinity(ea, eb)
    signs = set()
    for v in symbols:
        sign = _sign(ea, eb, v)
        if sign is None:
            return "incomparable"
        signs.add(sign)
    signs.discard(0)
    if not signs:
        return "equal"
    if signs == {-1}:
        return "better"
    if signs == {1}:
        return "worse"
    return "incomparable"


def _text(bound: Any) -> str:
    if isinstance(bound, str):
        return parse_bound(bound).argument
    return getattr(bound, "argument", "") or parse_bound(getattr(bound, "text", "")).argument


def gap(upper: Any, lower: Any) -> Gap:
    """How far an upper bound is from a lower bound, over the variables they share.

    Example:
        >>> gap("O(sqrt(T)*log(T))", "Omega(sqrt(T))"), gap("O(n^2)", "Omega(n)")
        ('log-factor', 'polynomial')
    """
    eu, el = expression_of(upper), expression_of(lower)
    if eu is None or el is None:
        return "unknown"
    eu, el, symbols = _to_infinity(eu, el)
    worst: Gap = "tight"
    rank = {"tight": 0, "log-factor": 1, "polynomial": 2, "exponential": 3}
    for v in symbols:
        kind = _axis_gap(eu, el, v)
        if kind in ("unknown", "inverted"):
            return kind
        if rank[kind] > rank[worst]:
            worst = kind
    return worst


def _axis_gap(upper: sympy.Expr, lower: sympy.Expr, v: sympy.Symbol) -> Gap:
    ou, ol = _order(upper, v), _order(lower, v)
    if ou is not None and ol is not None:
        diff = tuple(x - y for x, y in zip(ou, ol))
        if diff < (0, 0, 0):
            return "inverted"
        return "polynomial" if diff[0] > 0 else ("log-factor" if diff > (0, 0, 0) else "tight")
    ratio = upper / lower
    value = _limit(ratio, v)
    if value is None:
        return "unknown"
    if value == 0:
        return "inverted"
    if value.is_positive and value.is_finite:
        return "tight"
    exponent = _limit(sympy.log(ratio) / sympy.log(v), v)
    if exponent is None:
        return "unknown"
    if exponent == sympy.oo:
        return "exponential"
    return "polynomial" if exponent.is_positive else "log-factor"


def frontier(
    bounds: Iterable[Any],
    problem: Callable[[Any], str] = lambda b: b.subject,
) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Non-dominated upper bounds per (problem, quantity); lower bounds and conditions are left out.

    A bound stays on the frontier unless another bound of the same group is ``better``; equal and
    incomparable bounds all stay, in input order.
    """
    groups: dict[tuple[str, str], list[Any]] = {}
    for bound in bounds:
        if bound.notation in UPPER_NOTATIONS and bound.role in ("new", "prior"):
            groups.setdefault((problem(bound), bound.quantity), []).append(bound)
    return {
        key: tuple(b for b in members if not any(compare(c, b) == "better" for c in members if c is not b))
        for key, members in sorted(groups.items())
    }
