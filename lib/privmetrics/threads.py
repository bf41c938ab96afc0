"""Thread budgets: BLAS, OpenMP and torch threads capped so that parallel workers never
oversubscribe the cores.

Two processes each running an OpenMP pool as wide as the machine make every pool spin and wait
for the other: on the 2-core machine ``MemInf(attack="classifier")`` took 154 s that way against
10.5 s with one thread per process. :func:`limited` caps every pool for the duration
of a block; the runner gives each of its ``n_jobs`` workers ``cores // n_jobs`` threads, the audit
uses the cores this process may run on.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it, else the count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def thread_budget() -> int:
    """Threads this process may use now: the BLAS pool's current size (what :func:`limited` caps),
    or the available cores when no BLAS pool is loaded. For scikit-learn's ``n_jobs``."""
    blas = [p["num_threads"] for p in controller().info() if p.get("user_api") == "blas"]
    return max(blas) if blas else available_cores()


_controller: tuple[int, ThreadpoolController] | None = None


def controller() -> ThreadpoolController:
    """The process's threadpoolctl controller, made again only when a module was imported since
    the last one was made. Making one scans every library the process has loaded (with torch and
    JAX loaded, 3 to 4 ms); a small audit asked for the pools about 850 times, a quarter of its
    time. Native BLAS and OpenMP libraries arrive with an imported module, so the count of
    imported modules says when a new scan can find something new; the pools' sizes themselves
    are read live at each call."""
    global _controller
    loaded = len(sys.modules)
    if _controller is None or _controller[0] != loaded:
        _controller = (loaded, ThreadpoolController())
    return _controller[1]


def per_worker(n_jobs: int) -> int:
    """Threads each of ``n_jobs`` parallel workers may use: the cores shared out, at least one."""
    return max(1, available_cores() // max(1, n_jobs))


@contextmanager
def limited(threads: int):
    """Cap BLAS/OpenMP pools (threadpoolctl) and torch's intra-op pool to ``threads`` in this
    block, restoring them afterwards."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    torch = _torch_if_loaded()
    before = torch.get_num_threads() if torch else None
    with controller().limit(limits=threads):
        if torch:
            torch.set_num_threads(threads)
        try:
            yield
        finally:
            if torch:
                torch.set_num_threads(before)


@contextmanager
def one_thread():
    """BLAS and OpenMP pools at one thread for a small classifier's fit and predict. Their threads
    spin-wait for each other, so beside any other busy process a two-thread pool on two cores
    mostly waits: on this two-core machine with one other process running, MemInf's
    HistGradientBoosting took 26.7 s on two threads against 2.2 s on one, and DetectionMLP's
    network 3.0 s against 0.46 s, with the same score to the last bit. Tables of the size these
    classifiers see gain little from a second thread even on an idle machine; the neighbour
    searches, which run on plain threads that do not spin, keep theirs."""
    with controller().limit(limits=1):
        yield


def _torch_if_loaded():
    """torch when something already imported it (importing it only to cap it costs 2 s)."""
    import sys

    return sys.modules.get("torch")
