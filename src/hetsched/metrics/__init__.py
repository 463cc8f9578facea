"""Per-job records and summary metrics: one module, one definition each (see docs/metrics.md).
``catalogue.py`` declares every metric (unit, direction, label, format); ``records.py`` and
``summary.py`` compute them. The names below are imported on first use, so that reading the
catalogue (the command line's help, its tables) loads no numpy."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["UNITS", "JobRecords", "job_records", "summarize"]
_HOMES = {"UNITS": "catalogue", "JobRecords": "records", "job_records": "records",
          "summarize": "summary"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'hetsched.metrics' has no attribute {name!r}")
    return getattr(import_module(f"hetsched.metrics.{_HOMES[name]}"), name)
