"""Start-up time of the ``hetsched`` command: process wall time of ``hetsched --help`` and of
``hetsched run`` on the bundled example, against the floor of starting Python and importing
hetsched's dependencies (numpy, pydantic, typer, rich), and the heavy modules a start-up
imports (none of scipy, matplotlib, pandas, dask, jinja2 is allowed).

    python benchmarks/bench_startup.py [--repeat 15]

Each command runs once untimed (so Python writes its bytecode caches, as on any machine after
the first run; ``PYTHONDONTWRITEBYTECODE`` is ignored here), then ``--repeat`` times in a fresh
process; the table shows the minimum and the median wall time (the minimum is the least
disturbed by other load on the machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 0.5
HEAVY = ("scipy", "matplotlib", "pandas", "dask", "distributed", "jinja2")
#: The children's environment: bytecode caches allowed, as on a user's machine.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _hetsched() -> list[str]:
    script = Path(sys.executable).parent / "hetsched"
    if script.is_file():
        return [str(script)]
    found = shutil.which("hetsched")
    if found is None:
        sys.exit("the hetsched command is not installed (pip install -e .)")
    return [found]


def _wall(command: list[str], repeat: int, cwd: Path) -> list[float]:
    """Wall times of ``repeat`` runs of ``command``, after one untimed warm-up run."""
    times = []
    for _ in range(repeat + 1):
        began = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, env=ENV, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - began)
    return times[1:]


def _imports(statement: str) -> tuple[list[str], list[tuple[float, str]]]:
    """Heavy top-level packages imported by ``statement``, and the slowest imports (s)."""
    report = subprocess.run([sys.executable, "-X", "importtime", "-c", statement], env=ENV,
                            capture_output=True, text=True, check=True).stderr
    rows = []
    for line in report.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line[12:].split("|"))
        if cumulative.isdigit():
            rows.append((int(cumulative) / 1e6, name))
    modules = {name.split(".")[0] for _, name in rows}
    top_level = [(t, n) for t, n in rows if "." not in n]
    return sorted(m for m in modules if m in HEAVY), sorted(top_level, reverse=True)[:8]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    hetsched = _hetsched()
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"], None),
            ("import numpy, pydantic, typer, rich (floor)",
             [sys.executable, "-c", "import numpy, pydantic, typer, rich.console"], None),
            ("import hetsched.cli.main", [sys.executable, "-c", "import hetsched.cli.main"],
             None),
            ("hetsched --help", [*hetsched, "--help"], TARGET_SECONDS),
            ("hetsched run (bundled example)", [*hetsched, "run", "--out", "run"],
             TARGET_SECONDS),
        ]
        print(f"{'command':<46} {'min s':>7} {'median s':>9} {'target':>7}  ok")
        for label, command, target in cases:
            times = _wall(command, args.repeat, Path(tmp))
            best, median = min(times), statistics.median(times)
            verdict = "" if target is None else ("yes" if best <= target else "NO")
            shown = "" if target is None else f"{target:.2f}"
            print(f"{label:<46} {best:>7.3f} {median:>9.3f} {shown:>7}  {verdict}")
    heavy, slowest = _imports("import hetsched.cli.main")
    print(f"\nheavy modules imported by `import hetsched.cli.main`: {', '.join(heavy) or 'none'}")
    print("slowest top-level imports (cumulative s): "
          + ", ".join(f"{name} {t:.3f}" for t, name in slowest))


if __name__ == "__main__":
    main()
