"""The in-domain annotations: the sample, the splits, and every stored label validated."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kg.evaluation.results import NAME_FIELDS
from kg.training import annotations as A


@pytest.fixture(scope="module")
def sample() -> list[dict]:
    return A.load_sample()


def test_every_stored_annotation_is_valid() -> None:
    problems = A.check()
    assert problems == []
    assert sum(1 for _ in A.read_standoff()) >= 800


def test_sample_is_the_seeded_draw_with_fixed_splits(sample: list[dict]) -> None:
    assert sample == A.draw_sample()
    splits = Counter(r["split"] for r in sample)
    assert splits["test"] >= 150 and splits["dev"] >= 100 and sum(splits.values()) >= 800
    assert {r["corpus"] for r in sample} == set(A.CORPUS_FILES)
    assert len({r["stratum"] for r in sample}) > 40  # primary areas and venue-years
    assert not {r["id"] for r in sample} & A.forbidden_ids()


def test_every_abstract_of_a_draw_read_in_full_has_a_first_pass_and_doubles_a_second(sample: list[dict]) -> None:
    passes = Counter((rec["id"], rec["pass"]) for _, rec in A.read_standoff())
    full = A.read_in_full(sample)
    assert len(full) == 23_200 and all(passes[(r["id"], "a")] == 1 for r in full)
    assert all(passes[(r["id"], "a")] <= 1 for r in sample[len(full):])  # a draw being read
    assert sum(passes[(r["id"], "b")] for r in sample if r["double"]) >= 100
    readers = {}
    for _, rec in A.read_standoff():
        readers.setdefault(rec["id"], set()).add(rec["annotator"])
    assert all(len(readers[r["id"]]) == 2 for r in sample if r["double"])  # two different readers


def test_standoff_files_hold_no_abstract_text() -> None:
    for _, rec in A.read_standoff():
        assert set(rec) == {"id", "corpus", "pass", "annotator", "guidelines", "entities", "paper", "results"}
        assert all(set(e) == {"start", "end", "label", "canonical"} for e in rec["entities"])
        assert all("value" not in r for r in rec["results"])


def _record(**changes) -> dict:
    rec = next(rec for _, rec in A.read_standoff() if rec["entities"])
    return json.loads(json.dumps(rec)) | changes


def test_validate_reports_each_kind_of_problem() -> None:
    good = _record()
    assert A.validate(good, "x") == []
    e = good["entities"][0]
    text = A.corpus()[good["id"]].abstract
    space = text.index(" ")
    assert any("white space" in p for p in A.validate(_record(entities=[{**e, "start": space, "end": space + 2}]), "x"))
    assert any("unknown label" in p for p in A.validate(_record(entities=[{**e, "label": "Concept"}]), "x"))
    assert any("overlap" in p for p in A.validate(_record(entities=[e, {**e, "end": e["end"] + 0}]), "x"))
    assert any("outside" in p for p in A.validate(_record(entities=[{**e, "end": 10**6}]), "x"))
    excluded = sorted(A.forbidden_ids() & set(A.corpus()))[0]
    assert any("excluded" in p for p in A.validate(_record(id=excluded, entities=[], paper={}, results=[]), "x"))
    assert any("no mention's canonical" in p for p in A.validate(_record(paper={"proposes": ["no such name"]}), "x"))
    bad_result = {"start": 0, "end": 1, "low": 2, "high": 1, "kind": "score", "direction": "up", "qualifier": "maybe"}
    problems = A.validate(_record(results=[bad_result]), "x")
    assert any("low > high" in p for p in problems) and any("direction" in p for p in problems) and any("qualifier" in p for p in problems)


def test_check_reports_a_paper_annotated_twice_in_one_pass(tmp_path) -> None:
    rec = _record()
    path = tmp_path / "a-twice.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(rec) + "\n")
    assert any("already in" in p for p in A.check([path]))


def test_anchor_marks_every_repeat_longest_first_and_names_a_missing_quote() -> None:
    text = "Equilibrium Propagation (EP) trains EP-style nets; EP scales. EPIC is not EP."
    ents = A.anchor_entities(text, [["EP", "Method", "equilibrium propagation"],
                                    ["Equilibrium Propagation", "Method", "equilibrium propagation"]], "x")
    assert [text[e["start"]:e["end"]] for e in ents] == ["Equilibrium Propagation", "EP", "EP", "EP", "EP"]
    only = A.anchor_entities(text, [["EP", "Method", "ep", [2, 4]]], "x")
    assert [e["start"] for e in only] == [36, 74]
    with pytest.raises(A.DraftError, match="does not occur"):
        A.anchor_entities(text, [["Backprop", "Method", "backprop"]], "draft.jsonl:3")
    with pytest.raises(A.DraftError, match="unknown label"):
        A.anchor_entities(text, [["EP", "Algorithm", "ep"]], "x")


def test_agreement_between_the_two_passes_is_reported_per_type() -> None:
    a = A.agreement()
    assert a["abstracts"] >= 100
    assert 50 < a["entities"]["exact"]["f1"] <= 100
    assert set(a["entities"]["exact"]["per_type"]) == {"Method", "Model", "Problem", "Dataset", "Metric"}
    assert all(0 < v["f1"] <= 100 for v in a["paper_facts"].values())


def test_batch_unread_lists_what_is_left_of_a_draw_being_read(monkeypatch: pytest.MonkeyPatch) -> None:
    seventh = 10_000  # the seventh draw's first row, 1,200 abstracts read in full; later draws follow
    every = A.batch(2, 8, start=seventh)[:150]
    assert {r["id"] for r in every}.isdisjoint(r["id"] for r in A.batch(2, 8, start=seventh, unread=True))
    stored = list(A.read_standoff())
    unread = {r["id"] for r in every[:7]}
    monkeypatch.setattr(A, "read_standoff", lambda paths=None: iter([(w, r) for w, r in stored if r["id"] not in unread]))
    assert [r["id"] for r in A.batch(2, 8, start=seventh, unread=True)][:7] == [r["id"] for r in every[:7]]


def test_the_annotation_commands_batch_anchor_show_and_check(tmp_path) -> None:
    from click.testing import CliRunner

    from kg.cli import cli

    runner = CliRunner()
    batch = runner.invoke(cli, ["annotations", "batch", "--part", "2", "--of", "8", "--start", "2000"])
    rows = [json.loads(line) for line in batch.stdout.splitlines()]
    assert batch.exit_code == 0 and len(rows) == (len(A.load_sample()) - 2000) // 8 and set(rows[0]) == {"id", "title", "abstract"}
    stored = next(rec for _, rec in A.read_standoff() if rec["id"] == rows[0]["id"] and rec["pass"] == "a")
    text = A.corpus()[stored["id"]].abstract
    draft = {"id": stored["id"], "paper": {}, "results": [],
             "entities": [[text[e["start"]:e["end"]], e["label"], e["canonical"]] for e in stored["entities"][:1]]}
    (tmp_path / "draft.jsonl").write_text(json.dumps(draft) + "\n")
    out = tmp_path / "a-test-01.jsonl"
    anchored = runner.invoke(cli, ["annotations", "anchor", str(tmp_path / "draft.jsonl"), "--annotator", "rt", "-o", str(out)])
    assert anchored.exit_code == 0 and "1 records" in anchored.stdout
    first = stored["entities"][0]
    assert {(e["start"], e["end"]) for e in json.loads(out.read_text())["entities"]} >= {(first["start"], first["end"])}
    shown = runner.invoke(cli, ["annotations", "show", str(out)])
    assert f"[[{text[first['start']:first['end']]}|{first['label']}" in shown.stdout
    checked = runner.invoke(cli, ["annotations", "check", str(out)])
    assert checked.exit_code == 0 and checked.stdout.strip().endswith("1 records, 0 problems")
    (tmp_path / "bad.jsonl").write_text(json.dumps({**draft, "entities": [["no such words here", "Method", "x"]]}) + "\n")
    bad = runner.invoke(cli, ["annotations", "anchor", str(tmp_path / "bad.jsonl"), "--annotator", "rt", "-o", str(out)])
    assert bad.exit_code == 1 and "does not occur" in bad.output
    before = out.read_text()
    orphan = {**draft, "paper": {"proposes": ["a name no mention carries"]}}
    (tmp_path / "orphan.jsonl").write_text(json.dumps(orphan) + "\n")
    refused = runner.invoke(cli, ["annotations", "anchor", str(tmp_path / "orphan.jsonl"), "--annotator", "rt", "-o", str(out)])
    assert refused.exit_code == 1 and "nothing written" in refused.output and out.read_text() == before


def test_a_result_name_accepts_the_acronym_and_the_long_form_the_abstract_defines() -> None:
    gold = {d["id"]: d for d in A.load_gold("train")}
    plain = {d["id"]: d for d in A.load_gold("train", alternatives=False)}
    pm = next(d for d in gold.values() if any(r["method"] == ["PM-KVQ", "Progressive Mixed-Precision KV Cache Quantization"]
                                                for r in d["results"]))
    assert {r["method"] for r in plain[pm["id"]]["results"]} == {"PM-KVQ"}
    names = [r[k] for d in plain.values() for r in d["results"] for k in NAME_FIELDS]
    assert all(n is None or isinstance(n, str) for n in names)  # the standoff stores one name; lists are derived


def test_anchor_skips_names_inside_urls_and_values_inside_longer_numbers() -> None:
    text = "CoDe (https://github.com/x/CoDe) lifts accuracy from 20.7% to 27%, and 7%,17% on B."
    ents = A.anchor_entities(text, [["CoDe", "Method", "CoDe"]], "x")
    assert [e["start"] for e in ents] == [0]
    values = [{"value": "7%", "nth": 1, "low": 7, "high": 7}, {"value": "27%", "nth": 1, "low": 27, "high": 27}]
    assert [text[r["start"]:r["end"]] for r in A.anchor_results(text, values, "x")] == ["27%", "7%"]
    assert A.anchor_results(text, values[:1], "x")[0]["start"] == text.index(" 7%") + 1
    with pytest.raises(A.DraftError, match="occurs 1 times"):
        A.anchor_results(text, [{"value": "7%", "nth": 2}], "x")
    text = "Loss falls from 0.298 to 0, then 7,5 and 7."
    assert [text[r["start"]:r["end"] + 1] for r in A.anchor_results(text, [{"value": "0"}, {"value": "7"}], "x")] == ["0,", "7."]
