"""Studies that are sweeps of a real trace: a sweep file shipped with the package
(``experiments/data/``), a derived trace written beside the results, the runs in a resumable
store in the output directory, and ``results.csv`` with the study's columns.

A study's output directory holds:

- the derived trace (e.g. ``kit_capped64.swf``) and ``sweep.yaml`` (the shipped sweep file,
  with the paths of the platforms shipped with it made absolute): ``hetsched sweep
  DIR/sweep.yaml --store DIR/results.sqlite`` is the same sweep;
- ``results.sqlite``: the sweep's store (every metric, and every job's record); running the
  study again resumes it;
- ``results.csv``: one row per run, the study's columns (:attr:`TraceStudy.columns`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hetsched.experiments.traces import SHARED, TraceSettings, derive_trace
from hetsched.metrics.catalogue import METRICS, Catalogue

if TYPE_CHECKING:
    import pandas

    from hetsched.sweep.runner import Plan

#: Where the shipped sweep files and platforms are.
DATA = Path(__file__).parent / "data"
#: The trace the studies read by default, relative to the project root (the current
#: directory; else found by :func:`~hetsched.experiments.traces.located`).
KIT_TRACE = SHARED / "traces" / "kit_fh2_2016_first25k.swf"
#: results.csv's default metric columns, as the store's (and summary.json's) metric keys.
METRIC_COLUMNS: dict[str, str] = {"makespan": "makespan", "mean_wait": "mean_wait",
                                  "het_slowdown": "mean_het_slowdown", "energy": "energy_j",
                                  "edp": "edp_js"}
STORE, RESULTS, SPEC = "results.sqlite", "results.csv", "sweep.yaml"


@dataclass(frozen=True)
class TraceStudy:
    """``spec``: the shipped sweep file; ``trace``: the derived trace's file name, which the
    sweep file reads (relative to it); ``ids``: results.csv's columns that identify a run, as
    store columns (``{"week": "part"}``), before ``scheduler``; ``metrics``: its metric
    columns, as store columns."""

    name: str
    spec: str
    trace: str
    settings: TraceSettings
    ids: Mapping[str, str] = field(default_factory=lambda: {"part": "part"})
    metrics: Mapping[str, str] = field(default_factory=lambda: dict(METRIC_COLUMNS))

    @property
    def columns(self) -> list[str]:
        """results.csv's columns, in order."""
        return [*self.ids, "scheduler", *self.metrics]

    @property
    def catalogue(self) -> Catalogue:
        """The declarations of results.csv's metric columns (unit, which values are better):
        those of the store's metrics they rename."""
        return METRICS.renamed(self.metrics)


def prepare(study: TraceStudy, out: Path, source: Path = KIT_TRACE,
            max_parts: int | None = None) -> Path:
    """Write the derived trace and the sweep file into ``out`` (``max_parts``: only the first
    parts of each workload); return the sweep file."""
    import yaml

    from hetsched.documents import read_structured

    out.mkdir(parents=True, exist_ok=True)
    spec = dict(read_structured(DATA / study.spec))
    spec["platforms"] = [_shipped(entry) for entry in spec.get("platforms", [])]
    derive_trace(source, out / study.trace, study.settings,
                 platform_cores(entry["file"] for entry in spec["platforms"]))
    if max_parts is not None:
        spec["workloads"] = [{**entry, "max_parts": max_parts} for entry in spec["workloads"]]
    path = out / SPEC
    path.write_text(f"# {study.name}: written by `hetsched study {study.name}`\n"
                    + yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def platform_cores(files: Iterable[str | Path]) -> list[int]:
    """The total cores of each platform file (the sizes a derived trace's header matches)."""
    from hetsched.platform.load import load_platform

    return [load_platform(Path(path)).total_cores for path in files]


def _shipped(entry: object) -> object:
    """A platform entry whose file ships with the package, with its path made absolute."""
    if isinstance(entry, dict) and (DATA / entry["file"]).is_file():
        return {**entry, "file": str((DATA / entry["file"]).resolve())}
    return entry


def plan(study: TraceStudy, out: Path, source: Path = KIT_TRACE,
         max_parts: int | None = None) -> Plan:
    """Prepare ``out`` and plan the sweep into its store (runs already there are done)."""
    from hetsched.sweep.runner import plan_sweep

    return plan_sweep(prepare(study, out, source, max_parts), out / STORE)


def results(study: TraceStudy, out: Path, planned: Plan) -> pandas.DataFrame:
    """The runs of ``planned`` from the store as results.csv's columns (ordered by the ids,
    then scheduler), written to ``out/results.csv``. Runs of other grids the store may hold
    (an earlier platform or trace, more weeks) are left out."""
    from hetsched.sweep.results import load_results

    runs = load_results(out / STORE)
    runs = runs[runs["key"].isin({run.key for run in planned.runs})]
    frame = runs.rename(columns={**{store: name for name, store in study.ids.items()},
                                 **{store: name for name, store in study.metrics.items()}})
    frame = frame.sort_values([*study.ids, "scheduler"], kind="stable")[study.columns]
    frame.to_csv(out / RESULTS, index=False)
    return frame.reset_index(drop=True)
