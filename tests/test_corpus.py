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


@pytest.mark.issue(21)
@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_corpus_jsonl_keeps_unicode_line_separators_inside_values(tmp_path: Path, separator: str) -> None:
    """JSON allows these raw inside strings; str.splitlines() would cut the record in two."""
    text = f"{TEXT}{separator}Second sentence after a separator."
    path = tmp_path / "sep.jsonl"
    path.write_text(json.dumps({"id": "s", "abstract": text, "title": f"a{separator}b"}, ensure_ascii=False) + "\n", encoding="utf-8")
    [a] = _read(path)
    assert a.text == text and a.source == f"{path}:1"


def _gzip_payload() -> bytes:
    return gzip.compress("".join(json.dumps({"id": f"g{i}", "abstract": f"{TEXT} Number {i}."}) + "\n" for i in range(200)).encode())


@pytest.mark.issue(21)
@pytest.mark.parametrize(
    "name,content,message",
    [
        ("cut.jsonl.gz", _gzip_payload()[:300], r"cut\.jsonl\.gz: cannot read \(Compressed file ended"),
        ("bad.jsonl.gz", _gzip_payload()[:30] + b"\xff" * 40 + _gzip_payload()[70:], r"bad\.jsonl\.gz: cannot read \(Error -3"),
        ("plain.jsonl.gz", b"not gzip at all\n", r"plain\.jsonl\.gz: cannot read \(Not a gzipped file"),
        ("quote.csv", b'id,abstract\n1,"' + TEXT.encode() + b"\n2," + TEXT.encode() + b"\n", r"quote\.csv:2: malformed CSV record .*check its quotes"),
        ("stray.csv", b'id,abstract\n1,ok\n2,"' + TEXT.encode() + b'"x\n', r"stray\.csv:3: malformed CSV record"),
        ("headless.csv", TEXT.encode() + b",1\n", r"headless\.csv:1: CSV header has no 'abstract' column"),
        ("blank.jsonl", b"  \n\t\r\n \n", r"blank\.jsonl: file is empty \(or only whitespace\)"),
        ("blank.txt", b"\n\n   \n", r"blank\.txt: file is empty"),
    ],
)
def test_corpus_broken_archives_and_csv_raise_naming_file_and_line(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        _read(path)


@pytest.mark.issue(21)
def test_corpus_max_chars_is_the_last_length_kept(tmp_path: Path) -> None:
    from kg.corpus import MAX_CHARS

    at = ("word " * MAX_CHARS)[: MAX_CHARS - 1] + "x"
    path = tmp_path / "edge.jsonl"
    path.write_text(json.dumps({"id": "at", "abstract": at}) + "\n" + json.dumps({"id": "over", "abstract": at + "y"}) + "\n")
    report = ReadReport()
    assert len(at) == MAX_CHARS
    assert [a.id for a in read_abstracts([path], report=report)] == ["at"]
    assert report.skipped == [f"{path}:2: abstract of {MAX_CHARS + 1:,} characters exceeds {MAX_CHARS:,} (id over)"]


@pytest.mark.issue(21)
def test_corpus_duplicate_id_across_two_files_keeps_the_first_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps({"id": "same", "abstract": TEXT}) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps({"id": "x", "abstract": TEXT + " Other."}) + "\n" + json.dumps({"id": "same", "abstract": TEXT + " Later."}) + "\n")
    report = ReadReport()
    kept = list(read_abstracts([tmp_path], report=report))
    assert [(a.id, a.text) for a in kept] == [("same", TEXT), ("x", TEXT + " Other.")]
    assert report.skipped == [f"{tmp_path / 'b.jsonl'}:2: duplicate id 'same'; keeping the first"]


@pytest.mark.issue(21)
def test_corpus_control_characters_stay_and_offsets_hold(tmp_path: Path) -> None:
    """ICLR 2026 abstracts carry \\x02 where a soft hyphen was; offsets must still index the text as read."""
    import kg.api

    text = "We propose Equi\x02librium Propa\x02gation (EP), which outperforms back\x02propagation on CIFAR-10 and ImageNet."
    path = tmp_path / "ctrl.jsonl"
    path.write_text(json.dumps({"id": "c", "abstract": text}) + "\n")
    [a] = _read(path)
    assert a.text == text
    [x] = list(kg.api.extract([a]))
    spans = [(e.start, e.end, e.text) for e in x.entities]
    assert spans and all(text[s:e] == t for s, e, t in spans)
    assert "CIFAR-10" in {t for _, _, t in spans}
