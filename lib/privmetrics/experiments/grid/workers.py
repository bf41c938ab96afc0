"""The runner's worker processes: a joblib (loky) pool whose workers end with the process that
started them, and a way to stop them when writing their results fails. The grid
(:mod:`.runner`), the games (:mod:`privmetrics.experiments.games.play`) and their replay (:mod:`privmetrics.experiments.games.replay`) share them."""

from __future__ import annotations

import os
import threading
import time

from joblib import Parallel

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
    kept two cores busy for 25 minutes. The runner and the games call this before they re-raise."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        try:
            if "loky" in " ".join(child.cmdline()):
                child.kill()
        except psutil.Error:  # ended meanwhile
            continue
