"""The runs of a sweep: the grid platforms × workloads (× parts) × options × schedulers × seeds,
each run a :class:`RunSpec` identified by a key.

A run is a pure function of its spec, so its key is a SHA-256 of everything that determines
its result: the contents (not the paths) of its platform, workload and scheduler files and of
the files its options name (a failure trace, Batsim events), the labels it is stored under, the
part, scheduler, seed and options, and hetsched's version.
The same key in a store means the same run, already done.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from hetsched.version import __version__
from hetsched.errors import ConfigError, InputError
from hetsched.sweep.inputs import parts_of, platform_of, whole_workloads
from hetsched.run.options import PATH_OPTIONS, RunOptions
from hetsched.sweep.spec import Input, SchedulerInput, Sweep, WorkloadInput, contents_sha256
from hetsched.sweep.splits import Part
from hetsched.workload.swf import SwfOptions


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep (small and picklable: workers load the inputs it names)."""

    platform: Input
    workload: WorkloadInput
    part: int | None
    part_start: float | None
    scheduler: SchedulerInput
    seed: int
    options: RunOptions
    #: ``(option, SHA-256)`` of each file the options name (:func:`option_files`)
    option_files: tuple[tuple[str, str], ...] = ()

    @cached_property
    def key(self) -> str:
        identity = {"hetsched": __version__, "platform": [self.platform.label,
                                                          self.platform.sha256],
                    "workload": [self.workload.file.label, self.workload.file.sha256],
                    "split": self.workload.split, "part": self.part,
                    "scheduler": [self.scheduler.label, self.scheduler.sha256],
                    "seed": self.seed, "options": self.options.key()}
        if self.option_files:  # (only then: runs without such a file keep their keys)
            identity["option_files"] = dict(self.option_files)
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def inputs(self) -> tuple[Input, WorkloadInput, SwfOptions, int | None]:
        """What the run simulates: platform, workload file read with these SWF options, part."""
        return self.platform, self.workload, self.options.swf(), self.part

    def columns(self) -> dict[str, Any]:
        """What identifies the run in a store: one column each."""
        return {"key": self.key, "platform": self.platform.label,
                "workload": self.workload.file.label, "split": self.workload.split,
                "part": self.part, "part_start": self.part_start,
                "scheduler": self.scheduler.label, "seed": self.seed, **asdict(self.options),
                "platform_path": self.platform.path, "platform_sha256": self.platform.sha256,
                "workload_path": self.workload.file.path,
                "workload_sha256": self.workload.file.sha256, "hetsched_version": __version__}


def expand(sweep: Sweep) -> tuple[list[RunSpec], list[str]]:
    """Every run of ``sweep`` (runs on the same inputs next to each other), and the input
    warnings of its platform × workload pairs. Loads each pair once: a bad file fails here,
    before any run."""
    from hetsched.run.checks import input_warnings

    runs: list[RunSpec] = []
    warnings: dict[str, None] = {}
    for platform in sweep.platforms:
        for i, workload in enumerate(sweep.workloads):
            for options in sweep.options:
                swf, files = options.swf(), option_files(options, sweep.path)
                for whole in whole_workloads(platform, workload, swf):
                    warnings.update(dict.fromkeys(input_warnings(platform_of(platform), whole)))
                for part in _parts(sweep, i, platform, swf).values():
                    start = None if part.index is None else part.start
                    runs.extend(RunSpec(platform, workload, part.index, start, scheduler, seed,
                                        options, files)
                                for scheduler in sweep.schedulers for seed in sweep.seeds)
    return runs, list(warnings)


def option_files(options: RunOptions, spec: object) -> tuple[tuple[str, str], ...]:
    """The contents (SHA-256) of the files ``options`` name, by option: a run's result
    depends on what the file holds, not on its path (editing a failure trace makes new
    runs). A file that cannot be read is an InputError naming ``spec`` (the sweep file) and
    the option."""
    files = []
    for name in sorted(PATH_OPTIONS):
        path = getattr(options, name)
        if path is None:
            continue
        try:
            files.append((name, contents_sha256(path)))
        except OSError as err:
            raise InputError(spec, f"{path}: {err.strerror or err}",
                             field=f"options.{name}") from None
    return tuple(files)


def _parts(sweep: Sweep, i: int, platform: Input, swf: SwfOptions) -> dict[int | None, Part]:
    try:
        return parts_of(platform, sweep.workloads[i], swf)
    except ConfigError as err:  # a dependency across parts
        raise InputError(sweep.path, str(err), field=f"workloads[{i}].split") from None
