"""Dominance, gaps and frontiers of bounds, on pairs whose answers are known."""

from __future__ import annotations

import pytest

from kg.complexity import compare, frontier, gap, tends_to_zero
from kg.records import Bound

PAIRS = [
    ("O~(d*log(1/delta)^(3/2)/eps)", "O~(d*log(1/delta)^2/eps^2)", "better"),
    ("O(n^2)", "O(n^6)", "better"),
    ("O(n^6)", "O(n^2)", "worse"),
    ("O(n^2)", "O(n*m)", "incomparable"),
    ("O(n^2 + m)", "O(n + m^2)", "incomparable"),
    ("O(sqrt(T))", "O(T^(2/3))", "better"),
    ("O(n*log(n))", "O(n)", "worse"),
    ("O(log(log(T)))", "O(log(T))", "better"),
    ("O(2^n)", "O(n^10)", "worse"),
    ("O(exp(-n))", "O(1/n)", "better"),
    ("O(1/T)", "O(1/sqrt(T))", "better"),
    ("O(eps^(-2))", "O(eps^(-3))", "better"),
    ("O(delta^(-1)*eps^(-1))", "O(delta^(-1)*eps^(-3))", "better"),
    ("O(3*n^2 + n)", "Theta(n^2)", "equal"),
    (r"$\mathcal{O}(n^2)$", "O(n^2)", "equal"),
    ("O(sqrt(T))", "O(sqrt(d*T))", "better"),
    ("O(s(n)^c)", "Omega(s(n))", "incomparable"),
    (r"$O(\sum_{n=1}^{N} k_n^3)$", "O(N)", "incomparable"),
]


@pytest.mark.parametrize(("a", "b", "expected"), PAIRS)
def test_order_compare(a: str, b: str, expected: str) -> None:
    assert compare(a, b) == expected


@pytest.mark.parametrize(
    ("upper", "lower", "expected"),
    [
        ("O(sqrt(T)*log(T))", "Omega(sqrt(T))", "log-factor"),
        ("O~(sqrt(T))", "Omega(sqrt(T))", "tight"),
        ("O(n^2)", "Omega(n)", "polynomial"),
        ("O(2^n)", "Omega(n)", "exponential"),
        ("Theta(n)", "Omega(n)", "tight"),
        ("O(n)", "Omega(n^2)", "inverted"),
        ("O(eps^(-2)*log(1/eps))", "Omega(eps^(-2))", "log-factor"),
        ("O(d*sqrt(T))", "Omega(sqrt(d*T))", "polynomial"),
        ("O(s(n))", "Omega(n)", "unknown"),
    ],
)
def test_order_gap(upper: str, lower: str, expected: str) -> None:
    assert gap(upper, lower) == expected


def test_order_convention() -> None:
    assert [tends_to_zero(v) for v in ("eps", "eps_opt", "delta", "alpha", "epsilon", "n", "T", "d")] == [
        True, True, True, True, True, False, False, False]


def bound(expression: str, subject: str, quantity: str, role: str = "new", notation: str = "O") -> Bound:
    return Bound(0, 1, expression, notation, expression, quantity=quantity, role=role, subject=subject)


def test_order_frontier_keeps_non_dominated_per_problem_and_quantity() -> None:
    bounds = [
        bound("O(T^(2/3))", "bandits", "regret", "prior"),
        bound("O(sqrt(T))", "bandits", "regret"),
        bound("O(sqrt(d*T))", "bandits", "regret"),
        bound("Omega(sqrt(T))", "bandits", "regret", "lower", "Omega"),
        bound("O(n^2)", "sorting", "time"),
        bound("O(n*m)", "sorting", "time"),
        bound("O(n^3)", "sorting", "time", "prior"),
        bound("O(n)", "sorting", "space/memory"),
        bound("O~(n)", "sorting", "time", "condition", "soft-O"),
    ]
    result = frontier(bounds)
    assert {key: [b.expression for b in members] for key, members in result.items()} == {
        ("bandits", "regret"): ["O(sqrt(T))"],
        ("sorting", "space/memory"): ["O(n)"],
        ("sorting", "time"): ["O(n^2)", "O(n*m)"],
    }
    by_problem = frontier(bounds, problem=lambda b: "all")
    assert [b.expression for b in by_problem[("all", "time")]] == ["O(n^2)", "O(n*m)"]
