"""Complexity bounds and rates in an abstract: spans, notation, quantity, role, subject, improvements.

``find_bounds`` is a pure function of the abstract text.  It finds every asymptotic expression
(O, Ω, Θ, o, ω and soft forms, in LaTeX with one or two backslashes, Unicode or plain text) and
every explicit rate written in math that the text presents as the rate or complexity of something
(``a $1/\\tau$ rate``, ``$\\sqrt{T}$ regret``).  Spans follow ``bounds-GUIDELINES.md``: a bound that
fills its ``$...$`` segment is spanned with the dollars, otherwise only the operator to its closing
parenthesis.  Fields come from cue words around the span in its sentence (what is bounded, whose
result it is, what it improves on); the expression is parsed by ``kg.complexity``.  The spaCy
component ``kg_bounds`` wraps it and stores the records in ``doc._.bounds``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc
from sympy.core.function import AppliedUndef

from kg.complexity.latex import normalise_escapes
from kg.complexity.order import compare, tends_to_zero
from kg.complexity.parse import HEAD, closing_paren, notation_of, parse_bound
from kg.records import Bound, Mention

RULE = "bounds.v1"

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
_SENTENCE_END = re.compile(r"[.!?](?:[\"')\]]*)\s+(?=[A-Z$\\(\[0-9])")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|resp|Fig|Eq|Sec|Thm|approx|w\.r\.t)|\b[A-Z])$")

# What is bounded.  Compound phrases come first so that "sample complexity" is not read as "complexity".
_QUANTITY_CUES: tuple[tuple[str, str], ...] = (
    ("other", r"approximation (?:ratio|factor)|number of switch\w*|switch(?:es|ing cost)|switching cost"),
    ("sample-complexity", r"sample[- ]complexit\w*|(?<!finite-)(?<!finite )samples?\b|sample size|sampling budget|number of (?:training )?(?:samples|examples|observations)|(?:statistical|testing) complexity|examples\b|observations\b|data points"),
    ("iterations", r"iteration complexity|oracle complexity|gradient complexity|(?:first|zeroth|second)[- ]order oracle\w*|oracle (?:calls?|queries|evaluations)|gradient (?:evaluations|computations|calls)|iterations?\b|steps\b|rounds\b|epochs\b|evaluations\b|simulations\b|(?:function |model |oracle )?calls\b|batch(?:es\b| complexity)"),
    ("query", r"query complexity|quer(?:y|ies)\b|comparisons\b"),
    ("communication", r"communication(?: complexity| cost| rounds)?"),
    ("regret", r"regrets?\b(?: bounds?| rates?)?"),
    ("space/memory", r"space complexity|memory|space\b|storage|buffer\b|context[- ](?:window|length)|kv[- ]cache|cache\b|padding tokens"),
    ("time", r"time complexity|computational (?:complexity|cost)|per[- ](?:step|iteration|token|update|round|query|layer)|run[- ]?time|running time|(?<!horizon )time\b|compute\b(?! (?:a|an|the|all|its|their|this|these)\b)|flops\b|operations\b|cost\b|preprocessing|latency|algorithm\b|implementation|runs? in|running in|complexity"),
    ("width/size/parameters", r"number of parameters|parameter count|parameters\b|params\b|width\b|depth\b|(?<!two-)(?<!one-)layers?\b|neurons\b|hidden (?:units|size|dimension)|embedding (?:dimension|size)|key dimension|coreset(?: size)?|rows selected|number of experts|heads\b"),
    ("error", r"excess risk|risk\b|errors?\b|kl\b|kl divergence|divergence|distance\b|deviation|generalization (?:gap|bound)|estimation|mse\b|suboptimality|accuracy|wasserstein|total variation|loss\b|consisten\w*"),
    ("convergence-rate", r"convergence rates?|rates? of convergence|converge\w*|rates?\b"),
)
_QUANTITY = re.compile("|".join(f"(?P<q{i}>{p})" for i, (_, p) in enumerate(_QUANTITY_CUES)), re.I)
_NOT_QUANTITY = re.compile(r"\b(?:time horizon|learning rate|step[- ]size|win rate|success rate|error rate of \d)", re.I)

_CLAUSE_BREAK = re.compile(r"[,;:—–(]|\s-{1,2}\s|\b(?:when|whenever|if|provided|as long as|where|whereas|while|such that|so that|that|which)\b", re.I)
_PUNCT_BREAK = re.compile(r"[,;:—–]|\s-{1,2}\s")
_PRIOR = re.compile(
    r"\b(?:previous(?:ly)?|prior|existing|best[- ]known|state[- ]of[- ]the[- ]art|classic(?:al)?|standard|"
    r"naive|na[iï]ve|vanilla|baselines?|earlier|conventional|traditional|known|literature|"
    r"improv\w* (?:up)?on|improv\w* over|improvement (?:over|upon|on)|compared (?:to|with)|versus|vs\.?|"
    r"rather than|instead of|than (?:the|that of|those)|over the|et al|from|current(?:ly)? best|"
    r"ha(?:ve|s) (?:been )?(?:established|shown|achieved|obtained)|required by|recent(?:ly)? (?:work|works|studies|results?)|"
    r"improv\w* the|their|they)\b|\\cite\w*|\[[A-Z][^\]]{0,30}\]",
    re.I,
)
_NEW = re.compile(r"\b(?:we|our|ours|us|this (?:paper|work|article)|herein|here|proposed|novel|then|(?:and|requir\w*|needs?|using|uses?|with) only)\b", re.I)
_LOCAL_ONLY = re.compile(r"^(?:from|over the|than .*|compared .*|versus|vs\.?|rather than|instead of)$", re.I)
_LOWER = re.compile(r"\b(?:lower[- ]bounds?(?: of| is| as)?|at least(?: as)?|must(?: \w+){0,2}|necessar\w*|requires? at least|any (?:algorithm|method|estimator|learner|protocol|tester)(?: \w+){0,2})\s*(?:an?|the)?\s*$", re.I)
_LOWER_AFTER = re.compile(r"^(?:[^.;]{0,25}?\bwould (?:resolve|imply|refute|contradict|break|violate|yield a)|\s*-?\s*(?:[\w-]+\s+){0,2}lower[- ]bound)", re.I)
_CONDITION = re.compile(r"\b(?:when|whenever|if|provided|as long as|assuming|assume that|under the (?:assumption|condition)|given that|(?:regime|region)(?=\s*$)|no (?:larger|greater|more|smaller|less) than|requires? that|suppose|taking|setting|choosing|letting)\b", re.I)
_LHS_CONDITION = re.compile(r"\b(?:where|when|whenever|if|regime|region|assuming|provided|taking|setting)\s*\$?\s*[^\s,;$]{1,30}\s*=\s*$", re.I)
_WITH_BEFORE = re.compile(r"\b(?:with|using|given)(?: only)?(?: at least)?(?: an?| the)?\s*$", re.I)
_NEW_BEFORE = re.compile(r"\b(?:to|into)\s*(?:an?|the|only|just)?\s*$", re.I)
_GROUP_CONTEXT = re.compile(r"equivarian|invarian|symmetr|group|rotation|orthogonal|\bS_n\b|\bGL\b|\bS[OEU]\(|\bS?O\(\d\)\s*/|/\s*$|\\times\s*$|×\s*$", re.I)
_MAGNITUDE = re.compile(r"\s*\d[\d.,]*\s*(?:k|m|b|t|thousands?|millions?|billions?|trillions?)\s*", re.I)
_IMPROVE_VERB = re.compile(r"\b(?:reduc\w*|improv\w*|decreas\w*|lower\w*|cut\w*|shrink\w*|accelerat\w*|speed\w*|sav\w*|surpass\w*|outperform\w*|better|faster|fewer|smaller|tighten\w*|sharpen\w*)\b", re.I)
_IMPROVE_OVER = re.compile(r"\b(?:improv\w* (?:up)?on|improv\w* over|improvement (?:over|upon|on)|surpass\w*|outperform\w*|better than|faster than|tighter than|compared to|over)\b(?:\s+(?:the|a|an|its|their|previous|prior|existing|best|known|result|results|bound|bounds|rate|rates|requiring|require[sd]?|of|[a-z\-]+))*\s*$", re.I)
_IMPROVE_TO = re.compile(r"\b(?:improv\w*|reduc\w*|decreas\w*|lower\w*|tighten\w*|sharpen\w*)\b[^.;]{0,90}\bto\s*(?:an?|the|only|just)?\s*$", re.I)
_FROM = re.compile(r"\bfrom\s*(?:the|an?)?\s*$", re.I)
_TO = re.compile(r"^[^.;]{0,120}?\bto\s*(?:an?|the|only|just)?\s*$", re.I)
_FACTOR_AFTER = re.compile(r"^\s*-?\s*(?:approx\w*|competitive|factor)", re.I)
_FACTOR_BEFORE = re.compile(r"(?:factor|ratio)\s*(?:of|by)?\s*(?:an?|the)?\s*$", re.I)
_HYPHEN_WORD = re.compile(r"^-\s*[A-Za-z]")

# Explicit rates: a math expression with a variable, written as the rate or complexity of something.
_RATE_BEFORE = re.compile(
    r"(?:(?<!learning )(?<!win )(?<!success )\brates?(?: of)?|at a rate of|(?:of|on the) order(?: of)?|"
    r"decay\w* (?:as|like)|grow\w* (?:as|like)|scal\w* (?:as|like)|controlled by|proportional to|"
    r"converg\w* (?:at|as|like)|regret(?: bound)? of|complexity of|error of|"
    r"(?:rates?|complexity|regret) (?:is|are|becomes|as)|"
    r"(?:converg|decay|grow|scal|decreas|vanish|shrink)\w*(?: \w+){0,3} (?:as|like))\s*(?:\(|~|\\sim|\\approx)?\s*$",
    re.I,
)
_RATE_AFTER = re.compile(
    r"^\s*-?\s*(?:(?:convergence |error |regret |estimation |approximation |statistical |minimax |decay )?rates?\b|regret\b|convergence\b|sample complexity|samples\b|"
    r"iterations\b|steps\b|rounds\b|queries\b|time\b|memory\b|scaling\b)",
    re.I,
)
_RATE_REJECT = re.compile(r"[=<>%]|\\(?:le|leq|ge|geq|in|sim|approx|to|propto|lesssim|gtrsim|asymp|pm|mid|subset|times\s*\d|%)\b|≤|≥|∈")
_TRIGGER = re.compile(r"[OoΩΘωÕ𝒪Ο](?:\s{0,2}[_(\\{~]|\u0303)|Omega|Theta|omega|tilde|\\cO|\\cal|math(?:cal|scr|rm|sf|bf|bb|it)\s*\{?\s*O")
_NORM_NAME = re.compile(r"\\*(?:mathcal\{)?[LHWl]\}?\s*\^\s*\{?\s*(?:\d|p|q|s|\\*infty)\s*\}?|\\*ell\s*_\s*\{?\s*(?:\d|p|\\*infty)\}?")
_LIST_GLUE = re.compile(r"^\s*(?:,|and|or|,\s*and)\s*\$[^$]{1,80}\$")

_SUBJECT_VERBS = re.compile(
    r"\b(?:achiev\w*|attain\w*|obtain\w*|has|have|had|requir\w*|converg\w*|runs?|can|could|is|are|was|were|incur\w*|"
    r"enjoy\w*|yield\w*|guarantee\w*|use[sd]?|need\w*|admit\w*|match\w*|improv\w*|reduc\w*|scal\w*|takes?|"
    r"suffices?|ensures?|establish\w*|provides?|exhibit\w*|costs?|must|may|will|leads?)\b",
    re.I,
)
_SUBJECT_FOR = re.compile(r"\s*(?:[a-z\-]+\s){0,3}?for\s+((?:the\s+)?(?!all\b|any\b|some\b|each\b|every\b)[A-Za-z][\w\-]*(?:[ \-](?!where\b|when\b|with\b|under\b)[A-Za-z][\w\-]*){0,4})")
_LEADING = re.compile(r"^(?:(?:notably|specifically|moreover|furthermore|in addition|finally|remarkably|however|thus|hence|consequently|in particular|in contrast|additionally|then|also)\s*,?\s*)+", re.I)
_METHOD_WORD = re.compile(r"\b((?:[A-Z][\w\-]*\s+)?(?:[\w\-]+\s+){0,3}(?:algorithm|method|estimator|approach|procedure|scheme|framework|model|optimizer|policy|mechanism|network|transformer)s?)\b", re.I)
_SUBJECT_LABELS = ("Method", "Model", "Problem")
_CLAUSE_OPENER = re.compile(
    r"^(?:(?:that|then|and|but|thus|so|while|whereas|which|where|when|if|yet)\s+)*"
    r"(?:(?:we|it|they|this paper|this work)\s+(?:\w+ly\s+)?(?:show|prove|establish|demonstrate|find|propose|present|"
    r"design|give|introduce|develop|derive|obtain|provide)s?\s+(?:that\s+)?)?",
    re.I,
)
_NOT_SUBJECT = re.compile(r"^(?:we|it|this|they|which|that|there|with|in|for|on|at|by|as|to|of|and|or|when|if|X+)\b", re.I)


@dataclass
class _Draft:
    """A bound while its fields are being worked out."""

    start: int
    end: int
    seg_start: int
    seg_end: int
    kind: str = "bound"
    rate: bool = False
    quantity: str = "other"
    detail: str = ""
    role: str = "new"
    subject: str = ""
    subject_entity: int | None = None
    improves_on: int | None = None
    sentence: tuple[int, int] = (0, 0)


def math_segments(text: str) -> list[tuple[int, int]]:
    """``$...$`` and ``$$...$$`` segments as (start, end) offsets, dollars included.

    Example:
        >>> math_segments("a $x$ b $$y$$")
        [(2, 5), (8, 13)]
    """
    return [(m.start(), m.end()) for m in _MATH.finditer(text)]


def sentence_spans(text: str, math: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Sentence (start, end) offsets: a split after ``.!?`` and space, never inside math or after ``e.g.``.

    Example:
        >>> sentence_spans("We prove $O(n)$. It is e.g. tight. Done")
        [(0, 16), (17, 34), (35, 39)]
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        cut = match.start() + 1
        if any(s < cut < e for s, e in math) or _ABBREVIATION.search(text[max(start, match.start() - 8):match.start()]):
            continue
        end = match.end()
        while end > cut and text[end - 1].isspace():
            end -= 1
        spans.append((start, end))
        start = match.end()
    if start < len(text):
        end = len(text.rstrip())
        spans.append((start, max(end, start)))
    return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e) for s, e in spans if text[s:e].strip()]


def find_bounds(
    text: str,
    entities: Sequence[Mention] = (),
    sentences: Sequence[tuple[int, int]] | None = None,
) -> tuple[Bound, ...]:
    """All complexity bounds and rates stated in ``text``, in textual order, with exact offsets.

    ``entities`` (mentions found by another component, offsets into the same text) are used to link
    each bound to what it is about; ``sentences`` defaults to a simple splitter.

    Example:
        >>> [(b.text, b.notation, b.quantity) for b in find_bounds("It runs in $O(n^2 \\\\log n)$ time.")]
        [('$O(n^2 \\\\log n)$', 'O', 'time')]
    """
    math = math_segments(text)
    sents = list(sentences) if sentences is not None else sentence_spans(text, math)
    drafts = _asymptotic_spans(text, math) + _rate_spans(text, math)
    drafts = sorted(_drop_overlaps(drafts), key=lambda d: d.start)
    for draft in drafts:
        # the sentences the bound lies in: one, unless the splitter cut inside an unclosed "$O(..."
        first = next(((s, e) for s, e in sents if s <= draft.start < e), (0, len(text)))
        last = next((e for s, e in sents if s < draft.end <= e), len(text))
        draft.sentence = (first[0], max(first[1], last))
    first_own = next((s for s, e in sents if _NEW.search(text[s:e])), -1)
    for k, draft in enumerate(drafts):
        previous = drafts[k - 1] if k and drafts[k - 1].sentence == draft.sentence else None
        _classify_kind(text, draft)
        _classify_quantity(text, draft, previous, sents)
        _classify_role(text, draft, previous, first_own)
    _link_improvements(text, drafts, sents)
    for draft in drafts:
        _find_subject(text, draft, entities)
    return tuple(_record(text, d) for d in drafts)


def _asymptotic_spans(text: str, math: Sequence[tuple[int, int]]) -> list[_Draft]:
    drafts: list[_Draft] = []
    if not _TRIGGER.search(text):
        return drafts  # HEAD is ten times slower to rule a text out than this cheap prefilter
    pos = 0
    while (match := HEAD.search(text, pos)) is not None:
        pos = match.start() + 1
        open_index = match.end() - 1
        end = closing_paren(text, open_index)
        segment = next(((s, e) for s, e in math if s < match.start() < e), None)
        if end is None and segment is not None and text.count("(", open_index, segment[1]) > text.count(")", open_index, segment[1]):
            end = segment[1] - 1  # an unbalanced bound as typed ("$O(n^{1/2}$)"): keep it, unparsed
        if end is None:
            continue
        argument = normalise_escapes(text[open_index + 1:end - 1]).strip()
        if match.group("open").startswith("{"):
            brace = re.match(r"\s*\}", text[end:])
            if not brace:
                continue
            end += brace.end()
        if not argument or re.fullmatch(r"\\(?:cdot|bullet|dots|ldots)\s*(?:,\s*\\cdot)*\s*\)?|·|\.", argument):
            continue
        start = match.start()
        if segment is None:
            if match.group("op") in ("o", "O") and re.search(r"[A-Za-z0-9]-$", text[:start]):
                continue
            if match.group("op") == "o" and not re.search(r"[A-Za-z0-9]", argument):
                continue
        if notation_of(match.group("op")) in ("omega",) and not re.fullmatch(r"[^,=]{1,40}", argument):
            continue
        if match.group("op") in ("Theta", "Omega") and (match.group("open") != "(" or match.group("size")
                                                        or text[match.end("op"):match.end()].strip() != "(" or text[match.end("op")] != "("):
            continue  # a plain word ("Top-Theta (Top-θ)"), not the operator
        if _MAGNITUDE.fullmatch(argument):
            continue  # "O(100 million) images": an order of magnitude, not a bound
        if match.group("op") in ("O", "Ο") and _is_group(text, match.start(), end, argument):
            continue
        if segment is not None:
            start, end = _enclosing_power(text, segment, start, end)
            inner = text[segment[0]:segment[1]].strip("$").strip()
            if inner == text[start:end] or (inner[:1] == "{" and inner[-1:] == "}" and inner[1:-1].strip() == text[start:end]):
                start, end = segment
        seg = segment or (start, end)
        drafts.append(_Draft(start, end, seg[0], seg[1]))
        pos = end
    return drafts


def _is_group(text: str, start: int, end: int, argument: str) -> bool:
    """``O(3)``, ``S_n \\times O(d)``, ``O(d)-equivariance``: the orthogonal group, not a bound."""
    if not re.fullmatch(r"\s*(?:\d+|[a-zA-Z](?:\s*[+-]\s*1)?)(?:\s*,\s*(?:\d+|[a-zA-Z]))?\s*", argument):
        return False
    return bool(_GROUP_CONTEXT.search(text[max(0, start - 40):start]) or
                _GROUP_CONTEXT.search(text[end:end + 40]) or re.search(r"\bS$", text[max(0, start - 1):start]))


def _enclosing_power(text: str, segment: tuple[int, int], start: int, end: int) -> tuple[int, int]:
    """Widen ``o(1)`` in ``n^{1+o(1)}`` to the whole power, which then carries the notation."""
    stack: list[int] = []
    k = segment[0] + 1
    while k < start:
        ch = text[k]
        if ch == "\\" and k + 1 < start and text[k + 1] in "{}":
            k += 2
            continue
        if ch == "{":
            stack.append(k)
        elif ch == "}" and stack:
            stack.pop()
        k += 1
    if not stack:
        return start, end
    brace = stack[-1]
    caret = brace - 1
    while caret > segment[0] and text[caret] == " ":
        caret -= 1
    if text[caret] != "^":
        return start, end
    depth, close = 0, None
    for j in range(brace, segment[1]):
        depth += text[j] == "{"
        depth -= text[j] == "}"
        if depth == 0:
            close = j + 1
            break
    if close is None or close < end:
        return start, end
    base = caret
    while base > segment[0] + 1 and (text[base - 1].isalnum() or text[base - 1] in "\\"):
        base -= 1
        if text[base] == "\\":
            break
    if text[base - 1:base] in (")", "}"):
        return start, end
    if re.fullmatch(r"\\+(?:log|ln|exp|poly|polylog)", text[base:caret]) and text[close:close + 1] == "(":
        close = closing_paren(text, close) or close  # log^{O(k)}(n/eps): the power of a call
    return base, close


def _rate_spans(text: str, math: Sequence[tuple[int, int]]) -> list[_Draft]:
    drafts: list[_Draft] = []
    for index, (s, e) in enumerate(math):
        inner = text[s:e].strip("$")
        content = inner.strip()
        if not content or len(content) > 90 or _RATE_REJECT.search(normalise_escapes(content)):
            continue
        if _TRIGGER.search(text, s, e) and HEAD.search(text, s, e):
            continue
        if _HYPHEN_WORD.match(text[e:e + 3]) and not _RATE_AFTER.match(text[e:e + 40]):
            continue  # "$\\epsilon$-stationary" names a thing; "$\\sqrt{T}$-regret" states a rate
        before = text[max(0, s - 40):s]
        after = text[e:e + 40]
        cue = _RATE_BEFORE.search(before) or _RATE_AFTER.match(after)
        k = index
        while not cue and k + 1 < len(math) and _LIST_GLUE.match(text[math[k][1]:math[k + 1][1]]):
            k += 1
            cue = _RATE_AFTER.match(text[math[k][1]:math[k][1] + 40])
        if not cue or re.search(r"(?:learning|win|success|sampling|dropout|mask\w*)\s+rates?(?: of)?\s*\S*\s*$", before, re.I):
            continue
        parsed = parse_bound(text[s:e])
        expr = parsed.sympy_expr
        if expr is None or not expr.free_symbols or expr.is_Symbol or expr.is_number:
            continue
        if expr.is_Mul and sum(1 for a in expr.args if not a.is_number) == 1 and expr.args[0].is_number:
            continue
        if _NORM_NAME.fullmatch(content) or any(f.func.__name__ not in ("poly", "polylog") for f in expr.atoms(AppliedUndef)):
            continue  # "$L^2$ rate" names a norm; "$\\delta_m(t)$" is a defined function
        drafts.append(_Draft(s, e, s, e, rate=True))
    return drafts


def _drop_overlaps(drafts: list[_Draft]) -> list[_Draft]:
    kept: list[_Draft] = []
    for draft in sorted(drafts, key=lambda d: (d.start, -d.end)):
        if not kept or draft.start >= kept[-1].end:
            kept.append(draft)
    return kept


def _classify_kind(text: str, draft: _Draft) -> None:
    after = text[draft.seg_end:draft.seg_end + 20]
    before = text[max(draft.sentence[0], draft.seg_start - 40):draft.seg_start]
    inside_after = text[draft.end:draft.seg_end].strip("$ )")
    if _FACTOR_AFTER.match(after) and not inside_after.startswith("^") or _FACTOR_BEFORE.search(before):
        draft.kind = "factor"
        draft.quantity = "other"
        draft.detail = "speed-up factor" if re.search(r"speed|faster|reduc", before, re.I) else "approximation factor"


def _cue(window: str, reverse: bool) -> tuple[int, str, str] | None:
    """Closest quantity cue in ``window``: (distance, quantity, phrase)."""
    best = None
    for match in _QUANTITY.finditer(window):
        if _NOT_QUANTITY.match(window, max(0, match.start() - 12)) and _NOT_QUANTITY.search(window[max(0, match.start() - 12):match.end() + 8]):
            continue
        if reverse and match.group().lower() == "algorithm":
            continue  # "an O(m) algorithm" is a time; "complexities of the algorithm are O(..)" is not
        quantity = _QUANTITY_CUES[int(match.lastgroup[1:])][0]
        distance = len(window) - match.end() if reverse else match.start()
        if best is None or distance < best[0]:
            best = (distance, quantity, match.group().lower())
    return best


def _classify_quantity(text: str, draft: _Draft, previous: _Draft | None, sents) -> None:
    if draft.kind == "factor":
        return
    s0, s1 = draft.sentence
    right = text[draft.seg_end:min(s1, draft.seg_end + 45)]
    right = re.split(r"[,;]|\.\s|\b(?:where|which|while|whereas|and (?:we|it|attains|achieves|obtains|has|is|are|yields|enjoys|requires|provides))\b",
                     right, maxsplit=1)[0]
    left_from = max(s0, previous.seg_end if previous else s0)
    left = text[left_from:draft.seg_start]
    breaks = list(_CLAUSE_BREAK.finditer(left))
    clause = left[breaks[-1].end():] if breaks else left
    if not clause.strip() and breaks and previous is None:
        clause = left
    found = [c for c in (_cue(right, False), _cue(clause, True)) if c is not None]
    if found:
        _, draft.quantity, draft.detail = min(found, key=lambda c: c[0])
        if draft.detail in ("complexity", "cost") and _accuracy_only(text[draft.start:draft.end]):
            draft.quantity = "iterations"  # "complexity O(eps^-3)" in optimisation counts oracle calls
        elif draft.detail in ("rate", "rates"):
            sentence = text[s0:s1]
            if re.search(r"\bregret", sentence, re.I):
                draft.quantity = "regret"
            elif not re.search(r"converg|iterat|optimi[sz]|gradient|\bsteps?\b", sentence, re.I) and re.search(
                    r"minimax|estimat|risk|statistic|sample size|generali[sz]|nonparametric|regression|consisten", sentence, re.I):
                draft.quantity = "error"  # a statistical rate (risk, estimation), not an iterative one
        return
    if previous is not None and re.fullmatch(r"\s*(?:,|and|or|,\s*and|;)?\s*", text[previous.seg_end:draft.seg_start]):
        draft.quantity, draft.detail = previous.quantity, previous.detail
        return
    subject = re.match(r"\s*(?:the\s+|an?\s+)?([A-Za-z][\w\- ]{2,60}?)\s+(?:is|are|be|remains?)\b", clause)
    if subject is not None:
        draft.quantity, draft.detail = "other", subject.group(1)
        return
    wide = _cue(text[s0:draft.seg_start], True)
    if wide is not None:
        _, draft.quantity, draft.detail = wide
        return
    if previous is not None:
        draft.quantity, draft.detail = previous.quantity, previous.detail
        return
    index = next((i for i, (s, e) in enumerate(sents) if (s, e) == draft.sentence), 0)
    if index > 0:
        back = _cue(text[sents[index - 1][0]:sents[index - 1][1]], True)
        if back is not None:
            _, draft.quantity, draft.detail = back
            return
    words = re.findall(r"[A-Za-z][\w\-]*", re.sub(r"\$[^$]*\$", " ", clause))
    draft.quantity, draft.detail = "other", " ".join(words[-4:])


def _accuracy_only(surface: str) -> bool:
    """True when a bound depends on accuracy parameters (and condition numbers) only."""
    names = parse_bound(surface).variables
    return any(tends_to_zero(v) for v in names) and all(
        tends_to_zero(v) or v.split("_")[0] in ("kappa", "L", "mu", "sigma", "R", "D", "G") for v in names)


def _classify_role(text: str, draft: _Draft, previous: _Draft | None, first_own: int) -> None:
    s0, _ = draft.sentence
    left = text[s0:draft.seg_start]
    punct = list(_PUNCT_BREAK.finditer(left))
    clause = left[punct[-1].end():] if punct else left
    after = text[draft.seg_end:draft.seg_end + 60]
    notation = "rate" if draft.rate else parse_bound(text[draft.start:draft.end]).notation
    conditions = list(_CONDITION.finditer(clause))
    lhs = clause + text[draft.seg_start:draft.start].lstrip("$")
    if conditions and len(clause[conditions[-1].start():].split()) <= 11 or _LHS_CONDITION.search(lhs):
        draft.role = "condition"
        return
    clause_start = len(left) - len(clause)
    cues = [(m.end(), "prior") for m in _PRIOR.finditer(left)
            if (m.end() > clause_start or not _LOCAL_ONLY.match(m.group()))
            and (m.group().lower() != "from" or m.end() >= len(left) - 12)]  # "from" only in "from $X$ to"
    cues += [(m.end(), "new") for m in _NEW.finditer(left)]
    local = [c for c in cues if c[0] > clause_start]
    # the nearest cue in the bound's own clause, else the sentence's opening cue (its subject)
    last = max(local)[1] if local else (min(cues)[1] if cues else None)
    lower = _LOWER.search(clause[-40:]) or _LOWER_AFTER.match(after)
    if _NEW_BEFORE.search(left) and _IMPROVE_VERB.search(left) and notation not in ("Omega", "soft-Omega"):
        draft.role = "new"
    elif lower and last != "prior":
        draft.role = "lower"
    elif last == "prior" and max(cues)[0] >= len(left) - 120:
        draft.role = "prior"
    elif last is None and previous is not None:
        draft.role = previous.role
    elif last is None and draft.start < first_own:
        draft.role = "prior"
    elif notation in ("Omega", "soft-Omega"):
        # "converges for networks with only Ω̃(n) neurons" states a requirement, not a lower bound
        draft.role = "condition" if _WITH_BEFORE.search(clause) else "lower"
    else:
        draft.role = "new"


def _link_improvements(text: str, drafts: list[_Draft], sents) -> None:
    """Fill ``improves_on``: "from X to Y", "X, improving upon Y", "improved to Y", "reduce ... Y"."""
    for j, draft in enumerate(drafts):
        same = [i for i in range(j) if drafts[i].sentence == draft.sentence]
        left = text[max(draft.sentence[0], drafts[same[-1]].seg_end if same else 0):draft.seg_start]
        sentence = text[draft.sentence[0]:draft.sentence[1]]
        if same and _TO.match(left) and _IMPROVE_VERB.search(sentence):
            i = same[-1]
            before_i = text[max(draft.sentence[0], drafts[i].seg_start - 30):drafts[i].seg_start]
            if _FROM.search(before_i):
                drafts[i].role = "prior" if drafts[i].role == "new" else drafts[i].role
                draft.role = "new" if draft.role == "prior" else draft.role
                draft.improves_on = i
                draft.quantity, draft.detail = drafts[i].quantity, drafts[i].detail
                continue
        if same and _IMPROVE_OVER.search(left[-80:]) and re.search(r"improv|surpass|outperform|better|faster|tighter", left, re.I):
            candidates = [i for i in same if drafts[i].role in ("new", "lower") and drafts[i].improves_on != j]
            target = _same_quantity(drafts, candidates, draft) if candidates else None
            if target is not None:
                drafts[target].improves_on = j
                draft.role = "prior" if draft.role == "new" else draft.role
                draft.quantity, draft.detail = drafts[target].quantity, drafts[target].detail
                continue
        if draft.role == "new" and draft.improves_on is None:
            earlier = [i for i in range(j) if drafts[i].role == "prior" and drafts[i].quantity == draft.quantity
                       and drafts[i].kind == draft.kind]
            if earlier and (_IMPROVE_TO.search(text[draft.sentence[0]:draft.seg_start]) or (
                    _IMPROVE_VERB.search(sentence) and drafts[earlier[-1]].sentence != draft.sentence
                    and not any(d.improves_on is not None for d in drafts if d.sentence == draft.sentence))):
                draft.improves_on = earlier[-1]
    for draft in drafts:
        if draft.improves_on is not None:
            target = parse_bound(text[drafts[draft.improves_on].start:drafts[draft.improves_on].end])
            own = parse_bound(text[draft.start:draft.end])
            if own.argument == target.argument or compare(own, target) == "worse":
                draft.improves_on = None  # a claimed improvement that is not one asymptotically
                continue
            draft.improves_on = next(i for i, d in enumerate(drafts)
                                     if parse_bound(text[d.start:d.end]).expression == target.expression)


def _same_quantity(drafts: list[_Draft], candidates: list[int], target: _Draft) -> int | None:
    """The nearest candidate bounding the same quantity, else the nearest candidate."""
    for i in reversed(candidates):
        if drafts[i].quantity == target.quantity:
            return i
    return candidates[-1]


def _find_subject(text: str, draft: _Draft, entities: Sequence[Mention]) -> None:
    """Subject phrase from the text, linked to the entity mention inside it (else the nearest one)."""
    s0, s1 = draft.sentence
    span = _subject_span(text, draft)
    if span is not None:
        draft.subject = re.sub(r"\s+", " ", text[span[0]:span[1]]).strip()
    usable = [(i, m) for i, m in enumerate(entities) if s0 <= m.start < s1 and m.label in _SUBJECT_LABELS]
    if not usable:
        return
    inside = [(i, m) for i, m in usable if span is not None and m.start < span[1] and m.end > span[0]]
    if inside:
        index, mention = max(inside, key=lambda item: (item[1].end - item[1].start, -item[1].start))
        draft.subject = mention.text  # the named thing inside the phrase
    else:
        def distance(item: tuple[int, Mention]) -> tuple[int, int]:
            m = item[1]
            gap = draft.start - m.end if m.end <= draft.start else m.start - draft.end + 1000
            return (max(gap, 0), m.start)

        index, mention = min(usable, key=distance)
    draft.subject_entity = index
    if not draft.subject:
        draft.subject = mention.text


def _subject_span(text: str, draft: _Draft) -> tuple[int, int] | None:
    """Offsets of the phrase a bound is about: "... for GLM-ES", else the clause subject, else a method noun."""
    s0, s1 = draft.sentence
    masked = _MATH.sub(lambda m: "X" * len(m.group()), text)  # same length: offsets stay valid
    after_start = draft.seg_end
    match = _SUBJECT_FOR.match(masked, after_start, min(s1, after_start + 60))
    if match:
        a, b = match.span(1)
        phrase = masked[a:b]
        trimmed = re.sub(r"(?:\s+(?:and|or|the|an?|with|to|of|in|on|by|for|is|are|while|where|which|X+))+$", "", phrase, flags=re.I)
        b = a + len(trimmed)
        if trimmed and not _NOT_SUBJECT.match(trimmed) and not re.fullmatch(r"(?:the\s+)?an?|the", trimmed, re.I) \
                and not _QUANTITY.fullmatch(trimmed):
            return a, b
    left = masked[s0:draft.seg_start]
    offset = s0
    pieces = [(m.start(), m.end()) for m in re.finditer(r"[^,;:]+", left)]
    for a, b in reversed(pieces):
        clause = left[a:b]
        lead = len(clause) - len(clause.lstrip())
        body = clause.lstrip()
        cut = _CLAUSE_OPENER.match(_LEADING.sub("", body))
        skipped = len(body) - len(_LEADING.sub("", body)) + (cut.end() if cut else 0)
        rest = body[skipped:]
        verb = _SUBJECT_VERBS.search(rest)
        head = rest[:verb.start()].rstrip() if verb else ""
        if head and not _NOT_SUBJECT.match(head) and len(head.split()) <= 8:
            start = offset + a + lead + skipped
            return start, start + len(head)
    method = _METHOD_WORD.search(masked, s0, s1)
    return method.span(1) if method else None


def _record(text: str, draft: _Draft) -> Bound:
    surface = text[draft.start:draft.end]
    parsed = parse_bound(surface)
    notation = "rate" if draft.rate else parsed.notation
    detail = draft.detail or ("" if draft.quantity != "other" else "unspecified")
    confidence = (0.6 if draft.rate else 0.9) * (1.0 if parsed.parsed else 0.8)
    return Bound(
        start=draft.start,
        end=draft.end,
        text=surface,
        notation=notation,
        expression=parsed.expression,
        quantity=draft.quantity,
        role=draft.role,
        kind=draft.kind,
        subject=draft.subject,
        subject_entity=draft.subject_entity,
        improves_on=draft.improves_on,
        variables=parsed.variables,
        parsed=parsed.parsed,
        unicode=parsed.unicode,
        quantity_detail=detail,
        sentence_start=draft.sentence[0],
        sentence_end=draft.sentence[1],
        rule=RULE,
        confidence=round(confidence, 2),
    )


if not Doc.has_extension("bounds"):
    Doc.set_extension("bounds", default=())


@Language.factory("kg_bounds")
def make_bounds(nlp: Language, name: str) -> BoundsComponent:
    """spaCy factory ``kg_bounds``: sets ``doc._.bounds`` from :func:`find_bounds`."""
    return BoundsComponent()


class BoundsComponent:
    """Pipeline component: bounds of ``doc.text``, linked to ``doc._.kg_mentions`` when present."""

    def __call__(self, doc: Doc) -> Doc:
        sentences = None
        if doc.has_annotation("SENT_START"):
            sentences = [(s.start_char, s.end_char) for s in doc.sents]
        mentions = doc._.kg_mentions if Doc.has_extension("kg_mentions") else ()
        doc._.bounds = find_bounds(doc.text, tuple(mentions or ()), sentences)
        return doc


__all__ = ["RULE", "BoundsComponent", "find_bounds", "math_segments", "sentence_spans"]
