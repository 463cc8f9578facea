"""``jobs.parquet`` and ``timeseries.parquet``: a run's two tables in Parquet (``--table-format
parquet``), for runs too long for CSV to be quick to write or to read back.

Each file has the columns of its CSV twin in the same order, typed: numbers as int64 or float64
(``jobs.csv``'s Batsim ``-1`` where a job has no such value, as there), texts as strings. A
cell the CSV file leaves empty (no value: a job's ``cost`` without prices, its ``metadata``
without a reason) is null, so that ``pandas.read_parquet`` gives the values
``pandas.read_csv`` gives of the CSV file; the types are the columns' own where pandas infers
others from CSV text (``job_id`` text where all ids are digits, ``consumed_energy`` float
where all are whole, a text column without any text). Rows are written a block at a time
(one row group each), so a million jobs' table is never all in memory. pyarrow is imported
only when one is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hetsched.metrics import JobRecords, job_records
from hetsched.output.jobs_csv import COLUMNS, TEXT_BLOCK, Coded, Column, column_blocks
from hetsched.output.summary_json import joined_blocks, timeseries_blocks
from hetsched.sim.result import SimResult, TimeSeries

if TYPE_CHECKING:
    import pyarrow


def write_jobs_parquet(result: SimResult, path: str | Path,
                       records: JobRecords | None = None) -> Path:
    """``jobs.parquet`` of ``result`` (``records``: its job records, if already computed)."""
    import pyarrow.parquet as pq

    path = Path(path)
    blocks = (_job_table(columns, absent) for columns, absent
              in column_blocks(result, records or job_records(result), TEXT_BLOCK))
    first = next(blocks)  # (a run without jobs has one block of none)
    with pq.ParquetWriter(path, first.schema) as writer:
        writer.write_table(first)
        for table in blocks:
            writer.write_table(table)
    return path


def write_timeseries_parquet(result: SimResult, path: str | Path) -> Path:
    """``timeseries.parquet`` of ``result`` (``power_w`` null when the run has no energy)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    types = {float: pa.float64(), int: pa.int64()}
    schema = pa.schema([(name, types[kind]) for name, kind
                        in zip(TimeSeries.FIELDS, TimeSeries.TYPES)])
    with pq.ParquetWriter(path, schema) as writer:
        for block in joined_blocks(timeseries_blocks(result, arrays=True), TEXT_BLOCK):
            writer.write_table(pa.table([pa.array(np.asarray(values), field.type,
                                                  from_pandas=True)
                                         for values, field in zip(block, schema)],
                                        schema=schema))
    return path


def _job_table(columns: dict[str, Column], absent: dict[str, np.ndarray]) -> pyarrow.Table:
    """A block of ``jobs.csv``'s typed columns as a table: ``-1`` where Batsim writes it."""
    import pyarrow as pa

    arrays = {}
    for name in COLUMNS:
        values = columns[name]
        missing = absent.get(name)
        if missing is not None:
            values = np.where(missing, -1.0, values)
        arrays[name] = _array(values)
    return pa.table(arrays)


def _array(values: Any) -> pyarrow.Array:
    """A column as pyarrow's: numbers as they are (NaN: null), texts as strings (empty: null);
    a text column by code as a dictionary's lookup (each text made once)."""
    import pyarrow as pa

    if isinstance(values, Coded):
        texts = pa.array(values.texts, pa.string())
        valid = np.array([text != "" for text in values.texts])[values.codes]
        indices = pa.array(values.codes, pa.int64(), mask=~valid)
        return pa.DictionaryArray.from_arrays(indices, texts).cast(pa.string())
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "f":
            return pa.array(values, pa.float64(), from_pandas=True)
        return pa.array(np.ascontiguousarray(values), pa.int64())
    return pa.array([value if value != "" else None for value in map(str, values)],
                    pa.string())

