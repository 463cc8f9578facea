"""The sweep file (YAML or JSON): what to run, checked before anything runs.

```yaml
platforms: [src/hetsched/examples/kit_fh2_platform.yaml]        # default: the bundled example
workloads:                                                      # default: the bundled example
  - ../shared/data/traces/lublin_256.swf
  - {file: ../shared/data/traces/kit_fh2_2016_first25k.swf, name: kit, split: week}
  - {generator: poisson, params: {jobs: 500, mean_interarrival: 60, runtime: [10, 3600]},
     instances: 5, seed: 0}                                     # 5 generated workloads
schedulers: [fcfs, easy, "easy:node=high_gflops"]
seeds: [0, 1, 2]                 # or {first: 0, count: 8}; default [0]
options: {contention: [none, irmasim], horizon: 604800}   # a value, or a list to sweep over
job_records: false               # also store one record per job
```

Paths are relative to the sweep file. Every problem is one :class:`~hetsched.errors.InputError`
naming the sweep file and the field, e.g. ``sweep.yaml, field 'schedulers[1]': unknown
scheduler 'eazy'; did you mean easy?``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, create_model, model_validator

from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.errors import ConfigError, InputError
from hetsched.fileio import StrictModel, validate
from hetsched.run.options import OUTPUT_OPTIONS, PATH_OPTIONS, RunOptions
from hetsched.sweep.splits import Split

#: Most runs one sweep file may describe (a typo such as 1e7 seeds fails at once).
MAX_RUNS = 10_000_000
#: Seeds are stored as SQLite integers (64-bit).
MAX_SEED = 2**63 - 1


def _listed(value: Any) -> Any:
    """A single value where a list is allowed: the list of that value. An empty list would
    sweep over no value (a grid of no runs)."""
    if value == []:
        raise ValueError("an empty list gives no runs: give a value, or a list of values")
    return value if isinstance(value, list) else [value]


def _file_entry(value: Any) -> Any:
    """``- path`` is short for ``- {file: path}``."""
    return {"file": value} if isinstance(value, str) else value


def _seed_range(value: Any) -> Any:
    """``{first: a, count: n}`` is short for ``[a, a + 1, …, a + n − 1]``."""
    if not isinstance(value, Mapping):
        return value
    first, count = value.get("first", 0), value.get("count")
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (first, count))
    if set(value) - {"first", "count"} or not whole or first < 0 or not 1 <= count <= MAX_RUNS:
        raise ValueError(f"a seed range is {{first: N, count: M}}, whole numbers, first >= 0 "
                         f"and 1 <= count <= {MAX_RUNS:,}, got {dict(value)}")
    return list(range(first, first + count))


def _checked(check: Callable[[Any], Any]) -> AfterValidator:
    """A check that raises a one-line ConfigError as a field validator (its message, the
    field's error)."""
    def validate(value: Any) -> Any:
        try:
            return check(value)
        except ConfigError as err:
            raise ValueError(str(err)) from None
    return AfterValidator(validate)


def _split_label(text: str) -> str:
    return Split.parse(text).label


Listed = BeforeValidator(_listed)
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
#: Most workloads one generator entry may draw.
MAX_INSTANCES = 100_000


class PlatformEntry(StrictModel):
    file: str = Field(min_length=1)
    name: str | None = Field(None, min_length=1)


class WorkloadEntry(StrictModel):
    """A workload file (``file``, maybe ``split``), or ``instances`` workloads drawn by a
    ``generator`` with ``params`` and the seeds ``seed``, ``seed + 1``, …"""

    file: str | None = Field(None, min_length=1)
    generator: str | None = Field(None, min_length=1)
    params: dict[str, Any] = {}
    instances: Annotated[int, Field(ge=1, le=MAX_INSTANCES)] = 1
    seed: Seed = 0
    name: str | None = Field(None, min_length=1)
    split: Annotated[str, _checked(_split_label)] | None = None
    max_parts: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> WorkloadEntry:
        if (self.file is None) == (self.generator is None):
            raise ValueError("give either 'file' or 'generator'")
        given = self.model_fields_set
        if self.generator is None and given & {"params", "instances", "seed"}:
            raise ValueError("'params', 'instances' and 'seed' go with 'generator'")
        if self.generator is not None and given & {"split", "max_parts"}:
            raise ValueError("a generated workload is not split: ask for 'instances'")
        return self


#: The options of ``hetsched run`` (:class:`RunOptions`, one field each); each a value, or a
#: list of values to sweep over.
OptionsEntry = create_model(
    "OptionsEntry", __base__=StrictModel,
    **{spec.name: (Annotated[list[Annotated[Any, _checked(spec.metadata["check"])]], Listed],
                   [spec.default]) for spec in fields(RunOptions)})


class SweepFile(StrictModel):
    platforms: list[Annotated[PlatformEntry, BeforeValidator(_file_entry)]] = []
    workloads: list[Annotated[WorkloadEntry, BeforeValidator(_file_entry)]] = []
    schedulers: list[str] = Field(min_length=1)
    seeds: Annotated[list[Seed], BeforeValidator(_seed_range), Field(min_length=1)] = [0]
    options: OptionsEntry = OptionsEntry()  # type: ignore[valid-type]
    job_records: bool = False


@dataclass(frozen=True)
class Input:
    """An input file of the sweep: its label (the ``name``, else the file's stem), absolute
    path and SHA-256 (of the contents: what identifies a run, wherever the file lives)."""

    label: str
    path: str
    sha256: str


@dataclass(frozen=True)
class Generated:
    """How a generated workload is drawn: generator ``name`` with ``params`` (checked, as
    canonical JSON), instance ``i`` with seed ``seed + i``."""

    name: str
    params: str
    seed: int
    instances: int


@dataclass(frozen=True)
class WorkloadInput:
    """A workload of the sweep. ``file`` is its input; for a generated one, its label, its
    identity in place of a path (:func:`generated_workload`) and that identity's SHA-256."""

    file: Input
    split: str | None = None
    max_parts: int | None = None
    generated: Generated | None = None


@dataclass(frozen=True)
class SchedulerInput:
    """``label`` as written in the sweep file; ``spec`` with a scheduler file's path made
    absolute; ``sha256`` of that file (``None`` for registered schedulers)."""

    label: str
    spec: str
    sha256: str | None = None


@dataclass(frozen=True)
class Sweep:
    """A checked sweep file: each axis of the grid, in the file's order."""

    path: Path
    platforms: tuple[Input, ...]
    workloads: tuple[WorkloadInput, ...]
    schedulers: tuple[SchedulerInput, ...]
    seeds: tuple[int, ...]
    options: tuple[RunOptions, ...]
    job_records: bool


def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file: schema, files, scheduler names, repeated entries."""
    from hetsched.examples import default_platform_path, default_workload_path

    path = Path(path)
    data = require_mapping(read_structured(path), path)
    spec = validate(SweepFile, data, path)
    base = path.resolve().parent
    platforms = tuple(_input(path, base, f"platforms[{i}]", e.file, e.name)
                      for i, e in enumerate(spec.platforms)) \
        or (_input(path, base, "platforms", str(default_platform_path()), None),)
    workloads = tuple(_workload(path, base, f"workloads[{i}]", entry)
                      for i, entry in enumerate(spec.workloads)) \
        or (WorkloadInput(_input(path, base, "workloads", str(default_workload_path()), None)),)
    schedulers = tuple(_scheduler(path, base, f"schedulers[{i}]", text)
                       for i, text in enumerate(spec.schedulers))
    _unique(path, "platforms", [p.label for p in platforms], "name")
    _unique(path, "workloads", [w.file.label for w in workloads], "name")
    _unique(path, "schedulers", [s.label for s in schedulers])
    _unique(path, "seeds", spec.seeds)
    values = [getattr(spec.options, name) for name in OptionsEntry.model_fields]
    values = [[_file_path(base, value) for value in listed] if name in PATH_OPTIONS else listed
              for name, listed in zip(OptionsEntry.model_fields, values)]
    for name, listed in zip(OptionsEntry.model_fields, values):
        _unique(path, f"options.{name}", listed)
        if name in OUTPUT_OPTIONS and len(listed) > 1:  # (runs alike but for it: one key)
            raise InputError(path, "how a run's files are written is one value, not a list "
                                   "to sweep over (a sweep's runs write no run directories)",
                             field=f"options.{name}[1]")
    _check_size(path, [platforms, workloads, schedulers, spec.seeds, *values])
    names = list(OptionsEntry.model_fields)
    options = tuple(RunOptions(**dict(zip(names, combination)))
                    for combination in itertools.product(*values))
    return Sweep(path, platforms, workloads, schedulers, tuple(spec.seeds), options,
                 spec.job_records)


def _file_path(base: Path, value: object) -> object:
    """A file option's path (a failure trace, Batsim events: ``PATH_OPTIONS``), relative to
    the sweep file."""
    return str((base / Path(value).expanduser()).resolve()) if isinstance(value, str) \
        else value


def input_sha256(path: str | Path, kind: str) -> str:
    """What identifies an input's contents: its file's SHA-256; a platform built from
    catalogue files too (IRMaSim's, HDeepRM's and Batsim's JSON platforms:
    ``Platform.companions``) covers them, so editing a catalogue makes new runs."""
    if kind != "platform":
        return contents_sha256(path)
    from hetsched.platform.load import load_platform

    return contents_sha256(path, load_platform(path).companions)


def contents_sha256(path: str | Path, companions: tuple[str, ...] = ()) -> str:
    """The SHA-256 of a file, or with ``companions``, of its SHA-256 and each companion's
    ``name:SHA-256``, one per line."""
    import hashlib

    from hetsched.output.summary_json import file_sha256

    own = file_sha256(path)
    if not companions:
        return own
    parts = [own, *(f"{Path(file).name}:{file_sha256(file)}" for file in companions)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _input(path: Path, base: Path, field: str, file: str, name: str | None) -> Input:
    resolved = (base / Path(file).expanduser()).resolve()
    if not resolved.is_file():
        problem = "is a directory, not a file" if resolved.is_dir() else "no such file"
        raise InputError(path, f"{problem}: {file}", field=f"{field}.file")
    kind = "platform" if field.startswith("platforms") else "workload"
    return Input(name or file_stem(resolved), str(resolved), input_sha256(resolved, kind))


def _workload(path: Path, base: Path, field: str, entry: WorkloadEntry) -> WorkloadInput:
    if entry.file is not None:
        return WorkloadInput(_input(path, base, field, entry.file, entry.name), entry.split,
                             entry.max_parts)
    return _generated(path, field, entry)


def _generated(path: Path, field: str, entry: WorkloadEntry) -> WorkloadInput:
    """The generator entry checked (name, parameters), with its identity."""
    import json

    from hetsched.workload.generators import check_params

    name = str(entry.generator)
    try:
        params = check_params(name, entry.params, path)
    except ConfigError as err:
        raise InputError(path, str(err), field=f"{field}.generator") from None
    except InputError as err:
        raise InputError(path, err.problem, field=f"{field}.params.{err.field}"
                         if err.field else f"{field}.params") from None
    identity = json.dumps({"generator": name, "params": params.model_dump(mode="json"),
                           "seed": entry.seed}, sort_keys=True, separators=(",", ":"))
    return generated_workload(entry.name or name, identity, entry.instances)


def generated_workload(label: str, identity: str, instances: int) -> WorkloadInput:
    """A generated workload from its identity (canonical JSON: generator, checked parameters
    and first seed), which stands for its path; the SHA-256 is the identity's."""
    import hashlib
    import json

    spec = json.loads(identity)
    generated = Generated(spec["generator"], json.dumps(spec["params"], sort_keys=True),
                          spec["seed"], instances)
    sha = hashlib.sha256(identity.encode()).hexdigest()
    return WorkloadInput(Input(label, identity, sha), generated=generated)


def _scheduler(path: Path, base: Path, field: str, text: str) -> SchedulerInput:
    """The scheduler spec, built once to check it (unknown names, bad options, bad files)."""
    from hetsched.output.summary_json import file_sha256
    from hetsched.schedulers.registry import create
    from hetsched.schedulers.userfile import file_spec_parts

    spec, sha = text, None
    if (parts := file_spec_parts(text)) is not None:
        resolved = (base / Path(parts[0]).expanduser()).resolve()
        spec = f"{resolved}{parts[1]}"
        sha = file_sha256(resolved) if resolved.is_file() else None
    try:
        create(spec)
    except ConfigError as err:
        raise InputError(path, str(err), field=field) from None
    return SchedulerInput(text, spec, sha)


def _unique(path: Path, field: str, values: list[Any], key: str | None = None) -> None:
    seen: set[Any] = set()
    for i, value in enumerate(values):
        if value in seen:
            hint = f"; give one another '{key}'" if key else ""
            raise InputError(path, f"{value!r} is listed twice{hint}",
                             field=f"{field}[{i}]" + (f".{key}" if key else ""))
        seen.add(value)


def _check_size(path: Path, axes: list[Sequence[Any]]) -> None:
    """The grid's size from its axes' lengths, before the grid of options is built."""
    size = math.prod(len(axis) for axis in axes)
    if size > MAX_RUNS:
        raise InputError(path, f"the grid has {size:,} runs before splits, more than "
                               f"{MAX_RUNS:,}")

