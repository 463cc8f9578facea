"""ds-sim's file readers, kept importable here for code written against earlier versions:
the configuration is read by :mod:`hetsched.platform.dssim`, the job list by
:mod:`hetsched.workload.dssim` (below the engine, where readers belong)."""

from hetsched.platform.dssim import (DsSimConfig, config_platform, read_config,
                                     server_types)
from hetsched.workload.dssim import read_job_list, workload_for_config

__all__ = ["DsSimConfig", "config_platform", "read_config", "read_job_list", "server_types",
           "workload_for_config"]
