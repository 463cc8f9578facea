"""Platform writers by format: a :class:`~hetsched.platform.model.Platform` to a file.

:data:`WRITERS` maps a format name to its :class:`PlatformWriter`. Each writer's ``losses``
lists what a given platform would lose in its format, one line per kind (``hetsched convert``
refuses them without ``--lossy``). Shared checks are the functions below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hetsched.platform.model import NodeType, Platform
from hetsched.registry import Entry, Registry


@dataclass(frozen=True)
class PlatformWriter:
    name: str
    suffix: str
    write: Callable[[Platform, Path], Path]
    losses: Callable[[Platform], list[str]]
    description: str


def _builtins() -> Iterator[Entry]:
    from hetsched.platform.writers import irmasim, native, simgrid

    for w in (native.WRITER, native.YAML_WRITER, irmasim.WRITER, simgrid.WRITER):
        yield Entry(w.name, w)


#: The platform writers by format name (their modules are imported on first use).
WRITERS = Registry("platform format", __name__, _builtins)


def writer(name: str) -> PlatformWriter:
    """The writer of format ``name``, or a ConfigError listing the known ones."""
    return WRITERS.load(name)


def type_losses(platform: Platform, fmt: str,
                checks: dict[str, Callable[[NodeType], bool]]) -> list[str]:
    """One line per check that some node types fail: ``"2 node types have disk: <fmt> …"``."""
    lines = []
    for what, lost in checks.items():
        names = [t.name for t in platform.node_types if lost(t)]
        if names:
            lines.append(f"{len(names)} node type(s) ({', '.join(names[:3])}"
                         f"{', …' if len(names) > 3 else ''}) have {what}: {fmt} cannot hold it")
    return lines


def renamed_nodes(platform: Platform, fmt: str) -> list[str]:
    """The nodes a reader naming them ``<type>-<k>`` would rename."""
    counts: dict[str, int] = {}
    renamed = 0
    for node in platform.nodes:
        k = counts.get(node.type.name, 0)
        counts[node.type.name] = k + 1
        renamed += node.name != f"{node.type.name}-{k}"
    return [f"{renamed} of {len(platform.nodes)} nodes have names other than <type>-<k>: "
            f"{fmt} names them so"] if renamed else []


def platform_losses(platform: Platform, fmt: str, *, contention: str | None,
                    keeps_failures: bool = False, keeps_reservations: bool = False) -> list[str]:
    """Downtime, reservations and failures (unless the format ``keeps_reservations``,
    ``keeps_failures``: the writer reports what it cannot keep of them), and a contention
    model other than ``contention`` (the one the format's reader gives; ``None``: the format
    keeps any)."""
    lines = []
    if platform.availability:
        lines.append(f"the platform has downtime: {fmt} has none")
    if platform.reservations and not keeps_reservations:
        lines.append(f"the platform has reservations: {fmt} has none")
    if platform.failures and not keeps_failures:
        lines.append(f"the platform has node failures: {fmt} has none")
    if contention is not None and (platform.contention, platform.contention_params) != (
            contention, ()):
        lines.append(f"the platform's contention model is {platform.contention}: {fmt} gives "
                     f"{contention}")
    return lines
