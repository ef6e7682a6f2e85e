"""Who, against whom, measured how, on what: the name fields of a result chosen by a trained ranker.

The rules of ``kg.extractors.results`` read a result's method, baseline, metric and dataset from cue words
around the number, in the text alone.  They are one strong opinion among several: the recogniser's
mentions, the paper's proposed entity and the known metric names of the sentence are others.  For
each field this module lists the candidates (the rules' pick, every mention of the field's labels,
what the paper proposes, the metric names of the sentence, the words beside the number, the measure
the abstract names for all its numbers, a baseline described ("its best alternative"), and no name
at all), describes each by
where its nearest occurrence stands from the number and what lies between, and keeps the one a
logistic head scores highest.  The heads are trained on the annotated results of the train split
(``kg train indomain``) and shipped as ``result_names.json`` beside the recogniser.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kg.extractors.results import from_to_side, speed_for_speedup
from kg.extractors.roles import LinearHeads
from kg.extractors.text import name_shape, word_occurrences
from kg.names import canonical
from kg.records import Mention, Relation, Result

FIELD_LABELS: dict[str, tuple[str, ...]] = {"method": ("Method", "Model"), "baseline": ("Method", "Model"),
                                             "metric": ("Metric",), "dataset": ("Dataset",)}
"""The fields the ranker decides and the mention labels that may fill each."""

_WORD = re.compile(r"[a-z][a-z\-]*|\d+(?:\.\d+)?|[%×]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FEW_LETTERS = re.compile(r"[^A-Za-z]*[A-Za-z]?[^A-Za-z]*")
"""A span with fewer than two letters ("300M"): no benchmark's name (a metric may be "F1")."""
ABSTRACT_MEASURES = ("performance", "accuracy")
"""Measures an abstract names for all its numbers at once: the guidelines take a number's metric
from the abstract when its sentence names none, and readers wrote "performance" for 4 % of the
train results, a word no recogniser tags and often far from the number."""
_OWN_PHRASE = re.compile(
    r"\b(?:our|the proposed|this) (?:[\w-]+\s+){0,2}?(?:method|approach|model|framework|system|algorithm|pipeline|"
    r"agent|technique|strategy|architecture|network|policy|solver|estimator|detector)s?\b", re.I)
_OTHERS_PHRASE = re.compile(
    r"\b(?:(?:the|its|their|a|all|most)\s+)?(?:(?:best|strongest|previous|prior|existing|current|next|original|"
    r"standard|vanilla|conventional|leading|competing|other|state-of-the-art|sota|base)[\s-]+){1,2}"
    r"(?:[\w-]+\s+)?(?:baseline|alternative|method|approach|model|system|one|work)s?\b|\bbaselines?\b", re.I)
"""A baseline described, not named ("its best alternative", "the baseline models"): whose number
the first of "from 23.3% to 44.4%" often is."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One possible value of a field: the name as written, the mention it is (if any), its features."""

    name: str | None
    entity: int | None
    features: tuple[str, ...]


def _bucket(n: float, edges: Sequence[float]) -> int:
    return next((i for i, e in enumerate(edges) if n <= e), len(edges))


def _position(text: str, result: Result, span: tuple[int, int] | None) -> list[str]:
    """Where an occurrence stands from the number: side, sentence, distance, the words between."""
    if span is None:
        return ["pos=none"]
    s, e = span
    in_sentence = result.sentence_start <= s and e <= result.sentence_end
    if e <= result.start:
        side, gap = "before", text[e:result.start]
    elif s >= result.end:
        side, gap = "after", text[result.end:s]
    else:
        return ["pos=overlap"]
    where = f"{side}|{'sent' if in_sentence else 'out'}"
    f = [f"pos={where}", f"dist={_bucket(len(gap), (3, 12, 30, 80, 200))}|{where}"]
    if in_sentence and len(gap) <= 120:
        words = _WORD.findall(gap.lower())
        f.append(f"numbers_between={min(len(_NUMBER.findall(gap)), 2)}|{side}")
        f.extend(f"g:{w}|{side}" for w in set(words))
        if words:
            f.append(f"g1:{words[0]}|{side}")
            f.append(f"gl:{words[-1]}|{side}")
        else:
            f.append(f"g0|{side}")
        if "(" in gap and ")" not in gap:
            f.append(f"in_parens|{side}")
    if in_sentence and side == "before":
        f.append(f"from_sentence_start={_bucket(s - result.sentence_start, (0, 4, 20, 60))}")
    before = _WORD.findall(text[max(0, s - 30):s].lower())[-2:]
    after = _WORD.findall(text[e:e + 30].lower())[:2]
    if before:
        f.append(f"b1:{before[-1]}")
        f.append(f"b2:{' '.join(before)}")
    if after:
        f.append(f"a1:{after[0]}")
        f.append(f"a2:{' '.join(after)}")
    return f


_PHRASE_WORD = r"[A-Za-z][A-Za-z0-9]*(?:[-@][A-Za-z0-9]+)*"
_NOT_IN_PHRASE = frozenset(
    "a an the and or of on in at to for with by from than over under vs versus as is are was were be been has have "
    "its their our this that these those which while when compared relative up only about nearly around across all "
    "both each more less lower higher fewer better worse times fold faster slower points point percent percentage "
    "improvement improvements gain gains reduction reductions increase decrease boost drop speedup speedups "
    "respectively average overall total without between within above below rise rises low high per".split())
_LEAD_IN = re.compile(r"(?:\s*(?:[:=≈~(,]|\$?\\(?:approx|sim|geq|leq)\$?|of|to|from|at|by|is|was|are|were|reaches|reached|"
                      r"reaching|falls|drops|exceeding|exceeds|achieving|achieves|achieved|with|around|about|nearly|only|up|"
                      r"over|below|under|than|just))*\s*$", re.I)
_WORDS_AFTER = re.compile(rf"[\s$]*(?:of\s+(?:(?:the|its|their|our|all)\s+|[A-Za-z][\w.-]*['’]s\s+)?|(?:fewer|less|lower|higher|more|greater)\s+)?"
                          rf"({_PHRASE_WORD}(?:\s+{_PHRASE_WORD}){{0,2}})", re.I)
_READ_BEFORE = 200
"""Characters before a number its lead-in and words are read from: the two searches anchored at the
end are quadratic in what they read, and a fuzzed abstract whose 17,000 characters held no sentence
end took 11 CPU seconds in them."""
_FASTER = re.compile(r"[\s$]*(?:times\s+|x\s+)?faster\b", re.I)
"""'3.2x faster': the speed is what went up (the guidelines' metric of a speedup)."""


def phrases_beside(text: str, result: Result) -> list[tuple[str, str]]:
    """The one to three words just before a result's number (past words such as "of", "falls to",
    "=") and just after it (past "of the", "of its", "of LoRA's" or a comparative: "3x fewer parameters"), cut at the first
    word no measure's name holds; each with the side it stands on, and "speed" for "N× faster".
    Candidates for a metric no list of known names has."""
    out = [("speed", "faster")] if _FASTER.match(text, result.end, result.sentence_end) else []
    after = _WORDS_AFTER.match(text, result.end, result.sentence_end)
    if after:
        words = after.group(1).split()
        words = words[: next((i for i, w in enumerate(words) if w.lower() in _NOT_IN_PHRASE), len(words))]
        out += [(" ".join(words[:k]), "after") for k in range(1, len(words) + 1)]
    lo = max(result.sentence_start, result.start - _READ_BEFORE)
    before = text[lo:result.start]
    before = before[: _LEAD_IN.search(before).start()]
    tail = re.search(rf"((?:{_PHRASE_WORD}\s+){{0,2}}{_PHRASE_WORD})$", before)
    words = tail.group(1).split() if tail else []
    if tail and tail.start() == 0 and lo > result.sentence_start:
        words = words[1:]  # the window may have cut the first
    words = words[max((i + 1 for i, w in enumerate(words) if w.lower() in _NOT_IN_PHRASE), default=0):]
    out += [(" ".join(words[-k:]), "before") for k in range(1, len(words) + 1)]
    return out


def sentence_positions(results: Sequence[Result]) -> list[tuple[int, int, int]]:
    """Each result's place among the results of its sentence, how many there are, and where the
    last of them ends: the k-th number of "1.4%, 4.4% and 2.0% on A, B and C" most often belongs to
    the k-th name listed after them."""
    counts: dict[int, int] = {}
    ends: dict[int, int] = {}
    places = []
    for r in results:
        places.append(counts.get(r.sentence_start, 0))
        counts[r.sentence_start] = places[-1] + 1
        ends[r.sentence_start] = r.end
    return [(k, counts[r.sentence_start], ends[r.sentence_start]) for k, r in zip(places, results)]


def candidates(field: str, result: Result, text: str, title: str, mentions: Sequence[Mention],
               relations: Sequence[Relation], metric_spans: Sequence[tuple[int, int]] = (),
               listed: tuple[int, int, int] = (0, 1, 0)) -> list[Candidate]:
    """Every value ``field`` of ``result`` could take, each with its features (the first is no name);
    ``listed`` is the result's place among the results of its sentence (``sentence_positions``)."""
    labels = FIELD_LABELS[field]
    rule = getattr(result, field)
    rule_key = canonical(rule) if rule else None
    proposed = {mentions[r.tail].canonical: r.confidence for r in relations
                if r.head is None and r.label.upper() == "PROPOSES" and 0 <= r.tail < len(mentions)}
    kind = f"kind={result.kind}"
    by_name: dict[str, tuple[list[int], set[str]]] = {}
    for i, m in enumerate(mentions):
        if m.label in labels or (m.canonical == rule_key and rule_key):
            by_name.setdefault(m.text, ([], set()))[0].append(i)
            by_name[m.text][1].add(f"label={m.label}")
    if rule:
        by_name.setdefault(rule, ([], set()))[1].add("source=rule")
    for s, e in metric_spans if field == "metric" else ():
        if result.sentence_start <= s < result.sentence_end:
            by_name.setdefault(text[s:e], ([], set()))[1].add("source=metric_name")
    if field == "metric":  # a measure no list knows, next to its number: "prefix damage falls to 0.6%"
        for name, where in phrases_beside(text, result):
            by_name.setdefault(name, ([], set()))[1].update((f"source=phrase_{where}", f"head={name.split()[-1].lower()}"))
        for word in ABSTRACT_MEASURES:  # "improves performance across tasks, by 7.1% on ...": the abstract's measure
            if word_occurrences(text, word):
                by_name.setdefault(word, ([], set()))[1].update(("source=abstract_word", f"word={word}"))
    if field == "method":  # the paper's method described, not named: "our approach reaches ..."
        for m in _OWN_PHRASE.finditer(text, result.sentence_start, result.start):
            by_name.setdefault(m.group(0), ([], set()))[1].add("source=own_phrase")
        for m in _OTHERS_PHRASE.finditer(text, result.sentence_start, result.sentence_end):
            by_name.setdefault(m.group(0), ([], set()))[1].add("source=others_phrase")
        if result.baseline:
            by_name.setdefault(result.baseline, ([], set()))[1].add("source=rule_baseline")
    if field == "baseline":  # "outperforming the strongest baseline by 4.1%": a baseline described, not named
        for m in _OTHERS_PHRASE.finditer(text, result.sentence_start, result.sentence_end):
            by_name.setdefault(m.group(0), ([], set()))[1].add("source=others_phrase")
        if result.method:
            by_name.setdefault(result.method, ([], set()))[1].add("source=rule_method")
    out = [Candidate(None, None, ("none", f"none_rule={rule is None}", f"none|{kind}",
                                  f"none_mentions={_bucket(sum(m.label in labels for m in mentions), (0, 2, 5))}"))]
    trailing = sorted({m.text: m.start for m in reversed(mentions) if m.label in labels
                       and listed[2] <= m.start < result.sentence_end}.items(), key=lambda x: x[1])
    order = {name: j for j, (name, _) in enumerate(trailing)}
    ranked: list[tuple[int, str, int | None, list[str]]] = []
    pair = from_to_side(text, result.start, result.end) if field == "method" else None
    for name, (indices, sources) in by_name.items():
        if name.endswith("-") or (field == "dataset" and _FEW_LETTERS.fullmatch(name)):
            continue
        spans = [(mentions[i].start, mentions[i].end) for i in indices] or [(s, s + len(name)) for s in word_occurrences(text, name)]
        key = canonical(name)
        nearest = min(spans, key=lambda sp: min(abs(sp[0] - result.start), abs(sp[1] - result.end)), default=None)
        entity = next((i for i in indices if (mentions[i].start, mentions[i].end) == nearest), None)
        f = sorted(sources) + [kind, f"shape={name_shape(name)}", f"words={min(len(name.split()), 4)}",
                               f"count={_bucket(len(spans), (0, 1, 2, 4))}"]
        if rule and (name == rule or (key and key == rule_key)):
            f.append("is_rule")
        elif rule and key and rule_key and (key in rule_key or rule_key in key):
            f.append("overlaps_rule")
        if key in proposed:
            f.append(f"proposed={_bucket(proposed[key], (0.5, 0.7, 0.9))}")
        if title and name.lower() in title.lower():
            f.append("in_title")
        if any(m.aliases for m in (mentions[i] for i in indices)):
            f.append("has_alias")
        if listed[1] > 1 and len(order) > 1 and name in order:
            aligned = order[name] == listed[0]
            f.append(f"aligned={aligned}")
            f.append(f"aligned={aligned}|{'same' if len(order) == listed[1] else 'other'}_count")
        where = _position(text, result, nearest)
        f.extend(where)
        f.extend(f"{x}|{where[0]}" for x in sorted(sources) + ["is_rule"] * ("is_rule" in f))
        if pair:  # "from 5.2% to 32.1%": the first is the baseline's score, the second the method's
            f.extend([f"pair={pair}|{x}" for x in f if x.startswith(("source=", "label=", "proposed=", "is_rule", "pos=", "in_title"))])
        distance = abs(nearest[0] - result.start) if nearest else 10**6
        ranked.append((distance, name, entity, f))
    on_side: dict[str, int] = {}
    for rank, (distance, name, entity, f) in enumerate(sorted(ranked, key=lambda x: x[0])):
        f.append(f"rank={min(rank, 3)}")
        side = next(x for x in f if x.startswith("pos="))  # the nearest of those before it, of those after it
        f.append(f"side_rank={min(on_side.get(side, 0), 2)}|{side}")
        on_side[side] = on_side.get(side, 0) + 1
        out.append(Candidate(as_guidelines(field, name), entity, tuple(f)))
    return out


def as_guidelines(field: str, name: str) -> str:
    """A name in the guidelines' form (a speedup's metric is the speed it raises)."""
    return speed_for_speedup(name) if field == "metric" else name


class NameRanker:
    """Chooses each field's value among its candidates: the highest score of the field's head (a
    field the heads have no head for keeps the rules' value)."""

    def __init__(self, heads: LinearHeads) -> None:
        self.heads = heads

    def rank(self, results: Sequence[Result], text: str, title: str, mentions: Sequence[Mention],
             relations: Sequence[Relation], metric_spans: Sequence[tuple[int, int]] = ()) -> tuple[Result, ...]:
        """The results of one abstract with their method, baseline, metric and dataset chosen."""
        out = []
        for result, listed in zip(results, sentence_positions(results)):
            changes: dict[str, object] = {}
            for field in (f for f in FIELD_LABELS if f in self.heads.weights):
                found = candidates(field, result, text, title, mentions, relations, metric_spans, listed)
                best = max(found, key=lambda c: self.heads.score(field, c.features))
                changes[field] = best.name
                changes[f"{field}_entity"] = best.entity
            out.append(replace(result, **changes))
        return tuple(out)
