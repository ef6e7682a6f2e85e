"""Reading bounds into normalised expressions and sympy: LaTeX, plain text, Unicode, escapes."""

from __future__ import annotations

import pytest
import sympy

from kg.complexity import parse_bound, to_unicode
from kg.complexity.expr import to_sympy
from kg.complexity.latex import latex_to_ascii, normalise_escapes


@pytest.mark.parametrize(
    ("latex", "ascii"),
    [
        (r"\tfrac{d \log^{3/2}(1/\delta)}{\varepsilon}", "d*log(1/delta)^(3/2)/eps"),
        (r"\epsilon_{\mathrm{opt}}+\sqrt{\epsilon_{\mathrm{RM}}^2C^\*/k}", "eps_opt + sqrt(eps_RM^2*C_star/k)"),
        (r"1/\sqrt{n} + 1/(\alpha^2 n) + \exp(-\alpha^2 m)", "1/sqrt(n) + 1/(alpha^2*n) + exp(-alpha^2*m)"),
        (r"n^2 + (n^{3/2}\epsilon^{-1}\log^2\Delta)^{1+o(1)}", "n^2 + (n^(3/2)*eps^(-1)*log(Delta)^2)^(1 + o(1))"),
        (r"\delta^{-1} \epsilon^{-3}", "delta^(-1)*eps^(-3)"),
        (r"s(n)^c", "s(n)^c"),
        ("pn^2", "p*n^2"),
        ("n^10", "n^10"),
        ("N log N", "N*log(N)"),
        ("√T", "sqrt(T)"),
        ("n²·d", "n^2*d"),
        (r"\log\log T", "log(log(T))"),
        (r"\sqrt[3]{x}", "x^(1/3)"),
        (r"\frac 1 {\ln t}", "1/log(t)"),
        (r"|\mathcal{S}|+|\mathcal{A}|", "abs(S) + abs(A)"),
        (r"\text{polylog}(N/\epsilon)^k", "polylog(N/eps)^k"),
        (r"\widetilde{d}\sqrt{\kappa T}", "d_tilde*sqrt(kappa*T)"),
        (r"\\sqrt{T}\\,\\mathsf{k}", "sqrt(T)*k"),
    ],
)
def test_latex_to_ascii(latex: str, ascii: str) -> None:
    converted = latex_to_ascii(latex)
    assert converted.ok and converted.ascii == ascii


@pytest.mark.parametrize("latex", [r"\sum_{n=1}^N k_n", r"\max\\{a,b\\}", r"x \le y", r"a, \dots, b"])
def test_latex_to_ascii_flags_what_it_cannot_read(latex: str) -> None:
    converted = latex_to_ascii(latex)
    assert not converted.ok and converted.ascii == latex


def test_normalise_escapes() -> None:
    assert normalise_escapes(r"\\mathcal{O}(\\log n)\_1") == r"\mathcal{O}(\log n)_1"


def test_to_sympy_names_stay_symbols() -> None:
    expr = to_sympy("lambda*S*N*E + I")
    assert {s.name for s in expr.free_symbols} == {"lambda", "S", "N", "E", "I"}
    assert all(s.is_positive for s in expr.free_symbols)
    assert to_sympy("sqrt(n^2)") == sympy.Symbol("n", positive=True)
    assert to_sympy("n +* 1") is None
    assert to_sympy("2^(10^10)") is None  # would never finish evaluating


@pytest.mark.parametrize(
    ("text", "notation", "expression", "variables"),
    [
        (r"$\tilde{O}_T(\sqrt{T})$", "soft-O", "O~_T(sqrt(T))", ("T",)),
        (r"\tilde\Omega(C^\*)", "soft-Omega", "Omega~(C_star)", ("C_star",)),
        (r"$\mathcal{O}(\delta^{-1} \epsilon^{-3})$", "O", "O(delta^(-1)*eps^(-3))", ("delta", "eps")),
        (r"$\tilde{\Theta}(\epsilon^{-1})$", "Theta", "Theta~(eps^(-1))", ("eps",)),
        ("Õ(√T)", "soft-O", "O~(sqrt(T))", ("T",)),
        ("O(n^2 log n)", "O", "O(n^2*log(n))", ("n",)),
        (r"$n^{1+o(1)}$", "o", "n^(1 + o(1))", ("n",)),
        (r"$1/\tau$", "rate", "1/tau", ("tau",)),
        ("O~(d*log(1/delta)^(3/2)/eps)", "soft-O", "O~(d*log(1/delta)^(3/2)/eps)", ("d", "delta", "eps")),
    ],
)
def test_parse_bound(text: str, notation: str, expression: str, variables: tuple[str, ...]) -> None:
    parsed = parse_bound(text)
    assert (parsed.notation, parsed.expression, parsed.variables, parsed.parsed) == (notation, expression, variables, True)


def test_parse_bound_unparsable_keeps_text() -> None:
    parsed = parse_bound(r"$O(\sum_{n=1}^{N} k_n^3)$")
    assert parsed.notation == "O" and not parsed.parsed and parsed.sympy_expr is None
    assert parsed.expression == r"O(\sum_{n=1}^{N} k_n^3)"
    assert parsed.variables == ("N", "k_n", "n", "sum")  # identifiers of the raw text


@pytest.mark.parametrize(
    ("expression", "unicode"),
    [
        ("O~(d*log(1/delta)^(3/2)/eps)", "Õ(d·log^{3/2}(1/δ)/ε)"),
        ("O~_T(sqrt(T))", "Õ_T(√T)"),
        ("Omega~(C_star)", "Ω̃(C*)"),
        ("O(delta^(-1)*eps^(-3))", "O(δ⁻¹·ε⁻³)"),
        ("Theta(n*log(n))", "Θ(n·log(n))"),
    ],
)
def test_to_unicode(expression: str, unicode: str) -> None:
    assert to_unicode(expression) == unicode
