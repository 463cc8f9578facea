"""The platforms and workload parts of a sweep, loaded (or generated) in the sweep's process:
to count the parts when the grid is expanded, then to hand each task its inputs, pickled
(cached, so each file is read, each workload drawn and each input pickled about once)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from hetsched.errors import InputError
from hetsched.sweep.packing import Packed
from hetsched.platform.model import Platform
from hetsched.sweep.spec import Generated, Input, WorkloadInput, contents_sha256
from hetsched.sweep.splits import Part, Split, split_workload
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions


def _check_unchanged(file: Input, companions: tuple[str, ...] = ()) -> None:
    """A run is identified by its inputs' contents: refuse a file edited during the sweep."""
    if contents_sha256(file.path, companions) != file.sha256:
        raise InputError(file.path, "changed since the sweep started (its SHA-256 differs)")


@lru_cache(maxsize=8)
def platform_of(file: Input) -> Platform:
    from hetsched.platform.load import load_platform

    platform = load_platform(file.path)
    _check_unchanged(file, platform.companions)
    return platform


@lru_cache(maxsize=8)
def workload_of(platform: Input, file: Input, swf: SwfOptions) -> Workload:
    """The whole workload file, converted for ``platform``."""
    from hetsched.workload.load import load_workload

    _check_unchanged(file)
    return load_workload(file.path, platform_of(platform), swf)


@lru_cache(maxsize=8)
def parts_of(platform: Input, workload: WorkloadInput, swf: SwfOptions) -> dict[int | None, Part]:
    """The parts of ``workload`` by number: its split (at most ``max_parts``), the whole
    workload as part ``None``, or a generator's instances (part ``i`` drawn with seed
    ``seed + i``)."""
    if workload.generated is not None:
        return _instances(platform_of(platform), workload.generated, swf)
    whole = workload_of(platform, workload.file, swf)
    if workload.split is None:
        return {None: Part(None, 0.0, whole)}
    parts = split_workload(whole, Split.parse(workload.split))[:workload.max_parts]
    return {part.index: part for part in parts}


@lru_cache(maxsize=4)
def packed_platform(platform: Input) -> Packed:
    """The platform as tasks carry it (pickled once)."""
    return Packed.of(f"platform {platform.sha256}", platform_of(platform))


@lru_cache(maxsize=4)
def packed_part(platform: Input, workload: WorkloadInput, swf: SwfOptions,
                index: int | None) -> Packed:
    """The workload of part ``index`` (``None``: the whole workload) as tasks carry it."""
    key = repr((platform.sha256, workload, swf, index))
    return Packed.of(key, parts_of(platform, workload, swf)[index].workload)


def _instances(platform: Platform, generated: Generated, swf: SwfOptions) -> dict[int | None, Part]:
    from hetsched.workload.generators import check_params, generate

    params = check_params(generated.name, json.loads(generated.params), Path(generated.name))
    return {i: Part(i, 0.0, generate(generated.name, params, generated.seed + i, platform, swf))
            for i in range(generated.instances)}


def whole_workloads(platform: Input, workload: WorkloadInput, swf: SwfOptions) -> list[Workload]:
    """What the input checks look at: the workload file, or every generated instance."""
    if workload.generated is None:
        return [workload_of(platform, workload.file, swf)]
    return [part.workload for part in parts_of(platform, workload, swf).values()]
