"""LaTeX, plain-text or Unicode math -> normalised ASCII expression (``d*log(1/delta)^(3/2)/eps``).

pylatexenc's ``LatexWalker`` tokenises the LaTeX (macros with their arguments, groups, characters);
this module only maps that node stream to ASCII with explicit ``*``, ``^`` and function calls, which
``kg.complexity.expr`` hands to sympy's own expression parser.  Anything it does not understand
(sums, relations, ellipses) is kept verbatim and reported, so a caller can flag the bound unparsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
    LatexWalker,
)

GREEK = {
    "alpha", "beta", "gamma", "delta", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "Gamma",
    "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega", "ell",
    "varphi", "vartheta", "varrho", "varsigma", "varkappa", "varpi", "nabla", "hbar",
}
EPSILONS = {"epsilon", "varepsilon", "eps", "epsi"}
UNICODE_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "eps", "ϵ": "eps", "ζ": "zeta",
    "η": "eta", "θ": "theta", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi",
    "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "ϕ": "phi", "χ": "chi",
    "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda",
    "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega", "ℓ": "ell", "∞": "oo",
}
SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
                "⁸": "8", "⁹": "9", "⁻": "-", "ᵏ": "k", "ⁿ": "n", "ᵈ": "d", "ᵗ": "t", "ᶜ": "c"}
FUNCTIONS = {"log", "ln", "lg", "exp", "sqrt", "poly", "polylog", "min", "max", "loglog"}
_FUNCTION_MACROS = {"log", "ln", "lg", "exp", "min", "max", "poly", "polylog", "sin", "cos", "tanh",
                    "det", "tr", "Tr", "deg", "dim", "sup", "inf", "operatorname"}
_SKIP_MACROS = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
                "biggl", "biggr", "Biggl", "Biggr", "middle", ",", ";", "!", ":", " ", "quad",
                "qquad", "displaystyle", "textstyle", "limits", "nolimits", "mathopen", "mathclose"}
_NAME_MACROS = {"mathcal", "mathrm", "mathbf", "mathsf", "mathtt", "mathbb", "mathit", "mathscr",
                "mathfrak", "text", "textrm", "textit", "textbf", "texttt", "textsf", "emph", "bm",
                "boldsymbol", "mbox", "mathnormal", "cal", "rm", "bf", "it", "operatorname"}
_ACCENTS = {"tilde": "tilde", "widetilde": "tilde", "hat": "hat", "widehat": "hat", "bar": "bar",
            "overline": "bar", "vec": "vec", "dot": "dot"}
_PRODUCT = {"cdot", "times", "ast", "cdotp", "circ"}
_UNSUPPORTED = {"sum", "prod", "int", "cdots", "ldots", "dots", "vdots", "le", "leq", "ge", "geq",
                "lesssim", "gtrsim", "asymp", "approx", "sim", "in", "subset", "subseteq", "to",
                "mid", "binom", "choose", "forall", "exists", "setminus", "cup", "cap", "lfloor",
                "rfloor", "lceil", "rceil", "langle", "rangle", "sup", "inf", "lim", "mathbb"}
_MULTI_BACKSLASH = re.compile(r"\\{2,}(?=[A-Za-z{}()\[\]|,;!_^*%$ ])")
_MD_ESCAPE = re.compile(r"\\([_^*])")


@dataclass(frozen=True, slots=True)
class Converted:
    """ASCII rendering of a math expression and whether every construct was understood."""

    ascii: str
    ok: bool


class _Unsupported(Exception):
    """A construct the converter does not map (kept verbatim by the caller)."""


def normalise_escapes(text: str) -> str:
    """Collapse doubled backslashes (``\\\\mathsf``) and Markdown escapes (``\\_``) seen in abstracts.

    Example:
        >>> normalise_escapes(r"\\\\mathcal{O}(n\\_1)")
        '\\\\mathcal{O}(n_1)'
    """
    return _MD_ESCAPE.sub(r"\1", _MULTI_BACKSLASH.sub(r"\\", text))


@lru_cache(maxsize=65536)
def latex_to_ascii(source: str) -> Converted:
    """Convert one math expression (LaTeX, plain or Unicode, without ``$``) to normalised ASCII.

    Example:
        >>> latex_to_ascii(r"\\tfrac{d \\log^{3/2}(1/\\delta)}{\\varepsilon}").ascii
        'd*log(1/delta)^(3/2)/eps'
        >>> latex_to_ascii("n^2 log n").ascii
        'n^2*log(n)'
    """
    text = normalise_escapes(source).strip()
    for char, name in UNICODE_NAMES.items():
        text = text.replace(char, f"\\{name} " if name != "oo" else "\\infty ")
    text = text.replace("√", "\\sqrt ").replace("·", "\\cdot ").replace("×", "\\times ")
    text = re.sub("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵏⁿᵈᵗᶜ]+", lambda m: "^{" + "".join(SUPERSCRIPTS[c] for c in m.group()) + "}", text)
    try:
        nodes, _, _ = LatexWalker(text, tolerant_parsing=True).get_latex_nodes()
        return Converted(_Emitter(_flatten(nodes)).run(), True)
    except (_Unsupported, IndexError, RecursionError, ValueError):
        return Converted(re.sub(r"\s+", " ", source.strip()), False)


# A token is ("c", char) | ("m", name, args) | ("g", tokens).
Token = tuple


def _flatten(nodes) -> list[Token]:
    """Turn pylatexenc nodes into a flat token list (characters split one by one)."""
    out: list[Token] = []
    for node in nodes or ():
        if node is None or isinstance(node, LatexCommentNode):
            continue
        if isinstance(node, LatexCharsNode):
            out.extend(("c", ch) for ch in node.chars)
        elif isinstance(node, LatexSpecialsNode):
            out.append(("c", " ") if node.specials_chars == "~" else ("c", node.specials_chars))
        elif isinstance(node, LatexGroupNode):
            inner = _flatten(node.nodelist)
            if node.delimiters[0] == "{":
                out.append(("g", inner))
            else:
                out.extend([("c", node.delimiters[0]), *inner, ("c", node.delimiters[1])])
        elif isinstance(node, LatexMathNode):
            out.extend(_flatten(node.nodelist))
        elif isinstance(node, LatexMacroNode):
            args = []
            if node.nodeargd is not None:
                for arg in node.nodeargd.argnlist:
                    if arg is None:
                        args.append(None)
                    elif isinstance(arg, LatexGroupNode):
                        args.append(_flatten(arg.nodelist))
                    else:
                        args.append(_flatten([arg]))
            out.append(("m", node.macroname, args))
        else:
            raise _Unsupported(type(node).__name__)
    return out


def _name_of(tokens: list[Token]) -> str:
    """Flatten tokens of a text-like argument (``\\mathrm{opt}``) into an identifier fragment."""
    parts: list[str] = []
    for tok in tokens:
        if tok[0] == "c":
            if tok[1].isalnum():
                parts.append(tok[1])
        elif tok[0] == "g":
            parts.append(_name_of(tok[1]))
        else:
            name = tok[1]
            if name in EPSILONS:
                parts.append("eps")
            elif name in _NAME_MACROS or name in _ACCENTS:
                parts.append("".join(_name_of(a) for a in tok[2] if a))
            elif name.isalpha():
                parts.append(name)
    return "".join(parts)


class _Emitter:
    """Walk a token list left to right, emitting operands and operators."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def run(self) -> str:
        out: list[tuple[str, str]] = []  # (kind, text), kind "v" operand or "o" operator
        while self.i < len(self.tokens):
            self._step(out)
        return _join(out)

    def _peek(self) -> Token | None:
        while self.i < len(self.tokens) and self.tokens[self.i] == ("c", " "):
            self.i += 1
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _atom(self) -> str:
        """The next single atom (group, macro with args, character, number) as ASCII."""
        tok = self._peek()
        if tok is None:
            raise _Unsupported("missing argument")
        if tok[0] == "g":
            self.i += 1
            return _Emitter(tok[1]).run()
        if tok[0] == "c" and tok[1].isdigit():
            # authors mean n^{10} when they write n^10, whatever TeX would typeset
            j = self.i
            while j < len(self.tokens) and self.tokens[j][0] == "c" and self.tokens[j][1].isdigit():
                j += 1
            number = "".join(t[1] for t in self.tokens[self.i:j])
            self.i = j
            return number
        out: list[tuple[str, str]] = []
        self._step(out, single=True)
        return _join(out)

    def _argument(self) -> str:
        """A function argument: ``(...)``, ``{...}`` or the next operand with its powers."""
        tok = self._peek()
        if tok is None:
            raise _Unsupported("missing function argument")
        if tok[0] == "m" and tok[1] in _SKIP_MACROS:
            self.i += 1
            return self._argument()
        if tok == ("c", "(") or tok == ("c", "["):
            return self._bracket()[1:-1]
        if tok[0] == "g":
            self.i += 1
            return _Emitter(tok[1]).run()
        out: list[tuple[str, str]] = []
        self._step(out)
        while (nxt := self._peek()) is not None and nxt in (("c", "^"), ("c", "_")):
            self._step(out)
        return _join(out)

    def _bracket(self) -> str:
        """Consume a bracketed run from the current ``(`` or ``[`` to its partner, as ``(...)``."""
        opener = self.tokens[self.i]
        close = ")" if opener[1] == "(" else "]"
        depth, start = 0, self.i
        while self.i < len(self.tokens):
            tok = self.tokens[self.i]
            if tok == ("c", "(") or tok == ("c", "["):
                depth += 1
            elif tok == ("c", ")") or tok == ("c", "]"):
                depth -= 1
                if depth == 0:
                    if tok[1] != close:
                        raise _Unsupported("interval")
                    inner = _Emitter(self.tokens[start + 1:self.i]).run()
                    self.i += 1
                    return f"({inner})"
            self.i += 1
        raise _Unsupported("unbalanced bracket")

    def _function(self, name: str, out: list[tuple[str, str]]) -> None:
        power = None
        if self._peek() == ("c", "^"):
            self.i += 1
            power = self._atom()
        if self._peek() == ("c", "_"):
            self.i += 1
            self._atom()  # log base: irrelevant up to constants
        if name in ("min", "max") and self._peek() in (("m", "{", []), ("m", "{", None)):
            raise _Unsupported("set argument")
        arg = self._argument()
        text = f"{name}({arg})"
        if power is not None:
            text = f"{text}^{_paren(power)}"
        out.append(("v", text))

    def _symbol_or_call(self, name: str, out: list[tuple[str, str]], force: bool) -> None:
        """``s(n)``, ``o(1)``, ``vol(Y)`` are calls; ``n(n+1)`` stays a product."""
        if self.i < len(self.tokens) and self.tokens[self.i] == ("c", "("):
            start = self.i
            arg = self._bracket()
            if force or re.fullmatch(r"\([A-Za-z][A-Za-z0-9_]*\)", arg):
                out.append(("v", f"{name}{arg}"))
                return
            self.i = start
        out.append(("v", name))

    def _step(self, out: list[tuple[str, str]], single: bool = False) -> None:
        tok = self.tokens[self.i]
        kind = tok[0]
        if kind == "g":
            self.i += 1
            inner = _Emitter(tok[1]).run()
            out.append(("v", inner if _is_atom(inner) else f"({inner})"))
            return
        if kind == "m":
            self.i += 1
            self._macro(tok[1], tok[2] or [], out)
            return
        ch = tok[1]
        if ch.isspace():
            self.i += 1
        elif ch.isdigit() or (ch == "." and not single):
            j = self.i
            while j < len(self.tokens) and self.tokens[j][0] == "c" and (self.tokens[j][1].isdigit() or self.tokens[j][1] == "."):
                j += 1
            number = "".join(t[1] for t in self.tokens[self.i:j])
            self.i = j
            out.append(("v", number.rstrip(".") or "0"))
        elif ch.isalpha():
            j = self.i
            while j < len(self.tokens) and self.tokens[j][0] == "c" and self.tokens[j][1].isalpha():
                j += 1
            word = "".join(t[1] for t in self.tokens[self.i:j])
            if word in FUNCTIONS or word in EPSILONS or word.lower() == "polylog":
                self.i = j
                if word in EPSILONS:
                    out.append(("v", "eps"))
                else:
                    self._function("log" if word == "ln" else word, out)
            elif word in GREEK or word == "oo":
                self.i = j  # plain-text Greek names (``log(1/delta)``) read back from ASCII
                self._symbol_or_call(word, out, force=False)
            else:
                self.i += 1
                self._symbol_or_call(ch, out, force=ch in "Oo")
        elif ch in "+-/*,":
            self.i += 1
            out.append(("o", ch))
        elif ch in "([":
            out.append(("v", self._bracket()))
        elif ch == "^":
            self.i += 1
            if not out or out[-1][0] != "v":
                raise _Unsupported("dangling ^")
            nxt = self._peek()
            if nxt in (("c", "*"), ("m", "*", []), ("m", "ast", []), ("m", "star", []), ("c", "'"), ("m", "prime", [])):
                self.i += 1
                suffix = "prime" if nxt[1] in ("'", "prime") else "star"
                out[-1] = ("v", f"{out[-1][1]}_{suffix}")
                return
            power = self._atom()
            out[-1] = ("v", f"{_paren(out[-1][1], base=True)}^{_paren(power)}")
        elif ch == "_":
            self.i += 1
            if not out or out[-1][0] != "v" or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", out[-1][1]):
                raise _Unsupported("subscript on non-symbol")
            sub = self._peek()
            self.i += 1
            if sub[0] == "g":
                fragment = _name_of(sub[1])
            elif sub[0] == "m":
                fragment = _name_of([sub])
            else:
                fragment = sub[1] if sub[1].isalnum() else ""
            if not fragment:
                raise _Unsupported("empty subscript")
            name = f"{out[-1][1]}_{fragment}"
            out.pop()
            self._symbol_or_call(name, out, force=False)
        elif ch == "|":
            j = self.i + 1
            while j < len(self.tokens) and self.tokens[j] != ("c", "|"):
                j += 1
            if j == len(self.tokens):
                raise _Unsupported("unbalanced |")
            inner = _Emitter(self.tokens[self.i + 1:j]).run()
            self.i = j + 1
            out.append(("v", f"abs({inner})"))
        elif ch in "'":
            self.i += 1
            if out and out[-1][0] == "v":
                out[-1] = ("v", f"{out[-1][1]}_prime")
        elif ch in ".;:" and not single:
            self.i += 1
        else:
            raise _Unsupported(f"character {ch!r}")

    def _macro(self, name: str, args: list, out: list[tuple[str, str]]) -> None:
        if name in _SKIP_MACROS:
            return
        if name in EPSILONS:
            out.append(("v", "eps"))
        elif name in GREEK:
            self._symbol_or_call(name, out, force=name in ("Omega", "Theta", "omega"))
        elif name == "infty":
            out.append(("v", "oo"))
        elif name in ("frac", "tfrac", "dfrac", "cfrac"):
            given = [a for a in args if a is not None]
            parts = [_Emitter(a).run() for a in given]
            while len(parts) < 2:
                parts.append(self._atom())
            numerator = parts[0] if not _top_level(parts[0], "+-") else f"({parts[0]})"
            denominator = parts[1] if not _top_level(parts[1], "+-*/") else f"({parts[1]})"
            out.append(("v", f"{numerator}/{denominator}"))
        elif name == "sqrt":
            index = args[0] if args and args[0] is not None else None
            body = _Emitter(args[1]).run() if len(args) > 1 and args[1] is not None else self._atom()
            if index is not None:
                out.append(("v", f"{_paren(body, base=True)}^(1/{_paren(_Emitter(index).run())})"))
            else:
                out.append(("v", f"sqrt({body})"))
        elif name in _FUNCTION_MACROS:
            fname = name
            if name == "operatorname":
                fname = _name_of(args[0]) if args and args[0] else _name_of([self.tokens[self.i]])
                if not args or not args[0]:
                    self.i += 1
            self._function("log" if fname in ("ln", "lg") else fname, out)
        elif name in _ACCENTS:
            inner = args[0] if args and args[0] is not None else [self.tokens[self.i]]
            if not args or args[0] is None:
                self.i += 1
            base = _name_of(inner)
            if not base:
                raise _Unsupported("accent on non-symbol")
            out.append(("v", f"{base}_{_ACCENTS[name]}"))
        elif name in _NAME_MACROS:
            inner = args[0] if args and args[0] is not None else None
            if inner is None:
                tok = self._peek()
                if tok is None:
                    raise _Unsupported("empty name")
                self.i += 1
                inner = [tok]
            word = _name_of(inner)
            if not word:
                raise _Unsupported("empty name")
            if word in FUNCTIONS:
                self._function(word, out)
            else:
                self._symbol_or_call(word, out, force=len(word) > 1)
        elif name in _PRODUCT:
            out.append(("o", "*"))
        elif name in ("div",):
            out.append(("o", "/"))
        elif name in ("{", "}"):
            out.append(("o", "(" if name == "{" else ")"))
            raise _Unsupported("set braces")
        elif name in ("pm", "mp"):
            out.append(("o", "+"))
        elif name in ("*",):
            out.append(("o", "*"))
        elif name in ("|", "Vert", "lVert", "rVert", "lvert", "rvert", "vert"):
            raise _Unsupported("norm")
        elif name in _UNSUPPORTED:
            raise _Unsupported(name)
        elif name.isalpha():
            out.append(("v", name))
        else:
            raise _Unsupported(name)


def _top_level(text: str, operators: str) -> bool:
    """True when one of ``operators`` occurs outside parentheses (binary use only)."""
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch in operators and k > 0 and text[k - 1] != "^":
            return True
    return False


def _is_atom(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_.]+|[A-Za-z_]+\([^()]*\)", text) is not None


def _paren(text: str, base: bool = False) -> str:
    """Wrap in parentheses unless ``text`` is a single atom (bases also keep calls unwrapped)."""
    if re.fullmatch(r"[A-Za-z0-9_.]+", text) and not (base and text[0].isdigit() and "." in text):
        return text
    if text.startswith("(") and _balanced_outer(text):
        return text
    if base and re.fullmatch(r"[A-Za-z_]+\(.*\)", text) and _balanced_outer(text[text.index("("):]):
        return text
    return f"({text})"


def _balanced_outer(text: str) -> bool:
    """True when ``text`` is ``(...)`` with the first parenthesis closing at the very end."""
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k == len(text) - 1
    return False


def _join(items: list[tuple[str, str]]) -> str:
    """Join operands and operators, writing implicit products as ``*`` and spacing ``+``/``-``."""
    parts: list[str] = []
    prev = None
    for kind, text in items:
        if kind == "v" and prev == "v":
            parts.append("*")
        if kind == "o" and text in "+-" and prev == "v":
            parts.append(f" {text} ")
        elif kind == "o" and text == ",":
            parts.append(", ")
        else:
            parts.append(text)
        prev = kind if not (kind == "o" and text in ")") else "v"
    joined = "".join(parts)
    if not joined:
        raise _Unsupported("empty")
    return joined
