"""Batsim's profiles as work per task: v4 names (``delay``, ``parallel_homogeneous``,
``parallel_homogeneous_total``, ``parallel``, ``composed``) and v5 names (``DelayProfile``,
``ParallelTaskHomogeneousProfile``, ``ParallelTaskProfile``, ``SequentialCompositionProfile``).

A profile becomes a :class:`Work`: a fixed duration (delays) or operations (flops), per task
plus a total that the job's tasks share (``DefinedAmountsSpreadUniformly``). A parallel task's
``cpu`` vector gives each task its own amount; the job model has one amount per task, so the
largest is taken (its tasks progress together, as Batsim's do). A sequence is the sum of its
parts, ``repeat`` times; it may not mix delays and computations. Communication (``com``) is
ignored, with a warning; profiles hetsched cannot model (traces, IO) are refused.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from hetsched.errors import InputError
from hetsched.fileio import ForeignModel, validate
from hetsched.limits import MAX_OPS, MAX_PROFILE_ENTRIES, MAX_REPEAT, MAX_TIME
from hetsched.quantities import Ops, Seconds

DELAY = ("delay", "DelayProfile")
HOMOGENEOUS = ("parallel_homogeneous", "ParallelTaskHomogeneousProfile")
HOMOGENEOUS_TOTAL = ("parallel_homogeneous_total",)
PARALLEL = ("parallel", "ParallelTaskProfile")
SEQUENCE = ("composed", "SequentialCompositionProfile")
SUPPORTED = DELAY + HOMOGENEOUS + HOMOGENEOUS_TOTAL + PARALLEL + SEQUENCE
UNMODELLED = {
    "smpi": "an SMPI trace", "usage_trace": "a usage trace", "TraceReplayProfile": "a trace",
    "parallel_homogeneous_pfs": "IO to a storage host",
    "ParallelTaskOnStorageHomogeneousProfile": "IO to a storage host",
    "data_staging": "IO between storage hosts",
    "ParallelTaskDataStagingBetweenStoragesProfile": "IO between storage hosts",
}
SPREAD_UNIFORMLY = "DefinedAmountsSpreadUniformly"

Entries = Annotated[list[Ops], Field(max_length=MAX_PROFILE_ENTRIES)]


class DelaySpec(ForeignModel):
    delay: Seconds


class HomogeneousSpec(ForeignModel):
    cpu: Ops
    com: Ops = 0.0
    generation_strategy: Literal["DefinedAmountsUsedForEachValue",
                                 "DefinedAmountsSpreadUniformly"] = \
        "DefinedAmountsUsedForEachValue"


class ParallelSpec(ForeignModel):
    cpu: Entries = []
    com: Entries = []


class SequenceSpec(ForeignModel):
    seq: Annotated[list[str], Field(min_length=1, max_length=MAX_PROFILE_ENTRIES)]
    repeat: Annotated[int, Field(ge=1, le=MAX_REPEAT)] = 1


@dataclass(frozen=True)
class Work:
    """What one task does: ``per_task`` plus ``total / tasks``; seconds when ``fixed`` (a
    delay), operations otherwise; ``fixed`` is ``None`` for no work at all."""

    fixed: bool | None
    per_task: float = 0.0
    total: float = 0.0

    def for_tasks(self, tasks: int) -> float:
        return self.per_task + self.total / tasks


@dataclass
class Profiles:
    """The profiles of one file, resolved on demand; ``ignored_com`` names the profiles whose
    communication is left out."""

    raw: Mapping[str, Any]
    path: Path
    ignored_com: list[str]
    done: dict[str, Work]

    def work(self, name: str) -> Work:
        """``name``'s work; sequences are resolved without recursion (an explicit stack of
        each open sequence and its parts still to look at), so deep chains cannot overflow
        Python's stack, each part is looked at once, and cycles are refused."""
        if name in self.done:
            return self.done[name]
        stack, visiting = [(name, self._parts(name))], {name}
        while stack:
            top, parts = stack[-1]
            child = next((p for p in parts if p not in self.done), None)
            if child is None:
                self.done[top] = self._resolve(top)
                visiting.discard(top)
                stack.pop()
                continue
            if child in visiting:
                raise InputError(self.path, f"sequence refers back to itself through "
                                            f"'{child}'", record=f"profile '{top}'", field="seq")
            visiting.add(child)
            stack.append((child, self._parts(child)))
        return self.done[name]

    def _parts(self, name: str) -> Iterator[str]:
        """The profiles a sequence is made of (none for other kinds)."""
        return iter(self._sequence(name) if self._kind(name) in SEQUENCE else ())

    def _entry(self, name: str) -> Mapping[str, Any]:
        entry = self.raw[name]
        if not isinstance(entry, Mapping):
            raise InputError(self.path, "a profile must be a JSON object",
                             record=f"profile '{name}'")
        return entry

    def _kind(self, name: str) -> str:
        entry = self._entry(name)
        if "type" not in entry:
            raise InputError(self.path, "required field is missing", record=f"profile '{name}'",
                             field="type")
        kind = entry["type"] if isinstance(entry["type"], str) else repr(entry["type"])
        if kind in UNMODELLED:
            raise InputError(self.path, f"profile type '{kind}' ({UNMODELLED[kind]}) cannot be "
                                        "modelled: hetsched simulates computation only",
                             record=f"profile '{name}'", field="type")
        if kind not in SUPPORTED:
            raise InputError(self.path, f"unknown profile type {kind!r} (supported: "
                                        f"{', '.join(SUPPORTED)})",
                             record=f"profile '{name}'", field="type")
        return kind

    def _sequence(self, name: str) -> list[str]:
        spec = validate(SequenceSpec, self._entry(name), self.path, record=f"profile '{name}'")
        for part in spec.seq:
            if part not in self.raw:
                raise InputError(self.path, f"unknown profile '{part}'",
                                 record=f"profile '{name}'", field="seq")
        return spec.seq

    def _resolve(self, name: str) -> Work:
        kind, entry, record = self._kind(name), self._entry(name), f"profile '{name}'"
        if kind in DELAY:
            return Work(True, validate(DelaySpec, entry, self.path, record=record).delay)
        if kind in SEQUENCE:
            spec = validate(SequenceSpec, entry, self.path, record=record)
            return self._checked(_sum([self.done[p] for p in spec.seq], spec.repeat, self.path,
                                      record), record)
        if kind in PARALLEL:
            spec = validate(ParallelSpec, entry, self.path, record=record)
            self._com(name, any(spec.com))
            cpu = max(spec.cpu, default=0.0)
            return Work(False if cpu else None, cpu)
        spec = validate(HomogeneousSpec, entry, self.path, record=record)
        self._com(name, spec.com > 0)
        if not spec.cpu:
            return Work(None)
        if kind in HOMOGENEOUS_TOTAL or spec.generation_strategy == SPREAD_UNIFORMLY:
            return Work(False, 0.0, spec.cpu)
        return Work(False, spec.cpu)

    def _com(self, name: str, communicates: bool) -> None:
        if communicates:
            self.ignored_com.append(name)

    def _checked(self, work: Work, record: str) -> Work:
        bound = MAX_TIME if work.fixed else MAX_OPS
        if not (work.per_task <= bound and work.total <= bound):
            unit = "seconds" if work.fixed else "operations"
            raise InputError(self.path, f"the sequence's work exceeds {bound:g} {unit} (too "
                                        "many repetitions?)", record=record, field="repeat")
        return work


def _sum(parts: list[Work], repeat: int, path: Path, record: str) -> Work:
    """The parts in sequence, ``repeat`` times (delays and computations may not be mixed)."""
    kinds = {p.fixed for p in parts if p.fixed is not None}
    if len(kinds) > 1:
        raise InputError(path, "a sequence mixing delays and computations cannot be modelled "
                               "(a job runs at one rate)", record=record, field="seq")
    per_task = math.fsum(p.per_task for p in parts) * repeat
    total = math.fsum(p.total for p in parts) * repeat
    return Work(kinds.pop() if kinds else None, per_task, total)


def read_profiles(raw: Mapping[str, Any], path: Path) -> Profiles:
    """Every profile of the file, checked and resolved (unused ones too: a bad profile is an
    error even when no job uses it, as in Batsim)."""
    profiles = Profiles({str(k): v for k, v in raw.items()}, path, [], {})
    for name in profiles.raw:
        profiles.work(name)
    return profiles
