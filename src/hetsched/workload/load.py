"""``load_workload``: read any supported workload file, detecting its format.

A format is a :class:`WorkloadFormat` in :data:`WORKLOAD_FORMATS`, tried in order:
``accepts(path, data)`` gets the parsed document for ``.json``/``.yaml``/``.yml`` files and
``None`` for other suffixes (such formats read the file themselves in ``load``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.dssim.xml import read_job_list
from hetsched.errors import InputError
from hetsched.documents import STRUCTURED_SUFFIXES, check_exists, read_structured
from hetsched.platform.model import Platform
from hetsched.workload.batsim import batsim_workload_from_data, is_batsim_workload
from hetsched.workload.irmasim import irmasim_workload_from_data, is_irmasim_workload
from hetsched.workload.model import Workload
from hetsched.workload.native import is_native_workload, native_workload_from_data
from hetsched.workload.swf import SwfOptions, is_swf, load_swf


@dataclass(frozen=True)
class WorkloadFormat:
    name: str
    accepts: Callable[[Path, Any], bool]
    load: Callable[[Path, Any, Platform, SwfOptions], Workload]


WORKLOAD_FORMATS: tuple[WorkloadFormat, ...] = (
    WorkloadFormat("dssim", lambda path, data: path.suffix.lower() == ".xml",
                   lambda path, data, platform, swf: read_job_list(path, platform)),
    WorkloadFormat("swf", lambda path, data: is_swf(path),
                   lambda path, data, platform, swf: load_swf(path, platform, swf)),
    WorkloadFormat("batsim", lambda path, data: is_batsim_workload(data),
                   lambda path, data, platform, swf: batsim_workload_from_data(
                       data, path, platform)),
    WorkloadFormat("irmasim", lambda path, data: is_irmasim_workload(data),
                   lambda path, data, platform, swf: irmasim_workload_from_data(data, path)),
    WorkloadFormat("native", lambda path, data: is_native_workload(data),
                   lambda path, data, platform, swf: native_workload_from_data(
                       data, path, platform)),
)


def load_workload(path: str | Path, platform: Platform, swf: SwfOptions = SwfOptions()) -> Workload:
    """Read a workload (SWF, IRMaSim JSON, Batsim JSON, native JSON/YAML or a ds-sim job list
    XML) for ``platform``."""
    path = Path(path)
    check_exists(path)
    structured = path.suffix.lower() in STRUCTURED_SUFFIXES
    data = read_structured(path) if structured else None
    for fmt in WORKLOAD_FORMATS:
        if fmt.accepts(path, data):
            return fmt.load(path, data, platform, swf)
    if not structured:
        raise InputError(path, f"unsupported workload file suffix '{path.suffix}' (expected "
                               f".swf, .swf.gz, {', '.join(STRUCTURED_SUFFIXES)}, .xml)")
    raise InputError(path, "unrecognised workload format: expected a top-level 'jobs' list",
                     field="jobs")
