"""``load_workload``: read any supported workload file, detecting its format.

A format is a :class:`WorkloadFormat` registered in :data:`FORMATS`, tried in registration
order: ``accepts(path, data)`` gets the parsed document for ``.json``/``.yaml``/``.yml`` files,
the root element for ``.xml`` files and ``None`` for other suffixes (such formats read the file
themselves in ``load``): see :func:`~hetsched.documents.read_document`. A format's reader is
imported only when a file of that format is read (:func:`hetsched.lazy.deferred`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.documents import STRUCTURED_SUFFIXES, read_document

from hetsched.files import check_exists
from hetsched.errors import InputError
from hetsched.lazy import deferred
from hetsched.mapping.dag_io import is_textbook
from hetsched.platform.model import Platform
from hetsched.registry import Registry
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions, load_swf

_dssim = deferred("hetsched.workload.dssim:read_job_list")
_batsim = deferred("hetsched.workload.batsim:batsim_workload_from_data")
_irmasim = deferred("hetsched.workload.irmasim:irmasim_workload_from_data")
_native = deferred("hetsched.workload.native:native_workload_from_data")
_wfformat = deferred("hetsched.workload.wfformat:wfformat_workload_from_data")
_workflows = deferred("hetsched.workload.workflows:workflows_workload")
_textbook = deferred("hetsched.workload.taskgraph:textbook_workload")
_stg = deferred("hetsched.workload.taskgraph:stg_workload")


@dataclass(frozen=True)
class WorkloadFormat:
    name: str
    accepts: Callable[[Path, Any], bool]
    load: Callable[[Path, Any, Platform, SwfOptions], Workload]
    description: str = ""


def is_swf(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".swf") or name.endswith(".swf.gz")


def is_batsim_workload(data: Any) -> bool:
    """Batsim's profiles have a ``type`` (IRMaSim's, derived from Batsim's, do not): a file
    where any has one is Batsim's (its loader names a profile without one)."""
    profiles = data.get("profiles") if isinstance(data, Mapping) else None
    return (isinstance(profiles, Mapping)
            and any(isinstance(p, Mapping) and "type" in p for p in profiles.values()))


def is_irmasim_workload(data: Any) -> bool:
    if not isinstance(data, Mapping) or not isinstance(data.get("jobs"), list):
        return False
    first = data["jobs"][0] if data["jobs"] else {}
    return "profiles" in data or (isinstance(first, Mapping) and "subtime" in first)


def is_wfformat(data: Any) -> bool:
    """A top-level ``workflow`` object holding ``tasks`` (1.4) or a ``specification`` (1.5,
    1.6)."""
    workflow = data.get("workflow") if isinstance(data, Mapping) else None
    return isinstance(workflow, Mapping) and ("tasks" in workflow or "specification" in workflow)


def is_workflow_set(data: Any) -> bool:
    """A top-level ``workflows`` list (and no ``jobs``): several workflows in one workload."""
    return isinstance(data, dict) and "workflows" in data and "jobs" not in data


def is_native_workload(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("jobs"), list)


#: The workload formats hetsched reads, tried in order.
FORMATS = Registry("workload reader", __name__)
for _format in (
    WorkloadFormat("dssim", lambda path, data: path.suffix.lower() == ".xml",
                   lambda path, data, platform, swf: _dssim(path, platform, data),
                   "ds-sim job list XML (or a configuration naming one)"),
    WorkloadFormat("swf", lambda path, data: is_swf(path),
                   lambda path, data, platform, swf: load_swf(path, platform, swf),
                   "Standard Workload Format, .swf or .swf.gz"),
    WorkloadFormat("batsim", lambda path, data: is_batsim_workload(data),
                   lambda path, data, platform, swf: _batsim(data, path, platform),
                   "Batsim workload JSON (profiles with a type)"),
    WorkloadFormat("irmasim", lambda path, data: is_irmasim_workload(data),
                   lambda path, data, platform, swf: _irmasim(data, path),
                   "IRMaSim workload JSON"),
    WorkloadFormat("wfformat", lambda path, data: is_wfformat(data),
                   lambda path, data, platform, swf: _wfformat(data, path, platform,
                                                               swf.reference_speed),
                   "WfCommons WfFormat workflow JSON, schema 1.4, 1.5 or 1.6 (a top-level "
                   "workflow object)"),
    WorkloadFormat("workflows", lambda path, data: is_workflow_set(data),
                   lambda path, data, platform, swf: _workflows(data, path, platform, swf,
                                                                workload_from_document),
                   "several workflows in one workload, each submitted at its own time (a "
                   "top-level workflows list of files)"),
    WorkloadFormat("textbook", lambda path, data: is_textbook(data),
                   lambda path, data, platform, swf: _textbook(data, path, platform),
                   "a textbook task graph JSON (top-level tasks and edges): one job per task, "
                   "its costs per processor as an ETC row"),
    WorkloadFormat("stg", lambda path, data: path.suffix.lower() == ".stg",
                   lambda path, data, platform, swf: _stg(path, platform),
                   "Kasahara's Standard Task Graph, .stg: one job per task"),
    WorkloadFormat("native", lambda path, data: is_native_workload(data),
                   lambda path, data, platform, swf: _native(data, path, platform),
                   "hetsched's native workload, JSON or YAML (a top-level jobs list)"),
):
    FORMATS.register(_format.name, _format)
#: The built-in formats, in order (the name they had before :data:`FORMATS`).
WORKLOAD_FORMATS: tuple[WorkloadFormat, ...] = tuple(FORMATS.values())


def load_workload(path: str | Path, platform: Platform, swf: SwfOptions = SwfOptions()) -> Workload:
    """Read a workload (SWF, IRMaSim JSON, Batsim JSON, WfCommons WfFormat JSON, a textbook
    task graph JSON, Kasahara STG, native JSON/YAML or a ds-sim job list XML) for
    ``platform``."""
    path = Path(path)
    check_exists(path)
    return workload_from_document(path, read_document(path), platform, swf)


def workload_from_document(path: Path, data: Any, platform: Platform,
                           swf: SwfOptions = SwfOptions()) -> Workload:
    """The workload in ``path``, whose document (:func:`~hetsched.documents.read_document`)
    is ``data``."""
    for fmt in FORMATS.values():
        if fmt.accepts(path, data):
            return fmt.load(path, data, platform, swf)
    if path.suffix.lower() not in STRUCTURED_SUFFIXES:
        raise InputError(path, f"unsupported workload file suffix '{path.suffix}' (expected "
                               f".swf, .swf.gz, {', '.join(STRUCTURED_SUFFIXES)}, .xml, .stg)")
    raise InputError(path, "unrecognised workload format: expected a top-level 'jobs' list",
                     field="jobs")
