"""Bundled example inputs: a small heterogeneous platform and a 200-job workload, and a small
ds-sim configuration with its 30-job list, and a 10-task Montage-like workflow in WfCommons'
WfFormat, the KIT ForHLR II-like platform the KIT trace was made for, and HDeepRM's processor
catalogue (``hdeeprm_*.json``: PyPI ``hdeeprm`` 0.3.1b1, MIT, its licence in
``HDEEPRM_LICENSE.txt`` beside them; copies of ``../shared/data/platforms/``), which
``hetsched generate platform`` reads by default."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def default_platform_path() -> Path:
    """The bundled native platform: 2 × 16-core 3.5 GHz, 4 × 8-core 2.4 GHz, 2 × 4-core 1.8 GHz."""
    return Path(str(files(__name__).joinpath("default_platform.json")))


def default_workload_path() -> Path:
    """The bundled native workload of 200 jobs (see ``make_default_workload.py``)."""
    return Path(str(files(__name__).joinpath("default_workload.json")))


def dssim_config_path() -> Path:
    """The bundled ds-sim configuration (five servers of three types); its job list,
    ``dssim_jobs.xml`` (30 jobs), lies beside it and is named in it."""
    return Path(str(files(__name__).joinpath("dssim_config.xml")))


def wfformat_example_path() -> Path:
    """The bundled WfCommons WfFormat 1.5 workflow: 10 Montage-like tasks (hand-written)."""
    return Path(str(files(__name__).joinpath("montage_wfformat.json")))


def hdeeprm_catalogue_path() -> Path:
    """The bundled catalogue's node types file (its processor types file lies beside it)."""
    return Path(str(files(__name__).joinpath("hdeeprm_node_types.json")))


def kit_platform_path() -> Path:
    """The bundled ForHLR II-like platform (``kit_like``: 1,152 × 20 cores plus 21 × 48, the
    24,048 cores of the KIT-FH2 trace's MaxProcs)."""
    return Path(str(files(__name__).joinpath("kit_fh2_platform.yaml")))
