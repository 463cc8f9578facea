"""What a run writes: ``jobs.csv``, ``jobs.swf``, ``summary.json`` and ``timeseries.csv`` in one
directory (``jobs.parquet`` and ``timeseries.parquet`` for the two tables with the run option
``table_format`` ``parquet``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hetsched.output.jobs_csv import COLUMNS, write_jobs_csv
from hetsched.output.jobs_swf import write_jobs_swf
from hetsched.output.parquet import write_jobs_parquet, write_timeseries_parquet
from hetsched.output.summary_json import (summary, write_comparison_csv, write_rows_csv,
                                          write_summary_json, write_timeseries_csv)
from hetsched.metrics import JobRecords, job_records
from hetsched.options import check_table_writer
from hetsched.sim.result import SimResult

__all__ = ["COLUMNS", "summary", "write_comparison_csv", "write_jobs_csv", "write_jobs_swf",
           "write_jobs_parquet", "write_rows_csv", "write_run", "write_summary_json",
           "write_timeseries_csv", "write_timeseries_parquet"]


def write_run(result: SimResult, out_dir: str | Path,
              options: Mapping[str, Any] | None = None,
              records: JobRecords | None = None) -> dict[str, Path]:
    """Write the four files of ``result`` into ``out_dir`` (created if needed), three for a
    run made without a time series (no ``timeseries.csv``); its tables in Parquet
    (``jobs.parquet``, ``timeseries.parquet``) when ``options`` has ``table_format``
    ``parquet``.

    The input files are named (path and SHA-256) from ``result.platform.source`` and
    ``result.workload.source``; ``options`` records how the run was configured (horizon,
    SWF conversion, ...). The job records (``records``, if the caller has them) are computed
    once for the three files. Returns the written paths by file name.
    """
    table_format = (options or {}).get("table_format", "csv")
    check_table_writer(table_format)  # (before anything is written or removed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = records or job_records(result)
    for other in set(_TABLE_WRITERS) - {table_format}:  # an earlier run's, in the other format
        for name in ("jobs", "timeseries"):
            (out / f"{name}.{other}").unlink(missing_ok=True)
    jobs, series = _TABLE_WRITERS[table_format]
    written = {f"jobs.{table_format}": jobs(result, out / f"jobs.{table_format}", records),
               "jobs.swf": write_jobs_swf(result, out / "jobs.swf", records),
               "summary.json": write_summary_json(result, out / "summary.json", options,
                                                  records)}
    if result.timeseries is not None:
        written[f"timeseries.{table_format}"] = series(result,
                                                       out / f"timeseries.{table_format}")
    return written


#: Per run option ``table_format`` (the files' suffix), the writers of the jobs' and the time
#: series' tables.
_TABLE_WRITERS: dict[str, tuple[Callable[..., Path], Callable[..., Path]]] = {
    "csv": (write_jobs_csv, write_timeseries_csv),
    "parquet": (write_jobs_parquet, write_timeseries_parquet),
}
