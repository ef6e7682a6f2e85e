"""Query specs: a canned query's declaration, and the header its files open with, parsed into
typed parameters.

A query is declared once, by decorating its Python reference (``kg.queries.python``) with
``canned``: the decorator records the reference, the optional steps program (``kg.queries.steps``)
and post-processing (``kg.queries.post``), and the build-time aggregates it needs
(``kg.schema.aggregates.KINDS``).  Its texts are ``cypher/NAME.cypher`` and ``sparql/NAME.rq``;
adding a query is that declaration plus the two files.

A header is four comment lines (``//`` in ``.cypher``, ``#`` in ``.rq``)::

    // name: methods_for_problem
    // summary: Methods and models that address a problem, by supporting papers
    // params: problem (Problem), limit (int = 25)
    // returns: method, id, label, abstracts (int), papers (list)

A parameter type is a scalar (``str``, ``int``, ``float``, ``bool``), ``label`` (an entity label),
or a node reference: a node label, several joined by ``|``, or ``entity`` for any entity label.
References are resolved from names and aliases to node ids before a query runs.  ``name (type?)``
is optional (``None`` when not given), ``name (type = value)`` has a default.  A return column is
``str`` unless typed ``int``, ``float``, ``bool`` or ``list`` (a list of strings, compared sorted).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kg.records import ENTITY_LABELS
from kg.schema import NODE_LABELS
from kg.schema.aggregates import KINDS

SCALARS = ("str", "int", "float", "bool")
COLUMN_TYPES = ("str", "int", "float", "bool", "list")
_REQUIRED = object()
_HEADER = re.compile(r"^\s*(?://|#)\s*(name|summary|params|returns):\s*(.*?)\s*$")
_PARAM = re.compile(r"^(\w+)\s*\(\s*([\w|]+)\s*(\?)?\s*(?:=\s*(.*?))?\s*\)$")
_COLUMN = re.compile(r"^(\w+)(?:\s*\(\s*(\w+)\s*\))?$")


Rows = list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a canned query is besides its texts.

    ``reference``: the Python function every backend's answer is held to; ``program``: runs a query
    whose files are made of parts (``kg.queries.steps``); ``post``: ``post(rows, values)`` adds the
    columns ``added`` (declared in the header, returned by no backend) or keeps some rows, and sees
    every row, so a backend may not stop reading at the limit; ``aggregates``: the build-time
    aggregate kinds the Cypher and SPARQL texts look up."""

    name: str
    reference: Callable[..., Rows]
    program: Callable[..., Rows] | None = None
    post: Callable[[Rows, dict[str, Any]], Rows] | None = None
    added: tuple[str, ...] = ()
    aggregates: tuple[str, ...] = ()

    @property
    def reads_whole(self) -> bool:
        """Whether a backend must return every row (post-processing needs them all)."""
        return self.post is not None


DECLARED: dict[str, Declaration] = {}
"""Every declared query by name, in declaration order (``kg.queries`` imports the references)."""


def canned(*, program: Callable[..., Rows] | None = None, post: Callable[[Rows, dict[str, Any]], Rows] | None = None,
           added: tuple[str, ...] = (), aggregates: tuple[str, ...] = ()) -> Callable:
    """Declare the decorated Python reference a canned query of the same name (see ``Declaration``).

    Example:
        >>> @canned(aggregates=("rank_bands",))
        ... def example_query(g, limit: int = 25):
        ...     return []
        >>> DECLARED.pop("example_query").aggregates
        ('rank_bands',)
    """
    unknown = sorted(set(aggregates) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown aggregate kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
    if added and post is None:
        raise ValueError("added columns need the post-processing that adds them")

    def declare(reference: Callable[..., Rows]) -> Callable[..., Rows]:
        name = reference.__name__
        if name in DECLARED:
            raise ValueError(f"query {name!r} is declared twice")
        DECLARED[name] = Declaration(name, reference, program, post, tuple(added), tuple(aggregates))
        return reference

    return declare


@dataclass(frozen=True, slots=True)
class Param:
    """One declared parameter: its name, its type and its default (``required`` when none)."""

    name: str
    type: str
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    @property
    def labels(self) -> tuple[str, ...]:
        """Node labels a reference parameter may resolve to (empty for scalars and ``label``)."""
        if self.type in SCALARS or self.type == "label":
            return ()
        if self.type == "entity":
            return ENTITY_LABELS
        return tuple(self.type.split("|"))

    def coerce(self, value: Any) -> Any:
        """Convert a value given on the command line (a string) or in Python to the declared type."""
        if value is None:
            return None
        if self.type == "int":
            return int(value)
        if self.type == "float":
            return float(value)
        if self.type == "bool":
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        return str(value)

    def __str__(self) -> str:
        if self.required:
            return f"{self.name} ({self.type})"
        if self.default is None:
            return f"{self.name} ({self.type}?)"
        return f"{self.name} ({self.type} = {self.default})"


@dataclass(frozen=True, slots=True)
class Column:
    """One returned column and the type every backend's value is normalised to."""

    name: str
    type: str = "str"


@dataclass(frozen=True, slots=True)
class Header:
    """The parsed header of one query file."""

    name: str
    summary: str
    params: tuple[Param, ...]
    returns: tuple[Column, ...]


def parse_header(text: str, source: str = "<query>") -> Header:
    """Parse the comment header at the top of a query file.

    Example:
        >>> h = parse_header("// name: q\\n// summary: S\\n// params: problem (Problem), limit (int = 25)\\n// returns: m, n (int)\\nRETURN 1")
        >>> [str(p) for p in h.params], [c.type for c in h.returns]
        (['problem (Problem)', 'limit (int = 25)'], ['str', 'int'])
    """
    fields: dict[str, str] = {}
    for line in text.splitlines():
        match = _HEADER.match(line)
        if not match:
            break
        fields[match.group(1)] = match.group(2)
    missing = [k for k in ("name", "summary", "params", "returns") if k not in fields]
    if missing:
        raise ValueError(f"{source}: header lacks {', '.join(missing)}; it must open with name, summary, params and returns lines")
    params = tuple(_parse_param(p, source) for p in _split(fields["params"]))
    returns = tuple(_parse_column(c, source) for c in _split(fields["returns"]))
    return Header(fields["name"], fields["summary"], params, returns)


def _split(text: str) -> list[str]:
    """Split on commas outside parentheses (a default may not contain a comma, but a type list may)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return [p for p in parts if p and p != "-"]


def _parse_param(text: str, source: str) -> Param:
    match = _PARAM.match(text)
    if not match:
        raise ValueError(f"{source}: cannot read parameter {text!r}; write 'name (type)', 'name (type?)' or 'name (type = default)'")
    name, type_, optional, default = match.groups()
    known = (*SCALARS, "label", "entity")
    if type_ not in known and not all(label in NODE_LABELS for label in type_.split("|")):
        raise ValueError(f"{source}: parameter {name!r} has unknown type {type_!r}; known: {', '.join(known)} or node labels")
    param = Param(name, type_)
    if optional:
        return Param(name, type_, None)
    if default is not None:
        return Param(name, type_, param.coerce(default.strip().strip("\"'")))
    return param


def _parse_column(text: str, source: str) -> Column:
    match = _COLUMN.match(text)
    if not match or (match.group(2) or "str") not in COLUMN_TYPES:
        raise ValueError(f"{source}: cannot read return column {text!r}; write 'name' or 'name (type)' with type in {COLUMN_TYPES}")
    return Column(match.group(1), match.group(2) or "str")
