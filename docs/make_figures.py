"""Regenerate every image docs/figures.md shows, from the shipped data.

    python docs/make_figures.py                  # every area, into docs/figures/<area>/
    python docs/make_figures.py --only run --out /tmp/figures

Each area runs the commands docs/figures.md gives (``hetsched run``, ``plot``, ``sweep``,
``report``, ``study …``) or, for the figures of a stored study table, the study's own figure
function; no figure is drawn here. The studies run with reduced settings (a few weeks, seeds
or trials) so that the whole script takes a few minutes on 2 cores; the node-centric study
reads the KIT trace from the shared data (``$HETSCHED_SHARED_DATA``, else ``../shared/data``
beside the repository, as the tests find it) and is skipped, saying so, without it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from base64 import b64decode
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The real traces: the tests' rule (``tests/support.py``).
SHARED_DATA = Path(os.environ.get("HETSCHED_SHARED_DATA")
                   or ROOT.parent / "shared" / "data").resolve()
KIT_TRACE = SHARED_DATA / "traces" / "kit_fh2_2016_first25k.swf"
#: The node-centric study's stored 41-week results and sensitivity sweep.
RESULTS = DOCS / "results" / "node_centric"
#: The weeks of the KIT trace the sensitivity sweep behind ``sensitivity.csv`` ran on.
SENSITIVITY_WEEKS = 10


def hetsched(*args: object) -> None:
    """The ``hetsched`` command of this interpreter, from the repository's root; its output
    is shown only when it fails (then the script stops)."""
    command = [sys.executable, "-c", "from hetsched.cli.main import app; app()",
               *map(str, args)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"hetsched {' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")


def copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def run(out: Path, scratch: Path) -> list[Path]:
    """The four figures of `hetsched plot` on the bundled example under EASY, then the KIT
    trace's Gantt charts on its platform: the aggregate view and one day's window."""
    hetsched("run", "-s", "easy", "--out", scratch / "easy", "-q")
    hetsched("plot", scratch / "easy", "--out", out / "run", "-q")
    written = [out / "run" / f"{name}.png" for name in ("gantt", "jobs", "power_energy",
                                                         "utilisation")]
    hetsched("plot", scratch / "easy", "--out", scratch / "decision", "--colour-by",
             "decision", "-q")
    written.append(copy(scratch / "decision" / "gantt.png", out / "run" / "gantt_decision.png"))
    written += _aggregate_with_failures(out, scratch)
    if not KIT_TRACE.exists():
        print(f"skipped the KIT run's Gantt charts: no KIT trace at {KIT_TRACE} "
              "(set HETSCHED_SHARED_DATA)")
        return written
    kit = scratch / "kit"
    hetsched("run", "-p", ROOT / "src" / "hetsched" / "examples" / "kit_fh2_platform.yaml",
             "-w", KIT_TRACE, "-s", "easy", "--out", kit, "-q")
    hetsched("plot", kit, "--out", kit / "aggregate", "-q")
    hetsched("plot", kit, "--out", kit / "window", "--gantt-window", "8640000:8726400",
             "--colour-by", "size", "-q")
    return written + [copy(kit / view / "gantt.png", out / "run" / f"gantt_kit_{view}.png")
                      for view in ("aggregate", "window")]


def _aggregate_with_failures(out: Path, scratch: Path) -> list[Path]:
    """lublin_256 under EASY with drawn node failures, as the aggregate view."""
    trace = SHARED_DATA / "traces" / "lublin_256.swf"
    if not trace.exists():
        print(f"skipped the aggregate view with failures: no trace at {trace}")
        return []
    failing = scratch / "failing"
    hetsched("run", "-p", SHARED_DATA / "platforms" / "irmasim_lublin_20node.json", "-w", trace,
             "-s", "easy", "--failure-mtbf", "3e6", "--failure-mttr", "2e5", "--out", failing,
             "-q")
    hetsched("plot", failing, "--gantt", "aggregate", "--out", failing / "figures", "-q")
    return [copy(failing / "figures" / "gantt.png",
                 out / "run" / "gantt_aggregate_failures.png")]


def _gantt(area: str, out: Path, scratch: Path, platform: str, *options: str) -> list[Path]:
    """The Gantt chart of a run of ``docs/figures/<area>/``'s platform and workload."""
    inputs = DOCS / "figures" / area
    hetsched("run", "-p", inputs / platform, "-w", inputs / "workload.yaml", "-s", "easy",
             *options, "--out", scratch / area, "-q")
    hetsched("plot", scratch / area, "-q")
    return [copy(scratch / area / "gantt.png", out / area / "gantt.png")]


def _coloured_by_state(area: str, out: Path, scratch: Path) -> Path:
    """The Gantt chart of the run :func:`_gantt` made, coloured by each job's final state."""
    hetsched("plot", scratch / area, "--out", scratch / "state", "--colour-by", "state", "-q")
    return copy(scratch / "state" / "gantt.png", out / area / "gantt_state.png")


def reservations(out: Path, scratch: Path) -> list[Path]:
    return _gantt("reservations", out, scratch, "platform.yaml", "--walltime", "kill")


def failures(out: Path, scratch: Path) -> list[Path]:
    return [*_gantt("failures", out, scratch, "platform.xml"),
            _coloured_by_state("failures", out, scratch), _requeued(out, scratch)]


def _requeued(out: Path, scratch: Path) -> Path:
    """The failures example again with ``--on-failure requeue``: the killed attempts drawn."""
    inputs, run_dir = DOCS / "figures" / "failures", scratch / "requeued"
    hetsched("run", "-p", inputs / "platform.xml", "-w", inputs / "workload.yaml", "-s",
             "easy", "--on-failure", "requeue", "--out", run_dir, "-q")
    hetsched("plot", run_dir, "-q")
    return copy(run_dir / "gantt.png", out / "failures" / "gantt_requeue.png")


def report(out: Path, scratch: Path) -> list[Path]:
    """The first box-plot figure `hetsched report` embeds in its page (the example sweep's
    first group); the page's run figures are those of `hetsched plot`."""
    store = scratch / "example.sqlite"
    hetsched("sweep", "examples/sweep.yaml", "-j", "2", "--store", store, "-q")
    hetsched("report", store, "--out", scratch / "report", "--baseline", "fcfs", "-q")
    page = (scratch / "report" / "report.html").read_text(encoding="utf-8")
    for tag in re.findall(r"<img\b[^>]*>", page):
        data = re.search(r'src="data:image/png;base64,([^"]+)"', tag)
        if data and re.search(r'alt="box plots', tag):
            target = out / "report" / "boxplots.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b64decode(data.group(1)))
            return [target]
    sys.exit(f"{scratch / 'report' / 'report.html'}: no PNG image whose alt text starts with "
             "'box plots'")


def batch_mapping(out: Path, scratch: Path) -> list[Path]:
    hetsched("study", "batch-mapping", "--seeds", "2", "--out", scratch / "batch_mapping")
    return [copy(scratch / "batch_mapping" / "bars.png", out / "batch_mapping" / "bars.png")]


def deside(out: Path, scratch: Path) -> list[Path]:
    hetsched("study", "deside", "--seeds", "1", "--out", scratch / "deside")
    return [copy(scratch / "deside" / "makespan.png", out / "deside" / "makespan.png")]


def coalloc(out: Path, scratch: Path) -> list[Path]:
    """300 environments, not the paper's 3,000 (docs/experiments.md shows those)."""
    hetsched("study", "coalloc", "--trials", "300", "--out", scratch / "coalloc")
    return [copy(scratch / "coalloc" / name, out / "coalloc" / "300-trials" / name)
            for name in ("windows.png", "cost_q.png")]


def node_centric(out: Path, scratch: Path) -> list[Path]:
    """The study's figures on its first 4 weeks (written as ``4-weeks/``: the 41 weeks'
    in docs/experiments.md take minutes more), then the box plots of the stored 41-week
    results and the sensitivity figure of the stored sweep, redrawn by the study's code."""
    import pandas

    from hetsched.experiments import node_centric_sensitivity
    from hetsched.experiments.node_centric import boxes_figure
    from hetsched.report.mpl import save

    written = []
    if KIT_TRACE.exists():
        hetsched("study", "node-centric", "--weeks", "4", "-j", "2", "--trace", KIT_TRACE,
                 "--out", scratch / "node_centric")
        figures = scratch / "node_centric" / "figures"
        week = next(figures.glob("week-*.png"))
        written += [copy(figures / "boxplots.png", out / "node_centric" / "4-weeks" /
                         "boxplots.png"),
                    copy(week, out / "node_centric" / "4-weeks" / "representative-week.png")]
    else:
        print(f"skipped the node-centric study's runs: no KIT trace at {KIT_TRACE} "
              "(set HETSCHED_SHARED_DATA)")
    folder = out / "node_centric"
    folder.mkdir(parents=True, exist_ok=True)
    written.append(save(boxes_figure(pandas.read_csv(RESULTS / "results.csv")),
                        folder / "faithful-boxplots.png", "png"))
    changes = pandas.read_csv(RESULTS / "sensitivity.csv")
    drawn = node_centric_sensitivity.write_figure(changes, scratch / "sensitivity",
                                                  SENSITIVITY_WEEKS)
    return written + [copy(drawn[0], folder / "sensitivity.png")]


#: Every area, in the order docs/figures.md shows them.
AREAS: dict[str, Callable[[Path, Path], list[Path]]] = {
    "run": run, "reservations": reservations, "failures": failures, "report": report,
    "batch_mapping": batch_mapping, "deside": deside, "coalloc": coalloc,
    "node_centric": node_centric}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=list(AREAS),
                        help="only this area (repeatable); default: every area")
    parser.add_argument("--out", type=Path, default=DOCS / "figures",
                        help="where the areas' folders go (default: docs/figures)")
    options = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hetsched-figures-") as scratch:
        for area in options.only or AREAS:
            began = time.perf_counter()
            (Path(scratch) / area).mkdir()
            written = AREAS[area](options.out.resolve(), Path(scratch) / area)
            print(f"{area} ({time.perf_counter() - began:.0f} s): wrote "
                  + ", ".join(_shown(path) for path in written), flush=True)
    print(f"done in {time.perf_counter() - start:.0f} s")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == "__main__":
    main()
