"""Every run option, from its one definition (:class:`hetsched.run.options.RunOptions`), is
accepted by the command line (``run``, ``compare``), by ``hetsched.simulate`` and by a sweep
file, and recorded in ``summary.json`` and the results store."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.run.options import RUN_OPTIONS, RunOptions
from hetsched.sweep.spec import load_sweep
from hetsched.sweep.store import IDENTITY
from support import assert_one_line_error

runner = CliRunner()

#: A value other than the default for each option (a new option must be added here).
EXAMPLES = {"horizon": 3600.0, "strict": True, "swf_placement": "single",
            "reference_speed": 2e9, "estimate_factor": 2.0, "contention": "deside",
            "walltime": "kill", "scale_delays": True,
            "failures": str(Path(__file__).parent / "data" / "failures" / "default_platform.csv"),
            "on_failure": "requeue", "max_attempts": 3, "failure_mtbf": 20000.0,
            "failure_mttr": 600.0,
            "batsim_events": str(Path(__file__).parent / "data" / "batsim_events"
                                 / "default_platform.jsonl"),
            "table_format": "parquet"}


def _arguments(name: str, value: object) -> list[str]:
    flag = "--" + name.replace("_", "-")
    return [flag] if value is True else [flag, str(value)]


def test_the_examples_cover_every_option_away_from_its_default() -> None:
    assert list(EXAMPLES) == list(RUN_OPTIONS)
    for spec in fields(RunOptions):
        assert EXAMPLES[spec.name] != spec.default, spec.name


@pytest.mark.parametrize("name", RUN_OPTIONS)
def test_the_command_line_takes_every_option(name: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "-q", "--out", str(out),
                                 *_arguments(name, EXAMPLES[name])])
    assert result.exit_code == 0, result.output
    recorded = json.loads((out / "summary.json").read_text())["options"]
    assert list(recorded) == list(RUN_OPTIONS)
    assert recorded[name] == EXAMPLES[name]
    compared = runner.invoke(app, ["compare", "-s", "fcfs,easy", "--out", str(tmp_path / "c"),
                                   "-f", "json", *_arguments(name, EXAMPLES[name])])
    assert compared.exit_code == 0, compared.output
    for scheduler in ("fcfs", "easy"):
        summary = json.loads((tmp_path / "c" / scheduler / "summary.json").read_text())
        assert summary["options"][name] == EXAMPLES[name]


@pytest.mark.parametrize("name", RUN_OPTIONS)
def test_simulate_takes_every_option(name: str, tmp_path: Path) -> None:
    run = hetsched.simulate(**{name: EXAMPLES[name]})
    assert getattr(run.options, name) == EXAMPLES[name]
    run.write(tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["options"][name] == EXAMPLES[name]
    given = hetsched.simulate(options=RunOptions(**{name: EXAMPLES[name]}))
    assert given.options == run.options and given.summary["jobs"] == run.summary["jobs"]


@pytest.mark.parametrize("name", RUN_OPTIONS)
def test_a_sweep_file_takes_every_option(name: str, tmp_path: Path) -> None:
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"schedulers: [fcfs]\noptions: {{{name}: [{json.dumps(EXAMPLES[name])}]}}\n")
    (options,) = load_sweep(spec).options
    assert getattr(options, name) == EXAMPLES[name] and name in IDENTITY


def test_an_option_is_checked_once_for_all_its_ways_in(tmp_path: Path) -> None:
    """The same check, the same words: on the command line, in Python, in a sweep file."""
    cli = runner.invoke(app, ["run", "--swf-placement", "diagonal", "--out", str(tmp_path)])
    assert_one_line_error(cli, "SWF placement must be 'auto', 'single' or 'spread'")
    with pytest.raises(ConfigError, match="SWF placement must be 'auto', 'single' or 'spread'"):
        hetsched.simulate(swf_placement="diagonal")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("schedulers: [fcfs]\noptions: {swf_placement: diagonal}\n")
    sweep = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s.sqlite")])
    assert_one_line_error(sweep, "field 'options.swf_placement[0]'",
                          "SWF placement must be 'auto', 'single' or 'spread'")


def test_an_unknown_option_of_simulate_is_named() -> None:
    with pytest.raises(ConfigError, match="unknown run option 'horizn'; did you mean"):
        hetsched.simulate(horizn=5)


def test_a_store_row_without_a_later_option_ran_as_before_it() -> None:
    """Runs stored before the walltime rule ignored walltimes; before scale_delays, delays
    were not scaled."""
    stored = RunOptions.stored({"horizon": float("nan"), "strict": 0, "swf_placement": "auto",
                                "estimate_factor": 1.0, "walltime": None})
    assert stored == RunOptions(walltime="ignore")


def test_an_option_added_later_keeps_the_keys_of_runs_without_it() -> None:
    """``scale_delays`` joined a run's identity after stores existed: at its default it is not
    part of the key, so a store made before it is resumed, not redone."""
    assert "scale_delays" not in RunOptions().key()
    assert RunOptions(scale_delays=True).key()["scale_delays"] is True
