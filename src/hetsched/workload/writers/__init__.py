"""Workload writers by format: a :class:`~hetsched.workload.model.Workload` to a file.

:data:`WRITERS` maps a format name to its :class:`Writer`; ``hetsched generate workload``
uses it (and a later ``hetsched convert`` will). The SWF writer's primitive,
:func:`hetsched.workload.writers.swf.write_table`, also writes tables that are not workloads
(a generator's draw, a run's results: ``jobs.swf``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hetsched.errors import ConfigError, did_you_mean
from hetsched.platform.model import Platform
from hetsched.workload.model import Workload

#: ``write(workload, path, platform, header) -> path``; ``header``: provenance lines.
WriteFunction = Callable[[Workload, Path, Platform, Mapping[str, object]], Path]


@dataclass(frozen=True)
class Writer:
    """A format hetsched writes: its name, the file name ending it suggests, its function."""

    name: str
    suffix: str
    write: WriteFunction
    description: str


def _registry() -> dict[str, Writer]:
    from hetsched.workload.writers import native, swf

    return {w.name: w for w in (swf.WRITER, native.WRITER)}


WRITERS = _registry()


def writer(name: str) -> Writer:
    """The writer of format ``name``, or a ConfigError listing the known ones."""
    if name not in WRITERS:
        raise ConfigError(f"unknown workload format {name!r}{did_you_mean(name, list(WRITERS))}"
                          f" (known: {', '.join(WRITERS)})")
    return WRITERS[name]
