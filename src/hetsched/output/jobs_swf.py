"""``jobs.swf``: the run's jobs in the Standard Workload Format, for the Parallel Workloads
Archive's tools.

One line per job, in submission order (as ``jobs.csv``), with the run's own outcome: wait time
(start − submit), run time (end − start), allocated processors, status 1 for a finished job,
0 for one that started but did not finish (killed at its walltime: with its run time; cut by
the horizon: run time -1), 5 for one that never started (rejected, or still waiting at the
horizon). A value a job does not have is -1. The requested time is the job's estimate on the
platform's slowest core; queue and partition are the job's; the header gives the platform's
size. SWF's fields are whole numbers: times are rounded to the nearest second.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hetsched.metrics import JobRecords, job_records
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.swf import COL
from hetsched.workload.writers.swf import BLOCK, job_numbers, job_table, write_blocks

#: SWF's status codes.
COMPLETED, FAILED, CANCELLED = 1, 0, 5


def result_table(result: SimResult, records: JobRecords | None = None,
                 rows: slice = slice(None),
                 numbers: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """The SWF table of ``result``'s jobs (``records``: its job records, if already
    computed; ``rows``: only those jobs', ``numbers``: every job's SWF number, if known)."""
    rec = records or job_records(result)
    table = job_table(result.workload, rows, numbers)
    start, end = rec.start[rows], rec.end[rows]
    started = ~np.isnan(start)
    finished = result.state[rows] == JobState.FINISHED
    table[:, COL["wait_time"]] = np.where(started, rec.wait[rows], -1)
    table[:, COL["run_time"]] = np.where(np.isnan(end), -1, end - start)
    table[:, COL["allocated_processors"]] = np.where(
        started, table[:, COL["requested_processors"]], -1)
    table[:, COL["status"]] = np.where(finished, COMPLETED,
                                       np.where(started, FAILED, CANCELLED))
    return table


def write_jobs_swf(result: SimResult, path: Path, records: JobRecords | None = None) -> Path:
    """Write ``jobs.swf`` of ``result`` (``records``: its job records, if already
    computed), a block of rows at a time."""
    from hetsched.version import __version__

    platform, jobs = result.platform, result.workload.jobs
    header = {"Computer": platform.name, "MaxNodes": len(platform.nodes),
              "MaxProcs": platform.total_cores, "MaxJobs": len(jobs), "MaxRecords": len(jobs),
              "Note": f"simulated by hetsched {__version__}: scheduler {result.scheduler}, "
                      f"seed {result.seed}, workload {result.workload.name}"}
    rec = records or job_records(result)
    numbers = np.array(job_numbers([job.id for job in jobs]), float)
    blocks = (result_table(result, rec, slice(begin, begin + BLOCK), numbers)
              for begin in range(0, len(jobs), BLOCK))
    return write_blocks(blocks, path, header)
