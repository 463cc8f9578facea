"""Where runs execute: a local process pool (``-j N``) or a Dask cluster (``--dask``), behind
one small interface, and the one loop that feeds either of them (:func:`execute`).

Runs travel in tasks (a chunk of runs on the same inputs, see :func:`chunks`), so the
hand-off and the store's transactions are paid per chunk, not per run. A task whose worker
process died (a crash, out of memory, killed) is retried one run at a time, each alone on the
executor; a run that kills its worker alone is recorded as failed. Nothing else stops a sweep.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from hetsched.errors import ConfigError, describe_exception, option_name
from hetsched.sweep.grid import RunSpec
from hetsched.sweep.worker import Outcome, Task, failed, run_task

#: Tasks handed to the executor per worker: enough that no worker waits for the next one.
TASKS_PER_WORKER = 2
#: Most runs per task.
MAX_CHUNK = 32
#: Work per task that :class:`ChunkSizer` aims at, in seconds.
TASK_SECONDS = 0.5
#: How long to try to reach a Dask scheduler, in seconds.
CONNECT_SECONDS = 10.0


class WorkerLost(Exception):
    """The process running a task died before it answered."""


class Executor(Protocol):
    """Runs tasks somewhere: ``submit`` returns a future, ``wait`` blocks until at least one
    of ``futures`` is done and returns the done ones, ``outcomes`` gives a done task's
    outcomes or raises :class:`WorkerLost`."""

    workers: int

    def submit(self, task: Task, job_records: bool) -> Any: ...

    def wait(self, futures: Sequence[Any]) -> set[Any]: ...

    def outcomes(self, future: Any) -> list[Outcome]: ...


class ChunkSizer:
    """How many runs the next task gets: about :data:`TASK_SECONDS` of work, from the mean run
    time so far (one run per task until results come in; at most :data:`MAX_CHUNK`). Long
    runs travel alone, so workers stay evenly loaded to the end; short ones in batches, so
    the hand-off and the store's transactions cost little per run."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.runs = 0

    def observe(self, outcomes: Iterable[Outcome]) -> None:
        for outcome in outcomes:
            self.seconds += outcome.run_seconds
            self.runs += 1

    def __call__(self) -> int:
        if not self.runs:
            return 1
        mean = self.seconds / self.runs
        return MAX_CHUNK if mean * MAX_CHUNK <= TASK_SECONDS else max(1, int(TASK_SECONDS / mean))


def chunks(runs: Sequence[RunSpec], size: Callable[[], int]) -> Iterator[list[RunSpec]]:
    """Consecutive runs on the same inputs, ``size()`` at most each time (asked anew for every
    chunk, as they are taken)."""
    chunk: list[RunSpec] = []
    most = size()
    for run in runs:
        if chunk and (len(chunk) >= most or run.inputs != chunk[0].inputs):
            yield chunk
            chunk, most = [], size()
        chunk.append(run)
    if chunk:
        yield chunk


def execute(executor: Executor, tasks: Iterable[Task],
            job_records: bool) -> Iterator[list[tuple[RunSpec, Outcome]]]:
    """Run every task (taken as they are needed); yield each one's results as it ends."""
    queue = iter(tasks)
    suspects: deque[Task] = deque()  # the runs of lost tasks, to retry one by one
    running: dict[Any, tuple[Task, bool]] = {}
    while True:
        if suspects and not running:
            task = suspects.popleft()
            running[executor.submit(task, job_records)] = task, True
        while not suspects and len(running) < TASKS_PER_WORKER * executor.workers \
                and (task := next(queue, None)) is not None:
            running[executor.submit(task, job_records)] = task, False
        if not running:
            return
        for future in executor.wait(list(running)):
            task, alone = running.pop(future)
            try:
                outcomes = executor.outcomes(future)
            except WorkerLost as lost:
                if not alone:
                    suspects.extend(Task(task.platform, task.workload, [run])
                                    for run in task.runs)
                    continue
                outcomes = [failed(f"the worker process died: {lost}")]
            yield list(zip(task.runs, outcomes))


class LocalPool:
    """A pool of ``workers`` processes on this machine. They are started fresh (``spawn``),
    ignore Ctrl-C (the sweep's process stops them) and exit when the sweep's process is gone,
    even if it was killed."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Any = None
        self._current: set[Any] = set()  # the futures of the pool now in use

    def __enter__(self) -> LocalPool:
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=exc[0] is None, cancel_futures=True)

    def _start(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(self.workers, multiprocessing.get_context("spawn"),
                                         initializer=_worker_start, initargs=(os.getpid(),))
        self._current = set()

    def _restart(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._start()

    def submit(self, task: Task, job_records: bool) -> Any:
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = self._pool.submit(run_task, task, job_records)
        except BrokenProcessPool:  # a worker died since the last task was handed out
            self._restart()
            future = self._pool.submit(run_task, task, job_records)
        self._current.add(future)
        return future

    def wait(self, futures: Sequence[Any]) -> set[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, return_when=FIRST_COMPLETED).done

    def outcomes(self, future: Any) -> list[Outcome]:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return future.result()
        except BrokenProcessPool as err:
            if future in self._current:  # the first loss of this pool: start a new one
                self._restart()
            raise WorkerLost(describe_exception(err)) from None


def _worker_start(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """End this worker once the sweep's process is gone (its parent changes)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


class DaskPool:
    """A Dask cluster: ``"local"`` starts a ``LocalCluster`` of ``workers`` single-threaded
    processes; any other address connects to a running scheduler, whose workers must have
    hetsched installed (and see a scheduler file of the sweep at the same path)."""

    def __init__(self, address: str, workers: int) -> None:
        self.address = address
        self.workers = workers
        self._client: Any = None
        self._cluster: Any = None

    def __enter__(self) -> DaskPool:
        try:
            import logging

            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(f"{option_name('dask')} needs dask.distributed: pip install "
                              "'hetsched[sweep]'") from None
        if self.address == "local":
            import dask

            # the workers' sampling profiler takes the GIL every 10 ms from the simulations
            dask.config.set({"distributed.worker.profile.enabled": False})
            # no dashboard; its HTTP server (health checks) on any free port, not 8787, so
            # that two local clusters on one machine never ask for the same port
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                         silence_logs=logging.ERROR)
        try:
            self._client = Client(self._cluster if self._cluster is not None else self.address,
                                  timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as err:  # ValueError: a malformed address
            raise ConfigError(f"{option_name('dask')} {self.address}: cannot connect to the "
                              f"scheduler: {describe_exception(err)}") from None
        threads = sum(w["nthreads"] for w in self._client.scheduler_info()["workers"].values())
        self.workers = max(1, threads)
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def submit(self, task: Task, job_records: bool) -> Any:
        return self._client.submit(run_task, task, job_records, pure=False)

    def wait(self, futures: Sequence[Any]) -> set[Any]:
        from dask.distributed import wait

        return set(wait(list(futures), return_when="FIRST_COMPLETED").done)

    def outcomes(self, future: Any) -> list[Outcome]:
        from dask.distributed import KilledWorker

        try:
            return future.result()
        except KilledWorker as err:
            raise WorkerLost(describe_exception(err)) from None
