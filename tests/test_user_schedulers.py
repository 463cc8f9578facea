"""A user's own scheduler: from a file (``-s file.py:Class[:options]``), from an installed
package (entry points), or registered from Python, without hiding the built-ins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.schedulers import create
from support import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "my_scheduler.py"
runner = CliRunner()

SCALED = textwrap.dedent("""\
    from hetsched.schedulers import Scheduler, Start


    class ScaledFit(Scheduler):
        \"\"\"FCFS on the first node that fits; ``limit`` jobs at most per call.\"\"\"

        def __init__(self, limit: int = 1000, label: str = "x") -> None:
            if limit < 1:
                raise ValueError(f"limit must be >= 1, got {limit}")
            self.limit = limit
            self.label = label

        def decide(self, now, events):
            for job in list(self.view.pending.values())[: self.limit]:
                fits = self.view.fit_mask(job).nonzero()[0]
                if fits.size == 0:
                    return
                yield Start.on(job, int(fits[0]))
    """)


def _write(tmp_path: Path, text: str, name: str = "mine.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_a_class_from_a_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "-s", f"{EXAMPLE}:FastestFit", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["scheduler"] == "fastest-fit" and summary["metrics"]["finished"] == 200


def test_file_scheduler_matches_the_readme_example_run() -> None:
    """The README's `python examples/my_scheduler.py` and the CLI run the same policy."""
    scheduler = create(f"{EXAMPLE}:FastestFit")
    printed = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                             check=True).stdout
    from hetsched.examples import default_platform_path, default_workload_path
    from hetsched.metrics import summarize
    from hetsched.platform.load import load_platform
    from hetsched.sim.engine import simulate
    from hetsched.workload.load import load_workload

    platform = load_platform(default_platform_path())
    metrics = summarize(simulate(platform, load_workload(default_workload_path(), platform),
                                 scheduler))
    assert f"makespan {metrics['makespan']:.1f} s" in printed


def test_file_scheduler_options_are_checked_against_its_signature(tmp_path: Path) -> None:
    path = _write(tmp_path, SCALED)
    scheduler = create(f"{path}:ScaledFit:limit=2,label=y")
    assert (scheduler.limit, scheduler.label, scheduler.name) == \
        (2, "y", f"{path}:ScaledFit:limit=2,label=y")
    assert create(f"{path}:ScaledFit").name == "ScaledFit"
    with pytest.raises(ConfigError, match="no option 'limt'.*did you mean limit"):
        create(f"{path}:ScaledFit:limt=2")
    with pytest.raises(ConfigError, match="limit must be >= 1"):
        create(f"{path}:ScaledFit:limit=0")


def test_compare_a_file_scheduler_with_built_ins(tmp_path: Path) -> None:
    path = _write(tmp_path, SCALED)
    result = runner.invoke(app, ["compare", "-s", f"fcfs,{path}:ScaledFit:limit=1",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)
    assert runs["fcfs"]["finished"] == runs[f"{path}:ScaledFit:limit=1"]["finished"] == 200


def test_compare_names_a_file_scheduler_by_its_class_name(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, SCALED)
    result = runner.invoke(app, ["compare", "-s", f"fcfs,{EXAMPLE}:FastestFit,"
                                 f"{path}:ScaledFit:limit=1", "--out", str(tmp_path / "c")],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "metric" in line).split()
    assert header[1:-1] == ["metric", "┃", "fcfs", "┃", "fastest-fit", "┃",
                            "ScaledFit:limit=1"]
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == [
        "ScaledFit_limit_1", "comparison.csv", "fastest-fit", "fcfs"]
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", "-s", f"{EXAMPLE}:FastestFit", "-q"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["default_workload-fastest-fit"]


def test_two_file_schedulers_of_one_name_keep_their_specs() -> None:
    from hetsched.cli.running import run_labels

    spec = f"{EXAMPLE}:FastestFit"
    assert run_labels([spec, f"{spec}:x=1", "fcfs"]) == ["fastest-fit", "fastest-fit:x=1", "fcfs"]
    same_file = f"{EXAMPLE.parent}/../examples/{EXAMPLE.name}:FastestFit"   # another spec
    assert run_labels([spec, same_file]) == [spec, same_file]


@pytest.mark.parametrize("source, spec_class, fragments", [
    (None, "Nope", ["no such file"]),
    ("def broken(:\n", "X", ["line 1", "syntax error"]),
    ("raise RuntimeError('boom at import')\n", "X", ["importing it failed", "RuntimeError",
                                                     "boom at import", "line 1"]),
    (SCALED, "ScaledFitt", ["no class 'ScaledFitt'", "did you mean ScaledFit"]),
    ("class NotOne:\n    pass\n", "NotOne", ["'NotOne' is not a subclass"]),
    ("from hetsched.schedulers import Scheduler\nclass Half(Scheduler):\n    pass\n", "Half",
     ["does not implement decide"]),
])
def test_a_bad_scheduler_file_is_one_line(tmp_path: Path, source: str | None, spec_class: str,
                                          fragments: list[str]) -> None:
    path = tmp_path / "missing.py" if source is None else _write(tmp_path, source)
    result = runner.invoke(app, ["run", "-s", f"{path}:{spec_class}", "--out", str(tmp_path)])
    assert_one_line_error(result, *fragments)


def _fresh_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={**os.environ, **env})


def test_registering_first_does_not_hide_the_built_ins() -> None:
    result = _fresh_python("""
        from hetsched.schedulers import register, create
        from hetsched.schedulers.queue import QueuePolicy
        register("mine", QueuePolicy, "my FCFS", "user", job_selection="first",
                 node_selection="first")
        print(type(create("fcfs")).__name__, type(create("mine")).__name__)
        try:
            register("fcfs", QueuePolicy, "again", "user")
        except ValueError as err:
            print("refused:", err)
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "QueuePolicy QueuePolicy"
    assert lines[1].startswith("refused:") and "fcfs" in lines[1]


def test_an_installed_package_adds_schedulers_by_entry_point(tmp_path: Path) -> None:
    (tmp_path / "acme_sched.py").write_text(SCALED.replace("ScaledFit", "AcmeFit"))
    dist = tmp_path / "acme_sched-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-sched\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[hetsched.schedulers]\nacme = acme_sched:AcmeFit\nfcfs = acme_sched:AcmeFit\n"
        "broken = acme_sched:Missing\n")
    env = {"PYTHONPATH": str(tmp_path)}
    listed = _fresh_python("""
        from hetsched.schedulers import entries
        for e in entries():
            if e.family == "plugin":
                print(e.name, e.description)
        """, **env)
    assert listed.stdout.splitlines() == ["acme from package acme-sched",
                                          "broken from package acme-sched"]
    run = _fresh_python(f"""
        from typer.testing import CliRunner
        from hetsched.cli.main import app
        r = CliRunner().invoke(app, ["run", "-q", "-s", "acme:limit=3", "--out",
                                     {str(tmp_path / 'out')!r}])
        print(r.exit_code)
        r = CliRunner().invoke(app, ["run", "-q", "-s", "broken"])
        print(r.exit_code, r.stderr.strip())
        from hetsched.schedulers import create
        print(type(create("fcfs")).__name__)  # a plugin never replaces a built-in
        """, **env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "0"
    assert lines[1].startswith("2 error: scheduler 'broken' (acme_sched:Missing) cannot be "
                               "loaded: AttributeError")
    assert lines[2] == "QueuePolicy"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["scheduler"] == "acme:limit=3" and summary["metrics"]["finished"] == 200
