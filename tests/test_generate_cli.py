"""``hetsched generate workload`` and the workload writers (SWF, native JSON)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.generate_cmd import parse_params
from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.platform.load import load_platform
from hetsched.workload.generators import GENERATORS, check_params, generate
from hetsched.workload.load import load_workload
from hetsched.workload.swf import COL, load_swf, read_swf_table
from hetsched.workload.writers import WRITERS

runner = CliRunner()
PLATFORM = load_platform(default_platform_path())


def _generate(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["generate", "workload", *args])
    return result.exit_code, result.output


def test_swf_holds_the_models_draw_rounded_to_seconds(tmp_path: Path) -> None:
    out = tmp_path / "l.swf"
    code, text = _generate(tmp_path, "--model", "lublin", "--jobs", "2000", "--seed", "3",
                           "--param", "procs=256", "--out", str(out))
    assert code == 0, text
    assert text.startswith("2,000 jobs over ") and "mean size" in text
    metadata, table = read_swf_table(out)
    assert metadata["Generator"] == "lublin" and metadata["Seed"] == 3
    assert '"procs":256' in str(metadata["Parameters"])
    params = check_params("lublin", {"jobs": 2000, "procs": 256}, Path("t"))
    drawn = GENERATORS["lublin"].draw(params, np.random.default_rng(3))
    for field in ("submit_time", "run_time", "allocated_processors", "queue", "status"):
        assert np.array_equal(table[:, COL[field]], np.rint(drawn[:, COL[field]])), field
    assert (table[:, COL["requested_time"]] == -1).all()


def test_json_needs_a_platform_and_reads_back_as_the_generated_jobs(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    args = ["--model", "poisson", "--jobs", "300", "--seed", "5", "--param",
            "mean_interarrival=60", "--param", "runtime=[10, 1000]", "--param", "procs=[1,8]",
            "--format", "json", "--out", str(out)]
    code, text = _generate(tmp_path, *args)
    assert code == 2 and text.strip().startswith("error: --format json needs --platform")
    code, text = _generate(tmp_path, *args, "--platform", str(default_platform_path()))
    assert code == 0, text
    params = check_params("poisson", {"jobs": 300, "mean_interarrival": 60,
                                      "runtime": [10, 1000], "procs": [1, 8]}, Path("t"))
    expected = generate("poisson", params, 5, PLATFORM).jobs
    back = load_workload(out, PLATFORM).jobs
    assert [(j.id, j.submit, j.ntasks, j.req_ops, j.req_time) for j in back] == \
        [(j.id, j.submit, j.ntasks, j.req_ops, j.req_time) for j in expected]


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "lubin"], "unknown workload generator 'lubin'; did you mean lublin?"),
    (["--model", "lublin", "--jobs", "0"], "field 'jobs'"),
    (["--model", "lublin", "--jobs", "5", "--param", "batch.serial_prob=0.9"],
     "serial_prob + pow2_prob must be at most 1"),
    (["--model", "lublin", "--jobs", "5", "--param", "nope"], "--param 'nope' is not key=value"),
    (["--model", "lublin", "--jobs", "5", "--format", "csv"], "unknown workload format 'csv'"),
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path: Path, args: list[str],
                                               message: str) -> None:
    code, text = _generate(tmp_path, *args, "--out", str(tmp_path / "x"))
    assert code == 2 and len(text.strip().splitlines()) == 1 and message in text, text
    assert not (tmp_path / "x").exists()


def test_parse_params_nests_dotted_keys_and_reads_json_values() -> None:
    assert parse_params(["jobs=10", "batch.pa=-0.01", "runtime=[1, 60]", "types=batch"]) == \
        {"jobs": 10, "batch": {"pa": -0.01}, "runtime": [1, 60], "types": "batch"}
    with pytest.raises(ConfigError, match="not a group"):
        parse_params(["jobs=10", "jobs.x=1"])


def test_native_writer_round_trips_a_workload(tmp_path: Path) -> None:
    workload = load_workload(default_workload_path(), PLATFORM)
    path = WRITERS["json"].write(workload, tmp_path / "w.json", PLATFORM, {})
    back = load_workload(path, PLATFORM)
    strip = [dataclasses.replace(j, memory_mb=pytest.approx(j.memory_mb)) for j in back.jobs]
    assert strip == list(workload.jobs) and back.name == workload.name


def test_native_writer_round_trips_a_job_of_no_work(tmp_path: Path) -> None:
    """A task that took 0 s (WfFormat has them): its estimate of 0 is left out, as the
    schema refuses it, and read back from its work."""
    from hetsched.workload.model import Job, Workload

    workload = Workload("w", (Job(id="a", submit=0.0, ntasks=1, req_ops=0.0, req_time=0.0),
                              Job(id="b", submit=0.0, ntasks=2, req_ops=1e9, req_time=1.0,
                                  parents=("a",))))
    for fmt in ("json", "yaml"):
        path = WRITERS[fmt].write(workload, tmp_path / f"w.{fmt}", PLATFORM, {})
        assert load_workload(path, PLATFORM).jobs == workload.jobs


def test_swf_writer_gives_run_times_on_the_slowest_core(tmp_path: Path) -> None:
    workload = load_workload(default_workload_path(), PLATFORM)
    path = WRITERS["swf"].write(workload, tmp_path / "w.swf", PLATFORM, {"Origin": "test"})
    back = load_swf(path, PLATFORM)
    assert back.metadata["Origin"] == "test" and back.metadata["MaxProcs"] == 72
    assert [j.ntasks for j in back.jobs] == [j.ntasks for j in workload.jobs]
    seconds = np.array([j.req_ops / (j.ipc * PLATFORM.slowest_speed) for j in workload.jobs])
    ops = np.array([j.req_ops for j in back.jobs]) / PLATFORM.slowest_speed
    assert np.array_equal(ops, np.rint(seconds))


def test_swf_job_numbers_are_the_ids_only_when_they_are_plain_distinct_numbers() -> None:
    from hetsched.limits import MAX_JOB_NUMBER
    from hetsched.workload.writers.swf import job_numbers

    assert job_numbers(["3", "1", "20"]) == [3, 1, 20]
    assert job_numbers(["7", "007"]) == [1, 2]  # "007" would repeat job 7
    assert job_numbers(["a", "2"]) == [1, 2]
    assert job_numbers(["²"]) == [1]
    assert job_numbers(["1", "-2"]) == [1, 2]  # no sign
    assert job_numbers(["١", "2"]) == [1, 2]  # Arabic-Indic one: int() reads it, SWF not
    assert job_numbers(["1", " 2"]) == [1, 2]
    assert job_numbers(["0", "4"]) == [0, 4]
    assert job_numbers([str(MAX_JOB_NUMBER), "1"]) == [MAX_JOB_NUMBER, 1]
    assert job_numbers([str(MAX_JOB_NUMBER + 1), "1"]) == [1, 2]  # beyond SWF's limit


def test_another_format_writes_and_warns_what_it_cannot_hold(tmp_path: Path) -> None:
    """Any workload writer of `hetsched convert`; its losses are warnings, never silent."""
    out = tmp_path / "jobs.xml"
    result = runner.invoke(app, ["generate", "workload", "-m", "poisson", "--jobs", "20",
                                 "--param", "mean_interarrival=30.5",
                                 "--param", "runtime=[10.5, 99.5]", "-f", "dssim", "-o",
                                 str(out), "-p", str(default_platform_path())])
    assert result.exit_code == 0, result.output
    assert "jobs have submit times that are not whole numbers" in result.stderr
    assert len(load_workload(out, PLATFORM).jobs) == 20


def test_the_format_comes_from_the_out_suffix_as_convert_takes_it(tmp_path: Path) -> None:
    args = ["-m", "poisson", "--jobs", "20", "--param", "mean_interarrival=60", "--param",
            "runtime=[10, 1000]"]
    code, text = _generate(tmp_path, *args, "--out", str(tmp_path / "p.json"))
    assert code == 2 and text.strip().startswith("error: --format json needs --platform")
    for name, fmt in (("p.json", "json"), ("p.yml", "yaml"), ("p.swf", "swf"),
                      ("p.txt", "swf")):
        code, text = _generate(tmp_path, *args, "-p", str(default_platform_path()), "--out",
                               str(tmp_path / name))
        assert code == 0 and text.strip().endswith(f"({fmt})"), text
    assert (tmp_path / "p.json").read_text().startswith("{")
    assert (tmp_path / "p.txt").read_text().startswith(";")    # SWF's header, as before
    assert len(load_workload(tmp_path / "p.yml", PLATFORM).jobs) == 20


def test_a_schema_error_names_every_missing_parameter_at_once(tmp_path: Path) -> None:
    code, text = _generate(tmp_path, "-m", "poisson", "--out", str(tmp_path / "p.swf"))
    assert code == 2 and text.strip() == ("error: --param: required fields are missing: "
                                          "'jobs', 'mean_interarrival', 'runtime'")
    code, text = _generate(tmp_path, "-m", "poisson", "--jobs", "3", "--param", "runtime=5",
                           "--out", str(tmp_path / "p.swf"))
    assert code == 2 and text.strip() == ("error: --param, field 'mean_interarrival': "
                                          "required field is missing")
