"""Names in one place: the canonical form resolution merges on, the spellings a query parameter may
take, the look-up keys stored for them and the fragments a "did you mean" compares.  Plain
strings only (no spaCy), so the graph, the stores and the queries can all use it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kg.records import Node

GAP = "…"
"""Joins the first and last two letters of a word into one name fragment; no word contains it."""

_EDGE_PUNCT = ".,;:()[]{}\"'`’‘“”*"
"""Stripped from each word of a canonical name before the last word is made singular ("models’" -> "model")."""

_WORD_BREAK = re.compile(r"[-‐‑‒–—−﹣－_/~]+")
"""Where a canonical name breaks words: hyphens and dashes of every kind ("fine‑tuning" with a
non-breaking hyphen is "fine-tuning"), a minus sign, underscore, slash and LaTeX's tie ("Key-Value~(KV)")."""
_MATH_MARK = re.compile(r"[$\\]|'(?=\d)")
"""Dropped from a canonical name: LaTeX's math marks and escapes ("Pass@$k$", "R$^2$", "V\\*Bench") and
the apostrophe of a shortened year ("AIME'24")."""
_DETERMINERS = frozenset({"a", "an", "the", "our", "this", "these", "its", "their"})
"""Dropped from the start of a canonical name, when each is a word of its own."""
_OPENING = "\"'`‘“([{"
"""Quotes and brackets a name's first word may carry ("“the model”")."""


_SOFT_HYPHEN = re.compile(r"\(cid:173\)\s*")
"""A soft hyphen as PDF extraction left it in older abstracts ("neu(cid:173) ral network")."""

LATEX_TEXT_STYLE = r"\\(?:emph|textbf|textit|texttt|textsc|underline|text)\{([^{}$]*)\}"
"""A LaTeX text style around plain text ("\\textbf{P}"), the text its group."""
_EMPHASIS_IN_NAME = re.compile(rf"\*\*|\$(?:{LATEX_TEXT_STYLE}|\\math(?:bf|rm|it)\{{([A-Za-z]*)\}})\$|{LATEX_TEXT_STYLE}")
"""Emphasis inside a name, mostly on the letters of its acronym: "**Re**current **N**eural
**T**eaching", "$\\textbf{P}$seudo-$\\textbf{L}$abeling" (the letters are kept)."""
_STRAY_CLOSE = re.compile(r"(?<=[A-Za-z])\}\$?(?=[A-Za-z])")
"""A style's closing brace left inside a name that began inside the style ("SE}quential")."""


def tidy_name(text: str) -> str:
    """A name as shown and keyed: soft hyphens from PDF extraction and emphasis gone, whitespace
    single (the surface itself, offsets and all, stays as read: ``kg.extractors.text.as_written``).

    Example:
        >>> tidy_name("recurrent  neu(cid:173) ral  networks")
        'recurrent neural networks'
        >>> tidy_name("**Re**current **N**eural **T**eaching")
        'Recurrent Neural Teaching'
    """
    text, found = _SOFT_HYPHEN.sub("", text), 1
    while found:  # nested styles: "\\emph{\\textbf{N}eural}"
        text, found = _EMPHASIS_IN_NAME.subn(lambda m: next((g for g in m.groups() if g), ""), text)
    if text.count("}") > text.count("{"):  # the name began inside the style: "SE}quential"
        text = _STRAY_CLOSE.sub("", text)
    return " ".join(text.split())


def canonical(text: str) -> str:
    """Normalised name used for resolution: compatibility characters folded (NFKC), lower case, no
    hyphens or determiners, singular last word.

    Example:
        >>> canonical("the Kolmogorov-Arnold Networks")
        'kolmogorov arnold network'
        >>> canonical("Chain\u2011of\u2011thought"), canonical("large language model's"), canonical("Key-Value~(KV) cache")
        ('chain of thought', 'large language model', 'key value kv cache')
        >>> canonical("Pass@$k$"), canonical("R$^2$"), canonical("AIME'24")
        ('pass@k', 'r^2', 'aime24')
        >>> canonical("A-OKVQA"), canonical("A/B testing"), canonical("THE-Tree")
        ('a okvqa', 'a b testing', 'the tree')
    """
    if not re.search(r"[^\W\d_]", re.sub(r"\\[A-Za-z]+", "", text)):
        return ""  # no name: a LaTeX macro standing for one ("\\method", "\\ours"), a number, markup
    tokens = unicodedata.normalize("NFKC", tidy_name(text)).lower().replace("’", "'").split()  # "R²" is "R2", "𝖬𝗎𝗈𝗇" "Muon"
    while tokens and tokens[0].strip(_OPENING) in _DETERMINERS:  # a word of its own: "A-OKVQA", "A* search" keep theirs
        tokens = tokens[1:]
    words = [w.strip(_EDGE_PUNCT) for w in _MATH_MARK.sub("", _WORD_BREAK.sub(" ", " ".join(tokens))).split()]
    if words and words[-1].endswith("'s"):  # a possessive: "large language model's"
        words[-1] = words[-1][:-2]
    words = [w for w in words if w]
    if words:
        words[-1] = singular(words[-1])
        if "of" in words[1:-1]:  # the head of "chains of thought", "mixtures of experts"
            head = words.index("of", 1) - 1
            words[head] = singular(words[head])
    return " ".join(words)


_IRREGULAR = {"matrices": "matrix", "vertices": "vertex", "indices": "index", "simplices": "simplex",
              "axes": "axis", "criteria": "criterion", "phenomena": "phenomenon"}
_SINGULAR_WITH_S = frozenset("atlas canvas chaos cosmos ethos gas lens news series species".split())
"""Words that end in "s" in the singular (with those ending in "ss", "us", "is", "ias" or "ics")."""
_PLURAL_ES = re.compile(r"(?:ss|zz|ch|sh|x)es$|ias(?=es$)")
"""Plurals whose singular drops "es": "processes", "approaches", "boxes", "biases" (not "caches")."""


def singular(word: str) -> str:
    """A lower-case word made singular, for canonical names: plural and singular spellings of a name
    must meet ("Gaussian processes" and "Gaussian process", "time series" as itself).

    Example:
        >>> [singular(w) for w in ("models", "policies", "processes", "approaches", "analyses", "biases")]
        ['model', 'policy', 'process', 'approach', 'analysis', 'bias']
        >>> [singular(w) for w in ("series", "bias", "dynamics", "caches", "responses", "matrices", "llms")]
        ['series', 'bias', 'dynamics', 'cache', 'response', 'matrix', 'llm']
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in _SINGULAR_WITH_S or word.endswith(("ss", "us", "is", "ias", "ics")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("yses", "eses")):
        return word[:-2] + "is"
    if _PLURAL_ES.search(word) and not word.endswith(("caches", "niches")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


_BRITISH = ((re.compile(r"(?<=\w{3}[lrntmd])is(ation|ations|e|ed|es|ing|er|ers)$"), r"iz\1"),
            (re.compile(r"(?<=\w)ell(ing|ed)$"), r"el\1"),
            (re.compile(r"^(behavi|neighb|col|fav|lab|hum|harb|vap)our"), r"\1or"))
"""British spellings and their American forms: "optimisation", "modelling", "behaviour" (not
"supervised", "noise" or "precise")."""
_MODIFIER_FORMS = ((re.compile(r"^(\w{4,}ion)al$"), r"\1"), (re.compile(r"^(\w{4,})ative$"), r"\1ation"),
                   (re.compile(r"^(\w{3,})ictive$"), r"\1iction"), (re.compile(r"^(\w{4,})ic$"), r"\1"))
"""Adjectives that modify a name as their noun does: "distributional shift" is "distribution shift",
"generative model" "generation model", "predictive accuracy" "prediction accuracy", "robotic
manipulation" "robot manipulation"."""
_MODIFIER_WORDS = {"math": "mathematical", "mathematics": "mathematical", "compute": "computation",
                   "computing": "computation"}


def spelling_variant(key: str) -> str:
    """What the spellings of one name have in common, for a canonical name: American spelling, and the
    words before the last (the modifiers) by their noun, so that "computational cost", "computation
    cost" and "compute cost" meet.  The last word, the name's head, keeps its form: "language model"
    and "language modeling" are two things.

    Example:
        >>> [spelling_variant(k) for k in ("distributional shift", "math reasoning", "robotic manipulation")]
        ['distribution shift', 'mathematical reasoning', 'robot manipulation']
        >>> [spelling_variant(k) for k in ("bayesian optimisation", "language modelling", "behaviour cloning")]
        ['bayesian optimization', 'language modeling', 'behavior cloning']
        >>> [spelling_variant(k) for k in ("generative model", "supervised learning", "noise", "positive bias")]
        ['generation model', 'supervised learning', 'noise', 'positive bias']
    """
    *modifiers, head = key.split() or [""]
    return " ".join([*(_as_modifier(w) for w in modifiers), _american(head)])


@lru_cache(maxsize=1 << 16)
def _american(word: str) -> str:
    for pattern, american in _BRITISH:
        word = pattern.sub(american, word)
    return word


@lru_cache(maxsize=1 << 16)
def _as_modifier(word: str) -> str:
    word = _american(word)
    word = _MODIFIER_WORDS.get(word, word)
    for pattern, noun in _MODIFIER_FORMS:
        word, found = pattern.subn(noun, word)
        if found:
            break
    return word


def variants(text: str) -> list[str]:
    """Lower-cased spellings a name may have: as given, hyphen/space swapped, singular and plural.

    Example:
        >>> variants("Neural Networks")
        ['neural networks', 'neural-networks', 'neural network', 'neural-network']
        >>> variants("policy")
        ['policy', 'policies']
    """
    base = " ".join(text.lower().split())
    spellings = list(dict.fromkeys([base, base.replace("-", " "), base.replace(" ", "-")]))
    out = list(spellings)
    for s in spellings:
        if s.endswith("ies"):
            out.append(s[:-3] + "y")
        elif s.endswith(("ses", "xes", "ches", "shes")):
            out.append(s[:-2])
        elif s.endswith("s") and not s.endswith("ss"):
            out.append(s[:-1])
        elif s.endswith("y") and s[-2:-1] not in "aeiou":
            out.append(s[:-1] + "ies")
        else:
            out.append(s + ("es" if s.endswith(("s", "x", "ch", "sh")) else "s"))
    return list(dict.fromkeys(out))


def name_keys(node: Node) -> set[str]:
    """The lower-cased spellings a parameter can name ``node`` by: its name, title and aliases."""
    return {text.lower() for text in (node.name, node.properties.get("title"), *node.aliases) if text}


def name_fragments(text: str) -> frozenset[str]:
    """Keys of a "did you mean": each word's first and last four letters ("propogation" -> "prop",
    "tion") and its first and last two around ``GAP`` ("pr…on": an edit in the middle, such as
    "accruacy", changes both four-letter ends of a word of eight), a shorter word whole and its first
    three letters ("FIDD" -> "fidd", "fid"); words of one or two letters only when there are no
    others ("of" would match half the graph).  A misspelt name almost surely shares one with the
    right name, so a suggestion compares a few hundred names, not every name in the graph.

    Example:
        >>> sorted(name_fragments("Equilibrium propogation")), sorted(name_fragments("FIDD")), sorted(name_fragments("KD"))
        (['equi', 'eq…um', 'prop', 'pr…on', 'rium', 'tion'], ['fid', 'fidd'], ['kd'])
    """
    return frozenset().union(*word_fragments(text))


def word_fragments(text: str) -> list[frozenset[str]]:
    """The ``name_fragments`` of each distinct word, in order: a misspelt name of several words
    shares fragments of at least two of them with the right name, which a fragment as common as
    "tion" alone cannot narrow down.

    Example:
        >>> [sorted(f) for f in word_fragments("image clasification")]
        [['imag', 'im…ge', 'mage'], ['clas', 'cl…on', 'tion']]
        >>> [sorted(f) for f in word_fragments("large lanugage")]
        [['arge', 'larg'], ['gage', 'lanu']]
    """
    words = re.findall(r"\w+", text.lower()) or [text.lower().strip()]
    words = [w for w in words if len(w) > 2] or words
    groups = [
        frozenset(p for p in ((w[:4], w[-4:], f"{w[:2]}{GAP}{w[-2:]}") if len(w) > 4 else (w, w[:3])) if p)
        for w in dict.fromkeys(words)
    ]
    # a fragment of two words ("la…ge" of "large" and "language") would let one word meet both
    shared = {f for i, g in enumerate(groups) for h in groups[i + 1 :] for f in g & h}
    return [g - shared or g for g in groups if g]


def fragment_pieces(fragment: str) -> list[str]:
    """The substrings a name with ``fragment`` contains (both ends of a gapped one): a backend
    without the fragment index fetches by them, then keeps the names ``groups_met`` keeps."""
    return fragment.split(GAP)


def groups_met(groups: list[frozenset[str]], name: str) -> int:
    """How many of ``groups`` (``word_fragments`` of a misspelt name) share a fragment with ``name``."""
    mine = name_fragments(name)
    return sum(not g.isdisjoint(mine) for g in groups)


def lone_surrogate(text: str) -> int | None:
    """Where ``text`` holds a lone surrogate (no UTF-8 form, so no store, driver or file can take it), or ``None``.

    Example:
        >>> lone_surrogate("ok 𝒪"), lone_surrogate("ab\\ud800")
        (None, 2)
    """
    match = _SURROGATE.search(text)
    return match.start() if match else None


_SURROGATE = re.compile("[\ud800-\udfff]")
