"""Fingerprints of schedules: did a change keep every job's start, end and allocation?

    python benchmarks/schedule_hashes.py                      # print the table
    python benchmarks/schedule_hashes.py --save hashes.json   # record them
    python benchmarks/schedule_hashes.py --check benchmarks/schedule_hashes.json

A fixed list of cases (scheduler × inputs: lublin_256, the IRMaSim synthetic run, prefixes of
the KIT trace on ``platforms/kit_like.yaml``, ds-sim cells, the bundled example), each run once
with seed 0. Per case two SHA-256 digests over the jobs in submission order:

- ``exact``: job id, start, end and allocation (node index, cores) as the run gave them;
- ``by_type``: job id, start, end and, per node type, how many nodes and cores the job held:
  what must stay the same where a change may pick another node among interchangeable ones.

``--check FILE`` compares with a saved file and exits 1 listing the cases that differ
(``benchmarks/schedule_hashes.json`` was made on main before the issue-28 changes). The inputs
are read from ``../shared/data`` beside the project.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LUBLIN = (DATA / "platforms" / "irmasim_lublin_20node.json", DATA / "traces" / "lublin_256.swf")
SYNTH = (DATA / "irmasim_synth" / "platform.json", DATA / "irmasim_synth" / "workload_1000.json")
KIT_PLATFORM = ROOT / "benchmarks" / "platforms" / "kit_like.yaml"
KIT_TRACE = DATA / "traces" / "kit_fh2_2016_first25k.swf"
DSSIM = DATA / "dssim"


@dataclass(frozen=True)
class Case:
    """One run: its name and how to simulate it (a ``SimResult``)."""

    name: str
    simulate: Callable[[], object]


def _files(scheduler: str, platform: Path, workload: Path) -> Callable[[], object]:
    def run() -> object:
        from hetsched.run.execute import run_simulation

        return run_simulation(platform, workload, scheduler, 0, timeseries=False)
    return run


def _kit_prefix(scheduler: str, jobs: int) -> Callable[[], object]:
    """The first ``jobs`` records of the KIT trace, on the KIT-like platform."""
    def run() -> object:
        from hetsched.platform.load import load_platform
        from hetsched.run.execute import run_simulation
        from hetsched.workload.swf import SwfOptions, read_swf_table, table_workload

        platform = load_platform(KIT_PLATFORM)
        metadata, table = read_swf_table(KIT_TRACE)
        workload = table_workload(f"kit_first{jobs}", str(KIT_TRACE), platform, SwfOptions(),
                                  table[:jobs], metadata)
        return run_simulation(platform, workload, scheduler, 0, timeseries=False)
    return run


def _dssim(config: str, algorithm: str) -> Callable[[], object]:
    def run() -> object:
        from hetsched.experiments.dssim_table import simulate_cell

        return simulate_cell(DSSIM / "configs" / f"{config}.xml", DSSIM / "jobs", algorithm)[1]
    return run


def _bundled(scheduler: str) -> Callable[[], object]:
    def run() -> object:
        from hetsched.examples import default_platform_path, default_workload_path

        return _files(scheduler, default_platform_path(), default_workload_path())()
    return run


def cases() -> list[Case]:
    """The reference cases, in a fixed order."""
    out = [Case(f"lublin_256 {s}", _files(s, *LUBLIN))
           for s in ("fcfs", "easy", "high_gflops", "shortest-high_cores")]
    out.append(Case("lublin_256 conservative", _files("conservative", *LUBLIN)))
    out += [Case(f"irmasim_synth {s}", _files(s, *SYNTH))
            for s in ("irmasim_minimal", "fcfs", "easy", "conservative", "min_min")]
    out += [Case(f"kit first 25326 {s}", _kit_prefix(s, 25_326)) for s in ("fcfs", "easy")]
    out.append(Case("kit first 3000 conservative", _kit_prefix("conservative", 3_000)))
    out += [Case(f"dssim {c} {a}", _dssim(c, a))
            for c in ("config12-long-med", "config16-med-high") for a in ("bf", "atl", "lwt")]
    out += [Case(f"bundled {s}", _bundled(s)) for s in ("fcfs", "easy", "mct")]
    return out


def _digest(items: Iterable[object]) -> str:
    digest = hashlib.sha256()
    for item in items:
        digest.update(repr(item).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def hashes(result) -> dict[str, str]:  # noqa: ANN001 - a SimResult
    """The ``exact`` and ``by_type`` digests of a run (times as ``repr`` of floats)."""
    jobs = result.workload.jobs
    types = [node.type.name for node in result.platform.nodes]
    starts, ends = result.start.tolist(), result.end.tolist()

    def by_type(allocation: tuple[tuple[int, int], ...] | None) -> object:
        if allocation is None:
            return None
        counts: dict[str, list[int]] = {}
        for node, cores in allocation:
            entry = counts.setdefault(types[node], [0, 0])
            entry[0] += 1
            entry[1] += cores
        return sorted((name, n, c) for name, (n, c) in counts.items())

    exact = (((j.id, starts[i], ends[i], result.allocation[i])) for i, j in enumerate(jobs))
    typed = ((j.id, starts[i], ends[i], by_type(result.allocation[i]))
             for i, j in enumerate(jobs))
    return {"jobs": len(jobs), "exact": _digest(exact), "by_type": _digest(typed)}


def compute(chosen: list[Case], verbose: bool) -> dict[str, dict[str, object]]:
    out = {}
    for case in chosen:
        began = time.perf_counter()
        out[case.name] = hashes(case.simulate())
        if verbose:
            print(f"{case.name}: {time.perf_counter() - began:.1f} s", file=sys.stderr)
    return out


def differences(now: dict[str, dict[str, object]], saved: dict[str, dict[str, object]]
                ) -> list[str]:
    """The cases whose digests differ from ``saved`` (or are missing from either side)."""
    return [name for name in dict.fromkeys([*saved, *now]) if now.get(name) != saved.get(name)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="write the digests to this JSON file")
    parser.add_argument("--check", type=Path, help="compare with this JSON file; exit 1 if "
                                                   "any case differs")
    parser.add_argument("--verbose", action="store_true", help="each case's time on stderr")
    args = parser.parse_args(argv)
    now = compute(cases(), args.verbose)
    from benchtools import print_table

    print_table([("case", "jobs", "exact", "by node type")]
                + [(name, f"{h['jobs']:,}", str(h["exact"])[:16], str(h["by_type"])[:16])
                   for name, h in now.items()])
    if args.save:
        args.save.write_text(json.dumps(now, indent=1) + "\n", encoding="utf-8")
    if args.check:
        differ = differences(now, json.loads(args.check.read_text(encoding="utf-8")))
        if differ:
            print(f"{len(differ)} case(s) differ from {args.check}: " + ", ".join(differ))
            return 1
        print(f"all {len(now)} cases match {args.check}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
