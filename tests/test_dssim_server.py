"""ds-sim's server model on the engine, on hand-computed cases: boot, jobs held for boot, FIFO
without backfilling, the global queue and CHKQ, ds-sim's busy/charged time accounting, and
the engine's options (horizon, contention, time series) on ds-sim runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from dssim_fake_server import conversation
from hetsched.dssim.algorithms import ALGORITHMS, Fit
from hetsched.dssim.scheduler import DsSimScheduler
from hetsched.platform.dssim import config_platform
from hetsched.workload.dssim import read_job_list
from hetsched.metrics import summarize
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.model import Workload
from support import config_xml, job, server, shared


def inputs(tmp_path: Path, servers: list[str], jobs: list[str]) -> tuple[Platform, Workload]:
    (tmp_path / "c.xml").write_text(config_xml(*servers))
    (tmp_path / "j.xml").write_text("<jobs>" + "".join(jobs) + "</jobs>")
    platform = config_platform(tmp_path / "c.xml")
    return platform, read_job_list(tmp_path / "j.xml", platform)


def emulate(tmp_path: Path, servers: list[str], jobs: list[str], algo: str,
            **options: object) -> SimResult:
    return simulate(*inputs(tmp_path, servers, jobs), DsSimScheduler(algo), **options)


def starts(result: SimResult) -> list[float]:
    return result.start.tolist()


def test_booting_server_holds_jobs_until_it_is_up(tmp_path: Path) -> None:
    result = emulate(tmp_path, [server("s", 4)],
                     [job(0, 0, 2, 100), job(1, 10, 2, 50), job(2, 20, 1, 30), job(3, 30, 1, 5)],
                     "ff")
    # 0 and 1 fit the booting server and start at boot (60); 2 waits for a core (110), and 3,
    # which would fit beside 2, waits behind it: no backfilling.
    assert starts(result) == [60, 60, 110, 110]
    assert result.end.tolist() == [160, 110, 140, 115]


def test_cost_and_utilisation_count_from_boot_to_last_end(tmp_path: Path) -> None:
    result = emulate(tmp_path, [server("s", 1, rate=3.6)],
                     [job(0, 0, 1, 100), job(1, 1000, 1, 100)], "ff")
    metrics = summarize(result)
    # up at 60; busy 60-160 and 1000-1100; charged 60-1100 = 1040 s at $3.6/h
    assert result.node_charged_seconds.tolist() == [1040]
    assert metrics["rental_cost"] == pytest.approx(1.04)
    assert metrics["dssim_utilisation"] == pytest.approx(200 / 1040)  # a fraction, not %
    assert result.node_energy_j is None and math.isnan(metrics["energy_j"])  # no power model
    assert metrics["dssim_turnaround"] == 100 + 30  # waits 60 and 0, runs 100 and 100


def test_turnaround_truncates_mean_wait_and_mean_run_separately(tmp_path: Path) -> None:
    result = emulate(tmp_path, [server("s", 1, boot=1)],
                     [job(0, 0, 1, 10), job(1, 0, 1, 11)], "ff")
    # waits 1 and 11 (mean 6), runs 10 and 11 (mean 10.5 -> 10)
    assert summarize(result)["dssim_turnaround"] == 16


def test_queue_variant_holds_jobs_until_every_job_is_submitted(tmp_path: Path) -> None:
    result = emulate(tmp_path, [server("s", 2)],
                     [job(0, 0, 2, 10), job(1, 1, 2, 10), job(2, 100, 1, 50)], "ffq")
    # job 1 finds no room (the booting server is full) and goes to the global queue; it is not
    # taken back when job 0 ends at 70, but only once job 2, the last, has arrived (CHKQ);
    # then there is no room beside job 2, so it waits for the next completion (150).
    assert starts(result) == [60, 150, 100]


def _queue_batch_case() -> tuple[list[str], list[str]]:
    # One 4-core server (no boot). Jobs 0 and 1 (1 core, end 100) and 2 (2 cores, end 1000) fill
    # it; 3 (2 cores) and 4 (3 cores) find no room and are queued. At the last submission (2)
    # CHKQ takes 3 back, it still fits nowhere: queue [4, 3].
    return ([server("s", 4, boot=0)],
            [job(0, 0, 1, 100), job(1, 0, 1, 100), job(2, 0, 2, 1000), job(3, 1, 2, 10),
             job(4, 2, 3, 10)])


def test_chkq_cuts_a_batch_of_completions_short(tmp_path: Path) -> None:
    # At 100, jobs 0 and 1 complete. ds-server (HandleREDY) sends the JCPL of job 0, then CHKQ
    # (a completion re-arms the check); job 4, the head, comes back as JOBP and job 1 is
    # completed without a JCPL. 4 needs 3 cores, 2 are free: back to the queue, which is as
    # long as at the CHKQ, so no further CHKQ until the next completion (1000): 3 starts then,
    # 4 after it. (Sending job 1's JCPL would re-arm the check and start 3 at 100.)
    result = emulate(tmp_path, *_queue_batch_case(), "ffq")
    assert starts(result) == [0, 0, 0, 1000, 1010]


def test_no_jcpl_for_completions_done_before_a_jobp(tmp_path: Path) -> None:
    events, now = [], ""
    for message, answer in conversation(*inputs(tmp_path, *_queue_batch_case()), "ffq"):
        if message == "REDY":  # JCPL endTime ..., JOBN/JOBP jobID submitTime ..., CHKQ
            kind, *fields = answer.split()
            now = {"JCPL": fields[:1], "JOBN": fields[1:2], "JOBP": fields[1:2]}.get(kind, [now])[0]
            events.append((kind, now, fields[0] if kind.startswith("JOB") else None))
    assert [e for e in events if e[1] == "100"] == [("JCPL", "100", None), ("CHKQ", "100", None),
                                                  ("JOBP", "100", "4")]
    assert [e[0] for e in events].count("JCPL") == 4  # jobs 0, 2, 3, 4; job 1 silently


def test_queue_that_never_empties_ends_the_run(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # An algorithm that queues every job: ds-server would answer CHKQ forever once nothing
    # runs; the run ends when no event is left, leaving the jobs in the queue.
    class QueueAll(Fit):
        name, rule, queues = "queue-all", staticmethod(lambda records, key: None), True

    monkeypatch.setitem(ALGORITHMS, "queue-all", QueueAll)
    scheduler = DsSimScheduler("queue-all")
    result = simulate(*inputs(tmp_path, [server("s", 2)], [job(0, 0, 1, 10), job(1, 5, 1, 10)]),
                      scheduler)
    # one CHKQ after the last submission: job 0 came back and went to the back of the queue
    assert [j.id for j in scheduler.queue.jobs] == ["1", "0"]
    assert result.count(JobState.UNFINISHED) == 2 and "left it waiting" in result.reason[0]


def test_plain_variant_queues_locally_instead(tmp_path: Path) -> None:
    result = emulate(tmp_path, [server("s", 2)],
                     [job(0, 0, 2, 10), job(1, 1, 2, 10), job(2, 100, 1, 50)], "ff")
    assert starts(result) == [60, 70, 100]


def test_fit_rules_choose_by_available_cores_left(tmp_path: Path) -> None:
    servers = [server("small", 2), server("big", 8)]
    jobs = [job(0, 0, 1, 1000), job(1, 1, 1, 10)]
    placed = {algo: [a[0][0] for a in emulate(tmp_path, servers, jobs, algo).allocation]
              for algo in ("ff", "bf", "wf")}
    # second job: small has 1 core left, big 8 -> bf picks small, wf big, ff the first
    assert placed == {"ff": [0, 0], "bf": [0, 0], "wf": [1, 1]}


def test_improved_fit_skips_servers_with_running_and_waiting_jobs(tmp_path: Path) -> None:
    servers = [server("s", 2, limit=2, boot=0)]
    jobs = [job(0, 0, 1, 1000), job(1, 1, 2, 100), job(2, 2, 2, 100), job(3, 200, 1, 10)]
    # job 2 fits nowhere and waits on server 0 (fallback), beside running job 0. At 200, job 3
    # fits server 0's free core, so ff sends it there, behind job 2 (starts at 1100); iff
    # skips server 0 (running and waiting jobs) and takes the idle server 1.
    ff = emulate(tmp_path, servers, jobs, "ff")
    iff = emulate(tmp_path, servers, jobs, "iff")
    assert [a[0][0] for a in ff.allocation] == [0, 1, 0, 0] and ff.start[3] == 1100
    assert [a[0][0] for a in iff.allocation] == [0, 1, 0, 1] and iff.start[3] == 200


def test_ds_sim_algorithms_measure_energy_where_the_platform_has_a_power_model(
        tmp_path: Path) -> None:
    # On the engine, a ds-sim algorithm gets energy like any policy when the platform has a
    # power model (always-on nodes here: up from the start, no boot): idle 10 W for 100 s,
    # then 20 W + 0 W per core... static 20 W while its one job runs [0, 100).
    powered = NodeType("s", 2, 1.0, memory_mb=2000, disk_mb=2000, idle_w=10, static_w=20)
    platform = Platform.from_counts("p", [(powered, 1)])
    (tmp_path / "j.xml").write_text(f"<jobs>{job(0, 0, 1, 100)}</jobs>")
    result = simulate(platform, read_job_list(tmp_path / "j.xml", platform), create("ff"))
    assert result.start.tolist() == [0.0] and result.node_charged_seconds is None
    assert summarize(result)["energy_j"] == pytest.approx(20 * 100)
    # a ds-sim platform has none: energy is absent, not 0 J
    ds = emulate(tmp_path, [server("s", 2)], [job(0, 0, 1, 100)], "ff")
    assert not ds.has_energy and math.isnan(summarize(ds)["energy_j"])


def test_a_server_without_boot_time_still_boots_through_its_state(tmp_path: Path) -> None:
    # bootupTime 0: the first job starts at once, the server is charged from then
    result = emulate(tmp_path, [server("s", 2, boot=0)], [job(0, 5, 1, 10)], "ff")
    assert (result.start.tolist(), result.node_charged_seconds.tolist()) == ([5.0], [10.0])


def test_horizon_cuts_a_ds_sim_run(tmp_path: Path) -> None:
    # up at 60; job 0 runs [60, 160), job 1 would start at 1000: at the horizon (500) job 0 is
    # done, job 1 not submitted; the server is charged to its last job's end (160)
    result = emulate(tmp_path, [server("s", 1)], [job(0, 0, 1, 100), job(1, 1000, 1, 100)],
                     "ff", horizon=500)
    assert result.state.tolist() == [JobState.FINISHED, JobState.UNFINISHED]
    assert result.node_charged_seconds.tolist() == [100.0] and result.t_end == 500
    # cut while a job runs: charged from boot to the horizon
    cut = emulate(tmp_path, [server("s", 1)], [job(0, 0, 1, 100)], "ff", horizon=100)
    assert cut.node_charged_seconds.tolist() == [40.0]
    # cut while the server boots: the job never began, nothing is charged
    booting = emulate(tmp_path, [server("s", 1)], [job(0, 0, 1, 100)], "ff", horizon=30)
    assert math.isnan(booting.start[0]) and booting.reason[0] == "queued at the horizon"
    assert booting.node_charged_seconds.tolist() == [0.0]


def test_contention_none_runs_ds_sim_on_the_engine(tmp_path: Path) -> None:
    jobs = [job(0, 0, 2, 100), job(1, 10, 2, 50), job(2, 20, 1, 30)]
    plain = emulate(tmp_path, [server("s", 4)], jobs, "ff")
    assert emulate(tmp_path, [server("s", 4)], jobs, "ff", contention="none").start.tolist() \
        == plain.start.tolist()


def test_time_series_of_a_ds_sim_run(tmp_path: Path) -> None:
    # job 0 submitted at 0 waits for the boot (queued) and runs [60, 160)
    result = emulate(tmp_path, [server("s", 4)], [job(0, 0, 2, 100)], "ff")
    rows = [row[:4] for row in result.timeseries.rows()]
    assert rows == [(0.0, 1, 0, 0), (60.0, 0, 1, 2), (160.0, 0, 0, 0)]


def test_engine_schedulers_boot_the_servers_of_a_ds_sim_platform(tmp_path: Path) -> None:
    # fcfs on a ds-sim platform: its start boots the server, the job starts when it is up
    platform, workload = inputs(tmp_path, [server("s", 4)], [job(0, 0, 2, 100)])
    result = simulate(platform, workload, create("fcfs"))
    assert result.start.tolist() == [60.0] and result.node_charged_seconds.tolist() == [100.0]
    assert summarize(result)["dssim_turnaround"] == 60 + 100


@pytest.mark.parametrize("algorithm", ["ff", "bf", "wf", "atl", "ffq"])
def test_a_fork_of_a_ds_sim_run_goes_on_with_a_new_scheduler(algorithm: str) -> None:
    """The new scheduler learns from the fork which server each job was sent to (running,
    held for a boot or in a local queue) and takes the pending ones as its global queue: the
    fork runs every job it knows to the end (it raised KeyError at the first completion), and
    each job that was on a server keeps the start and end it has in the whole run."""
    from hetsched.platform.load import load_platform
    from hetsched.sim.engine import Simulation
    from hetsched.workload.load import load_workload

    platform = load_platform(shared("dssim/configs/config12-long-med.xml"))
    workload = load_workload(shared("dssim/jobs/config12-long-med-jobs.xml"), platform)
    whole = simulate(platform, workload, create(algorithm))
    sim = Simulation(platform, workload, create(algorithm))
    for _ in range(150):
        step = sim.advance()
        assert step is not None
        sim.apply(sim.scheduler.decide(step.now, step.events))
    on_servers = [*sim.view.running] + [job.index for node in range(len(platform.nodes))
                                        for job in sim.view.local_queue(node)]
    assert on_servers
    fork = sim.fork(create(algorithm)).run()
    assert 0 < sim.known < len(workload.jobs)
    known = sim.known  # the jobs submitted before the fork: the ones it knows
    assert fork.state[:known].tolist() == [JobState.FINISHED] * known
    assert fork.start[on_servers].tolist() == whole.start[on_servers].tolist()
    assert fork.end[on_servers].tolist() == whole.end[on_servers].tolist()
