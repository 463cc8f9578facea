"""``hetsched convert``: a workload or platform file to another format, through hetsched's own
models (every reader builds a ``Workload`` or ``Platform``; every writer lists what its format
cannot hold). What the target would lose for this input is listed, and refused unless
``lossy``.

Formats that give run times in seconds on the platform's slowest core (SWF, Batsim) and
formats that give work (native, IRMaSim, ds-sim's at 1e9 ops/s) meet through the platform:
converting between the two kinds needs one (``platform``); within a kind the result does not
depend on it, and a nominal one-node platform is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.errors import ConfigError, option_name
from hetsched.platform.model import NodeType, Platform
from hetsched.workload.model import Workload

#: Workload formats whose times are seconds on the slowest core (the rest hold work): the
#: task graphs' too (Kasahara's STG, the textbook JSON: its costs are kept as ETC rows only by
#: the native format).
SECONDS_FORMATS = ("swf", "batsim", "batsim5", "stg", "textbook")
#: What ``--to`` picks when a suffix is ambiguous; ``.json`` defaults to the native format.
SUFFIXES = {".swf": "swf", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".xml": None}
#: (source format, target format) pairs that are the target's routine: an SWF trace as Batsim
#: delay jobs, as Batsim's own converter writes it (run time the delay, requested time the
#: walltime, processors ``res``). What they leave out is expected, so not refused.
CONVENTIONAL = frozenset({("swf", "batsim"), ("swf", "batsim5")})
#: The Batsim formats: their ``nb_res`` is the size of the platform written with.
BATSIM_FORMATS = ("batsim", "batsim5", "batsim-ph", "batsim5-ph")


@dataclass(frozen=True)
class Conversion:
    """What was written (or would have been): the kind, the format and the losses;
    ``conventional``: the losses are the target's routine (:data:`CONVENTIONAL`)."""

    kind: str
    fmt: str
    losses: list[str]
    conventional: bool = False


def nominal_platform() -> Platform:
    """A platform on which no conversion within a kind of format depends: one node as large
    as hetsched allows, 1e9 ops/s, unlimited memory and disk."""
    from hetsched.limits import MAX_CORES_PER_NODE

    return Platform.from_counts("nominal", [(NodeType("nominal", MAX_CORES_PER_NODE, 1.0), 1)])


def trace_platform(workload: Workload) -> Platform:
    """The machine a workload was made for, as far as it says: the cores its header gives
    (SWF ``MaxProcs``, Batsim ``nb_res``), else its largest job's; one node at the nominal
    platform's speed, so run times read on that one stay the same."""
    cores = workload.declared_cores or max((j.ntasks for j in workload.jobs), default=1)
    return Platform.from_counts(workload.name, [(NodeType("trace", cores, 1.0), 1)])


def input_kind(path: Path, data: Any) -> str:
    """``workload`` or ``platform``: what the file whose document is ``data``
    (:func:`~hetsched.documents.read_document`) holds (workload when in doubt)."""
    from hetsched.platform.load import FORMATS

    from hetsched.mapping.dag_io import is_textbook

    if path.suffix.lower() == ".xml":
        return "platform" if data.tag == "platform" else "workload"
    if is_textbook(data):  # both, as a ds-sim configuration: its tasks by default
        return "workload"
    if data is not None and any(f.accepts(path, data) for f in FORMATS.values()):
        return "platform"
    return "workload"


def suffix_format(out: Path, kind: str) -> str:
    """The format ``out``'s suffix says for a ``kind`` (``.xml``: ds-sim job list for
    workloads, SimGrid for platforms); ``""`` when it says none."""
    fmt = SUFFIXES.get(out.suffix.lower(), "")
    if fmt is None:
        return "dssim" if kind == "workload" else "simgrid"
    return "" if kind == "platform" and fmt == "swf" else fmt


def target_format(out: Path, kind: str, to: str | None) -> str:
    """The format to write: ``to``, else what the suffix says (:func:`suffix_format`)."""
    if to is not None:
        return to
    fmt = suffix_format(out, kind)
    if not fmt:
        raise ConfigError(f"cannot tell the {kind} format from the suffix of {out}: give "
                          f"{option_name('to')}")
    return fmt


#: What ``kind`` may name: a file's workload or its platform (``None``: what it holds,
#: :func:`input_kind`).
KINDS = ("workload", "platform")


def convert(source: Path, out: Path, to: str | None = None, platform: Path | None = None,
            lossy: bool = False, kind: str | None = None) -> Conversion:
    """Convert ``source`` to ``out``; raise ConfigError listing the losses unless ``lossy``.
    ``kind`` picks what to read of a file that holds both (a ds-sim configuration: its job
    list, by default, or its servers)."""
    from hetsched.documents import read_document
    from hetsched.files import check_exists

    if kind is not None and kind not in KINDS:
        raise ConfigError(f"unknown kind '{kind}': expected {' or '.join(KINDS)}")
    check_exists(source)
    data = read_document(source)  # read once: what it holds, its format and its contents
    kind = kind or input_kind(source, data)
    fmt = target_format(out, kind, to)
    if kind == "platform":
        return _convert_platform(source, data, out, fmt, lossy)
    return _convert_workload(source, data, out, fmt, platform, lossy)


def _refuse(losses: list[str], fmt: str) -> None:
    raise ConfigError(f"converting to {fmt} would lose: " + "; ".join(losses)
                      + f" (give {option_name('lossy')} to convert anyway)")


def _convert_platform(source: Path, data: Any, out: Path, fmt: str,
                      lossy: bool) -> Conversion:
    from hetsched.platform.load import platform_from_document
    from hetsched.platform.writers import writer

    chosen = writer(fmt)
    read = platform_from_document(source, data)
    losses = chosen.losses(read)
    if losses and not lossy:
        _refuse(losses, fmt)
    chosen.write(read, out)
    return Conversion("platform", fmt, losses)


def _workload_format(source: Path, data: Any) -> str:
    from hetsched.mapping.dag_io import is_textbook
    from hetsched.workload.load import is_batsim_workload, is_swf

    if is_swf(source):
        return "swf"
    if source.suffix.lower() == ".stg":
        return "stg"
    if is_textbook(data):
        return "textbook"
    return "batsim" if is_batsim_workload(data) else "work"


def _skipped(workload: Workload) -> list[str]:
    """The input's records that are not jobs (SWF's unknown run times): lost too."""
    if not workload.skipped:
        return []
    first = workload.skipped[0]
    return [f"{len(workload.skipped)} records of the input are not jobs (first, line "
            f"{first.line}: {first.reason}): not written"]


def _convert_workload(source: Path, data: Any, out: Path, fmt: str,
                      platform_path: Path | None, lossy: bool) -> Conversion:
    from hetsched.platform.load import load_platform
    from hetsched.workload.load import workload_from_document
    from hetsched.workload.writers import losses as losses_of, write, writer

    chosen = writer(fmt)
    source_fmt = _workload_format(source, data)
    crossing = (source_fmt in SECONDS_FORMATS) != (fmt in SECONDS_FORMATS)
    if crossing and platform_path is None:
        raise ConfigError(f"converting {source.name} to {fmt} turns run times into work or "
                          f"back: give {option_name('platform')} (run times are on its slowest "
                          "core)")
    platform = load_platform(platform_path) if platform_path else nominal_platform()
    read = workload_from_document(source, data, platform)
    losses = _skipped(read) + losses_of(chosen, read, platform)
    conventional = (source_fmt, fmt) in CONVENTIONAL
    if losses and not (lossy or conventional):
        _refuse(losses, fmt)
    if platform_path is None and fmt in BATSIM_FORMATS:
        platform = trace_platform(read)  # its nb_res: the trace's machine
    # without a platform, the nominal one's size and speed say nothing about the jobs
    unknown = {"Note": None, "MaxProcs": None} if platform_path is None else {}
    header = {**unknown, **_kept_header(read, source_fmt, fmt),
              "Converted": f"from {source.name} by hetsched convert"}
    write(chosen, read, out, platform, header)
    return Conversion("workload", fmt, losses, conventional)


#: Header lines that describe the file itself, written anew.
_RECOUNTED = frozenset({"Version", "MaxJobs", "MaxRecords", "Note", "Converted"})


def _kept_header(read: Workload, source_fmt: str, fmt: str) -> dict[str, object]:
    """An SWF trace's ``; Key: value`` header (the machine, the log's origin …) when it is
    written as SWF again; other formats have no place for it."""
    if fmt != "swf" or source_fmt != "swf":
        return {}
    return {key: value for key, value in read.metadata.items() if key not in _RECOUNTED}
