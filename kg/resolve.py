"""Resolution: per-abstract extractions -> one graph with deterministic ids and provenance.

Mentions merge across abstracts when their type and normalised name agree (case, plural, dash
and LaTeX-markup variants are folded by ``canonical``; names that differ only in where words break,
or in a closing year's two or four digits, take the spelling most mentions use; an abbreviation
resolves to the long form it stands for).
Method and Model are the one pair of types that can disagree about the same name; the majority
decides.  Nothing else crosses types.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

import networkx as nx

from kg.names import canonical, spelling_variant, tidy_name
from kg.records import Abstract, Bound, Edge, Evidence, Extraction, GraphDocument, Mention, Node, Result
from kg.schema import node_id
from kg.schema.metrics import better_direction
from kg.schema.vocab import QUDT_UNITS

ARCHITECTURE_OR_METHOD = ("Method", "Model")
_GENERIC_PROBLEM_HEAD = re.compile(r"(?<=\w) (?:problem|task)$")
_GENERIC_METRIC_HEAD = re.compile(r"(?<=\w) ?(?:score|metric|measure)$")
"""A Metric's name with and without it is one metric where both occur: "F1 score" is "F1" (ICLR
2026: 111 and 67 papers apart); a name only ever written with it ("docking score") keeps it."""
_ACRONYM = re.compile(r"[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*")
"""A word written with two capitals or more: "KV", "LLMs", "MoE", "ViT"."""
_ATTESTED = 20
"""Definitions an abbreviation needs to be spelled out inside longer names."""
_CLOSING_YEAR = re.compile(r"(?<=[a-z])(?:19|20)(?=\d\d$)")
"""A benchmark's year written out at the end of its name: "AIME 2025" is "AIME25", "COCO 2014" "COCO-14"."""

_WRITTEN_OUT = 10
"""A node is named by its long form if that is written at least a tenth as often as its commonest surface."""

_tidy = lru_cache(maxsize=1 << 16)(tidy_name)
_variant = lru_cache(maxsize=1 << 18)(spelling_variant)
_canonical = lru_cache(maxsize=1 << 16)(canonical)
"""Names repeat across mentions ("large language models" 17,000 times in ICLR 2026): made once."""


def build_graph(pairs: Iterable[tuple[Abstract, Extraction]]) -> GraphDocument:
    """Resolve extractions into a ``GraphDocument`` (nodes and edges sorted by id).

    Example:
        >>> from kg.records import Abstract, Extraction, Mention
        >>> a = Abstract("p1", "We propose FlowNet for optical flow estimation.")
        >>> m = Mention(11, 18, "FlowNet", "Model", "flownet", 0, 47)
        >>> g = build_graph([(a, Extraction("p1", "test", entities=(m,)))])
        >>> [n.id for n in g.nodes]
        ['model:flownet', 'paper:p1']
    """
    pairs = list(pairs)
    resolver = _Resolver([x for _, x in pairs])
    nodes: dict[str, _NodeAcc] = {}
    edges: dict[tuple[str, str, str], list[Evidence]] = defaultdict(list)

    for abstract, extraction in pairs:
        paper = node_id("Paper", abstract.id)
        nodes[paper] = _NodeAcc("Paper", _paper_name(abstract), _paper_properties(abstract))
        ids = [resolver.node_id(m) for m in extraction.entities]
        for m, nid in zip(extraction.entities, ids):
            acc = nodes.get(nid)
            if acc is None:
                acc = nodes[nid] = _NodeAcc(resolver.label(m), "", {})
            acc.add_mention(abstract.id, m)
            edges[(paper, "MENTIONS", nid)].append(_evidence(abstract, m.start, m.end, m.sentence_start, m.sentence_end, m.rule, m.confidence))
        for r in extraction.relations:
            source = paper if r.head is None else ids[r.head]
            target = ids[r.tail]
            if source == target:
                continue
            tail = extraction.entities[r.tail]
            edges[(source, r.label, target)].append(
                _evidence(abstract, tail.start, tail.end, r.sentence_start, r.sentence_end, r.rule, r.confidence)
            )
        bound_ids = [node_id("Bound", f"{abstract.id}:{i}") for i in range(len(extraction.bounds))]
        for i, b in enumerate(extraction.bounds):
            nodes[bound_ids[i]] = _NodeAcc("Bound", b.unicode or b.text, _bound_properties(b, paper), papers={abstract.id}, count=1)
            ev = _evidence(abstract, b.start, b.end, b.sentence_start, b.sentence_end, b.rule, b.confidence)
            edges[(paper, "STATES_BOUND", bound_ids[i])].append(ev)
            if b.subject_entity is not None and 0 <= b.subject_entity < len(ids):
                edges[(bound_ids[i], "BOUNDS", ids[b.subject_entity])].append(ev)
            if b.improves_on is not None and 0 <= b.improves_on < len(bound_ids):
                edges[(bound_ids[i], "IMPROVES_ON", bound_ids[b.improves_on])].append(ev)

        for i, r in enumerate(extraction.results):
            _add_result(nodes, edges, abstract, paper, node_id("Result", f"{abstract.id}:{i}"), r, ids, extraction.entities)

    _link_narrower_problems(nodes, edges)
    node_records = tuple(acc.to_node(nid) for nid, acc in sorted(nodes.items()))
    edge_records = tuple(
        Edge(source, target, etype, ev, {"confidence": max(e.confidence for e in ev)})
        for (source, etype, target), ev in sorted(
            ((key, _distinct(ev)) for key, ev in edges.items()), key=lambda kv: f"{kv[0][0]}|{kv[0][1]}|{kv[0][2]}")
    )
    return GraphDocument(node_records, edge_records)


RESULT_EDGES = (("method_entity", "ACHIEVED_BY"), ("dataset_entity", "ON_DATASET"), ("metric_entity", "ON_METRIC"),
                ("baseline_entity", "AGAINST"))
"""The name fields of a result that become edges when they point at a mention."""


def _add_result(nodes: dict, edges: dict, abstract: Abstract, paper: str, nid: str, r: Result, ids: list[str],
                mentions: Sequence[Mention]) -> None:
    """A Result node with its number and names, reported by the paper (evidence: the number), linked
    to the entities it names (evidence: the mention named)."""
    props = {
        "value": r.text, "low": r.low, "high": r.high, "unit": r.unit, "unitIri": QUDT_UNITS.get(r.unit),
        "kind": r.kind, "direction": r.direction,
        "qualifier": r.qualifier, "methodName": r.method, "baselineName": r.baseline, "metricName": r.metric,
        "datasetName": r.dataset, "setting": r.setting, "better": better_direction(r.metric) if r.metric else "unknown",
        "paper": paper, "start": r.start, "end": r.end, "sentenceStart": r.sentence_start, "sentenceEnd": r.sentence_end,
        "confidence": r.confidence,
    }
    value = props["value"] = shown_value(r.text)
    name = f"{value} {r.metric}" if r.metric else value
    nodes[nid] = _NodeAcc("Result", name, {k: v for k, v in props.items() if v not in (None, "")}, papers={abstract.id}, count=1)
    ev = _evidence(abstract, r.start, r.end, r.sentence_start, r.sentence_end, r.rule, r.confidence)
    edges[(paper, "REPORTS", nid)].append(ev)
    for field, etype in RESULT_EDGES:
        index = getattr(r, field)
        if index is not None and 0 <= index < len(ids):
            m = mentions[index]
            edges[(nid, etype, ids[index])].append(
                _evidence(abstract, m.start, m.end, m.sentence_start, m.sentence_end, r.rule, r.confidence))


_VALUE_MARKUP = ((re.compile(r"\\+%"), "%"), (re.compile(r"\\+times"), "×"), (re.compile(r"\\+sim"), "∼"),
                 (re.compile(r"\\+[,;:! ]"), " "), (re.compile(r"(?<!-)--(?!-)"), "–"), (re.compile(r"[${}]"), ""))
"""The LaTeX of reported numbers in ICLR 2026 abstracts (two in five of them: "96.9\\%", "2.5$\\times$",
"10--20\\%"), by what it reads as."""


@lru_cache(maxsize=1 << 14)
def shown_value(text: str) -> str:
    r"""A reported number as it reads, for its node's value and name; the evidence keeps it as written.
    Markup beyond ``_VALUE_MARKUP`` is left to pylatexenc (slower: 0.3 ms a value).

    Example:
        >>> [shown_value(t) for t in (r"96.9\%", r"+4.2\\%", r"2.5$\times$", r"10--20\%", "84.1%", r"0.3$\pm$0.1")]
        ['96.9%', '+4.2%', '2.5×', '10–20%', '84.1%', '0.3±0.1']
    """
    shown = text
    for markup, reads in _VALUE_MARKUP:
        shown = markup.sub(reads, shown)
    if "\\" in shown:
        from pylatexenc.latex2text import LatexNodes2Text

        shown = LatexNodes2Text(math_mode="text").latex_to_text(shown.replace("%", "\\%"))
    return shown.strip() or text


def confident(x: Extraction, threshold: float) -> Extraction:
    """The extraction without mentions and relations below ``threshold`` (relations and bound
    subjects re-indexed; a relation loses its place with either end).

    Example:
        >>> from kg.records import Relation
        >>> x = Extraction("p", "t", (Mention(0, 1, "a", "Method", "a", confidence=0.3), Mention(2, 3, "b", "Problem", "b")),
        ...                (Relation(None, 1, "ADDRESSES"), Relation(0, 1, "ADDRESSES")))
        >>> y = confident(x, 0.5)
        >>> [m.text for m in y.entities], [(r.head, r.tail) for r in y.relations]
        (['b'], [(None, 0)])
    """
    if threshold <= 0:
        return x
    keep = {old: new for new, old in enumerate(i for i, m in enumerate(x.entities) if m.confidence >= threshold)}
    relations = tuple(
        replace(r, head=None if r.head is None else keep[r.head], tail=keep[r.tail])
        for r in x.relations
        if r.confidence >= threshold and r.tail in keep and (r.head is None or r.head in keep)
    )
    bounds = tuple(replace(b, subject_entity=keep.get(b.subject_entity)) if b.subject_entity is not None else b for b in x.bounds)
    results = tuple(
        replace(r, **{f: keep.get(getattr(r, f)) for f, _ in RESULT_EDGES if getattr(r, f) is not None})
        for r in x.results if r.confidence >= threshold
    )
    return replace(x, entities=tuple(m for i, m in enumerate(x.entities) if i in keep), relations=relations,
                   bounds=bounds, results=results)


NARROWER_RULE = "resolve.narrower"


def _link_narrower_problems(nodes: dict[str, _NodeAcc], edges: dict) -> None:
    """``online facility location`` IS_A ``facility location``: a Problem whose name ends with
    another Problem's name is a narrower problem, linked where both occur (evidence: the
    narrower one's mentions)."""
    problems = {nid.split(":", 1)[1]: nid for nid, acc in nodes.items() if acc.label == "Problem"}
    for key, nid in problems.items():
        words = key.split()
        for i in range(1, len(words)):
            broader = problems.get(" ".join(words[i:]))
            if broader:
                first_paper = node_id("Paper", min(nodes[nid].papers))
                edges[(nid, "IS_A", broader)].extend(
                    replace(ev, rule=NARROWER_RULE) for ev in edges.get((first_paper, "MENTIONS", nid), ()))
                break


def _expands(short: str, long_form: str, coined: set[str]) -> bool:
    """Whether a paper's "Long Form (LF)" says what LF means in papers that use it unexplained.  Not
    when the paper proposes the long form: a name coined for its own method often spells a famous
    acronym ("Chain of Structured Thought (CoST)", "Variational Generator Group (VGG)"); nor when the
    long form holds the abbreviation as a word ("MCO Mamba (Mamba)"): a longer name, not an expansion."""
    return long_form not in coined and f" {short} " not in f" {long_form} "


def _group(label: str) -> str:
    """The types a name is compared within: Method and Model together, the others each alone."""
    return "Method" if label in ARCHITECTURE_OR_METHOD else label


def _one_spelling(mentions: Counter, keys: dict) -> dict[str, str]:
    """Keys equal without their spaces ("fine tuning" and "finetuning", "cifar 10" and "cifar10",
    "large lan guage model" where a PDF's line break split a word), with a closing year in two digits
    ("aime 2025" and "aime25") and as ``spelling_variant`` writes them ("computational cost" and
    "computation cost", "optimisation" and "optimization") take the spelling most mentions use, then
    the one with most word breaks: each such key -> its chosen spelling."""
    counts: Counter[str] = Counter()
    for of, count in mentions.items():
        counts[keys[of]] += count
    # Keys meet through either form, the variant's or their own: "computa tional cost", split by a
    # line break, still meets "computational cost", which meets "computation cost" through the variant.
    joined, linked = nx.utils.UnionFind(), set()
    written = {key: _CLOSING_YEAR.sub("", key.replace(" ", "")) for key in counts}
    for key, form in written.items():
        variant = _variant(key)
        if variant == key:
            continue
        variant = _CLOSING_YEAR.sub("", variant.replace(" ", ""))
        if variant != form:
            joined.union(form, variant)
            linked.update((form, variant))
    spellings: dict[str, list[str]] = defaultdict(list)
    for key, form in written.items():
        spellings[joined[form] if form in linked else form].append(key)
    spelling: dict[str, str] = {}
    for group in spellings.values():
        if len(group) > 1:
            chosen = min(group, key=lambda k: (-counts[k], -k.count(" "), k))
            spelling.update((k, chosen) for k in group)
    return spelling


class _Resolver:
    """Decides each mention's node: abbreviations to long forms, one spelling of names that differ
    only in where words break, Method/Model by majority."""

    def __init__(self, extractions: Sequence[Extraction]) -> None:
        # What each abbreviation is defined as, by type: None where the definition does not carry
        # over to other papers (``_expands``), which counts against every long form.
        long_forms: dict[tuple[str, str], Counter[str | None]] = defaultdict(Counter)
        # How often, and how surely, each spelling is read as a Method and as a Model.
        typed: Counter[tuple[str, bool, str]] = Counter()
        sureness: Counter[tuple[str, bool, str]] = Counter()
        for x in extractions:
            coined = {x.entities[r.tail].canonical for r in x.relations if r.label == "PROPOSES"}
            for m in x.entities:
                if m.label in ARCHITECTURE_OR_METHOD:
                    spelling_type = (m.canonical, bool(m.aliases), m.label)
                    typed[spelling_type] += 1
                    sureness[spelling_type] += m.confidence
                if len(m.aliases) == 2:
                    short = _canonical(m.aliases[1])
                    long_forms[short, _group(m.label)][m.canonical if _expands(short, m.canonical, coined) else None] += 1
        # An abbreviation used unexplained stands for the long form most definitions of its type give.
        self.expansions = {
            of: long_form
            for of, counts in long_forms.items()
            if (long_form := counts.most_common(1)[0][0]) is not None and counts[long_form] * 2 > sum(counts.values())
        }
        # Inside a longer name, an abbreviation most of its definitions spell one way, often:
        # "online RL" is "online reinforcement learning", "KV cache" "key value cache".
        defined: dict[str, Counter[str | None]] = defaultdict(Counter)
        for (short, _), counts in long_forms.items():
            defined[short].update(counts)
        self.word_expansions = {
            short: tuple(long_form.split())
            for short, counts in defined.items()
            if " " not in short and (long_form := counts.most_common(1)[0][0]) is not None
            and counts[long_form] >= _ATTESTED and counts[long_form] * 3 >= sum(counts.values()) * 2
        }
        # A key depends on these three only; each is spelled once.
        spelled: Counter[tuple[str, bool, str]] = Counter(
            (m.canonical, bool(m.aliases), _group(m.label)) for x in extractions for m in x.entities)
        # Which of a longer name's words its mentions write as acronyms ("KV" in "KV cache"; "mass"
        # in "tandem mass spectrometry" is no "MAS").
        holding = {name for name, _, _ in spelled if " " in name and not self.word_expansions.keys().isdisjoint(name.split())}
        self.acronyms: dict[str, set[str]] = defaultdict(set)
        for x in extractions:
            for m in x.entities:
                if m.canonical in holding:
                    self.acronyms[m.canonical].update(w.lower() for w in _ACRONYM.findall(m.text))
        self.metrics = {self._expanded(name, aliased, group) for name, aliased, group in spelled if group == "Metric"}
        as_spelled = {of: self._spelled_key(*of) for of in spelled}
        spelling = _one_spelling(spelled, as_spelled)
        # Then the abbreviations inside a name are spelled out ("KVCache" is "KV cache" is "key value
        # cache"), and the spellings met again: "minibatch SGD" and "mini-batch stochastic gradient descent".
        expanded = {of: self._words_expanded(spelling.get(key, key)) for of, key in as_spelled.items()}
        spelling = _one_spelling(spelled, expanded)
        self.keys = {of: spelling.get(key, key) for of, key in expanded.items()}
        # Method or Model is voted per key, by every mention the key gathers ("LLM judge" and "large
        # language model judge" alike); a tie goes to the type the recogniser was surer of.
        votes: dict[str, Counter[str]] = defaultdict(Counter)
        sure: dict[str, Counter[str]] = defaultdict(Counter)
        for (name, aliased, label), count in typed.items():
            key = self.keys[name, aliased, _group(label)]
            votes[key][label] += count
            sure[key][label] += sureness[name, aliased, label]
        self.labels = {key: max(ARCHITECTURE_OR_METHOD, key=lambda label: (tally[label], round(sure[key][label], 6)))
                       for key, tally in votes.items()}

    def _spelled_key(self, canonical_name: str, has_aliases: bool, group: str) -> str:
        """A mention's key as it spells it: the long form of a known abbreviation, a Problem without
        a generic head, a Metric without one where its name also occurs without it."""
        key = self._expanded(canonical_name, has_aliases, group)
        if group == "Problem":
            key = _GENERIC_PROBLEM_HEAD.sub("", key)  # "facility location problem" is "facility location"
        elif group == "Metric":
            bare = _GENERIC_METRIC_HEAD.sub("", key)
            key = bare if bare in self.metrics else key
        return key

    def _words_expanded(self, key: str) -> str:
        """A name with each abbreviation in ``word_expansions`` spelled out; one right after its own
        long form is dropped ("key value kv cache" is "key value cache")."""
        written = self.acronyms.get(key)
        if not written:
            return key
        words: list[str] = []
        for word in key.split():
            long_form = self.word_expansions.get(word) if word in written or word + "s" in written else None
            if long_form is None:
                words.append(word)
            elif tuple(words[-len(long_form):]) != long_form:
                words.extend(long_form)
        return " ".join(words)

    def _expanded(self, canonical_name: str, has_aliases: bool, group: str) -> str:
        """The long form a known abbreviation of the type stands for; a mention that defines its own
        keeps its name."""
        return canonical_name if has_aliases else self.expansions.get((canonical_name, group), canonical_name)

    def key(self, m: Mention) -> str:
        return self.keys[(m.canonical, bool(m.aliases), _group(m.label))]

    def label(self, m: Mention) -> str:
        if m.label not in ARCHITECTURE_OR_METHOD:
            return m.label
        return self.labels[self.key(m)]

    def node_id(self, m: Mention) -> str:
        return node_id(self.label(m), self.key(m))


class _NodeAcc:
    """Accumulates what the papers say about one node."""

    def __init__(self, label: str, name: str, properties: dict, papers: set[str] | None = None, count: int = 0) -> None:
        self.label = label
        self.name = name
        self.properties = properties
        self.papers = set(papers or ())
        self.count = count
        self.surfaces: Counter[str] = Counter()
        self.aliases: set[str] = set()
        self.confidence = 0.0

    def add_mention(self, paper: str, m: Mention) -> None:
        self.papers.add(paper)
        self.count += 1
        self.confidence = max(self.confidence, m.confidence)
        surface, aliases = _tidy(m.text), [_tidy(a) for a in m.aliases]
        if not aliases or surface == aliases[0]:  # the long form, not its acronym
            self.surfaces[surface] += 1
        self.aliases.add(surface)
        self.aliases.update(aliases)

    def to_node(self, nid: str) -> Node:
        name = self.name
        if not name:
            # Prefer a surface that spells the key out over an abbreviation of it, unless papers
            # hardly ever write it out ("GSM8K" 182 times, "Grade School Math 8K" once).
            spelled = self.surfaces
            if len(spelled) > 1:
                key = nid.split(":", 1)[1]
                spelled_out = {s: c for s, c in spelled.items() if canonical(s) == key}
                if spelled_out and max(spelled_out.values()) * _WRITTEN_OUT >= max(spelled.values()):
                    spelled = spelled_out
            name = min(spelled.items(), key=lambda kv: (-kv[1], kv[0]))[0] if spelled else min(self.aliases)
        aliases = tuple(sorted(a for a in self.aliases if a != name))
        papers = tuple(sorted(node_id("Paper", p) for p in self.papers))
        properties = dict(self.properties)
        if self.count and self.label not in ("Paper", "Bound", "Result"):
            properties["confidence"] = round(self.confidence, 3)
        if self.label == "Metric":
            properties["better"] = better_direction(name)  # leaderboards order by it
        return Node(nid, self.label, name, aliases, papers, self.count, properties)


def _distinct(evidence: list[Evidence]) -> tuple[Evidence, ...]:
    """An edge's evidence once each, in order (most edges have one)."""
    if len(evidence) == 1:
        return tuple(evidence)
    return tuple(sorted(set(evidence), key=lambda e: (e.paper, e.start, e.end, e.rule)))


def _evidence(abstract: Abstract, start: int, end: int, s_start: int, s_end: int, rule: str, confidence: float) -> Evidence:
    if not (s_start <= start and end <= s_end):
        s_start, s_end = start, end
    return Evidence(node_id("Paper", abstract.id), start, end, s_start, s_end, rule, round(confidence, 3))


def _paper_name(abstract: Abstract) -> str:
    if abstract.title:
        return abstract.title
    words = abstract.text.split()
    return " ".join(words[:12]) + (" …" if len(words) > 12 else "")


def _paper_properties(abstract: Abstract) -> dict:
    props = {
        "sourceId": abstract.id,
        "title": abstract.title,
        "year": abstract.year,
        "venue": abstract.venue,
        "primaryArea": abstract.primary_area,
        "decision": abstract.decision,
        "url": abstract.url,
        "keywords": list(abstract.keywords),
        "authors": list(abstract.authors),
        "abstract": abstract.text,
    }
    return {k: v for k, v in props.items() if v not in (None, "", [])}


def _bound_properties(b: Bound, paper: str) -> dict:
    props = {
        "text": b.text,
        "expression": b.expression,
        "unicode": b.unicode,
        "notation": b.notation,
        "quantity": b.quantity,
        "quantityDetail": b.quantity_detail,
        "role": b.role,
        "kind": b.kind,
        "variables": list(b.variables),
        "parsed": b.parsed,
        "subject": b.subject,
        "paper": paper,
        "start": b.start,
        "end": b.end,
    }
    return {k: v for k, v in props.items() if v not in (None, "", [])}
