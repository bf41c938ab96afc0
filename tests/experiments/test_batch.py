"""The batch runner every experiment uses: costliest tasks first, results written by the parent
alone as they arrive, a task run the same way in this process, in a worker, in a fresh
interpreter, and workers that never outlive their runner."""

import os
import signal
import subprocess
import sys
import time

import pytest

from privmetrics.experiments.batch import Task, execute, run_batch


def threads_seen(tag: str) -> dict:
    """What a task sees where it runs: its process, its BLAS threads and torch's, if loaded."""
    from threadpoolctl import threadpool_info

    torch = sys.modules.get("torch")
    return {
        "tag": tag,
        "pid": os.getpid(),
        "blas": max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"),
        "torch": torch.get_num_threads() if torch else None,
    }


def test_tasks_run_costliest_first_and_the_caller_writes_each_result():
    written = []
    tasks = [Task(f"t{c}", threads_seen, (f"t{c}",), cost=c) for c in (2, 9, 1, 5)]
    assert run_batch(tasks, lambda t, r: written.append((t.key, r)), progress=False) == 4
    assert [key for key, _ in written] == ["t9", "t5", "t2", "t1"]
    assert all(key == result["tag"] for key, result in written)  # each result with its task


def test_a_batch_refuses_duplicate_keys_and_an_unknown_place():
    twice = [Task("same", threads_seen, ("a",)), Task("same", threads_seen, ("b",))]
    with pytest.raises(ValueError, match="more than once.*same"):
        run_batch(twice, progress=False)
    with pytest.raises(ValueError, match="where must be one of"):
        run_batch([Task("a", threads_seen, ("a",))], where="cloud", progress=False)
    assert run_batch([], progress=False) == 0


@pytest.mark.slow
def test_a_task_sees_the_same_thread_caps_in_every_place():
    """Here, in a joblib worker and in a fresh interpreter a task runs under its own cap, torch
    included (imported first), while the writing happens in this process."""
    seen = {}
    for where, n_jobs in (("workers", 1), ("workers", 2), ("fresh", 1)):
        tasks = [Task(f"{where}{n_jobs}-{i}", threads_seen, ("x",), threads=1, torch=True)
                 for i in range(2)]  # fmt: skip
        results = seen.setdefault((where, n_jobs), [])
        run_batch(tasks, lambda t, r, into=results: into.append((os.getpid(), r)), n_jobs,
                  where=where, progress=False)  # fmt: skip
    for (where, n_jobs), results in seen.items():
        assert all(writer == os.getpid() for writer, _ in results)  # the parent writes
        assert {(r["blas"], r["torch"]) for _, r in results} == {(1, 1)}, (where, n_jobs)
        away = {r["pid"] != os.getpid() for _, r in results}
        assert away == {where == "fresh" or n_jobs > 1}, (where, n_jobs)


def test_execute_caps_only_for_the_task_and_returns_its_key():
    from threadpoolctl import threadpool_info

    before = [p["num_threads"] for p in threadpool_info()]
    key, seen = execute(Task("k", threads_seen, ("k",), threads=1), threads=2)
    assert key == "k" and seen["blas"] == 1
    assert [p["num_threads"] for p in threadpool_info()] == before


def refuse(task, result):
    raise RuntimeError("the store refused it")


def sleep_then(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


@pytest.mark.slow
def test_a_write_that_fails_leaves_no_worker_computing():
    import psutil

    tasks = [Task(f"t{i}", sleep_then, (0.1 if i == 0 else 60,), cost=-i) for i in range(3)]
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="refused"):
        run_batch(tasks, refuse, n_jobs=2, progress=False)
    assert time.perf_counter() - start < 50  # not waiting for the 60-second tasks

    def computing(process) -> bool:
        try:
            return process.status() != psutil.STATUS_ZOMBIE and "loky" in " ".join(
                process.cmdline()
            )
        except psutil.Error:
            return False

    def left() -> list:
        return [p for p in psutil.Process().children(recursive=True) if computing(p)]

    deadline = time.time() + 10  # a killed worker takes a moment to go on a loaded machine
    while left() and time.time() < deadline:
        time.sleep(0.2)
    assert left() == []


def test_workers_end_with_their_runner(tmp_path):
    """A process started by a runner stops within seconds once the runner is killed."""
    ready = tmp_path / "watching"
    worker = tmp_path / "worker.py"
    worker.write_text(
        "import os, time\n"
        "from privmetrics.experiments.batch import exit_with_parent\n"
        "exit_with_parent(os.getppid())\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(60)\n"
    )
    script = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, {str(worker)!r}])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    deadline = time.time() + 60
    while time.time() < deadline and not ready.exists():  # imports take seconds under load
        time.sleep(0.1)
    assert ready.exists() and _alive(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 10
    while time.time() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)


def test_pool_workers_end_with_a_runner_killed_before_its_first_cell(tmp_path):
    """Issue 29: a runner SIGKILLed before its workers reach a cell (they are busy unpickling or
    idle, not yet in compute_cell) left them alive for loky's idle timeout, minutes; the pool's
    workers now watch the runner from their start."""
    script = (
        "import os, time\n"
        "from joblib import delayed\n"
        "from privmetrics.experiments.batch import workers\n"
        "def task(i):\n"
        "    print(os.getpid(), flush=True)\n"  # a task that never calls exit_with_parent itself
        "    time.sleep(120)\n"
        "for _ in workers(2)(delayed(task)(i) for i in range(2)):\n"
        "    pass\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    children = [int(parent.stdout.readline()) for _ in range(2)]
    assert all(_alive(c) for c in children)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 15
    while time.time() < deadline and any(_alive(c) for c in children):
        time.sleep(0.2)
    assert not [c for c in children if _alive(c)]


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as ended)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return "\nState:\tZ" not in fh.read()
    except FileNotFoundError:
        return False
