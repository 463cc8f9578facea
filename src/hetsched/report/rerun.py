"""One run of a results store, simulated again for its figures.

A run is a pure function of its spec, and the store keeps the whole spec (input paths and
their SHA-256, label, split and part, scheduler, seed, options), but not the time series or
the core ids each job held, which the figures need. So the run is simulated again, from its
inputs if their contents are unchanged, and its headline metrics are compared with the
stored ones: a difference (a store written by another hetsched version) is reported, not
hidden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.errors import ConfigError, HetschedError, InputError, option_name

#: Metrics a re-simulated run must reproduce (relative tolerance :data:`SAME`).
CHECKED = ("makespan", "mean_wait", "utilisation", "energy_j")
SAME = 1e-9


@dataclass(frozen=True)
class Rerun:
    """The re-simulated run and its differences from the stored one (empty if none)."""

    result: Any
    differences: list[str]


def find_run(frame: Any, key: str) -> Mapping[str, Any]:
    """The row of the run whose key is ``key`` or starts with it (at least 6 characters)."""
    matches = frame[frame["key"].astype(str).str.startswith(key)] if len(key) >= 6 else []
    if len(matches) != 1:
        problem = "matches several runs; give more of the key" if len(matches) else (
            "is no run of the selection (see `hetsched results STORE -f csv --columns key,"
            "scheduler,seed,part`)")
        raise ConfigError(f"{option_name('run')} {key}: {problem}" if len(key) >= 6 else
                          f"{option_name('run')} {key}: give at least 6 characters of a run's key")
    return matches.iloc[0].to_dict()


def rerun(row: Mapping[str, Any]) -> Rerun:
    """Simulate the stored run ``row`` (a row of :func:`hetsched.load_results`) again."""
    from hetsched.metrics import summarize
    from hetsched.run.execute import run_simulation
    from hetsched.run.options import RunOptions
    from hetsched.sweep.inputs import parts_of, platform_of

    key = str(row["key"])[:12]
    platform = _input(row, "platform", key)
    workload = _workload(row, key)
    options = RunOptions.stored(row)
    part = plain(row["part"])
    workload_part = parts_of(platform, workload, options.swf())[
        None if part is None else int(part)].workload
    try:
        result = run_simulation(platform_of(platform), workload_part, str(row["scheduler"]),
                                int(row["seed"]), options)
    except HetschedError as err:
        raise ConfigError(f"run {key}: cannot simulate it again: {err}") from None
    return Rerun(result, _differences(row, summarize(result)))


def _workload(row: Mapping[str, Any], key: str) -> Any:
    """The run's workload: its file (checked) or, for a generated one, its generator."""
    from hetsched.sweep.spec import WorkloadInput, generated_workload

    identity = str(row["workload_path"])
    if not identity.startswith("{"):
        return WorkloadInput(_input(row, "workload", key), plain(row["split"]))
    workload = generated_workload(str(row["workload"]), identity, int(row["part"]) + 1)
    if workload.file.sha256 != row["workload_sha256"]:
        raise ConfigError(f"run {key}: its generated workload's identity does not match its "
                          "SHA-256")
    return workload


def _input(row: Mapping[str, Any], kind: str, key: str) -> Any:
    from hetsched.output.summary_json import file_sha256
    from hetsched.sweep.spec import Input, input_sha256

    if plain(row[f"{kind}_path"]) is None:
        raise ConfigError(f"run {key}: the store names no {kind} file (a damaged store?)")
    path = Path(str(row[f"{kind}_path"]))
    if not path.is_file():
        raise InputError(path, f"no such file: run {key}'s {kind}, needed to draw its figures")
    current = input_sha256(path, kind)
    # stores made before catalogues were part of a platform's identity hold its file's hash
    if row[f"{kind}_sha256"] not in (current, file_sha256(path)):
        raise InputError(path, f"changed since run {key} was stored (its SHA-256 differs)")
    return Input(str(row[kind]), str(path), current)


def plain(value: Any) -> Any:
    """``None`` for a missing value (NaN, NULL); else the value as a plain Python object."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def _differences(row: Mapping[str, Any], metrics: Mapping[str, Any]) -> list[str]:
    found = []
    for name in CHECKED:
        stored, again = plain(row.get(name)), metrics.get(name)
        if stored is None and again is None:
            continue
        if stored is None or again is None or not math.isclose(stored, again, rel_tol=SAME):
            found.append(f"{name} {again!r} (stored: {stored!r})")
    return found
