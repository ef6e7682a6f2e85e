"""Shared fixtures: the seeds, the graph built from them, and the CI rule that nothing is skipped.

Tests read data from ``../shared`` beside the clone (CI has the same layout).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPUS = SHARED / "corpus" / "iclr2026.jsonl.gz"
EVAL = SHARED / "eval"


# Hypothesis profiles: "ci" (the default) keeps hypothesis' 100 examples a test, so the six fuzz tests
# run 600 in all; "long" (HYPOTHESIS_PROFILE=long) runs ten times as many.  No deadline: a first
# example loads the spaCy pipeline.
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("long", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="Rewrite tests/golden files from the current output.")


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-extensions",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, one for the whole session: Playwright's sync API runs one event loop per
    process, so a second session-wide instance (another folder's fixture) could not start."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def seed_abstracts():
    from kg.corpus import read_abstracts

    return list(read_abstracts([SEEDS]))


@pytest.fixture(scope="session")
def seeds_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds built once per session with the default pipeline, like README command 1."""
    import kg

    out = tmp_path_factory.mktemp("seeds") / "out"
    kg.build([SEEDS], out)
    return out


# Characters above U+FFFF (two UTF-16 units each: 𝒪 𝔼 𝒞 𝔤 and emoji, one of them a ZWJ sequence) and a
# combining mark (a + U+0308), before and between the mentions, as in four ICLR 2026 abstracts.  Offsets
# count code points; SPARQL's SUBSTR and Cypher's substring must too, and the explorer must convert.
NONBMP_ABSTRACT = (
    "We study estimators whose risk is 𝒪(n log n) under 𝔼[X] = 0 🚀, a setting that na\u0308ive methods ignore. "
    "We propose Equilibrium Propagation (EP), a learning rule for Hopfield networks 👩‍🔬 with 𝒞-regularisation. "
    "On CIFAR-10 and ImageNet 🎉, EP outperforms backpropagation and reaches 95.1% top-1 accuracy, the caf\u00e9 of 𝔤-modules aside."
)
NONBMP_SENTENCE = NONBMP_ABSTRACT[NONBMP_ABSTRACT.index("On CIFAR-10"):]


@pytest.fixture(scope="session")
def nonbmp_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The non-BMP abstract built like any input (JSONL written with ensure_ascii=False)."""
    import json

    import kg

    folder = tmp_path_factory.mktemp("nonbmp")
    source = folder / "nonbmp.jsonl"
    source.write_text(json.dumps({"id": "nonbmp", "title": "𝒪 and 𝔼 🚀", "abstract": NONBMP_ABSTRACT}, ensure_ascii=False) + "\n", encoding="utf-8")
    kg.build([source], folder / "out")
    return folder / "out"


@pytest.fixture(scope="session")
def seeds_graph(seeds_out: Path):
    import kg

    return kg.open(seeds_out).document


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In CI (``CI`` or ``KG_REQUIRE_NEO4J`` set) a skip is a failure: every test must really run."""
    if os.environ.get("CI") or os.environ.get("KG_REQUIRE_NEO4J"):
        config.pluginmanager.register(_NoSkips(), "kg-no-skips")


class _NoSkips:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> object:
        outcome = yield
        report = outcome.get_result()
        if report.skipped and not hasattr(report, "wasxfail"):
            report.outcome = "failed"
            report.longrepr = f"skipped in CI, which must run every test: {report.longrepr}"
        return report
