"""The Python API as the only door: one resolver behind every way of naming a node, a CLI that
imports nothing but the API, and an import graph without cycles between subpackages."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import kg
from kg import queries
from kg.errors import UnknownEntity
from kg.queries.backends import PythonBackend
from kg.viz.payload import build_payload

ROOT = Path(__file__).resolve().parents[1]


def _spellings(graph) -> list[str]:
    """Names of the best-supported entities as a user types them: lower case, plural, hyphenated, aliases."""
    entities = sorted((n for n in graph.entities()), key=lambda n: (-n.support, n.id))[:8]
    out = []
    for n in entities:
        out += [n.name.lower(), n.name.replace(" ", "-"), n.name if n.name.endswith("s") else n.name + "s", *n.aliases[:1]]
    return out


def test_every_door_resolves_a_name_to_the_same_node(seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    backend = PythonBackend(graph.to_networkx())
    for name in _spellings(graph):
        via_query = queries.find(backend, name)
        assert graph.find(name).id == via_query, name
        assert queries.run("papers_for_entity", {"entity": name}, "embedded", store=graph.store) == \
            queries.run("papers_for_entity", {"entity": via_query}, "python", graph=backend.graph), name
        payload = build_payload(graph.document, entity=name, hops=1)
        assert payload["nodes"][payload["view"]["centre"]][0] == via_query, name


def test_every_door_refuses_an_unknown_name_alike(seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    best = max(graph.entities(), key=lambda n: (n.support, n.id))
    typo = best.name[:-1] + best.name[-1] * 2  # one letter doubled at the end
    raised = []
    for door in (lambda: graph.find(typo), lambda: graph.evidence(typo), lambda: build_payload(graph.document, entity=typo),
                 lambda: kg.api.query("papers_for_entity", {"entity": typo}, out=seeds_out)):
        with pytest.raises(UnknownEntity) as err:
            door()
        raised.append(err.value.suggestions)
    assert raised[0] and best.name in raised[0] and all(s == raised[0] for s in raised)


def test_evidence_sentences_hold_the_mention(seeds_out: Path) -> None:
    graph = kg.open(seeds_out)
    best = max(graph.entities(), key=lambda n: (n.support, n.id))
    rows = graph.evidence(best.name)
    assert len({r["paper"] for r in rows}) == best.support
    abstracts = {p.id: p.properties["abstract"] for p in graph.papers()}
    for r in rows:
        mention = r["sentence"][r["start"] - r["sentence_start"]: r["end"] - r["sentence_start"]]
        assert mention and mention == abstracts[r["paper"]][r["start"]: r["end"]]
        assert r["sentence"] == abstracts[r["paper"]][r["sentence_start"]: r["sentence_start"] + len(r["sentence"])]


def _kg_imports(path: Path) -> set[str]:
    """Modules of ``kg`` that a file imports (at any depth of the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kg"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if node.module == "kg")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("kg"))
    return found


def test_the_cli_imports_only_the_api_errors_and_settings() -> None:
    assert _kg_imports(ROOT / "kg" / "cli.py") == {"kg", "kg.api", "kg.errors", "kg.settings"}


def test_no_import_cycle_between_subpackages() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    arrows = module.arrows(ROOT)
    assert [(a, b) for a in arrows for b in arrows[a] if a in arrows.get(b, ())] == []
    assert "kg.queries" not in arrows["kg.stores"] and "kg.viz" not in arrows["kg.stores"]
    assert arrows["kg.cli"] == {"kg.api", "kg.errors", "kg.settings"}


def test_names_and_resolution_need_no_spacy(seeds_out: Path) -> None:
    code = (
        "import sys, kg; from kg.names import canonical; g = kg.open(sys.argv[1]); "
        "best = max(g.entities(), key=lambda n: n.support); assert g.find(best.name).id == best.id; "
        "assert canonical('the Transformers') == 'transformer'; "
        "assert 'spacy' not in sys.modules, sorted(m for m in sys.modules if m.startswith('spacy'))[:3]"
    )
    subprocess.run([sys.executable, "-c", code, str(seeds_out)], check=True, cwd=ROOT)
