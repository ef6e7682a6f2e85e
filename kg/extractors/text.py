"""Text cleaning for the NLP pipeline that keeps every character offset valid.

Markup is *blanked* (replaced by spaces of the same length) rather than removed, so the cleaned
text is aligned with the abstract as read character by character: an offset found in one is the
same offset in the other, and no map has to be carried around.  LaTeX math (``$...$``) is left
untouched for the bound extractor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from kg.names import LATEX_TEXT_STYLE

T = TypeVar("T")

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>\"']+")
_MD_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_CODE = re.compile(r"`+")
_MD_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.M)
_MD_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+", re.M)
_PDF_GLYPH = re.compile(r"\(cid:\d+\)")  # a glyph PDF extraction could not map, mostly a soft hyphen: "seg(cid:173) mentation"
_LATEX_TEXT_CMD = re.compile(LATEX_TEXT_STYLE)
_LATEX_TEXT_CMD_ESCAPED = re.compile(r"\\" + LATEX_TEXT_STYLE)


def url_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the URLs in ``text`` (trailing sentence punctuation left out).

        >>> url_spans("Code: https://github.com/a/CoDe. CoDe works.")
        [(6, 31)]
    """
    out = []
    for match in _URL.finditer(text):
        end = match.end()
        while end > match.start() and text[end - 1] in ".,;:":
            end -= 1
        out.append((match.start(), end))
    return out


def clean_for_nlp(text: str) -> str:
    """Blank hard line breaks, Markdown markup, URLs, LaTeX text commands outside math and the
    unmapped glyphs of PDF extraction.

    Example:
        >>> clean_for_nlp("We use **bold** ideas\\nsee https://x.org/a.")
        'We use   bold   ideas see                .'
    """
    chars = list(text)
    protected = _math_mask(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if not protected[i]:
                chars[i] = " "

    for start, end in url_spans(text):
        blank(start, end)
    for match in _MD_LINK.finditer(text):
        blank(match.start(), match.start(1))
        blank(match.end(1), match.end())
    for pattern in (_MD_EMPHASIS, _LATEX_TEXT_CMD, _LATEX_TEXT_CMD_ESCAPED):
        for match in pattern.finditer(text):
            inner = match.start(pattern.groups) if pattern.groups else match.start()
            inner_end = match.end(pattern.groups) if pattern.groups else match.end()
            blank(match.start(), inner)
            blank(inner_end, match.end())
    for pattern in (_MD_CODE, _MD_HEADING, _MD_BULLET, _PDF_GLYPH):
        for match in pattern.finditer(text):
            blank(match.start(), match.end())
    for i, ch in enumerate(chars):
        if ch in "\r\n\t" and not protected[i]:
            chars[i] = " "
    return "".join(chars)


def as_written(span: T, text: str) -> T:
    """``span`` (any record with ``start``, ``end`` and ``text``) with its surface read from the
    text as read, where the NLP saw markup blanked: "**Re**current", not "  Re  current".

        >>> from kg.records import Mention
        >>> as_written(Mention(0, 13, "  Re  current", "Method", "recurrent"), "**Re**current net").text
        '**Re**current'
    """
    surface = text[span.start:span.end]
    return span if surface == span.text else replace(span, text=surface)


def _math_mask(text: str) -> list[bool]:
    mask = [False] * len(text)
    for match in _MATH.finditer(text):
        for i in range(match.start(), match.end()):
            mask[i] = True
    return mask


_LEADING_MARKUP = re.compile(r"(?:\\*(?:emph|textbf|textit|texttt|textsc|underline|text)\{|[*`{_]|'')+")
_TRAILING_MARKUP = re.compile(r"(?:[*`}_~]|'')+$")  # "~": LaTeX's tie before \cite
_TRAILING_MARKUP_NO_BRACE = re.compile(r"(?:[*`_~]|'')+$")
_REFERENCE = re.compile(r"~?\\(?:cite[a-z]*|ref|eqref|autoref|footnote|url)\b")
"""A citation or reference: no name goes on past one ("Distributed Data Parallel~\\cite{x} trainer")."""


def trim_markup(text: str, start: int, end: int) -> tuple[int, int]:
    r"""``start, end`` moved inward past Markdown and LaTeX markup at the span's edges
    ("\\textit{Embodied Reasoner" -> "Embodied Reasoner", "Groups*" -> "Groups", "name}$" -> "name"
    where the "$" closes math the name sits in) and cut before a citation, so names carry no markup
    while offsets still index the abstract as given.

    Example:
        >>> t = "We propose \\textit{Embodied Reasoner}, and **HIP**, a Large Language Model~\\cite{x} agent."
        >>> [t[s:e] for s, e in (trim_markup(t, 11, 37), trim_markup(t, 43, 50), trim_markup(t, 54, 90))]
        ['Embodied Reasoner', 'HIP', 'Large Language Model']
        >>> t = "a $\\textit{derandomization}$ lemma for Transformer$^2$"
        >>> [t[s:e] for s, e in (trim_markup(t, 11, 28), trim_markup(t, 39, 54))]
        ['derandomization', 'Transformer$^2$']
    """
    lead = _LEADING_MARKUP.match(text, start, end)
    if lead:
        start = lead.end()
    reference = _REFERENCE.search(text, start, end)
    if reference:
        end = reference.start()
    trail = _TRAILING_MARKUP.search(text[start:end])
    if trail and text.count("{", start, end) >= text.count("}", start, end):  # "Fl\\textbf{ow}" keeps its brace
        trail = _TRAILING_MARKUP_NO_BRACE.search(text[start:end])
    if trail:
        end = start + trail.start()
    if text.count("$", start, end) % 2:  # a lone "$" at an edge opens or closes the math around the name
        if text.startswith("$", start, end):
            return trim_markup(text, start + 1, end)
        if text.endswith("$", start, end):
            return trim_markup(text, start, end - 1)
    return start, max(start, end)


def balanced(text: str, start: int, end: int) -> tuple[int, int]:
    """``start, end`` cut at a bracket the span does not pair: a name holds its parentheses and square
    brackets in pairs, so the recogniser's "large language models(LLMs" is "large language models" and
    "CoT) reasoning" is "CoT"; a span that begins with the bracket it never closes starts after it.
    An empty span (``start == end``) is no name.

    Example:
        >>> t = "large language models(LLMs), CoT) reasoning, (Parallel and $O(n)$-time search"
        >>> [t[s:e] for s, e in (balanced(t, 0, 26), balanced(t, 29, 43), balanced(t, 45, 54), balanced(t, 59, 77))]
        ['large language models', 'CoT', 'Parallel', '$O(n)$-time search']
    """
    opened: list[int] = []
    for i in range(start, end):
        if text[i] in "([":
            opened.append(i)
        elif text[i] in ")]":
            if not opened:
                return balanced(text, start, _name_end(text, start, i))
            opened.pop()
    if opened:
        cut = _name_end(text, start, opened[0])
        return (start, cut) if cut > start else balanced(text, opened[0] + 1, end)
    return start, end


def _name_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over the spaces and LaTeX ties before a bracket ("Parallel~(DDP")."""
    while end > start and text[end - 1] in " ~\t\n":
        end -= 1
    return end


_STYLE_OPEN = r"(?:\*\*|\$?\\(?:textbf|textit|textsc|emph|underline)\{)"
_STYLE_CLOSE = r"(?:\*\*|\}\$?)"
_GLUED_BEFORE = re.compile(rf"{_STYLE_OPEN}?[A-Za-z]{{1,4}}{_STYLE_CLOSE}$")
_OPEN_BEFORE = re.compile(rf"{_STYLE_OPEN}$")
_STYLED_LETTERS = re.compile(rf"[A-Za-z]{{1,4}}{_STYLE_CLOSE}[A-Za-z]")
_GLUED_AFTER = re.compile(rf"{_STYLE_CLOSE}[A-Za-z]+|{_STYLE_OPEN}[A-Za-z]{{1,4}}{_STYLE_CLOSE}[A-Za-z]*")


def whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    r"""``start, end`` moved outward over letters that emphasis splits from the span's first or last
    word, as papers spell out their acronyms ("**Re**current **N**eural **T**eaching (ReNT)"): the NLP
    sees that markup blanked, so its span may begin at "current"; read ``text`` as given.

    Example:
        >>> t = "we call **Re**current **N**eural **T**eaching and Fl\\textbf{ow} nets"
        >>> [t[s:e] for s, e in (whole_words(t, 14, 45), whole_words(t, 50, 52))]
        ['**Re**current **N**eural **T**eaching', 'Fl\\textbf{ow}']
    """
    while start and text[start : start + 1].isalpha():
        glued = _GLUED_BEFORE.search(text, max(0, start - 40), start)
        if not glued:
            break
        start = glued.start()
    opened = _OPEN_BEFORE.search(text, max(0, start - 20), start)  # "$\\textbf{T}$racking" began at "T"
    if opened and _STYLED_LETTERS.match(text, start):
        start = opened.start()
    while end and text[end - 1 : end].isalpha():
        glued = _GLUED_AFTER.match(text, end)
        if not glued:
            break
        end = glued.end()
    return start, end


def word_occurrences(text: str, needle: str) -> list[int]:
    """Starts of ``needle`` in ``text`` that no letter or digit is glued to (on a side where the
    needle itself starts or ends with one): "VLM" is found in "the VLM's" but not in "VLM2VLA".

    Example:
        >>> word_occurrences("VLM2VLA tunes a VLM; VLMs and the VLM.", "VLM")
        [16, 34]
    """
    if not needle:
        return []
    starts = []
    for m in re.finditer(re.escape(needle), text):
        s, e = m.start(), m.end()
        if needle[0].isalnum() and s > 0 and text[s - 1].isalnum():
            continue
        if needle[-1].isalnum() and e < len(text) and text[e].isalnum():
            continue
        starts.append(s)
    return starts


_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9\-+.]*[A-Z0-9+]s?")


def name_shape(name: str) -> str:
    """How a name is written: "acronym" (one word, capitals), "capitalised", "lower" or "mixed".

    Example:
        >>> [name_shape(n) for n in ("LoRA", "Vision Transformer", "top-1 accuracy", "the ViT")]
        ['acronym', 'capitalised', 'lower', 'mixed']
    """
    words = name.split()
    if len(words) == 1 and _ACRONYM.fullmatch(name):
        return "acronym"
    if all(w[:1].isupper() for w in words):
        return "capitalised"
    return "lower" if name.islower() else "mixed"


def without_overlaps(kept: Sequence[tuple], extra: Sequence[tuple]) -> list[tuple]:
    """``kept`` spans plus the ``extra`` ones (longest first) that overlap nothing already there, in
    text order; a span is a tuple that starts with its start and end offsets.

    Example:
        >>> without_overlaps([(0, 3, "a")], [(2, 5, "b"), (4, 9, "c"), (9, 10, "d")])
        [(0, 3, 'a'), (4, 9, 'c'), (9, 10, 'd')]
    """
    out = list(kept)
    for cand in sorted(extra, key=lambda c: (c[0] - c[1], c[0])):
        if all(cand[1] <= k[0] or cand[0] >= k[1] for k in out):
            out.append(cand)
    return sorted(out)
