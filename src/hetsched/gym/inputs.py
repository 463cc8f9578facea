"""The environment's platform and its episodes' workloads: a trace (every episode the same
jobs) or a workload generator (a new seeded draw per episode)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.run.inputs import PathLike, load_inputs
from hetsched.workload.model import Workload


class Generated:
    """A workload generator's draws: ``{"generator": name, **parameters}``, the parameters
    those of ``hetsched generate workload`` (docs/generators.md)."""

    def __init__(self, spec: Mapping[str, Any], platform: Platform) -> None:
        from hetsched.workload.generators import check_params

        params = dict(spec)
        name = params.pop("generator")
        if not isinstance(name, str):
            raise ConfigError(f"workload: generator must be a name, got {name!r}")
        self.name, self.platform = name, platform
        self.params: BaseModel = check_params(name, params, Path("workload"))

    def draw(self, seed: int) -> Workload:
        from hetsched.workload.generators import generate

        return generate(self.name, self.params, seed, self.platform)


def env_inputs(platform: PathLike | Platform | None,
               workload: PathLike | Workload | Mapping[str, Any] | None
               ) -> tuple[Platform, Workload | Generated]:
    """The platform, and the workload or the generator of the episodes' workloads."""
    if isinstance(workload, Mapping):
        if "generator" not in workload:
            raise ConfigError("workload: a mapping must name a generator "
                              "({'generator': 'lublin', ...})")
        platform, _ = load_inputs(platform, Workload("none", ()))
        return platform, Generated(workload, platform)
    return load_inputs(platform, workload)
