"""Readers of ds-sim's XML files: the configuration (server types, and how jobs are made) and
the job list (jobs with estimated and actual run times). Bad input gives one line naming the
file, the record and the problem."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from hetsched.dssim.records import JobRequest, ServerType, covers
from hetsched.errors import ConfigError, InputError
from hetsched.limits import MAX_CORES_PER_NODE, MAX_INT32, MAX_NODES, MAX_PRICE, MAX_TASKS
from hetsched.parsing import parse_float, parse_int, quote
from hetsched.platform.model import NodeType, Platform
from hetsched.platform.native import nodes_from_groups
from hetsched.xmldoc import attribute, integer, read_xml
from hetsched.workload.model import Job, Workload

#: Node speed of ds-sim servers (ops/s): ds-sim has no speeds, so run time = work / 1e9.
SPEED = 1e9
#: ``Workload.metadata`` key marking a workload read from a ds-sim job list (what the ds-sim
#: algorithms need: single-node jobs whose times and sizes are ds-sim's integers).
JOB_LIST_KEY = "dssim_job_list"

#: Each integer attribute's range: ds-sim's C ints, and hetsched's limits.
_SERVER_FIELDS = {"limit": (1, MAX_NODES), "bootupTime": (0, MAX_INT32),
                  "cores": (1, MAX_CORES_PER_NODE), "memory": (0, MAX_INT32),
                  "disk": (0, MAX_INT32)}
_JOB_FIELDS = {"id": (0, MAX_INT32), "submitTime": (0, MAX_INT32), "estRunTime": (0, MAX_INT32),
               "cores": (1, MAX_TASKS), "memory": (0, MAX_INT32), "disk": (0, MAX_INT32)}


@dataclass(frozen=True)
class DsSimConfig:
    """What hetsched takes from a configuration: server types (in ds-sim's order, by core
    count) and where jobs come from: a job list file, or ds-sim's random generator."""

    path: Path
    types: tuple[ServerType, ...]
    job_file: Path | None
    seed: int | None


def _int(path: Path, element: ET.Element, name: str, record: str,
         bounds: tuple[int, int]) -> int:
    """The integer attribute ``name``, within ``bounds`` (both included)."""
    return integer(attribute(element, name, path, record), path, record, name, bounds)


def _rate(path: Path, element: ET.Element, record: str) -> float:
    text = attribute(element, "hourlyRate", path, record)
    value = parse_float(text)
    if value is None or not 0 <= value <= MAX_PRICE:
        raise InputError(path, f"must be a number from 0 to {MAX_PRICE:g}, got {quote(text)}",
                         record=record, field="hourlyRate")
    return value + 0.0  # -0 -> 0


def _server_type(path: Path, element: ET.Element, number: int) -> ServerType:
    name = element.get("type")
    record = f"server {number}" + (f" ('{name}')" if name else "")
    if not name:
        raise InputError(path, "missing attribute", record=record, field="type")
    limit, boot, cores, memory, disk = (_int(path, element, f, record, bounds)
                                        for f, bounds in _SERVER_FIELDS.items())
    return ServerType(name, limit, boot, _rate(path, element, record), cores, memory, disk)


def read_config(path: str | Path, root: ET.Element | None = None) -> DsSimConfig:
    """A ds-sim configuration (or the ``ds-system.xml`` a ds-sim server writes); ``root``: its
    root element when the file was read already."""
    path = Path(path)
    root = read_xml(path) if root is None else root
    if root.tag not in ("config", "system"):
        raise InputError(path, f"not a ds-sim configuration: the root element is <{root.tag}>, "
                               "expected <config>")
    elements = list(root.iter("server"))
    if not elements:
        raise InputError(path, "no <server> elements: a ds-sim configuration needs server types",
                         record="<servers>")
    types = [_server_type(path, e, i + 1) for i, e in enumerate(elements)]
    seen: set[str] = set()
    for name in (t.name for t in types):
        if name in seen:
            raise InputError(path, f"server type '{name}' is defined twice", record="<servers>")
        seen.add(name)
    jobs = root.find("jobs")
    job_file = jobs.get("file") if jobs is not None else None
    seed = (_int(path, root, "randomSeed", f"<{root.tag}>", (0, MAX_INT32))
            if "randomSeed" in root.attrib else None)
    return DsSimConfig(path, tuple(sorted(types, key=lambda t: t.cores)),
                       path.parent / job_file if job_file else None, seed)


def config_platform(path: str | Path, root: ET.Element | None = None) -> Platform:
    """The servers of a configuration as a hetsched platform, in ds-sim's server order
    (``root``: as :func:`read_config`)."""
    config = read_config(path, root)
    groups = [("cluster0", NodeType(t.name, t.cores, clock_ghz=SPEED / 1e9, memory_mb=t.memory,
                                    hourly_price=t.hourly_rate, boot_time=t.boot_time,
                                    on_demand=True, disk_mb=t.disk, has_power=False), t.limit)
              for t in config.types]
    nodes = nodes_from_groups(groups, config.path, "limit")
    return Platform(config.path.stem, nodes, str(config.path))


def server_types(platform: Platform) -> tuple[ServerType, ...]:
    """The ds-sim server types behind a platform: one per node type, in node order. Every node
    type needs a finite memory and disk size (a ds-sim configuration's servers, or native node
    types given ``memory_gb`` and ``disk_gb``)."""
    counts: dict[str, int] = {}
    for node in platform.nodes:
        counts[node.type.name] = counts.get(node.type.name, 0) + 1
    for t in platform.node_types:
        for what, size in (("memory", t.memory_mb), ("disk", t.disk_mb)):
            if not math.isfinite(size):
                raise ConfigError(f"ds-sim algorithms need a ds-sim platform, whose servers have "
                                  f"memory and disk sizes (a configuration XML, or native node "
                                  f"types with memory_gb and disk_gb); {platform.source}: node "
                                  f"type '{t.name}' has no {what} size")
    return tuple(ServerType(t.name, counts[t.name], int(t.boot_time), t.hourly_price, t.cores,
                            int(t.memory_mb), int(t.disk_mb)) for t in platform.node_types)


def _job(path: Path, element: ET.Element, number: int) -> tuple[JobRequest, int]:
    jid = parse_int(element.get("id", ""))
    record = f"job {jid}" if jid is not None else f"job #{number}"
    v = {f: _int(path, element, f, record, bounds) for f, bounds in _JOB_FIELDS.items()}
    actual = (_int(path, element, "actRunTime", record, (0, MAX_INT32))
              if "actRunTime" in element.attrib else v["estRunTime"])
    request = JobRequest(v["id"], v["submitTime"], v["cores"], v["memory"], v["disk"],
                         v["estRunTime"])
    return request, actual


def _check_runnable(path: Path, request: JobRequest, platform: Platform) -> None:
    """Some node type can hold the job (on any platform: sizes may be unlimited there)."""
    if not any(covers(t.cores, t.memory_mb, t.disk_mb, request) for t in platform.node_types):
        raise InputError(path, f"needs {request.cores} cores, {request.memory} MB memory and "
                               f"{request.disk} MB disk; no server type can run it",
                         record=f"job {request.id}")


def _check_unique_ids(path: Path, jobs: list[tuple[JobRequest, int]]) -> None:
    first: dict[int, int] = {}
    for number, (request, _) in enumerate(jobs, 1):
        if request.id in first:
            raise InputError(path, f"duplicate job id {request.id} (job elements "
                                   f"#{first[request.id]} and #{number} of the list)",
                             record=f"job {request.id}", field="id")
        first[request.id] = number


def read_job_list(path: str | Path, platform: Platform,
                  root: ET.Element | None = None) -> Workload:
    """A ds-sim job list (``<jobs><job id submitTime estRunTime [actRunTime] cores memory
    disk/>``). Without ``actRunTime`` a job runs for its estimate, as in ds-sim. ``root``: the
    file's root element when it was read already."""
    path = Path(path)
    root = read_xml(path) if root is None else root
    if root.tag == "config":
        return workload_for_config(path, platform, root)
    return _job_list(path, root, platform)


def _job_list(path: Path, root: ET.Element, platform: Platform) -> Workload:
    if root.tag != "jobs":
        raise InputError(path, f"not a ds-sim job list: the root element is <{root.tag}>, "
                               "expected <jobs>")
    jobs = [_job(path, e, i + 1) for i, e in enumerate(root.iter("job"))]
    _check_unique_ids(path, jobs)
    previous = None
    for request, _ in jobs:
        _check_runnable(path, request, platform)
        if previous is not None and request.submit < previous:
            raise InputError(path, f"submitted at {request.submit}, before the job ahead of it "
                                   f"({previous}); ds-sim sends jobs in file order",
                             record=f"job {request.id}")
        previous = request.submit
    return Workload(path.stem, tuple(_hetsched_job(r, a) for r, a in jobs), str(path),
                    metadata={JOB_LIST_KEY: True})


def _hetsched_job(request: JobRequest, actual: int) -> Job:
    return Job(id=str(request.id), submit=float(request.submit), ntasks=request.cores,
               req_ops=actual * SPEED, req_time=float(request.estimate),
               memory_mb=float(request.memory), disk_mb=float(request.disk), profile="dssim")


def _generated_message(path: Path, config: DsSimConfig) -> str:
    seed = f" (random seed {config.seed})" if config.seed is not None else ""
    return ("this is a ds-sim configuration whose jobs ds-sim's random generator makes"
            f"{seed}; hetsched needs the job list itself: give --workload JOBS.xml (the "
            "ds-jobs.xml a ds-sim server writes, or a <name>-jobs.xml list)")


def workload_for_config(path: str | Path, platform: Platform,
                        root: ET.Element | None = None) -> Workload:
    """The workload a configuration names (``<jobs file=...>``), or a clear error when its
    jobs are generated by ds-sim's random generator (``root``: as :func:`read_config`)."""
    config = read_config(path, root)
    if config.job_file is None:
        raise InputError(config.path, _generated_message(config.path, config))
    return _job_list(config.job_file, read_xml(config.job_file), platform)  # never a config
