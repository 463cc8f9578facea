"""Bundled example inputs: a small heterogeneous platform and a 200-job workload."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def default_platform_path() -> Path:
    """The bundled native platform: 2 × 16-core 3.5 GHz, 4 × 8-core 2.4 GHz, 2 × 4-core 1.8 GHz."""
    return Path(str(files(__name__).joinpath("default_platform.json")))


def default_workload_path() -> Path:
    """The bundled native workload of 200 jobs (see ``make_default_workload.py``)."""
    return Path(str(files(__name__).joinpath("default_workload.json")))
