"""Every ds-sim configuration of a directory × every ds-sim algorithm, in ds-sim's metrics."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, RootModel

from hetsched.documents import read_structured
from hetsched.dssim.scheduler import DsSimScheduler
from hetsched.platform.dssim import config_platform
from hetsched.workload.dssim import read_job_list
from hetsched.errors import ConfigError, InputError
from hetsched.fileio import ForeignModel, validate
from hetsched.metrics import summarize
from hetsched.platform.model import Platform
from hetsched.quantities import Seconds
from hetsched.run.execute import run_simulation
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload


@dataclass(frozen=True)
class Cell:
    """One run in ds-sim's conventions and units, as ds-server prints them (the names of
    ds-sim's reference results): turnaround and end in whole seconds, utilisation in percent
    (two decimals), cost in dollars (cents)."""

    config: str
    algo: str
    tt: int
    util: float
    cost: float
    end: int
    jobs: int


def job_list_for(config: Path, jobs_dir: Path) -> Path:
    path = jobs_dir / f"{config.stem}-jobs.xml"
    if not path.is_file():
        raise InputError(config, f"no job list {path.name} in {jobs_dir}")
    return path


def run_cell(config: Path, jobs_dir: Path, algo: str) -> Cell:
    return simulate_cell(config, jobs_dir, algo)[0]


def simulate_cell(config: Path, jobs_dir: Path, algo: str) -> tuple[Cell, SimResult]:
    """The cell and the run it comes from."""
    jobs = job_list_for(config, jobs_dir)
    platform, workload = _inputs(config, jobs, _stamp(config), _stamp(jobs))
    result = run_simulation(platform, workload, DsSimScheduler(algo))
    m = summarize(result)
    return Cell(config.stem, algo, int(m["dssim_turnaround"]),
                round(100 * m["dssim_utilisation"], 2),
                round(m["rental_cost"], 2), int(result.t_end), int(m["finished"])), result


def _stamp(path: Path) -> tuple[int, int]:
    """What tells an edited file from the one read before: modification time and size."""
    status = path.stat()
    return status.st_mtime_ns, status.st_size


@lru_cache(maxsize=4)
def _inputs(config: Path, jobs: Path, *stamps: tuple[int, int]) -> tuple[Platform, Workload]:
    """A configuration's platform and job list, read once for all the algorithms of a table
    (both are immutable; ``stamps`` make an edited file be read again)."""
    platform = config_platform(config)
    return platform, read_job_list(jobs, platform)


Placement = tuple[str, int, int]
"""Where and when a job ran: server (``type-id``, as hetsched names ds-sim's servers), start,
end."""


def placements(result: SimResult) -> dict[int, Placement]:
    """Every finished job's placement, by ds-sim job id."""
    return {int(job.id): (result.platform.nodes[result.allocation[job.index][0][0]].name,
                          int(result.start[job.index]), int(result.end[job.index]))
            for job in result.workload.jobs if result.allocation[job.index] is not None}


def placement_digest(jobs: dict[int, Placement]) -> str:
    """A SHA-256 of every job's placement (``id server start end`` lines in id order): equal
    digests mean every job ran on the same server at the same times."""
    text = "".join(f"{i} {server} {start} {end}\n"
                   for i, (server, start, end) in sorted(jobs.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def run_table(configs_dir: Path, jobs_dir: Path, algos: Sequence[str],
              done: Callable[[Cell], None] | None = None, workers: int = 1,
              only: Collection[str] | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[Cell]:
    """Every configuration of ``configs_dir`` (those named in ``only``, by stem, if given) ×
    every algorithm, in that order; ``done`` is told of each cell as it ends, ``progress`` of
    the cells done and their total; ``workers`` processes share the runs when more than
    one."""
    configs = sorted(configs_dir.glob("*.xml"))
    if not configs:
        raise ConfigError(f"no ds-sim configurations (*.xml) in {configs_dir}")
    if only is not None:
        configs = [config for config in configs if config.stem in only]
        if not configs:
            raise ConfigError(f"the reference covers none of the configurations in "
                              f"{configs_dir}")
    for config in configs:
        job_list_for(config, jobs_dir)  # a missing job list before any run
    pairs = [(config, algo) for config in configs for algo in algos]
    cells = []
    with _mapper(workers) as run:
        for cell in run(run_cell, [c for c, _ in pairs], [jobs_dir] * len(pairs),
                        [a for _, a in pairs]):
            cells.append(cell)
            if done is not None:
                done(cell)
            if progress is not None:
                progress(len(cells), len(pairs))
    return cells


@contextmanager
def _mapper(workers: int) -> Iterator[Callable[..., Iterator[Cell]]]:
    """``map`` in this process, or over a pool of ``workers`` fresh processes (in order)."""
    if workers <= 1:
        yield map
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, multiprocessing.get_context("spawn")) as pool:
        yield pool.map


class ReferenceCell(ForeignModel):
    """One cell of a reference file: the metrics it gives (others, such as ``rc``, ignored)."""

    tt: Seconds | None = None
    util: Annotated[float, Field(ge=0, le=100)] | None = None
    cost: Annotated[float, Field(ge=0)] | None = None
    end: Seconds | None = None


class Reference(RootModel[dict[str, dict[str, ReferenceCell]]]):
    """A ds-sim reference file: ``{config: {algo: {tt, util, cost, end}}}``."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True, defer_build=True)


def read_reference(reference: Path) -> dict[str, dict[str, ReferenceCell]]:
    """A ds-sim reference file, checked: ``{config: {algo: {tt, util, cost, end}}}``."""
    return validate(Reference, read_structured(reference), reference).root


def reference_mismatches(cells: Sequence[Cell], reference: Path) -> tuple[int, list[str]]:
    """How many cells a ds-sim reference file (:func:`read_reference`) covers, and a
    description of each that differs."""
    ref = read_reference(reference)
    checked, differ = 0, []
    for cell in cells:
        expected = ref.get(cell.config, {}).get(cell.algo)
        if expected is None:
            continue
        checked += 1
        given = expected.model_dump(exclude_none=True)
        diffs = [f"{k} {getattr(cell, k)} vs {value}" for k, value in given.items()
                 if getattr(cell, k) != value]
        if diffs:
            differ.append(f"{cell.config} {cell.algo}: {', '.join(diffs)}")
    return checked, differ


#: ``write_cells_csv`` column of each ``Cell`` field: the unit is in the name.
CSV_COLUMNS = {"config": "config", "algo": "algo", "tt": "tt_s", "util": "util_percent",
               "cost": "cost_dollars", "end": "end_s", "jobs": "jobs"}


def write_cells_csv(cells: Sequence[Cell], path: Path) -> None:
    """Every cell, in ds-sim's units, each named in its column (``util_percent``, ...)."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(CSV_COLUMNS.values())
        writer.writerows([getattr(c, field) for field in CSV_COLUMNS] for c in cells)
