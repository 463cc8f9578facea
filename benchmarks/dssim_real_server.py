"""Regenerate tests/data/dssim_real_server.json: the real ds-sim server's figures on every ds-sim
configuration × algorithm.

For each configuration of the shared data (``../shared/data/dssim``) it writes a copy whose
``<jobs>`` element names the configuration's job list (``<jobs file="..."/>``), starts the
given ds-server on it (``-c copy -n -p PORT -v stats+``, in a scratch directory, one run at a
time, a new port each run), drives it with hetsched's live client (the same algorithm classes
as the emulation, ``hetsched.dssim.client.run_client``) and reads the end-of-run summary that
ds-server prints: average waiting, execution and turnaround time, average utilisation and
total cost, the actual simulation end time, the number of jobs, and the per-type lines.

    python benchmarks/dssim_real_server.py --ds-server /path/to/ds-server
        [--configs config16-short-high,...] [--algos ffq,bfq] [--out FILE]
        [--jobs-dir DIR] [--port 50100]

``--jobs-dir`` also keeps, per cell, each job's server, start and end as ds-server reports
them (``-v stats+``), as ``CONFIG.ALGO.jobs.json``, for finding where a run departs from the
emulation. ``--compare`` prints, instead of writing the file, every cell where the emulation
differs from the real server.

Build ds-server from https://github.com/distsys-MQ/ds-sim (``src/``: ``make ds-server``, which
needs libxml2's headers); the file records the ds-sim commit given with ``--ds-sim-commit``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "dssim"
OUT = ROOT / "tests" / "data" / "dssim_real_server.json"
sys.path.insert(0, str(ROOT / "src"))

from hetsched.dssim.algorithms import ALGORITHMS  # noqa: E402
from hetsched.dssim.client import run_client  # noqa: E402
from hetsched.experiments.dssim_table import (Placement, placement_digest, placements,  # noqa: E402
                                  simulate_cell)

SUMMARY = {
    "end": (r"# actual simulation end time: (\d+), #jobs: (\d+) \(failed (\d+) times\)",
            ("end", "jobs", "failed")),
    "util": (r"# total #servers used: (\d+), avg util: ([\d.]+)% \(ef\. usage: ([\d.]+)%\), "
             r"total cost: \$([\d.]+)", ("servers", "util", "ef_usage", "cost")),
    "tt": (r"# avg waiting time: (\d+), avg exec time: (\d+), avg turnaround time: (\d+)",
           ("wait", "exec", "tt")),
}
TYPE_LINE = re.compile(r"# (\d+) (\S+) servers used with a utilisation of ([\d.]+) "
                       r"at the cost of \$([\d.]+)")
SERVER_LINE = re.compile(r"# --- server (\d+) -- ")
TYPE_HEADER = re.compile(r"# --- \[(\S+)\]")
JOB_LINE = re.compile(r"# ----- job (\d+) -- submit: (-?\d+), start: (-?\d+), end: (-?\d+),")


def config_with_job_list(config: Path, jobs: Path, into: Path) -> Path:
    """A copy of ``config`` whose ``<jobs>`` element is ``<jobs file="jobs"/>``."""
    text = config.read_text()
    copy, count = re.subn(r"<jobs>.*?</jobs>|<jobs\b[^>]*/>", f'<jobs file="{jobs}"/>', text,
                          flags=re.S)
    if count != 1:
        raise SystemExit(f"{config}: expected one <jobs> element, found {count}")
    path = into / config.name
    path.write_text(copy)
    return path


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def parse_output(text: str) -> tuple[dict, dict[int, Placement]]:
    """ds-server's printed summary (numbers as printed, plus ``jobs_sha256``, the digest of
    every job's placement), and each completed job's ``(type-id, start, end)``."""
    figures: dict = {}
    for pattern, names in SUMMARY.values():
        found = re.search(pattern, text)
        if found is None:
            raise ValueError(f"no line matching {pattern!r} in ds-server's output")
        figures.update({n: _number(v) for n, v in zip(names, found.groups())})
    figures["types"] = {m[2]: {"used": int(m[1]), "util": float(m[3]), "cost": float(m[4])}
                        for m in TYPE_LINE.finditer(text)}
    jobs: dict[int, Placement] = {}
    server_type, server_id = None, None
    for line in text.splitlines():
        if (m := TYPE_HEADER.match(line)):
            server_type = m[1]
        elif (m := SERVER_LINE.match(line)):
            server_id = int(m[1])
        elif (m := JOB_LINE.match(line)):
            jobs[int(m[1])] = (f"{server_type}-{server_id}", int(m[3]), int(m[4]))
    if len(jobs) != figures["jobs"]:
        raise ValueError(f"ds-server listed {len(jobs)} completed jobs, its summary says "
                         f"{figures['jobs']} (was it run with -v stats+?)")
    figures["jobs_sha256"] = placement_digest(jobs)
    return figures, jobs


def run_real(ds_server: Path, config: Path, algo: str, port: int, scratch: Path,
             timeout: float, ds_client: Path | None = None
             ) -> tuple[dict, dict[int, Placement]]:
    """One run of the real server driven by hetsched's live client, or by ds-sim's own
    client ``ds_client`` (which always connects to port 50000, without newline mode)."""
    log = scratch / f"{config.stem}.{algo}.out"
    port = 50000 if ds_client is not None else _free_port(port)
    with log.open("w") as out:
        server = subprocess.Popen([str(ds_server), "-c", str(config),
                                   *(() if ds_client else ("-n",)), "-p", str(port),
                                   "-v", "stats+"], cwd=scratch, stdout=out,
                                  stderr=subprocess.STDOUT)
        try:
            _wait_until_listening(port, server, log)
            if ds_client is None:
                run_client(algo, "127.0.0.1", port, system=config, timeout=timeout)
            else:
                subprocess.run([str(ds_client), "-a", algo], cwd=scratch, check=True,
                               stdout=subprocess.DEVNULL, timeout=timeout * 10)
            server.wait(timeout=timeout)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    return parse_output(log.read_text())


def _sockets() -> list[list[str]]:
    """The rows of /proc/net/tcp and tcp6 (local address, remote address, state, ...)."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows += [row.split()[1:4] for row in Path(table).read_text().splitlines()[1:]]
        except OSError:
            pass
    return rows


def _free_port(port: int) -> int:
    """``port`` or the next one no socket uses locally (ds-server does not report a failed
    bind: it then listens on a port of the system's choosing)."""
    while any(local.endswith(f":{port:04X}") for local, _, _ in _sockets()):
        port += 1
    return port


def _wait_until_listening(port: int, server: subprocess.Popen, log: Path,
                          limit: float = 30.0) -> None:
    """ds-server accepts one connection: wait for its listening socket to appear in
    /proc/net/tcp rather than probing it with a connection."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"ds-server exited early ({server.returncode}): "
                               f"{log.read_text().strip()}")
        if any(local.endswith(f":{port:04X}") and state == "0A"  # LISTEN
               for local, _, state in _sockets()):
            return
        time.sleep(0.02)
    raise RuntimeError(f"ds-server did not listen on port {port}")


def emulated(config: Path, algo: str) -> tuple[dict, dict[int, Placement]]:
    """The emulation's figures (as ``hetsched dssim-table``) and placements."""
    cell, result = simulate_cell(config, DATA / "jobs", algo)
    jobs = placements(result)
    return ({"tt": cell.tt, "util": cell.util, "cost": cell.cost, "end": cell.end,
             "jobs": cell.jobs, "jobs_sha256": placement_digest(jobs)}, jobs)


def first_difference(real: dict[int, Placement], emul: dict[int, Placement]) -> str:
    """The job that starts earliest among those placed differently."""
    differ = [j for j in set(real) | set(emul) if real.get(j) != emul.get(j)]
    if not differ:
        return "per-job identical"
    first = min(differ, key=lambda j: min(x[1] for x in (real.get(j), emul.get(j)) if x))
    return (f"{len(differ)} jobs differ; first: job {first} real {real.get(first)} "
            f"emulated {emul.get(first)}")


def _cells_json(cells: dict[str, dict[str, dict]]) -> str:
    """Configurations and algorithms one per line, each cell's figures on its line."""
    configs = [f'  {json.dumps(name)}: {{\n' + ",\n".join(
        f'   {json.dumps(algo)}: {json.dumps(figures, sort_keys=True)}'
        for algo, figures in algos.items()) + "\n  }" for name, algos in cells.items()]
    return "{\n" + ",\n".join(configs) + "\n }"


def _names(text: str, default: list[str]) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()] if text else default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ds-server", required=True, type=Path, help="a built ds-server")
    parser.add_argument("--configs", default="", help="comma-separated names (default: all)")
    parser.add_argument("--algos", default="", help="comma-separated (default: all 14)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT}")
    parser.add_argument("--ds-sim-commit", default="unknown",
                        help="the ds-sim commit ds-server was built from (recorded)")
    parser.add_argument("--ds-client", type=Path,
                        help="drive the server with ds-sim's own client binary instead "
                             "(its ten algorithms; port 50000)")
    parser.add_argument("--port", type=int, default=50100,
                        help="first port (one per run; ds-server takes 49152-65535)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per message")
    parser.add_argument("--jobs-dir", type=Path, help="also write per-job results here")
    parser.add_argument("--compare", action="store_true",
                        help="compare with the emulation instead of writing --out")
    args = parser.parse_args()
    configs = _names(args.configs, sorted(p.stem for p in (DATA / "configs").glob("*.xml")))
    algos = _names(args.algos, list(ALGORITHMS))
    port = args.port
    cells: dict[str, dict[str, dict]] = {}
    differing = 0
    with tempfile.TemporaryDirectory(prefix="dssim-real-") as tmp:
        scratch = Path(tmp)
        for name in configs:
            config = config_with_job_list(DATA / "configs" / f"{name}.xml",
                                          DATA / "jobs" / f"{name}-jobs.xml", scratch)
            for algo in algos:
                began = time.perf_counter()
                figures, jobs = run_real(args.ds_server.resolve(), config, algo, port, scratch,
                                         args.timeout, args.ds_client and args.ds_client.resolve())
                port += 1
                cells.setdefault(name, {})[algo] = figures
                if args.jobs_dir:
                    args.jobs_dir.mkdir(parents=True, exist_ok=True)
                    (args.jobs_dir / f"{name}.{algo}.jobs.json").write_text(json.dumps(jobs))
                line = (f"{name:<24} {algo:<5} tt {figures['tt']:>7} util {figures['util']:>6} "
                        f"cost {figures['cost']:>8} end {figures['end']:>7} "
                        f"jobs {figures['jobs']:>5}  {time.perf_counter() - began:6.1f} s")
                if args.compare:
                    emul, emul_jobs = emulated(DATA / "configs" / f"{name}.xml", algo)
                    diffs = [f"{k} {emul[k]} vs {figures[k]}" for k in emul
                             if k != "jobs_sha256" and emul[k] != figures[k]]
                    if diffs or emul["jobs_sha256"] != figures["jobs_sha256"]:
                        differing += 1
                        line += (f"\n    DIFFERS: {', '.join(diffs) or 'figures equal'}; "
                                 f"{first_difference(jobs, emul_jobs)}")
                print(line, flush=True)
    if args.compare:
        print(f"{differing} of {sum(len(a) for a in cells.values())} cells differ")
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    client = (f"ds-sim's own client ({args.ds_client.name} -a ALGO)" if args.ds_client else
              "hetsched's live client (hetsched.dssim.client.run_client, as hetsched dsclient)")
    args.out.write_text(json.dumps({
        "note": (f"The real ds-sim server (ds-server of github.com/distsys-MQ/ds-sim, "
                 f"{args.ds_sim_commit}) run on every configuration of shared/data/dssim with "
                 f"its job list (<jobs file=...>), driven by {client}. Per cell, the figures "
                 "ds-server prints at the end of the run (-v stats+): tt, wait, exec (average "
                 "turnaround, waiting and execution time, whole seconds), util and ef_usage "
                 "(percent), cost (dollars), end (actual simulation end time, s), jobs, failed, "
                 "servers (servers used), types (per server type: used, util, cost); and "
                 "jobs_sha256, hetsched.experiments.dssim_table.placement_digest of every job's "
                 "server, start and end as ds-server lists them. Regenerate with "
                 "benchmarks/dssim_real_server.py (docs/dssim.md)."),
        "cells": "CELLS"}, indent=1).replace('"CELLS"', _cells_json(cells)) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
