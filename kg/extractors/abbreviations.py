"""Abbreviation pairs ("Equilibrium Propagation (EP)", "SALT (Static-teacher Asymmetric Latent
Training)") as a spaCy component.

Schwartz & Hearst (2003): for a parenthesised short form, the long form is the shortest run of
preceding words in which the short form's characters appear in order, the first one starting a
word.  ML abstracts as often name a method first and spell it out after, in parentheses; then the
whole parenthesis is the long form, and it must start with the short form's first letter.  A short
form may also be spelled as read aloud: "text-to-image (T2I)", "explainable AI (XAI)".  Pairs
become aliases of one entity, and a bare short form elsewhere in the abstract resolves to the same
entity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc

_PAREN = re.compile(r"\(([^()]{1,16})\)")
_CLOSING = "'\"’”`,}"
"""Characters a long form does not end with: a possessive apostrophe, a closing quote or brace before the parenthesis."""
_JOINED = re.compile(r"[—–{]|--")
"""What joins a word to a long form with no space ("method—Partial Model Collapse"): the long form starts after it."""
_FUNCTION_WORDS = frozenset("a an and as at by for from in of on or the to via with".split())
"""Lower-case words that rarely start a long form (``_letter_before``)."""
_SHORT = re.compile(r"^[A-Za-z0-9][\w\-+./]*[A-Za-z0-9+]s?$|^[A-Z]$")
"""A short form's shape: a letter or a digit first ("3DGS" for "3D Gaussian Splatting"), a letter or
digit last, a plural "s" allowed (``_is_short_form`` also asks for two letters, one upper-case)."""
_SPELLED_AFTER = re.compile(r"(?<![\w\-+./])([A-Za-z][\w\-+./]*[A-Za-z0-9+]) ?\(([^()]{5,150})\)")
"""A short form with its long form after it in parentheses: "SALT (Static-teacher Asymmetric Latent Training)"."""


@dataclass(frozen=True, slots=True)
class Abbreviation:
    """A long form and its short form, each with offsets into the text."""

    long_start: int
    long_end: int
    short_start: int
    short_end: int
    long: str
    short: str


def find_abbreviations(text: str) -> list[Abbreviation]:
    """All "long form (SF)" pairs in ``text``, in order.

    Example:
        >>> [(a.long, a.short) for a in find_abbreviations("We study Kolmogorov-Arnold Networks (KANs) here.")]
        [('Kolmogorov-Arnold Networks', 'KANs')]
        >>> [(a.long, a.short) for a in find_abbreviations("We call it SALT (Static-teacher Asymmetric Latent Training).")]
        [('Static-teacher Asymmetric Latent Training', 'SALT')]
    """
    pairs = []
    for match in _PAREN.finditer(text):
        short = match.group(1).strip()
        if not _is_short_form(short):
            continue
        start = match.start(1) + match.group(1).index(short)
        found = _long_form(text, match.start(), short)
        if found:
            ls, le = found
            pairs.append(Abbreviation(ls, le, start, start + len(short), text[ls:le], short))
    shorts = {(a.short_start, a.short_end) for a in pairs}
    for match in _SPELLED_AFTER.finditer(text):
        short, (ls, le) = match.group(1), _stripped(text, *match.span(2))
        if (match.start(1), match.end(1)) not in shorts and _is_short_form(short) and _spells(short, text[ls:le]):
            pairs.append(Abbreviation(ls, le, match.start(1), match.end(1), text[ls:le], short))
    return sorted(pairs, key=lambda a: min(a.long_start, a.short_start))


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not (text[end - 1].isalnum() or text[end - 1] in ")+"):
        end -= 1
    return start, end


def _spells(short: str, long: str) -> bool:
    """Whether a long form written after its short form spells it: the short form's characters in
    order, the first starting the long form, no more words than it could take, and no clause
    (a comma or semicolon: "GPT-4 (OpenAI, 2023)").

        >>> _spells("SALT", "Static-teacher Asymmetric Latent Training"), _spells("MMLU", "Hendrycks et al. 2021")
        (True, False)
    """
    return any(bool(long) and long[0].lower() == letters[0] and not re.search(r"[,;:]", long)
               and 2 <= len(re.findall(r"[^\s\-]+", long)) and len(long.split()) <= _most_words(letters)
               and _matches(letters, long) for letters in _readings(short))


_TITLE = re.compile(r"^\s*([^\s:]{2,16})\s*:\s*(.+)$")
_TITLE_STOP = re.compile(r"\s(?:for|with|via|in|on|of|to|from|by|and|through|using|towards?|beyond|as|under|at)\s|[,;:?!(]")


def title_abbreviation(title: str) -> tuple[str, str] | None:
    """(long, short) for a title that names its method "SHORT: Long Form for ...", else ``None``:
    the long form runs to the first function word or punctuation and must spell the short form.

    Example:
        >>> title_abbreviation("DeMo: Decoupled Momentum Optimization"), title_abbreviation("PASD: Partner-Aware Skill Discovery for Teams")
        (('Decoupled Momentum Optimization', 'DeMo'), ('Partner-Aware Skill Discovery', 'PASD'))
        >>> title_abbreviation("Attention: is it all you need?") is None
        True
    """
    match = _TITLE.match(title)
    if not match or not _is_short_form(match.group(1)):
        return None
    short, rest = match.group(1), match.group(2)
    stop = _TITLE_STOP.search(" " + rest)
    long = (rest if stop is None else rest[: max(0, stop.start() - 1)]).strip()
    return (long, short) if long and len(long.split()) >= 2 and spells_in_order(short, long) else None


def _is_short_form(short: str) -> bool:
    return (
        2 <= len(short) <= 12
        and " " not in short
        and bool(_SHORT.match(short))
        and any(c.isupper() for c in short)
        and sum(c.isalpha() for c in short) >= 2
    )


def _long_form(text: str, paren: int, short: str) -> tuple[int, int] | None:
    end = paren
    while end > 0 and text[end - 1] == " ":
        end -= 1
    window_start = max(0, end - 200)
    words = [(m.start() + window_start, m.end() + window_start) for m in re.finditer(r"\S+", text[window_start:end])]
    readings = _readings(short)
    for count in range(1, min(max(map(_most_words, readings)), len(words)) + 1):
        first = words[-count]
        chunk = text[first[0] : end]
        if re.search(r"[.;:!?]\s|[()\[\]]", chunk):
            return None
        found = next((at for letters in readings if (at := _first_letter(letters, chunk)) is not None), None)
        if found is not None:
            start = first[0]
            if _JOINED.search(chunk[:found]):  # "method—Partial Model Collapse (PMC)"
                start += found
            while start < end and not text[start].isalnum():
                start += 1
            if count < len(words) and _letter_before(text[start:end], text[slice(*words[-count - 1])]):
                continue  # "Abstraction and Reasoning Corpus (ARC)": not "and Reasoning Corpus"
            while end > start and text[end - 1] in _CLOSING:  # "large language models’ (LLMs)"
                end -= 1
            return (start, end) if start < end else None
    return None


def _letter_before(long: str, word_before: str) -> bool:
    """Whether the long form starts with a lower-case function word whose initial the word before it
    also has: then that word, not the function word, is where the short form's first letter stands."""
    first = long.split(None, 1)[0]
    return first in _FUNCTION_WORDS and word_before.lstrip("([{\"'“‘").lower().startswith(first[0])


def _letters(short: str) -> list[str]:
    """The characters a long form must spell: the short form's, lower case, less a plural "s"."""
    return [c.lower() for c in short.rstrip("s") if c.isalnum()] or [c.lower() for c in short if c.isalnum()]


_TO = re.compile(r"(?<=[A-Za-z])2(?=[A-Za-z])")
"""A "2" between letters, read "to": "text-to-image (T2I)", "sequence-to-sequence (Seq2Seq)"."""


def _readings(short: str) -> list[list[str]]:
    """What a long form of ``short`` may spell: its characters as written, and as read aloud where
    that differs: a "2" between letters as the word "to", a first "X" as "ex" ("explainable AI (XAI)").

        >>> _readings("T2I"), _readings("XAI")
        ([['t', '2', 'i'], ['t', 'to', 'i']], [['x', 'a', 'i'], ['e', 'x', 'a', 'i']])
    """
    letters = _letters(short)
    stem = short.rstrip("s") or short
    spoken = ["to" if _TO.match(stem, i) else c.lower() for i, c in enumerate(stem) if c.isalnum()]
    if spoken[:1] == ["x"]:
        spoken.insert(0, "e")
    return [letters] + ([spoken] if spoken and spoken != letters else [])


def _most_words(letters: list[str]) -> int:
    """The most words a long form of these letters runs to (Schwartz & Hearst: min(|A| + 5, 2|A|))."""
    return min(len(letters) + 5, len(letters) * 2)


def spells_in_order(short: str, words: str) -> bool:
    """Whether ``words`` spell the short form as a long form must (see ``find_abbreviations``)."""
    return any(_matches(letters, words) for letters in _readings(short))


def _matches(letters: list[str], chunk: str) -> bool:
    return _first_letter(letters, chunk) is not None


def _first_letter(letters: list[str], chunk: str) -> int | None:
    """Where the short form's first character stands in the chunk when all of them appear there in
    order (matched right to left), the first starting a word; else ``None``."""
    low = chunk.lower()
    pos = len(low)
    for i in range(len(letters) - 1, -1, -1):
        ch = letters[i]
        while True:
            pos = low.rfind(ch, 0, pos)
            if pos < 0:
                return None
            if len(ch) > 1 and not _whole_word(low, pos, pos + len(ch)):
                continue  # a word read aloud ("to" for a "2") is a word of the long form
            if i > 0 or pos == 0 or not low[pos - 1].isalnum():
                break
    return pos if pos == 0 or not low[pos - 1].isalnum() else None


def _whole_word(text: str, start: int, end: int) -> bool:
    return (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum())


if not Doc.has_extension("abbreviations"):
    Doc.set_extension("abbreviations", default=())


@Language.component("kg_abbreviations")
def abbreviations_component(doc: Doc) -> Doc:
    """Store the abbreviation pairs of ``doc`` in ``doc._.abbreviations``."""
    doc._.abbreviations = tuple(find_abbreviations(doc.text))
    return doc
