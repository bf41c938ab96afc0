"""The experiment grid on a Dask cluster: workers compute cells, the driver alone writes the store.

``privmetrics run --scheduler tcp://host:8786`` connects to a running cluster (SLURM through
dask-jobqueue, Kubernetes through the Dask Helm chart: see the README), ``--local-cluster N``
starts N worker processes on this machine. Without either, nothing changes: the batch runner's
local joblib workers (:mod:`.batch`) compute the grid.

* **One writer.** Every cell is one Dask task of the batch runner (:mod:`.batch`) that returns
  its record and scores (:func:`.grid.runner.compute_cell`); the driver writes each cell in one
  transaction as its result arrives (:meth:`.grid.store.ResultsStore.write_cell`). The games'
  plays run the same way. Workers never open the SQLite file, so it may
  live on the driver's disk only.
* **Faults.** A worker lost mid-cell (killed, pre-empted, out of memory) takes its running task
  with it; the scheduler runs the task again on another worker (Dask's ``allowed-failures``,
  3 by default, before it gives up on a task that kills every worker). Since only finished
  results are written, a lost cell is never half written, and a cell is written once. If the
  driver itself dies, the same command resumes from the store like the local runner.
* **Generated tables.** Each worker caches the tables it generates under ``--cache`` (default
  ``data/cache/synthetic`` under the working directory). On a cluster, point ``--cache`` at a
  path every worker can read and write (a shared file system) and a table generated once is
  reused by all. If workers cannot see a shared path, each caches on its own disk: the results
  are the same (every table is determined by its key), only fits may be repeated on another
  worker. Tables are never sent back to the driver.
* **Threads.** A cell runs with one BLAS/torch thread; run one worker process per core
  (``--nthreads 1``), as ``--local-cluster`` does.

The ``distributed`` extra (``pip install -e '.[distributed]'``, installed by ``make setup``)
provides Dask.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager


def _distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the extra is installed by make setup
        raise RuntimeError(
            "running on a Dask cluster needs the distributed extra: pip install -e '.[distributed]'"
        ) from exc
    return distributed


@contextmanager
def dask_client(scheduler: str | None = None, local_workers: int | None = None):
    """A Dask client: connected to ``scheduler``, or to a new local cluster of ``local_workers``
    single-threaded worker processes (closed again on exit)."""
    distributed = _distributed()
    if (scheduler is None) == (local_workers is None):
        raise ValueError("give exactly one of scheduler (an address) and local_workers (a count)")
    if scheduler is not None:
        client = distributed.Client(scheduler)
        try:
            yield client
        finally:
            client.close()
        return
    if local_workers < 1:
        raise ValueError(f"a local cluster needs at least 1 worker, got {local_workers}")
    cluster = distributed.LocalCluster(
        n_workers=local_workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def compute_on(client, compute, tasks: list[tuple], keys: list[str]) -> Iterator:
    """Submit ``compute(*task)`` for every task (Dask keys ``keys``, so a resubmitted task is
    recognised) and yield each result as it finishes, in finishing order (the batch runner's
    Dask place, :func:`.batch.run_batch`)."""
    distributed = _distributed()
    futures = [
        client.submit(compute, *task, key=key, pure=False)
        for task, key in zip(tasks, keys, strict=True)
    ]
    for future in distributed.as_completed(futures):
        yield future.result()
        future.release()


def cluster_client(scheduler: str | None = None, local_cluster: int | None = None):
    """A Dask client for a running ``scheduler`` or ``local_cluster`` worker processes, else a
    null context (the commands' ``--scheduler`` / ``--local-cluster``)."""
    if scheduler is None and local_cluster is None:
        return contextlib.nullcontext(None)
    return dask_client(scheduler, local_cluster)
