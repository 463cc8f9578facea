"""ds-sim XML inputs: what is read, and one-line errors naming file, record and problem."""

from __future__ import annotations

from pathlib import Path

from hetsched.platform.dssim import config_platform, server_types

from hetsched.workload.dssim import read_job_list
from hetsched.platform.load import load_platform
from hetsched.workload.load import load_workload
from support import assert_mentions, config_xml, error_of, job, server, write

CONFIG = config_xml(server("large", 8, limit=2, boot=80, rate=0.8), server("small", 2, limit=3))


def test_config_becomes_a_platform_in_ds_sim_server_order(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "c.xml", CONFIG))
    assert [n.name for n in platform.nodes] == ["small-0", "small-1", "small-2", "large-0",
                                                 "large-1"]
    large = platform.nodes[-1].type
    assert (large.cores, large.memory_mb, large.disk_mb, large.boot_time,
            large.hourly_price) == (8, 8000, 8000, 80, 0.8)
    assert [(t.name, t.limit) for t in server_types(platform)] == [("small", 3), ("large", 2)]


def test_job_list_keeps_estimate_and_actual_run_time(tmp_path: Path) -> None:
    platform = config_platform(write(tmp_path / "c.xml", CONFIG))
    workload = load_workload(write(tmp_path / "j.xml", f"<jobs>{job(7, 5, 2, 300, 120)}</jobs>"),
                             platform)
    only = workload.jobs[0]
    assert (only.id, only.submit, only.ntasks, only.req_time) == ("7", 5, 2, 120)
    assert platform.nodes[0].type.speed and only.req_ops / platform.nodes[0].type.speed == 300


def test_malformed_xml(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", "<config><servers>\n<server type='a'</servers>")
    assert_mentions(error_of(load_platform, path), "c.xml", "line 2", "malformed XML")


def test_bad_server_attribute(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", CONFIG.replace('cores="2"', 'cores="two"'))
    assert_mentions(error_of(load_platform, path), "c.xml", "server 2 ('small')", "'cores'",
                    "not an integer: 'two'")


def test_config_without_servers(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", "<config><servers/></config>")
    assert_mentions(error_of(load_platform, path), "c.xml", "no <server> elements")


def test_server_type_defined_twice(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", config_xml(server("a", 2), server("a", 4)))
    assert_mentions(error_of(load_platform, path), "server type 'a' is defined twice")


def test_job_larger_than_any_server(tmp_path: Path) -> None:
    platform = config_platform(write(tmp_path / "c.xml", CONFIG))
    path = write(tmp_path / "j.xml", f"<jobs>{job(0, 0, 1, 5)}{job(1, 3, 16, 5)}</jobs>")
    assert_mentions(error_of(read_job_list, path, platform), "j.xml", "job 1", "16 cores",
                    "no server type can run it")


def test_job_missing_an_attribute(tmp_path: Path) -> None:
    platform = config_platform(write(tmp_path / "c.xml", CONFIG))
    path = write(tmp_path / "j.xml", '<jobs><job id="4" submitTime="0" estRunTime="5" '
                                     'cores="1" memory="10" /></jobs>')
    assert_mentions(error_of(read_job_list, path, platform), "job 4", "'disk'",
                    "missing attribute")


def test_jobs_out_of_submission_order(tmp_path: Path) -> None:
    platform = config_platform(write(tmp_path / "c.xml", CONFIG))
    path = write(tmp_path / "j.xml", f"<jobs>{job(0, 10, 1, 5)}{job(1, 3, 1, 5)}</jobs>")
    assert_mentions(error_of(read_job_list, path, platform), "job 1", "before the job ahead")


def test_config_given_as_workload_says_the_job_list_is_needed(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", CONFIG.replace("<config>", '<config randomSeed="42">'))
    message = error_of(load_workload, path, config_platform(path))
    # from Python, the option by its parameter's name (the command line says --workload)
    assert_mentions(message, "c.xml", "random generator", "seed 42", "give workload JOBS.xml")


def test_config_naming_its_job_list_brings_it(tmp_path: Path) -> None:
    write(tmp_path / "mine.xml", f"<jobs>{job(0, 0, 1, 5)}</jobs>")
    named = CONFIG.replace("</servers>", '</servers><jobs file="mine.xml"/>')
    path = write(tmp_path / "c.xml", named)
    assert len(load_workload(path, config_platform(path)).jobs) == 1


def test_a_configuration_alone_is_read_once(tmp_path: Path, monkeypatch) -> None:
    """Given only a configuration naming its job list, a run reads it once for both."""
    import hetsched.platform.dssim as platform_dssim
    import hetsched.workload.dssim as workload_dssim
    import hetsched.xmldoc as xmldoc
    from hetsched.api import load_inputs

    write(tmp_path / "mine.xml", f"<jobs>{job(0, 0, 1, 5)}</jobs>")
    path = write(tmp_path / "c.xml", CONFIG.replace("</servers>",
                                                    '</servers><jobs file="mine.xml"/>'))
    read: list[Path] = []
    real = xmldoc.read_xml
    for module in (xmldoc, platform_dssim, workload_dssim):
        monkeypatch.setattr(module, "read_xml", lambda p: read.append(p) or real(p))
    platform, workload = load_inputs(path, None)
    assert len(platform.nodes) == 5 and len(workload.jobs) == 1
    assert read.count(path) == 1
