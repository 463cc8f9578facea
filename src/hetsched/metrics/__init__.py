"""Per-job records and summary metrics: one module, one definition each (see docs/metrics.md)."""

from hetsched.metrics.records import JobRecords, job_records
from hetsched.metrics.summary import UNITS, summarize

__all__ = ["UNITS", "JobRecords", "job_records", "summarize"]
