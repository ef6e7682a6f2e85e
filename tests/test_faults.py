"""Builds that die or fail part way: killed by SIGKILL, a writer over its file size limit, two builds
into one folder, a graph stranded between two renames, a missing explorer bundle.  Each time the
previous graph must survive byte for byte, and no dead build's folder may outlive the next build.
``bench/faults.py`` runs the long version (20 kills at random moments)."""

from __future__ import annotations

import io
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kg
from kg.errors import BuildError, InputError
from kg.testing import output_digest
from tests.conftest import ROOT, SEEDS

pytestmark = pytest.mark.issue(21)

KG = [sys.executable, "-c", "from kg.cli import cli; cli()"]


def _kg(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([*KG, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _litter(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _wait_for(predicate, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, f"the build ended before the moment to kill it: {proc.communicate()}"
        assert time.monotonic() < deadline, "the build never reached the moment to kill it"
        time.sleep(0.002)


@pytest.fixture(scope="module")
def clean_digest(seeds_out: Path) -> str:
    return output_digest(seeds_out)


@pytest.mark.parametrize("moment", ["extraction", "writers"])
def test_faults_sigkill_keeps_previous_graph_and_rerun_equals_clean_build(tmp_path: Path, seeds_out: Path, clean_digest: str, moment: str) -> None:
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    proc = _kg("build", str(SEEDS), "-o", str(out))
    lock = tmp_path / ".out.lock"
    if moment == "extraction":
        _wait_for(lambda: lock.exists() and lock.read_text().strip() == str(proc.pid), proc)
    else:
        _wait_for(lambda: any(n.startswith(".out.tmp-") for n in _litter(out)), proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert output_digest(out) == clean_digest, "the previous graph is intact"
    assert kg.open(out).sparql("SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }") == [{"n": 38}]
    assert kg.api.query("top_entities", {"type": "Method"}, out=str(out))
    if moment == "writers":
        assert any(n.startswith(".out.tmp-") for n in _litter(out)), "the kill really left a half-written folder"
    kg.build([SEEDS], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == [], "the next build removes what the dead one left"


def test_faults_second_build_into_same_folder_fails_with_lock_message(tmp_path: Path, clean_digest: str) -> None:
    out = tmp_path / "out"
    first = _kg("build", str(SEEDS), "-o", str(out))
    lock = tmp_path / ".out.lock"
    _wait_for(lambda: lock.exists() and lock.read_text().strip() == str(first.pid), first)
    with pytest.raises(BuildError, match=rf"another kg build \(pid {first.pid}\) is writing {out}; wait for it"):
        kg.build([SEEDS], out)
    assert first.wait(timeout=300) == 0, first.communicate()
    assert output_digest(out) == clean_digest, "the first build's folder was not touched by the second"
    assert _litter(out) == []


def test_faults_writer_over_file_size_limit_fails_clearly_and_keeps_graph(tmp_path: Path, seeds_out: Path, clean_digest: str) -> None:
    """The store, written first, holds the biggest files (the exports are compressed), so a file-size
    limit under its biggest file is where a build runs out of room."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    writer = "store"
    limit = max(f.stat().st_size for f in (out / "store").rglob("*") if f.is_file()) // 2

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = _kg("build", str(SEEDS), "-o", str(out), preexec_fn=cap)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stderr
    assert f"could not write the graph into {out} ({writer}: " in stderr and "File too large" in stderr
    assert "the previous graph there is kept" in stderr and "Traceback" not in stderr
    assert output_digest(out) == clean_digest
    assert _litter(out) == []


def test_faults_graph_stranded_between_renames_is_put_back(tmp_path: Path, seeds_out: Path, clean_digest: str) -> None:
    """Where RENAME_EXCHANGE is missing the swap is two renames; a build killed between them leaves
    ``OUT`` missing and the graph in ``.OUT.old-PID``: the next build, even a failing one, restores it."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, tmp_path / ".out.old-4194305")
    (tmp_path / ".out.tmp-dead").mkdir()
    (tmp_path / ".other.tmp-live").mkdir()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    with pytest.raises(InputError):
        kg.build([bad], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == [] and (tmp_path / ".other.tmp-live").is_dir(), "another output's folders are not ours"


def test_faults_swap_exchanges_atomically_here(tmp_path: Path) -> None:
    from kg.outdir import _exchange

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "new").touch()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "old").touch()
    assert _exchange(tmp_path / "a", tmp_path / "b") is True
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["new"] and [p.name for p in (tmp_path / "a").iterdir()] == ["old"]


def test_faults_missing_explorer_bundle_still_writes_every_other_output(tmp_path: Path) -> None:
    """An install without the npm bundle (a clone installed with no Node) builds everything else."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "kg", site / "kg", ignore=shutil.ignore_patterns("vendor.js", "models", "__pycache__"))
    (site / "kg" / "models").symlink_to(ROOT / "kg" / "models")
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([*KG, "build", str(SEEDS), "-o", str(out)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["extractions.jsonl.gz", "graph.json.gz", "graph.ttl.gz", "statements.idx.gz", "store", "summary.json"]
    assert "no explorer.html" in done.stderr and "pip install dist/paperkg-" in done.stderr and "make kg/viz/static/vendor.js" in done.stderr
    assert kg.open(out).summary["explorer"].startswith("the explorer's renderer bundle")


def test_faults_writer_failing_in_the_forked_lane_fails_clearly_and_keeps_graph(
        tmp_path: Path, seeds_out: Path, clean_digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exports are written by a forked child beside the store: its OS error comes back as the
    writer's own, and the build leaves the previous graph."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)

    def full(graph, path: Path) -> None:
        path.write_bytes(b"{")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("kg.stores.nx.write_node_link", full)
    with pytest.raises(BuildError, match=rf"could not write the graph into {out} \(graph.json.gz: \[Errno 28\] No space left on device\); the previous graph there is kept"):
        kg.build([SEEDS], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == []


def test_faults_forked_lane_killed_fails_clearly_and_keeps_graph(
        tmp_path: Path, seeds_out: Path, clean_digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    monkeypatch.setattr("kg.stores.nx.write_node_link", lambda graph, path: os.kill(os.getpid(), signal.SIGKILL))
    with pytest.raises(BuildError, match=r"\(graph.json.gz, explorer.html: the process writing them died, exit code -9\); the previous graph there is kept"):
        kg.build([SEEDS], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == []


def test_faults_digest_process_killed_fails_clearly_and_keeps_graph(
        tmp_path: Path, seeds_out: Path, clean_digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An update's NODE and EDGE digests are made by a forked process beside the aggregates: its death
    is the store's error, with the graph kept."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    monkeypatch.setattr("kg.stores.rdf.own_digests", lambda graph: os.kill(os.getpid(), signal.SIGKILL))
    paper = next(n.id for n in kg.open(out).papers())
    with pytest.raises(BuildError, match=r"\(store: the process making the store's digests died, exit code -9\); the previous graph there is kept"):
        kg.api.remove(out, [paper])
    assert output_digest(out) == clean_digest
    assert _litter(out) == []


def test_faults_store_loader_failing_fails_clearly_and_keeps_graph(
        tmp_path: Path, seeds_out: Path, clean_digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store is bulk-loaded by a process of its own: its failure (here: it stops reading and
    exits with a message, as a full disk would make it) is the store's error, with the graph kept."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    monkeypatch.setattr("kg.stores.rdf.LOADER", "import sys; sys.stdin.buffer.read(1000); sys.exit('IO error: No space left on device')")
    with pytest.raises(BuildError, match=rf"could not write the graph into {out} \(store: the store's loader failed \(exit 1\): IO error: No space left on device\); the previous graph there is kept"):
        kg.build([SEEDS], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == []


def test_faults_turtle_export_failing_beside_the_store_fails_clearly_and_keeps_graph(
        tmp_path: Path, seeds_out: Path, clean_digest: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Turtle is written from a thread while the same statements feed the store's loader: a full
    disk there is the build's error, not a thread's lost traceback, and the loader does not outlive it."""
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)

    class Full(io.BytesIO):
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("kg.stores.rdf._open_turtle", lambda path: Full())
    with pytest.raises(BuildError, match=rf"could not write the graph into {out} \(store: \[Errno 28\] No space left on device\); the previous graph there is kept"):
        kg.build([SEEDS], out)
    assert output_digest(out) == clean_digest
    assert _litter(out) == []
