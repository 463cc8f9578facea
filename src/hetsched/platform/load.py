"""``load_platform``: read any supported platform file, detecting its format.

A format is a :class:`PlatformFormat` registered in :data:`FORMATS`: ``accepts(path, data)``
says whether it reads the file (``data`` is the parsed document for ``.json``/``.yaml``/``.yml``
files, the root element for ``.xml`` files, ``None`` for other suffixes: see
:func:`~hetsched.documents.read_document`). Formats are tried in registration order; adding one
means registering it (``FORMATS.register(fmt.name, fmt)``). A format's reader is imported only
when a file of that format is read (:func:`hetsched.lazy.deferred`), so start-up pays for one
format only.
"""

from __future__ import annotations

from collections.abc import Callable
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

_native = deferred("hetsched.platform.native:native_platform_from_data")
_irmasim = deferred("hetsched.platform.irmasim:irmasim_platform_from_data")
_dssim = deferred("hetsched.platform.dssim:config_platform")
_batsim_json = deferred("hetsched.platform.batsim_json:batsim_json_platform")
_simgrid = deferred("hetsched.platform.simgrid:simgrid_platform")
_textbook = deferred("hetsched.platform.textbook:textbook_platform")


@dataclass(frozen=True)
class PlatformFormat:
    name: str
    accepts: Callable[[Path, Any], bool]
    load: Callable[[Path, Any], Platform]
    description: str = ""


def is_native_platform(data: Any) -> bool:
    return isinstance(data, dict) and "node_types" in data


def is_irmasim_platform(data: Any) -> bool:
    return isinstance(data, dict) and "platform" in data and "node_types" not in data


def is_batsim_json_platform(data: Any) -> bool:
    """Batsim's (or HDeepRM's) heterogeneous description: a top-level ``clusters`` list."""
    return (isinstance(data, dict) and "clusters" in data
            and not {"node_types", "platform"} & data.keys())


#: The platform formats hetsched reads, tried in order.
FORMATS = Registry("platform reader", __name__)
for _format in (
    PlatformFormat("native", lambda path, data: is_native_platform(data),
                   lambda path, data: _native(data, path),
                   "hetsched's native platform, JSON or YAML (top-level node_types)"),
    PlatformFormat("irmasim", lambda path, data: is_irmasim_platform(data),
                   lambda path, data: _irmasim(data, path),
                   "IRMaSim platform JSON (top-level platform)"),
    PlatformFormat("batsim-json", lambda path, data: is_batsim_json_platform(data),
                   lambda path, data: _batsim_json(data, path),
                   "Batsim's (or HDeepRM's) heterogeneous description JSON (top-level clusters)"),
    PlatformFormat("textbook", lambda path, data: is_textbook(data),
                   lambda path, data: _textbook(data, path),
                   "a textbook task graph JSON (top-level tasks and edges): one one-core node "
                   "per processor, each its own node type P1, P2, ..."),
    PlatformFormat("simgrid", lambda path, data: getattr(data, "tag", None) == "platform",
                   lambda path, data: _simgrid(data, path),
                   "SimGrid or Batsim platform XML (root <platform>)"),
    PlatformFormat("dssim", lambda path, data: getattr(data, "tag", None) in ("config", "system"),
                   lambda path, data: _dssim(path, data),
                   "ds-sim configuration XML: its servers (root <config>)"),
):
    FORMATS.register(_format.name, _format)
#: The built-in formats, in order (the name they had before :data:`FORMATS`).
PLATFORM_FORMATS: tuple[PlatformFormat, ...] = tuple(FORMATS.values())


def load_platform(path: str | Path) -> Platform:
    """Read a platform file in any supported format (native JSON/YAML, IRMaSim JSON, Batsim's
    heterogeneous description, a textbook task graph JSON, SimGrid or Batsim platform XML,
    ds-sim configuration XML: XML formats told apart by their root)."""
    return read_platform(path)[0]


def read_platform(path: str | Path) -> tuple[Platform, Any]:
    """The platform in ``path`` and the document it was read from
    (:func:`~hetsched.documents.read_document`), for a caller that needs more of it."""
    path = Path(path)
    check_exists(path)
    document = read_document(path)
    return platform_from_document(path, document), document


def platform_from_document(path: Path, data: Any) -> Platform:
    """The platform in ``path``, whose document (:func:`~hetsched.documents.read_document`)
    is ``data``."""
    for fmt in FORMATS.values():
        if fmt.accepts(path, data):
            return fmt.load(path, data)
    if path.suffix.lower() == ".xml":
        raise InputError(path, f"unrecognised platform XML: the root element is <{data.tag}>, "
                               "expected <platform> (SimGrid, Batsim) or <config> (ds-sim)")
    if path.suffix.lower() not in STRUCTURED_SUFFIXES:
        raise InputError(path, f"unsupported platform file suffix '{path.suffix}' "
                               f"(expected one of {', '.join(STRUCTURED_SUFFIXES)}, .xml)")
    raise InputError(path, "unrecognised platform format: expected a native platform (top-level "
                           "'node_types'), an IRMaSim platform (top-level 'platform'), "
                           "Batsim's heterogeneous description (top-level 'clusters') or a "
                           "textbook task graph (top-level 'tasks' and 'edges')")
