"""The extraction records a build keeps inside ``OUT`` (``extractions.jsonl.gz``), so that
``kg add`` and ``kg remove`` re-extract only the papers they change.

A gzip'd JSON Lines file: a header line (``format``, ``version``, and the extractor, model and
minimum confidence the records were made with, which an update must match), then one line per
paper, sorted by paper id, holding its ``Abstract`` and its ``Extraction`` as read and as
extracted (before any confidence cut).  Fields at their default value are left out, which
roughly halves the file.  The gzip header carries no time and the lines no file name, so the
same papers give the same bytes whichever build or update wrote them.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, fields, replace
from pathlib import Path
from typing import Any

from kg.errors import BuildError
from kg.records import Abstract, Bound, Extraction, Mention, Relation, Result

FILE_NAME = "extractions.jsonl.gz"
FORMAT = "paperkg-extractions"
VERSION = 1
"""Bumped when a record's fields change; a file of another version is refused (rebuild)."""

Record = tuple[Abstract, Extraction]
_PARTS = {"entities": Mention, "relations": Relation, "bounds": Bound, "results": Result}


def header(extractor: str, model: str, min_confidence: float) -> dict[str, Any]:
    """What an update must agree with to reuse the records.

    Example:
        >>> header("rules.v1", "en_core_web_sm", 0.5)["minConfidence"]
        0.5
    """
    return {"format": FORMAT, "version": VERSION, "extractor": extractor, "model": model, "minConfidence": min_confidence}


def write(path: Path, meta: dict[str, Any], records: Iterable[Record]) -> None:
    """Write the header and the records, sorted by paper id."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        text = io.TextIOWrapper(gz, encoding="utf-8", newline="\n")
        text.write(json.dumps(meta, sort_keys=True) + "\n")
        for abstract, extraction in sorted(records, key=lambda r: r[0].id):
            text.write(json.dumps(encode(abstract, extraction), ensure_ascii=False, separators=(",", ":")) + "\n")
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
            except (ValueError, TypeError, KeyError) as exc:
                raise BuildError(f"{path}:{line_no}: damaged extraction record ({exc}); rebuild with `kg build ... -o {path.parent}`") from exc


def _header(path: Path, line: str) -> dict[str, Any]:
    try:
        meta = json.loads(line)
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BuildError(f"{path}: not a paperkg extraction file; rebuild with `kg build ... -o {path.parent}`")
    if meta.get("version") != VERSION:
        raise BuildError(f"{path}: extraction records of version {meta.get('version')} (this paperkg reads {VERSION}); "
                         f"rebuild with `kg build ... -o {path.parent}`")
    return meta


def encode(abstract: Abstract, extraction: Extraction) -> dict[str, Any]:
    """One line's object: the abstract (without its ``file:line``) and the extraction, defaults left out.

    Example:
        >>> encode(Abstract("p1", "We study X.", source="a.txt:3"), Extraction("p1", "rules.v1"))
        {'abstract': {'id': 'p1', 'text': 'We study X.'}, 'extraction': {'extractor': 'rules.v1'}}
    """
    x = {"extractor": extraction.extractor}
    for name in _PARTS:
        if parts := getattr(extraction, name):
            x[name] = [_fields(p) for p in parts]
    return {"abstract": _fields(replace(abstract, source="")), "extraction": x}


def decode(obj: dict[str, Any]) -> Record:
    """The inverse of ``encode``; unknown or missing fields raise ``TypeError``.

    Example:
        >>> a, x = decode(encode(Abstract("p1", "We study X.", keywords=("x",)), Extraction("p1", "rules.v1")))
        >>> a.keywords, x.abstract_id
        (('x',), 'p1')
    """
    abstract = _record(Abstract, obj["abstract"])
    x = obj["extraction"]
    unknown = set(x) - {"extractor", *_PARTS}
    if unknown:
        raise TypeError(f"unknown extraction fields {sorted(unknown)}")
    parts = {name: tuple(_record(cls, p) for p in x.get(name, ())) for name, cls in _PARTS.items()}
    return abstract, Extraction(abstract.id, x["extractor"], **parts)


def _fields(record: Any) -> dict[str, Any]:
    return {f.name: v for f in fields(record) if (v := getattr(record, f.name)) != f.default or f.default is MISSING}


def _record(cls: type, values: dict[str, Any]) -> Any:
    # Tuple fields come back from JSON as lists; records hold tuples so they stay hashable.
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})
