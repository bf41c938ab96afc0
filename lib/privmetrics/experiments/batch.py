"""One batch runner for every experiment: independent tasks computed apart, written by this
process alone.

The grid's cells (:mod:`.grid.runner`), the cache's tables (:func:`.grid.runner.generate_tables`),
the games' plays (:mod:`.games.play`), the leakage ladder's plays among them, and the replays of
both (:mod:`.grid.verify`, :mod:`.games.replay`) are batches of :class:`Task` run by
:func:`run_batch`:

* **Where a task runs.** ``where="workers"`` (the default): a joblib (loky) pool of ``n_jobs``
  processes that end with this one (:func:`workers`); with ``n_jobs=1``, this process.
  ``where="fresh"``: a new interpreter per task that inherits this environment unchanged, as a
  reviewer running one cell would (``privmetrics verify``). A Dask ``client``: its workers, one
  thread each (:mod:`.cluster`). Everywhere the task goes through :func:`execute`: torch
  imported first when the task trains with it (or the first such task of a process would train
  on every core and the next ones on their share, and their tables would differ), then the
  task's thread cap (:func:`privmetrics.threads.limited`), then the call.
* **Order.** The costliest tasks first (:attr:`Task.cost`), so that the long fits do not start
  last and leave a core idle at the end.
* **One writer.** Results arrive in finishing order and ``write(task, result)`` runs here, each
  as it arrives: an interrupted batch keeps every finished task (the stores resume from them),
  and workers never open a store.
* **Failure.** When writing raises, or the user interrupts, the local workers are killed before
  the error goes on: joblib would leave them computing for as long as their tasks take.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from joblib import Parallel, delayed
from tqdm import tqdm

from privmetrics.threads import limited, per_worker

PLACES = ("workers", "fresh")


@dataclass(frozen=True)
class Task:
    """One unit of a batch: ``call(*args)``.

    ``key`` names it (unique in its batch: the Dask key, and what a failure names); ``cost`` is
    its expected cost relative to the batch's other tasks; ``threads`` caps its BLAS, OpenMP and
    torch threads (None: its worker's share of the cores); ``torch``: it trains with torch."""

    key: str
    call: Callable[..., Any]
    args: tuple = ()
    cost: float = 1.0
    threads: int | None = None
    torch: bool = False
    meta: dict = field(default_factory=dict, compare=False)


def execute(task: Task, threads: int, parent: int | None = None) -> tuple[str, Any]:
    """``(task.key, task.call(*task.args))``, the same way in every place a task runs (module
    doc); ``threads``: the cap when the task names none; ``parent``: the process whose end ends
    this one (a local worker's runner)."""
    if parent is not None:
        exit_with_parent(parent)
    if task.torch:
        import torch  # noqa: F401  (loaded first, so that ``limited`` caps its threads too)
    with limited(task.threads or threads):
        return task.key, task.call(*task.args)


def run_batch(
    tasks: Iterable[Task],
    write: Callable[[Task, Any], None] | None = None,
    n_jobs: int = 1,
    where: str = "workers",
    client=None,
    progress: bool = True,
    desc: str = "batch",
) -> int:
    """Run every task (costliest first) where asked (module doc) and hand each result to
    ``write`` in this process as it arrives; returns how many tasks finished."""
    ordered = sorted(tasks, key=lambda t: t.cost, reverse=True)
    twice = sorted(k for k, n in Counter(t.key for t in ordered).items() if n > 1)
    if twice:
        raise ValueError(f"a batch's task keys must be unique; given more than once: {twice}")
    if where not in PLACES:
        raise ValueError(f"where must be one of {PLACES}, got {where!r}")
    if not ordered:
        return 0
    by_key = {t.key: t for t in ordered}
    local = client is None and where == "workers" and n_jobs > 1
    results = _results(ordered, n_jobs, where, client)
    finished = 0
    try:
        for key, result in tqdm(results, total=len(ordered), desc=desc, disable=not progress):
            if write is not None:
                write(by_key[key], result)
            finished += 1
    except BaseException:
        if local:
            stop_workers()
        raise
    return finished


def _results(tasks: list[Task], n_jobs: int, where: str, client) -> Iterator[tuple[str, Any]]:
    if client is not None:
        from privmetrics.experiments.cluster import compute_on

        return compute_on(client, execute, [(t, 1, None) for t in tasks], [t.key for t in tasks])
    if where == "fresh":
        return _fresh(tasks, per_worker(n_jobs), n_jobs)
    if n_jobs <= 1:
        return (execute(t, per_worker(1)) for t in tasks)
    threads, parent = per_worker(n_jobs), os.getpid()
    return workers(n_jobs)(delayed(execute)(t, threads, parent) for t in tasks)


def _fresh(tasks: list[Task], threads: int, n_jobs: int) -> Iterator[tuple[str, Any]]:
    """Each task in a new interpreter of its own, ``n_jobs`` at a time."""
    with ThreadPoolExecutor(max(1, min(n_jobs, len(tasks)))) as pool:
        futures = [pool.submit(in_fresh_interpreter, t, threads) for t in tasks]
        for future in as_completed(futures):
            yield future.result()


def in_fresh_interpreter(task: Task, threads: int) -> tuple[str, Any]:
    """:func:`execute` in a new interpreter started for ``task`` alone (an executor per task:
    Python 3.11's ``max_tasks_per_child`` restarts workers one at a time)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(execute, task, threads).result()


_WATCHED = False


def exit_with_parent(parent: int) -> None:
    """In a worker process started by ``parent``: end this process (within a second) once the
    parent is gone, so a killed runner leaves no worker computing and writing on. Does nothing in
    the parent itself or in a process that ``parent`` did not start (a Dask worker)."""
    global _WATCHED
    if _WATCHED or os.getpid() == parent or os.getppid() != parent:
        return
    _WATCHED = True

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def workers(n_jobs: int) -> Parallel:
    """A joblib pool whose worker processes watch this process from the moment they start
    (:func:`exit_with_parent` as loky's initializer): a runner killed before it hands out its
    first task, or while its workers sit idle, leaves no worker behind (loky would keep them
    for its idle timeout, minutes, and with them its resource tracker and /dev/shm folders)."""
    from joblib._parallel_backends import LokyBackend

    backend = LokyBackend(initializer=exit_with_parent, initargs=(os.getpid(),))
    return Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")


def stop_workers() -> None:
    """Kill this process's joblib (loky) worker processes. When the loop that writes their
    results raises (a store that refuses a row), joblib shuts its executor but leaves the workers
    computing, and the process waits for them: a games run whose store refused its first play
    kept two cores busy for 25 minutes."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        try:
            if "loky" in " ".join(child.cmdline()):
                child.kill()
        except psutil.Error:  # ended meanwhile
            continue
