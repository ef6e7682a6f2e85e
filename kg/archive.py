"""The extraction records a build keeps inside ``OUT`` (``extractions.jsonl.gz``), so that
``kg add`` and ``kg remove`` re-extract only the papers they change.

A gzip'd JSON Lines file: a header line (``format``, ``version``, the field names of each record
type, and the extractor, model and minimum confidence the records were made with, which an update
must match), then one line per paper, sorted by paper id, holding its ``Abstract`` and its
``Extraction`` as read and as extracted (before any confidence cut).  Records are written as lists
of their field values in the order the header names them, trailing defaults left out: an update
reads every paper's line, and on 2,000 ICLR abstracts this is 7.6 MB of JSON read in about a third
of the time that keyed objects (12.2 MB) took.  Fast gzip (level 1: 2.5 MB) for the same reason:
level 9 saved a tenth of the size for five times the time.  The gzip header carries no time and the
lines no file name, so the same papers give the same bytes whichever build or update wrote them.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from kg.errors import BuildError
from kg.records import Abstract, Bound, Extraction, Mention, Relation, Result

FILE_NAME = "extractions.jsonl.gz"
FORMAT = "paperkg-extractions"
VERSION = 1
"""Bumped when the line layout changes; a file of another version, or whose header names other
record fields than this paperkg's, is refused (rebuild)."""

Record = tuple[Abstract, Extraction]
_TYPES: dict[str, type] = {"Abstract": Abstract, "Mention": Mention, "Relation": Relation, "Bound": Bound, "Result": Result}
_PARTS = ("entities", "relations", "bounds", "results")
"""``Extraction``'s record lists, in line order, after the abstract and the extractor name."""
_PART_TYPES = (Mention, Relation, Bound, Result)


class _Layout:
    """One record type's field names, defaults and tuple fields, looked up once per file."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.names = tuple(f.name for f in fields(cls))
        self.defaults = tuple(f.default for f in fields(cls))
        self.tuples = tuple(i for i, f in enumerate(fields(cls)) if str(f.type).startswith("tuple"))

    def encode(self, record: Any) -> list[Any]:
        values = [getattr(record, name) for name in self.names]
        while values and values[-1] == self.defaults[len(values) - 1]:
            values.pop()
        return values

    def decode(self, values: list[Any]) -> Any:
        for i in self.tuples:
            if i < len(values):
                values[i] = tuple(values[i])  # JSON gives lists; records hold tuples so they stay hashable
        return self.cls(*values)


_LAYOUTS = {name: _Layout(cls) for name, cls in _TYPES.items()}


def header(extractor: str, model: str, min_confidence: float) -> dict[str, Any]:
    """What an update must agree with to reuse the records.

    Example:
        >>> header("rules.v1", "en_core_web_sm", 0.5)["minConfidence"]
        0.5
    """
    return {"format": FORMAT, "version": VERSION, "fields": {name: list(layout.names) for name, layout in _LAYOUTS.items()},
            "extractor": extractor, "model": model, "minConfidence": min_confidence}


def write(path: Path, meta: dict[str, Any], records: Iterable[Record]) -> None:
    """Write the header and the records, sorted by paper id."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0, filename="") as gz:
        text = io.TextIOWrapper(gz, encoding="utf-8", newline="\n")
        text.write(json.dumps(meta, sort_keys=True) + "\n")
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        for abstract, extraction in sorted(records, key=lambda r: r[0].id):
            text.write(dumps(encode(abstract, extraction)) + "\n")
        text.flush()
        text.detach()


def read_header(path: Path) -> dict[str, Any]:
    """The header line alone (a refusal need not read the records)."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return _header(path, f.readline())


def read(path: Path) -> Iterator[Record]:
    """The records, in file order; a damaged line is a ``BuildError`` naming the file and line."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        _header(path, f.readline())
        for line_no, line in enumerate(f, start=2):
            try:
                yield decode(json.loads(line))
            except (ValueError, TypeError, IndexError) as exc:
                raise BuildError(f"{path}:{line_no}: damaged extraction record ({exc}); rebuild with `kg build ... -o {path.parent}`") from exc


def _header(path: Path, line: str) -> dict[str, Any]:
    try:
        meta = json.loads(line)
    except ValueError:
        meta = None
    rebuild = f"rebuild with `kg build ... -o {path.parent}`"
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BuildError(f"{path}: not a paperkg extraction file; {rebuild}")
    if meta.get("version") != VERSION or meta.get("fields") != header("", "", 0.0)["fields"]:
        raise BuildError(f"{path}: extraction records written by another paperkg version; {rebuild}")
    return meta


def encode(abstract: Abstract, extraction: Extraction) -> list[Any]:
    """One line: the abstract (without its ``file:line``), the extractor, then each record list.

    Example:
        >>> encode(Abstract("p1", "We study X.", source="a.txt:3"), Extraction("p1", "rules.v1"))
        [['p1', 'We study X.'], 'rules.v1', [], [], [], []]
    """
    return [_LAYOUTS["Abstract"].encode(replace(abstract, source="")), extraction.extractor,
            *([_LAYOUTS[cls.__name__].encode(r) for r in getattr(extraction, part)] for part, cls in zip(_PARTS, _PART_TYPES))]


def decode(line: list[Any]) -> Record:
    """The inverse of ``encode``; a line of the wrong shape raises ``TypeError`` or ``IndexError``.

    Example:
        >>> a, x = decode(encode(Abstract("p1", "We study X.", keywords=("x",)), Extraction("p1", "rules.v1")))
        >>> a.keywords, x.abstract_id
        (('x',), 'p1')
    """
    if not isinstance(line, list) or len(line) != 2 + len(_PARTS):
        raise TypeError(f"a line holds {2 + len(_PARTS)} items")
    abstract = _LAYOUTS["Abstract"].decode(line[0])
    parts = {part: tuple(_LAYOUTS[cls.__name__].decode(v) for v in values) for part, values, cls in zip(_PARTS, line[2:], _PART_TYPES)}
    return abstract, Extraction(abstract.id, line[1], **parts)
