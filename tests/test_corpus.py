"""Reading every input format, and every kind of bad input, with messages that name file and line."""

from __future__ import annotations

import csv
import gzip
import json
import logging
from pathlib import Path

import pytest

from kg.corpus import ReadReport, content_id, read_abstracts
from kg.errors import InputError
from tests.conftest import SEEDS

TEXT = "We propose a new optimizer for training deep neural networks on image classification benchmarks."


def _read(*paths, **kw):
    return list(read_abstracts(paths, **kw))


@pytest.mark.parametrize("name,heading", [("000_40d7feb1904c05ac.txt", "ICLR 2026 论文列表"), ("004_b1df2cca5c5e9e9b.txt", None)])
def test_corpus_reads_each_seed_file(name: str, heading: str | None) -> None:
    abstracts = _read(SEEDS / name)
    assert len(abstracts) == 19
    raw = (SEEDS / name).read_text(encoding="utf-8")
    for a in abstracts:
        assert a.text == a.text.strip() and a.text in raw
        assert a.id == content_id(a.text)
        assert a.source.startswith(str(SEEDS / name) + ":")
    if heading:
        assert all(heading not in a.text for a in abstracts)


def test_corpus_reads_seed_folder_with_stable_ids() -> None:
    first, second = _read(SEEDS), _read(SEEDS)
    assert len(first) == 38
    assert [a.id for a in first] == [a.id for a in second]
    assert first[0].text.startswith("Facility Location is a fundamental problem")


def test_corpus_reads_jsonl_gz_and_csv_with_metadata(tmp_path: Path) -> None:
    record = {"id": "abc", "title": "A title", "abstract": "  " + TEXT, "year": 2019, "venue": "ICML",
              "keywords": ["optimization", "deep learning"], "primary_area": "optimization",
              "decision": "Accept", "authors": ["A. Author"], "openreview_url": "https://openreview.net/forum?id=abc"}
    (tmp_path / "a.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    with gzip.open(tmp_path / "sub" / "b.jsonl.gz", "wt") as fh:
        fh.write(json.dumps({"id": "gz1", "abstract": TEXT + " Again."}) + "\n")
    with open(tmp_path / "c.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, ["id", "title", "abstract", "year", "keywords"])
        w.writeheader()
        w.writerow({"id": "c1", "title": "CSV paper", "abstract": TEXT + " Third.", "year": "2020", "keywords": "a; b"})
    by_id = {a.id: a for a in _read(tmp_path)}
    assert set(by_id) == {"abc", "gz1", "c1"}
    a = by_id["abc"]
    assert a.text == "  " + TEXT, "offsets index the abstract exactly as given, leading spaces included"
    assert (a.title, a.year, a.venue, a.primary_area, a.decision) == ("A title", 2019, "ICML", "optimization", "Accept")
    assert a.keywords == ("optimization", "deep learning") and a.authors == ("A. Author",)
    assert a.url == "https://openreview.net/forum?id=abc"
    assert by_id["c1"].keywords == ("a", "b") and by_id["c1"].year == 2020
    assert by_id["c1"].source == f"{tmp_path / 'c.csv'}:2"


def test_corpus_jsonl_without_id_gets_content_hash(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text(json.dumps({"abstract": TEXT}) + "\n", encoding="utf-8")
    [a] = _read(tmp_path / "x.jsonl")
    assert a.id == content_id(TEXT)


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "file is empty"),
        (b"\x00\x01\x02binary\x00", "binary file"),
        (b'{"id": "1", "abstract": "caf\xe9 ' + TEXT.encode() + b'"}\n', ":1: not UTF-8"),
    ],
)
def test_corpus_bad_files_raise_naming_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as err:
        _read(path)
    assert str(path) in str(err.value)


def test_corpus_broken_jsonl_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({"id": "1", "abstract": TEXT}) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.jsonl:3: invalid JSON"):
        _read(path)
    report = ReadReport()
    assert [a.id for a in read_abstracts([path], on_error="skip", report=report)] == ["1"]
    assert report.skipped and "broken.jsonl:3" in report.skipped[0]


def test_corpus_missing_abstract_field(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"id": "1", "title": "no abstract"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"m\.jsonl:1: record has no 'abstract'"):
        _read(path)


def test_corpus_skips_duplicates_placeholders_and_huge(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rows = [
        {"id": "d", "abstract": TEXT},
        {"id": "d", "abstract": TEXT + " A different second version."},
        {"id": "p1", "abstract": "n/a"},
        {"id": "p2", "abstract": "1"},
        {"id": "p3", "abstract": "This is a null submission."},
        {"id": "big", "abstract": "word " * 1_100_000},
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = ReadReport()
    with caplog.at_level(logging.WARNING):
        kept = list(read_abstracts([path], report=report))
    assert [(a.id, a.text) for a in kept] == [("d", TEXT)]
    assert len(report.skipped) == 5
    assert any("mixed.jsonl:2: duplicate id 'd'" in s for s in report.skipped)
    assert any("mixed.jsonl:6" in s and "exceeds" in s for s in report.skipped)
    assert "placeholder" in caplog.text


def test_corpus_missing_path() -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        _read("/nonexistent/abstracts.jsonl")
