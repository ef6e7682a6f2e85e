"""Reported results in an abstract: every number that states a measured outcome, parsed, with its fields.

``find_results`` is a pure function of the abstract text and, when given, the entity mentions and
relations found in it.  It follows ``results-GUIDELINES.md``: one record per reported number, the
value as written with offsets into the text as read.  Whether a number is a result is a small
additive score over tables of cue words (a unit, a metric word, a change word, a count noun that
marks a setting, a year), hand-weighted, or weighted with the words around the number by a
detector learnt from annotated results (``result_detector.json`` in the in-domain model); kind,
direction, qualifier and the name fields come from cue words around the number in its sentence,
then from the mentions, then from the abstract as a whole.  Regexes only, so it costs a small
fraction of the extraction.  ``kg.schema.metrics`` knows the metric names and which way is better
for each (it orders leaderboards).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from spacy.language import Language
from spacy.tokens import Doc

from kg.extractors.bounds import math_segments, sentence_spans
from kg.extractors.text import as_written
from kg.names import canonical
from kg.records import Mention, Relation, Result
from kg.schema.metrics import better_direction, metric_patterns

if TYPE_CHECKING:
    from kg.extractors.result_names import NameRanker
    from kg.extractors.roles import LinearHeads

RULE = "results.v1"

# ── numbers as written ──────────────────────────────────────────────────────────────────────────
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_UNIT = (
    r"(?:\s?\\{0,2}%|％|\s?×|\s?\$\\times\$|(?:GB|MB|TB|KB|ms|fps|Hz)\b|\\times(?!\s*\$?\s*\d)|[xX](?![^\W_])|pp\b)"
)
_NUMBER = re.compile(
    rf"(?P<sign>[+\-−＋])?(?P<a>{_DIGITS})(?P<scale>\s(?:thousand|million|billion|trillion)\b)?(?P<ua>{_UNIT})?"
    rf"(?:(?P<sep>\s?[–—−]\s?|--|-|~|\{{?\\sim\}}?|\$[–—-]{{1,2}}\$)(?P<b>{_DIGITS})(?P<ub>{_UNIT})?"
    rf"|(?P<slash>(?:/{_DIGITS})+)(?P<us>{_UNIT})?)?"
)
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NAME_BEFORE = set("._@^/\\#&")
"""A number right after one of these (or after a letter) is part of a name, version or formula."""
_HYPHEN_WORDS = re.compile(r"-(?:points?|fold|times|x)\b", re.I)
"""Hyphen compounds after a number that keep it a result ("7.6-point gain", "3-fold"); any other
("16-task suite", "4-bit", "5-shot") makes the number a setting."""
_MATH_ALLOWED = re.compile(
    r"\\(?:sim|approx|times|%|geq?|leq?|mathbf|textbf|boldsymbol|bm|mathrm|text|mathit|!|,|;| )|[\s{}$~<>≈≥≤+\-−%×]"
)
"""What may share a ``$...$`` segment with a result number; anything else makes it a formula."""
_NOT_BEFORE = re.compile(
    r"\b(?:Sections?|Sec\.?|Figures?|Fig\.?|Tables?|Tab\.?|Eqs?\.?|Equations?|Theorems?|Lemmas?|Corollary|"
    r"Propositions?|Definitions?|Appendix|Chapter|Algorithm|Step|Stage|Phase|Level|Version|Task|Track|Round|"
    r"Part|Type|Layer|top|Top|first|last|bottom|GPT|LLaMA|Llama|Qwen|Claude|Gemini|Gemma|Phi|Mistral|DeepSeek|k|K|N|n|T|d|L|=|≥|≤|\\geq|\\leq|\\ge|\\le|<|>)\s*[\[(]?\s*$"
)
"""Words and relations before a number that make it a reference, an index or a setting."""
_UNIT_WORD = re.compile(
    r"\s*(?:-\s?)?(?P<pp>percentage points?|pp\b|points?\b|pts?\b)|\s*(?:-\s?)?(?P<times>times\b|fold\b)"
    r"|\s?(?P<word>ms|sec|seconds?|minutes?|hours?|fps|FPS|Hz|kHz|GB|MB|TB|KB|cm|mm|km|dB|N|tokens/s|it/s)\b"
)
_CLOSE = re.compile(r"(?:\$|\}|\*\*)*")

# ── cue tables ──────────────────────────────────────────────────────────────────────────────────
_UP = r"improv\w*|increas\w*|boost\w*|gains?|higher|better|faster|speed-?ups?|speeds? up|accelerat\w*|rais\w*|lift\w*|enhanc\w*|more|outperform\w*|surpass\w*|larger|greater|jump\w*|overheads?|uplift|advantage|stronger"
_DOWN = r"reduc\w*|lower\w*|decreas\w*|fewer|less|cut\w*|drops?|dropp\w*|degrad\w*|declin\w*|shrink\w*|sav(?:e|es|ed|ing|ings)|smaller|fall\w*|slash\w*|eliminat\w*"
_STOP_WORDS = r"on|in|for|with|over|than|compared|and|while|at|across|by|when|from|of|to|under|using|via|which|that|but|only"
_BEATS = re.compile(r"outperform|surpass|beat|exceed", re.I)
_GENERIC = re.compile(r"improv|better|gain|enhanc|outperform|surpass|advantage|stronger", re.I)
"""Change words that say "better", not "higher": their direction is the metric's better direction."""
_CHANGE = re.compile(rf"\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b", re.I)
_CHANGE_AFTER = re.compile(
    rf"(?:\s|\*|\}}|\$|\)|(?:absolute|relative|average|overall|an?|the)\b)*(?:(?!(?:{_STOP_WORDS})\b)[\w’'-]+\s+){{0,2}}?"
    rf"(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b",
    re.I,
)
"""A change word right after the number, past at most two words ("13.1% absolute performance gains")."""
_CUE_TAIL = re.compile(
    r"(?:[^.;:]{0,70}?\bby|(?:\s+(?:of|in|by))?)\s*(?:[^\w\s]{0,3}\s*(?:up ?to|upto|over|more than|about|approximately|"
    r"around|nearly|roughly|almost|at least|an average of|on average|averag\w*|\\sim|\\approx|~|≈)?\s*)?"
    r"[\s${]*(?:\\(?:mathbf|textbf)\{)?\s*(?:an?\s+)?",
    re.I,
)
"""Between a change word before the number and the number: "improves accuracy by up to", "gains of"."""
_BY = re.compile(r"\bby\s*(?:up ?to|upto|over|more than|about|approximately|around|nearly|roughly|almost|at least|~|\\sim|\\approx|≈)?[\s${}]*(?:\\(?:mathbf|textbf)\{)?\s*$", re.I)
_QUALIFIERS: tuple[tuple[str, str], ...] = (
    ("up to", r"up ?to|as (?:much|high|many) as|maximum(?: \w+){0,3} of|peak\w*(?: at)?"),
    ("over", r"over|more than|above|at least|exceed\w*|greater than|\\geq?|≥|>|&gt;"),
    ("below", r"below|less than|under|within|at most|fewer than|\\leq?|≤|<|&lt;"),
    ("about", r"about|approximately|approx\.|around|nearly|roughly|almost|close to|~|\\sim|\\approx|≈"),
    ("average", r"on average|an average(?: \w+)? of|average|averag\w+|a mean|mean"),
)
_QUALIFIER = re.compile(
    r"(?:" + "|".join(f"(?P<q{i}>{p})" for i, (_, p) in enumerate(_QUALIFIERS)) + r")"
    r"(?:\s+(?:an?|the))?[\s${}*]*(?:\\(?:mathbf|textbf)\{)?\s*$",
    re.I,
)
_AVERAGE_AFTER = re.compile(r"^[^.;,]{0,40}?\bon average\b", re.I)
_COUNT_NOUNS = re.compile(
    rf"[\s$}}]*(?:(?!(?:{_STOP_WORDS}|more|fewer|less|higher|lower|better|faster)\b)[\w-]+\s+){{0,2}}?(?:\d+(?:\.\d+)?[BMKT]\b|cross-validation|folds?|samples?|examples?|instances?|images?|videos?|clips?|questions?|problems?|prompts?|"
    r"tasks?|datasets?|benchmarks?|domains?|languages?|models?|LLMs?|agents?|environments?|games?|users?|participants?|"
    r"annotators?|experts?|subjects?|patients?|scenes?|objects?|categories|classes|labels?|pairs?|documents?|papers?|"
    r"articles?|sentences?|words?|tokens?|parameters?|params|layers?|heads?|steps?|epochs?|iterations?|rounds?|"
    r"episodes?|trajectories|demonstrations?|shots?|seeds?|runs?|GPUs?|CPUs?|nodes?|days?|years?|months?|frames?|"
    r"dimensions?|features?|bits?|queries|levels?|types?|scenarios?|skills?|tools?|functions?|repositories|"
    r"hospitals?|cities|countries|species|molecules?|proteins?|graphs?|variables?|views?|splits?|hours?|"
    r"evaluations?|annotations?|responses?|conversations?|dialogues?|turns?|modalities|architectures?|"
    r"settings?|configurations?|methods?|baselines?|criteria|metrics?|subsets?|suites?|"
    r"attributes?|concepts?|cases?|items?|records?|files?|programs?|lines?|stars?|authors?|teams?|K\b|M\b|B\b)\b",
    re.I,
)
"""Nouns after a bare number that make it a count or a setting ("12 datasets", "7 billion parameters")."""
_RESULT_VERB = re.compile(
    r"\b(?:achiev\w*|attain\w*|reach\w*|obtain\w*|scor\w*|records?|runs? at|running at|peak\w* at)\s+(?:(?:an?|the|only|just|up ?to|over|about|nearly|approximately|around)\s+)*[\s$~{\\a-z]*$",
    re.I,
)
_SETTING_NUMBER = re.compile(r"\b(?:using|with only|for|every|per|trained on|train on|after)\s+(?:(?:only|just|as little as|as few as|about|up ?to|the|a|an)\s+)*[\s$~]*$", re.I)
"""Words before a number that make it a setting: "using as little as 0.1% extra data", "for 100 epochs"."""
_ACRONYM_AFTER = re.compile(r"[\s$*}]*(?!(?:GPUs?|CPUs?|LLMs?|VLMs?|MLLMs?)\b)[A-Z][A-Z0-9-]{1,}[a-z]?\b(?![-\d])")
_ACRONYM_BEFORE = re.compile(r"\b(?!(?:GPUs?|LLMs?)\b)[A-Z]{2,}[\w-]*\)?\s*(?:of|=|:)?[\s$]*$")
_TO_AFTER = re.compile(r"[\s$]*(?:\([^()]{0,40}\)\s*)?to\s+[+\-−]?\d")
_SETTING_AFTER = re.compile(
    r"[\s$}]*(?:of (?:the )?(?:model |training |labeled |trainable )?(?:parameters|tokens|weights|data|samples|labels|time budget|budget)\b"
    r"|(?:sparsity|masking|pruning|compression|mask|drop) ?(?:ratio|rate|level)?\b)",
    re.I,
)
_FROM = re.compile(r"\bfrom\s*(?:an?\s+|the\s+)?[\s$]*$", re.I)
_TO_BEFORE = re.compile(r"\bfrom[\s$]*[+\-−]?\d[^\s]{0,15}\s*(?:\([^()]{0,40}\)\s*)?to[\s$]*$", re.I)
_BASELINE_CUE = re.compile(
    r"\b(?:over|than|compared (?:to|with)|in comparison (?:to|with)|relative to|versus|vs\.?|against|outperform\w*|surpass\w*|beat\w*)\s+",
    re.I,
)
_SETTING_BEFORE = re.compile(r"\b(?:with|using|on|via|from|of|into|to|under|in|across|by|over|than|versus|vs\.?|against|outperform\w*|surpass\w*|compared (?:to|with)|relative to)\s+(?:the\s+|a\s+|an\s+|strong\s+)?$", re.I)
"""A mention right after one of these is a setting, a dataset or a baseline, not who achieved the number."""
_OWN = re.compile(r"\b(?:our (?:[\w-]+\s+){0,2}(?:method|approach|model|framework|system|algorithm|pipeline|agent|technique|strateg(?:y|ies))|ours|we|it|this (?:method|approach|model|framework|strategy|technique|pipeline))\b", re.I)
_SUBJECT_VERB = re.compile(
    r"[\s}*,)]*(?:\d+(?:\.\d+)?[BMK]\b\s*)?(?:\([^()]{1,40}\)\s*)?(?:['’]s\s+(?:[\w-]+\s+){0,3})?"
    r"(?:(?:variant|model|version|method|framework|agent|system)s?\s+)?"
    r"(?:(?:\w+ly|only|also|still|even|can|could|further)\s+)*"
    r"(?:achiev|attain|reach|obtain|scor|improv|requir|discover|generat|outperform|surpass|yield|deliver|increas|reduc|boost|rais|lower|cut|"
    r"show|exhibit|get|run|record|set|peak|lift|enabl|provid|offer|drop|fall|solv|comput|process|lead|result|gain|"
    r"accelerat|speed|perform|match|exceed|correlat|maintain|preserv|retain|transmit|uses|consum|need|sav|compress|converg|beat|decreas|halv|doubl|send)\w*\b",
    re.I,
)
"""A result verb right after a name makes the name the one who reached the number."""
_SUBJECT_PHRASE = re.compile(
    r"(?<![\w'’-])((?!(?:with|for|on|in|of|by|using|from)\b)(?:(?:most|some|all|existing|current|leading|prior|previous|baseline|strong|open|proprietary|our|the|[\w-]+)\s+){0,3}"
    r"(?:models?|methods?|pipeline|framework|approach|system|variant|agents?|strateg(?:y|ies)|defenses|humans|MLLMs|LLMs|VLMs|implementation))"
    r"\s+(?:\w+ly\s+)?(?:achiev|attain|reach|obtain|improv|outperform|surpass|yield|deliver|increas|reduc|boost|fail|face|peak|score|drop|gain)\w*\b",
    re.I,
)
"""A subject described rather than named ("most models reach", "our multi-modal AMR pipeline achieves")."""
_BASELINE_BEFORE = re.compile(r"\b(?:over|than|compared (?:to|with)|relative to|versus|vs\.?|against|outperform\w*|surpass\w*)\s+(?:the\s+|strong\s+)?$", re.I)
_NOT_METHOD = re.compile(r"(?:Bench|bench|BENCH|QA|Eval|Arena|Suite|-V)$")
"""Name-like tokens that name a benchmark, not a method."""
_SOTA = re.compile(r"\b(?:SOTA|state[- ]of[- ]the[- ]art|prior art|best prior|previous best)\b", re.I)
_NP_STOP = (
    r"on|in|within|without|under|after|per|via|for|with|over|than|compared|relative|and|while|whereas|at|across|by|"
    r"when|from|of|to|using|which|that|respectively|vs\.?|versus|against|as|is|are|was|were|leading|demonstrating|"
    r"showing|indicating|achieving|reaching|yielding|making"
)
"""Words that end a noun phrase read after or before a number."""
_NP = re.compile(rf"\s*(?:the\s+|its\s+|their\s+|our\s+)?((?:(?!(?:{_NP_STOP})(?![\w-]))[^\s,.;:()\[\]]+(?:\s+\([A-Z][\w-]*\))?\s*){{1,4}})", re.I)
_AFTER_LEAD = re.compile(
    rf"(?:\s|\*|\}}|\$|\\%|%|×|-|(?:absolute|relative|average|overall|an?|the)\b)*"
    rf"(?P<change>(?:{_UP}|{_DOWN})(?:\s+|$))?(?P<prep>in terms of\s+|in\s+|on\s+|of\s+)?",
    re.I,
)
"""Between a number and the quantity it names: markup, the unit, a change word, a preposition."""
_UNIT_METRICS = {"ms": "runtime", "s": "runtime", "sec": "runtime", "seconds": "runtime", "second": "runtime", "minutes": "runtime",
                 "hours": "runtime", "fps": "throughput", "FPS": "throughput", "Hz": "frequency", "kHz": "frequency",
                 "GB": "memory", "MB": "memory", "TB": "memory", "KB": "memory", "tokens/s": "throughput", "it/s": "throughput"}
"""What a bare number with a measurement unit measures when no metric is named beside it."""
_EVALUATIVE = re.compile(
    r"^(?:(?:new|state-of-the-art|sota|best|competitive|strong|high|higher|superior|remarkable|significant|substantial|"
    r"consistent|close|overall|impressive)\s+)+",
    re.I,
)
_OF_BEFORE = re.compile(r"((?:[^\s,.;:]+\s+){0,3}[^\s,.;:]+)\s+(?:of|=|:|is|reaches|reaching|at)\s*(?:an?\s+)?[\s$]*(?:\w+\s+)?$")
_NAME_LIKE = re.compile(
    r"(?<![\w-])(?:[A-Z][a-z]+[A-Z][\w-]*|[A-Z]{2,}[\w-]*|[A-Za-z]+-?\d[\w.-]*|[a-z]+[A-Z][\w-]*|[A-Z][\w]*-[A-Z][\w-]*)(?![\w-])"
)
_NAME_CONTINUES = re.compile(r"(?:\s(?:Pro|Max|Mini|Ultra|Flash|Turbo|Instruct|Chat|Base|XL|\d+(?:\.\d+)?[BMK]))+\b")
"""Words after a model name that belong to it: "Gemini-2.5 Pro", "Llama-4 17B"."""
_NOT_NAMES = frozenset("AI ML NLP CV RL LLM LLMs MLLM MLLMs VLM VLMs GPU GPUs CPU CPUs API URL PDF ICLR ICML NeurIPS SOTA SFT".split())
_PRONOUNS = frozenset("We Our Us This These Those Their Its It They Both All Each Such".split())
"""Capitalised words that start a sentence ("We benchmark", "Our benchmarks show"), never a benchmark's name."""
_NOT_NAME = re.compile(rf"(?:{'|'.join(_NOT_NAMES)})$|(?:top|bottom|first|last|step|stage|layer|level|round|k|n)-?\d", re.I)
"""Name-like tokens that name no method: generic acronyms, and indices such as "top-40"."""
_PROPOSE = re.compile(r"\b(?:we|this paper|this work)\s+(?:\w+ly\s+)?(?:propose|introduce|present|develop|design|devise|call|name|term|dub)\w*\b|\b(?:called|named|dubbed|termed)\b", re.I)
_APPOSITIVE = re.compile(
    r"\s*(?:\*\*|\*|\\(?:textbf|emph|textit|textsc)\{)?([^,;:()*{}$]{2,40}?)(?:\*\*|\*|\})?\s*(?:\(([^()]{2,20})\))?,\s+(?:an?|the)\b"
)
"""The name a propose verb introduces with an appositive: "we propose **Tequila**, a ... method"."""
_CALLED_BENCHMARK = re.compile(r"\W{0,3}(?:(?:an?|the)\s+)?(?:[\w-]+\s+){0,4}?(?:benchmark|dataset|suite|testbed)\b")
"""After a name: what calls it a benchmark ("DRDBench, a new benchmark", "X dataset")."""
_ACRONYM_AFTER_NAME = re.compile(r"\s*\(\s*([A-Z][\w-]*[A-Z\d][\w-]*)\s*\)")
_ACRONYM_DEF = re.compile(r"\(([A-Z][\w-]*[A-Z][\w-]*|[A-Z][a-z]+[A-Z]\w*)\)")
_DATASET_CUE = re.compile(
    r"\b(?:[Oo]n|[Ii]n|[Aa]cross|[Ff]or|[Oo]ver)\s+(?:(?:the|an?)\s+)?((?:[A-Z][\w.-]*|\$?\\?[a-z]+\^?\d?\$?[A-Z][\w-]*)(?:[ -](?:[A-Z0-9][\w.-]*))?)(?:\s+(?:benchmark|dataset|suite|test set)s?)?"
    r"|(?:the\s+)?([A-Z][\w.-]*(?: [A-Z][\w.-]*)?)\s+(?:benchmark|dataset|suite|test set)s?\b"
)
_MODEL_FAMILY = re.compile(
    r"^(?:GPT|LLaMA|Llama|Qwen|Claude|Gemini|Mistral|Mixtral|DeepSeek|Gemma|PaLM|Vicuna|LLaVA|InternVL|RoBERTa|BERT|ViT|CLIP|ResNet|Transformer)|\d+(?:\.\d+)?[BM]\b"
)


@dataclass(frozen=True, slots=True)
class _Number:
    """One number as written: span of the value, parsed bounds and unit, and where its text ends."""

    start: int
    end: int
    low: float
    high: float
    unit: str
    sign: str
    tail: int  # end of the value with the unit words after it ("times", "points", "fps")


def _cue_before(before: str) -> re.Match[str] | None:
    """The change word closest before the number that governs it ("reduces X by", "gains of")."""
    for m in reversed(list(_CHANGE.finditer(before))):
        if _CUE_TAIL.fullmatch(before, m.end()):
            return m
    return None


def metric_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Known metric names in text[start:end], neighbours joined ("FID score", "top-1 accuracy")."""
    _, lower, exact = metric_patterns()
    spans: list[tuple[int, int]] = []
    for s, e in sorted((m.start(), m.end()) for p in (lower, exact) for m in p.finditer(text, start, end)):
        if spans and s <= spans[-1][1] + 1 and not text[spans[-1][1]:s].strip():
            spans[-1] = (spans[-1][0], max(e, spans[-1][1]))
        else:
            spans.append((s, e))
    return spans


def _float(digits: str) -> float:
    """A number written with any decimal digits (unicodedata), thousands commas or a leading point."""
    ascii_digits = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in digits)
    return float(ascii_digits.replace(",", ""))


def _unit_of(symbol: str | None) -> str:
    """The guidelines' unit for a symbol attached to a number: "%", "x", "pp" or the unit as written."""
    if not symbol:
        return ""
    if "%" in symbol or "％" in symbol:
        return "%"
    if symbol.strip() in ("pp", "GB", "MB", "TB", "KB", "ms", "fps", "Hz"):
        return symbol.strip()
    return "x"


_GLUED_SECONDS = re.compile(r"s(?![\w-])")
_TIMES_BEFORE = re.compile(r"(?:×|\\times\s?)$")
"""A ratio written with its sign before the number: "×3.12", "$\\times 550$"."""


def _numbers(text: str, math: Sequence[tuple[int, int]]) -> list[_Number]:
    """Every number that is not part of a name, version, formula or reference, with its unit."""
    out: list[_Number] = []
    for m in _NUMBER.finditer(text):
        start = m.start("sign") if m.group("sign") else m.start("a")
        before = text[start - 1] if start else " "
        macro = before.isalpha() and re.search(r"\\(?:sim|approx|geq?|leq?|times)$", text[max(0, start - 8):start])
        if (before.isalnum() and not macro) or before in _NAME_BEFORE or (before == "{" and text[max(0, start - 2):start - 1] in ("^", "_")):
            continue
        if m.group("sign") == "-" and start and text[start - 1] == "-":
            continue
        after = text[m.end():m.end() + 12]
        seconds = bool(_GLUED_SECONDS.match(after)) and "." in m.group(0) and not m.group("b")  # "38.4s"
        if (after[:1].isalnum() and not seconds) or after[:1] in ("^", "_") or re.match(r"\.\d", after):
            continue
        if after[:1] == "-" and after[1:2].isalpha() and not _HYPHEN_WORDS.match(after):
            continue
        if _NOT_BEFORE.search(text[max(0, start - 14):start]):
            continue
        segment = next(((s, e) for s, e in math if s < m.start("a") < e), None)
        if segment and _MATH_ALLOWED.sub("", text[segment[0]:start] + text[m.end():segment[1]]).strip():
            continue
        sign = {"−": "-", "＋": "+"}.get(m.group("sign") or "", m.group("sign") or "")
        scale = _SCALE[m.group("scale").strip()] if m.group("scale") else 1.0
        if m.group("slash"):
            parts = [m.group("a"), *m.group("slash")[1:].split("/")]
            unit = _unit_of(m.group("us"))
            word = None if unit else _UNIT_WORD.match(text, m.end())
            unit = (word.group("word") or ("x" if word.group("times") else "pp")) if word else unit
            if not unit and all("." not in p for p in parts):
                continue  # "110/123": a count, or a fraction
            pos = m.start("a")
            for part in parts:
                s = text.index(part, pos)
                e = s + len(part) + (len(m.group("us")) if part == parts[-1] and m.group("us") else 0)
                out.append(_Number(s, e, _float(part), _float(part), unit, sign if s == m.start("a") else "", word.end() if word and part == parts[-1] else e))
                pos = s + len(part)
            continue
        low = _float(m.group("a")) * scale
        high = _float(m.group("b")) * scale if m.group("b") else low
        unit = _unit_of(m.group("ub") or m.group("ua"))
        end = m.end()
        if low > high:
            low, high = high, low
        if end > start and text[end - 1].isspace():
            end -= 1
        tail = end + len(_CLOSE.match(text, end).group(0))  # type: ignore[union-attr]
        outside = re.match(r"\\?%|×|\\times", text[tail:tail + 6]) if tail > end and not unit else None
        if outside:  # "$>4$%": the unit follows the math, outside the value
            unit, tail = _unit_of(outside.group(0)), tail + outside.end()
        word = _UNIT_WORD.match(text, tail)
        if word:
            if word.group("pp"):
                # "percentage points", "pp", "-point", and "points" after a percentage are points of a
                # percentage; "3.0 points" of a plain score stays "points"
                plain = not unit and word.group(0).startswith(" ") and not word.group("pp").startswith(("percentage", "pp"))
                unit = "points" if plain else "pp"
            elif word.group("times"):
                unit = "x"
            elif not unit:
                unit = word.group("word")
            tail = word.end()
        if seconds:
            unit, end = "s", end + 1
            tail = end
        if unit == "x" and re.match(r"[\s${}]*\d", text[tail:tail + 6]):
            continue  # "1024 × 1024", "3 $\times$ 3": a product of sizes, not a ratio
        times = None if unit or sign else _TIMES_BEFORE.search(text, max(0, start - 8), start)
        if times and not re.search(r"\d[\s$}{]*$", text[max(0, times.start() - 12):times.start()]):
            unit, start = "x", times.start()  # "×3.12", "$\times 550$"; not "1024 × 1024"
        out.append(_Number(start, end, low, high, unit, sign, tail))
    return out


# ── fields ──────────────────────────────────────────────────────────────────────────────────────
def _words(phrase: str) -> str | None:
    """A phrase without extra spaces, edge punctuation and a leading article; None if it names nothing."""
    phrase = re.sub(r"\s+", " ", phrase).strip(" ,.;:-*$")
    phrase = re.sub(r"^(?:the|its|their|our|a|an|and|or|of)\s+", "", phrase, flags=re.I)
    return phrase if re.search(r"[^\W\d_]{2}", phrase) and phrase.lower() not in {"it", "this", "they", "we"} else None


def _metric_name(phrase: str | None) -> str | None:
    """A metric phrase in canonical form: no evaluative adjective before it, no change noun after it,
    singular ("new state-of-the-art accuracies" -> "accuracy", "accuracy gain" -> "accuracy")."""
    if not phrase:
        return None
    phrase = _EVALUATIVE.sub("", re.sub(r"\\[()]|[{}]", "", re.sub(r"_\{(\w+)\}|_(?=\d)", r"\1", phrase)).strip())
    phrase = re.sub(rf"\s+(?:{_UP}|{_DOWN})$", "", phrase, flags=re.I)
    words = phrase.split()
    if not words:
        return None
    last = words[-1]
    if re.search(r"[a-z]ies$", last):
        last = last[:-3] + "y"
    elif re.search(r"[a-z]{2}[^suiy']s$|[A-Z]{2,}s$", last) and last not in ("FLOPs",):
        last = last[:-1]
    return " ".join([*words[:-1], last]) or None


_SPEEDUP = re.compile(r"\bspeed-?ups?$", re.I)


def from_to_side(text: str, start: int, end: int) -> str | None:
    """Which end of "from 4.6% to 16.4%" the number at ``start:end`` is, if either: "from" is
    most often the baseline's score, "to" the method's.

        >>> t = "raises accuracy from 4.6% to 16.4%"
        >>> from_to_side(t, 21, 25), from_to_side(t, 29, 34), from_to_side("by 3%", 3, 5)
        ('from', 'to', None)
    """
    if _FROM.search(text[max(0, start - 30):start]) and _TO_AFTER.match(text[end:end + 60]):
        return "from"
    if _TO_BEFORE.search(text[max(0, start - 80):start]):
        return "to"
    return None


def speed_for_speedup(metric: str) -> str:
    """A metric in the guidelines' form: a speedup measures the speed it raises ("inference speedup"
    -> "inference speed")."""
    return _SPEEDUP.sub("speed", metric)


def _metric_after(text: str, n: _Number, stop: int, loose: bool = False) -> str | None:
    """The quantity named right after the number: "84.1% top-1 accuracy", "23.4% higher complexity",
    "9% in Recall@100", "2.79% (AUROC)"; ``loose`` also takes any phrase after "in"
    ("10% improvement in task precision"), weaker evidence than a verb before the number."""
    rest = text[n.tail:stop]
    paren = re.match(r"\s*\(([^()]{1,30})\)", rest)
    if paren and (_is_metric(paren.group(1)) or re.fullmatch(r"[A-Z][\w@-]+", paren.group(1))):
        return paren.group(1)
    lead = _AFTER_LEAD.match(rest)
    assert lead is not None  # every part of the pattern is optional
    np = _NP.match(rest, lead.end())
    phrase = _words(np.group(1)) if np else None
    if not phrase:
        return "speed" if re.match(r"speed-?ups?$", (lead.group("change") or "").strip(), re.I) else None
    phrase = speed_for_speedup(phrase)
    prep = (lead.group("prep") or "").strip().lower()
    if metric_spans(phrase, 0, len(phrase)) or phrase.endswith(")") or (lead.group("change") and not prep):
        return phrase
    if loose and prep in ("in", "in terms of") and not re.search(r"\d|[a-z][A-Z]|[A-Z][a-z]+-?[A-Z]", phrase):
        return phrase
    return None


def _metric_before(text: str, lo: int, n: _Number) -> str | None:
    """The quantity a verb changes ("reduces retraining cost by 20×") or a score names ("precision of 0.98")."""
    seg = text[lo:n.start]
    by = _BY.search(seg)
    if by:
        head = seg[:by.start()]
        verbs = list(_CHANGE.finditer(head))
        if verbs and _BEATS.match(verbs[-1].group(0)):
            return None  # "outperforms X by 3%": X is the baseline, not the quantity
        cut = verbs[-1].end() if verbs else max(head.rfind(","), head.rfind(";"), 0)
        np = re.split(r"\s+(?:on|of|for|in|across|with|under|at|from|over|when|via|using|compared|relative)(?![\w-])", head[cut:], flags=re.I)[0]
        np = re.split(r"\s(?:and|or)\s", re.sub(r"\\(?:textbf|mathbf)\{|\}", "", np))[-1]
        return _words(" ".join(np.split()[-4:]))
    of = _OF_BEFORE.search(seg)
    if of:
        known = metric_spans(of.group(1), 0, len(of.group(1)))
        if known:
            return _words(of.group(1)[known[0][0]:])
        verb = re.search(r"\b(?:achiev|attain|reach|obtain)\w*\s+(?:an?\s+|the\s+)?((?:[^\s,.;:]+\s+){0,3}?[^\s,.;:]+)\s+of\s*$", seg)
        if verb and not _CHANGE.search(verb.group(1)):
            return _words(verb.group(1))
    return None


def _nearest(spans: Sequence[tuple[int, int, object]], n: _Number) -> tuple[int, int, object] | None:
    """The span closest to the number, a span after it counting a little further than one before."""
    def distance(s: tuple[int, int, object]) -> int:
        return n.start - s[1] if s[1] <= n.start else 2 * (s[0] - n.end) + 5
    return min(spans, key=distance, default=None)


_LIST_GAP = re.compile(r"[\s$}*)]*(?:,|and|or|to|vs\.?|/|,\s*and)\s*[\s${(*]*(?:\\(?:textbf|mathbf)\{)?(?:-\s*)?", re.I)
"""Between two numbers of one list ("74.41% and 54.59%", "55, 67, 86%", "from 10 to 98%")."""


@dataclass(frozen=True, slots=True)
class _Window:
    """Where a number's cue words are looked for: from the previous number (``lo``) to the next
    (``stop``), inside its sentence clipped to ``_REACH`` characters each side (``s_lo``, ``s_hi``),
    so that a run-on "sentence" of numbers costs linear time; ``sentence`` is the sentence itself."""

    lo: int
    stop: int
    s_lo: int
    s_hi: int
    sentence: tuple[int, int]


_REACH = 400


_NUMBER_LIST = re.compile(r"(?:[\s,.%$+×–{}\\-]|\d|and|on|in|across|for|respectively|times|x)*(?:the\s+)?")
"""The rest of a list of numbers up to the names they are on: "5.7% and 8.3% on [GSM8K]"."""
_PARALLEL = re.compile(r"[^.;:]{0,50}?(?:,|\band\b)\s*(?:up ?to\s*|an?\s+)?[\s*{}$(]*(?:\\(?:textbf|mathbf)\{)?", re.I)
_NOT_PARALLEL = re.compile(r"\b(?:achiev|reach|attain|obtain|maintain|preserv|is|are|was|were|has|have|with|while|compared|versus|vs|from|to)\w*\b", re.I)
"""A gap between two numbers of one list of changes, and the words that start a new statement instead."""
_CLAUSE_BREAK = re.compile(r";|,\s+(?:while|whereas|but|and|with)\b|\s(?:while|whereas|without)\s|\band\s+(?:an?\s+)?(?=[+\-−]?\d|\$)", re.I)
"""Where a clause of a sentence ends, for the names that belong to one number."""
_Name = tuple[str, int | None] | None
"""A name as written and the index of its mention, if it is one."""


@dataclass(frozen=True, slots=True)
class _Context:
    """What the fields of every number in one abstract draw on."""

    text: str
    mentions: Sequence[Mention]
    proposed: _Name
    benchmark: _Name


def _proposed(text: str, mentions: Sequence[Mention], relations: Sequence[Relation]) -> tuple[_Name, _Name]:
    """The paper's own method and the benchmark it introduces: the PROPOSES tails (a method by its
    shortest surface form, an acronym); without one, a name the abstract defines or introduces with
    a propose verb, else its most repeated name-like token; a name written like a benchmark, or
    called one, is the benchmark."""
    method: _Name = None
    benchmark: _Name = None
    for r in relations:
        if r.head is None and r.label.upper() == "PROPOSES" and 0 <= r.tail < len(mentions):
            tail = mentions[r.tail]
            same = [i for i, m in enumerate(mentions) if m.canonical == tail.canonical and m.label == tail.label] or [r.tail]
            name = _acronym_of(text, mentions, min(same, key=lambda i: (len(mentions[i].text), i)))
            if tail.label == "Dataset":
                benchmark = benchmark or name
            else:
                method = method or name
    if method or benchmark:
        return method, benchmark
    name = None
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        cue = _PROPOSE.search(sentence)
        if not cue:
            continue
        appositive = _APPOSITIVE.match(sentence, cue.end())
        acronym = _ACRONYM_DEF.search(sentence)
        after = _NAME_LIKE.search(sentence, cue.end())
        found = [appositive.group(2) or appositive.group(1) if appositive else None,
                 acronym.group(1) if acronym else None, after.group(0) if after else None]
        name = next((x for x in found if x and x not in _NOT_NAMES), None)
        if name:
            break
    if name is None:
        counts = Counter(m.group(0) for m in _NAME_LIKE.finditer(text)
                         if m.group(0) not in _NOT_NAMES and not _MODEL_FAMILY.match(m.group(0)) and not _is_metric(m.group(0)))
        common = counts.most_common(1)
        name = common[0][0] if common and common[0][1] >= 2 else None
    if name is None:
        return None, None
    at = text.find(name)
    found: _Name = (name, next((i for i, m in enumerate(mentions) if m.start <= at < m.end and m.text == name), None))
    called = any(_CALLED_BENCHMARK.match(text, at + len(name)) for at in _occurrences(text, name))
    return (None, found) if _NOT_METHOD.search(name) or called else (found, None)


def _occurrences(text: str, name: str) -> list[int]:
    out, at = [], text.find(name)
    while at >= 0:
        out.append(at)
        at = text.find(name, at + 1)
    return out


def _acronym_of(text: str, mentions: Sequence[Mention], index: int) -> _Name:
    """The name the abstract uses for mention ``index``: the acronym it defines in parentheses after
    the long form ("Dynamic Hierarchy-Aware Mechanism (DHAM)"), as a mention if it is one."""
    key = mentions[index].canonical
    for long in mentions:
        acronym = _ACRONYM_AFTER_NAME.match(text, long.end) if long.canonical == key else None
        if acronym:
            at = acronym.start(1)
            return acronym.group(1), next((k for k, m in enumerate(mentions) if m.start == at), None)
    return mentions[index].text, index


def _candidate_names(ctx: _Context, lo: int, hi: int, labels: tuple[str, ...]) -> list[tuple[int, int, int | None]]:
    """(start, end, mention index) of method names in [lo, hi), in text order: mentions of the labels,
    and name-like tokens outside every mention (with the words that continue a model name: "Gemini-2.5
    Pro", "Llama-4 17B") that are not datasets of the span; mentions miss names, tokens fill in."""
    found = [(m.start, m.end, i) for i, m in enumerate(ctx.mentions) if m.label in labels and lo <= m.start and m.end <= hi]
    datasets = {x[0] for x in _dataset_names(ctx, lo, hi)}
    for m in _NAME_LIKE.finditer(ctx.text, lo, hi):
        if _NOT_NAME.match(m.group(0)) is None and m.start() not in datasets and not _in_mention(ctx, m.start(), m.end()):
            more = _NAME_CONTINUES.match(ctx.text, m.end(), hi)
            found.append((m.start(), more.end() if more else m.end(), None))
    return sorted(found)


def _in_mention(ctx: _Context, start: int, end: int) -> bool:
    return any(m.start < end and start < m.end for m in ctx.mentions)


def _method(ctx: _Context, n: _Number, s_lo: int, position: int, respectively: bool) -> tuple[str | None, int | None]:
    """Who reached the number: a name in parentheses beside it, else the subject of a result verb
    before it in its sentence (a mention, or a name-like token when there are none), else the
    paper's own method."""
    text = ctx.text
    labels = ("Method", "Model")
    paren = re.match(r"\s*\(\s*([^()]{2,40}?)\s*\)", text[n.tail:n.tail + 50])
    if paren:
        names = _candidate_names(ctx, n.tail, n.tail + paren.end(), labels)
        if names:
            s, e, i = names[0]
            return text[s:e], i
    if re.search(r"\(\s*[\w\s~<>≈$\\]{0,12}$", text[max(0, n.start - 14):n.start]):
        open_at = text.rfind("(", 0, n.start)
        names = [x for x in _candidate_names(ctx, max(s_lo, open_at - 45), open_at + 1, labels) if x[1] >= open_at - 2]
        if names:
            s, e, i = names[-1]
            return text[s:e], i
    found = [x for x in _candidate_names(ctx, s_lo, n.start, labels) if not _not_a_method(text[x[0]:x[1]])]
    subjects = [x for x in found if _SUBJECT_VERB.match(text, x[1]) and not _BASELINE_BEFORE.search(text[max(s_lo, x[0] - 30):x[0]])]
    free = [x for x in subjects if not _SETTING_BEFORE.search(text[max(s_lo, x[0] - 30):x[0]])]
    own_named = ctx.proposed is not None and ctx.proposed[0] in text[s_lo:n.start]
    # "fine-tuning with MIS increases": a subject after "with" only when no other name can be it
    subjects = free or ([] if own_named else subjects)
    names = [x for x in found if not _SETTING_BEFORE.search(text[max(s_lo, x[0] - 30):x[0]])]
    own = [m.start() for m in _OWN.finditer(text, s_lo, n.start)]
    if subjects and not (own and own[-1] > subjects[-1][1]):
        group = _group(text, [x for x in found if x[0] <= subjects[-1][0]])
        s, e, i = group[position % len(group)] if respectively else subjects[-1]
        return text[s:e], i
    phrase = None if ctx.mentions else _SUBJECT_PHRASE.search(text, s_lo, n.start)
    if phrase and not _OWN.search(phrase.group(1)) and not _SETTING_BEFORE.search(text[max(s_lo, phrase.start() - 30):phrase.start()]):
        return phrase.group(1), None
    if ctx.mentions and names and not own:
        s, e, i = names[0]
        return text[s:e], i
    if ctx.proposed:
        return ctx.proposed
    return None, None


def _group(text: str, names: list[tuple[int, int, int | None]]) -> list[tuple[int, int, int | None]]:
    """The last names of a list joined by "and" / commas ("DeepSeek-R1 and DeepSeek-V3"), in order."""
    group = [names[-1]]
    for x in reversed(names[:-1]):
        if not re.fullmatch(r"[\s}*]*(?:,|and|,\s*and)\s*[{*\s]*", text[x[1]:group[0][0]]):
            break
        group.insert(0, x)
    return group


def _is_metric(name: str) -> bool:
    """A metric written like a name ("FID", "ASR", "pass@1")."""
    return metric_spans(name, 0, len(name))[:1] == [(0, len(name))]


def _not_a_method(name: str) -> bool:
    """A benchmark or a metric written like a name ("VST-Bench", "FID")."""
    return bool(_NOT_METHOD.search(name)) or _is_metric(name)


def _baseline(ctx: _Context, n: _Number, window: _Window) -> tuple[str | None, int | None]:
    """What a change is measured against: the name after "over / than / compared to", or the object
    of "outperforms" before the number; "prior state of the art" when only that is said."""
    text, s_lo, s_hi = ctx.text, window.s_lo, window.s_hi
    cues = [m for m in _BASELINE_CUE.finditer(text, n.tail, s_hi) if m.start() - n.tail < 120]
    cues += reversed([m for m in _BASELINE_CUE.finditer(text, s_lo, n.start)
                      if re.match(r"outperform|surpass|beat|compared|relative|versus|vs", m.group(0), re.I)])
    for cue in cues:
        after = text[cue.end():s_hi]
        if _SOTA.match(re.sub(r"^(?:the|a|an|previous|prior|current)\s+", "", after, flags=re.I)):
            return "prior state of the art", None
        names = _candidate_names(ctx, cue.end(), min(s_hi, cue.end() + 40), ("Method", "Model"))
        if names and ctx.mentions and names[0][0] - cue.end() < 12:
            s, e, i = names[0]
            return text[s:e], i
        np = _NP.match(re.sub(r"^\s*\d[\d,]*\+?\s+", " ", after))  # "outperform 600 native annotations"
        phrase = _words(np.group(1)) if np else None
        if phrase and not re.match(r"^\d", phrase):
            return phrase, None
    return None, None


def _dataset(
    ctx: _Context, n: _Number, window: _Window, position: int, respectively: bool, listed: Result | None, method: str | None
) -> tuple[str | None, int | None]:
    """The benchmark of the number: a Dataset mention (else a capitalised name after "on / in / across"
    or before "benchmark") right after it, else the nearest in its clause; the benchmark the paper
    introduces when the clause names none.  A list of names ("on GSM8K and MATH") is one record's
    datasets, or one each with "respectively"."""
    text = ctx.text
    lo, hi = _clause(text, n, window)
    spans = [x for x in _dataset_names(ctx, window.s_lo, window.s_hi)
             if not _BASELINE_BEFORE.search(text[max(window.s_lo, x[0] - 30):x[0]]) and text[x[0]:x[1]] != method]
    after = [x for x in spans if n.tail <= x[0] < window.stop and x[0] - n.tail < 30]
    after = after or [x for x in spans if x[0] >= n.tail and _NUMBER_LIST.fullmatch(text, n.tail, x[0])][:1]
    if after:
        group = [after[0]]
        for x in spans:
            if x[0] > group[-1][0] and re.fullmatch(r"[\s}*]*(?:,|and|,\s*and)\s*[{*\s]*", text[group[-1][1]:x[0]]):
                group.append(x)
        if respectively and len(group) > 1:
            s, e, i = group[position % len(group)]
            return text[s:e], i
        if len(group) > 1:
            return ", ".join(text[s:e] for s, e, _ in group), group[0][2]
        return text[after[0][0]:after[0][1]], after[0][2]
    hit = _nearest([x for x in spans if lo <= x[0] < hi], n)
    before = [x for x in spans if x[1] <= n.start]
    if respectively and len(before) > 1:
        group = _group(text, before)
        if len(group) > 1:
            s, e, i = group[position % len(group)]
            return text[s:e], i
    if hit:
        return text[hit[0]:hit[1]], hit[2]  # type: ignore[return-value]
    if listed and listed.dataset:
        return listed.dataset, listed.dataset_entity
    if before:  # "Experiments on ImageNet-1K show ..., gains of 3%": the sentence's benchmark, across a clause break
        group = _group(text, before)
        return ", ".join(text[s:e] for s, e, _ in group), group[0][2]
    return ctx.benchmark or (None, None)


def _dataset_names(ctx: _Context, lo: int, hi: int) -> list[tuple[int, int, int | None]]:
    """Dataset mentions in text[lo:hi], else names after "on / in / across" or before "benchmark",
    with the names listed after them, that are not models, metrics or the paper's method."""
    text = ctx.text
    own = ctx.proposed[0] if ctx.proposed else None
    # a Dataset mention written without a capital or a digit ("public benchmarks") is a description
    spans = [(m.start, m.end, i) for i, m in enumerate(ctx.mentions)
             if m.label == "Dataset" and lo <= m.start < hi and re.search(r"[A-Z\d]", m.text)]
    for m in _DATASET_CUE.finditer(text, lo, hi):
        g = 1 if m.group(1) else 2
        name = m.group(g).rstrip(".")
        if re.match(r"\s+(?:metrics?|scores?)\b", text[m.start(g) + len(name):]):
            continue  # "in PPA metrics"
        if g == 1 and not re.search(r"[A-Z].*[A-Z0-9]|\d", name) and not re.search(r"(?:benchmark|dataset)s?\s*$", m.group(0)):
            continue
        end = m.start(g) + len(name)
        spans.append((m.start(g), end, None))
        for x in _NAME_LIKE.finditer(text, end, min(hi, end + 80)):
            gap = text[spans[-1][1]:x.start()]
            if not re.fullmatch(r"[\s$]*(?:,|and|,\s*and)\s*[$\s]*", gap) or ("and" not in gap and _SUBJECT_VERB.match(text, x.end())):
                break  # "on X, Y and Z" lists datasets; "On X, PGMs offer" starts a clause
            spans.append((x.start(), x.end(), None))
    return sorted(x for x in spans if x[2] is not None or (_dataset_like(text[x[0]:x[1]], own) and not _in_mention(ctx, x[0], x[1])))


def _dataset_like(name: str, own: str | None) -> bool:
    """A capitalised name that is not the paper's method, a metric or a model family."""
    tokens = name.split()
    return not (name == own or _is_metric(name) or tokens[0] in _PRONOUNS
                or any(t in _NOT_NAMES or _MODEL_FAMILY.match(t) for t in tokens)
                or not re.search(r"[A-Z].*[A-Z\d]|[A-Z][a-z]+[A-Z]|^[A-Z][a-z]+$", name))


def _clause(text: str, n: _Number, window: _Window) -> tuple[int, int]:
    """The clause of the number inside its sentence: cut at ";" and at ", while / whereas / but"."""
    lo, hi = window.s_lo, window.s_hi
    for m in _CLAUSE_BREAK.finditer(text, window.s_lo, window.s_hi):
        if m.end() <= n.start:
            lo = m.end()
        elif m.start() >= n.tail:
            hi = m.start()
            break
    return lo, hi


# ── the decision and the records ────────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Evidence:
    """A number with the text around it, as the cues of ``_CUES`` read it."""

    text: str
    n: _Number
    before: str  # from the previous number (or the sentence start) to this one
    after: str  # from the end of its unit words to the next number (or the sentence end)
    lo: int
    near: str  # the end of ``before``, for cues that end at the number (cheaper to search)


_CUES: tuple[tuple[int, str, Callable[[_Evidence], bool]], ...] = (
    (2, "a percent, ratio or points unit", lambda e: e.n.unit in ("%", "x", "pp")),
    (1, "a measurement unit word (ms, fps, Hz, points)", lambda e: e.n.unit not in ("", "%", "x", "pp")),
    (2, "a metric name right after it", lambda e: bool((k := metric_spans(e.after, 0, 40))) and not e.after[:k[0][0]].strip(" $*}-()")),
    (2, "a metric named before it (precision of, reduces X by)", lambda e: e.n.unit not in ("%", "x") and bool(_metric_before(e.text, e.lo, e.n))),
    (1, "a change word beside it", lambda e: bool(_CHANGE_AFTER.match(e.after) or _cue_before(e.before))),
    (1, "a sign", lambda e: bool(e.n.sign)),
    (1, "a result verb right before it (achieves, reaches, runs at)", lambda e: bool(_RESULT_VERB.search(e.near))),
    (1, "a bounding qualifier before it (up to, over, about)", lambda e: bool(_QUALIFIER.search(e.near[-40:]))),
    (1, "a decimal fraction (counts are whole)", lambda e: not e.n.low.is_integer()),
    (1, "an acronym right after or before it (72.32 MUSIQ, STD 0.05)", lambda e: bool(_ACRONYM_AFTER.match(e.after) or _ACRONYM_BEFORE.search(e.near))),
    (1, "a bare number of a from-to pair", lambda e: not e.n.unit and bool(_FROM.search(e.near) or _TO_AFTER.match(e.after))),
    (1, "a metric named shortly before it", lambda e: bool(metric_spans(e.before, max(0, len(e.before) - 40), len(e.before)))),
    (-2, "a setting share after a percentage (70% sparsity, 1.2% of the parameters)", lambda e: e.n.unit == "%" and bool(_SETTING_AFTER.match(e.after))),
    (-3, "an enumerator: (1)", lambda e: e.before.endswith("(") and e.text[e.n.end:e.n.end + 1] == ")" and e.n.low < 10 and not e.n.unit),
    (-3, "a count noun after a bare number or ratio (12 datasets, 5-fold cross-validation)", lambda e: e.n.unit in ("", "x") and bool(_COUNT_NOUNS.match(e.after))),
    (-2, "a setting before it (using, for, every, per)", lambda e: bool(_SETTING_NUMBER.search(e.near))),
    (-5, "a year", lambda e: not e.n.unit and e.n.low == e.n.high and e.n.low.is_integer() and 1900 <= e.n.low <= 2099),
    (-5, "a citation", lambda e: bool(re.search(r"\[[\d,\s–-]*$", e.near)) and e.text[e.n.end:e.n.end + 1] in ("]", ",")),
)
"""Evidence that a number reports an outcome, with its weight; a total of 2 or more keeps it."""


def _cues_holding(text: str, n: _Number, lo: int, stop: int) -> tuple[int, ...]:
    """The places in ``_CUES`` of the cues that hold for the number."""
    evidence = _Evidence(text, n, text[lo:n.start], text[n.tail:stop], lo, text[max(lo, n.start - 60):n.start])
    return tuple(i for i, (_, _, holds) in enumerate(_CUES) if holds(evidence))


@dataclass(frozen=True, slots=True)
class NumberReading:
    """A number of an abstract as the detector reads it: the unit it takes (a bare number listed
    before a "%" one takes the "%"), where its cue words are looked for, the cues that hold (places
    in ``_CUES``) and their hand score."""

    number: _Number
    unit: str
    window: _Window
    cues: tuple[int, ...]
    score: int
    after_list: bool  # right after another number of its sentence, across a list gap ("55, 67, 86%")


def number_readings(text: str, sentences: Sequence[tuple[int, int]] | None = None) -> list[NumberReading]:
    """Every number of ``text`` that is not part of a name, formula or reference, read in its sentence."""
    if not _NUMBER.search(text):
        return []
    math = math_segments(text)
    spans = list(sentences) if sentences is not None else sentence_spans(text, math)
    numbers = _numbers(text, math)
    units = [n.unit for n in numbers]  # a bare number listed before a "%" or "×" one takes its unit
    for k in range(len(numbers) - 2, -1, -1):
        if not units[k] and units[k + 1] in ("%", "x") and _LIST_GAP.fullmatch(text, numbers[k].tail, numbers[k + 1].start):
            units[k] = units[k + 1]
    out = []
    for k, n in enumerate(numbers):
        sentence = next(((s, e) for s, e in spans if s <= n.start < e), (0, len(text)))
        prev_num = numbers[k - 1] if k and numbers[k - 1].start >= sentence[0] else None
        nxt = numbers[k + 1] if k + 1 < len(numbers) and numbers[k + 1].start < sentence[1] else None
        s_lo, s_hi = max(sentence[0], n.start - _REACH), min(sentence[1], n.tail + _REACH)
        window = _Window(max(s_lo, prev_num.tail if prev_num else 0), min(s_hi, nxt.start if nxt else s_hi), s_lo, s_hi, sentence)
        cues = _cues_holding(text, n, window.lo, window.stop)
        score = sum(_CUES[i][0] for i in cues)
        if units[k] != n.unit:
            score += 2  # "55, 67, 86%", "from 10 to 98%": a listed number with the unit of the last
        after_list = bool(prev_num and _LIST_GAP.fullmatch(text, prev_num.tail, n.start))
        out.append(NumberReading(n, units[k], window, cues, score, after_list))
    return out


DETECTION_HEAD = "result"
"""The detector's one head in ``result_detector.json``: is this number a reported result?"""
_CONTEXT_WORD = re.compile(r"[a-z]+|[A-Z][\w-]*|\d+|[%×$(\[]")


def detection_features(text: str, reading: NumberReading) -> list[str]:
    """What the detector weighs: which cues of ``_CUES`` hold (by place in the table), the hand score,
    the unit and sign, and the two words each side."""
    n = reading.number
    before = [w.lower() for w in _CONTEXT_WORD.findall(text, max(0, n.start - 40), n.start)[-2:]]
    after = [w.lower() for w in _CONTEXT_WORD.findall(text, n.tail, n.tail + 40)[:2]]
    return [*(f"cue{i}" for i in reading.cues),
            f"score={max(-3, min(reading.score, 5))}", f"unit={reading.unit}", f"own_unit={n.unit == reading.unit}",
            f"sign={n.sign}", f"after_list={reading.after_list}", f"b1:{before[-1] if before else ''}",
            f"b2:{' '.join(before)}", f"a1:{after[0] if after else ''}", f"a2:{' '.join(after)}"]


def find_results(
    text: str,
    mentions: Sequence[Mention] = (),
    relations: Sequence[Relation] = (),
    sentences: Sequence[tuple[int, int]] | None = None,
    detector: LinearHeads | None = None,
) -> tuple[Result, ...]:
    """Every reported result of an abstract, in text order, per ``results-GUIDELINES.md``.

    ``mentions`` (and the paper-level PROPOSES relation among ``relations``) give the names; without
    them the names come from cue words and name-like tokens.  ``sentences`` defaults to a split of
    the text.  A number is kept when ``detector`` (weights learnt from annotated results, shipped
    with the in-domain model) says so, else when its cues' hand weights add up to 2.

    Example:
        >>> r = find_results("HART improves top-1 accuracy by 3.7% over ViT on ImageNet.")[0]
        >>> r.text, r.kind, r.direction, r.metric, r.method, r.baseline, r.dataset
        ('3.7%', 'change', 'up', 'top-1 accuracy', 'HART', 'ViT', 'ImageNet')
    """
    readings = number_readings(text, sentences)
    if not readings:
        return ()
    ctx = _Context(text, mentions, *_proposed(text, mentions, relations))
    out: list[Result] = []
    previous: dict[int, tuple[_Number, Result, int]] = {}  # per sentence: last kept number, its record, list position
    for k, reading in enumerate(readings):
        n, unit, window, score = reading.number, reading.unit, reading.window, reading.score
        sentence = window.sentence
        prev = previous.get(sentence[0])
        joined = bool(prev and reading.after_list and prev[0] is readings[k - 1].number)
        if joined and prev and not unit:
            unit, score = prev[1].unit, max(score, 2)
        if detector is not None:
            confidence = detector.probability(DETECTION_HEAD, detection_features(text, reading))
            keep = confidence >= detector.thresholds[DETECTION_HEAD]
        else:
            confidence, keep = min(1.0, 0.25 * score), score >= 2
        if not keep:
            continue
        position = prev[2] + 1 if joined and prev else 0
        result = _fields(ctx, n, unit, window, prev[1] if prev else None, joined, position, round(confidence, 4))
        out.append(result)
        previous[sentence[0]] = (n, result, position)
    return _with_default_metric(_share_kind(text, out))


def _share_kind(text: str, results: list[Result]) -> list[Result]:
    """Numbers of one list are changes together: a score listed right after a change ("by 12.2% on
    PTB and 9.4% on WT2") or right before one ("up to 92% and 98% degradation") becomes one."""
    out = list(results)
    for k in range(1, len(out)):
        a, b = out[k - 1], out[k]
        if a.sentence_start != b.sentence_start or a.kind == b.kind:
            continue
        gap = text[a.end:b.start]
        if a.kind == "change" and _PARALLEL.fullmatch(gap) and not _NOT_PARALLEL.search(gap):
            out[k] = replace(b, kind="change", direction=a.direction, low=abs(b.low), high=abs(b.high))
        elif b.kind == "change" and _LIST_GAP.fullmatch(gap):
            out[k - 1] = replace(a, kind="change", direction=b.direction, low=abs(a.low), high=abs(a.high))
    return out


def _with_default_metric(results: list[Result]) -> tuple[Result, ...]:
    """Records whose sentence names no metric take the abstract's: the one its other results name most."""
    named = Counter(r.metric for r in results if r.metric)
    if not named:
        return tuple(results)
    metric = named.most_common(1)[0][0]
    entity = next(r.metric_entity for r in results if r.metric == metric)
    return tuple(r if r.metric else replace(r, metric=metric, metric_entity=entity) for r in results)


def _fields(
    ctx: _Context, n: _Number, unit: str, window: _Window, previous: Result | None, joined: bool, position: int,
    confidence: float,
) -> Result:
    """The record of one kept number: kind, direction, qualifier and names from the words around it;
    a number listed after another ("by 14.1% and 7.64%") shares what it does not say itself."""
    text = ctx.text
    listed = previous if joined else None
    metric, metric_entity = _metric(ctx, n, window, listed or previous)
    kind, direction = _kind(text, n, unit, window, metric, listed)
    respectively = "respectively" in text[window.s_lo:window.s_hi]
    method, method_entity = _method(ctx, n, window.s_lo, position, respectively)
    if listed and listed.method and (method, method_entity) == ctx.proposed:
        method, method_entity = listed.method, listed.method_entity
    baseline, baseline_entity = _baseline(ctx, n, window) if kind == "change" else (None, None)
    dataset, dataset_entity = _dataset(ctx, n, window, position, respectively, listed, method)
    change = kind == "change"
    return Result(
        start=n.start, end=n.end, text=text[n.start:n.end], low=abs(n.low) if change else n.low,
        high=abs(n.high) if change else n.high, unit=unit, kind=kind, direction=direction,
        qualifier=_qualifier(text, n, window, listed), method=method, baseline=baseline, metric=metric,
        dataset=dataset, method_entity=method_entity, baseline_entity=baseline_entity, metric_entity=metric_entity,
        dataset_entity=dataset_entity, sentence_start=window.sentence[0], sentence_end=window.sentence[1], rule=RULE,
        confidence=confidence,
    )


def _metric(ctx: _Context, n: _Number, window: _Window, listed: Result | None) -> tuple[str | None, int | None]:
    """The measured quantity: named beside the number, else a Metric mention in its clause, else the
    one of the number before it in the sentence, else a known metric name in its clause."""
    text = ctx.text
    local = _metric_name(_metric_after(text, n, window.stop) or _metric_before(text, window.lo, n)
                         or _metric_after(text, n, window.stop, loose=True))
    if local:
        return local, None
    if n.unit in _UNIT_METRICS:
        return _UNIT_METRICS[n.unit], None
    lo, hi = _clause(text, n, window)
    if ctx.mentions:
        hit = _nearest([(m.start, m.end, i) for i, m in enumerate(ctx.mentions) if m.label == "Metric" and lo <= m.start < hi], n)
        if hit:
            return text[hit[0]:hit[1]], hit[2]  # type: ignore[return-value]
    if listed and listed.metric:
        return listed.metric, listed.metric_entity
    hit = _nearest([(s, e, None) for s, e in metric_spans(text, lo, hi)], n)
    return (_metric_name(text[hit[0]:hit[1]]), None) if hit else (None, None)


def _kind(text: str, n: _Number, unit: str, window: _Window, metric: str | None, listed: Result | None) -> tuple[str, str | None]:
    """Score or change, and the way a change goes: a change word beside the number wins, a generic one
    ("improves", "better") goes the metric's better way ("improves FDE by 30%" is down); a sign, a
    ratio or "by" make a change; "from X to Y" gives two scores."""
    before, after = text[window.lo:n.start], text[n.tail:window.stop]
    from_to = bool(_FROM.search(text[max(window.s_lo, n.start - 30):n.start])) or bool(
        listed and listed.kind == "score" and _FROM.search(text[max(window.s_lo, listed.start - 30):listed.start])
    )
    if from_to:
        return "score", None
    cue = _CHANGE_AFTER.match(after) or _cue_before(before)
    if cue:
        up = cue.group("up")
        if up and _GENERIC.match(up) and metric and better_direction(metric) == "down":
            return "change", "down"
        return "change", "down" if n.sign == "-" or not up else "up"
    if n.sign in ("+", "-") or unit in ("x", "pp") or _BY.search(before) or re.match(r"[\s*}$)]*over\b", after):
        return "change", "down" if n.sign == "-" or (unit == "x" and n.high < 1) else "up"
    if listed and listed.kind == "change":
        return "change", listed.direction
    return "score", None


def _qualifier(text: str, n: _Number, window: _Window, listed: Result | None) -> str | None:
    """The word group that bounds the number: "up to", "over", "below", "about" or "average"."""
    q = _QUALIFIER.search(text[max(window.s_lo, n.start - 40):n.start])
    if q:
        return next(name for i, (name, _) in enumerate(_QUALIFIERS) if q.group(f"q{i}"))
    if _AVERAGE_AFTER.match(text[n.tail:window.stop]):
        return "average"
    return listed.qualifier if listed else None


if not Doc.has_extension("kg_results"):
    Doc.set_extension("kg_results", default=())


@Language.factory("kg_results", default_config={"names": None, "detector": None})
def make_results(nlp: Language, name: str, names: str | None, detector: str | None) -> ResultFinder:
    """spaCy factory: ``doc._.kg_results`` from :func:`find_results` over the text as read, the
    numbers kept by the detector whose weights ``detector`` holds (``result_detector.json``) and the
    name fields chosen by the ranker whose weights ``names`` holds (``result_names.json``), if given."""
    from kg.extractors.result_names import NameRanker
    from kg.extractors.roles import LinearHeads

    return ResultFinder(NameRanker(LinearHeads.from_disk(names)) if names else None,
                        LinearHeads.from_disk(detector) if detector else None)


class ResultFinder:
    """Finds the results of ``doc`` from its text, lets the ranker choose each one's method, metric
    and dataset, then points each name at the mention it names.

    The rules read names from the text alone: fed the recogniser's mentions, whose misses and
    run-ons mislead them, they did worse (our dev, tuple F1 63.6 against 53.0).  The mentions enter
    through the ranker instead (``kg.extractors.result_names``), as candidates beside the rules'
    pick.  Values are read from the text as read (``doc.user_data["text"]``, set by the pipeline),
    which keeps the LaTeX the cleaned text blanks; offsets are the same in both."""

    def __init__(self, ranker: NameRanker | None = None, detector: LinearHeads | None = None) -> None:
        self.ranker, self.detector = ranker, detector

    def __call__(self, doc: Doc) -> Doc:
        text = doc.user_data.get("text", doc.text)
        sents = [(s.start_char, s.end_char) for s in doc.sents] if doc.has_annotation("SENT_START") else None
        # the names as written, as the ranker learnt them from the records (kg.training.indomain)
        mentions = tuple(as_written(m, text) for m in doc._.kg_mentions) if Doc.has_extension("kg_mentions") else ()
        results = find_results(text, (), (), sents, self.detector)
        if self.ranker is not None and results:
            relations = doc._.kg_relations if Doc.has_extension("kg_relations") else ()
            title, metrics = doc.user_data.get("title", ""), metric_spans(text, 0, len(text))
            results = self.ranker.rank(results, text, title, mentions, relations, metrics)
        doc._.kg_results = tuple(link_names(r, mentions) for r in results)
        return doc


NAME_LABELS = {"method": ("Method", "Model"), "baseline": ("Method", "Model"), "metric": ("Metric",), "dataset": ("Dataset",)}
"""The mention labels each name field of a result may point at."""


def link_names(result: Result, mentions: Sequence[Mention]) -> Result:
    """``result`` with each name field pointing at the mention that spells it (same text, or the same
    resolution key; the one nearest the number), where there is one."""
    links = {}
    for field, labels in NAME_LABELS.items():
        name = getattr(result, field)
        if not name:
            continue
        key = canonical(name)
        hits = [i for i, m in enumerate(mentions) if m.label in labels and (m.text == name or (key and m.canonical == key))]
        if hits:
            links[f"{field}_entity"] = min(hits, key=lambda i: abs(mentions[i].start - result.start))
    return replace(result, **links) if links else result
