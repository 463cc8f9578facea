"""The platform and workload of a run, from paths or already built objects."""

from __future__ import annotations

from pathlib import Path

from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions

PathLike = str | Path


def load_inputs(platform: PathLike | Platform | None, workload: PathLike | Workload | None,
                swf: SwfOptions = SwfOptions()) -> tuple[Platform, Workload]:
    """The platform and workload of a run, from paths or objects. No platform: the bundled
    example's. No workload: the job list a ds-sim configuration names, else the bundled
    example's."""
    from hetsched.examples import default_platform_path, default_workload_path
    from hetsched.platform.load import read_platform
    from hetsched.workload.load import load_workload

    document = None  # the platform file's, read once (a ds-sim configuration names the jobs)
    if not isinstance(platform, Platform):
        platform, document = read_platform(default_platform_path() if platform is None
                                           else _path(platform, "platform"))
    if isinstance(workload, Workload):
        return platform, workload
    if workload is not None:
        return platform, load_workload(_path(workload, "workload"), platform, swf)
    if Path(platform.source).suffix.lower() == ".xml":
        from hetsched.workload.dssim import workload_for_config

        return platform, workload_for_config(Path(platform.source), platform, document)
    return platform, load_workload(default_workload_path(), platform)


def _path(value: object, what: str) -> Path:
    if not isinstance(value, (str, Path)):
        raise ConfigError(f"{what} must be a path or a {what.capitalize()}, got "
                          f"{type(value).__name__}")
    return Path(value)
