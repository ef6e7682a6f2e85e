"""rdflib as the Python face of the embedded store: a live view (no copy) and the exports made through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib
from click.testing import CliRunner
from oxrdflib import OxigraphStore

import kg
from kg.cli import cli


def test_rdf_is_a_view_of_the_store_not_a_copy(seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    rdf = graph.rdf()
    assert isinstance(rdf.store, OxigraphStore) and rdf.store._inner is graph.store
    assert len(rdf) == len(graph.store)
    question = "SELECT ?name WHERE { ?m a kg:Method ; skos:prefLabel ?name } ORDER BY ?name"
    assert [str(row.name) for row in rdf.query(question)] == [row["name"] for row in graph.sparql(question)]
    assert dict(rdf.namespaces())["kg"] == rdflib.URIRef("https://w3id.org/paperkg/ns#")


@pytest.mark.parametrize(("fmt", "parse_as"), [("ttl", "turtle"), ("nt", "nt"), ("jsonld", "json-ld")])
def test_export_parses_back_to_the_store(seeds_out: Path, tmp_path: Path, fmt: str, parse_as: str) -> None:
    graph = kg.open(seeds_out)
    path = tmp_path / f"graph.{fmt}"
    result = CliRunner().invoke(cli, ["export", str(seeds_out), "--format", fmt, "-o", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{len(graph.store)} triples -> {path}" in result.output
    parsed = rdflib.Graph().parse(path, format=parse_as)  # rdflib's own parsers, in memory
    assert len(parsed) == len(graph.store)
    papers = set(parsed.subjects(rdflib.RDF.type, rdflib.URIRef("https://w3id.org/paperkg/ns#Paper")))
    assert len(papers) == graph.summary["papers"]
    if fmt == "jsonld":
        assert json.loads(path.read_text())["@context"]["kg"] == "https://w3id.org/paperkg/ns#"  # compact, readable


def test_export_to_stdout_and_bad_folders(seeds_out: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["export", str(seeds_out), "--format", "nt"])
    assert result.exit_code == 0
    assert len([line for line in result.stdout.splitlines() if line.endswith(" .")]) == len(kg.open(seeds_out).store)
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["export", str(empty), "--format", "ttl", "-o", str(tmp_path / "x.ttl")])
    assert result.exit_code == 1 and f"{empty}: not a paperkg output folder" in result.output
    assert not (tmp_path / "x.ttl").exists() and not list(tmp_path.glob(".x.ttl.tmp-*"))
    result = CliRunner().invoke(cli, ["export", str(seeds_out), "--format", "xml"])
    assert result.exit_code == 2 and "'xml' is not one of" in result.output
