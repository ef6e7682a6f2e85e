"""The record chain: Abstract -> Extraction -> GraphDocument.

Every record is a frozen dataclass.  Spans carry character offsets into the
abstract *as read* (``abstract.text[start:end] == text`` always holds), so a
reader can find any claim in the original source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ENTITY_LABELS: tuple[str, ...] = ("Method", "Model", "Problem", "Dataset", "Metric", "Concept")
"""Entity node types of the graph (Paper and Bound are the other two node types)."""
METHOD_LABELS: tuple[str, ...] = ("Method", "Model")
"""The labels a "method" parameter or answer may have: methods and models."""


@dataclass(frozen=True, slots=True)
class Abstract:
    """One paper's abstract with its metadata; ``source`` is ``file:line`` for messages."""

    id: str
    text: str
    title: str = ""
    year: int | None = None
    venue: str = ""
    primary_area: str = ""
    decision: str = ""
    url: str = ""
    keywords: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True, slots=True)
class Mention:
    """An entity mention: a typed span of the abstract with the name it resolves to."""

    start: int
    end: int
    text: str
    label: str
    canonical: str
    sentence_start: int = 0
    sentence_end: int = 0
    rule: str = ""
    confidence: float = 1.0
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed relation between two mentions (``head``/``tail`` index ``Extraction.entities``).

    ``head`` is ``None`` for relations whose subject is the paper itself (PROPOSES, ADDRESSES).
    """

    head: int | None
    tail: int
    label: str
    sentence_start: int = 0
    sentence_end: int = 0
    rule: str = ""
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Bound:
    """A complexity bound or rate stated in an abstract, parsed and typed."""

    start: int
    end: int
    text: str
    notation: str  # O, Omega, Theta, o, omega, soft-O, soft-Omega, rate
    expression: str  # normalised ASCII, e.g. "O~_T(sqrt(T))"
    quantity: str = "other"
    role: str = "new"  # new, prior, lower, condition
    kind: str = "bound"  # bound or factor
    subject: str = ""
    subject_entity: int | None = None  # index into Extraction.entities
    improves_on: int | None = None  # index into Extraction.bounds
    variables: tuple[str, ...] = ()
    parsed: bool = True
    unicode: str = ""
    quantity_detail: str = ""
    sentence_start: int = 0
    sentence_end: int = 0
    rule: str = ""
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Result:
    """A reported quantitative result (``results-GUIDELINES.md``): one number as written, parsed,
    with who achieved it, against what, measured how and on what.

    ``*_entity`` fields index ``Extraction.entities`` where the name is a recognised mention.
    """

    start: int
    end: int
    text: str  # the value as written: "84.1\\%", "3.3×", "18–23%"
    low: float
    high: float
    unit: str = ""  # "%", "x", "pp", a unit word ("fps", "ms"), or ""
    kind: str = "score"  # score or change
    direction: str | None = None  # up / down for a change
    qualifier: str | None = None  # up to, over, below, about, average
    method: str | None = None
    baseline: str | None = None
    metric: str | None = None
    dataset: str | None = None
    setting: str | None = None
    method_entity: int | None = None
    baseline_entity: int | None = None
    metric_entity: int | None = None
    dataset_entity: int | None = None
    sentence_start: int = 0
    sentence_end: int = 0
    rule: str = ""
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything extracted from one abstract, offsets into ``Abstract.text``."""

    abstract_id: str
    extractor: str
    entities: tuple[Mention, ...] = ()
    relations: tuple[Relation, ...] = ()
    bounds: tuple[Bound, ...] = ()
    results: tuple[Result, ...] = ()


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where one paper supports a node or an edge: a span and the sentence around it.

    All four offsets index the paper's abstract as read.  The sentence is not copied here: the
    Paper node holds the abstract once, and ``sentence_in`` slices it, so a graph of half a million
    evidence spans does not repeat its sentences half a million times.
    """

    paper: str
    start: int
    end: int
    sentence_start: int
    sentence_end: int
    rule: str
    confidence: float

    def sentence_in(self, abstract: str) -> str:
        """The evidence sentence, given the text of the paper's abstract."""
        return abstract[self.sentence_start : self.sentence_end]


@dataclass(frozen=True, slots=True)
class Node:
    """A resolved graph node; ``properties`` holds type-specific scalar fields."""

    id: str
    label: str
    name: str
    aliases: tuple[str, ...] = ()
    papers: tuple[str, ...] = ()
    mentions: int = 0
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def support(self) -> int:
        """Number of distinct papers that mention this node."""
        return len(self.papers)

    def with_properties(self, properties: dict[str, Any]) -> Node:
        """This node with other ``properties``: a build gives every node its aggregates, and
        ``dataclasses.replace`` looks the fields up again on every call."""
        return Node(self.id, self.label, self.name, self.aliases, self.papers, self.mentions, properties)


@dataclass(frozen=True, slots=True)
class Edge:
    """A resolved, typed edge aggregated over all papers that support it."""

    source: str
    target: str
    type: str
    evidence: tuple[Evidence, ...] = ()
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Deterministic identity of the edge (one edge per source, type, target)."""
        return f"{self.source}|{self.type}|{self.target}"

    @property
    def papers(self) -> tuple[str, ...]:
        return tuple(sorted({e.paper for e in self.evidence}))

    @property
    def support(self) -> int:
        return len(self.papers)

    def with_properties(self, properties: dict[str, Any]) -> Edge:
        """This edge with other ``properties`` (as ``Node.with_properties``)."""
        return Edge(self.source, self.target, self.type, self.evidence, properties)


@dataclass(frozen=True, slots=True)
class GraphDocument:
    """The resolved graph: nodes and edges sorted by id, ready for any sink."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    meta: dict[str, Any] = field(default_factory=dict)
