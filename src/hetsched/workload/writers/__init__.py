"""Workload writers by format: a :class:`~hetsched.workload.model.Workload` to a file.

:data:`WRITERS` maps a format name to its :class:`Writer`; ``hetsched generate workload``
and ``hetsched convert`` use it. Each writer lists what its format cannot hold
(:class:`~hetsched.workload.writers.losses.Loss`); :func:`losses` says which of them a given
workload would lose. The SWF writer's primitive,
:func:`hetsched.workload.writers.swf.write_table`, also writes tables that are not workloads
(a generator's draw, a run's results: ``jobs.swf``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from pathlib import Path

from hetsched.errors import ConfigError, did_you_mean
from hetsched.platform.model import Platform
from hetsched.workload.model import Workload

if TYPE_CHECKING:
    from hetsched.workload.writers.losses import Loss

#: ``write(workload, path, platform, header) -> path``; ``header``: provenance lines.
WriteFunction = Callable[[Workload, Path, Platform, Mapping[str, object]], Path]


@dataclass(frozen=True)
class Writer:
    """A format hetsched writes: its name, the file name ending it suggests, its function and
    what it cannot hold (``cannot_hold``)."""

    name: str
    suffix: str
    write: WriteFunction
    description: str
    cannot_hold: tuple["Loss", ...] = ()


def _registry() -> dict[str, Writer]:
    from hetsched.workload.writers import batsim, dssim, irmasim, native, swf

    return {w.name: w for w in (swf.WRITER, native.WRITER, native.YAML_WRITER, batsim.WRITER,
                                batsim.WRITER_V5, batsim.WRITER_PH, batsim.WRITER_PH_V5,
                                irmasim.WRITER, dssim.WRITER)}


WRITERS = _registry()


def writer(name: str) -> Writer:
    """The writer of format ``name``, or a ConfigError listing the known ones."""
    if name not in WRITERS:
        raise ConfigError(f"unknown workload format {name!r}{did_you_mean(name, list(WRITERS))}"
                          f" (known: {', '.join(WRITERS)})")
    return WRITERS[name]


def losses(chosen: Writer, workload: Workload, platform: Platform) -> list[str]:
    """What writing ``workload`` with ``chosen`` would lose, one line per kind of loss
    (``"3 of 10 jobs have parents: Batsim JSON has no dependencies"``); empty if nothing."""
    lines = []
    for loss in chosen.cannot_hold:
        count = loss.count(workload, platform)
        if count:
            lines.append(f"{count} of {len(workload.jobs)} jobs {loss.what}: {loss.effect}")
    return lines
