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

from pathlib import Path

import numpy as np

from hetsched.metrics import JobRecords, job_records
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.swf import COL
from hetsched.workload.writers.swf import job_table, write_table

#: SWF's status codes.
COMPLETED, FAILED, CANCELLED = 1, 0, 5


def result_table(result: SimResult, records: JobRecords | None = None) -> np.ndarray:
    """The SWF table of ``result``'s jobs (``records``: its job records, if already
    computed)."""
    rec = records or job_records(result)
    table = job_table(result.workload)
    started = ~np.isnan(rec.start)
    finished = result.state == JobState.FINISHED
    table[:, COL["wait_time"]] = np.where(started, rec.wait, -1)
    table[:, COL["run_time"]] = np.where(np.isnan(rec.end), -1, rec.end - rec.start)
    table[:, COL["allocated_processors"]] = np.where(
        started, table[:, COL["requested_processors"]], -1)
    table[:, COL["status"]] = np.where(finished, COMPLETED,
                                       np.where(started, FAILED, CANCELLED))
    return table


def write_jobs_swf(result: SimResult, path: Path, records: JobRecords | None = None) -> Path:
    """Write ``jobs.swf`` of ``result`` (``records``: its job records, if already
    computed)."""
    from hetsched.version import __version__

    platform = result.platform
    header = {"Computer": platform.name, "MaxNodes": len(platform.nodes),
              "MaxProcs": platform.total_cores, "MaxJobs": len(result.workload.jobs),
              "MaxRecords": len(result.workload.jobs),
              "Note": f"simulated by hetsched {__version__}: scheduler {result.scheduler}, "
                      f"seed {result.seed}, workload {result.workload.name}"}
    return write_table(result_table(result, records), path, header)
