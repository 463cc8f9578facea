"""``load_platform``: read any supported platform file, detecting its format.

A format is a :class:`PlatformFormat` in :data:`PLATFORM_FORMATS`: ``accepts(path, data)`` says
whether it reads the file (``data`` is the parsed document for ``.json``/``.yaml``/``.yml`` files,
``None`` for other suffixes, which a format reads itself in ``load``). Formats are tried in order;
adding one (e.g. ds-sim XML, accepting ``.xml``) means appending an entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.dssim.xml import config_platform
from hetsched.errors import InputError
from hetsched.documents import STRUCTURED_SUFFIXES, check_exists, read_structured
from hetsched.platform.irmasim import irmasim_platform_from_data, is_irmasim_platform
from hetsched.platform.model import Platform
from hetsched.platform.native import is_native_platform, native_platform_from_data


@dataclass(frozen=True)
class PlatformFormat:
    name: str
    accepts: Callable[[Path, Any], bool]
    load: Callable[[Path, Any], Platform]


PLATFORM_FORMATS: tuple[PlatformFormat, ...] = (
    PlatformFormat("native", lambda path, data: is_native_platform(data),
                   lambda path, data: native_platform_from_data(data, path)),
    PlatformFormat("irmasim", lambda path, data: is_irmasim_platform(data),
                   lambda path, data: irmasim_platform_from_data(data, path)),
    PlatformFormat("dssim", lambda path, data: path.suffix.lower() == ".xml",
                   lambda path, data: config_platform(path)),
)


def load_platform(path: str | Path) -> Platform:
    """Read a platform file in any supported format (native JSON/YAML, IRMaSim JSON, ds-sim
    configuration XML)."""
    path = Path(path)
    check_exists(path)
    structured = path.suffix.lower() in STRUCTURED_SUFFIXES
    data = read_structured(path) if structured else None
    for fmt in PLATFORM_FORMATS:
        if fmt.accepts(path, data):
            return fmt.load(path, data)
    if not structured:
        raise InputError(path, f"unsupported platform file suffix '{path.suffix}' "
                               f"(expected one of {', '.join(STRUCTURED_SUFFIXES)}, .xml)")
    raise InputError(path, "unrecognised platform format: expected a native platform (top-level "
                           "'node_types') or an IRMaSim platform (top-level 'platform')")
