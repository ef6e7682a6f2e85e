"""Reading abstracts: seed-format text lists, JSONL, JSONL.gz and CSV, files or folders.

Every problem names the file and line it comes from.  Placeholder abstracts, duplicates and
oversized records are skipped with a warning; malformed input raises ``InputError`` unless
``on_error="skip"``.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import logging
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kg.errors import InputError
from kg.records import Abstract

log = logging.getLogger(__name__)

SUFFIXES = (".txt", ".jsonl", ".jsonl.gz", ".json.gz", ".ndjson", ".csv")
MIN_WORDS = 10
MAX_CHARS = 100_000
"""An 'abstract' longer than this is not one (the longest real one in the ICLR corpus is ~5k chars)."""

PLACEHOLDERS = frozenset({"n/a", "na", "none", "tbd", "todo", "-", ".", "abstract", "null"})

OnError = Literal["raise", "skip"]


@dataclass
class ReadReport:
    """What reading skipped and why, for the build summary."""

    read: int = 0
    skipped: list[str] = field(default_factory=list)

    def skip(self, where: str, why: str) -> None:
        self.skipped.append(f"{where}: {why}")
        log.warning("skipped %s: %s", where, why)


def content_id(text: str) -> str:
    """Stable id of an abstract without one: a hash of its whitespace-normalised text."""
    norm = " ".join(text.split())
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


def find_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand files and folders (recursively) into readable input files, in a stable order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and _has_suffix(p)))
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    return found


def _has_suffix(path: Path) -> bool:
    return path.name.lower().endswith(SUFFIXES)


def read_abstracts(
    paths: Iterable[str | Path],
    *,
    on_error: OnError = "raise",
    report: ReadReport | None = None,
) -> Iterator[Abstract]:
    """Yield the abstracts of every input file, skipping placeholders and duplicate ids.

    Example:
        >>> from kg.settings import shared_path
        >>> abstracts = list(read_abstracts([shared_path("seeds")]))
        >>> len(abstracts), Path(abstracts[0].source).name
        (38, '000_40d7feb1904c05ac.txt:3')
    """
    report = report if report is not None else ReadReport()
    seen: set[str] = set()
    for path in find_files(paths):
        for abstract in _read_file(path, on_error, report):
            if abstract.id in seen:
                report.skip(abstract.source, f"duplicate id {abstract.id!r}; keeping the first")
                continue
            why = placeholder_reason(abstract.text)
            if why:
                report.skip(abstract.source, f"{why} (id {abstract.id})")
                continue
            seen.add(abstract.id)
            report.read += 1
            yield abstract


def placeholder_reason(text: str) -> str | None:
    """Why ``text`` is not a usable abstract, or ``None`` when it is."""
    stripped = text.strip()
    if stripped.lower().strip(".") in PLACEHOLDERS or stripped.lower().startswith("this is a null submission"):
        return f"placeholder abstract {stripped[:40]!r}"
    if len(stripped.split()) < MIN_WORDS:
        return f"abstract under {MIN_WORDS} words {stripped[:40]!r}"
    if len(stripped) > MAX_CHARS:
        return f"abstract of {len(stripped):,} characters exceeds {MAX_CHARS:,}"
    return None


def _read_file(path: Path, on_error: OnError, report: ReadReport) -> Iterator[Abstract]:
    raw = _read_bytes(path)
    if not raw.strip():
        raise InputError(f"{path}: file is empty (or only whitespace)")
    if b"\x00" in raw[:65536]:
        raise InputError(f"{path}: binary file (NUL bytes); expected text, JSONL or CSV")
    text = _decode(path, raw)
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".ndjson")):
        yield from _read_jsonl(path, text, on_error, report)
    elif name.endswith(".csv"):
        yield from _read_csv(path, text, on_error, report)
    else:
        yield from _read_seed_text(path, text)


def _read_bytes(path: Path) -> bytes:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                return fh.read()
        return path.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:  # zlib.error: a corrupt deflate stream inside a .gz
        raise InputError(f"{path}: cannot read ({exc})") from exc


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "re-encode the file as UTF-8"
        ) from exc


def _read_seed_text(path: Path, text: str) -> Iterator[Abstract]:
    """Seed lists: an optional one-line heading, then abstracts separated by blank lines."""
    blocks = _blocks(text)
    if blocks and _is_heading(blocks[0][1]):
        blocks = blocks[1:]
    for line, block in blocks:
        yield Abstract(id=content_id(block), text=block, source=f"{path}:{line}")


def _blocks(text: str) -> list[tuple[int, str]]:
    """Blank-line separated blocks, stripped, with the 1-based line each starts on."""
    blocks: list[tuple[int, str]] = []
    for match in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", text):
        line = text.count("\n", 0, match.start()) + 1
        blocks.append((line, match.group().strip()))
    return blocks


def _is_heading(block: str) -> bool:
    return "\n" not in block and len(block) < 120 and not block.rstrip().endswith(".")


def _read_jsonl(path: Path, text: str, on_error: OnError, report: ReadReport) -> Iterator[Abstract]:
    # Split on "\n" only: str.splitlines() also breaks at U+2028, U+2029 and U+0085, which JSON
    # allows raw inside strings (json.dumps(..., ensure_ascii=False) writes them).
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError(f"expected a JSON object, got {type(record).__name__}")
        except ValueError as exc:
            _fail(where, f"invalid JSON ({exc})", on_error, report)
            continue
        abstract = _from_record(record, where, on_error, report)
        if abstract is not None:
            yield abstract


def _read_csv(path: Path, text: str, on_error: OnError, report: ReadReport) -> Iterator[Abstract]:
    # strict: an unbalanced quote is an error, not a field that silently swallows the rest of the file.
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as exc:
        raise InputError(f"{path}:1: malformed CSV header ({exc})") from exc
    if not fieldnames or "abstract" not in fieldnames:
        raise InputError(f"{path}:1: CSV header has no 'abstract' column (columns: {fieldnames})")
    while True:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # the reader cannot resynchronise after a broken quote: stop here
            raise InputError(f"{path}:{start}: malformed CSV record ({exc}); check its quotes") from exc
        abstract = _from_record(record, f"{path}:{start}", on_error, report)
        if abstract is not None:
            yield abstract


def _fail(where: str, why: str, on_error: OnError, report: ReadReport) -> None:
    if on_error == "raise":
        raise InputError(f"{where}: {why} (use --on-error skip to skip bad records)")
    report.skip(where, why)


def _from_record(record: dict[str, Any], where: str, on_error: OnError, report: ReadReport) -> Abstract | None:
    text = record.get("abstract")
    if not isinstance(text, str):
        _fail(where, "record has no 'abstract' text field", on_error, report)
        return None
    rid = record.get("id")
    return Abstract(
        id=str(rid) if rid not in (None, "") else content_id(text),
        text=text,
        title=_text(record.get("title")),
        year=_year(record.get("year")),
        venue=_text(record.get("venue")),
        primary_area=_text(record.get("primary_area")),
        decision=_text(record.get("decision")),
        url=_text(record.get("openreview_url") or record.get("url")),
        keywords=_list(record.get("keywords")),
        authors=_list(record.get("authors")),
        source=where,
    )


def _text(value: Any) -> str:
    return "" if value is None else " ".join(str(value).split())


def _year(value: Any) -> int | None:
    try:
        return int(str(value).strip()[:4]) if value not in (None, "") else None
    except ValueError:
        return None


def _list(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else value.split(",")
        return tuple(p.strip() for p in parts if p.strip())
    return tuple(str(v).strip() for v in value if str(v).strip())
