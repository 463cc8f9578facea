"""``stream``: a DAG of STREAM-like jobs, after Chaudhari et al.'s experiments (DESiDE;
``../shared/seeds/001_*.txt`` §4.1, §5.1).

The paper builds its DAGs of 50 and 100 jobs from 36 STREAM benchmark jobs (copy, add,
scale, triad: CPU- and memory-bandwidth-bound), made by varying the iterations and the
threads: 4 to 28 threads, 3.6 to 10.5 GB/s per thread, and (the issue's reading of its
figures) isolated run times of about 1 to 10 minutes. It gives neither the 36 jobs nor the
DAGs' shape; hetsched's choices:

- **The catalogue** (:data:`CATALOGUE`, the same for every seed): 9 thread counts, 4, 7, …,
  28 (steps of 3), × 4 iteration levels whose isolated run times are 60, 129, 278 and 600 s
  (``60 × 10^(k/3)``: log-evenly 1 to 10 minutes). A job type's bandwidth per thread
  (``mem_bw_gbs``) falls linearly with its threads, from 10.5 GB/s at 4 to 3.6 GB/s at 28
  (STREAM's threads share the memory bus, so each gets less as more run: 42 to 101 GB/s per
  job), and so does its CPU utilisation (``cpu_util``), from 1.0 at 4 threads to 0.9 at 28
  (more threads, more time waiting for memory). Run times do not depend on the threads (each
  thread streams its own arrays).
- **The deviation** of each job's busy and idle times (``cpu_util_sd``, DESiDE's sigma, which
  the paper measures per job but does not report): drawn per job, uniform within ±50 % of its
  type's centre, which rises linearly with the threads from 0.05 at 4 to 0.15 at 28 (as its
  CPU utilisation falls: the more a thread waits for memory, the more its busy phases vary).
- **The DAG**: the layered shape of ``dag_layered`` (``jobs``, ``depth``, ``density``; the
  defaults 50 jobs in 6 layers, density 0.3, are ours), each job a type drawn uniformly from
  the catalogue, all submitted at 0.

Draws, in this order, from one ``numpy.random.default_rng(seed)``: each job's type, the
edges as ``dag_layered`` draws them, then each job's deviation (last, so that a seed gives the
types and edges it gave before there were deviations). Run times are on the reference core
(the platform's slowest, unless a reference speed is given); no requested time, as in
``dag_layered``. A job's ``profile`` names its type: ``stream07`` is row 7 of the catalogue
(from 0).
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field

from hetsched.limits import MAX_GRAPH_TASKS
from hetsched.workload.generators import Drawn, Generator
from hetsched.workload.generators.layered import Shape, dag_drawn

THREADS = np.arange(4, 29, 3)                       # 4, 7, …, 28: 9 counts
RUN_TIMES = 60.0 * 10 ** (np.arange(4) / 3)         # 60 … 600 s: 4 iteration levels
BANDWIDTH = (10.5, 3.6)                             # GB/s per thread at 4 and at 28 threads
CPU_UTIL = (1.0, 0.9)                               # at 4 and at 28 threads
CPU_UTIL_SD = (0.05, 0.15)                          # a job's deviation: its range's centre, ±50 %


def _by_threads(ends: tuple[float, float], threads: np.ndarray) -> np.ndarray:
    """The linear interpolation of ``ends`` from 4 to 28 threads (to 4 decimals, so the ends
    are exact and the values read as written)."""
    return np.round(np.interp(threads, (4, 28), ends), 4)


#: The 36 job types, one row each: threads, run time (s), GB/s per thread, CPU utilisation.
_threads, _runs = (grid.ravel() for grid in np.meshgrid(THREADS, RUN_TIMES, indexing="ij"))
CATALOGUE = np.column_stack([_threads, _runs, _by_threads(BANDWIDTH, _threads),
                             _by_threads(CPU_UTIL, _threads)])


class StreamParams(Shape):
    jobs: Annotated[int, Field(ge=1, le=MAX_GRAPH_TASKS)] = 50
    depth: Annotated[int, Field(ge=1, le=MAX_GRAPH_TASKS)] = 6


def draw_stream(params: StreamParams, rng: np.random.Generator) -> Drawn:
    """A layered DAG of jobs drawn from :data:`CATALOGUE`, with their types' bandwidth and
    CPU utilisation, and a deviation drawn for each job."""
    types = rng.integers(len(CATALOGUE), size=params.jobs)
    threads, run, bandwidth, util = CATALOGUE[types].T
    names = np.array([f"stream{t:02d}" for t in types.tolist()])
    drawn = dag_drawn(params, rng, run, threads, mem_bw_gbs=bandwidth, cpu_util=util,
                      profile=names)
    centre = _by_threads(CPU_UTIL_SD, threads)
    deviation = np.round(rng.uniform(0.5 * centre, 1.5 * centre), 4)
    return Drawn(drawn.table, {**drawn.extra, "cpu_util_sd": deviation})


GENERATORS = (
    Generator("stream", StreamParams, draw_stream,
              "A layered DAG of STREAM-like jobs (36 types: 4-28 threads, 3.6-10.5 GB/s per "
              "thread, 1-10 min alone), after Chaudhari et al.'s DESiDE experiments",
              dag=True),
)
